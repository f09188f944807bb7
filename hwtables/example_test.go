package hwtables_test

import (
	"fmt"

	"github.com/hwcc/hwcc/hwtables"
)

// The default table is HPCC's at ε = 2^-7: 1/3 is stored (every n < 128 is)
// as 1365/4096, rounded down, so 1000000/3 comes out 0.024 % low.
func ExampleTable_Div() {
	t := hwtables.DefaultReciprocal()
	q, err := t.Div(1000000, 3)
	fmt.Println(q, err)
	_, err = t.Div(1000000, 0)
	fmt.Println(err)
	// Output:
	// 333251 <nil>
	// hwtables: divisor n = 0 out of range [1, 4194304]
}

func ExampleDefaultReciprocal() {
	t := hwtables.DefaultReciprocal()
	fmt.Printf("eps 2^-%d: %d entries of %d bits, %d bytes, %d search steps\n",
		t.EpsLog2(), t.Entries(), t.WordBits(), t.Bytes(), t.SearchSteps())
	b := t.Bound()
	fmt.Printf("bound: %.3f%% over, %.3f%% under\n", 100*b.Over, 100*b.Under)
	// Output:
	// eps 2^-7: 1400 entries of 32 bits, 5600 bytes, 11 search steps
	// bound: 0.787% over, 0.098% under
}

func ExampleNewReciprocal() {
	for _, e := range []uint{4, 7, 10, 12} {
		t, err := hwtables.NewReciprocal(hwtables.ReciprocalConfig{EpsLog2: e})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("2^-%-2d %6d entries %7d bytes\n", e, t.Entries(), t.Bytes())
	}
	_, err := hwtables.NewReciprocal(hwtables.ReciprocalConfig{EpsLog2: 20})
	fmt.Println(err)
	// Output:
	// 2^-4     203 entries     736 bytes
	// 2^-7    1400 entries    5600 bytes
	// 2^-10   9105 entries   39835 bytes
	// 2^-12  30755 entries  142242 bytes
	// hwtables: ReciprocalConfig.EpsLog2 = 20 out of range [1, 16]
}

// The compact table reaches the same error with 64 entries, but errs on
// both sides, even for n = 1.
func ExampleNewCompact() {
	t, err := hwtables.NewCompact(hwtables.CompactConfig{IndexBits: 6})
	if err != nil {
		fmt.Println(err)
		return
	}
	q, _ := t.Div(1000000, 3)
	one := t.DivFast(1000000, 1)
	fmt.Printf("%d entries, %d bytes; 1000000/3 = %d, 1000000/1 = %d\n", t.Entries(), t.Bytes(), q, one)
	// Output:
	// 64 entries, 80 bytes; 1000000/3 = 331542, 1000000/1 = 992187
}

// 1/n as mantissa/2^shift, for a caller that multiplies by it itself. The
// stored n_k below 1000 is 996 (1000 < ⌈996·128/127⌉ = 1004), so the
// mantissa is ⌊2^20/996⌋ = 1052 and the reciprocal 0.33 % high.
func ExampleTable_Lookup() {
	m, sh := hwtables.DefaultReciprocal().Lookup(1000)
	fmt.Printf("1/1000 ~= %d/2^%d = %.7f\n", m, sh, float64(m)/float64(uint64(1)<<sh))
	// Output:
	// 1/1000 ~= 1052/2^20 = 0.0010033
}

// RoCC's 40 Gb/s setting, F in whole ΔF: Fmax = 4000, so the regions start
// at 2000, 1000, 500, 250 and 125. A fair rate of 300 ΔF lies in [250, 500),
// three halvings down: α = ᾱ/8, β = β̄/8.
func ExampleNewRoCCAutoTune() {
	tab, err := hwtables.NewRoCCAutoTune(4000)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(tab.Bounds())
	for _, f := range []uint64{4000, 1999, 300, 124} {
		fmt.Printf("F = %4d: shift %d\n", f, tab.Shift(f))
	}
	_, err = hwtables.NewRoCCAutoTune(0)
	fmt.Println(err)
	// Output:
	// [125 250 500 1000 2000]
	// F = 4000: shift 0
	// F = 1999: shift 1
	// F =  300: shift 3
	// F =  124: shift 5
	// hwtables: RoCCAutoTune Fmax = 0 out of range [1, 281474976710655]
}
