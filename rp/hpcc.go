package rp

import (
	"errors"
	"fmt"
	"math/big"
	"math/bits"
	"strconv"
	"sync"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/fixedpoint"
	inttel "github.com/hwcc/hwcc/int"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/window"
)

// HPCC is the reaction point of HPCC, the sender side (Li et al., SIGCOMM
// 2019, [HPCC] §3.2 and Algorithm 1). Per ACK it measures
// the normalised inflight U of the path from the INT records the ACK echoes
// (function MeasureInflight, here) and hands it to the window law (function
// ComputeWind and procedure NewAck, package window). It paces at R = W/T
// and limits the bytes in flight to W (Limits).
//
// Algorithm 1, MeasureInflight, as implemented (line numbers are the
// paper's; lines 11–27 are in package window and Feedback):
//
//	1: function MeasureInflight(ack)                   measure
//	2:   u = 0                                          first sampled hop seeds u
//	3:   for each link i on the path do
//	4:     txRate = Δtxbytes/Δts                         hopUtil, wrap-safe deltas
//	5:     u' = min(qlen, L.qlen)/(B·T) + txRate/B       hopUtil, UQ32_32
//	6:     if u' > u then
//	7:       u = u'; τ = Δts
//	8:   τ = min(τ, T)
//	9:   U = (1 − τ/T)·U + (τ/T)·u                      ewma, UQ32_32
//	10:  return U
//
// # Events
//
// The part has the contract's events only (cc.ReactionPoint). Feedback
// of a cc.FeedbackAck carrying telemetry (f.Tel: the INT header's wire
// bytes, as the switches pushed their records and the receiver echoed
// them) reads the header with inttel.ReadHeader, which checks its length
// only, into a scratch Header on the stack, and runs procedure NewAck
// (lines 21–27) with f.Seq as the ACK's sequence and f.SndNxt as snd_nxt;
// NewAck's checks cover the header's fields (the hop limit, the speed
// codes). A cc.FeedbackNak carrying telemetry is handled alike (f.Seq is
// cumulative), as the authors' ns-3 NIC runs its HPCC update on ACKs and
// NACKs. An ACK or NAK without telemetry is refused with a *cc.EventError
// (HPCC has nothing to measure; the state is unchanged): an HPCC receiver
// always echoes the header, so its absence is a fault to report, not a
// message to skip. Every other kind (CNP, rate messages, kinds of other
// schemes) changes nothing but the time and the unused_feedback count
// (cc rule 8). A hop whose records are Δts = 0 apart is skipped (see
// Guards). Sent and Timer only record the time (HPCC's sender has no
// timer: NextDeadline is units.MaxTime, so no deadline is ever late).
// No event decides anything (the part sends no message), so every event
// takes a nil *cc.Actions. Limits is {Rate: R, Window: W}.
//
// # Fixed-point formats
//
//	U, u', per-hop U   UQ32_32 (fixedpoint): 64-bit register, 32 fraction bits,
//	                   saturating at 2^32 − 2^-32
//	qlen term          q·(2^64/(B·T))/2^32, the reciprocal of B·T per speed
//	                   code fixed at NewHPCC (rounded to nearest, 2^-50 rel.)
//	txRate term        (Δtx·8/B in ps, UQ32_32) / Δts_ps through the divider
//	τ/T                τ·⌊2^64/T⌋/2^32, UQ32_32, ≤ 1 (τ ≥ T gives exactly 1)
//	EWMA               (U·(2^32 − w) + u·w + 2^31) >> 32, round half up
//
// Error against the real-valued line 5 on the same INT fields: the qlen term
// within 1.001·2^-32 absolute; the txRate term within the Divider's bound
// (default table: +0.79 %/−0.10 % relative, plus 2·2^-32). The EWMA's
// rounding and weight error add at most (0.5 + (1 + T_ps/2^32)·|u − U|)·2^-32
// per ACK, and its own decay keeps their sum below that amount over τ/T.
// rp's tests carry these bounds along random traces (hpccTracker).
//
// # Where U starts
//
// U starts at 0 in hwcc (Config.InitialU = HPCCInitialUZero, the presets'
// choice): the paper gives no initial value, and 0 says "no load measured
// yet". The authors' ns-3 code starts at 1 (hp.u = 1, and every multi-rate
// hopState[i].u = 1); htsim starts at η. The first measured ACK weighs the
// start by 1 − τ/T, so the choice shows only in the first round trip:
// HPCCInitialUOne and HPCCInitialUEta select the others.
//
// # Guards
//
// The authors' simulator has only the first; it reads at most one counter
// wrap and divides by Δts = 0.
//
//   - First ACK: there is no previous record; the ACK's records are stored
//     and no window is computed; lastUpdateSeq = snd_nxt (as the authors'
//     code does in its first RTT).
//   - Changed path: a different pathID or hop count drops every per-hop
//     record and stores the new ones (section 4.1); W, Wc and U are kept,
//     the multi-rate per-hop references restart at the current W and the
//     per-hop U at InitialU.
//   - A hop whose speed code changed (another egress port of the same
//     switch) is re-seeded alone.
//   - Counter wrap: the deltas are taken modulo 2^24 (TS) and 2^20
//     (txBytes), exact while the counters advanced by less than one period.
//     A hop record older (by the sender's clock) than half the period of
//     whichever field wraps first at the hop's speed (inttel MaxSampleGap/2:
//     1.34 ms at 400 Gb/s, 8.39 ms at 25 Gb/s) may have wrapped more than
//     once and is re-seeded instead of measured. Within that horizon a delta
//     of half a period or more can only be a record older than the stored
//     one (a reordered ACK): the hop is skipped and keeps its record.
//   - Δts = 0 (two packets within one TS unit): no rate can be measured, so
//     the hop is skipped: it takes no part in lines 4–7 and keeps its older
//     record, so the next delta spans both (State counts ZeroIntervals).
//   - An ACK with no measurable hop leaves U, W, Wc and lastUpdateSeq
//     unchanged.
//
// # Options
//
//   - FastReact (on in the paper's Algorithm 1, lines 25–26, and in the
//     authors' runs): an ACK that does not commit still updates W from Wc.
//     Off, such an ACK is ignored entirely (the "per-RTT" strategy of
//     section 5.4, Figure 13), as the authors' FAST_REACT = 0 does.
//   - MultiRate (off in the paper and in the authors' runs; the authors'
//     MULTI_RATE option): one U and one reference window per hop, W the
//     smallest per-hop window.
//   - InitialU: see above.
//
// # Registers (AppendRegisters)
//
//	now                      64 bits  latest accepted time (cc.Monotonic)
//	u                        64 bits  U, UQ32_32
//	started                   1 bit   a first ACK was taken
//	n_hop, path_id        4, 12 bits  the stored records' path
//	bottleneck                4 bits  the hop that set u on the last measured ACK
//	last_ack_seq             64 bits  the last ACK's sequence
//	w, wc, inc_stage, last_update_seq, rate, commits,
//	hopI.wc, hopI.inc_stage           the window's (window.Window.AppendRegisters)
//	hopI.speed, .ts, .tx_bytes, .qlen 4, 24, 20, 16 bits: the stored record L[I]
//	hopI.stored_at, hopI.u   64 bits  when it was stored; its U (multi-rate)
//	acks, ignored, path_changes, reseeds, zero_intervals, stale, no_sample
//	                         64 bits  event counters (model, wrap)
//	unused_feedback          64 bits  messages of kinds HPCC does not use (cc.Unused)
//
// with I over the Codec's MaxHops hops (5 by default).
//
// # Memory
//
// A NIC keeps its constant tables once for all its queue pairs and per QP
// only the registers; so does HPCC. What the configuration fixes (the
// window law, each speed code's constants, the Codec's units) is kept in
// tables that every HPCC built from an equal configuration shares. An HPCC
// holds its flow's registers: 888 bytes, which take an 896-byte slot on
// the heap. An ACK over n hops reads and writes 104 + 24·n contiguous
// bytes of them that start on a 64-byte boundary (2 cache lines for one
// hop, 4 for five), besides the shared tables and its scratch on the
// stack.
//
// That boundary is the allocator's: the Go runtime (1.22 on) puts an
// object of 513 to 32760 bytes that holds pointers in a slot of a size
// class, all multiples of 64 and 64-byte aligned there, after an 8-byte
// header, so the object starts 8 bytes past a line; the per-ACK run's
// offset in the HPCC is 56 mod 64 (TestHPCCLayout checks HPCCs built by
// NewHPCC).
//
// An HPCC is not safe for concurrent use (HPCCs sharing tables may run
// concurrently); its events, Window, Rate, CanSend, Limits, State and
// AppendRegisters (with room) do not allocate.
type HPCC struct {
	// Cold: read by Config only. It comes first so that, with the
	// window's multi-rate references after it, the per-ACK run below
	// starts at offset 248 = 56 mod 64, on a 64-byte boundary on the heap
	// (see Memory; TestHPCCLayout).
	codec *inttel.Codec // Config's Codec, as given (or the default)

	// The window: its multi-rate references, then its per-ACK registers
	// (window.Window's layout), so that they run into the fields below.
	win window.Window

	// What every ACK reads or writes, in one run with the window's
	// registers and the first hops' records: 104 + 24·nHop bytes.
	tab        *hpccTables // shared, immutable
	mono       cc.Monotonic
	u          fixedpoint.UQ32_32 // U (single-rate)
	lastAckSeq uint64
	acks       uint64
	started    bool
	nHop       uint8
	pathID     uint16
	bottleneck uint8
	fastReact  bool
	multiRate  bool
	initialU   HPCCInitialU
	hops       [inttel.HopsLimit]hpccRecord // L: Hops[:nHop] are the path's

	// Counters of the rare cases, and the multi-rate per-hop U.
	ignored, pathChanges, reseeds, zeroIntervals, stale, noSample uint64
	unused                                                        cc.Unused
	hopU                                                          [inttel.HopsLimit]fixedpoint.UQ32_32
}

