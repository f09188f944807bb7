package rp

import (
	"math"
	"math/bits"
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// NSCC's reference network ([uet-htsim] initNsccParams): every constant
// scales with the ratio of the network's BDP to this one's and of the
// target delay to its RTT (docs/derivations.md, "Ultra Ethernet: NSCC and
// RCCC").
const (
	NSCCRefLink = 100 * units.Gbps
	NSCCRefRTT  = 12 * units.Microsecond
)

// NSCC's limits: each is declared here once, and Validate and the
// registration in package algos read it.
const (
	// NSCCMinLink and NSCCMaxLink bound the link rate: 1 Mb/s to 10 Tb/s.
	NSCCMinLink = units.Mbps
	NSCCMaxLink = 10 * units.Tbps
	// NSCCMinRTT and NSCCMaxRTT bound the network RTT, a flow's base RTT
	// and the target delay: 100 ns to 10 ms (a 32-bit ns register holds
	// 4.29 s).
	NSCCMinRTT = 100 * units.Nanosecond
	NSCCMaxRTT = 10 * units.Millisecond
	// NSCCMaxBDP bounds the network's BDP (link × network RTT): 1 GiB, so
	// that 1.5·BDP fits the 32-bit window registers.
	NSCCMaxBDP = units.GiB
	// NSCCMinMSS and NSCCMaxMSS bound the payload of a full packet (the
	// header's 16-bit payload and frame fields).
	NSCCMinMSS = 64 * units.Byte
	NSCCMaxMSS = 65535 * units.Byte
	// NSCCMaxFrame is the largest frame Sent takes: 65535 wire bytes.
	NSCCMaxFrame = 65535 * units.Byte
	// NSCCMaxQAGate bounds QAGate: quick adapt below maxwnd/2^16 at most.
	NSCCMaxQAGate = 16
	// NSCCMaxFactor bounds the multipliers Alpha, Fi, Eta and FiScale.
	NSCCMaxFactor = 64.0
	// NSCCMaxDelayAlpha bounds the EWMA gain λ (Q16, at most 1/2).
	NSCCMaxDelayAlpha = 0.5
	// NSCCMaxQAFactor bounds QAThreshold in target delays.
	NSCCMaxQAFactor = 64
)

const (
	nsccPart = "rp.NSCC"
	// nsccWinBits is the width of the window and byte-count registers.
	nsccWinBits = 32
	// nsccQ is the fraction width of γ, λ, fi_scale and the EWMA: Q16.
	nsccQ   = 16
	nsccOne = 1 << nsccQ
	// nsccIncQ is the fraction width of inc (bytes²) and of fi and η per
	// byte: Q8.
	nsccIncQ = 8
	// nsccKQ is the fraction width of the proportional gain k = α in
	// bytes per byte acknowledged and per ns below target: Q32.
	nsccKQ = 32
	// nsccAvgBits is the width of the delay average: Q16.16 ns.
	nsccAvgBits = 48
	// nsccMDFloor is the least multiplicative decrease factor, 0.5 in Q16
	// ([uet-htsim] multiplicative_decrease: max(…, 0.5)).
	nsccMDFloor = nsccOne / 2
)

// NSCCConfig configures NSCC's reaction point. Multipliers are float64
// here and fixed-point in the part (New rounds them); every default is
// the consortium model's ([uet-htsim]; the registration in package algos
// cites each, and docs/derivations.md lists them).
type NSCCConfig struct {
	// Link is the sender's link rate C (NSCCMinLink..NSCCMaxLink).
	Link units.Rate
	// NetworkRTT is T_n, the network's largest unloaded round trip, which
	// scales every constant (NSCCMinRTT..NSCCMaxRTT); Link·NetworkRTT is at
	// most NSCCMaxBDP.
	NetworkRTT units.Time
	// BaseRTT is the flow's base RTT at start (0: NetworkRTT, as the model
	// does without accurate base RTTs); samples lower it.
	BaseRTT units.Time
	// MSS is a full packet's payload (NSCCMinMSS..NSCCMaxMSS): the window's
	// floor and the unit of fi, η and α.
	MSS units.Bytes
	// Trimming: the fabric trims, so the target delay defaults to
	// 0.75·NetworkRTT (NetworkRTT without trimming).
	Trimming bool
	// TargetQDelay is Q_t (0: derived from Trimming; else
	// NSCCMinRTT..NSCCMaxRTT).
	TargetQDelay units.Time
	// Alpha, Fi, Eta and FiScale are the multipliers of the proportional
	// increase (α = Alpha·MSS·a·b/Q_t), fair increase (fi = Fi·MSS·a),
	// fulfil step (η = Eta·MSS·a) and fast increase (FiScale·a): 4, 5,
	// 0.15, 0.25; each in [0, NSCCMaxFactor].
	Alpha, Fi, Eta, FiScale float64
	// Gamma is γ of the multiplicative decrease (0.8), in (0, 1].
	Gamma float64
	// DelayAlpha is λ, the delay EWMA's gain (0.0125), in
	// (0, NSCCMaxDelayAlpha].
	DelayAlpha float64
	// QAGate: quick adapt fires only while the bytes acknowledged in its
	// period are below maxwnd/2^QAGate (3); 0..NSCCMaxQAGate.
	QAGate uint8
	// QAFactor: a delay above QAFactor·Q_t triggers quick adapt (4);
	// 1..NSCCMaxQAFactor.
	QAFactor int
	// AdjustPeriod is the fulfil step's η period (0: NetworkRTT; else
	// NSCCMinRTT..NSCCMaxRTT). AdjustBytes are the acknowledged bytes that
	// trigger a fulfil step (0: 8·MSS; else MSS..NSCCMaxBDP).
	AdjustPeriod units.Time
	AdjustBytes  units.Bytes
	// FastDelay is the delay below which fast increase runs (1 µs); 0..NSCCMaxRTT.
	FastDelay units.Time
	// InitialCwnd is the window at start (0: maxwnd = 1.5·BDP of BaseRTT;
	// else MSS..maxwnd).
	InitialCwnd units.Bytes
	// BaseOnNack: a NACK's round trip lowers the base RTT as an ACK's does
	// ([uet-htsim]'s update_base_rtt_on_nack, on by default).
	BaseOnNack bool
	// NoQuickAdapt turns quick adapt off ([uet-htsim]'s
	// _disable_quick_adapt, off by default).
	NoQuickAdapt bool
	// Credit runs RCCC's sender beside the window (the uec deployment):
	// see NSCC, "With RCCC".
	Credit RCCCSenderConfig
}

// NSCCDefault returns the consortium model's NSCC ([uet-htsim]
// initNsccParams, initNscc) on a network of link rate link and largest
// unloaded RTT rtt, with packets of mss payload bytes, on a trimming
// fabric, without credit.
func NSCCDefault(link units.Rate, rtt units.Time, mss units.Bytes) NSCCConfig {
	return NSCCConfig{
		Link: link, NetworkRTT: rtt, MSS: mss, Trimming: true,
		Alpha: 4, Fi: 5, Eta: 0.15, FiScale: 0.25, Gamma: 0.8, DelayAlpha: 0.0125,
		QAGate: 3, QAFactor: 4, FastDelay: units.Microsecond, BaseOnNack: true,
	}
}

// NSCCScaling are the real-valued quantities New derives from a
// configuration, before rounding into registers (docs/derivations.md):
// the scaling factors and the constants in bytes and ns.
type NSCCScaling struct {
	// A = BDP/BDP_ref and B = Q_t/T_ref, the model's scaling_factor_a and
	// scaling_factor_b.
	A, B float64
	// QtNs is the target delay Q_t and TnNs the network RTT, ns.
	QtNs, TnNs float64
	// K is α in bytes per acknowledged byte per ns below target
	// (Alpha·MSS·a·b/Q_t); Fi and Eta are bytes per acknowledged byte and
	// bytes; FiScale is bytes per acknowledged byte.
	K, Fi, Eta, FiScale float64
	// BytesPerNs is the link rate in bytes per ns.
	BytesPerNs float64
}

// Scaling returns c's derived quantities (c must be valid).
func (c NSCCConfig) Scaling() NSCCScaling {
	tn := float64(c.NetworkRTT) / float64(units.Nanosecond)
	bpn := float64(c.Link) / 8e9
	refBDP := float64(NSCCRefLink) / 8e9 * float64(NSCCRefRTT) / float64(units.Nanosecond)
	a := bpn * tn / refBDP
	qt := float64(c.targetQDelay()) / float64(units.Nanosecond)
	b := qt / (float64(NSCCRefRTT) / float64(units.Nanosecond))
	mss := float64(c.MSS)
	return NSCCScaling{
		A: a, B: b, QtNs: qt, TnNs: tn,
		K: c.Alpha * mss * a * b / qt, Fi: c.Fi * mss * a, Eta: c.Eta * mss * a, FiScale: c.FiScale * a,
		BytesPerNs: bpn,
	}
}

// targetQDelay is Q_t: TargetQDelay, or 0.75·NetworkRTT with trimming and
// NetworkRTT without ([uet-htsim] initNsccParams).
func (c NSCCConfig) targetQDelay() units.Time {
	switch {
	case c.TargetQDelay > 0:
		return c.TargetQDelay
	case c.Trimming:
		return c.NetworkRTT * 3 / 4
	}
	return c.NetworkRTT
}

func nsccBad(field, value, want string) error {
	return &cc.ConfigError{Part: nsccPart, Field: field, Value: value, Range: want}
}

// Validate checks every field and returns a *cc.ConfigError naming the
// first one out of range.
func (c NSCCConfig) Validate() error {
	rtt := func(field string, t units.Time, zeroOK bool) error {
		if (t == 0 && zeroOK) || (t >= NSCCMinRTT && t <= NSCCMaxRTT) {
			return nil
		}
		w := NSCCMinRTT.String() + ".." + NSCCMaxRTT.String()
		if zeroOK {
			w = "0 or " + w
		}
		return nsccBad(field, t.String(), w)
	}
	factor := func(field string, f float64) error {
		if !(f >= 0 && f <= NSCCMaxFactor) {
			return nsccBad(field, fmtFloat(f), "0.."+fmtFloat(NSCCMaxFactor))
		}
		return nil
	}
	if c.Link < NSCCMinLink || c.Link > NSCCMaxLink {
		return nsccBad("Link", c.Link.String(), NSCCMinLink.String()+".."+NSCCMaxLink.String())
	}
	if err := rtt("NetworkRTT", c.NetworkRTT, false); err != nil {
		return err
	}
	if bdp := units.BytesIn(c.Link, c.NetworkRTT); bdp > NSCCMaxBDP {
		return nsccBad("NetworkRTT", c.NetworkRTT.String(), "a BDP (Link·NetworkRTT, here "+bdp.String()+") of at most "+NSCCMaxBDP.String())
	}
	if err := rtt("BaseRTT", c.BaseRTT, true); err != nil {
		return err
	}
	if c.MSS < NSCCMinMSS || c.MSS > NSCCMaxMSS {
		return nsccBad("MSS", c.MSS.String(), NSCCMinMSS.String()+".."+NSCCMaxMSS.String())
	}
	if err := rtt("TargetQDelay", c.TargetQDelay, true); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"Alpha", c.Alpha}, {"Fi", c.Fi}, {"Eta", c.Eta}, {"FiScale", c.FiScale}} {
		if err := factor(f.name, f.v); err != nil {
			return err
		}
	}
	if !(c.Gamma > 0 && c.Gamma <= 1) {
		return nsccBad("Gamma", fmtFloat(c.Gamma), "(0, 1]")
	}
	if !(c.DelayAlpha >= 1.0/nsccOne && c.DelayAlpha <= NSCCMaxDelayAlpha) {
		return nsccBad("DelayAlpha", fmtFloat(c.DelayAlpha), "2^-16.."+fmtFloat(NSCCMaxDelayAlpha))
	}
	if c.QAGate > NSCCMaxQAGate {
		return nsccBad("QAGate", strconv.Itoa(int(c.QAGate)), "0.."+strconv.Itoa(NSCCMaxQAGate))
	}
	if c.QAFactor < 1 || c.QAFactor > NSCCMaxQAFactor {
		return nsccBad("QAFactor", strconv.Itoa(c.QAFactor), "1.."+strconv.Itoa(NSCCMaxQAFactor))
	}
	if err := rtt("AdjustPeriod", c.AdjustPeriod, true); err != nil {
		return err
	}
	if c.AdjustBytes != 0 && (c.AdjustBytes < c.MSS || c.AdjustBytes > NSCCMaxBDP) {
		return nsccBad("AdjustBytes", c.AdjustBytes.String(), "0 or MSS ("+c.MSS.String()+").."+NSCCMaxBDP.String())
	}
	if c.FastDelay < 0 || c.FastDelay > NSCCMaxRTT {
		return nsccBad("FastDelay", c.FastDelay.String(), "0.."+NSCCMaxRTT.String())
	}
	if c.InitialCwnd != 0 && (c.InitialCwnd < c.MSS || c.InitialCwnd > c.maxWnd()) {
		return nsccBad("InitialCwnd", c.InitialCwnd.String(), "0 or MSS ("+c.MSS.String()+")..maxwnd ("+c.maxWnd().String()+")")
	}
	return c.Credit.validate(nsccPart)
}

