package window

import (
	"math"
	"math/bits"
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/hwtables"
	"github.com/hwcc/hwcc/units"
)

// Register widths and configuration limits.
const (
	// WindowBits is the width of the W and Wc registers, in bytes.
	WindowBits = 32
	// MaxWindow is the largest W: 2^32 − 1 B (4 GiB, 40 ms at 800 Gb/s).
	MaxWindow units.Bytes = 1<<WindowBits - 1
	// MaxStageLimit is the largest MaxStage: incStage is an 8-bit register.
	MaxStageLimit = math.MaxUint8
	// MinT and MaxT bound Config.T. Above 10 ns, 8/T fits the 32 integer
	// bits of the UQ32_32 rate constant with room to spare.
	MinT = 10 * units.Nanosecond
	MaxT = 100 * units.Millisecond
	// MaxHops is the number of per-hop references a Window keeps for the
	// multi-rate mode: 15, what the 4-bit nHop of HPCC's INT header counts.
	MaxHops = 15
)

// η limits and the paper's value, in UQ32_32.
const (
	// EtaMin is the smallest η accepted, 0.5: below it half of every link
	// would be left idle by design.
	EtaMin fixedpoint.UQ32_32 = fixedpoint.UQ32_32One / 2
	// EtaMax is the largest η, 1.0: the window law targets at most the
	// bandwidth-delay product.
	EtaMax fixedpoint.UQ32_32 = fixedpoint.UQ32_32One
	// Eta95 is the paper's η = 95 % (sections 3.3 and 5.1):
	// round(0.95·2^32) = round(4080218931.2) = 4080218931.
	Eta95 fixedpoint.UQ32_32 = 4080218931
)

// Config parameterises HPCC's window law and pacing. All fields are
// required unless a zero default is stated.
type Config struct {
	// T is HPCC's T: the base RTT bound the law normalises by, "slightly
	// greater than the maximum RTT" (section 5.1: 13 µs in simulation,
	// 9 µs on the testbed). Pacing is R = W/T. Range [MinT, MaxT].
	T units.Time
	// Init is W_init, the window a flow starts with: B_NIC·T, line rate
	// for the first RTT (section 3.2). Also the initial Wc. Range
	// [Min, Max].
	Init units.Bytes
	// Min is W_min, the smallest window (the paper has none; the authors'
	// simulator has MIN_RATE, W_min = MIN_RATE·T). Range [1, Init].
	Min units.Bytes
	// Max is W_max, the largest window; 0 means Init (the authors' code
	// never lets the rate pass the NIC's). Range [Init, MaxWindow].
	Max units.Bytes
	// AI is W_AI, the additive increase per update (Algorithm 1 lines 13
	// and 17; 80 B in the paper's simulations, see AIRule). Range
	// [0, Max].
	AI units.Bytes
	// Eta is η, the target utilisation (95 % in the paper, Eta95), in
	// UQ32_32. Range [EtaMin, EtaMax] = [0.5, 1].
	Eta fixedpoint.UQ32_32
	// MaxStage is maxStage, the AI steps before an MI step (5 in the
	// paper; the authors' run.py uses 0). Range [0, MaxStageLimit].
	MaxStage int
	// Table is the reciprocal table for the division of line 13; nil means
	// hwtables.DefaultReciprocal() (ε = 2^-7).
	Table *hwtables.Table
	// NativeDivision replaces the table by the CPU's divide. It exists to
	// measure what the table costs and saves (benchmarks, differential
	// tests); hardware models leave it false.
	NativeDivision bool
}

// Validate checks every field and returns nil or a *cc.ConfigError
// (errors.Is(err, cc.ErrConfig)) naming the first bad field (its Go name:
// "T", "Init", ...), its value and the allowed range.
func (c Config) Validate() error {
	max := c.Max
	if max == 0 {
		max = c.Init
	}
	bad := func(field, value, want string) error {
		return &cc.ConfigError{Part: "window", Field: field, Value: value, Range: want}
	}
	b := func(n units.Bytes) string { return strconv.FormatInt(int64(n), 10) + " B" }
	switch {
	case c.T < MinT || c.T > MaxT:
		return bad("T", c.T.String(), MinT.String()+".."+MaxT.String())
	case c.Init < 1 || c.Init > MaxWindow:
		return bad("Init", b(c.Init), "1.."+b(MaxWindow)+" (32-bit window)")
	case c.Min < 1 || c.Min > c.Init:
		return bad("Min", b(c.Min), "1.."+b(c.Init)+" (Init)")
	case max < c.Init || max > MaxWindow:
		return bad("Max", b(c.Max), "0 (= Init) or "+b(c.Init)+".."+b(MaxWindow))
	case c.AI < 0 || c.AI > max:
		return bad("AI", b(c.AI), "0.."+b(max)+" (the window's maximum)")
	case c.Eta < EtaMin || c.Eta > EtaMax:
		return bad("Eta", c.Eta.String(), EtaMin.String()+".."+EtaMax.String())
	case c.MaxStage < 0 || c.MaxStage > MaxStageLimit:
		return bad("MaxStage", strconv.Itoa(c.MaxStage), "0.."+strconv.Itoa(MaxStageLimit)+" (8-bit incStage)")
	}
	return nil
}

