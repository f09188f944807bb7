package rp_test

import (
	"fmt"

	inttel "github.com/hwcc/hwcc/int"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
)

// An HPCC sender with the paper's simulation parameters (100 Gb/s NIC,
// T = 13 µs) on a one-switch path. The first ACK seeds the hop record; the
// second reports the port busy at line rate for 13 µs with a queue of about
// one BDP in both samples, so U ≈ 2: the window roughly halves
// (W = W_init·η/U + W_AI, line 13) and the pacing rate follows (R = W/T).
//
// In real numbers the fields give U = 2031·80/162500 + 1269·128/162500 =
// 1.9995 and W = 77290 B; the NIC's reciprocal table (ε = 2^-7) reads U
// 0.28 % high and the window 0.13 % low, within its stated bound.
func ExampleHPCC() {
	h, err := rp.NewHPCC(rp.HPCCPaperSim(100 * units.Gbps))
	if err != nil {
		panic(err)
	}
	codec, _ := inttel.NewCodec(inttel.DefaultConfig())
	port := inttel.Port{SwitchID: 0x2a, Rate: 100 * units.Gbps, QLen: 162500}

	var first inttel.Header
	codec.Stamp(10*units.Microsecond, &first, port)
	if err := h.OnAck(12*units.Microsecond, 1000, 163500, &first); err != nil {
		panic(err)
	}
	fmt.Println("after 1st ACK:", h.Window(), h.Rate())

	var second inttel.Header
	port.TxBytes = 162500 // 13 µs at 100 Gb/s
	codec.Stamp(23*units.Microsecond, &second, port)
	if err := h.OnAck(25*units.Microsecond, 163501, 170000, &second); err != nil {
		panic(err)
	}
	s := h.State()
	fmt.Printf("U = %.4f\n", s.U.Float())
	fmt.Println("after 2nd ACK:", h.Window(), h.Rate(), "commits:", s.Window.Commits)
	fmt.Println("may send with 80 KB in flight:", h.CanSend(80*units.KB))
	// Output:
	// after 1st ACK: 162.5KB 100Gbps
	// U = 2.0051
	// after 2nd ACK: 77.192KB 47.50276923Gbps commits: 1
	// may send with 80 KB in flight: false
}