// baseRTT is the flow's base RTT at start.
func (c NSCCConfig) baseRTT() units.Time {
	if c.BaseRTT > 0 {
		return c.BaseRTT
	}
	return c.NetworkRTT
}

// maxWnd is 1.5·BDP of the base RTT at start, at least one MSS.
func (c NSCCConfig) maxWnd() units.Bytes {
	bdp := units.BytesIn(c.Link, c.baseRTT())
	return max(bdp+bdp/2, c.MSS)
}

// NSCCState is every register of NSCC, each in the unit of its snapshot.
type NSCCState struct {
	// Cwnd and MaxWnd are the window and its ceiling, payload bytes.
	Cwnd, MaxWnd uint32
	// BaseRTT is the least RTT seen, ns.
	BaseRTT uint32
	// AvgDelay is the delay EWMA, ns in Q16.16 (48 bits).
	AvgDelay uint64
	// Inc is the increase the next fulfil step applies (inc/cwnd), bytes²
	// in Q8, saturating at 2^64 − 1.
	Inc uint64
	// FICount counts the bytes acknowledged in a row with a delay below
	// FastDelay (saturating); Fast says fast increase is on (the model's
	// _increase).
	FICount uint32
	Fast    bool
	// Achieved counts the bytes acknowledged in quick adapt's period,
	// Received those since the last fulfil step; ToIgnore and Ignored are
	// quick adapt's ignore window (bytes; saturating).
	Achieved, Received, ToIgnore, Ignored uint32
	// Triggered: a NACK asks for quick adapt.
	Triggered bool
	// QAEnd ends quick adapt's period (0: not started); LastAdjust is the
	// latest η step; LastDec the latest multiplicative decrease.
	QAEnd, LastAdjust, LastDec units.Time
	// InFlight is the payload sent and neither acknowledged nor NACKed
	// (quick adapt's ignore window), bytes; it saturates at both ends.
	InFlight uint32
	// SndMax is one past the highest byte sent (64 bits): a Sent below it
	// is a retransmission.
	SndMax uint64
	// Credit is RCCC's sender when the part runs on credit.
	Credit RCCCSenderState
	// Time is the latest accepted event's time.
	Time cc.Monotonic
	// Counters (64 bits, wrapping): ACKs and NACKs taken, RTT samples,
	// fair, proportional and fast increases, multiplicative decreases,
	// quick adapts and fulfil steps.
	Acks, Nacks, Samples, FairIncs, PropIncs, FastIncs, Decreases, QuickAdapts, Fulfils uint64
	// Unused counts messages of kinds NSCC does not use (cc rule 8).
	Unused cc.Unused
}

