package main

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/pprof"
)

// profiles are the -cpuprofile and -memprofile files of one `hwcc sim`:
// the standard runtime/pprof formats that `go tool pprof` reads, as
// `go test -cpuprofile` and `-memprofile` write them. Both files are
// opened (openOut) before the run, so that an unwritable path fails at
// once rather than after a long simulation, and replace the named files
// only once written in full.
type profiles struct {
	cpu *outFile // the CPU profile being recorded, nil if none
	mem *outFile // where stop writes the allocation profile, nil if none
}

// startProfiles opens the files named (an empty name: none) and starts
// the CPU profile. On error nothing is left running and the files named
// are as they were.
func startProfiles(cpuPath, memPath string) (*profiles, error) {
	p := &profiles{}
	var err error
	if memPath != "" {
		if p.mem, err = openOut("-memprofile", memPath); err != nil {
			return nil, err
		}
	}
	if cpuPath != "" {
		if p.cpu, err = openOut("-cpuprofile", cpuPath); err != nil {
			p.abortAll()
			return nil, err
		}
		if err = pprof.StartCPUProfile(p.cpu); err != nil {
			p.abortAll()
			return nil, fmt.Errorf("-cpuprofile: %w", err)
		}
	}
	return p, nil
}

// abortAll closes the files without writing anything more, leaving the
// files named as they were.
func (p *profiles) abortAll() {
	for _, f := range []*outFile{p.cpu, p.mem} {
		if f != nil {
			f.abort()
		}
	}
	p.cpu, p.mem = nil, nil
}

// stop ends the CPU profile and writes the allocation profile: every
// allocation sampled since the program started (runtime.MemProfileRate,
// one sample per 512 KiB allocated by default), after a garbage collection
// so that the in-use figures are current, as `go test -memprofile` does.
// It returns the errors of writing or committing either file, joined; a
// file not written in full leaves its path as it was.
func (p *profiles) stop() error {
	var errs []error
	if p.cpu != nil {
		pprof.StopCPUProfile()
		if err := p.cpu.commit(); err != nil {
			errs = append(errs, fmt.Errorf("-cpuprofile: %w", err))
		}
	}
	if p.mem != nil {
		runtime.GC()
		if err := pprof.Lookup("allocs").WriteTo(p.mem, 0); err != nil {
			p.mem.abort()
			errs = append(errs, fmt.Errorf("-memprofile: %w", err))
		} else if err := p.mem.commit(); err != nil {
			errs = append(errs, fmt.Errorf("-memprofile: %w", err))
		}
	}
	p.cpu, p.mem = nil, nil
	return errors.Join(errs...)
}