// hpccRecord is the sender's record of one hop (HPCCHop without its U, which
// only the multi-rate mode has): 24 bytes.
type hpccRecord struct {
	rec inttel.Hop // the hop's last INT record used
	at  units.Time // when it was stored (the sender's time)
}

// hpccLanes holds, for the hops one ACK samples, packed in hop order: the
// hop's index, the qlen term (UQ32_32), and the divider's lanes: the txRate
// term's 128-bit numerator (Hi, Lo), τ = Δts in ps (N) and their quotient
// (Q) (measure). It is measure's scratch, on the stack: it carries nothing
// from one ACK to the next.
type hpccLanes struct {
	idx [window.MaxLanes]uint8
	qU  [window.MaxLanes]uint64
	div window.Lanes
}

var _ cc.ReactionPoint = (*HPCC)(nil)

// hpccRPPart names the part in errors.
const hpccRPPart = "rp.HPCC"

// Scales of the fixed-point arithmetic.
const (
	// hpccFrac is the fraction bits of U, u' and the EWMA weight w: UQ32_32.
	hpccFrac = fixedpoint.UQ32_32Frac
	// hpccHalf is 0.5 in the last place of UQ32_32, for round half up.
	hpccHalf = 1 << (hpccFrac - 1)
	// hpccRecipBits is the scale of the per-speed reciprocal of B·T and of
	// wT = ⌊2^64/T⌋: 2^64, so that a 64×64-bit product's high word is
	// already the quotient and a shift by hpccRecipBits − hpccFrac = 32
	// leaves it in UQ32_32.
	hpccRecipBits = 64
)

// hpccSpeed holds the constants of one speed code (hpccTables).
type hpccSpeed struct {
	ok bool
	// qMul = round(2^64/(B·T)) with B·T in bytes: qlen/(B·T) in UQ32_32 is
	// (q·qMul) >> 32.
	qMul uint64
	// psPerByte = round(2^32·8/B) ps per byte, UQ32_32: the time B takes to
	// send one byte.
	psPerByte uint64
	// horizon is MaxSampleGap(B)/2: a record older than this is re-seeded.
	horizon units.Time
}

// HPCCConfig configures an HPCC reaction point.
type HPCCConfig struct {
	// Window holds the window law's parameters: T, W_init, W_min, W_max,
	// W_AI, η, maxStage and the division table. T also normalises the
	// qlen term and weights the EWMA (Algorithm 1 lines 5, 8, 9).
	Window window.Config
	// Codec gives the INT units (128 B, 80 B, 1 ns) and speed codes of the
	// headers the ACKs echo; nil means inttel.DefaultConfig(). Every speed
	// code B in it must satisfy B·T ≥ 1 B.
	Codec *inttel.Codec
	// FastReact: per-ACK reaction without commit (Algorithm 1 line 26; the
	// authors' FAST_REACT). The paper and the presets have it on.
	FastReact bool
	// MultiRate: the per-hop law (the authors' MULTI_RATE; Appendix A.3).
	// The paper and the presets have it off.
	MultiRate bool
	// InitialU is the value U starts at (and, with MultiRate, each hop's U
	// at the start and after a path change): HPCCInitialUZero (0, hwcc's
	// default and the presets'), HPCCInitialUOne (1, the authors' ns-3) or
	// HPCCInitialUEta (η, htsim). See the type's doc.
	InitialU HPCCInitialU
}

// HPCCInitialU selects where U starts (HPCCConfig.InitialU).
type HPCCInitialU uint8

// The starting values of U.
const (
	// HPCCInitialUZero: U = 0, hwcc's default (no load measured yet).
	HPCCInitialUZero HPCCInitialU = iota
	// HPCCInitialUOne: U = 1, the authors' ns-3 (hp.u = 1).
	HPCCInitialUOne
	// HPCCInitialUEta: U = η (Window.Eta), htsim.
	HPCCInitialUEta
)