// NSCC is Ultra Ethernet's network-signalled congestion control ([UEC]'s
// NSCC; equations and constants of the consortium's model, [uet-htsim]
// uec.cpp, restated in docs/derivations.md "Ultra Ethernet: NSCC and
// RCCC"): the sender's window of one flow, driven per acknowledged packet
// by its ECN echo and its queueing delay against a target.
//
// On each ACK, with n newly acknowledged bytes, ECN echo E and the
// packet's RTT r (now minus the send time the ACK echoes):
//
//	base ← min(base, r); maxwnd ← 1.5·base·C        the base RTT and ceiling
//	d ← r − base                                    the queueing delay
//	avg ← (1 − λ)·avg + λ·(E or d ≤ Q_t ? d : base/4)
//	quick adapt (below); if it fired or ignores this ACK, stop
//	!E, d ≥ Q_t:  inc += fi·n                        fair increase
//	!E, d < Q_t:  fast increase (d < 1 µs for a window's worth:
//	              cwnd += fi_scale·n), else inc += α·n·(Q_t − d)
//	 E, d ≥ Q_t:  cwnd ← cwnd·max(1 − γ·(avg − Q_t)/avg, 0.5), if avg > Q_t,
//	              at most once per base RTT
//	 E, d < Q_t:  nothing
//	every 8 MSS acknowledged or adjust period: cwnd += inc/cwnd; inc ← 0;
//	              once per adjust period also cwnd += η      the fulfil step
//	cwnd clamped to [MSS, maxwnd]
//
// Quick adapt: once per base + Q_t, if a NACK came, or the delay exceeded
// QAFactor·Q_t, and fewer than maxwnd/2^QAGate bytes were acknowledged in
// the period, cwnd drops to what was acknowledged; the acknowledgements
// and NACKs of the packets then in flight are ignored. A NACK of n bytes
// counts a delay of NetworkRTT in the average, asks for quick adapt, and
// (unless quick adapt runs, or RCCC runs and the packet was trimmed at the
// last hop) cuts cwnd by n.
//
// # Events
//
//   - Sent(p) counts p's payload in flight and writes p.Hdr, a
//     wire.UECData: the send time (ns mod 2^32), the frame and payload
//     sizes, the retransmission flag (p.Seq below SndMax) and, on credit,
//     the pull target.
//   - Feedback of a cc.FeedbackAck: the ACK above. f.Acked is n, f.ECE is
//     E; f.Data is the packet's header echoed by the receiver
//     (wire.UECData): without one (all zero) the ACK gives no RTT sample and
//     d is the average.
//   - Feedback of a cc.FeedbackNak: the NACK above; n is the echoed
//     payload (MSS without an echo), the echo's send time a base RTT sample
//     (BaseOnNack) and its last-hop mark the exception.
//   - Feedback of a cc.FeedbackCredit: a pull, with Credit on (else
//     unused, cc rule 8). Any other kind is unused.
//   - Limits: Window = cwnd − MSS + 1, so that the NIC, which starts a
//     packet while inflight < Window, starts a full packet exactly when
//     inflight + MSS ≤ cwnd, the model's rule; no rate; on credit,
//     Credited with the credit held.
//   - No timer: NextDeadline is units.MaxTime.
//
// # With RCCC
//
// When Config.Credit.On, the part also runs RCCC's sender
// (RCCCSenderState; see RCCC): it starts with speculative credit, spends
// each packet's frame, asks for credit with the pull target in every
// header (capped at cwnd + MSS, as the model caps it when both run), and
// takes pulls. Limits then gate by both window and credit.
//
// # Clamps
//
// cwnd stays in [MSS, maxwnd] after every event (maxwnd ≥ MSS). The model
// applies the clamp on the ACK path after the four cases, so a base-RTT
// sample that lowers maxwnd on a NACK, or on an ACK quick adapt ignores,
// leaves its cwnd above the new ceiling until the next ACK; hwcc clamps at
// the end of those events too.
//
// # Integers
//
// Delays are ns in 32-bit registers, the average Q16.16 ns; λ, γ and
// fi_scale are Q16, fi and η bytes in Q8, α Q32 bytes per byte per ns, inc
// Q8 bytes²; the products are taken in 128 bits and saturate. The two
// divisions run at the rate the model gives them: inc/cwnd once per fulfil
// step, (avg − Q_t)/avg at most once per base RTT. docs/derivations.md
// states each rounding; nscc_ref_test.go bounds them against a float64
// model of the same equations.
//
// Registers (AppendRegisters), in order: now; cwnd, maxwnd (32); base_rtt
// (32, ns); avg_delay (48, Q16.16 ns); inc (64, Q8 bytes²); fi_count (32);
// fast (1); achieved, received, to_ignore, ignored (32); qa_triggered (1);
// qa_end, last_adjust, last_dec (64, ps); in_flight (32); snd_max (64);
// RCCC's sender registers when on credit (see RCCC); acks, nacks, samples,
// fair_incs, prop_incs, fast_incs, decreases, quick_adapts, fulfils (64);
// unused_feedback (64).
//
// It is not safe for concurrent use. Build one with NewNSCC.
type NSCC struct {
	cfg NSCCConfig
	// Constants derived once (New).
	qt, tn, fastDelay       uint32 // ns
	qaThresh                uint64 // ns
	basePs                  units.Time
	adjustPeriod            units.Time
	adjustBytes, mss, minCw uint32
	lambda, gamma, fiScale  uint64 // Q16
	fi                      uint64 // Q8 bytes per byte
	eta                     uint32 // bytes, rounded
	k                       uint64 // Q32 bytes per byte per ns
	bpn                     uint64 // Q16 bytes per ns
	cr                      rcccSender
	s                       NSCCState
}

