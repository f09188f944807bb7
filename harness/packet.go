package harness

import (
	"unsafe"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// Header and frame sizes in bytes. A RoCEv2 data frame is
//
//	Ethernet 14 | IPv4 20 | UDP 8 | [telemetry] | BTH 12 | payload | ICRC 4 | FCS 4
//
// and, on the wire, every frame is also preceded by a 7-byte preamble and a
// 1-byte start-of-frame delimiter and followed by a 12-byte inter-frame gap
// (PreambleIFGBytes). The harness models the wire: a frame of f bytes
// occupies a link for the serialisation time of f + PreambleIFGBytes bytes
// unless NICSpec.NoPreamble is set, and every size the harness reports as
// "wire bytes" includes those 20 bytes. A telemetry stack (HPCC's INT
// header, [HPCC] Figure 7) sits after UDP and before the BTH and is present
// only when the algorithm's deployment asks for one (cc.Deployment.
// Telemetry): the sender attaches its first bytes and each switch egress
// port's congestion point may push a record as the frame leaves (the
// harness carries the bytes and writes none itself).
const (
	PreambleIFGBytes    units.Bytes = wire.WireGapBytes        // 7 preamble + 1 SFD + 12 inter-frame gap
	EthernetHeaderBytes units.Bytes = wire.EthernetHeaderBytes // destination, source, EtherType (no VLAN tag)
	EthernetFCSBytes    units.Bytes = wire.EthernetFCSBytes    // frame check sequence
	IPv4HeaderBytes     units.Bytes = wire.IPv4HeaderBytes     // no options
	UDPHeaderBytes      units.Bytes = wire.UDPHeaderBytes      // RoCEv2 runs over UDP port 4791
	BTHBytes            units.Bytes = wire.BTHBytes            // InfiniBand base transport header
	ICRCBytes           units.Bytes = wire.ICRCBytes           // invariant CRC
	AETHBytes           units.Bytes = 4                        // ACK extended transport header (ACK and NAK)
	CNPReservedBytes    units.Bytes = wire.CNPReservedBytes    // RoCEv2 CNP: 16 reserved bytes after the BTH
	MinFrameBytes       units.Bytes = wire.MinFrameBytes       // smallest Ethernet frame, FCS included

	// DataOverheadBytes is the frame overhead of a data packet without
	// telemetry: 14 + 20 + 8 + 12 + 4 + 4 = 62 bytes.
	DataOverheadBytes = EthernetHeaderBytes + IPv4HeaderBytes + UDPHeaderBytes +
		BTHBytes + ICRCBytes + EthernetFCSBytes
	// AckFrameBytes is an ACK or NAK frame without telemetry: 62 + 4 = 66
	// bytes.
	AckFrameBytes = DataOverheadBytes + AETHBytes
	// CNPFrameBytes is a RoCEv2 CNP frame: 62 + 16 = 78 bytes. Feedback
	// packets from congestion points (Packet.Feedback) have the same size:
	// the 16 reserved bytes carry the payload.
	CNPFrameBytes = DataOverheadBytes + CNPReservedBytes
	// PFCFrameBytes is an 802.1Qbb PFC frame: a minimum-size MAC control
	// frame (64 bytes with padding and FCS).
	PFCFrameBytes = MinFrameBytes

	// DefaultPayload is the payload of a full data packet, 1000 bytes, as
	// in HPCC's simulations (and the RoCC authors'); NICSpec.Payload changes it.
	DefaultPayload units.Bytes = 1000
)

// Priorities. The harness uses two of the eight 802.1p classes: data on
// DataPrio, which is lossless when PFC is on, and control traffic (ACK, NAK,
// CNP, feedback) on ControlPrio, which every egress port serves with strict
// priority over data and which PFC never pauses. PFC frames themselves are
// MAC control frames and go before both.
const (
	NumPrios    = 8
	DataPrio    = 3
	ControlPrio = 7
)

// Kind is what a packet is.
type Kind uint8

// Packet kinds.
const (
	KindData     Kind = iota // a data segment of a flow, source to destination
	KindAck                  // cumulative ACK, destination to source
	KindNak                  // go-back-N NAK: Seq is the next expected byte
	KindCNP                  // congestion notification from a notification point
	KindFeedback             // a congestion point's message to a flow's source
	KindPFC                  // PFC PAUSE/RESUME for one priority, hop by hop
	KindFC                   // CBFC flow-control packet for one lane, hop by hop (credit.FCPacket in Feedback.Data)
	KindTrim                 // a data frame a switch trimmed to its header (flow_control trim; uet.go)
)

var kindNames = [...]string{"data", "ack", "nak", "cnp", "feedback", "pfc", "fc", "trim"}

// String returns the kind's lower-case name.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// FlowID names a flow: its index in Result.Flows and Report.Flows. IDs are
// dense, starting at 0, in creation order.
type FlowID int32

// NodeID names a host or switch: its index in the network's node list.
type NodeID int32

// CPID names one congestion point (one switch egress queue), unique in a
// run; feedback carries it so that a reaction point can tell its sources
// apart (RoCC's CPcur).
type CPID uint32

// Packet is one frame in flight. The harness owns every Packet and reuses
// it after delivery or drop: an adapter may read (and a CP may mark) the
// packet it is handed during the call, and must not keep the pointer.
//
// Fields adapters see:
//
//	Kind     what it is
//	Flow     the flow it belongs to (the flow it reports on, for ACK/CNP/feedback)
//	Src, Dst the hosts it travels between (an ACK goes Dst→Src of its flow)
//	Seq      data: offset of its first payload byte; ACK: next byte expected
//	Payload  data bytes carried (0 for control frames)
//	Size     wire bytes now: frame + preamble/IFG, telemetry included as pushed so far
//	Prio     802.1p class (DataPrio or ControlPrio)
//	CE       ECN congestion experienced; a CP may set it on data packets
//	ECE      ACK: some packet it covers arrived with CE set
//	HasTel   whether a telemetry stack is carried; Tel holds its bytes
//	         (data: as pushed so far; ACK: echoed from the data packet)
//	SentAt   data: when the sender started to transmit it; ACK: echoed
type Packet struct {
	// What every hop reads or writes comes first, in one cache line of
	// the pool's chunks: kind, size, flow, ends, and the switch's and the
	// FIFO's bookkeeping.
	Kind    Kind
	Prio    uint8
	CE      bool
	ECE     bool
	HasTel  bool
	pause   bool  // PFC: true = PAUSE, false = RESUME
	hop     uint8 // switches crossed so far, for host-to-host frames of a flow (nextHop)
	pq      uint8 // the physical queue it waits in at a switch.scheduler queues port
	Flow    FlowID
	Src     NodeID
	Dst     NodeID
	ingress int32  // switch port it arrived on, for PFC accounting: its gid + 1 (0: none)
	next    uint32 // free list and FIFO link: the next packet's handle (0: none)
	handle  uint32 // packetPool's index + 1, for events (packetPool.at)
	Size    units.Bytes
	inSize  units.Bytes     // Size when it was admitted to the switch buffer
	shape   *cc.MessageKind // the kind of a shaped control message (cc.MessageKind.Spacing), else nil

	Seq     uint64
	Payload units.Bytes
	SentAt  units.Time
	// Hdr is a scheme's header bytes (cc.Packet.Hdr: the source's
	// reaction point writes them in Sent, a switch point on Dequeue);
	// toSwitch is the switch a control message
	// is for, plus one (0: a host; Switch.SendSwitch).
	Hdr      [cc.PacketHdrLen]byte
	toSwitch NodeID
	// An ACK's counts, then Tel, follow on the second line: the
	// stack's length and first bytes share it, so that the records of a
	// path of up to 10 hops (HPCC's INT) touch one line more at most.
	ackPkts   int32 // ACK: data packets it covers
	ackMarked int32 // ACK: of which arrived with CE
	Tel       cc.Telemetry

	sackSeq uint64 // ACK, NACK (transport sack): the first byte of the segment it reports

	// Feedback is a control message's content, as the part that sent it
	// emitted it (kind, flow, sender identity, payload bytes); a CBFC
	// packet's bytes in Data. Data frames never read it: it comes last.
	Feedback cc.Feedback
}

// packetPool is a free list of packets owned by one simulation. Steady state
// allocates nothing: a packet goes back on the list when it is delivered or
// dropped. Every packet it allocates gets a handle, its index in the pool
// plus one, that events, FIFOs and the free list hold instead of a pointer
// (so that the event queue and the links between queued packets are not
// pointers: moving an event or queueing a packet costs no GC write
// barrier, and the GC does not follow them). Handles are 32 bits and the
// pool grows only to the most packets alive at once (freed ones are
// reused): 2^32 − 1 live packets would take hundreds of GB of memory, which
// runs out long before a handle could wrap, so get does not check it.
//
// The packets live in chunks of 2^packetChunkBits, allocated as the pool
// grows, so that a handle finds its packet through the short list of
// chunks (which stays in cache) rather than through a pointer per packet
// (which, with tens of thousands of packets in flight, does not).
type packetPool struct {
	free      uint32                              // handle of the first free packet, 0 if none
	chunks    []*[1 << packetChunkBits]linePacket // packet h is chunks[(h−1)>>packetChunkBits][(h−1)&packetChunkMask]
	allocated int64                               // packets ever allocated (grows only while the pool warms up)
	live      int64                               // packets out of the pool now
}

// linePacket is a Packet padded to a whole number of 64-byte cache lines,
// so that in a chunk every packet starts on a line and its first fields,
// the ones every hop touches, share one. A chunk holds pointers and is
// larger than 512 bytes, so it starts allocHeader bytes into a line: the
// padding goes first, 64 − allocHeader bytes of it, to put the packet on
// the next line (TestHotStructsStartOnALine checks it).
type linePacket struct {
	_ [64 - allocHeader]byte
	Packet
	_ [64 - (64-allocHeader+unsafe.Sizeof(Packet{}))%64]byte
}

// Chunks of 32 packets (12 KB with today's 384-byte linePacket: a small
// object for the runtime, from the per-thread caches, with the header
// linePacket's padding counts on).
const (
	packetChunkBits = 5
	packetChunkMask = 1<<packetChunkBits - 1
)

var _ [maxSmallAlloc - allocHeader - unsafe.Sizeof([1 << packetChunkBits]linePacket{})]byte

// get returns a zeroed packet.
func (pp *packetPool) get() *Packet {
	var p *Packet
	if pp.free == 0 {
		i := uint32(pp.allocated)
		if i&packetChunkMask == 0 {
			pp.chunks = append(pp.chunks, new([1 << packetChunkBits]linePacket))
		}
		p = &pp.chunks[i>>packetChunkBits][i&packetChunkMask].Packet
		pp.allocated++
		p.handle = i + 1
	} else {
		p = pp.at(pp.free)
		pp.free = p.next
		h := p.handle
		*p = Packet{}
		p.handle = h
	}
	pp.live++
	return p
}

// put returns p to the pool. p must not be used afterwards.
func (pp *packetPool) put(p *Packet) {
	p.next = pp.free
	pp.free = p.handle
	pp.live--
}

// at returns the packet of handle h (≥ 1).
func (pp *packetPool) at(h uint32) *Packet {
	h--
	return &pp.chunks[h>>packetChunkBits][h&packetChunkMask].Packet
}

// fifo is an intrusive FIFO of packets linked through Packet.next, by
// handle: its methods take the pool the handles are of.
type fifo struct {
	head, tail uint32 // handles, 0 when empty
	n          int
}

func (q *fifo) push(pp *packetPool, p *Packet) {
	p.next = 0
	if q.tail == 0 {
		q.head = p.handle
	} else {
		pp.at(q.tail).next = p.handle
	}
	q.tail = p.handle
	q.n++
}

func (q *fifo) pop(pp *packetPool) *Packet {
	if q.head == 0 {
		return nil
	}
	p := pp.at(q.head)
	q.head = p.next
	if q.head == 0 {
		q.tail = 0
	}
	p.next = 0
	q.n--
	return p
}

// first returns the packet at the head, or nil.
func (q *fifo) first(pp *packetPool) *Packet {
	if q.head == 0 {
		return nil
	}
	return pp.at(q.head)
}

// each calls fn for every packet in q, head first.
func (q *fifo) each(pp *packetPool, fn func(*Packet)) {
	for h := q.head; h != 0; {
		p := pp.at(h)
		h = p.next
		fn(p)
	}
}
