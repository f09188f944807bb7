package credit_test

import (
	"fmt"

	"github.com/hwcc/hwcc/credit"
)

// A receiver-side ToR port with three VOQs sending to it: ToR 0 with 3
// flows, ToR 1 with 2 and ToR 2 with 1. Credits go 3 : 2 : 1, interleaved
// (round 1: 0 1 2 0 1 0); once ToR 2's credits reach the 2 KB it reported,
// it is skipped and rounds hold 0 and 1 only (3 : 2).
func ExampleWRR() {
	w, _ := credit.NewWRR(credit.HierCCWRR(4)) // Δ = 1 KB, C0 = 10 KB
	w.Observe(0, 0, 1_000_000, 3)              // S_0j = 1 MB, F_0j = 3
	w.Observe(0, 1, 1_000_000, 2)
	w.Observe(0, 2, 2_000, 1) // sent 2 KB: C starts at 0, 2 credits due

	var order []int
	for range 12 {
		src, _, _ := w.Grant(1)
		order = append(order, src)
	}
	fmt.Println(order)
	e, _ := w.Entry(2)
	fmt.Println("ToR 2: S", e.S, "C", e.C, "eligible", e.Eligible)
	// Output:
	// [0 1 2 0 1 0 2 1 0 1 0 0]
	// ToR 2: S 2000 C 2000 eligible false
}
