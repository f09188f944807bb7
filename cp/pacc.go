package cp

import (
	"math"
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/units"
)

// The ranges and units of PACCConfig's fields, stated once: Validate, the
// registry (package algos) and the docs read them from here.
const (
	// PACCMaxQueue is the largest QRef: the queue registers are 32 bits of
	// bytes (a larger queue saturates them).
	PACCMaxQueue units.Bytes = math.MaxUint32
	// PACCMaxGain is the largest Alpha or Beta: 24 bits, so that a gain
	// times a 33-bit queue error stays below 2^57.
	PACCMaxGain = 1<<24 - 1
	// PACCGainUnit is the gains' unit as the registry and errors name it:
	// a step of the probability register (2^−32) per KiB of queue error
	// per update.
	PACCGainUnit = "2^-32 per KiB per update"
	// PACCPmaxOne is PMax = 1.0 in its Q0.16 format, and PMax's largest
	// value: DCQCN's Pmax format (DCQCNPmaxOne).
	PACCPmaxOne = DCQCNPmaxOne
	// PACCMinPeriod and PACCMaxTime bound Period (and, from 0,
	// CNPInterval): 1 ns to 1 s.
	PACCMinPeriod, PACCMaxTime = units.Nanosecond, units.Second
	// PACCMaxTableBits is the largest TableBits: 2^16 flows.
	PACCMaxTableBits = flowPacerMaxBits
)

// PACCPaperPeriod is the period PACC's switch works in: "it needs to wait
// for a period of time (80 µs by default) to update the flow table and
// send CNPs" ([Mercury] §"Large-scale simulations", of PACC's defaults).
// hwcc takes it as the PI controller's update period: every 80 µs the
// switch updates the state its CNPs are drawn from (the probability, from
// the queue) and sends CNPs at that probability until the next update. It
// is not the spacing of one flow's CNPs (PACCCNPInterval).
const PACCPaperPeriod = 80 * units.Microsecond

// PACCCNPInterval is the least time between two CNPs to one flow in
// PACCPaper: 4 µs, the min_time_between_cnps of the ConnectX notification
// point ([ConnectX]; np.DCQCNConnectX), the receiver PACC replaces. PACC
// moves the CNPs from the receiver to the switch and keeps DCQCN's
// reaction point unchanged, whose ConnectX constants (α decaying every
// 1 µs, a cut of RC·α/2 per CNP at most every 4 µs) expect CNPs as often
// as that receiver sends them; docs/derivations.md ("PACC's constants")
// compares it with the other reading of the 80 µs.
const PACCCNPInterval = 4 * units.Microsecond

const (
	// paccGainShift is log2(1024): the gains are per KiB of queue error.
	paccGainShift = 10
	// paccProbFrac is the number of fraction bits of the probability
	// register (Q1.32), the width of the LFSR draw it is compared with.
	paccProbFrac = 32
	// paccPmaxShift converts PMax (Q0.16) to the register's Q1.32.
	paccPmaxShift = paccProbFrac - dcqcnPmaxFrac
	// paccProbBits is the probability register's width: 0..2^32.
	paccProbBits = paccProbFrac + 1
)

// paccPart names PACC's congestion point in errors.
const paccPart = "cp.PACC"