var _ cc.ReactionPoint = (*NSCC)(nil)

// nsccRound returns round(f·2^q) as an unsigned register value, saturating
// (configuration only).
func nsccRound(f float64, q uint) uint64 {
	v := math.Round(math.Ldexp(f, int(q)))
	if v >= math.MaxUint64 {
		return math.MaxUint64
	}
	return uint64(max(v, 0))
}

// NewNSCC validates cfg and returns a sender with nothing sent: cwnd at
// InitialCwnd (maxwnd by default), the base RTT at BaseRTT, the average
// delay 0.
func NewNSCC(cfg NSCCConfig) (*NSCC, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	sc := cfg.Scaling()
	n := &NSCC{cfg: cfg}
	n.qt = uint32(sc.QtNs)
	n.tn = uint32(sc.TnNs)
	n.fastDelay = uint32(cfg.FastDelay / units.Nanosecond)
	n.qaThresh = uint64(cfg.QAFactor) * uint64(n.qt)
	n.adjustPeriod = cfg.AdjustPeriod
	if n.adjustPeriod == 0 {
		n.adjustPeriod = cfg.NetworkRTT
	}
	n.mss = uint32(cfg.MSS)
	n.minCw = n.mss
	n.adjustBytes = uint32(cfg.AdjustBytes)
	if n.adjustBytes == 0 {
		n.adjustBytes = 8 * n.mss
	}
	n.lambda = nsccRound(cfg.DelayAlpha, nsccQ)
	n.gamma = nsccRound(cfg.Gamma, nsccQ)
	n.fiScale = nsccRound(sc.FiScale, nsccQ)
	n.fi = nsccRound(sc.Fi, nsccIncQ)
	n.eta = uint32(min(nsccRound(sc.Eta, 0), math.MaxUint32))
	n.k = nsccRound(sc.K, nsccKQ)
	n.bpn = nsccRound(sc.BytesPerNs, nsccQ)
	s := &n.s
	s.BaseRTT = uint32(cfg.baseRTT() / units.Nanosecond)
	n.basePs = units.Time(s.BaseRTT) * units.Nanosecond
	s.MaxWnd = n.wndOf(s.BaseRTT)
	s.Cwnd = s.MaxWnd
	if cfg.InitialCwnd > 0 {
		s.Cwnd = uint32(min(cfg.InitialCwnd, units.Bytes(s.MaxWnd)))
	}
	n.cr.init(cfg.Credit, units.Bytes(s.MaxWnd), n.mss)
	s.Credit = n.cr.s
	return n, nil
}

