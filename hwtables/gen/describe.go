package gen

import (
	"fmt"
	"math/bits"
	"strconv"

	"github.com/hwcc/hwcc/hwtables"
)

// Table returns t, an interval or compact reciprocal table, as an
// Exportable. Its description holds the table's parameters, word layout,
// analytic bound and measured worst error (Describe runs Measure, 2^22
// lookups), and how hardware reads a word; its words are t.Word(i).
func Table(t *hwtables.Table) Exportable { return reciprocal{t} }

// reciprocal adapts a *hwtables.Table.
type reciprocal struct{ t *hwtables.Table }

func (r reciprocal) Word(i int) uint64 { return r.t.Word(i) }

func (r reciprocal) Describe() Description {
	t := r.t
	f := t.MantBits()
	b, m := t.Bound(), Measure(t)
	d := Description{
		Name:     t.Kind().String(),
		Entries:  t.Entries(),
		WordBits: t.WordBits(),
		Bytes:    t.Bytes(),
	}
	frac := Field{Name: "mant_frac", MSB: f - 1, LSB: 0,
		Doc: fmt.Sprintf("reciprocal mantissa minus its implicit leading one (2^%d)", f)}
	if t.Kind() == hwtables.KindCompact {
		p := t.IndexBits()
		d.Title = fmt.Sprintf("compact reciprocal table 1/n: 2^%d mantissa reciprocals, %d fraction bits", p, f)
		d.Source = "hardware divider seed table, compared with HPCC (SIGCOMM 2019) section 4.3"
		d.Symbol = fmt.Sprintf("hwcc_reciprocal_compact_k%d_m%d", p, f)
		d.Fields = []Field{frac}
		d.Params = []Param{
			{"index_bits", p}, {"mant_bits", f}, {"n_min", 1}, {"n_max", hwtables.MaxN},
		}
		d.Notes = []string{
			fmt.Sprintf("address i = the %d bits of n after its leading one (bit bitlen(n)-1)", p),
			fmt.Sprintf("entry i = round(2^%d / c_i) - 2^%d, c_i = 1 + (2i+1)/2^%d the interval midpoint", f+1, f, p+1),
			fmt.Sprintf("1/n ~= (2^%d + mant_frac) / 2^(%d + bitlen(n))", f, f),
			fmt.Sprintf("a/n ~= (a * (2^%d + mant_frac)) >> (%d + bitlen(n)), rounded toward zero", f, f),
		}
	} else {
		p, steps := t.EpsLog2(), t.SearchSteps()
		// The search's first stride is half the padded table, 2^(steps−1).
		half := 0
		if steps > 0 {
			half = 1 << (steps - 1)
		}
		d.Title = fmt.Sprintf("HPCC reciprocal table 1/n, eps = 2^-%d, %d fraction bits", p, f)
		d.Source = "HPCC (SIGCOMM 2019) section 4.3, Accelerating divisions in hardware"
		d.Symbol = fmt.Sprintf("hwcc_reciprocal_e%d_m%d", p, f)
		d.Fields = []Field{
			{Name: "n_minus_1", MSB: hwtables.KeyBits + f - 1, LSB: f,
				Doc: "n_k - 1: the entry covers n_k <= n < n_{k+1}"},
			frac,
		}
		d.Params = []Param{
			{"eps", t.Eps()}, {"eps_pow2", FormatEps(uint(p))}, {"mant_bits", f},
			{"key_bits", hwtables.KeyBits}, {"n_min", 1}, {"n_max", hwtables.MaxN}, {"search_steps", steps},
		}
		d.Notes = []string{
			"n_0 = 1; n_{k+1} = ceil(n_k / (1 - eps)): stored when 1/n_k - 1/n_{k+1} >= eps/n_k",
			"entries ascend in n_k; lookup: the largest k with word_k <= ((n-1) << mant_bits | (2^mant_bits - 1))",
			fmt.Sprintf("binary search, %d steps, each halving the stride from %d", steps, half),
			fmt.Sprintf("mant = floor(2^(%d + s_k) / n_k), s_k = bitlen(n_k - 1), rounded down", f),
			fmt.Sprintf("1/n ~= (2^%d + mant_frac) / 2^(%d + bitlen(n_k - 1))", f, f),
			fmt.Sprintf("a/n ~= (a * (2^%d + mant_frac)) >> (%d + bitlen(n_k - 1)), rounded toward zero", f, f),
		}
	}
	d.Params = append(d.Params,
		Param{"entries", t.Entries()}, Param{"word_bits", t.WordBits()}, Param{"bytes", t.Bytes()},
		Param{"bound_over", b.Over}, Param{"bound_under", b.Under},
		Param{"measured_max_over", m.MaxOver}, Param{"measured_max_over_n", m.MaxOverN},
		Param{"measured_max_under", m.MaxUnder}, Param{"measured_max_under_n", m.MaxUnderN},
		Param{"measured_worst", m.Worst()},
	)
	return d
}

// RoCCAutoTune returns RoCC's AUTO_TUNE region table t as an Exportable:
// five words, the region bounds ⌈Fmax/2^j⌉ (j = 5..1) in ascending order,
// each as wide as Fmax, so that hardware finds the gain shift s of a fair
// rate F as the number of words strictly greater than F.
func RoCCAutoTune(t hwtables.RoCCAutoTune) Exportable { return autoTune{t.Bounds(), t.Fmax()} }

// autoTune adapts a hwtables.RoCCAutoTune by value.
type autoTune struct {
	bound [hwtables.RoCCAutoTuneBounds]uint64
	fmax  uint64
}

// Word returns bound i (ascending); 0 outside [0, 4].
func (a autoTune) Word(i int) uint64 {
	if i < 0 || i >= len(a.bound) {
		return 0
	}
	return a.bound[i]
}

func (a autoTune) Describe() Description {
	w := bits.Len64(a.fmax)
	n := len(a.bound)
	return Description{
		Name:     "rocc_autotune",
		Title:    "RoCC AUTO_TUNE region bounds ceil(Fmax/2^j), j = 5..1, ascending",
		Source:   "RoCC (IEEE TPDS 2023) Algorithm 1 lines 15-21, section V-C",
		Symbol:   "hwcc_rocc_autotune_fmax" + strconv.FormatUint(a.fmax, 10),
		Entries:  n,
		WordBits: w,
		Bytes:    (n*w + 7) / 8,
		Fields:   []Field{{Name: "bound", MSB: w - 1, LSB: 0, Doc: "region edge in F register units"}},
		Params: []Param{
			{"fmax", a.fmax}, {"regions", hwtables.RoCCAutoTuneRegions}, {"max_shift", hwtables.RoCCAutoTuneMaxShift},
		},
		Notes: []string{
			"shift s = the number of words strictly greater than F (binary search, 3 compares)",
			"alpha = alpha_bar >> s, beta = beta_bar >> s",
			"exact: F < Fmax/2^j in real numbers iff F < ceil(Fmax/2^j) for integer F",
		},
	}
}