// String returns "zero", "one" or "eta".
func (v HPCCInitialU) String() string {
	switch v {
	case HPCCInitialUZero:
		return "zero"
	case HPCCInitialUOne:
		return "one"
	case HPCCInitialUEta:
		return "eta"
	}
	return "InitialU(" + strconv.Itoa(int(v)) + ")"
}

// HPCC presets' shared values.
const (
	// hpccPaperAI is W_AI = 80 B of section 5.1 ("calculated based on 100
	// concurrent flows under 100Gbps according to §3.3").
	hpccPaperAI units.Bytes = 80
	// HPCCPaperMaxStage is maxStage = 5 (sections 3.3 and 5.1).
	HPCCPaperMaxStage = 5
	// HPCCRuleFlows is the N of the W_AI rule in the testbed preset: the
	// paper sizes W_AI for 100 concurrent flows (section 5.1, footnote 4).
	HPCCRuleFlows = 100
	// HPCCMinRate is the authors' MIN_RATE (run.py: 1000 Mb/s); W_min is
	// HPCCMinRate·T.
	HPCCMinRate = units.Gbps
)

// hpccPreset fills the fields the presets share.
func hpccPreset(nic units.Rate, t units.Time, ai units.Bytes) HPCCConfig {
	init := units.BytesIn(nic, t)
	return HPCCConfig{
		Window: window.Config{
			T:        t,
			Init:     init,
			Min:      min(max(units.BytesIn(HPCCMinRate, t), 1), max(init, 1)),
			Max:      init,
			AI:       ai,
			Eta:      window.Eta95,
			MaxStage: HPCCPaperMaxStage,
		},
		FastReact: true,
	}
}

// HPCCPaperSim returns the paper's simulation parameters (section 5.1) for a
// NIC of rate nic (100 Gb/s in the paper): T = 13 µs, η = 95 %,
// maxStage = 5, W_AI = 80 B, W_init = W_max = nic·T (162.5 KB at 100 Gb/s),
// W_min = 1 Gb/s·T, fast react on, multi-rate off, the default INT codec
// and reciprocal table.
func HPCCPaperSim(nic units.Rate) HPCCConfig {
	return hpccPreset(nic, 13*units.Microsecond, hpccPaperAI)
}

// HPCCTestbed returns the paper's testbed parameters (section 5.1) for a NIC
// of rate nic (25 Gb/s in the paper): T = 9 µs, η = 95 %, maxStage = 5,
// W_init = W_max = nic·T, W_min = 1 Gb/s·T. The paper gives no testbed W_AI;
// this preset applies the rule of section 3.3 with N = HPCCRuleFlows:
// W_AI = ⌊W_init·(1 − η)/100⌋ (14 B at 25 Gb/s).
func HPCCTestbed(nic units.Rate) HPCCConfig {
	c := hpccPreset(nic, 9*units.Microsecond, 0)
	if ai, err := window.AIRule(c.Window.Init, c.Window.Eta, HPCCRuleFlows); err == nil {
		c.Window.AI = ai
	} // else Init is out of range and NewHPCC reports it
	return c
}

// ErrHPCCHeader is the Err of the *cc.EventError an ACK with a malformed
// INT header gets (a telemetry stack whose length is not the 2 + 8·nHop
// bytes its prefix announces, too many hops, an unknown speed code); test
// with errors.Is.
var ErrHPCCHeader = errors.New("rp: HPCC: malformed INT header")

// NewHPCC validates cfg and returns a reaction point at W = W_init, U =
// InitialU, with no INT history. Its errors are *cc.ConfigError naming the
// field ("Window.T", "InitialU", "Codec").
func NewHPCC(cfg HPCCConfig) (*HPCC, error) {
	if err := cfg.Window.Validate(); err != nil {
		return nil, hpccWindowError(err)
	}
	if cfg.InitialU > HPCCInitialUEta {
		return nil, &cc.ConfigError{Part: hpccRPPart, Field: "InitialU", Value: cfg.InitialU.String(),
			Range: "HPCCInitialUZero, HPCCInitialUOne or HPCCInitialUEta"}
	}
	if cfg.Codec == nil {
		c, err := hpccDefaultCodec()
		if err != nil { // cannot happen: a fixed, valid configuration
			return nil, &cc.ConfigError{Part: hpccRPPart, Field: "Codec", Err: err}
		}
		cfg.Codec = c
	}
	t, err := hpccTablesFor(cfg.Window, cfg.Codec)
	if err != nil {
		return nil, err
	}
	h := &HPCC{
		codec:     cfg.Codec,
		tab:       t,
		fastReact: cfg.FastReact,
		multiRate: cfg.MultiRate,
		initialU:  cfg.InitialU,
	}
	t.law.InitWindow(&h.win)
	h.Reset()
	return h, nil
}

// hpccWindowError is NewHPCC's error for an invalid cfg.Window (err is
// window's): the field named as HPCCConfig's.
func hpccWindowError(err error) error {
	var ce *cc.ConfigError
	if errors.As(err, &ce) {
		ce.Part, ce.Field = hpccRPPart, "Window."+ce.Field
		return ce
	}
	return &cc.ConfigError{Part: hpccRPPart, Field: "Window", Err: err}
}

// hpccDefaultCodec is the Codec of a Config without one,
// inttel.DefaultConfig(), built once: a Codec is immutable.
var hpccDefaultCodec = sync.OnceValues(func() (*inttel.Codec, error) {
	return inttel.NewCodec(inttel.DefaultConfig())
})

// hpccTables are the constants an HPCC's configuration fixes: the window
// law, each speed code's constants and the Codec's units (see HPCC's
// Memory). Every HPCC built from an equal configuration (Window and the
// Codec's contents, hpccTablesKey) shares one hpccTables by pointer
// (hpccTablesFor). With
// thousands of flows, each of their ACKs then reads one copy of the tables,
// which stays in cache, and of its own flow's memory only the registers.
// The tables are immutable once built, so HPCCs on several goroutines may
// share them.
//
// Layout: the tables are allocated alone (newHPCCTables), 824 bytes with a
// pointer, so on the heap they start 8 bytes past a 64-byte boundary (see
// HPCC's Memory). badSpeed comes first, then the scalars, so that the
// scalars and maxHops lie in one cache line and speed starts on a line:
// each code's 32 bytes of constants then lie in one line
// (TestHPCCTablesLayout checks the addresses).
type hpccTables struct {
	// badSpeed[B] = 1 for every value B of a hop's Speed field (uint8)
	// that is not a code in the Codec's table, so that the per-ACK check
	// reads no Codec.
	badSpeed [256]uint8

	law *window.Law // the window law; its Divider divides the txRate terms

	tPs   uint64 // T, ps
	wT    uint64 // ⌊2^64/T_ps⌋: τ/T = τ·wT/2^64
	qUnit uint64 // bytes per qLen count (80 B)
	// tsUnit and txUnit are the Codec's TSUnit (ps) and TxBytesUnit (B):
	// Δts = ((TS' − TS) mod 2^24)·tsUnit is the Codec's TSDelta, Δtx
	// likewise its TxBytesDelta (both deltas are below 2^24 counts, inside
	// the count width, so its Dequantize never clamps; a test compares).
	tsUnit, txUnit uint64
	maxHops        uint8 // the Codec's MaxHops

	speed [inttel.MaxSpeed + 1]hpccSpeed
}

