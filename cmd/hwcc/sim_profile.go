package main

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// profiles are the -cpuprofile and -memprofile files of one `hwcc sim`:
// the standard runtime/pprof formats that `go tool pprof` reads, as
// `go test -cpuprofile` and `-memprofile` write them. Both files are
// created before the run, so that an unwritable path fails at once rather
// than after a long simulation.
type profiles struct {
	cpu *os.File // the CPU profile being recorded, nil if none
	mem *os.File // where stop writes the allocation profile, nil if none
}

// startProfiles creates the files named (an empty name: none) and starts
// the CPU profile. On error nothing is left running and the files created
// are closed.
func startProfiles(cpuPath, memPath string) (*profiles, error) {
	p := &profiles{}
	var err error
	if memPath != "" {
		if p.mem, err = os.Create(memPath); err != nil {
			return nil, fmt.Errorf("-memprofile: %w", err)
		}
	}
	if cpuPath != "" {
		if p.cpu, err = os.Create(cpuPath); err != nil {
			p.closeAll()
			return nil, fmt.Errorf("-cpuprofile: %w", err)
		}
		if err = pprof.StartCPUProfile(p.cpu); err != nil {
			p.closeAll()
			return nil, fmt.Errorf("-cpuprofile: %w", err)
		}
	}
	return p, nil
}

// closeAll closes the files without writing anything more.
func (p *profiles) closeAll() {
	for _, f := range []*os.File{p.cpu, p.mem} {
		if f != nil {
			_ = f.Close()
		}
	}
	p.cpu, p.mem = nil, nil
}

// stop ends the CPU profile and writes the allocation profile: every
// allocation sampled since the program started (runtime.MemProfileRate,
// one sample per 512 KiB allocated by default), after a garbage collection
// so that the in-use figures are current, as `go test -memprofile` does.
// It returns the errors of writing or closing either file, joined.
func (p *profiles) stop() error {
	var errs []error
	if p.cpu != nil {
		pprof.StopCPUProfile()
		if err := p.cpu.Close(); err != nil {
			errs = append(errs, fmt.Errorf("-cpuprofile: %w", err))
		}
	}
	if p.mem != nil {
		runtime.GC()
		if err := pprof.Lookup("allocs").WriteTo(p.mem, 0); err != nil {
			errs = append(errs, fmt.Errorf("-memprofile: %w", err))
		}
		if err := p.mem.Close(); err != nil {
			errs = append(errs, fmt.Errorf("-memprofile: %w", err))
		}
	}
	p.cpu, p.mem = nil, nil
	return errors.Join(errs...)
}
