package rp

import (
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// HierCC's host: its paper constant and the bounds of HierCCConfig's
// fields, which Validate checks and package algos's registration reads
// (LineRate also takes wire.HierCCRateUnit..wire.HierCCMaxRate, the rate
// packet's range).
const (
	// HierCCPaperMarkInterval is how often a host marks a packet ([HierCC]
	// §4: "A sender marks one reserved bit in the data packet header every
	// 10us").
	HierCCPaperMarkInterval = 10 * units.Microsecond
	// HierCCMinMarkInterval and HierCCMaxMarkInterval bound MarkInterval.
	HierCCMinMarkInterval = units.Nanosecond
	HierCCMaxMarkInterval = units.Second
	// HierCCMaxSize is the longest flow a host flags the last packet of:
	// 2^62 payload bytes.
	HierCCMaxSize units.Bytes = 1 << 62
)

// HierCCConfig configures a HierCC host: the reaction point of one flow.
type HierCCConfig struct {
	// LineRate is the NIC's line rate: the flow's initial rate and the
	// ceiling of any rate it is given;
	// wire.HierCCRateUnit..wire.HierCCMaxRate.
	LineRate units.Rate
	// MarkInterval is the least time between two marked packets (section
	// 4: 10 µs), HierCCMinMarkInterval..HierCCMaxMarkInterval.
	MarkInterval units.Time
	// Size is the flow's length in payload bytes, 0..HierCCMaxSize (0:
	// open-ended, no packet is ever its last): the packet that reaches it
	// carries wire.HierCCFlagLast. cc.Env.Size gives it.
	Size units.Bytes
}

// HierCCPaper returns the paper's host on a link of rate line: marks every
// 10 µs, starts at line rate.
func HierCCPaper(line units.Rate) HierCCConfig {
	return HierCCConfig{LineRate: line, MarkInterval: HierCCPaperMarkInterval}
}

const hierccPart = "rp.HierCC"

// hierccBad is a configuration error of an rp.HierCC field.
func hierccBad(field, value, want string) error {
	return &cc.ConfigError{Part: hierccPart, Field: field, Value: value, Range: want}
}

// Validate reports the first field out of range as a *cc.ConfigError.
func (c HierCCConfig) Validate() error {
	switch {
	case c.LineRate < wire.HierCCRateUnit || c.LineRate > wire.HierCCMaxRate:
		return hierccBad("LineRate", c.LineRate.String(), wire.HierCCRateUnit.String()+".."+wire.HierCCMaxRate.String())
	case c.MarkInterval < HierCCMinMarkInterval || c.MarkInterval > HierCCMaxMarkInterval:
		return hierccBad("MarkInterval", c.MarkInterval.String(), HierCCMinMarkInterval.String()+".."+HierCCMaxMarkInterval.String())
	case c.Size < 0 || c.Size > HierCCMaxSize:
		return hierccBad("Size", c.Size.String(), "0B.."+HierCCMaxSize.String())
	}
	return nil
}

// HierCCState is every register of an rp.HierCC but the time, in the
// units of its snapshot (AppendRegisters).
type HierCCState struct {
	// Rate is the rate the ToR last gave, kb/s (wire.HierCCRateUnit, 32
	// bits), at most the line rate; the line rate until the first rate
	// packet. A stop leaves it: it is the rate to pace at once resumed.
	Rate uint32
	// Stopped: the last rate packet was a stop.
	Stopped bool
	// Marked: the flow has marked a packet; LastMark is when (ps).
	Marked   bool
	LastMark units.Time
	// Began and Ended: the flow has sent the packet it flags
	// wire.HierCCFlagFirst, and the one it flags wire.HierCCFlagLast.
	Began, Ended bool
	// Marks, Rates and Stops count marked packets and the rate and stop
	// packets taken (64 bits, wrapping).
	Marks, Rates, Stops uint64
}

// HierCC is the sender side of HierCC for one flow ([HierCC] §4,
// "Sender-side implementation": "A sender marks one reserved bit in the
// data packet header every 10us ... the sender NIC ... only needs to
// adjust its sending rate accordingly after receiving the rate allocation
// packet"). It implements cc.ReactionPoint and is registered as algorithm
// "hiercc" part "rp" (package algos); cp.HierCC is the ToR it talks to.
//
//   - Sent writes the host's header into p.Hdr, all 16 bytes
//     (wire.HierCCHostHeader: byte 0 = 0, no ToR's header yet; byte 1 =
//     the flags; the rest 0). It marks the packet (wire.HierCCFlagMark)
//     when MarkInterval has passed since the last mark (the flow's first
//     packet is marked, so that its first rate comes one RTT_hop after it
//     starts). It flags wire.HierCCFlagFirst on the first packet it is
//     given and wire.HierCCFlagLast on the first packet that reaches Size
//     (p.Seq + p.Payload ≥ Size); every other packet (a retransmission
//     included) carries neither. The caller carries Hdr unchanged to the
//     sender-side ToR, which reads the flags where a real ToR reads the
//     transport header's reserved bit and first/last opcodes, and writes
//     its header over them on dequeue.
//   - Feedback takes a wire.FeedbackHierCCRate message whose Data is a
//     wire.HierCCRatePacket for this flow: a rate becomes the pacing rate
//     (Limits().Rate, capped at the line rate), a stop gates the flow
//     (Limits().Credited with Credit 0: cc.Limits has no "rate 0", since
//     Rate 0 means unpaced) until the next rate packet. A message that
//     does not decode, or is for another flow, is refused
//     (*cc.EventError).
//   - Every other kind of message is not used: it is counted in
//     cc.UnusedRegister and changes nothing else (the contract's rule 8).
//   - No timer: NextDeadline is units.MaxTime. No event decides an action,
//     so every event takes a nil *cc.Actions (rule 3).
//
// Choices the paper leaves open: the first packet is marked; "every 10
// µs" is at least 10 µs since the last marked packet (a flow that sends
// less often marks every packet); a stopped flow keeps its last rate to
// pace with once resumed, though the ToR's resume sends one.
type HierCC struct {
	cfg    HierCCConfig
	line   uint32
	clock  cc.Monotonic
	st     HierCCState
	unused cc.Unused
}

var _ cc.ReactionPoint = (*HierCC)(nil)

// NewHierCC validates cfg and returns a flow at line rate that has marked
// nothing.
func NewHierCC(cfg HierCCConfig) (*HierCC, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	line := fixedpoint.SatConv[uint32](cfg.LineRate / wire.HierCCRateUnit)
	return &HierCC{cfg: cfg, line: line, st: HierCCState{Rate: line}}, nil
}

// Config returns the configuration.
func (h *HierCC) Config() HierCCConfig { return h.cfg }

// State returns every register but the time, in the units of the
// snapshot (the rate in kb/s).
func (h *HierCC) State() HierCCState { return h.st }

// Limits is the rate register in bit/s while running; gated on a zero
// credit (at that rate) while stopped.
func (h *HierCC) Limits() cc.Limits {
	if h.st.Stopped {
		return cc.Limits{Rate: units.Rate(h.st.Rate) * wire.HierCCRateUnit, Credited: true, Credit: 0}
	}
	return cc.Limits{Rate: units.Rate(h.st.Rate) * wire.HierCCRateUnit}
}

func (h *HierCC) mark(now units.Time) bool {
	if h.st.Marked && now-h.st.LastMark < h.cfg.MarkInterval {
		return false
	}
	h.st.Marked, h.st.LastMark = true, now
	h.st.Marks++
	return true
}

// Sent writes the host's header into p.Hdr (wire.HierCCHostHeader): the
// mark if MarkInterval has passed since the last one, the first and last
// flags on the flow's first and last packet (see HierCC). A nil packet is
// refused.
func (h *HierCC) Sent(now units.Time, p *cc.Packet, _ *cc.Actions) error {
	if !h.clock.InOrder(now) {
		return h.clock.Check(hierccPart, "Sent", now)
	}
	if p == nil {
		return &cc.EventError{Part: hierccPart, Event: "Sent", Reason: "nil packet"}
	}
	h.clock.Advance(now)
	var f wire.HierCCFlags
	if h.mark(now) {
		f |= wire.HierCCFlagMark
	}
	if !h.st.Began {
		h.st.Began = true
		f |= wire.HierCCFlagFirst
	}
	if !h.st.Ended && h.cfg.Size > 0 && p.Seq+uint64(max(p.Payload, 0)) >= uint64(h.cfg.Size) {
		h.st.Ended = true
		f |= wire.HierCCFlagLast
	}
	p.Hdr = wire.HierCCHostHeader(f)
	return nil
}

func (h *HierCC) apply(r wire.HierCCRatePacket) {
	if r.Stop {
		h.st.Stopped = true
		h.st.Stops++
		return
	}
	h.st.Stopped = false
	h.st.Rate = min(r.Rate, h.line)
	h.st.Rates++
}

// Feedback takes a wire.FeedbackHierCCRate message (see HierCC).
func (h *HierCC) Feedback(now units.Time, f *cc.Feedback, _ *cc.Actions) error {
	if !h.clock.InOrder(now) {
		return h.clock.Check(hierccPart, "Feedback", now)
	}
	if f == nil {
		return &cc.EventError{Part: hierccPart, Event: "Feedback", Reason: "nil feedback"}
	}
	if f.Kind != wire.FeedbackHierCCRate {
		h.clock.Advance(now)
		h.unused.Count()
		return nil
	}
	r, err := wire.DecodeHierCCRatePacket(f.Data[:])
	if err != nil {
		return &cc.EventError{Part: hierccPart, Event: "Feedback", Reason: "malformed rate packet", Err: err}
	}
	if r.Flow != f.Flow {
		return &cc.EventError{Part: hierccPart, Event: "Feedback", Reason: "rate packet for flow " + strconv.FormatUint(uint64(r.Flow), 10) + " delivered as flow " + strconv.FormatUint(uint64(f.Flow), 10)}
	}
	h.clock.Advance(now)
	h.apply(r)
	return nil
}

// NextDeadline is units.MaxTime: the host has no timer.
func (h *HierCC) NextDeadline() units.Time { return units.MaxTime }

// Timer only records now.
func (h *HierCC) Timer(now units.Time, _ *cc.Actions) error {
	return h.clock.Accept(hierccPart, "Timer", now)
}

// AppendRegisters appends, in this order: now (64), rate (32, kb/s),
// stopped (1), marked (1), last_mark (64, ps), began (1), ended (1),
// marks, rates, stops and unused_feedback (64, wrapping).
func (h *HierCC) AppendRegisters(dst []cc.Register) []cc.Register {
	return append(dst,
		h.clock.Register(),
		cc.Reg("rate", 32, uint64(h.st.Rate)),
		cc.BoolReg("stopped", h.st.Stopped),
		cc.BoolReg("marked", h.st.Marked),
		cc.TimeReg("last_mark", h.st.LastMark),
		cc.BoolReg("began", h.st.Began),
		cc.BoolReg("ended", h.st.Ended),
		cc.Reg("marks", 64, h.st.Marks),
		cc.Reg("rates", 64, h.st.Rates),
		cc.Reg("stops", 64, h.st.Stops),
		h.unused.Register(),
	)
}
