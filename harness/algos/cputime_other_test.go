//go:build !unix

package algos

// processCPU reports that this platform gives no CPU time (see the unix
// version).
func processCPU() (float64, bool) { return 0, false }
