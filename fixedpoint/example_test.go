package fixedpoint_test

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/units"
)

// UQ0_10: DCQCN's α, as ConnectX computes it ([ConnectX]): dce_tcp_g =
// 1019 holds 1 − g in Q10, so on a period with a CNP α ← (1 − g)·α + g is
// α = 1019·α/1024 + (1024 − 1019), and without one α ← (1 − g)·α.
// Multiplying by (1 − g) keeps α ≤ 1023: floor((1024 − G)·α/1024) + G is
// below 1024 for every α ≤ 1023, whereas α − floor(α·g) + g can reach 1024.
// (Go vet reads an underscore in an Example's name as a suffix, so the
// examples of the Q types are package examples named after their use.)
func Example_dcqcnAlpha() {
	oneMinusG := fixedpoint.UQ0_10(1019) // dce_tcp_g
	g := fixedpoint.UQ0_10(1024 - 1019)
	alpha := fixedpoint.UQ0_10Max // initial_alpha_value = 1023

	// α ← (1 − g)·α + g: 1019·1023/1024 = 1018.005 → 1018, + 5.
	alpha = oneMinusG.Mul(alpha) + g
	fmt.Println(uint16(alpha), alpha)
	// No CNP for a period: α ← (1 − g)·α.
	alpha = oneMinusG.Mul(alpha)
	fmt.Println(uint16(alpha))

	// Rate cut RC ← RC·(1 − α/2), with the decrease RC·α >> 11
	// (rpg_gd = 11): floor(floor(RC·α/1024)/2) = floor(RC·α/2048).
	rc := uint64(40_000) // Mb/s
	fmt.Println(rc - alpha.MulU64(rc)>>1)
	// Output:
	// 1023 0.9990234375
	// 1018
	// 20118
}

// UQ1_10: DCTCP's α may reach 1.0, which UQ0_10 cannot hold.
func Example_dctcpAlpha() {
	alpha := fixedpoint.UQ1_10One
	fmt.Println(alpha, uint16(alpha))
	a10, err := alpha.UQ0_10(fixedpoint.Saturate)
	fmt.Println(a10, err)
	_, err = alpha.UQ0_10(fixedpoint.Reject)
	fmt.Println(err)
	// Output:
	// 1 1024
	// 0.9990234375 <nil>
	// fixedpoint: value out of range of a 10-bit unsigned register [0, 1023]
}

// UQ32_32: HPCC's target η = 0.95, a window scaled by it, and a
// normalised utilisation.
func Example_hpccEta() {
	eta, _ := fixedpoint.UQ32_32FromFloat(0.95)
	fmt.Println(uint64(eta))
	// η·B·T for B = 100 Gb/s and T = 13 µs: 162500 B·0.95 = 154375 B.
	fmt.Println(eta.MulU64Round(162_500, fixedpoint.Nearest))
	// U = 12 KB / 10 KB = 1.2.
	u, _ := fixedpoint.UQ32_32FromRatio(12_000, 10_000, fixedpoint.Nearest)
	fmt.Printf("%.6f\n", u.Float())
	// Output:
	// 4080218931
	// 154375
	// 1.200000
}

func ExampleRegister() {
	// An 8-bit counter wraps; an 8-bit gauge saturates; an 8-bit config
	// field rejects.
	for _, p := range []fixedpoint.Overflow{fixedpoint.Wrap, fixedpoint.Saturate, fixedpoint.Reject} {
		r, _ := fixedpoint.NewRegister(8, p)
		r.Set(250)
		v, err := r.Add(10)
		fmt.Println(p, v, err)
	}
	// Output:
	// wrap 4 <nil>
	// saturate 255 <nil>
	// reject 250 fixedpoint: value out of range of a 8-bit unsigned register [0, 255]
}

func ExampleSignedRegister() {
	// RoCC's F − α(Qcur − Qref) can go below zero before the clamp.
	f, _ := fixedpoint.NewSignedRegister(16, fixedpoint.Saturate)
	f.Set(10)
	v, _ := f.Add(-40_000)
	fmt.Println(v, f.Min(), f.Max())
	// Output:
	// -32768 -32768 32767
}

// HPCC's txBytes is 20 bits of 128-byte units.
func ExampleWrapDelta() {
	older, newer := uint64(0xFFFF0), uint64(0x00010)
	d := fixedpoint.WrapDelta(older, newer, 20)
	fmt.Println(d, units.Bytes(d*128))
	// Output:
	// 32 4.096KB
}

func ExampleWrapTime() {
	wrap := fixedpoint.WrapTime(20, 128, 400*units.Gbps)
	safe := wrap - units.SerializationTime(128, 400*units.Gbps)
	fmt.Println(wrap, safe)
	// Output:
	// 2.68435456ms 2.684352ms
}

// RoCC holds the queue in units of ΔQ = 600 B.
func ExampleQuantizer() {
	q, _ := fixedpoint.NewQuantizer(600, 16, fixedpoint.Nearest)
	fmt.Println(q.Quantize(150_000), q.Quantize(900), q.Dequantize(250))
	n, sat := q.QuantizeSat(100_000_000)
	fmt.Println(n, sat)
	// Output:
	// 250 2 150000
	// 65535 true
}

// RoCC's gain ᾱ = 0.3 as four shifts.
func ExampleCSD() {
	a, _ := fixedpoint.NewCSD(0.3, 4, 16)
	fmt.Println(a)
	fmt.Println(a.Value(), a.Error())
	// For hardware export, without allocating: one shift and one add or
	// subtract per term.
	var buf [fixedpoint.MaxCSDTerms]fixedpoint.Term
	for _, t := range a.AppendTerms(buf[:0]) {
		fmt.Printf("shift %d subtract %v\n", t.Exp, t.Neg)
	}
	// 0.3·(Qcur − Qref) for a queue 1000 units above the reference.
	fmt.Println(a.Mul(1000), a.MulFloor(1000), a.Mul(-1000))
	// Output:
	// 2^-2 + 2^-4 - 2^-6 + 2^-8
	// 0.30078125 -0.0007812500000000111
	// shift -2 subtract false
	// shift -4 subtract false
	// shift -6 subtract true
	// shift -8 subtract false
	// 300 300 -301
}

// A 64-bit sum narrowed into a 32-bit period counter saturates instead of
// wrapping, and a rate computed through a 128-bit product does not
// overflow before its division.
func ExampleSatConv() {
	fmt.Println(fixedpoint.SatConv[uint32](uint64(5_000_000_000)))
	fmt.Println(fixedpoint.SatConv[uint16](int64(-7)))
	fmt.Println(fixedpoint.MulDivSat(3_000_000_000, 8_000_000_000, 1_000_000))
	// Output:
	// 4294967295
	// 0
	// 24000000000000
}

// A UQ32_32 product held in 128 bits goes back into its 64-bit register by
// a right shift of 32, saturating when it needs more; a deadline plus a
// period saturates at "never".
func ExampleShrSat128() {
	hi, lo := bits.Mul64(uint64(3)<<32, uint64(5)<<31)  // 3 · 2.5 in UQ32_32
	fmt.Println(fixedpoint.ShrSat128(hi, lo, 32) >> 31) // 7.5 in halves
	hi, lo = bits.Mul64(1<<63, 1<<40)
	fmt.Println(fixedpoint.ShrSat128(hi, lo, 32) == math.MaxUint64)
	fmt.Println(fixedpoint.SatAddNonNeg(units.MaxTime-5, 10*units.Nanosecond) == units.MaxTime)
	// Output:
	// 15
	// true
	// true
}