// PACCConfig configures PACC's congestion point (PACC).
type PACCConfig struct {
	// QRef is the reference queue the PI controller holds, 1 B..PACCMaxQueue.
	QRef units.Bytes
	// Period is T, the PI controller's update period,
	// PACCMinPeriod..PACCMaxTime (PACCPaper: 80 µs, PACCPaperPeriod).
	Period units.Time
	// Alpha and Beta are the integral and proportional gains, in
	// PACCGainUnit: each update adds (Alpha·(Q − QRef) + Beta·(Q −
	// Qold))/1024 to the probability register, Q and Qold in bytes.
	// Alpha 1..PACCMaxGain (an integral term is what holds the queue at
	// QRef), Beta 0..PACCMaxGain.
	Alpha, Beta uint32
	// PMax caps the CNP probability, a Q0.16 fraction (PACCPmaxOne =
	// 65536 = 1.0), 1..PACCPmaxOne.
	PMax uint32
	// MinQueue is the queue (bytes, the packet included) at or below which
	// an arriving packet draws no CNP whatever p is, 0..PACCMaxQueue (0:
	// every packet draws). PACCPaper: QRef/2, so that a probability that
	// the integral term built up during a burst sends nothing once the
	// queue has drained, and the steady state (a queue at QRef) is not
	// touched: PIE's rule ([RFC8033] §4.1: no drop below half the reference
	// delay while p is small), without its condition on p.
	MinQueue units.Bytes
	// CNPInterval is the least time between two CNPs to one flow,
	// 0..PACCMaxTime (0: a CNP for every packet drawn). PACCPaper: 4 µs,
	// PACCCNPInterval.
	CNPInterval units.Time
	// TableBits sizes the CNP pacing table: 2^TableBits flows (slots
	// shared by hash), 0..PACCMaxTableBits.
	TableBits uint8
	// Seed is the LFSR's initial state, fixedpoint.LFSR32SeedMin..
	// LFSR32SeedMax (0 is its lock-up state).
	Seed uint32
}

// PACCPaper returns PACC's congestion point for a port of rate link:
// PACC's 80 µs period (PACCPaperPeriod), CNPs to one flow at most as often
// as the receiver PACC replaces would send them (PACCCNPInterval, 4 µs),
// and hwcc's choices where the sources give no number
// (docs/derivations.md, "PACC's constants"):
//
//   - QRef = 100 KB per 25 Gb/s of link (DCQCN's Kmin as hwcc presets
//     it: the queue at which the marking PACC replaces begins), 160 KB at
//     40 Gb/s;
//   - gains such that a queue QRef above the reference for one update
//     raises the probability by 1/256 (Alpha = 2^24/(QRef in KiB),
//     rounded to nearest) and Beta = 5·Alpha (RoCC's β̄/ᾱ, [RoCC] §VI,
//     the other switch PI controller with published gains);
//   - PMax = 0.2, DCQCN's Pmax (as cp.DCQCNHPCCSim has it): the marking
//     probability PACC's CNPs stand in for, at which a flow is notified
//     in proportion to its packets up to a few per period;
//   - no CNP while the queue is at most QRef/2 (MinQueue);
//   - 1024 pacing slots, DCQCN's LFSR seed.
func PACCPaper(link units.Rate) PACCConfig {
	const perBps = 250_000 // 25 Gb/s / 100 KB
	qref := max(units.Bytes(max(link, 0)/perBps), 1)
	return PACCConfig{
		QRef:        qref,
		Period:      PACCPaperPeriod,
		Alpha:       paccAlpha(qref),
		Beta:        5 * paccAlpha(qref),
		PMax:        paccPaperPmax,
		MinQueue:    qref / 2,
		CNPInterval: PACCCNPInterval,
		TableBits:   10,
		Seed:        DCQCNDefaultSeed,
	}
}

// paccPaperPmax is PACCPaper's PMax: 0.2 in Q0.16, DCQCN's Pmax.
const paccPaperPmax = 13107

// paccAlpha is the integral gain that adds 1/256 to the probability per
// update for a queue error of qref: 2^(32−8)/(qref/1024) =
// 2^34/qref in units of 2^−32 per KiB, rounded to nearest and clamped
// to 1..PACCMaxGain/5, so that Beta = 5·Alpha fits too.
func paccAlpha(qref units.Bytes) uint32 {
	const num = 1 << (paccProbFrac - 8 + paccGainShift)
	a := (num + int64(qref)/2) / int64(max(qref, 1))
	return uint32(fixedpoint.Clamp(a, 1, PACCMaxGain/5))
}

