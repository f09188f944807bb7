// Package rtl holds the configuration shared by the SystemVerilog blocks in
// this directory and the hwcc parts their testbenches compare them with: one
// Go value per block, from which both the hwcc settings string and the
// block's constants (sv/rtl_params.sv, written by WriteParams) are derived,
// so the RTL and its golden model cannot be configured apart. README.md
// describes the blocks, the benches and how to run them.
package rtl

import (
	"bufio"
	"fmt"
	"io"
	"math/bits"

	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/hwtables"
	inttel "github.com/hwcc/hwcc/int"
	"github.com/hwcc/hwcc/units"
)

//go:generate go run make_params.go

// RoCCConfig is the RoCC congestion point the rocc_cp block implements: the
// values of hwcc's 40g preset, spelled out so that the block's constants
// follow from them here (Settings gives them to hwcc by name).
type RoCCConfig struct {
	DeltaQ           units.Bytes // ΔQ, the queue resolution
	DeltaF           units.Rate  // ΔF, the rate resolution
	Period           units.Time  // T, the update period
	FMin, FMax       units.Rate  // multiples of ΔF
	QRef, QMid, QMax units.Bytes // the queue thresholds
	// AlphaBar and BetaBar are the PI gains, decimal strings so that the
	// settings string carries exactly the number the CSD is built from.
	AlphaBar, BetaBar string
	GainTerms         int  // CSD terms per gain
	GainFracBits      uint // g, the finest CSD shift
	QueueBits         uint // width of Qcur, Qold
	RateBits          uint // integer bits of F
	RateFracBits      uint // k, fraction bits of F
}

// RoCC is the configuration of sv/rocc_cp.sv: hwcc's RoCC 40g preset
// (cp.RoCC40G: [RoCC] §VI), with the flow table and timer phase at their
// defaults and IdleGain off.
var RoCC = RoCCConfig{
	DeltaQ:       600 * units.Byte,
	DeltaF:       10 * units.Mbps,
	Period:       40 * units.Microsecond,
	FMin:         100 * units.Mbps,
	FMax:         40 * units.Gbps,
	QRef:         150 * units.KB,
	QMid:         300 * units.KB,
	QMax:         360 * units.KB,
	AlphaBar:     "0.3",
	BetaBar:      "1.5",
	GainTerms:    8,
	GainFracBits: 16,
	QueueBits:    16,
	RateBits:     16,
	RateFracBits: 8,
}

// Settings returns c as the settings string of hwcc's rocc cp part
// (hwcc algos rocc cp lists the names).
func (c RoCCConfig) Settings() string {
	return fmt.Sprintf("delta_q=%dB, delta_f=%dbps, t=%dps, fmin=%dbps, fmax=%dbps, qref=%dB, qmid=%dB, qmax=%dB, "+
		"alpha_bar=%s, beta_bar=%s, gain_terms=%d, gain_frac_bits=%d, queue_bits=%d, rate_bits=%d, rate_frac_bits=%d, "+
		"initial_f=fmax, rounding=nearest, idle_gain=off",
		int64(c.DeltaQ), int64(c.DeltaF), int64(c.Period), int64(c.FMin), int64(c.FMax),
		int64(c.QRef), int64(c.QMid), int64(c.QMax), c.AlphaBar, c.BetaBar,
		c.GainTerms, c.GainFracBits, c.QueueBits, c.RateBits, c.RateFracBits)
}

// INTConfig is the INT codec the int_wrap block reads, as HPCC's reaction
// point is configured with it.
type INTConfig struct {
	TxBytesUnit units.Bytes // bytes per txBytes count (a power of two here)
	QLenUnit    units.Bytes // bytes per qLen count
	TSUnit      units.Time  // time per TS count
	MaxHops     int         // records a header holds
}

// INT is the configuration of sv/int_wrap.sv: inttel.DefaultConfig's units
// (HPCC, Figure 7: 128 B, 80 B, 1 ns, 5 hops) and its speed codes.
var INT = INTConfig{
	TxBytesUnit: inttel.HPCCTxBytesUnit,
	QLenUnit:    inttel.HPCCQLenUnit,
	TSUnit:      inttel.HPCCTSUnit,
	MaxHops:     inttel.HPCCMaxHops,
}

// Settings returns c as settings of hwcc's hpcc rp part.
func (c INTConfig) Settings() string {
	return fmt.Sprintf("int_max_hops=%d, int_tx_bytes_unit=%dB, int_qlen_unit=%dB, int_ts_unit=%dps",
		c.MaxHops, int64(c.TxBytesUnit), int64(c.QLenUnit), int64(c.TSUnit))
}

