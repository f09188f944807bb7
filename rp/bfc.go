package rp

import (
	"math"
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// BFCMaxWindow bounds BFCConfig.Window: 2^32 − 1 bytes, a 32-bit register.
const BFCMaxWindow units.Bytes = math.MaxUint32

// BFCConfig configures the sender side of BFC (BFC): one flow.
type BFCConfig struct {
	// Window is the most payload bytes the flow has unacknowledged,
	// 0..BFCMaxWindow (0: none). BFC's senders send at line rate; hwcc's
	// preset caps each flow at one bandwidth-delay product of its path
	// (docs/derivations.md, "BFC").
	Window units.Bytes
}

// BFCPaper returns the sender at line rate whose window is line·baseRTT,
// one bandwidth-delay product of the flow's path (0 when either is
// unknown: no window).
func BFCPaper(line units.Rate, baseRTT units.Time) BFCConfig {
	return BFCConfig{Window: min(units.BytesIn(line, baseRTT), BFCMaxWindow)}
}

const bfcPart = "rp.BFC"

// Validate refuses a window outside 0..BFCMaxWindow with a
// *cc.ConfigError.
func (c BFCConfig) Validate() error {
	if c.Window < 0 || c.Window > BFCMaxWindow {
		return &cc.ConfigError{Part: bfcPart, Field: "Window", Value: c.Window.String(), Range: "0B.." + BFCMaxWindow.String()}
	}
	return nil
}

// BFC is the sender of one flow under Backpressure Flow Control ([BFC]):
// no congestion control of its own, the flow sends at line rate (within
// its window), and stops while the first-hop switch has it paused
// (cp.BFC): a wire.BFCPause addressed to the sender (Port
// wire.BFCHostPort) stops the flow until the resume, or until its lease
// ends. Paused, Limits is {Credited: true, Credit: 0}, which lets nothing
// start (the trick rp.BECN's pause uses: cc.Limits has no zero rate).
//
// Events: Feedback of kind wire.FeedbackBFCPause pauses or resumes (a
// pause while paused moves the end; a malformed one, or one addressed to
// a switch's queue, is refused); every other kind is counted in
// unused_feedback (cc's rule 8). Every event first ends a pause whose
// lease ran out by its now (cc's rule 4). No event decides anything; each
// takes a nil act.
//
// Registers (AppendRegisters): now, paused (1), pause_end (64, ps;
// MaxTime: until resumed), pauses, resumes, expiries, unused_feedback
// (64 each). Not safe for concurrent use.
type BFC struct {
	cfg    BFCConfig
	clock  cc.Monotonic
	paused bool
	end    units.Time
	// Counters (64 bits, wrapping).
	pauses, resumes, expiries uint64
	unused                    cc.Unused
}

var _ cc.ReactionPoint = (*BFC)(nil)

// NewBFC validates cfg and returns a flow that is not paused.
func NewBFC(cfg BFCConfig) (*BFC, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &BFC{cfg: cfg}, nil
}

// Config returns the configuration.
func (r *BFC) Config() BFCConfig { return r.cfg }

// Paused reports whether the flow is paused, and until when (MaxTime:
// until resumed).
func (r *BFC) Paused() (bool, units.Time) { return r.paused, r.end }

// Limits is no rate (line rate), the window, and no credit while paused.
func (r *BFC) Limits() cc.Limits {
	return cc.Limits{Window: r.cfg.Window, Credited: r.paused}
}

// NextDeadline is the end of a pause's lease, MaxTime when none runs.
func (r *BFC) NextDeadline() units.Time {
	if r.paused {
		return r.end
	}
	return units.MaxTime
}

// catchUp ends a pause whose lease ran out by now.
func (r *BFC) catchUp(now units.Time) {
	if r.paused && r.end <= now && r.end != units.MaxTime {
		r.paused, r.end = false, 0
		r.expiries++
	}
}

// Timer ends a pause whose lease ran out by now.
func (r *BFC) Timer(now units.Time, _ *cc.Actions) error {
	if err := r.clock.Accept(bfcPart, "Timer", now); err != nil {
		return err
	}
	r.catchUp(now)
	return nil
}

// Sent records the time (the sender counts nothing); a nil packet or a
// negative size or payload is refused.
func (r *BFC) Sent(now units.Time, p *cc.Packet, _ *cc.Actions) error {
	if !r.clock.InOrder(now) || cc.BadPacket(p) {
		if err := r.clock.Check(bfcPart, "Sent", now); err != nil {
			return err
		}
		return cc.PacketError(bfcPart, "Sent", p)
	}
	r.clock.Advance(now)
	r.catchUp(now)
	return nil
}

// Feedback takes the first-hop switch's pause or resume (see BFC).
func (r *BFC) Feedback(now units.Time, f *cc.Feedback, _ *cc.Actions) error {
	if err := r.clock.Check(bfcPart, "Feedback", now); err != nil {
		return err
	}
	if f == nil {
		return &cc.EventError{Part: bfcPart, Event: "Feedback", Reason: "nil feedback"}
	}
	if f.Kind != wire.FeedbackBFCPause {
		r.clock.Advance(now)
		r.catchUp(now)
		r.unused.Count()
		return nil
	}
	m, err := wire.DecodeBFCPause(&f.Data)
	if err != nil {
		return err
	}
	if m.Port != wire.BFCHostPort {
		return &cc.EventError{Part: bfcPart, Event: "Feedback", Reason: "a pause of a switch's queue (port " + strconv.Itoa(int(m.Port)) + "), not of a sender's flow"}
	}
	r.clock.Advance(now)
	r.catchUp(now)
	switch {
	case m.Resume():
		if r.paused {
			r.paused, r.end = false, 0
			r.resumes++
		}
	default:
		if !r.paused {
			r.pauses++
		}
		r.paused, r.end = true, units.MaxTime
		if !m.Forever {
			r.end = fixedpoint.SatAdd(now, m.Lease)
		}
	}
	return nil
}

// AppendRegisters appends now, paused, pause_end, pauses, resumes,
// expiries and unused_feedback, in that order.
func (r *BFC) AppendRegisters(dst []cc.Register) []cc.Register {
	return append(dst, r.clock.Register(), cc.BoolReg("paused", r.paused), cc.TimeReg("pause_end", r.end),
		cc.Reg("pauses", 64, r.pauses), cc.Reg("resumes", 64, r.resumes), cc.Reg("expiries", 64, r.expiries),
		r.unused.Register())
}