// wndOf is maxwnd for a base RTT of rtt ns: 1.5·rtt·C (BDP + BDP >> 1),
// at least one MSS, saturating at 2^32 − 1.
func (n *NSCC) wndOf(rtt uint32) uint32 {
	bdp := uint64(rtt) * n.bpn >> nsccQ // ≤ 2^32·2^27 >> 16: no overflow
	return uint32(min(max(bdp+bdp>>1, uint64(n.minCw)), math.MaxUint32))
}

// Config returns the configuration n was built with.
func (n *NSCC) Config() NSCCConfig { return n.cfg }

// State returns every register.
func (n *NSCC) State() NSCCState {
	s := n.s
	s.Credit = n.cr.s
	return s
}

// Window returns cwnd, payload bytes.
func (n *NSCC) Window() units.Bytes { return units.Bytes(n.s.Cwnd) }

// nsccRefuse returns the *cc.EventError of event.
//
//go:noinline
func nsccRefuse(event, reason string, err error) error {
	return &cc.EventError{Part: nsccPart, Event: event, Reason: reason, Err: err}
}

// mulSat returns a·b saturated at 2^64 − 1.
func mulSat(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	if hi != 0 {
		return math.MaxUint64
	}
	return lo
}

// satAdd32 returns a + b saturated at 2^32 − 1.
func satAdd32(a uint32, b uint64) uint32 {
	return uint32(min(uint64(a)+min(b, math.MaxUint32), math.MaxUint32))
}