// hpccTablesKey is what hpccTables depend on: the window's configuration
// as given and the Codec's contents (two Codecs of one Config give one
// key).
type hpccTablesKey struct {
	window  window.Config
	speeds  inttel.SpeedTable
	txUnit  units.Bytes
	qUnit   units.Bytes
	tsUnit  units.Time
	maxHops int
}

// hpccTableCacheCap bounds the configurations whose tables are kept for
// sharing: a new one past it clears the cache first (the HPCCs built
// earlier keep their tables). A simulation uses one configuration or a
// few; a sweep over T or the window's parameters moves from one to the
// next.
const hpccTableCacheCap = 64

// hpccTableCache maps each configuration built recently to its tables.
var hpccTableCache struct {
	sync.Mutex
	m map[hpccTablesKey]*hpccTables
}

// hpccTablesFor returns the tables of the window configuration w (valid)
// and codec: the ones of an earlier NewHPCC with an equal configuration, or
// new ones (math/big, configuration time only), kept for the next.
// Errors are NewHPCC's (a speed code with B·T below 1 byte).
func hpccTablesFor(w window.Config, codec *inttel.Codec) (*hpccTables, error) {
	key := hpccTablesKey{window: w, speeds: *codec.Speeds(), txUnit: codec.TxBytesUnit(), qUnit: codec.QLenUnit(),
		tsUnit: codec.TSUnit(), maxHops: codec.MaxHops()}
	c := &hpccTableCache
	c.Lock()
	t := c.m[key]
	c.Unlock()
	if t != nil {
		return t, nil
	}
	t, err := newHPCCTables(w, codec)
	if err != nil {
		return nil, err
	}
	c.Lock()
	defer c.Unlock()
	if old := c.m[key]; old != nil {
		return old, nil // built meanwhile on another goroutine
	}
	if c.m == nil || len(c.m) >= hpccTableCacheCap {
		c.m = make(map[hpccTablesKey]*hpccTables)
	}
	c.m[key] = t
	return t, nil
}

// newHPCCTables builds the tables of the window configuration w and codec.
func newHPCCTables(w window.Config, codec *inttel.Codec) (*hpccTables, error) {
	law, err := window.NewLaw(w)
	if err != nil {
		return nil, hpccWindowError(err)
	}
	w = law.Config()
	t := &hpccTables{
		law:     law,
		tPs:     uint64(w.T),
		qUnit:   uint64(codec.QLenUnit()),
		maxHops: uint8(codec.MaxHops()),
		tsUnit:  uint64(codec.TSUnit()),
		txUnit:  uint64(codec.TxBytesUnit()),
	}
	// ⌊2^64/T⌋ (T ≥ 10 ns, so it fits): the reciprocal of T, fixed here so
	// that the EWMA weight τ/T needs no division per ACK.
	t.wT, _ = bits.Div64(1, 0, t.tPs)
	for code := range t.speed {
		rate, ok := codec.Rate(uint8(code))
		if !ok {
			continue
		}
		sp, err := hpccSpeedConstants(rate, w.T, codec.MaxSampleGap(rate)/2)
		if err != nil {
			return nil, &cc.ConfigError{Part: hpccRPPart, Field: "Codec", Value: "speed code " + strconv.Itoa(code) + " = " + rate.String(),
				Range: "speeds with B·T ≥ 1 B and B ≥ 1.87 kbit/s", Err: err}
		}
		t.speed[code] = sp
	}
	for b := range t.badSpeed {
		if b > inttel.MaxSpeed || !t.speed[b].ok {
			t.badSpeed[b] = 1
		}
	}
	return t, nil
}

// hpccSpeedConstants computes one speed code's constants exactly (math/big,
// configuration time only) and rounds them to nearest.
func hpccSpeedConstants(rate units.Rate, t units.Time, horizon units.Time) (hpccSpeed, error) {
	psPerSecByte := new(big.Int).SetUint64(8 * uint64(units.Second)) // 8·10^12
	two64 := new(big.Int).Lsh(big.NewInt(1), hpccRecipBits)
	// qMul = round(2^64·8·10^12 / (B·T_ps)) = round(2^64 / (B·T in bytes))
	num := new(big.Int).Mul(two64, psPerSecByte)
	den := new(big.Int).Mul(big.NewInt(int64(rate)), big.NewInt(int64(t)))
	qMul := hpccRoundDiv(num, den)
	if !qMul.IsUint64() {
		return hpccSpeed{}, fmt.Errorf("B·T = %v × %v is below 1 byte: qlen/(B·T) would not fit", rate, t)
	}
	// psPerByte = round(2^32·8·10^12 / B)
	num = new(big.Int).Lsh(psPerSecByte, hpccFrac)
	ps := hpccRoundDiv(num, big.NewInt(int64(rate)))
	if !ps.IsUint64() {
		return hpccSpeed{}, fmt.Errorf("rate %v is below 1.87 kbit/s: 8/B ps per byte would not fit UQ32_32", rate)
	}
	return hpccSpeed{ok: true, qMul: qMul.Uint64(), psPerByte: ps.Uint64(), horizon: horizon}, nil
}

// hpccRoundDiv returns round(num/den), ties up, for positive values.
func hpccRoundDiv(num, den *big.Int) *big.Int {
	q := new(big.Int).Lsh(num, 1)
	q.Add(q, den)
	return q.Quo(q, new(big.Int).Lsh(den, 1))
}

// HPCCHop is the sender's record of one hop (Algorithm 1's L[i]).
type HPCCHop struct {
	// Record is the hop's last INT record used, raw register values.
	Record inttel.Hop
	// StoredAt is the sender's time the record was stored, ps; a record
	// older than the hop's horizon is re-seeded.
	StoredAt units.Time
	// U is the hop's normalised inflight in the multi-rate mode, UQ32_32
	// (0 in the single-rate mode).
	U fixedpoint.UQ32_32
}

// HPCCState is every register of an HPCC reaction point.
type HPCCState struct {
	// Window is the window mechanism's registers: W, Wc, incStage,
	// lastUpdateSeq, R, and the multi-rate per-hop references.
	Window window.State
	// U is the path's normalised inflight, UQ32_32 (single-rate).
	U fixedpoint.UQ32_32
	// Started is false until the first ACK.
	Started bool
	// NHop and PathID identify the path of the stored records.
	NHop   uint8
	PathID uint16
	// Hops[:NHop] are the per-hop records L.
	Hops [inttel.HopsLimit]HPCCHop
	// Bottleneck is the hop whose u' set u (line 7) on the last measured
	// ACK: the most loaded link as this sender sees it.
	Bottleneck uint8
	// LastNow is the latest time an event was accepted at (the cc.Monotonic
	// register: ACKs, Sent and Timer advance it); LastAckSeq is the last
	// ACK's sequence.
	LastNow    units.Time
	LastAckSeq uint64

	// Event counters, 64-bit, wrapping.
	Acks          uint64 // ACKs and NAKs accepted (without error)
	Ignored       uint64 // non-committing ACKs ignored with FastReact off
	PathChanges   uint64 // pathID or hop count changed: records dropped
	Reseeds       uint64 // hops re-seeded: record too old, or speed code changed
	ZeroIntervals uint64 // hops skipped for Δts = 0
	Stale         uint64 // hops skipped for a delta of half a period or more
	NoSample      uint64 // ACKs with no measurable hop
	// Unused counts the messages of kinds HPCC does not use (register
	// unused_feedback, cc rule 8): neither an ACK nor a NAK.
	Unused uint64
}

