package hiercc

// SetRate sets a FirstHop's R(t−1) register, so that the tests can start
// an update from any rate.
func SetRate(f *FirstHop, kbps uint32) { f.st.Rate = kbps }
