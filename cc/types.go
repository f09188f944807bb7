package cc

import (
	"strconv"

	inttel "github.com/hwcc/hwcc/int"
	"github.com/hwcc/hwcc/units"
)

// FlowID names a flow. A part uses it as its hardware would use a flow
// index or a hash of the flow's headers: to key its tables and to address
// feedback.
type FlowID uint32

// NodeID names a host or a switch.
type NodeID uint32

// Packet is one frame as a part sees it. It is a plain value: the caller
// owns it, fills it per event, and may reuse it after the call. A part
// keeps no pointer to it (nor to its INT header) past the call.
//
// The zero value is a zero-length packet of flow 0 with no INT header.
type Packet struct {
	Flow FlowID
	// Src and Dst are the hosts the packet travels between (a data
	// packet's source and destination).
	Src, Dst NodeID
	// Seq is the offset of the packet's first payload byte in its flow.
	Seq uint64
	// Payload is the bytes of data it carries; Size the bytes a queue
	// counts for it (the harness counts wire bytes: frame, preamble and
	// inter-frame gap, INT included as stamped so far). Both ≥ 0.
	Payload units.Bytes
	Size    units.Bytes
	// Prio is its 802.1p priority, 0..7.
	Prio uint8
	// CE is its ECN congestion-experienced mark as it arrives (an NP reads
	// it). A CP marks with ActionMarkCE rather than by writing it.
	CE bool
	// INT is the packet's INT header (HPCC, package inttel), or nil when it
	// carries none. A congestion or switch point may stamp it in place on
	// Dequeue. (The other fields a part may write: Echo, a reaction point
	// in Sent; Hdr, a switch point on Dequeue.)
	INT *inttel.Header
	// Echo is a number the source's reaction point writes into the frame
	// in Sent for the destination's notification point to read in Receive
	// (ExpressPass: the sequence number of the credit the frame spends,
	// which the receiver checks for gaps); 0 when it writes none. The
	// caller carries it from Sent to Receive unchanged.
	Echo uint64
	// Hdr is a scheme's own header bytes in the packet (HierCC's F_ij and
	// S_ij): a switch point writes them on Dequeue, the switches after it
	// and the destination read them; the caller carries them unchanged
	// between events. All zero: none written.
	Hdr [PacketHdrLen]byte
}

// PacketHdrLen is the size of Packet.Hdr.
const PacketHdrLen = 16

// Queue is one egress queue's state at an event: what a switch's queue
// registers show.
type Queue struct {
	// Len is the queue's bytes, counted as the caller counts Packet.Size:
	// on Enqueue it includes the arriving packet, on Dequeue it is what the
	// departing packet leaves behind.
	Len units.Bytes
	// Rate is the port's line rate.
	Rate units.Rate
	// TxBytes is the port's cumulative count of bytes sent on every
	// priority, a free-running counter that wraps at 2^64, or 0 when the
	// caller keeps none; on Dequeue it counts the bytes sent before the
	// departing packet. A part that needs a transmit counter says whether
	// it reads this one or counts its own queue's packets.
	TxBytes uint64
	// Paused: the downstream neighbour has paused this queue's priority
	// (PFC).
	Paused bool
}

// FeedbackKind is what a feedback message is. The set is open: the kinds
// below are hwcc's; a new scheme adds a constant here (or, outside this
// module, uses a value from FeedbackUser up) rather than a branch in a
// harness.
type FeedbackKind uint8

// Feedback kinds.
const (
	// FeedbackNone is the zero value: not a message.
	FeedbackNone FeedbackKind = iota
	// FeedbackAck is a cumulative ACK: Seq, Acked, SndNxt, ECE and, when
	// the data carried it, INT echoed from the data packet.
	FeedbackAck
	// FeedbackNak is a go-back-N NAK: Seq is the byte the receiver expects.
	FeedbackNak
	// FeedbackCNP is a RoCEv2 congestion notification packet from a
	// notification point (DCQCN). Data holds its 16 reserved bytes.
	FeedbackCNP
	// FeedbackRate is a congestion point's rate message to a flow's source
	// (RoCC's CNP, [RoCC] §III-C): Data holds its payload
	// in the codec of the algorithm that sent it; From names the sender.
	FeedbackRate
	// FeedbackCredit is a credit: permission to send (ExpressPass's credit
	// packet, from the receiver; Seq its sequence number).
	FeedbackCredit
	// FeedbackCreditRequest and FeedbackCreditStop are a sender's request
	// that its receiver start and stop sending credits.
	FeedbackCreditRequest
	FeedbackCreditStop
	// FeedbackUser is the first kind free for schemes outside this module.
	FeedbackUser FeedbackKind = 128
)

var feedbackNames = [...]string{"none", "ack", "nak", "cnp", "rate", "credit", "credit-request", "credit-stop"}

// String returns the kind's lower-case name, or "kind N".
func (k FeedbackKind) String() string {
	if int(k) < len(feedbackNames) {
		return feedbackNames[k]
	}
	return "kind " + strconv.Itoa(int(k))
}

// FeedbackDataLen is the size of Feedback.Data: the 16 reserved bytes of a
// RoCEv2 CNP, where RoCC's rate message and Mercury's window travel.
const FeedbackDataLen = 16

// Feedback is a message that comes back to a flow's source: an ACK, a CNP,
// a switch's rate message. It is a plain value, like Packet: the caller
// owns it, and a part keeps no pointer to it or its INT past the call.
type Feedback struct {
	Kind FeedbackKind
	// Flow is the flow the message is about.
	Flow FlowID
	// From identifies the part that sent it, when its kind has a sender
	// identity (RoCC: switch<<16 | port, the CP of Algorithm 2's CPrcvd).
	From uint64
	// Seq: for an ACK, every payload byte below it has arrived; for a NAK,
	// the byte the receiver expects next.
	Seq uint64
	// Acked is the payload bytes this ACK acknowledges for the first time
	// (0 for a duplicate).
	Acked units.Bytes
	// SndNxt is the sender's next new byte when the ACK arrived (the NIC's
	// snd_nxt; HPCC's lastUpdateSeq reads it).
	SndNxt uint64
	// ECE: at least one data packet this ACK covers arrived with CE set.
	ECE bool
	// INT is the INT header the ACK echoes, or nil.
	INT *inttel.Header
	// Data is the message's payload bytes (CNP reserved bytes).
	Data [FeedbackDataLen]byte
}

// Limits is what a reaction point allows its flow now.
type Limits struct {
	// Rate is the pacing rate of the flow's wire bytes (preamble and gap
	// included, so the line rate sends back to back); NoRate (0) means the
	// part does not pace: the flow may send at its line rate.
	Rate units.Rate
	// Window is the most payload bytes the flow may have unacknowledged:
	// it may start a packet while inflight < Window. NoWindow (0) means no
	// window.
	Window units.Bytes
	// Credited: the flow sends only on credit (ExpressPass): it may start
	// a packet only while the packet's wire bytes fit in Credit, the
	// credit the part holds now (each Sent spends it, each credit
	// message adds to it). Not Credited, Credit means nothing.
	Credited bool
	Credit   units.Bytes
}

// NoRate and NoWindow are the Limits values that limit nothing.
const (
	NoRate   units.Rate  = 0
	NoWindow units.Bytes = 0
)
