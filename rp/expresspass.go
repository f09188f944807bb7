package rp

import (
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// ExpressPass's sender: the bounds of ExpressPassConfig's fields, which
// Validate checks and package algos's registration reads (SeqBits also
// takes wire.ExpressPassMinSeqBits..wire.ExpressPassMaxSeqBits).
const (
	// ExpressPassMaxDepth is the most credits a sender's FIFO holds.
	ExpressPassMaxDepth = 16
	// ExpressPassMaxTimeout is the longest request or stop timeout.
	ExpressPassMaxTimeout = units.Second
	// ExpressPassMinFrameBytes and ExpressPassMaxFrameBytes bound the wire
	// bytes one credit pays for: a minimum Ethernet frame to 64 KiB.
	ExpressPassMinFrameBytes units.Bytes = 64
	ExpressPassMaxFrameBytes units.Bytes = 64 * units.KiB
)

// expressPassEventError is a refused event (errors.Is(err, cc.ErrEvent)),
// with its cause (a *cc.DecodeError, say) if any. Errors are built out of
// line so that the event paths hold no allocation site.
//
//go:noinline
func expressPassEventError(event, reason string, err error) error {
	return &cc.EventError{Part: expressPassPart, Event: event, Reason: reason, Err: err}
}

// expressPassPart names the ExpressPass sender in errors.
const expressPassPart = "rp.ExpressPass"

// ExpressPassConfig configures an ExpressPass sender.
type ExpressPassConfig struct {
	// FrameBytes is the wire size one credit pays for (1538 B, the
	// largest data frame): Limits().Credit is the credits held times it,
	// and a frame larger is refused. Range
	// ExpressPassMinFrameBytes..ExpressPassMaxFrameBytes. A harness whose
	// frames are smaller may lower it to its largest frame, so that
	// Limits().Credit counts what it can actually send.
	FrameBytes units.Bytes
	// Depth is how many credits the sender holds (8, hwcc's choice: the
	// paper's sender sends a frame per credit at once and holds none; a
	// NIC holds the few that arrive while a frame is on the wire). A
	// credit beyond it is wasted. Range 1..ExpressPassMaxDepth.
	Depth int
	// RequestTimeout resends the credit request while no credit has come
	// (100 µs, ns-2 retransmit_timeout_); 0 never resends. Range
	// 0..ExpressPassMaxTimeout.
	RequestTimeout units.Time
	// StopTimeout: a credit that arrives at least StopTimeout after the
	// latest credit stop resends the stop (hwcc's event-driven form of
	// ns-2's CLOSE_WAIT timer, which resends it when credits still come
	// 2·RTT after it; default 100 µs); 0 never resends. Range
	// 0..ExpressPassMaxTimeout.
	StopTimeout units.Time
	// Size is the flow's length in payload bytes (cc.Env.Size): the frame
	// that covers byte Size − 1 sends the credit stop. 0: a long-lived
	// flow that never stops. Range ≥ 0.
	Size units.Bytes
	// Flow names the flow in the requests and stops until a Sent or a
	// credit names it (cc.Env.Index − 1 in package algos).
	Flow cc.FlowID
	// Start is when the flow starts (cc.Env.Start in package algos): the
	// first credit request is due then. Range ≥ 0.
	Start units.Time
	// SeqBits is the credits' sequence width, as the receiver's (32);
	// a credit with Seq 0 or beyond 2^SeqBits − 1 is refused. Range
	// wire.ExpressPassMinSeqBits..wire.ExpressPassMaxSeqBits.
	SeqBits uint8
}

// ExpressPassPaper returns the paper's sender for a long-lived flow:
// 1538 B per credit, a FIFO of 8 credits, request and stop resent after
// 100 µs, 32-bit credit sequence numbers.
func ExpressPassPaper() ExpressPassConfig {
	return ExpressPassConfig{
		FrameBytes:     wire.ExpressPassFrameBytes,
		Depth:          8,
		RequestTimeout: 100 * units.Microsecond,
		StopTimeout:    100 * units.Microsecond,
		SeqBits:        32,
	}
}

// Validate checks every field and returns a *cc.ConfigError naming the
// first one out of range.
func (c ExpressPassConfig) Validate() error {
	bad := func(field, value, want string) error {
		return &cc.ConfigError{Part: expressPassPart, Field: field, Value: value, Range: want}
	}
	switch {
	case c.FrameBytes < ExpressPassMinFrameBytes || c.FrameBytes > ExpressPassMaxFrameBytes:
		return bad("FrameBytes", c.FrameBytes.String(), ExpressPassMinFrameBytes.String()+".."+ExpressPassMaxFrameBytes.String())
	case c.Depth < 1 || c.Depth > ExpressPassMaxDepth:
		return bad("Depth", strconv.Itoa(c.Depth), "1.."+strconv.Itoa(ExpressPassMaxDepth))
	case c.RequestTimeout < 0 || c.RequestTimeout > ExpressPassMaxTimeout:
		return bad("RequestTimeout", c.RequestTimeout.String(), "0.."+ExpressPassMaxTimeout.String())
	case c.StopTimeout < 0 || c.StopTimeout > ExpressPassMaxTimeout:
		return bad("StopTimeout", c.StopTimeout.String(), "0.."+ExpressPassMaxTimeout.String())
	case c.Size < 0:
		return bad("Size", c.Size.String(), "≥ 0B")
	case c.Start < 0:
		return bad("Start", c.Start.String(), "≥ 0s")
	case c.SeqBits < wire.ExpressPassMinSeqBits || c.SeqBits > wire.ExpressPassMaxSeqBits:
		return bad("SeqBits", strconv.Itoa(int(c.SeqBits)), strconv.Itoa(wire.ExpressPassMinSeqBits)+".."+strconv.Itoa(wire.ExpressPassMaxSeqBits))
	}
	return nil
}

// ExpressPassPhase is where a sender is in its exchange with the receiver.
type ExpressPassPhase uint8

// Sender phases.
const (
	// ExpressPassStart: nothing asked yet; the timer (deadline: the
	// flow's start) sends the request.
	ExpressPassStart ExpressPassPhase = iota
	// ExpressPassRequested: the request is out and no credit has come.
	ExpressPassRequested
	// ExpressPassCredited: credits are coming.
	ExpressPassCredited
	// ExpressPassStopped: the credit stop is out (the last byte was sent).
	ExpressPassStopped
)

// ExpressPassState is every register of an rp.ExpressPass but the time,
// in the units of its snapshot (AppendRegisters).
type ExpressPassState struct {
	Phase ExpressPassPhase
	// Deadline is when the timer sends the request (phase Start: the
	// flow's start, ExpressPassConfig.Start; Requested: the latest request
	// + RequestTimeout; else none), ps.
	Deadline units.Time
	// Flow is the flow the requests and stops name.
	Flow cc.FlowID
	// FIFO holds the credits' sequence numbers, oldest at Head (Len of
	// them, ring of ExpressPassMaxDepth slots).
	FIFO      [ExpressPassMaxDepth]uint32
	Head, Len uint8
	// LastStop is the time of the latest credit stop, ps.
	LastStop units.Time
	// Credits counts credits taken into the FIFO, Wasted those that found
	// it full, Late those that came after the stop (also wasted), Frames
	// the frames sent, Requests and Stops the messages sent. 64-bit,
	// wrapping.
	Credits, Wasted, Late, Frames, Requests, Stops uint64
}

// ExpressPass is ExpressPass's sender ([ExpressPass] §3; constants as in
// [ExpressPass-ns2]): a cc.ReactionPoint at the flow's source that gates
// the flow on credit, registered as algorithm "expresspass" part "rp"
// (package algos). np.ExpressPass is the receiver that paces its credits;
// package wire holds the control packet and the echo.
//
// Its first deadline is Start (0 unless the caller builds it when its flow
// starts, cc.Env.Start): the caller's first event at or after it sends a
// cc.FeedbackCreditRequest to cc.ToDestination (cc.ControlPrio), and the
// timer resends it every RequestTimeout until a credit comes (ns-2's
// handle_sender_retransmit). As every part's, its timer is caught up by
// any event (the contract's rule 4): the requests due by then go first,
// each stamped with its own deadline, so that the decisions are the same
// whether the caller calls Timer at every deadline or not. Each cc.FeedbackCredit (Feedback) joins a FIFO of
// Depth credits, or is wasted when it is full; Limits() is {Credited: true,
// Credit: credits held × FrameBytes}, so the caller starts a frame only
// when one credit covers it. Sent spends the oldest credit and writes its
// sequence number into p.Hdr (wire.PutExpressPassEcho), for the receiver to
// find gaps in; a Sent with no credit held, or of a frame larger than
// FrameBytes, is refused with a *cc.EventError and changes nothing (p.Hdr
// included).
//
// When Size > 0, the Sent whose frame covers the last byte (p.Seq +
// p.Payload ≥ Size) also sends a cc.FeedbackCreditStop to cc.ToDestination
// (one action: an Actions without room fails that Sent). Credits still
// coming after it count as Late; one coming StopTimeout or more after the
// latest stop resends the stop. A cc.FeedbackNak after the stop means data
// must be resent: the sender requests credits again (ns-2's recv_nack).
// ACKs, CNPs and every other kind are not used: they are counted in
// cc.UnusedRegister and change nothing else but the time (rule 8).
// Credits of any Seq order are taken (the receiver judges order); a credit
// with Seq 0 or beyond the sequence space is a *cc.EventError. Every event
// refuses a nil *cc.Actions (rule 3): the catch-up can always decide.
//
// Wire images. The request and the stop carry their wire.ExpressPassPacket in
// Data (type, Flow, sequence number 0, TS the time sent). A credit whose
// Data is all zero carries no image and is taken on its Seq alone; one
// whose Data is not all zero must hold a credit that decodes
// (wire.DecodeExpressPassPacket) and whose sequence number and flow are Seq
// and Flow, else the credit is refused with a *cc.EventError (wrapping the
// *cc.DecodeError, if any) and changes nothing. The image's time is not
// checked (it is the receiver's clock).
//
// It is not safe for concurrent use. Build one with NewExpressPass.
type ExpressPass struct {
	cfg    ExpressPassConfig
	s      ExpressPassState
	clock  cc.Monotonic
	unused cc.Unused
	seqMax uint64
}

var _ cc.ReactionPoint = (*ExpressPass)(nil)

// NewExpressPass validates cfg and returns a sender at the start of
// its flow.
func NewExpressPass(cfg ExpressPassConfig) (*ExpressPass, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &ExpressPass{cfg: cfg, s: ExpressPassState{Flow: cfg.Flow, Deadline: cfg.Start}, seqMax: wire.ExpressPassMaxSeq(cfg.SeqBits)}, nil
}

// Config returns the configuration the sender was built with.
func (x *ExpressPass) Config() ExpressPassConfig { return x.cfg }

// State returns every register but the time.
func (x *ExpressPass) State() ExpressPassState { return x.s }

// Last returns the time of the latest event accepted: the register now,
// ps.
func (x *ExpressPass) Last() units.Time { return x.clock.Last() }

// Held returns the number of credits held: the register len, in credits.
func (x *ExpressPass) Held() int { return int(x.s.Len) }

// Limits implements cc.ReactionPoint: no pacing rate and no window, gated
// on credit: Credit = credits held × FrameBytes.
func (x *ExpressPass) Limits() cc.Limits {
	return cc.Limits{Credited: true, Credit: units.Bytes(x.s.Len) * x.cfg.FrameBytes}
}

// NextDeadline implements cc.Clock.
func (x *ExpressPass) NextDeadline() units.Time {
	switch x.s.Phase {
	case ExpressPassStart, ExpressPassRequested:
		return x.s.Deadline
	}
	return units.MaxTime
}

// request records a credit request sent at now.
func (x *ExpressPass) request(now units.Time) {
	x.s.Phase = ExpressPassRequested
	x.s.Deadline = units.MaxTime
	if x.cfg.RequestTimeout > 0 {
		x.s.Deadline = fixedpoint.SatAdd(now, x.cfg.RequestTimeout)
	}
	x.s.Requests++
}

// message returns the request or stop (t) sent at now, with its wire
// image (wire.ExpressPassPacket) in Data.
func (x *ExpressPass) message(now units.Time, t wire.ExpressPassType) cc.Feedback {
	// Valid: a request or a stop, numbered 0.
	f, _ := wire.ExpressPassPacket{Type: t, Flow: x.s.Flow, TS: wire.ExpressPassTS(now)}.Feedback()
	return f
}

// expressPassNoImage is a Data that carries no wire image.
var expressPassNoImage [cc.FeedbackDataLen]byte

// expressPassCheckImage checks the wire image in a credit's Data, when it carries
// one, against the credit: it must decode, be a credit, and carry f.Seq.
func expressPassCheckImage(f *cc.Feedback) error {
	if f.Data == expressPassNoImage {
		return nil
	}
	p, err := wire.DecodeExpressPassPacket(f.Data[:])
	switch {
	case err != nil:
		return expressPassImageError("credit's Data does not decode", err)
	case p.Type != wire.ExpressPassTypeCredit:
		return expressPassImageError("credit's Data is a "+p.Type.String(), nil)
	case uint64(p.Seq) != f.Seq:
		return expressPassImageError("credit's Data carries sequence number "+strconv.FormatUint(uint64(p.Seq), 10)+
			", its Seq is "+strconv.FormatUint(f.Seq, 10), nil)
	case p.Flow != f.Flow:
		return expressPassImageError("credit's Data names flow "+strconv.FormatUint(uint64(p.Flow), 10)+
			", its Flow is "+strconv.FormatUint(uint64(f.Flow), 10), nil)
	}
	return nil
}

func expressPassImageError(reason string, err error) error {
	return expressPassEventError("Feedback", reason, err)
}

// expressPassMaxCatchUp bounds the room an event asks for its overdue
// requests: a caller so late that more are due (with a RequestTimeout of a
// few picoseconds) gets an *cc.ActionsFullError no Actions can satisfy,
// rather than a count that overflows.
const expressPassMaxCatchUp = 1 << 20

// due returns how many request expiries are due at or before now: the
// first request (deadline 0) and every resend RequestTimeout after the
// last, while no credit has come.
func (x *ExpressPass) due(now units.Time) int {
	d := x.NextDeadline()
	if d > now {
		return 0
	}
	if x.cfg.RequestTimeout == 0 {
		return 1 // the first request; no resend
	}
	return int(min(uint64(now-d)/uint64(x.cfg.RequestTimeout)+1, expressPassMaxCatchUp))
}

// overdue returns how many requests are due by now: 0 unless one is
// overdue (the common case, checked inline).
func (x *ExpressPass) overdue(now units.Time) int {
	if x.s.Phase > ExpressPassRequested || x.s.Deadline > now {
		return 0
	}
	return x.due(now)
}

// reserve makes room for the k requests due and own more actions.
func (x *ExpressPass) reserve(event string, k, own int, act *cc.Actions) error {
	if k+own == 0 {
		return nil
	}
	return act.Reserve(expressPassPart, event, k+own)
}

// catchUp sends the k overdue requests, each as at its own deadline (its
// wire image stamped with that time), and moves the deadline past them.
func (x *ExpressPass) catchUp(k int, act *cc.Actions) {
	for range k {
		d := x.s.Deadline
		x.request(d)
		act.Send(cc.ToDestination, cc.ControlPrio, x.message(d, wire.ExpressPassTypeRequest))
	}
}

// Timer implements cc.Clock: each request due at or before now is sent,
// as at its own deadline (one action each); before the deadline it only
// records now.
func (x *ExpressPass) Timer(now units.Time, act *cc.Actions) error {
	if !x.clock.InOrder(now) {
		return x.clock.Check(expressPassPart, "Timer", now)
	}
	if act == nil { // the timer can always decide (rule 3)
		return cc.NoActions(expressPassPart, "Timer")
	}
	k := x.overdue(now)
	if err := x.reserve("Timer", k, 0, act); err != nil {
		return err
	}
	if k > 0 {
		x.catchUp(k, act)
	}
	x.clock.Advance(now)
	return nil
}

// Feedback implements cc.ReactionPoint (see the type's doc): the requests
// due by now first, then the message. A nil f is a *cc.EventError; a
// kind other than a credit or a NAK is counted in UnusedRegister.
func (x *ExpressPass) Feedback(now units.Time, f *cc.Feedback, act *cc.Actions) error {
	if !x.clock.InOrder(now) {
		return x.clock.Check(expressPassPart, "Feedback", now)
	}
	if act == nil { // the timer can always decide (rule 3)
		return cc.NoActions(expressPassPart, "Feedback")
	}
	if f == nil {
		return expressPassEventError("Feedback", "nil feedback", nil)
	}
	k := x.overdue(now)
	switch f.Kind {
	case cc.FeedbackCredit:
		if f.Seq == 0 || f.Seq > x.seqMax {
			return expressPassEventError("Feedback", "credit sequence number 0 or beyond the sequence space", nil)
		}
		if err := expressPassCheckImage(f); err != nil {
			return err
		}
		// A credit after the stop, StopTimeout or more after it, resends
		// the stop. (The requests due cannot change the phase from
		// Stopped, nor to it.)
		resend := x.s.Phase == ExpressPassStopped && x.cfg.StopTimeout > 0 && now-x.s.LastStop >= x.cfg.StopTimeout
		own := 0
		if resend {
			own = 1
		}
		if err := x.reserve("Feedback", k, own, act); err != nil {
			return err
		}
		if k > 0 {
			x.catchUp(k, act)
		}
		x.clock.Advance(now)
		x.s.Flow = f.Flow
		switch x.s.Phase {
		case ExpressPassStart, ExpressPassRequested:
			x.s.Phase = ExpressPassCredited
		case ExpressPassStopped:
			x.s.Late++
			if resend {
				x.s.LastStop = now
				x.s.Stops++
				act.Send(cc.ToDestination, cc.ControlPrio, x.message(now, wire.ExpressPassTypeStop))
			}
			return nil
		}
		if int(x.s.Len) == x.cfg.Depth {
			x.s.Wasted++
			return nil
		}
		x.s.FIFO[(int(x.s.Head)+int(x.s.Len))%ExpressPassMaxDepth] = uint32(f.Seq)
		x.s.Len++
		x.s.Credits++
		return nil
	case cc.FeedbackNak:
		again := x.s.Phase == ExpressPassStopped // data to resend after the stop: credits again
		own := 0
		if again {
			own = 1
		}
		if err := x.reserve("Feedback", k, own, act); err != nil {
			return err
		}
		if k > 0 {
			x.catchUp(k, act)
		}
		x.clock.Advance(now)
		if again {
			x.request(now)
			act.Send(cc.ToDestination, cc.ControlPrio, x.message(now, wire.ExpressPassTypeRequest))
		}
		return nil
	}
	if err := x.reserve("Feedback", k, 0, act); err != nil {
		return err
	}
	if k > 0 {
		x.catchUp(k, act)
	}
	x.clock.Advance(now)
	x.unused.Count() // a kind the sender does not use (rule 8)
	return nil
}

// Sent implements cc.ReactionPoint: the requests due by now first, then it
// spends the oldest credit on the frame p and writes the credit's sequence
// number into p.Hdr, all 16 bytes (wire.PutExpressPassEcho; see the type's
// doc).
func (x *ExpressPass) Sent(now units.Time, p *cc.Packet, act *cc.Actions) error {
	if !x.clock.InOrder(now) {
		return x.clock.Check(expressPassPart, "Sent", now)
	}
	if act == nil { // the timer can always decide (rule 3)
		return cc.NoActions(expressPassPart, "Sent")
	}
	k := x.overdue(now)
	switch {
	case p == nil:
		return expressPassEventError("Sent", "nil packet", nil)
	case p.Size < 0 || p.Payload < 0:
		return expressPassEventError("Sent", "negative size or payload", nil)
	case p.Size > x.cfg.FrameBytes:
		return expressPassEventError("Sent", "frame larger than one credit pays for", nil)
	case x.s.Len == 0:
		return expressPassEventError("Sent", "no credit held", nil)
	}
	// The frame covers the last byte: p.Seq + p.Payload ≥ Size, written
	// without overflow (Payload ≥ 0).
	last := x.cfg.Size > 0 && x.s.Phase != ExpressPassStopped &&
		(uint64(p.Payload) >= uint64(x.cfg.Size) || p.Seq >= uint64(x.cfg.Size)-uint64(p.Payload))
	own := 0
	if last {
		own = 1
	}
	if err := x.reserve("Sent", k, own, act); err != nil {
		return err
	}
	if k > 0 {
		x.catchUp(k, act)
	}
	x.clock.Advance(now)
	x.s.Flow = p.Flow
	wire.PutExpressPassEcho(&p.Hdr, uint64(x.s.FIFO[x.s.Head]))
	x.s.FIFO[x.s.Head] = 0
	x.s.Head = uint8((int(x.s.Head) + 1) % ExpressPassMaxDepth)
	x.s.Len--
	x.s.Frames++
	if last {
		x.s.Phase = ExpressPassStopped
		x.s.LastStop = now
		x.s.Stops++
		act.Send(cc.ToDestination, cc.ControlPrio, x.message(now, wire.ExpressPassTypeStop))
	}
	return nil
}

// expressPassFIFONames are the FIFO's register names, by position from the head.
var expressPassFIFONames = [ExpressPassMaxDepth]string{
	"fifo0", "fifo1", "fifo2", "fifo3", "fifo4", "fifo5", "fifo6", "fifo7",
	"fifo8", "fifo9", "fifo10", "fifo11", "fifo12", "fifo13", "fifo14", "fifo15",
}

// AppendRegisters implements cc.Part: now, phase[2], deadline (64-bit
// ps), flow[32], len[5], fifo0..fifo15[SeqBits] (the held credits from
// the oldest, 0 beyond Len), last_stop, then the 64-bit counters credits,
// wasted, late, frames, requests, stops and unused_feedback
// (cc.UnusedRegister).
func (x *ExpressPass) AppendRegisters(dst []cc.Register) []cc.Register {
	s := &x.s
	dst = append(dst,
		x.clock.Register(),
		cc.Reg("phase", 2, uint64(s.Phase)),
		cc.TimeReg("deadline", s.Deadline),
		cc.Reg("flow", 32, uint64(s.Flow)),
		cc.Reg("len", 5, uint64(s.Len)),
	)
	for i := range ExpressPassMaxDepth {
		var v uint64
		if i < int(s.Len) {
			v = uint64(s.FIFO[(int(s.Head)+i)%ExpressPassMaxDepth])
		}
		dst = append(dst, cc.Reg(expressPassFIFONames[i], x.cfg.SeqBits, v))
	}
	return append(dst,
		cc.TimeReg("last_stop", s.LastStop),
		cc.Reg("credits", 64, s.Credits),
		cc.Reg("wasted", 64, s.Wasted),
		cc.Reg("late", 64, s.Late),
		cc.Reg("frames", 64, s.Frames),
		cc.Reg("requests", 64, s.Requests),
		cc.Reg("stops", 64, s.Stops),
		x.unused.Register(),
	)
}