// Reset returns the reaction point to its initial state (a new flow): W =
// W_init, U = InitialU, no INT history, counters 0. Time order is kept: a
// reset part still refuses a time before its latest event.
func (h *HPCC) Reset() {
	// The configuration and the time are kept; every register is zeroed.
	*h = HPCC{codec: h.codec, win: h.win, tab: h.tab, mono: h.mono,
		fastReact: h.fastReact, multiRate: h.multiRate, initialU: h.initialU, u: h.u0()}
	h.win.Reset()
	h.resetHopU()
}

// u0 is InitialU's value, UQ32_32: 0, 1 or η (the law's, as configured).
// Reset and a path change read it.
func (h *HPCC) u0() fixedpoint.UQ32_32 {
	switch h.initialU {
	case HPCCInitialUOne:
		return fixedpoint.UQ32_32One
	case HPCCInitialUEta:
		return h.tab.law.Config().Eta
	}
	return 0
}

// resetHopU sets every hop's U to InitialU in the multi-rate mode (it is 0
// and unused in the single-rate mode).
func (h *HPCC) resetHopU() {
	if h.multiRate {
		u0 := h.u0()
		for i := range h.hopU {
			h.hopU[i] = u0
		}
	}
}

// Config returns the configuration with defaults resolved (Codec,
// Window.Max, Window.Table).
func (h *HPCC) Config() HPCCConfig {
	return HPCCConfig{Window: h.tab.law.Config(), Codec: h.codec, FastReact: h.fastReact, MultiRate: h.multiRate,
		InitialU: h.initialU}
}

// Window returns the sending window W in bytes, the unit of register w.
func (h *HPCC) Window() units.Bytes { return h.win.Window() }

// Rate returns the pacing rate R = W/T in bit/s, the unit of register
// rate.
func (h *HPCC) Rate() units.Rate { return h.win.Rate() }

// CanSend reports whether a packet may leave with inflight bytes
// unacknowledged: inflight < W (see window.Window.CanSend).
func (h *HPCC) CanSend(inflight units.Bytes) bool { return h.win.CanSend(inflight) }

// U returns the path's normalised inflight (single-rate mode) in UQ32_32,
// the raw value of register u.
func (h *HPCC) U() fixedpoint.UQ32_32 { return h.u }

// Limits is the contract's view of Window and Rate: {Rate: R, Window: W}.
func (h *HPCC) Limits() cc.Limits { return cc.Limits{Rate: h.win.Rate(), Window: h.win.Window()} }

// State returns every register, each in the unit of its snapshot
// (AppendRegisters).
func (h *HPCC) State() HPCCState {
	s := HPCCState{
		Window:        h.win.State(),
		U:             h.u,
		Started:       h.started,
		NHop:          h.nHop,
		PathID:        h.pathID,
		Bottleneck:    h.bottleneck,
		LastNow:       h.mono.Last(),
		LastAckSeq:    h.lastAckSeq,
		Acks:          h.acks,
		Ignored:       h.ignored,
		PathChanges:   h.pathChanges,
		Reseeds:       h.reseeds,
		ZeroIntervals: h.zeroIntervals,
		Stale:         h.stale,
		NoSample:      h.noSample,
		Unused:        h.unused.N(),
	}
	for i, hp := range &h.hops {
		s.Hops[i] = HPCCHop{Record: hp.rec, StoredAt: hp.at, U: h.hopU[i]}
	}
	return s
}

// hpccAckEvent names the event that runs NewAck in errors: the contract's
// Feedback.
const hpccAckEvent = "Feedback"

// Feedback is the contract's message event: see Events on the type. An
// ACK or NAK runs procedure NewAck of Algorithm 1 (lines 21–27): it
// acknowledges every byte before f.Seq while the flow's next new byte is
// f.SndNxt (64-bit byte offsets that never wrap), and its telemetry stack
// holds the INT header the data packet collected. It updates U, W and R
// and returns nil, or it returns an error and changes nothing:
//
//   - *cc.TimeOrderError: now is before the latest accepted event;
//   - *cc.EventError for a nil f, or an ACK or NAK without telemetry;
//   - *cc.EventError with Err = ErrHPCCHeader: the stack is not one INT
//     header (its length is not what its nHop announces, or Len is above
//     cc.TelemetryCap; the Reason names the byte, as inttel.ReadHeader
//     does), its nHop exceeds the Codec's MaxHops, or a speed code is not
//     in the table;
//   - *cc.EventError: f.Seq is below the previous ACK's, or f.Seq >
//     f.SndNxt.
//
// A message of another kind changes nothing but the time and the count of
// unused messages. act is not touched (HPCC's sender sends nothing); nil
// is fine. It does not allocate on success.
func (h *HPCC) Feedback(now units.Time, f *cc.Feedback, _ *cc.Actions) error {
	const event = hpccAckEvent
	if err := h.mono.Check(hpccRPPart, event, now); err != nil {
		return err
	}
	switch {
	case f == nil:
		return h.eventError(event, "nil feedback", nil)
	case f.Kind != cc.FeedbackAck && f.Kind != cc.FeedbackNak:
		// A kind HPCC does not use (a CNP, a rate message): it changes
		// nothing but the time and its count (cc rule 8).
		h.unused.Count()
		h.mono.Advance(now)
		return nil
	case f.Tel == nil:
		return h.eventError(event, "the "+f.Kind.String()+" carries no telemetry", nil)
	}
	// A Len above the cap leaves Bytes its 128 bytes, which are never a
	// header (2 + 8·nHop is never 128): ReadHeader refuses them, and
	// telError names the Len. The header is scratch, on the stack: it
	// carries nothing from one ACK to the next.
	var hdr inttel.Header
	if err := inttel.ReadHeader(f.Tel.Bytes(), &hdr); err != nil {
		return h.telError(f.Tel, err)
	}
	return h.ack(now, f.Seq, f.SndNxt, &hdr)
}

// telError is Feedback's refusal of a telemetry stack that is not one
// INT header (err is inttel.ReadHeader's).
func (h *HPCC) telError(t *cc.Telemetry, err error) error {
	reason := "telemetry: " + err.Error()
	if int(t.Len) > cc.TelemetryCap {
		reason = fmt.Sprintf("telemetry: stack length %d is above %d", t.Len, cc.TelemetryCap)
	}
	return h.eventError(hpccAckEvent, reason, ErrHPCCHeader)
}