// Validate reports the first field out of range as a *cc.ConfigError.
func (c PACCConfig) Validate() error {
	bad := func(field, value, want string) error {
		return &cc.ConfigError{Part: paccPart, Field: field, Value: value, Range: want}
	}
	gain := strconv.Itoa(PACCMaxGain) + " (" + PACCGainUnit + ")"
	switch {
	case c.QRef < 1 || c.QRef > PACCMaxQueue:
		return bad("QRef", c.QRef.String(), "1B.."+PACCMaxQueue.String())
	case c.Period < PACCMinPeriod || c.Period > PACCMaxTime:
		return bad("Period", c.Period.String(), PACCMinPeriod.String()+".."+PACCMaxTime.String())
	case c.Alpha < 1 || c.Alpha > PACCMaxGain:
		return bad("Alpha", strconv.FormatUint(uint64(c.Alpha), 10), "1.."+gain)
	case c.Beta > PACCMaxGain:
		return bad("Beta", strconv.FormatUint(uint64(c.Beta), 10), "0.."+gain)
	case c.PMax < 1 || c.PMax > PACCPmaxOne:
		return bad("PMax", strconv.FormatUint(uint64(c.PMax), 10), "1.."+strconv.Itoa(PACCPmaxOne)+" ("+DCQCNPmaxUnit+")")
	case c.MinQueue < 0 || c.MinQueue > PACCMaxQueue:
		return bad("MinQueue", c.MinQueue.String(), "0B.."+PACCMaxQueue.String())
	case c.CNPInterval < 0 || c.CNPInterval > PACCMaxTime:
		return bad("CNPInterval", c.CNPInterval.String(), "0s.."+PACCMaxTime.String())
	case c.TableBits > PACCMaxTableBits:
		return bad("TableBits", strconv.Itoa(int(c.TableBits)), "0.."+strconv.Itoa(PACCMaxTableBits))
	case c.Seed < fixedpoint.LFSR32SeedMin:
		return bad("Seed", strconv.FormatUint(uint64(c.Seed), 10), fixedpoint.LFSR32SeedRange())
	}
	return nil
}

// PACCState is every register of a PACC congestion point but the time
// (PACC.Last) and the pacing table's slots (summarised by Slots and
// Takeovers).
type PACCState struct {
	// P is the CNP probability, Q1.32 (2^32 = 1.0), 0..PMax·2^16: a
	// 33-bit register.
	P uint64
	// QOld is the queue (bytes) at the latest update, QCur the queue the
	// latest Enqueue or Dequeue reported, which the next update samples
	// (32 bits each, saturating).
	QOld, QCur uint32
	// Deadline is when the next update is due (64-bit ps).
	Deadline units.Time
	// LFSR is the random generator's register (never 0).
	LFSR uint32
	// Updates counts PI updates, Packets the packets that arrived, Draws
	// those that took a random draw, CNPs the CNPs sent, Suppressed the
	// packets drawn whose flow had a CNP less than CNPInterval before.
	// 64-bit, wrapping.
	Updates, Packets, Draws, CNPs, Suppressed uint64
	// Slots is how many pacing slots hold a flow (0..2^16), Takeovers
	// how many CNPs took a slot from another flow (64-bit, wrapping).
	Slots     uint32
	Takeovers uint64
}