// satSub32 returns a − b, at least 0.
func satSub32(a uint32, b uint64) uint32 {
	if b >= uint64(a) {
		return 0
	}
	return a - uint32(b)
}

// nsNow is now in ns mod 2^32, the send-time register's clock.
func nsNow(now units.Time) uint32 { return uint32(uint64(now) / uint64(units.Nanosecond)) }

// Sent implements cc.ReactionPoint: it counts p's payload in flight,
// spends its frame from the credit (on credit) and writes p.Hdr (see
// NSCC). Errors, after which nothing changed: a now before the latest
// event's (*cc.TimeOrderError); a nil p, a payload outside 0..MSS, or a
// frame smaller than the payload or above NSCCMaxFrame (*cc.EventError).
func (n *NSCC) Sent(now units.Time, p *cc.Packet, act *cc.Actions) error {
	if err := n.s.Time.Check(nsccPart, "Sent", now); err != nil {
		return err
	}
	if err := sentCheck(p, n.cfg.MSS); err != nil {
		return nsccRefuse("Sent", err.Error(), nil)
	}
	s := &n.s
	s.Time.Advance(now)
	s.InFlight = satAdd32(s.InFlight, uint64(p.Payload))
	n.cr.writeHeader(now, p, &s.SndMax, uint64(s.Cwnd)+uint64(n.cr.frame))
	return nil
}

// sentCheckError is a Sent refusal's reason.
type sentCheckError string

func (e sentCheckError) Error() string { return string(e) }

// sentCheck checks a packet Sent takes: not nil, payload 0..mss, frame
// payload..NSCCMaxFrame.
func sentCheck(p *cc.Packet, mss units.Bytes) error {
	switch {
	case p == nil:
		return sentCheckError("nil packet")
	case p.Payload < 0 || p.Payload > mss:
		return sentCheckError("payload " + p.Payload.String() + " is outside 0..MSS (" + mss.String() + ")")
	case p.Size < p.Payload || p.Size > NSCCMaxFrame:
		return sentCheckError("frame " + p.Size.String() + " is outside payload.." + NSCCMaxFrame.String())
	}
	return nil
}

// Feedback implements cc.ReactionPoint: an ACK, a NACK, or (on credit) a
// pull; any other kind is counted as unused (cc rule 8). Errors, after
// which nothing changed: a now before the latest event's
// (*cc.TimeOrderError); a nil f, a negative f.Acked, or an echo that does
// not decode (*cc.EventError wrapping the *cc.DecodeError).
func (n *NSCC) Feedback(now units.Time, f *cc.Feedback, act *cc.Actions) error {
	if err := n.s.Time.Check(nsccPart, "Feedback", now); err != nil {
		return err
	}
	if f == nil {
		return nsccRefuse("Feedback", "nil feedback", nil)
	}
	switch f.Kind {
	case cc.FeedbackAck, cc.FeedbackNak:
		if f.Acked < 0 {
			return nsccRefuse("Feedback", "acked "+f.Acked.String()+" is negative", nil)
		}
		h, err := wire.DecodeUECData(f.Data[:])
		if err != nil {
			return nsccRefuse("Feedback", "the echoed header does not decode", err)
		}
		n.s.Time.Advance(now)
		if f.Kind == cc.FeedbackAck {
			n.ack(now, uint64(f.Acked), f.ECE, h)
		} else {
			n.nack(now, h)
		}
		return nil
	case cc.FeedbackCredit:
		if n.cr.on {
			pl, err := wire.DecodeUECPull(f)
			if err != nil {
				return nsccRefuse("Feedback", "the pull does not decode", err)
			}
			n.s.Time.Advance(now)
			n.cr.pull(pl.Pull)
			return nil
		}
	}
	n.s.Unused.Count()
	n.s.Time.Advance(now)
	return nil
}

// sample takes the RTT the echo h gives at now (ns), lowering the base
// RTT and maxwnd if it is the least yet, and returns it; ok false without
// one.
func (n *NSCC) sample(now units.Time, h wire.UECData) (raw uint32, ok bool) {
	if !h.Valid {
		return 0, false
	}
	raw = nsNow(now) - h.SentNs // wrapping: exact below 4.29 s
	if raw < n.s.BaseRTT {
		n.s.BaseRTT = raw
		n.basePs = units.Time(raw) * units.Nanosecond
		n.s.MaxWnd = n.wndOf(raw)
	}
	n.s.Samples++
	return raw, true
}