// AIRule returns W_AI = W_init·(1 − η)/N, the rule of thumb of section 3.3:
// N flows adding W_AI each per round should not exceed the bandwidth
// headroom (1 − η)·W_init. It rounds down, so the N·W_AI ≤ (1 − η)·W_init
// the rule asks for holds exactly. Examples from the paper: 100 Gb/s × 4 µs
// with N = 16 gives 156 B ("should not exceed ... ≈ 150 bytes", section 5.4);
// 100 Gb/s × 13 µs with N = 100 gives 81 B (the paper uses 80 B).
//
// Errors, each a *cc.ConfigError naming the argument: init outside
// [0, MaxWindow], η outside [EtaMin, EtaMax], n < 1.
func AIRule(init units.Bytes, eta fixedpoint.UQ32_32, n int) (units.Bytes, error) {
	bad := func(field, value, want string) error {
		return &cc.ConfigError{Part: "window.AIRule", Field: field, Value: value, Range: want}
	}
	switch {
	case init < 0 || init > MaxWindow:
		return 0, bad("init", strconv.FormatInt(int64(init), 10)+" B", "0.."+strconv.FormatInt(int64(MaxWindow), 10)+" B")
	case eta < EtaMin || eta > EtaMax:
		return 0, bad("eta", eta.String(), EtaMin.String()+".."+EtaMax.String())
	case n < 1:
		return 0, bad("n", strconv.Itoa(n), "≥ 1 flow")
	}
	// W_AI = ⌊init·(2^32 − η_raw) / (2^32·N)⌋; init < 2^32 and
	// 2^32 − η_raw ≤ 2^31, so the product fits 64 bits.
	headroom := uint64(init) * uint64(fixedpoint.UQ32_32One-eta)
	return units.Bytes(headroom >> fixedpoint.UQ32_32Frac / uint64(n)), nil
}

// Law is the window law of Algorithm 1, function ComputeWind, with its
// parameters fixed at construction. It holds no per-flow state (a Reference
// does), so one Law can serve every flow and every hop. It is immutable and
// safe to share; the zero Law is not usable, build one with NewLaw.
type Law struct {
	cfg      Config // as given, Max resolved
	eta      uint64 // η in UQ32_32 raw, [2^31, 2^32]
	ai       uint64 // W_AI, bytes, ≤ max
	min      uint64 // W_min, bytes, ≥ 1
	max      uint64 // W_max, bytes, ≤ 2^32 − 1
	maxStage uint8  // maxStage
	// rateMul is 8/T in bit/s per byte of window, UQ32_32: R = W·rateMul.
	// 8·10^12/T_ps < 2^32 because T ≥ MinT; rounded to nearest, so
	// |R − W·8/T| < W·2^-33 + 1 bit/s (below 1 bit/s + 0.5 for W < 4 GiB).
	rateMul fixedpoint.UQ32_32
	div     Divider
}

// NewLaw validates cfg and returns the law.
func NewLaw(cfg Config) (*Law, error) {
	l := new(Law)
	if err := l.init(cfg); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *Law) init(cfg Config) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	if cfg.Max == 0 {
		cfg.Max = cfg.Init
	}
	if cfg.Table == nil {
		cfg.Table = hwtables.DefaultReciprocal()
	}
	// 8/T bit/s per byte = 8·10^12 / T_ps, rounded to nearest.
	rm, err := fixedpoint.UQ32_32FromRatio(8*uint64(units.Second), uint64(cfg.T), fixedpoint.Nearest)
	if err != nil { // unreachable for T ≥ MinT; kept as the overflow policy
		return &cc.ConfigError{Part: "window", Field: "T", Value: cfg.T.String(), Range: "8/T within UQ32_32", Err: err}
	}
	*l = Law{
		cfg:      cfg,
		eta:      uint64(cfg.Eta),
		ai:       uint64(cfg.AI),
		min:      uint64(cfg.Min),
		max:      uint64(cfg.Max),
		maxStage: uint8(cfg.MaxStage),
		rateMul:  rm,
		div:      NewDivider(cfg.Table, cfg.NativeDivision),
	}
	return nil
}

