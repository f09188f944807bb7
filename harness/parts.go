package harness

import (
	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// features are what the switches and NICs do for the algorithm of a run,
// from its deployment (cc.Deployment).
type features struct {
	// tel: data packets carry a telemetry stack of tel.Init bytes at the
	// sender, tel.Hop more per switch that pushes a record; receivers
	// echo it in ACKs. Zero: none.
	tel cc.TelemetryFormat
	// symmetric: what travels from a flow's receiver to its sender
	// retraces the data path (cc.Deployment.Symmetric).
	symmetric bool
	// ecn: the switches mark CE on data packets above the scenario's
	// threshold (SwitchSpec.ECN: when the egress data queue, the arriving
	// packet included, exceeds it), for an algorithm without a congestion
	// point that marks.
	ecn bool
}

// telemetry reports whether data packets carry a stack.
func (f *features) telemetry() bool { return f.tel != (cc.TelemetryFormat{}) }

// ackInfo is what a reaction point's adapter learns from one ACK or NAK.
// The harness fills one reused value per call.
type ackInfo struct {
	Flow FlowID
	// Seq is cumulative: the receiver holds every byte below it. For a NAK
	// it is the byte the receiver expects next, where the sender goes back to.
	Seq uint64
	// Newly is the number of payload bytes this ACK acknowledged for the
	// first time (0 for a duplicate).
	Newly units.Bytes
	// SndNxt is the sender's next new byte when the ACK arrived;
	// Inflight is SndNxt − Seq after the ACK.
	SndNxt   uint64
	Inflight units.Bytes
	NAK      bool
	// ECE: at least one data packet this ACK covers arrived with CE set.
	// Marked and Packets count the data packets covered and marked (ACK
	// coalescing, NICSpec.AckEvery).
	ECE     bool
	Marked  int
	Packets int
	// RTT is now minus the SentAt the ACK echoes (the data packet that
	// triggered it).
	RTT units.Time
	// Tel points to the telemetry stack the ACK echoes, or is nil.
	Tel *cc.Telemetry
	// Data is the data packet's header the ACK or NACK echoes (transport
	// sack), or zero.
	Data [cc.FeedbackDataLen]byte
	// Done: this ACK completes a sized flow.
	Done bool
}

// flowInfo describes a flow to the parts built for it.
//
// Size comes first: it is the field of it that a flow's per-frame paths
// read, and a flow places its info right after its per-frame fields, so
// that Size ends their last line (nic.go, flow).
type flowInfo struct {
	// Size is the flow's payload in bytes; 0 means long-lived (it sends
	// until its stop time or the end of the run).
	Size     units.Bytes
	ID       FlowID
	Src, Dst NodeID
	SrcName  string
	DstName  string
	// Offered is the rate the workload asks for (0: the line rate); the
	// NIC paces at most at it.
	Offered units.Rate
	Start   units.Time
	// LineRate is the sender NIC's port rate; Bottleneck the smallest link
	// rate on the flow's path.
	LineRate   units.Rate
	Bottleneck units.Rate
	// BaseRTT is the idle-path round trip of a full data packet and its
	// ACK (see the package doc); Hops counts the switches on the path.
	BaseRTT units.Time
	Hops    int
	// MaxBaseRTT is the largest BaseRTT of the network, over every
	// ordered pair of hosts and every ECMP path, and MaxHops the most
	// switches on such a path; both are the same for every flow of a run.
	MaxBaseRTT units.Time
	MaxHops    int
	// Payload is the payload of a full packet, PacketBytes its wire size
	// (without telemetry), AckBytes an ACK's wire size (without telemetry).
	Payload     units.Bytes
	PacketBytes units.Bytes
	AckBytes    units.Bytes
	// Errors records what the flow's state machines refuse.
	Errors ErrorSink
	// SendToSource sends a control message about the flow from its
	// receiver to its source, sized and prioritised by its kind; false if
	// the flow has ended.
	SendToSource func(fb cc.Feedback) bool
	// SendToDestination sends a control message about the flow from its
	// source to its receiver (the reaction point's messages: a credit
	// request and stop), delivered to the flow's notification point.
	// False if the flow has ended.
	SendToDestination func(fb cc.Feedback) bool
}

// cpInfo describes a switch egress queue to the congestion point built
// for it.
type cpInfo struct {
	ID       CPID
	Node     NodeID
	NodeName string
	Port     int // port number on the switch
	PeerName string
	Prio     uint8
	Rate     units.Rate
	Delay    units.Time  // propagation delay of the port's link
	Buffer   units.Bytes // the switch's buffer: switch.buffer, or switch.pool plus its ports' PFC headroom
	// SwitchID is the switch's 12-bit ID, unique among the network's
	// switches (INT's pathID).
	SwitchID uint16
	// Errors records what the queue's state machine refuses.
	Errors ErrorSink
}

// baseRTTWithTel returns a flow's round trip with a telemetry stack of
// format t: its base RTT (a full data frame and its ACK, no stack) plus
// the stack's bytes on each link, each serialised at the path's slowest
// rate (an upper bound, so that it is not below the real base RTT). On
// link k of the forward path (k = 0 the sender's) the data frame carries
// Init + k·Hop bytes; the ACK echoes all Hops records on every reverse
// link:
//
//	RTT = BaseRTT + Σ_{k=0..H} ser(Init + k·Hop) + (H+1)·ser(Init + H·Hop)
func baseRTTWithTel(f flowInfo, t cc.TelemetryFormat) units.Time {
	rtt := f.BaseRTT
	h := units.Bytes(f.Hops)
	for k := units.Bytes(0); k <= h; k++ {
		rtt += units.SerializationTime(t.Init+k*t.Hop, f.Bottleneck)
	}
	rtt += units.Time(h+1) * units.SerializationTime(t.Init+h*t.Hop, f.Bottleneck)
	return rtt
}

// Place is where a part runs in a run: its role and the queue, flow or
// switch it serves.
type Place struct {
	Role cc.Role
	// Node is the switch of a congestion or switch point, the host of a
	// reaction point (the flow's source) or a notification point (its
	// destination); Port a congestion point's egress port on its switch;
	// Flow a reaction or notification point's flow (−1 for the others).
	Node string
	Port int
	Flow FlowID
	// Env is the environment the part was built in.
	Env cc.Env
}
