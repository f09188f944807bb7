package cp

import (
	"math"
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// Limits of QCN's congestion point: each configuration field's range and
// the registers' widths, declared once here (QCNConfig.Validate and the
// registration in package algos read them).
const (
	// QCNMinQeq is the smallest Qeq: 1 B.
	QCNMinQeq units.Bytes = 1
	// QCNMaxQueue is the largest queue length the CP's 32-bit Q and Qold
	// registers hold, and the largest Qeq; a longer queue (cc.Queue.Len)
	// saturates at it.
	QCNMaxQueue units.Bytes = math.MaxUint32
	// QCNMaxW is the largest weight w of Qδ.
	QCNMaxW = 32
	// QCNMinSampleInterval and QCNMaxSampleInterval bound each entry of
	// the sampling table: 1 B to the 32-bit byte counter's largest value.
	QCNMinSampleInterval units.Bytes = 1
	QCNMaxSampleInterval units.Bytes = math.MaxUint32
	// QCNMaxJitterPercent is the largest sampling jitter, in percent.
	QCNMaxJitterPercent = 50
	// QCNMaxSeed is the largest Seed: the 32-bit LFSR's state (0, its
	// lock-up state, is refused while jitter is on).
	QCNMaxSeed = math.MaxUint32
)

// Standard and pseudocode constants of the congestion point.
const (
	// QCNStandardQeq is 802.1Qau's default Qeq, the queue set point: 26 000
	// octets (IEEE8021-CN-MIB, ieee8021CnCpQueueSizeSetPoint DEFVAL 26000,
	// range 100..2^32−1, units octets).
	QCNStandardQeq units.Bytes = 26000
	// QCNStandardW is w = 2: the MIB's ieee8021CnCpFeedbackWeight DEFVAL 1,
	// read as the exponent of w = 2^1 ([Survey] §4.1.1: "w is a fixed
	// parameter usually set as 2"; [QCN-Allerton]).
	QCNStandardW = 2
	// QCNStandardSampleBase is 802.1Qau's default minimum sample base, the
	// bytes between samples when there is no congestion: 150 000 octets
	// (IEEE8021-CN-MIB, ieee8021CnCpMinSampleBase DEFVAL 150000).
	QCNStandardSampleBase units.Bytes = 150000
)

// QCNStandardSampleTable is the sampling table of QCNStandard: the QCN
// pseudocode's eight intervals (150, 75, 50, 37.5, 30, 25, 21.5 and 18.5
// KB, indexed by the last quantised |Fb| >> 3) in decimal kilobytes, so
// that entry 0 is the standard's cpMinSampleBase (150 000 octets). With
// 1500-byte frames it samples one frame in 100 (1 %) without congestion
// and one in 12.3 (8.1 %) at |Fb| ≥ 56.
var QCNStandardSampleTable = [8]units.Bytes{150000, 75000, 50000, 37500, 30000, 25000, 21500, 18500}

// QCNPseudocodeSampleTable is the QCN pseudocode's sampling table as the
// public Linux QCN queueing discipline (sch_fifo's qcn_mark_table) has it,
// in binary kilobytes: 153 600, 76 800, 51 200, 38 400, 30 720, 25 600,
// 22 016 and 18 944 bytes (150, 75, 50, 37.5, 30, 25, 21.5, 18.5 KiB),
// indexed by the quantised |Fb| >> 3.
var QCNPseudocodeSampleTable = [8]units.Bytes{153600, 76800, 51200, 38400, 30720, 25600, 22016, 18944}

// QCNConfig configures a QCN congestion point (and the QCN part of an
// AF-QCN one).
type QCNConfig struct {
	// Qeq is the equilibrium queue the CP steers toward, in bytes (a 32-bit
	// register). Range: QCNMinQeq..QCNMaxQueue. Standard: QCNStandardQeq.
	Qeq units.Bytes
	// W is w, the weight of the queue's growth Qδ in Fb = −(Qoff + w·Qδ).
	// Range: 0..QCNMaxW. Standard: QCNStandardW.
	W uint8
	// SampleTable[k] is the bytes of arriving frames between a sample and
	// the next when the sample's quantised |Fb| was in 8k..8k+7 (the
	// pseudocode's mark table, indexed by QntzFb >> 3). Range of each:
	// QCNMinSampleInterval..QCNMaxSampleInterval. Presets
	// QCNStandardSampleTable or QCNPseudocodeSampleTable.
	SampleTable [8]units.Bytes
	// JitterPercent randomises the sampling interval: 0 (the presets)
	// samples exactly every SampleTable[k] bytes; J > 0 draws each
	// interval uniformly from [N·(100−J)/100, N·(100+J)/100) with a
	// 32-bit LFSR (fixedpoint.LFSR32, one draw per sample). 802.1Qau and
	// the QCN pseudocode randomise the interval; hwcc has not read the
	// range they give (Broadcom's Petra CP draws from 0.75..1.25 of its
	// sample base), so the range is a parameter and off by default.
	// Range: 0..QCNMaxJitterPercent.
	JitterPercent uint8
	// Seed seeds the LFSR when JitterPercent > 0. Range: 1..QCNMaxSeed
	// then (0 is the LFSR's lock-up state); not read when jitter is off.
	Seed uint32
	// CPID is the congestion point identifier its CNMs carry (the CNM's
	// CPID field and cc.Feedback.From). Any 64-bit value; presets 0.
	CPID uint64
	// CNMPrio is the 802.1p priority the CNMs are sent at. Range:
	// 0..wire.CNMMaxPrio.
	// Presets cc.ControlPrio (7), hwcc's control priority (the standard
	// makes it a managed object, ieee8021CnGlobalCnmTransmitPriority).
	CNMPrio uint8
}

// QCNStandard returns 802.1Qau's congestion point: Qeq = 26 000 B and w = 2
// (the IEEE8021-CN-MIB defaults), the QCN pseudocode's sampling table
// scaled to the standard's 150 000-octet sample base (QCNStandardSampleTable),
// no jitter, CPID 0, CNMs at cc.ControlPrio. Fbmax = Qeq·(2w + 1) =
// 130 000 B.
func QCNStandard() QCNConfig {
	return QCNConfig{
		Qeq:         QCNStandardQeq,
		W:           QCNStandardW,
		SampleTable: QCNStandardSampleTable,
		CNMPrio:     cc.ControlPrio,
	}
}

// QCNPaper returns the congestion point of the QCN papers for a port of rate
// link: QCNStandard with the pseudocode's binary-kilobyte sampling table
// (QCNPseudocodeSampleTable) and Qeq scaled to the link, 26 000 B·link/10 Gb/s
// (rounded down, at least 1 B): the standard's Qeq is for the 10 Gb/s
// links the QCN papers and the standard's baseline run, and hwcc keeps
// the queue's drain time at Qeq (20.8 µs) as the link changes (hwcc's
// scaling: the sources give Qeq at 10 Gb/s only). A link so fast that Qeq
// would pass QCNMaxQueue gives a Qeq that Validate refuses.
func QCNPaper(link units.Rate) QCNConfig {
	c := QCNStandard()
	c.SampleTable = QCNPseudocodeSampleTable
	const ref = 10 * units.Gbps
	if link <= 0 {
		c.Qeq = 0 // fails Validate
		return c
	}
	// ⌊26 000·link/ref⌋ with a 128-bit product; above QCNMaxQueue it is kept
	// at QCNMaxQueue + 1, which fails Validate.
	q := fixedpoint.MulDivSat(uint64(QCNStandardQeq), uint64(link), uint64(ref))
	c.Qeq = units.Bytes(fixedpoint.Clamp(q, 1, uint64(QCNMaxQueue)+1))
	return c
}

// FbMax returns Fbmax = Qeq·(2w + 1), the |Fb| that quantises to 63.
func (c QCNConfig) FbMax() units.Bytes { return c.Qeq * units.Bytes(2*int64(c.W)+1) }

// qcnConfigErr is the *cc.ConfigError of a field out of range.
func qcnConfigErr(part, field, value, want string) error {
	return &cc.ConfigError{Part: part, Field: field, Value: value, Range: want}
}

// validate checks every field, naming part in the error.
func (c QCNConfig) validate(part string) error {
	if c.Qeq < QCNMinQeq || c.Qeq > QCNMaxQueue {
		return qcnConfigErr(part, "Qeq", c.Qeq.String(), QCNMinQeq.String()+".."+QCNMaxQueue.String())
	}
	if c.W > QCNMaxW {
		return qcnConfigErr(part, "W", strconv.Itoa(int(c.W)), "0.."+strconv.Itoa(QCNMaxW))
	}
	for i, n := range c.SampleTable {
		if n < QCNMinSampleInterval || n > QCNMaxSampleInterval {
			return qcnConfigErr(part, "SampleTable["+strconv.Itoa(i)+"]", n.String(), QCNMinSampleInterval.String()+".."+QCNMaxSampleInterval.String())
		}
	}
	if c.JitterPercent > QCNMaxJitterPercent {
		return qcnConfigErr(part, "JitterPercent", strconv.Itoa(int(c.JitterPercent)), "0.."+strconv.Itoa(QCNMaxJitterPercent))
	}
	if c.JitterPercent > 0 && c.Seed == 0 {
		return qcnConfigErr(part, "Seed", "0", "1.."+strconv.Itoa(QCNMaxSeed)+" when JitterPercent > 0 (0 is the LFSR's lock-up state)")
	}
	if c.CNMPrio > wire.CNMMaxPrio {
		return qcnConfigErr(part, "CNMPrio", strconv.Itoa(int(c.CNMPrio)), "0.."+strconv.Itoa(wire.CNMMaxPrio))
	}
	return nil
}

// qcnPart names the QCN congestion point in errors.
const qcnPart = "cp.QCN"

// Validate checks every field and returns a *cc.ConfigError naming the
// first one out of range.
func (c QCNConfig) Validate() error { return c.validate(qcnPart) }

// QCNState is every register of a QCN congestion point.
type QCNState struct {
	// Time is the latest time an event was accepted at.
	Time cc.Monotonic
	// QOld is the queue at the last sample, Qold (32-bit bytes).
	QOld uint32
	// ToSample is the bytes still to arrive before the next sample
	// (32-bit, 1..2^32−1 between events).
	ToSample uint32
	// Fb is the last sample's quantised |Fb|, 0..wire.CNMMaxQntzFb
	// (wire.CNMFbBits): it picks the next sampling interval. 0 when the
	// sample's Fb was ≥ 0.
	Fb uint8
	// LFSR is the jitter's random source (its state is 0 and never drawn
	// when JitterPercent is 0).
	LFSR fixedpoint.LFSR32
	// Samples counts the samples taken, CNMs the CNMs sent (64-bit model
	// counters, wrapping).
	Samples, CNMs uint64
}

// qcnCore is the QCN congestion point's one code path, shared by QCN and
// AFQCN: the configuration turned into register constants and the
// registers.
type qcnCore struct {
	cfg   QCNConfig
	qeq   int64
	w     int64
	fbMax int64
	table [8]uint32
	s     QCNState
}

func newQCNCore(cfg QCNConfig) qcnCore {
	c := qcnCore{cfg: cfg, qeq: int64(cfg.Qeq), w: int64(cfg.W), fbMax: int64(cfg.FbMax())}
	for i, n := range cfg.SampleTable {
		c.table[i] = uint32(n)
	}
	c.s.ToSample = c.table[0]
	if cfg.JitterPercent > 0 {
		c.s.LFSR, _ = fixedpoint.NewLFSR32(cfg.Seed) // Seed ≠ 0: validated
	}
	return c
}

// qcnSample is a planned queue arrival: the registers it leaves and, when
// it is a sample, what the sample measured. Planning changes nothing, so
// that an event refused afterwards (no room for its CNM) leaves the part as
// it was.
type qcnSample struct {
	sampled  bool
	fb       int64 // Fb = −(Qoff + w·Qδ), bytes
	qntz     uint8 // quantised |Fb| (0 when Fb ≥ 0)
	qoff, qd int64 // Qoff = Q − Qeq and Qδ = Q − Qold, bytes
	q        uint32
	toSample uint32
	lfsr     fixedpoint.LFSR32
}

// quantize returns |Fb|·63/Fbmax rounded down, saturating at 63, for
// Fb < 0, and 0 for Fb ≥ 0 (no congestion). |Fb| < 2^38 and 63·|Fb| <
// 2^44: no overflow.
func (c *qcnCore) quantize(fb int64) uint8 {
	if fb >= 0 {
		return 0
	}
	return uint8(min(-fb*wire.CNMMaxQntzFb/c.fbMax, wire.CNMMaxQntzFb))
}

// plan returns what a frame of size bytes arriving to a queue of qlen
// bytes (including it) does: counts down the byte counter and, when it
// reaches 0 or below, samples: Fb from Q = qlen (saturated to 32 bits) and
// Qold, the quantised |Fb|, and the next interval from the table.
func (c *qcnCore) plan(size, qlen units.Bytes) qcnSample {
	s := qcnSample{lfsr: c.s.LFSR}
	// 0 ≤ size < 2^63 and ToSample < 2^32: the difference cannot overflow.
	if rem := int64(c.s.ToSample) - int64(size); rem > 0 {
		s.toSample = uint32(rem)
		return s
	}
	s.sampled = true
	s.q = uint32(min(qlen, QCNMaxQueue))
	s.qoff = int64(s.q) - c.qeq
	s.qd = int64(s.q) - int64(c.s.QOld)
	// Fb = −(Qoff + w·Qδ): |Qoff| < 2^32, |w·Qδ| < 2^38.
	s.fb = -(s.qoff + c.w*s.qd)
	s.qntz = c.quantize(s.fb)
	n := uint64(c.table[s.qntz>>3])
	if j := uint64(c.cfg.JitterPercent); j > 0 {
		// Uniform in [N·(100−J)/100, N·(100+J)/100): N·(100−J)/100 plus
		// the span 2J·N/100 times a 32-bit draw over 2^32 (span < 2^32,
		// so the product fits 64 bits).
		u := uint64(s.lfsr.Next())
		lo, span := n*(100-j)/100, n*2*j/100
		n = lo + span*u>>32
	}
	s.toSample = max(fixedpoint.SatConv[uint32](n), 1)
	return s
}

// commit writes a planned arrival's registers.
func (c *qcnCore) commit(s *qcnSample) {
	c.s.ToSample = s.toSample
	if !s.sampled {
		return
	}
	c.s.QOld = s.q
	c.s.Fb = s.qntz
	c.s.LFSR = s.lfsr
	c.s.Samples++
}

// check refuses a queue event out of time order, with bad arguments or,
// for an Enqueue (which can decide, cc rule 3), with nil actions,
// changing nothing (QCN's and AFQCN's Enqueue and Dequeue).
func (k *qcnCore) check(part, event string, now units.Time, p *cc.Packet, q cc.Queue, act *cc.Actions, decides bool) error {
	if !k.s.Time.InOrder(now) || cc.BadPacket(p) || q.Len < 0 || p.Prio > wire.CNMMaxPrio || decides && act == nil {
		return k.refuse(part, event, now, p, q)
	}
	return nil
}

// enqueue applies a planned arrival of packet p at now: when fb ≥ 1 it
// appends the sample's CNM carrying fb (QCN's QntzFb, or AF-QCN's mix),
// and with no room for it refuses the event, changing nothing.
func (k *qcnCore) enqueue(part string, now units.Time, s *qcnSample, fb uint8, p *cc.Packet, act *cc.Actions) error {
	send := fb >= 1
	if send && act.Free() < 1 {
		return qcnFull(act, part, "Enqueue")
	}
	k.s.Time.Advance(now)
	k.commit(s)
	if send {
		k.s.CNMs++
		act.Send(cc.ToSource, k.cfg.CNMPrio, k.cnm(s, fb, p))
	}
	return nil
}

// cnm returns the CNM of a sample of packet p.
func (c *qcnCore) cnm(s *qcnSample, qntz uint8, p *cc.Packet) cc.Feedback {
	f := cc.Feedback{Kind: wire.FeedbackCNM, Flow: p.Flow, From: c.cfg.CPID}
	wire.CNM{QntzFb: qntz, CPID: c.cfg.CPID, QOffset: wire.CNMQ(s.qoff), QDelta: wire.CNMQ(s.qd), Prio: p.Prio}.Put(&f.Data)
	return f
}

// refuse is the error of a queue event that check refuses, the first
// that applies of: a *cc.TimeOrderError; a *cc.EventError for a bad
// packet (cc.PacketError), a negative queue length or a priority above
// wire.CNMMaxPrio; nil actions (cc.NoActions). Built out of line so that
// the event path holds no allocation site.
//
//go:noinline
func (c *qcnCore) refuse(part, event string, now units.Time, p *cc.Packet, q cc.Queue) error {
	if err := c.s.Time.Check(part, event, now); err != nil {
		return err
	}
	if err := cc.PacketError(part, event, p); err != nil {
		return err
	}
	switch {
	case q.Len < 0:
		return &cc.EventError{Part: part, Event: event, Reason: "negative queue length"}
	case p.Prio > wire.CNMMaxPrio:
		return &cc.EventError{Part: part, Event: event, Reason: "priority above " + strconv.Itoa(wire.CNMMaxPrio)}
	}
	return cc.NoActions(part, event)
}

// qcnFull is the error of an event whose CNM does not fit act.
//
//go:noinline
func qcnFull(act *cc.Actions, part, event string) error { return act.Reserve(part, event, 1) }

// registers appends the core's registers.
func (c *qcnCore) registers(dst []cc.Register) []cc.Register {
	return append(dst,
		c.s.Time.Register(),
		cc.Reg("q_old", 32, uint64(c.s.QOld)),
		cc.Reg("to_sample", 32, uint64(c.s.ToSample)),
		cc.Reg("fb", wire.CNMFbBits, uint64(c.s.Fb)),
		cc.Reg("lfsr", 32, uint64(c.s.LFSR.State())),
		cc.Reg("samples", 64, c.s.Samples),
		cc.Reg("cnms", 64, c.s.CNMs),
	)
}

// QCN is QCN's congestion point ([QCN] clause 32's CP; [Survey] §4.1.1,
// "CP algorithm"; [QCN-Allerton]): one egress
// queue that samples arriving frames and sends the sampled frame's source
// a congestion notification message when the queue is above its set point
// or growing.
//
// Every arriving frame (Enqueue) counts its bytes (cc.Packet.Size) down
// from the sampling interval; the frame that brings the count to 0 or
// below is sampled. At a sample, with Q the queue including the frame
// (cc.Queue.Len) and Qold the queue at the previous sample:
//
//	Qoff = Q − Qeq,  Qδ = Q − Qold,  Fb = −(Qoff + w·Qδ)       (bytes)
//	QntzFb = min(63, ⌊|Fb|·63/Fbmax⌋), Fbmax = Qeq·(2w + 1)   (Fb < 0)
//	Qold ← Q;  next interval ← SampleTable[QntzFb >> 3] (QntzFb = 0 if Fb ≥ 0)
//
// and if Fb < 0 and QntzFb ≥ 1 the CP appends a CNM (cc.ActionFeedback to
// cc.ToSource at CNMPrio, kind wire.FeedbackCNM, Flow the sampled frame's
// flow, From the CPID, Data the CNM codec's encoding with QntzFb, CPID,
// cnmQOffset, cnmQDelta and the frame's priority). Fb ≥ 0 sends nothing;
// so does an Fb < 0 whose |Fb| is below Fbmax/63, which quantises to 0
// (as the pseudocode's test qntz_Fb > 0).
//
// Registers (AppendRegisters, in this order): now (64-bit ps); q_old (32
// bits, bytes); to_sample (32 bits, bytes to the next sample); fb (6 bits,
// the last quantised |Fb|); lfsr (32 bits); samples and cnms (64-bit model
// counters). Q itself is the caller's queue register (cc.Queue.Len,
// saturated to 32 bits), read at each sample.
//
// Dequeue only records the time: QCN samples arrivals. The CP has no
// timer. A nil packet, a negative size, payload or queue length, or a
// priority above wire.CNMMaxPrio is a *cc.EventError; so is a nil act on
// Enqueue, which can decide (cc.ErrNoActions, whether or not this frame is
// sampled); a full act when a CNM is due a *cc.ActionsFullError; each
// changes nothing. Dequeue and Timer decide nothing and take a nil act.
//
// It is not safe for concurrent use. Build one with NewQCN.
type QCN struct {
	core qcnCore
}

var _ cc.CongestionPoint = (*QCN)(nil)

// NewQCN validates cfg and returns a congestion point whose first sample
// comes after SampleTable[0] bytes.
func NewQCN(cfg QCNConfig) (*QCN, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &QCN{core: newQCNCore(cfg)}, nil
}

// Config returns the configuration c was built with.
func (c *QCN) Config() QCNConfig { return c.core.cfg }

// State returns every register.
func (c *QCN) State() QCNState { return c.core.s }

// Enqueue implements cc.CongestionPoint: a frame joins the queue; q.Len
// includes it. It may append one CNM (see QCN).
func (c *QCN) Enqueue(now units.Time, p *cc.Packet, q cc.Queue, act *cc.Actions) error {
	k := &c.core
	if err := k.check(qcnPart, "Enqueue", now, p, q, act, true); err != nil {
		return err
	}
	s := k.plan(p.Size, q.Len)
	// s.qntz ≥ 1 only at a sample whose Fb < 0 (quantize).
	return k.enqueue(qcnPart, now, &s, s.qntz, p, act)
}

// Dequeue implements cc.CongestionPoint: it checks its arguments as
// Enqueue does and records the time (QCN samples arrivals only).
func (c *QCN) Dequeue(now units.Time, p *cc.Packet, q cc.Queue, _ *cc.Actions) error {
	return c.core.dequeue(qcnPart, now, p, q)
}

// dequeue checks a departure's arguments and records its time: both
// congestion points sample arrivals only.
func (k *qcnCore) dequeue(part string, now units.Time, p *cc.Packet, q cc.Queue) error {
	if err := k.check(part, "Dequeue", now, p, q, nil, false); err != nil {
		return err
	}
	k.s.Time.Advance(now)
	return nil
}

// NextDeadline implements cc.Clock: units.MaxTime, the CP has no timer.
func (c *QCN) NextDeadline() units.Time { return units.MaxTime }

// Timer implements cc.Clock: it only records now.
func (c *QCN) Timer(now units.Time, act *cc.Actions) error {
	return c.core.s.Time.Accept(qcnPart, "Timer", now)
}

// AppendRegisters implements cc.Part: the registers QCN's doc lists, in
// that order.
func (c *QCN) AppendRegisters(dst []cc.Register) []cc.Register { return c.core.registers(dst) }