// PACC is the congestion point of PACC ([PACC]; as [RoCC] §II and
// [Mercury] §"Large-scale simulations" and §"Related work" describe it):
// DCQCN's congestion point changed to send CNPs to the sources itself
// instead of marking ECN, at a rate a PI controller on the egress queue
// sets. The sources run DCQCN's reaction point unchanged ("PACC inherits
// the rate control of DCQCN"); there is no notification point ([RoCC]
// Table I: the destination does nothing).
//
// # The PI controller, every Period (Timer)
//
// In real numbers, with Q the queue sampled at the update:
//
//	p ← p + α·(Q − Qref) + β·(Q − Qold),  clamped to [0, PMax];  Qold ← Q
//
// The integer form, p a Q1.32 register, Q, Qold, Qref bytes, α and β in
// 2^−32 per KiB:
//
//	P ← clamp(P + ⌊(Alpha·(Q − Qref) + Beta·(Q − Qold)) / 1024⌋, 0, PMax·2^16)
//
// (one arithmetic shift: rounding toward −∞ errs by less than one unit of
// 2^−32 per update; |errors| < 2^33 and gains < 2^24, so the sum stays below
// 2^57). Q is the queue the latest Enqueue or Dequeue reported.
//
// # The CNPs, on every Enqueue
//
// A data packet joining a queue above MinQueue (itself included) is drawn
// with probability p: the 32-bit LFSR's draw (uniform over 1..2^32−1)
// against P, no draw at P = 0 or at or below MinQueue, and none needed at
// P = 2^32. A drawn packet's flow gets a CNP to its
// source (cc.FeedbackCNP at cc.ControlPrio, RoCEv2's CNP as wire.CNP
// encodes it), unless the flow had one less than CNPInterval before: a
// pacing table of 2^TableBits slots keyed by a hash of the flow ID (two
// flows sharing a slot each get their CNPs, as if unpaced). So CNPs come
// "in proportion to the number of congested packets" ([Mercury]
// §"Related work"), at most one per flow per CNPInterval.
//
// # Choices the sources leave open
//
// [PACC] itself is not among hwcc's sources: every number but the 80 µs
// period and the 4 µs CNP spacing (the ConnectX receiver's, which PACC
// replaces) is hwcc's, a parameter, and docs/derivations.md ("PACC's
// constants") says why: QRef, the gains, PMax, MinQueue, the draw on
// Enqueue, the pacing (CNPInterval's reading, TableBits) and the first
// update at Period.
//
// # The contract
//
// Enqueue can send a CNP, so it refuses a nil act (cc's rule 3); Dequeue
// and Timer decide nothing and take nil. Every event first runs the
// updates due by its time, each as at its own deadline on the queue the
// CP last saw (rule 4): they are exact in O(1) however many are late
// (after the first, Q − Qold = 0 and each adds the same step until a
// clamp). A refused event (time order, a nil or negative packet, a
// negative queue, no room for its CNP) changes nothing. Not safe for
// concurrent use; nothing allocates after NewPACC except errors.
type PACC struct {
	cfg   PACCConfig
	clock cc.Monotonic
	r     paccRegs
	table flowPacer
	qref  int64  // QRef in bytes
	pmax  uint64 // PMax in Q1.32
}

// paccRegs are PACC's scalar registers: an event works on a copy and
// commits it only once nothing can refuse.
type paccRegs struct {
	st   PACCState
	lfsr fixedpoint.LFSR32
}

var _ cc.CongestionPoint = (*PACC)(nil)

// NewPACC validates cfg and returns a congestion point with p = 0, an
// empty queue, an empty pacing table and the first update due at Period.
func NewPACC(cfg PACCConfig) (*PACC, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	l, err := fixedpoint.NewLFSR32(cfg.Seed)
	if err != nil {
		return nil, err
	}
	c := &PACC{
		cfg: cfg, table: newFlowPacer(cfg.TableBits),
		qref: int64(cfg.QRef), pmax: uint64(cfg.PMax) << paccPmaxShift,
	}
	c.r.lfsr = l
	c.r.st.Deadline = cfg.Period
	return c, nil
}

// Config returns the configuration.
func (c *PACC) Config() PACCConfig { return c.cfg }

// State returns every register but the time and the pacing slots.
func (c *PACC) State() PACCState {
	s := c.r.st
	s.LFSR = c.r.lfsr.State()
	return s
}

// P returns the CNP probability register, Q1.32 (2^32 = 1.0).
func (c *PACC) P() uint64 { return c.r.st.P }

