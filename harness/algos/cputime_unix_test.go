//go:build unix

package algos

import "syscall"

// processCPU returns the CPU time the process has used, user and system,
// in seconds, every thread included (the garbage collector's too), and
// whether the platform reports it.
func processCPU() (float64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	sec := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return sec(ru.Utime) + sec(ru.Stime), true
}
