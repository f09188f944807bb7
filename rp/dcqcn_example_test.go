package rp_test

import (
	"fmt"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
)

// A ConnectX flow at 100 Gb/s gets one CNP and then none: the first CNP
// halves the rate with α = 1023/1024 (100000 − ⌊100000·1023/2048⌋ = 50049
// Mb/s); each 300 µs increase-timer expiry closes half the gap to the 100
// Gb/s target (fast recovery, then additive increase capped at the maximum),
// so the rate is back at 100 Gb/s after 16 expiries, at 4.8 ms.
func ExampleDCQCN() {
	d, err := rp.NewDCQCN(rp.DCQCNConnectX(100 * units.Gbps))
	if err != nil {
		panic(err)
	}
	fmt.Println("before:", d.Rate())
	if err := d.Feedback(0, &cc.Feedback{Kind: cc.FeedbackCNP}, nil); err != nil {
		panic(err)
	}
	fmt.Println("after the CNP:", d.Rate(), "α =", d.Alpha())
	for d.Rate() < 100*units.Gbps {
		t := d.State().NextIncrease
		if err := d.Timer(t, nil); err != nil {
			panic(err)
		}
		if t <= 900*units.Microsecond || d.Rate() == 100*units.Gbps {
			fmt.Printf("%v: %v\n", t, d.Rate())
		}
	}
	// Output:
	// before: 100Gbps
	// after the CNP: 50.049Gbps α = 0.9990234375
	// 300us: 75.025Gbps
	// 600us: 87.513Gbps
	// 900us: 93.757Gbps
	// 4.8ms: 100Gbps
}