// Config returns the configuration with defaults resolved (Max, Table).
func (l *Law) Config() Config { return l.cfg }

// Divider returns the divider the law uses.
func (l *Law) Divider() Divider { return l.div }

// InitialReference returns the Reference a flow starts with: Wc = W_init,
// incStage = 0.
func (l *Law) InitialReference() Reference {
	return Reference{Wc: l.cfg.Init}
}

// Reference is the per-RTT state of the window law (section 3.2, Eqn (4)):
// the reference window Wc, updated only on a commit, and incStage, the AI
// steps taken since the last MI step. A Law reads and writes it.
type Reference struct {
	// Wc is the reference window W^c, bytes, a 32-bit register kept in
	// [Config.Min, Config.Max] by the law.
	Wc units.Bytes
	// IncStage counts consecutive committed AI steps, 8 bits, in
	// [0, Config.MaxStage] (an MI step resets it).
	IncStage uint8
}

// ComputeWind is Algorithm 1's function ComputeWind(U, updateWc): the new
// window from the reference ref and the normalised inflight u (UQ32_32).
// With commit set (updateWc) it also writes the result into ref. The result
// is saturated to [Min, Max] before it is returned or committed.
//
// Error of the MI step (line 13) against the real-valued Wc·η/U + W_AI:
// within the Divider's bound (the table's ε plus 2^-22 relative, −2 B),
// before the clamp; the AI step (line 17) is exact.
func (l *Law) ComputeWind(ref *Reference, u fixedpoint.UQ32_32, commit bool) units.Bytes {
	// 11: function ComputeWind(U, updateWc)
	var w uint64
	wc := l.refWindow(ref)
	// 12: if U >= η or incStage >= maxStage then
	if uint64(u) >= l.eta || ref.IncStage >= l.maxStage {
		// 13: W = Wc/(U/η) + W_AI, saturated to [Min, Max] (the quotient
		// of a tiny U may be near 2^64: the add saturates first)
		w = l.clamp(fixedpoint.SatAdd(l.mi(wc, uint64(u)), l.ai))
		// 14: if updateWc then
		if commit {
			// 15: incStage = 0; Wc = W
			ref.IncStage = 0
			ref.Wc = units.Bytes(w)
		}
	} else {
		// 17: W = Wc + W_AI
		w = l.clamp(wc + l.ai) // both < 2^32: no overflow
		// 18: if updateWc then
		if commit {
			// 19: incStage++; Wc = W  (incStage < maxStage ≤ 255 here)
			ref.IncStage++
			ref.Wc = units.Bytes(w)
		}
	}
	// 20: return W
	return units.Bytes(w)
}

// mi returns Wc/(U/η) = Wc·η/U, rounded toward zero, through the divider;
// U = 0 saturates to Max (an idle path). Wc < 2^32 and η_raw ≤ 2^32 keep
// the numerator within 64 bits; both are UQ32_32 so the scales cancel.
func (l *Law) mi(wc, u uint64) uint64 {
	if u == 0 {
		return l.max
	}
	// W = Wc·η/U  =  (Wc·η_raw) / U_raw
	return l.div.Quo(wc*l.eta, u)
}

// refWindow returns ref.Wc saturated to [Min, Max]. The law keeps Wc there
// itself; this guards a Reference a caller filled in by hand.
func (l *Law) refWindow(ref *Reference) uint64 {
	if ref.Wc < 0 {
		return l.min
	}
	return l.clamp(uint64(ref.Wc))
}

// clamp saturates w to [Min, Max] (Min ≤ Max, checked by Validate).
func (l *Law) clamp(w uint64) uint64 {
	return fixedpoint.Clamp(w, l.min, l.max)
}

// Rate returns the pacing rate R = W/T (section 3.2, Algorithm 1 line 27),
// in bit/s: floor(W·rateMul) with rateMul = 8/T in UQ32_32 fixed at
// construction, so no division runs here. Exact to within 1 bit/s for every
// W up to MaxWindow (see rateMul). w ≤ 0 gives 0.
func (l *Law) Rate(w units.Bytes) units.Rate {
	if w <= 0 {
		return 0
	}
	// R = W·8/T = ⌊W·rateMul / 2^32⌋ (rateMul.MulU64(W), written out so
	// that Rate is inlined), saturated at the largest units.Rate.
	hi, lo := bits.Mul64(uint64(w), uint64(l.rateMul))
	return units.Rate(min(fixedpoint.ShrSat128(hi, lo, fixedpoint.UQ32_32Frac), math.MaxInt64))
}
