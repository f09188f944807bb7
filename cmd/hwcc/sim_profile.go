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
// The files replace their paths only if keep (the run succeeded) and
// they were written in full; otherwise the paths are left as they were.
// It returns the errors of writing or committing either file, joined.
func (p *profiles) stop(keep bool) error {
	if p.cpu != nil {
		pprof.StopCPUProfile()
	}
	var errs []error
	finish := func(f *outFile, flag string, write func() error) {
		if f == nil {
			return
		}
		var err error
		if keep && write != nil {
			err = write()
		}
		if !keep || err != nil {
			f.abort()
		} else {
			err = f.commit()
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", flag, err))
		}
	}
	finish(p.cpu, "-cpuprofile", nil)
	finish(p.mem, "-memprofile", func() error {
		runtime.GC()
		return pprof.Lookup("allocs").WriteTo(p.mem, 0)
	})
	p.cpu, p.mem = nil, nil
	return errors.Join(errs...)
}
