package timely

// SetState loads every register (the reference tests start the integer
// machine and the float model from the same state).
func (r *RP) SetState(s State) { r.st = s }

// Rho, BetaQ and AlphaQ are the constants New fixed, for the tests' error
// bounds.
func (r *RP) Rho() int64    { return r.rho }
func (r *RP) BetaQ() int64  { return r.betaQ }
func (r *RP) AlphaQ() int64 { return r.alphaQ }