// Codec returns the inttel codec of c with the default speed codes.
func (c INTConfig) Codec() (*inttel.Codec, error) {
	cfg := inttel.DefaultConfig()
	cfg.TxBytesUnit, cfg.QLenUnit, cfg.TSUnit, cfg.MaxHops = c.TxBytesUnit, c.QLenUnit, c.TSUnit, c.MaxHops
	return inttel.NewCodec(cfg)
}

// INTRate is the NIC rate of the HPCC reaction point the int bench drives
// (its env rate, bit/s): the paper's 100 Gb/s simulation.
const INTRate = 100 * units.Gbps

// queueDivider returns the constant divider of the RoCC block's queue
// quantiser: ⌊v/d⌋ = (v·m) >> s for every v < limit, with m = ⌈2^s/d⌉ and
// s the smallest shift that makes it exact. With e = m·d − 2^s (0 ≤ e < d)
// and v = q·d + r, v·m/2^s = q + (r + v·e/2^s)/d, whose floor is q when
// v·e < 2^s, since r ≤ d − 1: e·limit ≤ 2^s suffices, and the product
// v·m must fit 64 bits.
func queueDivider(d, limit uint64) (m uint64, s uint, err error) {
	for s = 0; s < 64; s++ {
		m = (uint64(1)<<s + d - 1) / d
		e := m*d - uint64(1)<<s
		hi, lo := bits.Mul64(e, limit)
		if hi == 0 && lo <= uint64(1)<<s && bits.Len64(m)+bits.Len64(limit) <= 64 {
			return m, s, nil
		}
	}
	return 0, 0, fmt.Errorf("no 64-bit divider by %d below %d", d, limit)
}