// Sent records that the flow sent a packet at now: HPCC's sender reacts to
// ACKs only, so it keeps the time and nothing else. Errors, after which
// nothing changed: *cc.TimeOrderError; *cc.EventError for a nil p (every
// send has a frame).
func (h *HPCC) Sent(now units.Time, p *cc.Packet, _ *cc.Actions) error {
	const event = "Sent"
	if err := h.mono.Check(hpccRPPart, event, now); err != nil {
		return err
	}
	if p == nil {
		return h.eventError(event, "nil packet", nil)
	}
	h.mono.Advance(now)
	return nil
}

// NextDeadline returns units.MaxTime: HPCC's sender has no timer.
func (h *HPCC) NextDeadline() units.Time { return units.MaxTime }

// Timer records now (*cc.TimeOrderError if it is before the last event)
// and does nothing else: there is no timer.
func (h *HPCC) Timer(now units.Time, _ *cc.Actions) error {
	return h.mono.Accept(hpccRPPart, "Timer", now)
}

// eventError is a *cc.EventError of this part.
func (h *HPCC) eventError(event, reason string, err error) error {
	return &cc.EventError{Part: hpccRPPart, Event: event, Reason: reason, Err: err}
}

// ack is procedure NewAck of Algorithm 1 (lines 21–27) for an ACK that
// arrived at now, acknowledging every byte before ackSeq, while the flow's
// next new byte is sndNxt, and echoing the INT header hdr (decoded with the
// configured Codec): Feedback's fast path, with Feedback's errors but for
// the telemetry stack's (which Feedback reads), and besides them an
// *cc.EventError with Err = ErrHPCCHeader for a nil hdr or a PathID, TS or
// TxBytes wider than its field (which no stack can carry). It changes
// nothing when it returns an error. (Feedback tests the time before it
// reads the stack; the fast path's test again costs a compare and saves a
// call level.)
func (h *HPCC) ack(now units.Time, ackSeq, sndNxt uint64, hdr *inttel.Header) error {
	const event = hpccAckEvent
	// 21: procedure NewAck(ack)
	// 22: if ack.seq > lastUpdateSeq then
	commit := h.win.Due(ackSeq)
	// The common case, an ACK that measures the stored path: measure
	// checks the hop fields in its first pass, before it changes anything.
	// The header's NHop and PathID equal the stored ones, which passed
	// check when they were stored, so they need no test of their own.
	if h.mono.InOrder(now) && hdr != nil && h.started && hdr.NHop == h.nHop && hdr.PathID == h.pathID &&
		ackSeq <= sndNxt && ackSeq >= h.lastAckSeq && (commit || h.fastReact) {
		// 1–10: U = MeasureInflight(ack); 23/26: W = ComputeWind(U, commit);
		// 24: lastUpdateSeq = snd_nxt on a commit; 27: R = W/T; L = ack.L.
		return h.measure(now, commit, ackSeq, sndNxt, hdr)
	}
	if err := h.mono.Check(hpccRPPart, event, now); err != nil {
		return err
	}
	if !h.valid(ackSeq, sndNxt, hdr) {
		if err := h.check(ackSeq, sndNxt, hdr); err != nil {
			return err
		}
	}
	h.accept(now, ackSeq)
	if !commit && !h.fastReact {
		// Per-RTT reaction only: this ACK describes packets the last
		// commit already reacted to.
		h.ignored++
		return nil
	}
	// Not started, or another path (an ACK of the stored path took the
	// branch above).
	h.seed(now, sndNxt, hdr)
	return nil
}

// accept records an ACK that passed every check: the time, its sequence
// and the count.
func (h *HPCC) accept(now units.Time, ackSeq uint64) {
	h.mono.Advance(now)
	h.lastAckSeq = ackSeq
	h.acks++
}

// valid reports whether an ACK passes every test of check, without building
// an error: the per-ACK form of the checks, which ORs each hop's
// out-of-range bits together and reads no Codec. When it is false, check
// names the first fault (check is the reference; valid only lets the
// common case skip it, and a valid ACK that check would refuse cannot
// pass, as TestHPCCValidMatchesCheck checks).
func (h *HPCC) valid(ackSeq, sndNxt uint64, hdr *inttel.Header) bool {
	if hdr == nil || hdr.NHop > h.tab.maxHops || hdr.PathID > inttel.MaxPathID || ackSeq > sndNxt ||
		(h.started && ackSeq < h.lastAckSeq) {
		return false
	}
	var bad uint32
	for i := range hdr.Hops[:hdr.NHop] {
		p := &hdr.Hops[i]
		// A bit above a field's width, or a speed code not in the table.
		bad |= p.TS>>inttel.TSBits | p.TxBytes>>inttel.TxBytesBits | uint32(h.tab.badSpeed[p.Speed])
	}
	return bad == 0
}

// check validates an ACK without changing anything.
func (h *HPCC) check(ackSeq, sndNxt uint64, hdr *inttel.Header) error {
	const event = hpccAckEvent
	bad := func(reason string) error { return h.eventError(event, reason, ErrHPCCHeader) }
	if hdr == nil {
		return bad("nil header")
	}
	if int(hdr.NHop) > h.codec.MaxHops() {
		return bad(fmt.Sprintf("NHop = %d, want 0..%d (Codec MaxHops)", hdr.NHop, h.codec.MaxHops()))
	}
	if hdr.PathID > inttel.MaxPathID {
		return bad(fmt.Sprintf("PathID = %#x, want 0..%#x (12 bits)", hdr.PathID, inttel.MaxPathID))
	}
	for i, p := range hdr.Hops[:hdr.NHop] {
		switch {
		case p.Speed > inttel.MaxSpeed || !h.tab.speed[p.Speed].ok:
			return bad(fmt.Sprintf("hop %d: speed code B = %d is not in the speed table (%s)", i, p.Speed, h.codec.Speeds()))
		case p.TS > inttel.MaxTS:
			return bad(fmt.Sprintf("hop %d: TS = %#x, want 0..%#x (24 bits)", i, p.TS, inttel.MaxTS))
		case p.TxBytes > inttel.MaxTxBytes:
			return bad(fmt.Sprintf("hop %d: TxBytes = %#x, want 0..%#x (20 bits)", i, p.TxBytes, inttel.MaxTxBytes))
		}
	}
	switch {
	case ackSeq > sndNxt:
		return h.eventError(event, fmt.Sprintf("ackSeq = %d is beyond sndNxt = %d (data never sent)", ackSeq, sndNxt), nil)
	case h.started && ackSeq < h.lastAckSeq:
		return h.eventError(event, fmt.Sprintf("ackSeq = %d is below the previous ACK's %d (reordered ACK)",
			ackSeq, h.lastAckSeq), nil)
	}
	return nil
}