// Last returns the time of the latest accepted event (0 before any).
func (c *PACC) Last() units.Time { return c.clock.Last() }

// Slot returns flow's pacing slot, 0..2^TableBits − 1: a function of the
// configuration, not a register.
func (c *PACC) Slot(flow cc.FlowID) int { return c.table.slot(flow) }

// NextDeadline returns when the next PI update is due.
func (c *PACC) NextDeadline() units.Time { return c.r.st.Deadline }

// paccStep is one PI update from (p, qold) with the queue sample q, the
// three in the registers' units: the new p.
func (c *PACC) paccStep(p uint64, qold, q uint32) uint64 {
	e1 := int64(q) - c.qref
	e2 := int64(q) - int64(qold)
	// p + α·e1 + β·e2, ⌊·/1024⌋ by an arithmetic shift; |e| < 2^33, gains < 2^24.
	d := (int64(c.cfg.Alpha)*e1 + int64(c.cfg.Beta)*e2) >> paccGainShift
	return uint64(fixedpoint.Clamp(int64(p)+d, 0, int64(c.pmax)))
}

// catchUp runs, on r, the updates due at or before now, each at its own
// deadline on the queue sample r.st.QCur (no event comes between them).
func (c *PACC) catchUp(r *paccRegs, now units.Time) {
	s := &r.st
	if now < s.Deadline {
		return
	}
	n := uint64(1)
	if late := now - s.Deadline; late >= c.cfg.Period {
		n += uint64(late / c.cfg.Period)
	}
	q := s.QCur
	s.P = c.paccStep(s.P, s.QOld, q)
	s.QOld = q
	if rest := n - 1; rest > 0 {
		// Qold = Q from here on: each further update adds the same d
		// (⌊Alpha·(Q − QRef)/1024⌋) until a clamp holds p, so the rest
		// is d·rest clamped (exactly what running them one by one gives,
		// p ∈ [0, PMax] being clamped monotonically). A division only
		// when more than one update is late.
		d := (int64(c.cfg.Alpha) * (int64(q) - c.qref)) >> paccGainShift
		p := int64(s.P)
		switch {
		case d > 0:
			if uint64(int64(c.pmax)-p)/uint64(d) < rest {
				p = int64(c.pmax)
			} else {
				p += d * int64(rest)
			}
		case d < 0:
			if uint64(p)/uint64(-d) < rest {
				p = 0
			} else {
				p += d * int64(rest)
			}
		}
		s.P = uint64(p)
	}
	s.Updates += n
	s.Deadline = fixedpoint.SatAddNonNeg(s.Deadline, fixedpoint.SatMul(units.Time(min(n, math.MaxInt64)), c.cfg.Period))
}

// paccQueue is a queue length as the 32-bit queue registers hold it
// (saturating).
func paccQueue(b units.Bytes) uint32 { return uint32(min(uint64(b), math.MaxUint32)) }

// refuse returns the error of an Enqueue or Dequeue that check refuses.
//
//go:noinline
func (c *PACC) refuse(event string, now units.Time, p *cc.Packet, q cc.Queue) error {
	if err := c.clock.Check(paccPart, event, now); err != nil {
		return err
	}
	if err := cc.PacketError(paccPart, event, p); err != nil {
		return err
	}
	return negativeQueue(paccPart, event, q.Len)
}

// paccFull is the error of a CNP that does not fit act.
//
//go:noinline
func paccFull(act *cc.Actions) error { return act.Reserve(paccPart, "Enqueue", 1) }

// paccNoActions is Enqueue's error for a nil act (cc.NoActions, out of
// line).
//
//go:noinline
func paccNoActions() error { return cc.NoActions(paccPart, "Enqueue") }