// WriteParams writes sv/rtl_params.sv: the constants of the three blocks,
// derived from RoCC, INT and hwcc's default reciprocal table.
func WriteParams(w io.Writer) error {
	b := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(b, format+"\n", args...) }
	p("// Code generated by make_params.go from params.go; DO NOT EDIT.")
	p("//")
	p("// Constants of the blocks in this directory, derived from the configuration")
	p("// their hwcc parts are built with (params.go: RoCC, INT) and from hwcc's")
	p("// default reciprocal table (hwtables.DefaultReciprocal).")
	p("")
	p("package hwcc_rtl_params;")

	// Reciprocal table.
	t := hwtables.DefaultReciprocal()
	p("")
	p("  // recip_unit: HPCC's reciprocal table (hwcc tables reciprocal, the default).")
	p("  localparam int RECIP_MANT_BITS = %d;   // F: stored mantissa fraction bits", t.MantBits())
	p("  localparam int RECIP_KEY_BITS = %d;   // n_k - 1 field", hwtables.KeyBits)
	p("  localparam int RECIP_ENTRIES = %d;  // words in the $readmemh file", t.Entries())
	p("  localparam int RECIP_STEPS = %d;    // binary-search steps, ceil(log2 entries)", t.SearchSteps())
	p("  localparam int RECIP_MAX_N = %d; // divisors above are clamped to it", hwtables.MaxN)

	// RoCC.
	c := RoCC
	q, err := fixedpoint.NewQuantizer(uint64(c.DeltaQ), c.QueueBits, fixedpoint.Floor)
	if err != nil {
		return err
	}
	inUnits := func(x units.Bytes) uint64 { v, _ := q.QuantizeSat(uint64(x)); return v }
	qtop := q.Max()
	qlim := (qtop + 1) * uint64(c.DeltaQ) // the first byte count that saturates
	dm, ds, err := queueDivider(uint64(c.DeltaQ), qlim)
	if err != nil {
		return err
	}
	fmin := uint64(c.FMin/c.DeltaF) << c.RateFracBits
	fmax := uint64(c.FMax/c.DeltaF) << c.RateFracBits
	tune, err := hwtables.NewRoCCAutoTune(fmax)
	if err != nil {
		return err
	}
	p("")
	p("  // rocc_cp: RoCC's congestion point, params.go's RoCC:")
	p("  //   %s", c.Settings())
	p("  localparam string ROCC_SETTINGS = %q;", c.Settings())
	p("  localparam int ROCC_QUEUE_BITS = %d;", c.QueueBits)
	p("  localparam int ROCC_F_BITS = %d;       // RateBits + RateFracBits", c.RateBits+c.RateFracBits)
	p("  localparam int ROCC_K = %d;            // RateFracBits", c.RateFracBits)
	p("  localparam int ROCC_G = %d;           // GainFracBits", c.GainFracBits)
	p("  localparam longint ROCC_T_PS = 64'd%d; // T", int64(c.Period))
	p("  // Queue quantiser: floor(qlen / %d B), saturating at %d (qlen >= %d B):", int64(c.DeltaQ), qtop, qlim)
	p("  // floor(v / d) = (v * %d) >> %d for every v below the saturation.", dm, ds)
	p("  localparam longint ROCC_QLIM = 64'd%d;", qlim)
	p("  localparam int ROCC_QTOP = %d;", qtop)
	p("  localparam longint ROCC_QDIV_M = 64'd%d;", dm)
	p("  localparam int ROCC_QDIV_S = %d;", ds)
	p("  localparam int ROCC_QREF = %d;  // Delta-Q units", inUnits(c.QRef))
	p("  localparam int ROCC_QMID = %d;", inUnits(c.QMid))
	p("  localparam int ROCC_QMAX = %d;", inUnits(c.QMax))
	p("  localparam int ROCC_FMIN = %d;  // F register units (Delta-F / 2^K)", fmin)
	p("  localparam int ROCC_FMAX = %d;", fmax)
	p("  localparam int ROCC_FMD = %d;  // Fmax >> 3: lines 2 and 4 test F > Fmax/8", fmax>>3)
	bounds := tune.Bounds()
	p("  // AUTO_TUNE's region bounds ceil(Fmax / 2^j), j = 5..1 (hwtables.RoCCAutoTune).")
	for i, v := range bounds {
		p("  localparam int ROCC_TUNE%d = %d;", i, v)
	}
	p("")
	for _, g := range []struct{ name, val string }{{"alpha", c.AlphaBar}, {"beta", c.BetaBar}} {
		var v float64
		if _, err := fmt.Sscan(g.val, &v); err != nil {
			return fmt.Errorf("%s = %q: %v", g.name, g.val, err)
		}
		csd, err := fixedpoint.NewCSD(v, c.GainTerms, c.GainFracBits)
		if err != nil {
			return err
		}
		p("  // %s_bar = %s realised as %s (error %.3g): e * %s_bar * 2^%d,", g.name, g.val, csd.String(), csd.Error(), g.name, c.GainFracBits)
		p("  // exact, as a sum of left shifts of e (every term's shift is at most %d).", c.GainFracBits)
		p("  function automatic logic signed [63:0] rocc_csd_%s(input logic signed [63:0] e);", g.name)
		expr := ""
		for i, term := range csd.Terms() {
			sh := int(c.GainFracBits) + int(term.Exp)
			op := "+"
			if term.Neg {
				op = "-"
			}
			if i == 0 && !term.Neg {
				expr = fmt.Sprintf("(e <<< %d)", sh)
				continue
			}
			expr += fmt.Sprintf(" %s (e <<< %d)", op, sh)
		}
		p("    return %s;", expr)
		p("  endfunction")
	}

	// INT.
	codec, err := INT.Codec()
	if err != nil {
		return err
	}
	txShift := bits.TrailingZeros64(uint64(INT.TxBytesUnit))
	if uint64(1)<<txShift != uint64(INT.TxBytesUnit) {
		return fmt.Errorf("INT.TxBytesUnit %v is not a power of two", INT.TxBytesUnit)
	}
	p("")
	p("  // int_wrap: HPCC's INT records (params.go's INT): %s", INT.Settings())
	p("  localparam string INT_SETTINGS = %q;", INT.Settings())
	p("  localparam longint INT_RATE = 64'd%d; // the reaction point's NIC, bit/s", int64(INTRate))
	p("  localparam int INT_MAX_HOPS = %d;", INT.MaxHops)
	p("  localparam int INT_TX_SHIFT = %d;  // txBytes unit %d B = 2^%d", txShift, int64(INT.TxBytesUnit), txShift)
	p("  localparam longint INT_TS_UNIT_PS = 64'd%d;", int64(INT.TSUnit))
	p("  // Per speed code B: half of inttel's MaxSampleGap at B's rate, ps (a record")
	p("  // older than this is re-seeded); 0 marks a code the table does not assign.")
	p("  localparam longint INT_HORIZON_PS [16] = '{")
	for code := 0; code < 16; code++ {
		var h int64
		if r, ok := codec.Rate(uint8(code)); ok {
			h = int64(codec.MaxSampleGap(r) / 2)
		}
		sep := ","
		if code == 15 {
			sep = ""
		}
		p("    64'd%d%s", h, sep)
	}
	p("  };")
	p("")
	p("endpackage")
	return b.Flush()
}
