package rp

import (
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/pi"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// roccHostPart names rp.RoCCHost in errors.
const roccHostPart = "rp.RoCCHost"

// RoCCHost is the host-side rate computation of [RoCC]
// §III-F: the CP sends Qcur (and, in approach 2, F) and the host computes the
// fair rate with the parameters it looks up in a registry (pi.Params). The
// paper's Tofino prototype works this way: the switch's P4 CNP carries the
// port, qdepth and counter (Listing 1), and the DPDK client "intercept[s]
// CNPs to compute fair rate" (§IV-B).
//
// One RoCCHost follows one CP. It holds the same registers as the switch
// (pi.Regs) and calls the same pi.Step, so a host that sees every update
// of a CP, with F kept on the host, computes exactly the F the switch would
// (bit for bit, fraction bits included). Choices where the paper is silent:
//
//   - Qold is the Qcur of the previous report; the 8-bit counter tells
//     whether that report was the previous update. After a gap (a lost
//     report, or the first report of a host that joins late) the host uses
//     Qold = Qcur, dropping line 8's β term and line 4's test for that one
//     update. A first report with counter 1 is the CP's first update and
//     starts from the CP's initial registers (pi.Params.InitialRegs).
//   - Reports with the counter of the last update (the CP sends one per flow
//     per period) do not update again: they return the same rate.
//   - A report whose rate field is non-zero carries the CP's F before the
//     update (approach 2); the host starts the update from it (⌊F⌋ only: the
//     field has no fraction bits).
//
// # The contract
//
// RoCCHost plays a cc.ReactionPoint: it sits at the sender, where the CP's
// reports arrive, and what it decides goes to the flow's own rate limiter
// (rp.RoCC). Its Feedback takes a cc.FeedbackRate message whose Data is a
// report (type 2; cc.Feedback.Flow must be the flow the report names),
// computes F as the switch would, and appends one
// cc.ActionFeedback ToSource at cc.ControlPrio: a cc.FeedbackRate message
// for the same flow, From = the CP's identity, with Data the type-1 rate
// message (F, and the report's counter, port, switch and qdepth) that the
// flow's rp.RoCC takes; so it refuses a nil *cc.Actions (rule 3 of package
// cc). A message it does not use (an ACK, a NAK, a DCQCN CNP, another
// scheme's message, or a RoCC rate message, type 1, which is the RP's) is
// taken and counted in the register unused_feedback (rule 8). It does not
// pace or window anything itself (Limits is cc.NoRate, cc.NoWindow), has
// no timer, and Sent only records now.
// Making the host computation its own part keeps one part to one role: the
// RP stays Algorithm 2 alone, and a scenario without reports has no host
// part at all.
type RoCCHost struct {
	p      *pi.Params
	clock  cc.Monotonic
	regs   pi.Regs
	cp     uint64
	seq    uint8
	primed bool
	gaps   uint64
	qtop   uint32    // the queue register's maximum, ΔQ units
	fw, qw uint8     // widths of the F and queue registers
	unused cc.Unused // messages the host computation does not use (rule 8)
}

var _ cc.ReactionPoint = (*RoCCHost)(nil)

// NewRoCCHost returns a host-side calculator that looks its parameters up
// in p (shared, not copied). A nil p is a *cc.ConfigError.
func NewRoCCHost(p *pi.Params) (*RoCCHost, error) {
	if p == nil {
		return nil, &cc.ConfigError{Part: roccHostPart, Field: "params", Value: "nil", Range: "the CP's pi.Params"}
	}
	_, _, _, qtop := p.Thresholds()
	return &RoCCHost{p: p, regs: p.InitialRegs(), qtop: qtop, fw: p.RateWidth(), qw: p.QueueWidth()}, nil
}

// NewRoCCHostConfig is NewRoCCHost with parameters built from cfg (the
// Algorithm 1 configuration of the CP it follows: the same registry).
func NewRoCCHostConfig(cfg pi.Config) (*RoCCHost, error) {
	p, err := pi.NewParams(cfg)
	if ce, ok := err.(*cc.ConfigError); ok {
		ce.Part = roccHostPart
	}
	if err != nil {
		return nil, err
	}
	return NewRoCCHost(p)
}

// Params returns the parameters the host computes with.
func (h *RoCCHost) Params() *pi.Params { return h.p }

// Regs returns the host's copy of the CP's registers: F in units of
// ΔF·2^−RateFracBits and Qold in ΔQ units (the snapshot's "f" and
// "qold").
func (h *RoCCHost) Regs() pi.Regs { return h.regs }

// Gaps returns how many reports arrived after a gap in the counter (the
// snapshot's "gaps", a 64-bit wrapping counter).
func (h *RoCCHost) Gaps() uint64 { return h.gaps }

// checkReport returns why onReport would refuse fb, or "".
func (h *RoCCHost) checkReport(fb wire.RoCCFeedback) string {
	if fb.Type != wire.RoCCReportFeedback {
		return "got a message of type " + strconv.Itoa(int(fb.Type)) + ", want a report (type 2)"
	}
	if h.primed && fb.CP() != h.cp {
		return "follows CP 0x" + strconv.FormatUint(h.cp, 16) + ", got a report from CP 0x" + strconv.FormatUint(fb.CP(), 16)
	}
	return ""
}

// report is onReport after its checks.
func (h *RoCCHost) report(now units.Time, fb wire.RoCCFeedback) uint32 {
	h.clock.Advance(now)
	qcur := uint32(fb.QDepth)
	switch {
	case h.primed && fb.Seq == h.seq:
		// The same update reported for another flow.
		return h.p.RateUnits(h.regs.F)
	case h.primed && fb.Seq == h.seq+1:
		// The next update: Qold is the previous report's Qcur.
	case !h.primed && fb.Seq == 1:
		// The CP's first update: its initial registers.
		h.regs = h.p.InitialRegs()
	default:
		// A gap: no trend information for this update.
		h.regs.QOld = min(qcur, h.qtop)
		h.gaps++
	}
	if fb.Rate != 0 {
		h.regs.F = uint32(fb.Rate) << h.p.FracBits()
	}
	h.cp, h.seq, h.primed = fb.CP(), fb.Seq, true
	h.regs, _ = pi.Step(h.p, h.regs, qcur)
	return h.p.RateUnits(h.regs.F)
}

// onReport runs Algorithm 1 at now for the CP's report fb and returns the
// new fair rate in whole ΔF units, what the rate message for the flow's RP
// carries: Feedback's path once the report is decoded. It returns an
// error, changing nothing: a *cc.TimeOrderError for a report before the
// previous event, a *cc.EventError for a message that is not a report or
// comes from another CP than the first report did.
func (h *RoCCHost) onReport(now units.Time, fb wire.RoCCFeedback) (uint32, error) {
	const ev = "Feedback"
	if err := h.clock.Check(roccHostPart, ev, now); err != nil {
		return 0, err
	}
	if r := h.checkReport(fb); r != "" {
		return 0, &cc.EventError{Part: roccHostPart, Event: ev, Reason: r}
	}
	return h.report(now, fb), nil
}

// Feedback takes the CP's report in f (see "The contract" on RoCCHost) and
// appends the rate message for the flow's RP. Errors, changing nothing: a
// *cc.TimeOrderError; a *cc.EventError for a nil f, malformed Data of a
// cc.FeedbackRate message (wrapping the
// *cc.DecodeError with its byte offset), a message that is not a report,
// names another flow than f.Flow or comes from another CP; a
// *cc.ActionsFullError when act has no room for the rate message.
func (h *RoCCHost) Feedback(now units.Time, f *cc.Feedback, act *cc.Actions) error {
	const ev = "Feedback"
	if err := h.clock.Check(roccHostPart, ev, now); err != nil {
		return err
	}
	bad := func(reason string, cause error) error {
		return &cc.EventError{Part: roccHostPart, Event: ev, Reason: reason, Err: cause}
	}
	if f == nil {
		return bad("nil feedback", nil)
	}
	if act == nil {
		return cc.NoActions(roccHostPart, ev) // a report decides a rate message
	}
	if f.Kind != cc.FeedbackRate {
		// A kind the host computation does not use (rule 8).
		h.notUsed(now)
		return nil
	}
	fb, err := wire.DecodeRoCCFeedback(f.Data[:])
	if err != nil {
		return bad("malformed report", err)
	}
	if fb.Flow != uint32(f.Flow) {
		return bad("report for flow "+strconv.FormatUint(uint64(fb.Flow), 10)+" delivered as flow "+strconv.FormatUint(uint64(f.Flow), 10), nil)
	}
	if fb.Type != wire.RoCCReportFeedback {
		// A rate message (type 1) is for the flow's RP, not for the host
		// computation.
		h.notUsed(now)
		return nil
	}
	if r := h.checkReport(fb); r != "" {
		return bad(r, nil)
	}
	if err := act.Reserve(roccHostPart, ev, 1); err != nil {
		return err
	}
	rate := h.report(now, fb)
	out := cc.Feedback{Kind: cc.FeedbackRate, Flow: f.Flow, From: fb.CP()}
	msg := fb
	msg.Type = wire.RoCCRateFeedback
	msg.Rate = uint16(rate) // Fmin ≥ 1 ≤ rate ≤ Fmax ≤ 65535 ΔF: a valid rate message
	msg.Put(&out.Data)
	act.Send(cc.ToSource, cc.ControlPrio, out)
	return nil
}

// notUsed takes a message the host computation does not use at now: it is
// counted (rule 8 of package cc) and nothing else changes but the time.
func (h *RoCCHost) notUsed(now units.Time) {
	h.clock.Advance(now)
	h.unused.Count()
}

// Sent only records now: the host computes on reports alone.
func (h *RoCCHost) Sent(now units.Time, _ *cc.Packet, _ *cc.Actions) error {
	return h.clock.Accept(roccHostPart, "Sent", now)
}

// Limits is cc.NoRate and cc.NoWindow: the flow's rp.RoCC limits it.
func (h *RoCCHost) Limits() cc.Limits { return cc.Limits{Rate: cc.NoRate, Window: cc.NoWindow} }

// NextDeadline is units.MaxTime: the host has no timer.
func (h *RoCCHost) NextDeadline() units.Time { return units.MaxTime }

// Timer only records now.
func (h *RoCCHost) Timer(now units.Time, _ *cc.Actions) error {
	return h.clock.Accept(roccHostPart, "Timer", now)
}

// AppendRegisters appends the host's registers to dst, in this order: now;
// f (RateBits + RateFracBits wide) and qold (QueueBits), its copy of the
// CP's registers; cp (48 bits, the CP it follows), seq (8, the counter of
// the last report), primed (1, a report has arrived), the 64-bit gaps
// counter and unused_feedback (cc.UnusedRegister).
func (h *RoCCHost) AppendRegisters(dst []cc.Register) []cc.Register {
	return append(dst,
		h.clock.Register(),
		cc.Reg("f", h.fw, uint64(h.regs.F)),
		cc.Reg("qold", h.qw, uint64(h.regs.QOld)),
		cc.Reg("cp", wire.RoCCCPBits, h.cp),
		cc.Reg("seq", 8, uint64(h.seq)),
		cc.BoolReg("primed", h.primed),
		cc.Reg("gaps", 64, h.gaps),
		h.unused.Register(),
	)
}