// seed stores every record of hdr as the per-hop history: the first ACK of
// the flow, or the first after a path change.
func (h *HPCC) seed(now units.Time, sndNxt uint64, hdr *inttel.Header) {
	if !h.started {
		// First RTT: commit only on an ACK of data sent from now on, as
		// the authors' code does (m_lastUpdateSeq = snd_nxt).
		h.win.Hold(sndNxt)
		h.started = true
	} else {
		h.pathChanges++
		if h.multiRate {
			h.win.ResetHops()
		}
	}
	h.nHop, h.pathID = hdr.NHop, hdr.PathID
	h.hops = [inttel.HopsLimit]hpccRecord{}
	h.resetHopU()
	for i, p := range hdr.Hops[:hdr.NHop] {
		h.hops[i] = hpccRecord{rec: p, at: now}
	}
}

// measure is MeasureInflight (lines 1–10) followed by ComputeWind and the
// rest of NewAck (lines 23–27), for an ACK whose path (NHop, PathID) is the
// stored one and whose time and sequence numbers ack checked. Lines 3–7 run
// in three passes, as a NIC's parallel lanes would: sample, the field
// checks, the guards, the qlen term and the txRate numerator of every hop,
// which changes nothing but the lanes, so that an ACK with a bad field is
// refused (check names the fault) with nothing changed; the hops' divisions
// in one call of the divider; then u' per hop and the largest, in hop order
// (so that the first of equal u' wins, as in one loop), and L[i] = ack.L[i].
func (h *HPCC) measure(now units.Time, commit bool, ackSeq, sndNxt uint64, hdr *inttel.Header) error {
	// 1: function MeasureInflight(ack)
	var ln hpccLanes
	hops := hdr.Hops[:hdr.NHop]
	m, rare, bad := h.sample(now, hops, &ln)
	if bad>>hpccBadShift != 0 {
		// check finds the fault: it tests what bad gathers
		// (TestHPCCSampleRefusesAsCheck).
		return h.check(ackSeq, sndNxt, hdr)
	}
	h.accept(now, ackSeq)
	if rare != 0 {
		h.rare(now, hops, rare)
	}
	if m == 0 {
		h.noSample++
		return nil
	}
	// 5, txRate/B: the sampled hops' divisions.
	h.tab.law.Divider().QuoLanes(&ln.div, m)
	if h.multiRate {
		h.measureHops(now, hops, &ln, m, commit, sndNxt)
		return nil
	}
	var (
		u   uint64 // 2: u = 0 (the first sampled hop seeds it)
		tau units.Time
		arg uint8
	)
	for j := range m {
		i := ln.idx[j]
		// 5: u' = qU + txU, saturated at the register's maximum
		up := fixedpoint.SatAdd(ln.qU[j], ln.div.Q[j])
		// 6: if u' > u then
		if up > u || j == 0 {
			// 7: u = u'; τ = ack.L[i].ts − L[i].ts
			u, tau, arg = up, units.Time(ln.div.N[j]), i
		}
		// 27 (per hop): L[i] = ack.L[i]
		h.hops[i] = hpccRecord{rec: hops[i], at: now}
	}
	h.bottleneck = arg
	// 8: τ = min(τ, T)   9: U = (1 − τ/T)·U + (τ/T)·u   (inside ewma)
	h.u = fixedpoint.UQ32_32(h.ewma(uint64(h.u), u, tau))
	// 10: return U
	// 22–27: W = ComputeWind(U, commit); lastUpdateSeq; R = W/T
	h.win.Update(h.u, commit, sndNxt)
	return nil
}

// The layout of sample's results rare and bad.
const (
	// Bits 0..15 of rare mark the hops re-seeded; the 16 bits from
	// hpccZeroShift count the hops with Δts = 0, those from hpccStaleShift
	// the stale ones (at most 15 each); hpccZeroOne and hpccStaleOne add one.
	hpccZeroShift  = 16
	hpccStaleShift = 32
	hpccZeroOne    = 1 << hpccZeroShift
	hpccStaleOne   = 1 << hpccStaleShift
	// hpccBadShift: bad = OR of TS | TxBytes<<4 | badSpeed<<24 over the
	// hops, so bad >> 24 ≠ 0 exactly when a TS is above 24 bits, a TxBytes
	// above 20 bits (TxBytes<<4 above 24) or a speed code unknown.
	hpccBadShift = inttel.TSBits
)

// sample is measure's first pass: per hop, the field checks, ORed into bad
// (see hpccBadShift; the speed code needs a test only when it differs from
// the stored one, which was checked when stored), the guards, counted in
// rare, and for a hop it measures the lane m: its index, Δts, the qlen term
// and the txRate term's numerator. It changes nothing but the lanes. It is
// a function of its own so that its loop's registers hold only what the
// loop uses.
func (h *HPCC) sample(now units.Time, hops []inttel.Hop, ln *hpccLanes) (m int, rare, bad uint64) {
	t := h.tab
	// 3: for each link i on the path do
	for i, nh := range hops {
		// nh is the ACK's record (a copy: its fields are read once, into
		// registers), hp the stored one.
		hp := &h.hops[i]
		ts, tx := nh.TS, nh.TxBytes
		bad |= uint64(ts) | uint64(tx)<<(inttel.TSBits-inttel.TxBytesBits)
		sp := &t.speed[nh.Speed&inttel.MaxSpeed]
		if nh.Speed != hp.rec.Speed || now-hp.at >= sp.horizon {
			// Another port (whose code must be in the table), or a record
			// so old that its counters may have wrapped more than once:
			// start this hop afresh.
			bad |= uint64(t.badSpeed[nh.Speed]) << hpccBadShift
			rare |= 1 << i
			continue
		}
		// Δts and Δtx in counts of the Codec's units (TSDelta/TSUnit,
		// TxBytesDelta/TxBytesUnit; hpccTables.tsUnit)
		cts := uint64((ts - hp.rec.TS) & inttel.MaxTS)
		if cts == 0 {
			// No time between the records: keep the older one.
			rare += hpccZeroOne
			continue
		}
		ctx := uint64((tx - hp.rec.TxBytes) & inttel.MaxTxBytes)
		// Δts ≥ tsHalf = 2^23·TSUnit ⇔ cts ≥ 2^23, and Δtx ≥ txHalf =
		// 2^19·TxBytesUnit ⇔ ctx ≥ 2^19: the counts' half-period bits.
		if cts>>(inttel.TSBits-1)|ctx>>(inttel.TxBytesBits-1) != 0 {
			// A step backwards read modulo the period: a record older than
			// the one stored (reordered ACK). Keep the stored one.
			rare += hpccStaleOne
			continue
		}
		// 4: txRate = (ack.L[i].txBytes − L[i].txBytes)/(ack.L[i].ts − L[i].ts)
		// 5: u' = min(ack.L[i].qlen, L[i].qlen)/(ack.L[i].B·T) + txRate/ack.L[i].B
		// (hopTerms: the qlen term and the txRate term's numerator)
		j := m & (window.MaxLanes - 1)
		ln.idx[j], ln.div.N[j] = uint8(i), cts*t.tsUnit
		ln.qU[j], ln.div.Hi[j], ln.div.Lo[j] = h.hopTerms(sp, min(hp.rec.QLen, nh.QLen), units.Bytes(ctx*t.txUnit))
		m++
	}
	return m, rare, bad
}