// ewma folds delay sample x (ns) into the average:
// avg ← avg + λ·(x·2^16 − avg) >> 16, with an arithmetic (flooring) shift;
// |λ·(x·2^16 − avg)| < 2^15·2^48, no overflow.
func (n *NSCC) ewma(x uint32) {
	d := int64(uint64(x)<<nsccQ) - int64(n.s.AvgDelay)
	n.s.AvgDelay = uint64(int64(n.s.AvgDelay) + (int64(n.lambda)*d)>>nsccQ)
}

// ack is an ACK of acked bytes with ECN echo ece and the echoed header h
// ([uet-htsim] processAck, updateCwndOnAck_NSCC).
func (n *NSCC) ack(now units.Time, acked uint64, ece bool, h wire.UECData) {
	s := &n.s
	s.Acks++
	s.InFlight = satSub32(s.InFlight, acked)
	s.Achieved = satAdd32(s.Achieved, acked)
	s.Received = satAdd32(s.Received, acked)
	s.Ignored = satAdd32(s.Ignored, acked)
	n.cr.feedback()
	var delay uint32
	if raw, ok := n.sample(now, h); ok && !h.Trimmed {
		delay = raw - s.BaseRTT // raw ≥ base after sample
		// avg ← (1 − λ)·avg + λ·x, x = base/4 when the delay is above
		// target without ECN (update_delay).
		x := delay
		if !ece && delay > n.qt {
			x = s.BaseRTT / 4
		}
		n.ewma(x)
	} else {
		delay = uint32(s.AvgDelay >> nsccQ)
	}
	if n.quickAdapt(now, false, ece, delay) {
		n.clamp() // a lowered maxwnd binds at once (see NSCC, Clamps)
		return
	}
	switch {
	case !ece && delay >= n.qt:
		// fair_increase: inc += fi·n.
		s.Inc = fixedpoint.SatAddNonNeg(s.Inc, mulSat(n.fi, acked))
		s.FairIncs++
	case !ece:
		if n.fastIncrease(acked, delay) {
			s.FastIncs++
			break
		}
		// proportional_increase: inc += α·n·(Q_t − d), α·(Q_t − d) in Q8
		// bytes per byte: (k·(Q_t − d)) >> 24, k in Q32.
		hi, lo := bits.Mul64(n.k, uint64(n.qt-delay))
		per := fixedpoint.ShrSat128(hi, lo, nsccKQ-nsccIncQ)
		s.Inc = fixedpoint.SatAddNonNeg(s.Inc, mulSat(per, acked))
		s.PropIncs++
	case delay >= n.qt:
		n.decrease(now)
	}
	n.clamp()
	// fulfill_adjustment: every AdjustBytes acknowledged or AdjustPeriod.
	since := now - s.LastAdjust
	if s.Received > n.adjustBytes || since > n.adjustPeriod {
		// cwnd += inc/cwnd: one division per fulfil step (cwnd ≥ MSS > 0).
		s.Cwnd = satAdd32(s.Cwnd, s.Inc/uint64(s.Cwnd)>>nsccIncQ)
		if since >= n.adjustPeriod {
			s.Cwnd = satAdd32(s.Cwnd, uint64(n.eta))
			s.LastAdjust = now
		}
		s.Inc, s.Received = 0, 0
		s.Fulfils++
	}
	n.clamp()
}

// fastIncrease is the model's fast_increase: after a window's worth of
// bytes acknowledged with a delay below FastDelay, and on every such ACK
// after, cwnd += fi_scale·n (Q16). It reports whether it increased.
func (n *NSCC) fastIncrease(acked uint64, delay uint32) bool {
	s := &n.s
	if delay < n.fastDelay {
		s.FICount = satAdd32(s.FICount, acked)
		if s.FICount > s.Cwnd || s.Fast {
			s.Cwnd = satAdd32(s.Cwnd, mulSat(acked, n.fiScale)>>nsccQ)
			s.Fast = true
			return true
		}
	} else {
		s.FICount = 0
	}
	s.Fast = false
	return false
}

// decrease is the model's multiplicative_decrease: when the average delay
// is above target, at most once per base RTT,
// cwnd ← cwnd·max(1 − γ·(avg − Q_t)/avg, 0.5).
func (n *NSCC) decrease(now units.Time) {
	s := &n.s
	s.Fast, s.FICount = false, 0
	qt := uint64(n.qt) << nsccQ
	if s.AvgDelay <= qt || now-s.LastDec <= n.basePs {
		return
	}
	// (avg − Q_t)/avg in Q16: the one division, at most once per base RTT.
	x := fixedpoint.MulDivSat(s.AvgDelay-qt, nsccOne, s.AvgDelay)
	f := uint64(nsccOne) - min(n.gamma*x>>nsccQ, nsccOne)
	f = max(f, nsccMDFloor)
	s.Cwnd = max(uint32(uint64(s.Cwnd)*f>>nsccQ), n.minCw)
	s.LastDec = now
	s.Decreases++
}

// clamp is set_cwnd_bounds: cwnd in [MSS, maxwnd] (maxwnd ≥ MSS).
func (n *NSCC) clamp() {
	s := &n.s
	s.Cwnd = min(max(s.Cwnd, n.minCw), s.MaxWnd)
}

