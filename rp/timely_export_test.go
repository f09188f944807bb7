package rp

// SetState loads every register (the reference tests start the integer
// machine and the float model from the same state).
func (r *TIMELY) SetState(s TIMELYState) { r.st = s }

// Rho, BetaQ and AlphaQ are the constants New fixed, for the tests' error
// bounds.
func (r *TIMELY) Rho() int64    { return r.rho }
func (r *TIMELY) BetaQ() int64  { return r.betaQ }
func (r *TIMELY) AlphaQ() int64 { return r.alphaQ }
