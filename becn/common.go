package becn

import (
	"math"
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// FeedbackBECN is the kind of the one-bit congestion notification every
// part of this package speaks: the BECN cell a congested CP sends to a
// flow's source, and the RM cell (InfiniBand: the CNP, or the ACK with
// its BECN bit set) a receiver's NP returns for a FECN-marked packet. The
// message is its kind alone: Flow names the flow it is about, Data is all
// zero and is not read. It is cc.FeedbackUser + 24, in package cc's range
// for schemes that add a kind of their own (hiercc holds + 16 and + 17).
const FeedbackBECN = cc.FeedbackUser + 24

// RateUnit is the least significant bit of the reaction point's rate
// register RC: 1 kb/s. The register is 32 bits wide, so it holds up to
// MaxRate, 4.29 Tb/s.
const RateUnit = units.Kbps

// MaxRate is the largest rate the 32-bit RC register holds: (2^32 − 1)
// kb/s.
const MaxRate = units.Rate(math.MaxUint32) * RateUnit

// MaxThreshold is the largest CP threshold: a 32-bit byte register.
const MaxThreshold units.Bytes = math.MaxUint32

// MaxPeriod is the longest time any field of this package accepts
// (MinInterval, QuietPeriod, PauseTime): 1 s.
const MaxPeriod = units.Second

// MaxTableBits is the largest CPConfig.TableBits: a table of 2^16 flows.
const MaxTableBits = 16

// Mode is which of the two schemes a congestion point runs.
type Mode uint8

// The modes.
const (
	// ModeBECN (the zero value): the congested CP notifies the packet's
	// source itself (survey section 4.1.1).
	ModeBECN Mode = iota
	// ModeFECN: the congested CP marks the packet (the EFCI/FECN bit,
	// cc.ActionMarkCE) and the destination's NP notifies the source
	// (survey section 4.1.2).
	ModeFECN
)

// String returns "becn" or "fecn".
func (m Mode) String() string {
	switch m {
	case ModeBECN:
		return "becn"
	case ModeFECN:
		return "fecn"
	}
	return "mode " + strconv.Itoa(int(m))
}

// Point is where a congestion point judges a packet against its
// threshold: as it joins the queue or as it leaves it.
type Point uint8

// The judging points.
const (
	// AtEnqueue (the zero value, the default): the packet is judged as it
	// joins the queue, against cc.Queue.Len including it. The survey's
	// wording for both schemes ("when the queue ... exceeds a fixed
	// threshold, the switch will directly send BECN cells to the source
	// that contribute to the congestion"; a packet "marked ... when passes
	// a congested queue") names no point; arrival is where a switch sees
	// a packet's contribution first, and it is DCTCP's and hwcc's usual
	// marking point (cp.DCTCPMarkEnqueue).
	AtEnqueue Point = iota
	// AtDequeue: the packet is judged as it leaves, against the queue it
	// leaves behind (cc.Queue.Len on Dequeue).
	AtDequeue
)

// String returns "enqueue" or "dequeue".
func (p Point) String() string {
	switch p {
	case AtEnqueue:
		return "enqueue"
	case AtDequeue:
		return "dequeue"
	}
	return "point " + strconv.Itoa(int(p))
}

// cfgErr is the *cc.ConfigError of a field out of range.
func cfgErr(part, field, value, want string) error {
	return &cc.ConfigError{Part: part, Field: field, Value: value, Range: want}
}

// eventErr is the *cc.EventError of an event a part refuses. Errors are
// built out of line so that the event paths hold no allocation site.
//
//go:noinline
func eventErr(part, event, reason string) error {
	return &cc.EventError{Part: part, Event: event, Reason: reason}
}

// refusePacket is the error of a packet event refused before it changed
// anything: its time out of order (*cc.TimeOrderError), else a nil packet
// or a negative size or payload (*cc.EventError), checked in that order.
// The three parts' events share it.
//
//go:noinline
func refusePacket(clock *cc.Monotonic, part, event string, now units.Time, p *cc.Packet) error {
	if err := clock.Check(part, event, now); err != nil {
		return err
	}
	switch {
	case p == nil:
		return eventErr(part, event, "nil packet")
	case p.Size < 0:
		return eventErr(part, event, "packet size "+p.Size.String()+" is negative")
	}
	return eventErr(part, event, "payload "+p.Payload.String()+" is negative")
}

// fullErr is the *cc.ActionsFullError of an event that needs one action
// and has no room (act may be nil).
//
//go:noinline
func fullErr(part, event string, act *cc.Actions) error {
	return act.Reserve(part, event, 1)
}

// notification is the message every part sends: FeedbackBECN about flow.
func notification(flow cc.FlowID) cc.Feedback {
	return cc.Feedback{Kind: FeedbackBECN, Flow: flow}
}