// quickAdapt is the model's quick_adapt (see NSCC); it reports whether it
// fired or ignored the event, in which case the increase accumulated so
// far is dropped.
func (n *NSCC) quickAdapt(now units.Time, loss, skip bool, delay uint32) bool {
	if n.cfg.NoQuickAdapt {
		return false
	}
	s := &n.s
	done := false
	switch {
	case s.Ignored < s.ToIgnore && skip:
		done = true
	case now > s.QAEnd:
		if s.QAEnd != 0 && (s.Triggered || loss || uint64(delay) > n.qaThresh) &&
			s.Achieved < s.MaxWnd>>n.cfg.QAGate {
			s.Cwnd = max(s.Achieved, n.minCw)
			s.ToIgnore, s.Ignored = s.InFlight, 0
			s.Triggered = false
			s.QuickAdapts++
			done = true
		}
		s.Achieved = 0
		s.QAEnd = now + n.basePs + units.Time(n.qt)*units.Nanosecond
	}
	if done {
		s.Inc, s.Received = 0, 0
	}
	return done
}

// nack is a NACK of the packet whose header the receiver echoes in h
// ([uet-htsim] processNack, updateCwndOnNack_NSCC).
func (n *NSCC) nack(now units.Time, h wire.UECData) {
	s := &n.s
	s.Nacks++
	nacked := uint64(n.mss)
	if h.Valid {
		nacked = uint64(h.Payload)
		if n.cfg.BaseOnNack {
			n.sample(now, h)
		}
	}
	s.InFlight = satSub32(s.InFlight, nacked)
	s.Ignored = satAdd32(s.Ignored, nacked)
	n.cr.nack(h, n.mss)
	// The trim threshold's delay, estimated as the network RTT.
	n.ewma(n.tn)
	s.Triggered = true
	if !n.quickAdapt(now, true, true, 0) && (!n.cr.on || !h.LastHop) {
		s.Cwnd = satSub32(s.Cwnd, nacked)
	}
	n.clamp() // a lowered maxwnd binds at once (see NSCC, Clamps)
}

// Limits implements cc.ReactionPoint: Window = cwnd − MSS + 1 (see NSCC),
// no rate; on credit, the credit held.
func (n *NSCC) Limits() cc.Limits {
	l := cc.Limits{Window: units.Bytes(n.s.Cwnd - n.mss + 1)}
	n.cr.limits(&l)
	return l
}

// NextDeadline implements cc.Clock: NSCC has no timer.
func (n *NSCC) NextDeadline() units.Time { return units.MaxTime }

// Timer implements cc.Clock: it only records now.
func (n *NSCC) Timer(now units.Time, act *cc.Actions) error {
	if err := n.s.Time.Check(nsccPart, "Timer", now); err != nil {
		return err
	}
	n.s.Time.Advance(now)
	return nil
}

// AppendRegisters implements cc.Part: the registers listed in NSCC's doc.
func (n *NSCC) AppendRegisters(dst []cc.Register) []cc.Register {
	s := &n.s
	dst = append(dst,
		s.Time.Register(),
		cc.Reg("cwnd", nsccWinBits, uint64(s.Cwnd)),
		cc.Reg("maxwnd", nsccWinBits, uint64(s.MaxWnd)),
		cc.Reg("base_rtt", 32, uint64(s.BaseRTT)),
		cc.Reg("avg_delay", nsccAvgBits, s.AvgDelay),
		cc.Reg("inc", 64, s.Inc),
		cc.Reg("fi_count", nsccWinBits, uint64(s.FICount)),
		cc.BoolReg("fast", s.Fast),
		cc.Reg("achieved", nsccWinBits, uint64(s.Achieved)),
		cc.Reg("received", nsccWinBits, uint64(s.Received)),
		cc.Reg("to_ignore", nsccWinBits, uint64(s.ToIgnore)),
		cc.Reg("ignored", nsccWinBits, uint64(s.Ignored)),
		cc.BoolReg("qa_triggered", s.Triggered),
		cc.TimeReg("qa_end", s.QAEnd),
		cc.TimeReg("last_adjust", s.LastAdjust),
		cc.TimeReg("last_dec", s.LastDec),
		cc.Reg("in_flight", nsccWinBits, uint64(s.InFlight)),
		cc.Reg("snd_max", 64, s.SndMax),
	)
	dst = n.cr.appendRegisters(dst)
	return append(dst,
		cc.Reg("acks", 64, s.Acks),
		cc.Reg("nacks", 64, s.Nacks),
		cc.Reg("samples", 64, s.Samples),
		cc.Reg("fair_incs", 64, s.FairIncs),
		cc.Reg("prop_incs", 64, s.PropIncs),
		cc.Reg("fast_incs", 64, s.FastIncs),
		cc.Reg("decreases", 64, s.Decreases),
		cc.Reg("quick_adapts", 64, s.QuickAdapts),
		cc.Reg("fulfils", 64, s.Fulfils),
		s.Unused.Register(),
	)
}
