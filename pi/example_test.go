package pi_test

import (
	"fmt"

	"github.com/hwcc/hwcc/pi"
)

// ExampleConfig_idleGain shows what IdleGain changes: the climb of F
// from Fmin while the queue stays empty, the situation after line 3 has
// reset F. Algorithm 1 as printed adds α·Qref = (0.3/32)·250 = 2.34 ΔF per
// update in the bottom AUTO_TUNE region (F < Fmax/32 = 125); with IdleGain
// the empty queue takes the top region's gain, 0.3·250 = 75 ΔF per update.
// F is printed in whole ΔF, as the CNP carries it.
func ExampleConfig_idleGain() {
	for _, idle := range []bool{false, true} {
		cfg := pi.RoCC40G()
		cfg.IdleGain = idle
		p, err := pi.NewParams(cfg)
		if err != nil {
			panic(err)
		}
		fmin, _ := p.FBounds()
		r := pi.Regs{F: fmin} // F = Fmin = 10 ΔF, Qold = 0
		fmt.Printf("IdleGain=%-5v F:", idle)
		for range 5 {
			var br pi.Branch
			r, br = pi.Step(p, r, 0) // an empty queue
			fmt.Printf(" %d (%v)", p.RateUnits(r.F), br)
		}
		fmt.Println()
	}
	// Output:
	// IdleGain=false F: 12 (pi) 14 (pi) 17 (pi) 19 (pi) 21 (pi)
	// IdleGain=true  F: 85 (pi-idle) 160 (pi-idle) 235 (pi-idle) 310 (pi-idle) 385 (pi-idle)
}
