package rp_test

import (
	"fmt"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// ExampleMercury: a sender at 40 Gb/s with a 16 µs base RTT starts with
// the window C·baseRTT = 80 KB; a switch's CNP carrying the window
// 15141 B (cp.Mercury's example) sets the window and cuts DCQCN's rate
// as a plain CNP would: by RC·α/2 with the initial α = 1023/1024, in
// Kb/s 40 000 000 − ⌊40 000 000·1023/2048⌋ = 20 019 532.
func ExampleMercury() {
	snd, _ := rp.NewMercury(rp.MercuryPaper(40*units.Gbps, 16*units.Microsecond))
	fmt.Println("window before:", snd.Limits().Window)
	fb := cc.Feedback{Kind: cc.FeedbackCNP, Flow: 2}
	wire.MercuryWindow{}.Put(&fb.Data, 15141)
	_ = snd.Feedback(2*units.Microsecond, &fb, cc.NewActions(1))
	fmt.Println("window after:", snd.Limits().Window, "rate", snd.Limits().Rate)
	// Output:
	// window before: 80KB
	// window after: 15.141KB rate 20.019532Gbps
}