// rare counts the hops sample did not measure and stores the re-seeded
// ones (rare's layout: hpccZeroOne).
func (h *HPCC) rare(now units.Time, hops []inttel.Hop, rare uint64) {
	h.zeroIntervals += rare >> hpccZeroShift & 0xffff
	h.stale += rare >> hpccStaleShift & 0xffff
	for i := range hops {
		if rare>>i&1 != 0 {
			h.hops[i] = hpccRecord{rec: hops[i], at: now}
			h.reseeds++
		}
	}
}

// measureHops is measure's last pass in the multi-rate mode, over the m
// sampled lanes of an ACK of the hops: u' per hop and the largest (for the
// bottleneck), L[i] = ack.L[i], lines 8–9 per hop, U_i = (1 − τ_i/T)·U_i +
// (τ_i/T)·u'_i, and 23/26, 24, 27 with one reference per hop, W = min_i W_i.
func (h *HPCC) measureHops(now units.Time, hops []inttel.Hop, ln *hpccLanes, m int, commit bool, sndNxt uint64) {
	var (
		u       uint64
		arg     uint8
		sampled uint16 // bit i: hop i measured on this ACK
	)
	for j := range m {
		i := ln.idx[j]
		up := fixedpoint.SatAdd(ln.qU[j], ln.div.Q[j])
		if up > u || j == 0 {
			u, arg = up, i
		}
		sampled |= 1 << i
		h.hops[i] = hpccRecord{rec: hops[i], at: now}
		h.hopU[i] = fixedpoint.UQ32_32(h.ewma(uint64(h.hopU[i]), up, units.Time(ln.div.N[j])))
	}
	h.bottleneck = arg
	h.win.UpdateHops(h.hopU[:len(hops)], sampled, commit, sndNxt)
}

// hopTerms is lines 4–5 for one hop but the division: u' = min(qlen,
// L.qlen)/(B·T) + Δtx/(B·Δts) in UQ32_32 is qU + (hi·2^64 + lo)/Δts_ps,
// saturating at the register's maximum, with qlen the smaller qLen field of
// the two records; measure divides and adds.
func (h *HPCC) hopTerms(sp *hpccSpeed, qlen uint16, dtx units.Bytes) (qU, hi, lo uint64) {
	// min(ack.L[i].qlen, L[i].qlen) in bytes: ≤ 65535 · 2^32 B < 2^48.
	q := uint64(qlen) * h.tab.qUnit
	// qlen/(B·T) = q·qMul/2^64 → UQ32_32 raw = q·qMul/2^32.
	qhi, qlo := bits.Mul64(q, sp.qMul)
	// txRate/B = Δtx/(B·Δts) = (Δtx·8/B)/Δts: the time the port needs to
	// send Δtx at line rate (ps, UQ32_32) over the time it had (ps).
	hi, lo = bits.Mul64(uint64(dtx), sp.psPerByte)
	return fixedpoint.ShrSat128(qhi, qlo, hpccRecipBits-hpccFrac), hi, lo
}

// ewma is lines 8–9: τ = min(τ, T); U = (1 − τ/T)·U + (τ/T)·u, with
// w = τ/T in UQ32_32 and the sum rounded half up:
//
//	U' = (U·(2^32 − w) + u·w + 2^31) >> 32
//
// The result lies between U and u (the weights sum to 2^32), so it fits.
func (h *HPCC) ewma(U, u uint64, tau units.Time) uint64 {
	// 8: τ = min(τ, T)
	w := uint64(fixedpoint.UQ32_32One)
	if t := uint64(tau); t < h.tab.tPs {
		// w = τ/T = τ·⌊2^64/T⌋ / 2^32: τ < T and ⌊2^64/T⌋ ≤ 2^64/T keep
		// the product below 2^64 (a 64-bit multiply, no saturation), so
		// w < 2^32, within (1 + τ/2^32)·2^-32 below the exact τ/T
		w = t * h.tab.wT >> hpccFrac
	}
	// 9: U = (1 − τ/T)·U + τ/T·u   (UQ32_32·UQ32_32 → 128 bits → UQ32_32)
	h1, l1 := bits.Mul64(U, uint64(fixedpoint.UQ32_32One)-w)
	h2, l2 := bits.Mul64(u, w)
	lo, c := bits.Add64(l1, l2, 0)
	hi, _ := bits.Add64(h1, h2, c)
	lo, c = bits.Add64(lo, hpccHalf, 0)
	hi += c
	return hi<<(64-hpccFrac) | lo>>hpccFrac // ≤ max(U, u): fits
}

// AppendRegisters appends the registers listed on the type, in that order;
// it allocates only when dst must grow.
func (h *HPCC) AppendRegisters(dst []cc.Register) []cc.Register {
	dst = append(dst,
		h.mono.Register(),
		cc.Reg("u", 64, uint64(h.u)),
		cc.BoolReg("started", h.started),
		cc.Reg("n_hop", inttel.NHopBits, uint64(h.nHop)),
		cc.Reg("path_id", inttel.PathIDBits, uint64(h.pathID)),
		cc.Reg("bottleneck", inttel.NHopBits, uint64(h.bottleneck)),
		cc.Reg("last_ack_seq", 64, h.lastAckSeq),
	)
	n := int(h.tab.maxHops)
	dst = h.win.AppendRegisters(dst, n)
	for i := range n {
		hp, names := &h.hops[i], &hpccHopRegNames[i]
		dst = append(dst,
			cc.Reg(names[0], inttel.SpeedBits, uint64(hp.rec.Speed)),
			cc.Reg(names[1], inttel.TSBits, uint64(hp.rec.TS)),
			cc.Reg(names[2], inttel.TxBytesBits, uint64(hp.rec.TxBytes)),
			cc.Reg(names[3], inttel.QLenBits, uint64(hp.rec.QLen)),
			cc.TimeReg(names[4], hp.at),
			cc.Reg(names[5], 64, uint64(h.hopU[i])),
		)
	}
	return append(dst,
		cc.Reg("acks", 64, h.acks),
		cc.Reg("ignored", 64, h.ignored),
		cc.Reg("path_changes", 64, h.pathChanges),
		cc.Reg("reseeds", 64, h.reseeds),
		cc.Reg("zero_intervals", 64, h.zeroIntervals),
		cc.Reg("stale", 64, h.stale),
		cc.Reg("no_sample", 64, h.noSample),
		h.unused.Register(),
	)
}

// hpccHopRegNames are the per-hop record registers' names ("hop0.speed",
// ...), made once so that AppendRegisters builds no string.
var hpccHopRegNames = func() (n [inttel.HopsLimit][6]string) {
	for i := range n {
		p := "hop" + strconv.Itoa(i) + "."
		n[i] = [6]string{p + "speed", p + "ts", p + "tx_bytes", p + "qlen", p + "stored_at", p + "u"}
	}
	return n
}()
