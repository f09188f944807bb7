package rp

import (
	"math"
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// QCNRateUnit is the least significant bit of the reaction point's rate
// registers RC and RT (rc and rt in its snapshot): 1 Kb/s. Every rate of
// QCNConfig is a multiple of it, and it is the least of them.
const QCNRateUnit = units.Kbps

// Limits of QCN's reaction point: each configuration field's range and
// the registers' widths, declared once here (QCNConfig.Validate and the
// registration in package algos read them).
const (
	// QCNMaxLineRate is the largest line rate: RC and RT are 32-bit registers
	// of QCNRateUnit, up to 4.29 Tb/s.
	QCNMaxLineRate = math.MaxUint32 * QCNRateUnit
	// QCNMinGdShift and QCNMaxGdShift bound GdShift (Gd = 2^−GdShift).
	QCNMinGdShift = 1
	QCNMaxGdShift = 16
	// QCNMaxMinDecFac is the largest MinDecFac: 100 %.
	QCNMaxMinDecFac = 100
	// QCNMaxThreshold is the largest Threshold: 255 cycles (8 bits).
	QCNMaxThreshold = math.MaxUint8
	// QCNMinByteLimit and QCNMaxByteLimit bound BC_LIMIT (a 32-bit counter).
	QCNMinByteLimit units.Bytes = 1000
	QCNMaxByteLimit units.Bytes = math.MaxInt32
	// QCNMinPeriod and QCNMaxPeriod bound the timer's period T.
	QCNMinPeriod = units.Microsecond
	QCNMaxPeriod = 10 * units.Second
	// QCNMaxSendBytes is the largest frame Sent takes: 64 KiB. It bounds the
	// byte counter's work per event (at most QCNMaxSendBytes/(BC_LIMIT/2) + 1
	// expiries, 132).
	QCNMaxSendBytes = 64 * units.KiB
)

// Standard and paper constants of the reaction point (IEEE8021-CN-MIB's
// DEFVALs, the RP group table ieee8021CnRpGroupTable; Alizadeh et al.,
// Allerton 2008, section on QCN's reaction point).
const (
	// QCNStandardGdShift is rpgGd = 7: Gd = 2^−7 = 1/128 (the MIB's
	// ieee8021CnRpgGd DEFVAL 7, Linux dcbnl.h: "rpgGd is given as
	// log2(Gd)"; [QCN-Allerton]: Gd = 1/128 on the 6-bit value).
	QCNStandardGdShift = 7
	// QCNStandardMinDecFac is rpgMinDecFac, 50 %: one decrease keeps at least
	// half the rate (MIB DEFVAL 50, percent). With Gd = 1/128 it never
	// binds: the largest cut is 63/128 < 50 %.
	QCNStandardMinDecFac = 50
	// QCNStandardByteLimit is BC_LIMIT, rpgByteReset: 150 000 octets (MIB
	// DEFVAL 150000; [QCN-Allerton]'s 150 KB byte counter).
	QCNStandardByteLimit units.Bytes = 150000
	// QCNStandardThreshold is FAST_RECOVERY_TH, rpgThreshold: 5 cycles (MIB
	// DEFVAL 5; the survey, section 4.1.1: "five cycles in the FR phase").
	QCNStandardThreshold = 5
	// QCNStandardPeriod is the timer's period T, rpgTimeReset: 15 ms (MIB
	// DEFVAL 15, units milliseconds).
	QCNStandardPeriod = 15 * units.Millisecond
	// QCNPaperPeriod is T in the QCN paper's baseline ([QCN-Allerton]):
	// 10 ms, as the QCN literature commonly quotes it; hwcc has not checked
	// it against the paper (docs/derivations.md, QCN), and the standard's
	// own default is QCNStandardPeriod.
	QCNPaperPeriod = 10 * units.Millisecond
	// QCNStandardAIRate is R_AI, rpgAiRate: 5 Mb/s (MIB DEFVAL 5, Mb/s).
	QCNStandardAIRate = 5 * units.Mbps
	// QCNStandardHAIRate is R_HAI, rpgHaiRate: 50 Mb/s (MIB DEFVAL 50, Mb/s).
	QCNStandardHAIRate = 50 * units.Mbps
	// QCNStandardMinRate is rpgMinRate: 5 Mb/s (MIB DEFVAL 5, Mb/s).
	QCNStandardMinRate = 5 * units.Mbps
)

// QCNConfig configures a QCN reaction point. Rates are units.Rate (bit/s),
// each a multiple of QCNRateUnit (1 Kb/s).
type QCNConfig struct {
	// LineRate is the rate limiter's ceiling (rpgMaxRate, the port's
	// speed): RC and RT never exceed it, and a flow starts at it. Range:
	// QCNRateUnit..QCNMaxLineRate.
	LineRate units.Rate
	// MinRate is rpgMinRate: decreases stop here. Range:
	// QCNRateUnit..LineRate. Presets QCNStandardMinRate.
	MinRate units.Rate
	// GdShift is rpgGd: Gd = 2^−GdShift, and a CNM cuts RC·QntzFb >>
	// GdShift. Range: QCNMinGdShift..QCNMaxGdShift. Presets
	// QCNStandardGdShift (Gd = 1/128).
	GdShift uint8
	// MinDecFac is rpgMinDecFac in percent: one decrease keeps at least
	// RC·MinDecFac/100. 0 bounds nothing. Range: 0..QCNMaxMinDecFac.
	// QCNStandard QCNStandardMinDecFac; QCNPaper 0 (the paper gives no
	// bound).
	MinDecFac uint8
	// ByteLimit is BC_LIMIT, rpgByteReset: the bytes sent per byte-counter
	// cycle. Range: QCNMinByteLimit..QCNMaxByteLimit. Presets
	// QCNStandardByteLimit.
	ByteLimit units.Bytes
	// Period is T, rpgTimeReset: the timer's cycle. Range:
	// QCNMinPeriod..QCNMaxPeriod. QCNStandard QCNStandardPeriod, QCNPaper
	// QCNPaperPeriod.
	Period units.Time
	// Threshold is FAST_RECOVERY_TH, rpgThreshold: the fast-recovery
	// cycles each counter counts before active increase. Range:
	// 0..QCNMaxThreshold. Presets QCNStandardThreshold.
	Threshold uint8
	// AIRate is R_AI, rpgAiRate: active increase's step of RT. Range:
	// QCNRateUnit..LineRate. Presets QCNStandardAIRate.
	AIRate units.Rate
	// HAIRate is R_HAI, rpgHaiRate: hyper-active increase adds i·R_HAI to
	// RT in its i-th cycle. Range: QCNRateUnit..LineRate. Presets
	// QCNStandardHAIRate.
	HAIRate units.Rate
	// HalveAfterRecovery: once a counter has counted its Threshold
	// fast-recovery cycles, its cycles are half as long (ByteLimit/2 and
	// Period/2), as the QCN paper's byte counter (cycles of 50 frames,
	// 75 KB, in active increase) and timer (T/2) do. Presets true.
	HalveAfterRecovery bool
	// TargetEveryCNM sets RT ← RC on every CNM, as the paper's equations
	// write it. False (the presets) sets it only when the rate limiter
	// has had an increase event since the last decrease (or on its first
	// CNM), so that CNMs arriving within one cycle of a decrease keep the
	// target from before it (see QCN, "Choices").
	TargetEveryCNM bool
}

// QCNStandard returns 802.1Qau's reaction point for a link of rate link,
// every value the IEEE8021-CN-MIB's default: Gd = 1/128 (rpgGd 7),
// rpgMinDecFac 50 %, BC_LIMIT 150 000 B, T = 15 ms, 5 fast-recovery
// cycles, R_AI = 5 Mb/s, R_HAI = 50 Mb/s, rpgMinRate 5 Mb/s, the line rate
// link; cycles halved after fast recovery; RT ← RC only after an increase.
// link must be a whole number of Kb/s.
func QCNStandard(link units.Rate) QCNConfig {
	return QCNConfig{
		LineRate:           link,
		MinRate:            QCNStandardMinRate,
		GdShift:            QCNStandardGdShift,
		MinDecFac:          QCNStandardMinDecFac,
		ByteLimit:          QCNStandardByteLimit,
		Period:             QCNStandardPeriod,
		Threshold:          QCNStandardThreshold,
		AIRate:             QCNStandardAIRate,
		HAIRate:            QCNStandardHAIRate,
		HalveAfterRecovery: true,
	}
}

// QCNPaper returns the QCN paper's reaction point ([QCN-Allerton]) for a link
// of rate link: QCNStandard with the paper's timer T = 10 ms (QCNPaperPeriod) and
// no bound on one decrease beyond Gd·63 = 49 % (MinDecFac 0). link must be a
// whole number of Kb/s.
func QCNPaper(link units.Rate) QCNConfig {
	c := QCNStandard(link)
	c.Period = QCNPaperPeriod
	c.MinDecFac = 0
	return c
}

// qcnPart names the reaction point in errors.
const qcnPart = "rp.QCN"

// qcnCheckRate validates a rate field: a multiple of QCNRateUnit in [lo, hi].
func qcnCheckRate(field string, r, lo, hi units.Rate) error {
	if r < lo || r > hi || r%QCNRateUnit != 0 {
		return qcnConfigErr(field, r.String(), "a multiple of "+QCNRateUnit.String()+" in "+lo.String()+".."+hi.String())
	}
	return nil
}

// Validate checks every field and returns a *cc.ConfigError naming the
// first one out of range.
func (c QCNConfig) Validate() error {
	if err := qcnCheckRate("LineRate", c.LineRate, QCNRateUnit, QCNMaxLineRate); err != nil {
		return err
	}
	if err := qcnCheckRate("MinRate", c.MinRate, QCNRateUnit, c.LineRate); err != nil {
		return err
	}
	if c.GdShift < QCNMinGdShift || c.GdShift > QCNMaxGdShift {
		return qcnConfigErr("GdShift", strconv.Itoa(int(c.GdShift)), strconv.Itoa(QCNMinGdShift)+".."+strconv.Itoa(QCNMaxGdShift))
	}
	if c.MinDecFac > QCNMaxMinDecFac {
		return qcnConfigErr("MinDecFac", strconv.Itoa(int(c.MinDecFac)), "0.."+strconv.Itoa(QCNMaxMinDecFac))
	}
	if c.ByteLimit < QCNMinByteLimit || c.ByteLimit > QCNMaxByteLimit {
		return qcnConfigErr("ByteLimit", c.ByteLimit.String(), QCNMinByteLimit.String()+".."+QCNMaxByteLimit.String())
	}
	if c.Period < QCNMinPeriod || c.Period > QCNMaxPeriod {
		return qcnConfigErr("Period", c.Period.String(), QCNMinPeriod.String()+".."+QCNMaxPeriod.String())
	}
	if err := qcnCheckRate("AIRate", c.AIRate, QCNRateUnit, c.LineRate); err != nil {
		return err
	}
	return qcnCheckRate("HAIRate", c.HAIRate, QCNRateUnit, c.LineRate)
}

// QCNState is every register of a QCN reaction point.
type QCNState struct {
	// Time is the latest time an event was accepted at.
	Time cc.Monotonic
	// Active is true while the rate limiter is in use: from a CNM until RC
	// and RT both reach the line rate again.
	Active bool
	// RC and RT are the current and target rates in QCNRateUnit (32 bits).
	RC, RT uint32
	// ByteStage and TimerStage count the byte counter's and the timer's
	// cycles since the last decrease (32 bits, saturating).
	ByteStage, TimerStage uint32
	// ByteCount is the bytes left in the byte counter's cycle (32 bits).
	ByteCount uint32
	// NextTimer is the timer's deadline, units.MaxTime while inactive.
	NextTimer units.Time
	// Unused counts the messages of kinds the RP does not use (cc rule 8;
	// the register cc.UnusedRegister).
	Unused cc.Unused
	// CNMs counts the CNMs taken, Decreases the rate decreases (CNMs with
	// QntzFb ≥ 1), Increases the increase events (64-bit, wrapping).
	CNMs, Decreases, Increases uint64
}

// QCN is QCN's reaction point ([QCN] clause 32's RP; [Survey] §4.1.1, "RP
// algorithm"; [QCN-Allerton]): the rate limiter of one flow, driven by the CNMs
// the congestion points send it, recovering by a byte counter and a timer.
//
// Registers and operations (RC, RT in QCNRateUnit, q the CNM's 6-bit QntzFb):
//
//	CNM (q ≥ 1):    RT ← RC        (first CNM, or after an increase event;
//	                               every CNM with TargetEveryCNM)
//	                RC ← max(RC − min(RC·q >> GdShift, RC·(100−MinDecFac)/100), MinRate)
//	                               (RC·(1 − Gd·|Fb|), Gd = 2^−GdShift)
//	                stages ← 0, byte counter ← BC_LIMIT, timer ← now + T
//	byte counter:   every BC_LIMIT bytes sent (BC_LIMIT/2 once ByteStage ≥ F)
//	timer:          every T (T/2 once TimerStage ≥ F)
//	each expiry:    its stage += 1; then, with B, T the stages and F = Threshold,
//	                fast recovery (max(B,T) ≤ F):  RC ← ⌈(RC + RT)/2⌉
//	                active increase (max > F, min ≤ F): RT ← min(RT + R_AI, line); RC ← ⌈(RC + RT)/2⌉
//	                hyper-active (min(B,T) > F):   RT ← min(RT + i·R_HAI, line), i = min(B,T) − F;
//	                                               RC ← ⌈(RC + RT)/2⌉
//
// so a counter's first F expiries after a decrease are fast-recovery
// cycles (RT − RC halves each time: after 5, RC is within RT/32 of RT),
// and the limiter enters active increase when either counter has counted
// more than F cycles and hyper-active increase when both have.
//
// Invariants (checked by the tests): MinRate ≤ RC ≤ RT ≤ LineRate. Before
// the first CNM, and whenever RC and RT both reach the line rate again
// after an increase, the limiter is inactive: the flow sends at the line
// rate, Sent counts nothing and the timer idles (NextDeadline is
// units.MaxTime); the next CNM starts it again with RT ← RC.
//
// Events. Every event first runs the timer's expiries due by its now,
// each as at its own deadline (cc rule 4: the same registers whether the
// caller runs Timer at every deadline or late; each expiry is an increase
// event, and the limiter releases within Threshold + LineRate/AIRate + 33
// of them). Sent then counts the frame's bytes (cc.Packet.Size, what the
// rate limiter paces) into the byte counter while active. Feedback of
// kind wire.FeedbackCNM decodes cc.Feedback.Data (the CNM codec) and, for
// QntzFb ≥ 1, decreases the rate; a CNM with QntzFb = 0 changes nothing
// but the time and the count of CNMs; feedback of any other kind is
// counted in unused_feedback (cc rule 8). Limits is RC with no window. The
// RP never appends an action, and every event takes a nil act. Errors,
// each changing nothing: a time before the latest event's
// (*cc.TimeOrderError); a nil packet or feedback, a Size outside
// 0..QCNMaxSendBytes, a malformed CNM payload (*cc.EventError, wrapping the
// codec's *cc.DecodeError).
//
// Choices where the sources are silent or unverified here:
//
//   - RT ← RC on a CNM only when an increase event (a stage > 0) happened
//     since the last decrease, or on the limiter's first CNM: the QCN
//     paper writes TR ← CR with every decrease, the standard's managed
//     objects do not say, and NIC implementations of QCN's rate limiter
//     (NVIDIA's clamp_tgt_rate = 0, DCQCN) clamp the target
//     only after an increase, so that a burst of CNMs does not ratchet the
//     target down with the rate. TargetEveryCNM selects the paper's rule.
//   - The fast-recovery average rounds up, so that RC reaches RT; rounding
//     down would leave RC one unit below it forever.
//   - The byte counter counts wire bytes (cc.Packet.Size); the standard's
//     counts the frames the rate limiter sends.
//   - The QCN pseudocode randomises the counters' cycles; this RP does
//     not (deterministic cycles; jitter, where modelled, is the CP's).
//   - The limiter is released when RC and RT reach the line rate (the
//     standard frees it when the rate returns to the line rate).
//
// It is not safe for concurrent use. Build one with NewQCN.
type QCN struct {
	cfg QCNConfig
	// Register constants in QCNRateUnit.
	maxR, minR, ai, hai uint64
	// keep is 100 − MinDecFac, the largest cut in percent.
	keep uint64
	s    QCNState
}

var _ cc.ReactionPoint = (*QCN)(nil)

// NewQCN validates cfg and returns an inactive reaction point sending at the
// line rate.
func NewQCN(cfg QCNConfig) (*QCN, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	r := &QCN{
		cfg:  cfg,
		maxR: uint64(cfg.LineRate / QCNRateUnit),
		minR: uint64(cfg.MinRate / QCNRateUnit),
		ai:   uint64(cfg.AIRate / QCNRateUnit),
		hai:  uint64(cfg.HAIRate / QCNRateUnit),
		keep: 100 - uint64(cfg.MinDecFac),
	}
	r.s.RC, r.s.RT = uint32(r.maxR), uint32(r.maxR)
	r.s.NextTimer = units.MaxTime
	return r, nil
}

// Config returns the configuration r was built with.
func (r *QCN) Config() QCNConfig { return r.cfg }

// State returns every register, each in its snapshot's unit (RC and RT
// in QCNRateUnit, as rc and rt).
func (r *QCN) State() QCNState { return r.s }

// Rate returns the current rate RC as a units.Rate: the register rc
// (State().RC, in QCNRateUnit) times QCNRateUnit.
func (r *QCN) Rate() units.Rate { return units.Rate(r.s.RC) * QCNRateUnit }

// Target returns the target rate RT as a units.Rate: the register rt
// (State().RT, in QCNRateUnit) times QCNRateUnit.
func (r *QCN) Target() units.Rate { return units.Rate(r.s.RT) * QCNRateUnit }

// Limits implements cc.ReactionPoint: the current rate and no window.
func (r *QCN) Limits() cc.Limits { return cc.Limits{Rate: r.Rate(), Window: cc.NoWindow} }

// NextDeadline implements cc.Clock: the timer's deadline while the limiter
// is active, else units.MaxTime.
func (r *QCN) NextDeadline() units.Time { return r.s.NextTimer }

// refuse is the error of an event refused for reason: a
// *cc.TimeOrderError if now is out of order too, else a *cc.EventError
// wrapping cause.
//
//go:noinline
func (r *QCN) refuse(event string, now units.Time, reason string, cause error) error {
	if err := r.s.Time.Check(qcnPart, event, now); err != nil {
		return err
	}
	return &cc.EventError{Part: qcnPart, Event: event, Reason: reason, Err: cause}
}

// qcnBadSize is the reason a frame size n is refused.
//
//go:noinline
func qcnBadSize(n units.Bytes) string {
	return "frame size " + n.String() + " outside 0.." + QCNMaxSendBytes.String()
}

// Sent implements cc.ReactionPoint: after the timer's expiries due by now,
// while the limiter is active, p.Size bytes count into the byte counter,
// and each time a cycle fills, an increase event happens. It appends
// nothing (act may be nil).
func (r *QCN) Sent(now units.Time, p *cc.Packet, _ *cc.Actions) error {
	if !r.s.Time.InOrder(now) {
		return r.s.Time.Check(qcnPart, "Sent", now)
	}
	if p == nil {
		return r.refuse("Sent", now, "nil packet", nil)
	}
	if p.Size < 0 || p.Size > QCNMaxSendBytes {
		return r.refuse("Sent", now, qcnBadSize(p.Size), nil)
	}
	r.s.Time.Advance(now)
	if r.s.NextTimer <= now {
		r.catchUp(now)
	}
	s := &r.s
	n := uint64(p.Size)
	// At most QCNMaxSendBytes/(QCNMinByteLimit/2) + 1 expiries.
	for s.Active && n >= uint64(s.ByteCount) {
		n -= uint64(s.ByteCount)
		s.ByteStage = fixedpoint.SatAdd(s.ByteStage, 1)
		s.ByteCount = r.cycleBytes(s.ByteStage)
		r.increase()
	}
	if s.Active {
		s.ByteCount -= uint32(n)
	}
	return nil
}

// Feedback implements cc.ReactionPoint: after the timer's expiries due by
// now, a wire.FeedbackCNM whose payload decodes with QntzFb ≥ 1 decreases
// the rate (see QCN); a CNM with QntzFb = 0 changes nothing more; every
// other kind is counted in unused_feedback. A nil f or a malformed CNM is
// a *cc.EventError that changes nothing. It appends nothing.
func (r *QCN) Feedback(now units.Time, f *cc.Feedback, _ *cc.Actions) error {
	if !r.s.Time.InOrder(now) {
		return r.s.Time.Check(qcnPart, "Feedback", now)
	}
	if f == nil {
		return r.refuse("Feedback", now, "nil feedback", nil)
	}
	if f.Kind != wire.FeedbackCNM {
		r.s.Time.Advance(now)
		if r.s.NextTimer <= now {
			r.catchUp(now)
		}
		r.s.Unused.Count()
		return nil
	}
	m, err := wire.DecodeCNM(f.Data[:])
	if err != nil {
		return r.refuse("Feedback", now, "malformed CNM", err)
	}
	r.s.Time.Advance(now)
	if r.s.NextTimer <= now {
		r.catchUp(now)
	}
	r.s.CNMs++
	if m.QntzFb > 0 {
		r.decrease(now, uint64(m.QntzFb))
	}
	return nil
}

// Timer implements cc.Clock: it runs every timer expiry due by now, each
// as at its own deadline (see QCN); before the deadline it only records
// now. It appends nothing.
func (r *QCN) Timer(now units.Time, _ *cc.Actions) error {
	if err := r.s.Time.Accept(qcnPart, "Timer", now); err != nil {
		return err
	}
	r.catchUp(now)
	return nil
}

// catchUp runs every timer expiry due by now, in order: each counts a
// timer cycle, makes an increase event and re-arms the timer one cycle
// after its own deadline, until the deadline is after now or the limiter
// is released.
func (r *QCN) catchUp(now units.Time) {
	for r.s.Active && r.s.NextTimer <= now {
		r.expire()
	}
}

// expire runs the timer's expiry due at NextTimer.
func (r *QCN) expire() {
	s := &r.s
	due := s.NextTimer
	s.TimerStage = fixedpoint.SatAdd(s.TimerStage, 1)
	r.increase()
	if s.Active {
		s.NextTimer = fixedpoint.SatAdd(due, r.cyclePeriod(s.TimerStage))
	}
}

// halved reports whether a counter's cycles are halved after stage
// expiries (HalveAfterRecovery, once fast recovery is over).
func (r *QCN) halved(stage uint32) bool {
	return r.cfg.HalveAfterRecovery && stage >= uint32(r.cfg.Threshold)
}

// cycleBytes is the byte counter's cycle after stage expiries: BC_LIMIT,
// or BC_LIMIT/2 (rounded down) once halved.
func (r *QCN) cycleBytes(stage uint32) uint32 {
	if r.halved(stage) {
		return uint32(r.cfg.ByteLimit / 2)
	}
	return uint32(r.cfg.ByteLimit)
}

// cyclePeriod is the timer's period after stage expiries: T, or T/2
// (rounded down to the picosecond) once halved.
func (r *QCN) cyclePeriod(stage uint32) units.Time {
	if r.halved(stage) {
		return r.cfg.Period / 2
	}
	return r.cfg.Period
}

// decrease is a CNM with quantised feedback q ≥ 1 at now.
func (r *QCN) decrease(now units.Time, q uint64) {
	s := &r.s
	if !s.Active || r.cfg.TargetEveryCNM || s.ByteStage > 0 || s.TimerStage > 0 {
		s.RT = s.RC
	}
	s.Active = true
	rc := uint64(s.RC)
	// RC·(1 − Gd·q): cut RC·q >> GdShift (RC < 2^32, q < 2^6: no
	// overflow), at most RC·(100 − MinDecFac)/100.
	cut := min(rc*q>>r.cfg.GdShift, rc*r.keep/100)
	s.RC = uint32(max(rc-cut, r.minR))
	s.ByteStage, s.TimerStage = 0, 0
	s.ByteCount = r.cycleBytes(0)
	s.NextTimer = fixedpoint.SatAdd(now, r.cyclePeriod(0))
	s.Decreases++
}

// increase runs one increase event after a stage has grown (see QCN).
func (r *QCN) increase() {
	s := &r.s
	b, t, f := s.ByteStage, s.TimerStage, uint32(r.cfg.Threshold)
	if max(b, t) > f {
		step := r.ai
		if lo := min(b, t); lo > f {
			// i·R_HAI: i < 2^32 and R_HAI < 2^32, the product < 2^64.
			step = uint64(lo-f) * r.hai
		}
		s.RT = uint32(min(uint64(s.RT)+min(step, r.maxR), r.maxR))
	}
	s.RC = uint32((uint64(s.RC) + uint64(s.RT) + 1) >> 1)
	s.Increases++
	if uint64(s.RC) == r.maxR && uint64(s.RT) == r.maxR {
		// Back at the line rate: release the limiter.
		s.Active = false
		s.ByteStage, s.TimerStage, s.ByteCount = 0, 0, 0
		s.NextTimer = units.MaxTime
	}
}

// AppendRegisters implements cc.Part: now (64-bit ps); active (1 bit); rc
// and rt (32 bits, QCNRateUnit); byte_stage and timer_stage (32 bits);
// byte_count (32 bits, bytes); next_timer (64-bit ps); cnms, decreases,
// increases and unused_feedback (64-bit counters), in that order.
func (r *QCN) AppendRegisters(dst []cc.Register) []cc.Register {
	s := &r.s
	return append(dst,
		s.Time.Register(),
		cc.BoolReg("active", s.Active),
		cc.Reg("rc", 32, uint64(s.RC)),
		cc.Reg("rt", 32, uint64(s.RT)),
		cc.Reg("byte_stage", 32, uint64(s.ByteStage)),
		cc.Reg("timer_stage", 32, uint64(s.TimerStage)),
		cc.Reg("byte_count", 32, uint64(s.ByteCount)),
		cc.TimeReg("next_timer", s.NextTimer),
		cc.Reg("cnms", 64, s.CNMs),
		cc.Reg("decreases", 64, s.Decreases),
		cc.Reg("increases", 64, s.Increases),
		s.Unused.Register(),
	)
}

// qcnConfigErr is the *cc.ConfigError of a field out of range.
func qcnConfigErr(field, value, want string) error {
	return &cc.ConfigError{Part: qcnPart, Field: field, Value: value, Range: want}
}
