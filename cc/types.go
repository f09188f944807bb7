package cc

import (
	"strconv"

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
// keeps no pointer to it (nor to its telemetry) past the call.
//
// It carries what any switch or NIC sees of a frame: its flow, hosts,
// sizes, priority and ECN mark, an in-band telemetry stack, and header
// bytes a scheme defines. A part writes to the caller's packet only where
// the contract lets it: Tel (a congestion or switch point's Dequeue pushes
// its record), Hdr (a reaction point's Sent, a switch point's Dequeue).
//
// The zero value is a zero-length packet of flow 0 with no telemetry and
// no header bytes.
type Packet struct {
	Flow FlowID
	// Src and Dst are the hosts the packet travels between (a data
	// packet's source and destination).
	Src, Dst NodeID
	// Seq is the offset of the packet's first payload byte in its flow.
	Seq uint64
	// Payload is the bytes of data it carries; Size the bytes a queue
	// counts for it (the harness counts wire bytes: frame, preamble and
	// inter-frame gap, telemetry included as pushed so far). Both ≥ 0.
	Payload units.Bytes
	Size    units.Bytes
	// Prio is its 802.1p priority, 0..7.
	Prio uint8
	// CE is its ECN congestion-experienced mark as it arrives (an NP reads
	// it). A CP marks with ActionMarkCE rather than by writing it.
	CE bool
	// Tel is the packet's in-band telemetry stack, or nil when it carries
	// none. A congestion or switch point may push its record onto it in
	// place on Dequeue; the caller then counts the bytes it grew by in the
	// frame's size.
	Tel *Telemetry
	// Hdr is header bytes a scheme defines, in its own codec: a reaction
	// point may write them in Sent (for the switches and the destination
	// to read), a switch point on Dequeue (for the switches after it and
	// the destination). The caller carries them unchanged between events.
	// All zero: none written.
	Hdr [PacketHdrLen]byte
}

// PacketHdrLen is the size of Packet.Hdr: 16 bytes.
const PacketHdrLen = 16

// TelemetryCap is the most bytes a telemetry stack holds: 128, room for
// a 2-byte prefix and fifteen 8-byte hop records (HPCC's INT at its
// 4-bit hop count's limit takes 122).
const TelemetryCap = 128

// Telemetry is an in-band network telemetry stack as a frame carries it:
// the first Len bytes of Data, in the wire format of the codec of the
// algorithm that reads it (HPCC's INT: package inttel). A sender attaches
// it, each switch on the path may push a record onto it as the frame
// leaves, the receiver echoes it to the sender in an ACK. It is a plain
// value of fixed size, so that a caller reuses one per frame without
// allocating.
//
// The zero value is an empty stack. A Len above TelemetryCap is malformed:
// Bytes clamps it, and a codec refuses it.
type Telemetry struct {
	Len  uint8
	Data [TelemetryCap]byte
}

// Bytes returns the stack's bytes, Data[:Len] (Data[:TelemetryCap] when
// Len is above it), sharing t's storage.
func (t *Telemetry) Bytes() []byte { return t.Data[:min(int(t.Len), TelemetryCap)] }

// Set replaces the stack with b; it reports false, changing nothing, if b
// is longer than TelemetryCap.
func (t *Telemetry) Set(b []byte) bool {
	if len(b) > TelemetryCap {
		return false
	}
	t.Len = uint8(copy(t.Data[:], b))
	return true
}

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
// below are the messages any lossless or credit-based fabric carries; a
// scheme with a message of its own declares a kind from FeedbackUser up
// in its package (with its wire size in its registration, Deployment),
// so that adding a scheme changes nothing here and no branch in a
// simulator.
type FeedbackKind uint8

// Feedback kinds.
const (
	// FeedbackNone is the zero value: not a message.
	FeedbackNone FeedbackKind = iota
	// FeedbackAck is a cumulative ACK: Seq, Acked, SndNxt, ECE and, when
	// the data carried one, the telemetry stack echoed from the data
	// packet.
	FeedbackAck
	// FeedbackNak is a go-back-N NAK: Seq is the byte the receiver expects.
	FeedbackNak
	// FeedbackCNP is a RoCEv2 congestion notification packet. Data holds
	// its 16 reserved bytes.
	FeedbackCNP
	// FeedbackRate is a congestion point's rate message to a flow's
	// source: Data holds its payload in the codec of the algorithm that
	// sent it; From names the sender.
	FeedbackRate
	// FeedbackCredit is a credit: permission to send, from the receiver;
	// Seq its sequence number.
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

// FeedbackDataLen is the size of Feedback.Data: 16 bytes, the reserved
// bytes of a RoCEv2 CNP.
const FeedbackDataLen = 16

// Feedback is a message about a flow: an ACK, a CNP, a switch's rate
// message, a credit. It is a plain value, like Packet: the caller owns
// it, and a part keeps no pointer to it or its telemetry past the call
// and never writes it.
type Feedback struct {
	Kind FeedbackKind
	// Flow is the flow the message is about.
	Flow FlowID
	// From identifies the part that sent it, an opaque number the sending
	// part chooses and a receiving part compares (0 when its kind has no
	// sender identity); the caller carries it unchanged.
	From uint64
	// Seq: for an ACK, every payload byte below it has arrived; for a NAK,
	// the byte the receiver expects next.
	Seq uint64
	// Acked is the payload bytes this ACK acknowledges for the first time
	// (0 for a duplicate).
	Acked units.Bytes
	// SndNxt is the sender's next new byte when the ACK arrived (the NIC's
	// snd_nxt).
	SndNxt uint64
	// ECE: at least one data packet this ACK covers arrived with CE set.
	ECE bool
	// Tel is the telemetry stack the ACK echoes, or nil.
	Tel *Telemetry
	// Data is the message's payload bytes, in the codec of its kind.
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
	// Credited: the flow sends only on credit: it may start
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