// Enqueue takes a packet joining the queue (q.Len counts it): the updates
// due first, then the draw and perhaps a CNP to the packet's source (see
// PACC); q is the queue the next update samples.
func (c *PACC) Enqueue(now units.Time, p *cc.Packet, q cc.Queue, act *cc.Actions) error {
	if !c.clock.InOrder(now) || cc.BadPacket(p) || q.Len < 0 {
		return c.refuse("Enqueue", now, p, q)
	}
	if act == nil {
		return paccNoActions()
	}
	r := c.r
	c.catchUp(&r, now)
	s := &r.st
	s.Packets++
	drawn := false
	switch {
	case s.P == 0 || q.Len <= c.cfg.MinQueue:
	case s.P >= 1<<paccProbFrac:
		drawn = true
	default:
		s.Draws++
		drawn = uint64(r.lfsr.Next()) < s.P
	}
	send := drawn && c.table.due(p.Flow, now, c.cfg.CNPInterval)
	if send && act.Free() < 1 {
		return paccFull(act)
	}
	if drawn && !send {
		s.Suppressed++
	}
	s.QCur = paccQueue(q.Len)
	if send {
		switch fresh, took := c.table.note(p.Flow, now); {
		case fresh:
			s.Slots++
		case took:
			s.Takeovers++
		}
		s.CNPs++
		act.Send(cc.ToSource, cc.ControlPrio, cc.Feedback{Kind: cc.FeedbackCNP, Flow: p.Flow})
	}
	c.r = r
	c.clock.Advance(now)
	return nil
}

// Dequeue takes a packet leaving the queue (q.Len is what it leaves):
// the updates due first, then q as the queue the next update samples. It
// decides nothing.
func (c *PACC) Dequeue(now units.Time, p *cc.Packet, q cc.Queue, _ *cc.Actions) error {
	if !c.clock.InOrder(now) || cc.BadPacket(p) || q.Len < 0 {
		return c.refuse("Dequeue", now, p, q)
	}
	c.catchUp(&c.r, now)
	c.r.st.QCur = paccQueue(q.Len)
	c.clock.Advance(now)
	return nil
}

// Timer runs the updates due by now (none before the deadline) and
// records now. It decides nothing.
func (c *PACC) Timer(now units.Time, _ *cc.Actions) error {
	if err := c.clock.Check(paccPart, "Timer", now); err != nil {
		return err
	}
	c.catchUp(&c.r, now)
	c.clock.Advance(now)
	return nil
}

// AppendRegisters appends now (64-bit ps), p (33 bits, Q1.32), q_old and
// q_cur (32, bytes), deadline (64-bit ps), lfsr (32), the 64-bit counters
// updates, packets, draws, cnps and suppressed, slots (32), takeovers
// (64) and table (64: an FNV-1a digest of every pacing slot's flow, use
// and last CNP time, so that a trace sees the table change; it reads the
// whole table, 2^TableBits slots).
func (c *PACC) AppendRegisters(dst []cc.Register) []cc.Register {
	h := newTableDigest()
	for _, e := range c.table.slots {
		u := uint64(0)
		if e.used {
			u = 1
		}
		h.mix(uint64(e.flow))
		h.mix(u)
		h.mix(uint64(e.last))
	}
	s := &c.r.st
	return append(dst,
		c.clock.Register(),
		cc.Reg("p", paccProbBits, s.P),
		cc.Reg("q_old", 32, uint64(s.QOld)),
		cc.Reg("q_cur", 32, uint64(s.QCur)),
		cc.TimeReg("deadline", s.Deadline),
		cc.Reg("lfsr", 32, uint64(c.r.lfsr.State())),
		cc.Reg("updates", 64, s.Updates),
		cc.Reg("packets", 64, s.Packets),
		cc.Reg("draws", 64, s.Draws),
		cc.Reg("cnps", 64, s.CNPs),
		cc.Reg("suppressed", 64, s.Suppressed),
		cc.Reg("slots", 32, uint64(s.Slots)),
		cc.Reg("takeovers", 64, s.Takeovers),
		cc.Reg("table", 64, uint64(h)),
	)
}
