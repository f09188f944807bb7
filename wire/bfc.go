package wire

import (
	"encoding/binary"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// BFC's two formats ([BFC] §3, §4; hwcc's layout: the paper describes what
// the fields say, not their bytes): the tag each BFC switch writes into a
// data packet as it leaves (which switch, port and physical queue the
// packet left, so that the next switch knows whom to pause), and the
// pause a switch sends its upstream neighbour for one of that
// neighbour's queues, or the first-hop switch sends a sender for one
// flow.

// FeedbackBFCPause is the cc.FeedbackKind of BFC's pause: its payload the
// BFCPause codec's bytes in cc.Feedback.Data. It is cc.FeedbackUser + 28,
// in package cc's range for schemes outside its own list.
const FeedbackBFCPause = cc.FeedbackUser + 28

// BFCVersion is the version byte of both formats: 1. A tag's first byte is
// never 0, so that an all-zero cc.Packet.Hdr reads as "no tag" (a packet
// straight from a host).
const BFCVersion = 1

// Limits of the fields.
const (
	// BFCMaxQueue is the highest physical queue index either format
	// carries: 63 (queues 0..63; cp.BFC keeps at most 64 per port).
	BFCMaxQueue = 63
	// BFCMaxSwitch is the highest switch ID a tag carries: 12 bits, as
	// cc.Env.SwitchID.
	BFCMaxSwitch = 0xFFF
	// BFCHostPort is a pause's Port when it is addressed to a sender for
	// one flow (cc.Feedback.Flow) rather than to a switch's queue.
	BFCHostPort = 0xFFFF
	// BFCUntilResumed is a pause's Time that holds until a resume comes
	// (a pause with no lease).
	BFCUntilResumed = 0xFFFFFFFF
	// BFCMaxLease is the longest lease a pause carries: 2^32 − 2 ns, the
	// 32-bit field's largest value short of BFCUntilResumed.
	BFCMaxLease = units.Time(BFCUntilResumed-1) * units.Nanosecond
	// BFCTagSize and BFCPauseSize are the bytes each format uses: the tag
	// the first 6 of cc.Packet.Hdr, the pause the first 8 of
	// cc.Feedback.Data; the rest of each is 0.
	BFCTagSize   = 6
	BFCPauseSize = 8
)

// Byte offsets.
const (
	bfcVersion = 0
	bfcSwitch  = 1 // tag: 2 bytes, 12 bits
	bfcPort    = 3 // tag: 2 bytes
	bfcQueue   = 5 // tag: 1 byte
	bfcPPort   = 1 // pause: 2 bytes
	bfcPQueue  = 3 // pause: 1 byte
	bfcPTime   = 4 // pause: 4 bytes, ns

	bfcTagWhat   = "BFC tag"
	bfcPauseWhat = "BFC pause"
)

// BFCTag is what a BFC switch writes into a data packet's header as the
// packet leaves (cc.Packet.Hdr, on a switch point's Dequeue): the switch,
// its egress port and the physical queue the packet waited in. The next
// switch keeps it in the flow's table entry and, to slow the flow, pauses
// that queue.
//
// Layout, big-endian, in the first BFCTagSize bytes of the 16:
//
//	byte  bits  field    meaning
//	0     7–0   version  BFCVersion (1); 0 with the rest 0: no tag
//	1–2   11–0  switch   the switch's 12-bit ID (cc.Env.SwitchID); bits 15–12 0
//	3–4   15–0  port     its egress port
//	5     5–0   queue    the physical queue (0..BFCMaxQueue); bits 7–6 0
//	6–15        0        reserved
type BFCTag struct {
	Switch uint16
	Port   uint16
	Queue  uint8
}

// Validate refuses a switch ID above BFCMaxSwitch or a queue above
// BFCMaxQueue with a *cc.EventError.
func (t BFCTag) Validate() error {
	switch {
	case t.Switch > BFCMaxSwitch:
		return rangeErr("wire.BFCTag", "switch", uint64(t.Switch), BFCMaxSwitch, 12)
	case t.Queue > BFCMaxQueue:
		return rangeErr("wire.BFCTag", "queue", uint64(t.Queue), BFCMaxQueue, 6)
	}
	return nil
}

// Put writes the tag into hdr: its first BFCTagSize bytes, and the rest
// 0. It refuses, writing nothing, what Validate refuses.
func (t BFCTag) Put(hdr *[cc.PacketHdrLen]byte) error {
	if t.Switch > BFCMaxSwitch || t.Queue > BFCMaxQueue {
		return t.Validate()
	}
	*hdr = [cc.PacketHdrLen]byte{bfcVersion: BFCVersion}
	binary.BigEndian.PutUint16(hdr[bfcSwitch:], t.Switch)
	binary.BigEndian.PutUint16(hdr[bfcPort:], t.Port)
	hdr[bfcQueue] = t.Queue
	return nil
}

// DecodeBFCTag reads the tag in hdr. ok is false, with no error, for an
// all-zero header (no tag: the packet came from a host). Malformed bytes
// are a *cc.DecodeError naming the byte, checked in order: a version
// other than 1 (0), the switch's reserved bits (1), the queue's (5), a
// nonzero reserved byte (6..15; also a zero version with any byte set,
// offset 0). What it accepts, Put writes back byte for byte.
func DecodeBFCTag(hdr *[cc.PacketHdrLen]byte) (t BFCTag, ok bool, err error) {
	if hdr[bfcVersion] != BFCVersion {
		if *hdr == ([cc.PacketHdrLen]byte{}) {
			return BFCTag{}, false, nil
		}
		return BFCTag{}, false, valueErr(bfcTagWhat, bfcVersion, "version", uint64(hdr[bfcVersion]), "1 (or an all-zero header)")
	}
	t.Switch = binary.BigEndian.Uint16(hdr[bfcSwitch:])
	if t.Switch > BFCMaxSwitch {
		return BFCTag{}, false, decodeErr(bfcTagWhat, bfcSwitch, "switch's reserved high bits set")
	}
	t.Port = binary.BigEndian.Uint16(hdr[bfcPort:])
	t.Queue = hdr[bfcQueue]
	if t.Queue > BFCMaxQueue {
		return BFCTag{}, false, decodeErr(bfcTagWhat, bfcQueue, "queue's reserved high bits set")
	}
	if err := reservedErr(bfcTagWhat, hdr[:], BFCTagSize, cc.PacketHdrLen); err != nil {
		return BFCTag{}, false, err
	}
	return t, true, nil
}

// BFCPause is BFC's pause: a switch asks its upstream neighbour to stop
// serving one physical queue (Port, Queue) for Lease, or the first-hop
// switch asks a sender to stop one flow (Port = BFCHostPort; the flow is
// cc.Feedback.Flow). A Lease of 0 resumes; BFCUntilResumed (Forever)
// holds until a resume. A lease lets the upstream resume by itself when
// the resume is lost (cp.BFC).
//
// Layout, big-endian, in the first BFCPauseSize bytes of the 16 of
// cc.Feedback.Data, kind FeedbackBFCPause:
//
//	byte  field    meaning
//	0     version  BFCVersion (1)
//	1–2   port     the upstream's egress port, or BFCHostPort (0xFFFF)
//	3     queue    bits 5–0 the physical queue, bits 7–6 0 (0 for a sender)
//	4–7   time     the lease in ns; 0 resume; 0xFFFFFFFF until resumed
//	8–15  0        reserved
type BFCPause struct {
	Port    uint16
	Queue   uint8
	Lease   units.Time // 0: resume; Forever: until resumed
	Forever bool
}

// Validate refuses a queue above BFCMaxQueue, or a lease outside
// 0..BFCMaxLease or not a whole number of nanoseconds, with a
// *cc.EventError.
func (p BFCPause) Validate() error {
	switch {
	case p.Queue > BFCMaxQueue:
		return rangeErr("wire.BFCPause", "queue", uint64(p.Queue), BFCMaxQueue, 6)
	case !p.Forever && (p.Lease < 0 || p.Lease > BFCMaxLease || p.Lease%units.Nanosecond != 0):
		return eventErr("wire.BFCPause", "Encode", "lease "+p.Lease.String()+", want a whole number of ns in 0.."+BFCMaxLease.String())
	}
	return nil
}

// Feedback returns the pause as a message of kind FeedbackBFCPause about
// flow, or Validate's error.
func (p BFCPause) Feedback(flow cc.FlowID) (cc.Feedback, error) {
	f := cc.Feedback{Kind: FeedbackBFCPause, Flow: flow}
	if err := p.Put(&f.Data); err != nil {
		return cc.Feedback{}, err
	}
	return f, nil
}

// Put writes the pause into d (all 16 bytes). It refuses, writing
// nothing, what Validate refuses.
func (p BFCPause) Put(d *[cc.FeedbackDataLen]byte) error {
	if err := p.Validate(); err != nil {
		return err
	}
	t := uint32(BFCUntilResumed)
	if !p.Forever {
		t = uint32(p.Lease / units.Nanosecond)
	}
	*d = [cc.FeedbackDataLen]byte{bfcVersion: BFCVersion}
	binary.BigEndian.PutUint16(d[bfcPPort:], p.Port)
	d[bfcPQueue] = p.Queue
	binary.BigEndian.PutUint32(d[bfcPTime:], t)
	return nil
}

// Resume reports whether the pause resumes (a zero lease).
func (p BFCPause) Resume() bool { return !p.Forever && p.Lease == 0 }

// DecodeBFCPause reads a pause from d. Malformed bytes are a
// *cc.DecodeError naming the byte, checked in order: a version other than
// 1 (0), the queue's reserved bits (3), a nonzero reserved byte (8..15).
// What it accepts, Put writes back byte for byte.
func DecodeBFCPause(d *[cc.FeedbackDataLen]byte) (BFCPause, error) {
	if d[bfcVersion] != BFCVersion {
		return BFCPause{}, valueErr(bfcPauseWhat, bfcVersion, "version", uint64(d[bfcVersion]), "1")
	}
	p := BFCPause{Port: binary.BigEndian.Uint16(d[bfcPPort:]), Queue: d[bfcPQueue]}
	if p.Queue > BFCMaxQueue {
		return BFCPause{}, decodeErr(bfcPauseWhat, bfcPQueue, "queue's reserved high bits set")
	}
	if err := reservedErr(bfcPauseWhat, d[:], BFCPauseSize, cc.FeedbackDataLen); err != nil {
		return BFCPause{}, err
	}
	switch t := binary.BigEndian.Uint32(d[bfcPTime:]); t {
	case BFCUntilResumed:
		p.Forever = true
	default:
		p.Lease = units.Time(t) * units.Nanosecond
	}
	return p, nil
}
