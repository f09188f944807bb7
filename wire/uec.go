package wire

import (
	"encoding/binary"
	"strconv"

	"github.com/hwcc/hwcc/cc"
)

// UECDataLen is the length of an encoded UECData: the 16 header bytes a
// packet carries for its scheme (cc.PacketHdrLen), which an ACK or NACK
// echoes in cc.Feedback.Data (cc.FeedbackDataLen).
const UECDataLen = cc.PacketHdrLen

// UECPullQuantumShift is the unit of pull numbers and pull targets: 2^8 =
// 256 bytes ([uet-htsim] uecpacket.h, UEC_PULL_QUANTUM).
const UECPullQuantumShift = 8

// Field positions of the UECData layout.
const (
	uecFlags      = 0
	uecTrim       = 1
	uecFrame      = 2
	uecSent       = 4
	uecPullTarget = 8
	uecPayload    = 12
	uecReserved   = 14
)

// UECData flag bits (byte 0) and trim bits (byte 1).
const (
	uecFlagValid   = 0x80 // the sender wrote the header
	uecFlagRetrans = 0x40 // a retransmission
	uecFlagPull    = 0x20 // PullTarget is set (the sender runs on credit)
	uecFlagSpec    = 0x10 // sent on speculative credit
	uecFlagsKnown  = uecFlagValid | uecFlagRetrans | uecFlagPull | uecFlagSpec
	uecTrimmed     = 0x80 // a switch cut the payload
	uecTrimLast    = 0x40 // ... at the last hop (a port facing the destination)
	uecTrimKnown   = uecTrimmed | uecTrimLast
)

// uecWhat names the header in decode errors.
const uecWhat = "UEC data header"

// UECData is the header hwcc's Ultra Ethernet parts carry in every data
// packet (cc.Packet.Hdr): what the sender's congestion control writes for
// itself and the receiver ([UEC]'s congestion management sublayer fields,
// as [uet-htsim] carries them in its data packets: the send time its
// sender keeps per packet, the pull target, the retransmission and
// speculative flags), and the mark a trimming switch sets. The receiver's
// NIC echoes the 16 bytes, as they arrived, in the ACK or NACK of the
// packet (cc.Feedback.Data), so that the sender's NSCC reads its own send
// time back (one RTT sample per packet) and learns the size of a NACKed
// packet and where it was trimmed; the receiver's RCCC pacer reads the
// pull target of every data packet and trimmed header.
//
// Wire layout, 16 bytes, big-endian:
//
//	byte   bits  field        meaning
//	0      7     valid        the sender wrote this header
//	0      6     retrans      the packet is a retransmission
//	0      5     pull         pull_target is set (the sender runs on credit)
//	0      4     spec         sent on speculative credit
//	0      3–0   (zero)
//	1      7     trimmed      a switch cut the payload (written by the fabric)
//	1      6     last_hop     ... at a port facing the destination
//	1      5–0   (zero)
//	2–3    16    frame        the frame's wire bytes as sent (≤ 65535)
//	4–7    32    sent         the sender's transmit time, ns mod 2^32
//	8–11   32    pull_target  the sender's cumulative pull target, in
//	                          2^UECPullQuantumShift-byte quanta mod 2^32
//	12–13  16    payload      the payload bytes the packet carried as sent
//	14–15  16    (zero)
//
// The send time is nanoseconds modulo 2^32: an RTT is the wrapping
// difference, exact for RTTs below 4.29 s. A pull target is compared
// with another by serial-number arithmetic ([RFC1982]): within 2^31
// quanta (512 GiB) of each other.
//
// A header with valid unset is no header (all zero: another scheme's
// packet, or a test's ACK with no echo); DecodeUECData returns it with
// Valid false and no error.
type UECData struct {
	Valid, Retrans, HasPull, Spec bool
	// Trimmed and LastHop are the fabric's mark (MarkUECTrimmed).
	Trimmed, LastHop bool
	Frame            uint16
	SentNs           uint32
	PullTarget       uint32
	Payload          uint16
}

// Put writes h's encoding into b (cc.Packet.Hdr). An invalid h writes
// all zero.
func (h UECData) Put(b *[UECDataLen]byte) {
	if !h.Valid {
		*b = [UECDataLen]byte{}
		return
	}
	flags := byte(uecFlagValid)
	if h.Retrans {
		flags |= uecFlagRetrans
	}
	if h.HasPull {
		flags |= uecFlagPull
	}
	if h.Spec {
		flags |= uecFlagSpec
	}
	var trim byte
	if h.Trimmed {
		trim |= uecTrimmed
		if h.LastHop {
			trim |= uecTrimLast
		}
	}
	pull := h.PullTarget
	if !h.HasPull {
		pull = 0
	}
	binary.BigEndian.PutUint64(b[:8], uint64(flags)<<56|uint64(trim)<<48|uint64(h.Frame)<<32|uint64(h.SentNs))
	binary.BigEndian.PutUint64(b[8:], uint64(pull)<<32|uint64(h.Payload)<<16)
}

// DecodeUECData decodes the 16 bytes of b (a packet's Hdr or an ACK's
// echo in Feedback.Data). A header whose valid bit is clear decodes to the
// zero UECData. A valid header with a reserved bit set, a pull target
// without the pull flag, or a last-hop mark without the trimmed one is
// malformed (*cc.DecodeError naming the byte). A short b is malformed.
func DecodeUECData(b []byte) (UECData, error) {
	if len(b) < UECDataLen {
		return UECData{}, &cc.DecodeError{What: uecWhat, Offset: len(b), Reason: "need " + strconv.Itoa(UECDataLen) + " bytes, have " + strconv.Itoa(len(b))}
	}
	flags := b[uecFlags]
	if flags&uecFlagValid == 0 {
		return UECData{}, nil
	}
	trim := b[uecTrim]
	switch {
	case flags&^uecFlagsKnown != 0:
		return UECData{}, &cc.DecodeError{What: uecWhat, Offset: uecFlags, Reason: "reserved flag bits set"}
	case trim&^uecTrimKnown != 0 || trim == uecTrimLast:
		return UECData{}, &cc.DecodeError{What: uecWhat, Offset: uecTrim, Reason: "trim byte " + strconv.Itoa(int(trim)) + ": want 0, trimmed, or trimmed at the last hop"}
	case b[uecReserved] != 0 || b[uecReserved+1] != 0:
		return UECData{}, &cc.DecodeError{What: uecWhat, Offset: uecReserved, Reason: "reserved bytes set"}
	}
	h := UECData{
		Valid:      true,
		Retrans:    flags&uecFlagRetrans != 0,
		HasPull:    flags&uecFlagPull != 0,
		Spec:       flags&uecFlagSpec != 0,
		Trimmed:    trim&uecTrimmed != 0,
		LastHop:    trim&uecTrimLast != 0,
		Frame:      binary.BigEndian.Uint16(b[uecFrame:]),
		SentNs:     binary.BigEndian.Uint32(b[uecSent:]),
		PullTarget: binary.BigEndian.Uint32(b[uecPullTarget:]),
		Payload:    binary.BigEndian.Uint16(b[uecPayload:]),
	}
	if !h.HasPull && h.PullTarget != 0 {
		return UECData{}, &cc.DecodeError{What: uecWhat, Offset: uecPullTarget, Reason: "pull target without the pull flag"}
	}
	return h, nil
}

// MarkUECTrimmed is what a trimming switch writes into the header of a
// packet whose payload it cut: the trimmed mark, and lastHop when the
// port it cut at faces the packet's destination ([UEC]'s trimmed code
// point, and the last-hop test [uet-htsim]'s receiver makes from the
// hop count). It writes byte 1 only, so that a header that is not a
// UECData (another scheme's, or none) is changed in that byte alone.
func MarkUECTrimmed(b *[UECDataLen]byte, lastHop bool) {
	t := byte(uecTrimmed)
	if lastHop {
		t |= uecTrimLast
	}
	b[uecTrim] = t
}

// uecPullFlagSlow marks a pull the pacer sent to an idle sender beyond
// its pull target (a slow pull, [uet-htsim] UecPullPacer): byte 0 bit 6
// of UECPull's encoding.
const uecPullFlagSlow = 0x40

// UECPull is the payload of RCCC's pull (cc.FeedbackCredit, in
// cc.Feedback.Data): the receiver's cumulative pull number for the flow,
// in 2^UECPullQuantumShift-byte quanta mod 2^32 (also in cc.Feedback.Seq,
// which a sender reads), and whether it is a slow pull ([uet-htsim]
// uecpacket.h, UecPullPacket's pullno and slow_pull).
//
// Wire layout, the 16 bytes of cc.Feedback.Data, big-endian:
//
//	byte   bits  field  meaning
//	0      7     valid  the receiver wrote this payload
//	0      6     slow   a slow pull (speculative credit to an idle sender)
//	0      5–0   (zero)
//	1–3    24    (zero)
//	4–7    32    pull   the cumulative pull number, equal to Seq mod 2^32
//	8–15   64    (zero)
type UECPull struct {
	Slow bool
	Pull uint32
}

// Feedback returns the pull as the cc.FeedbackCredit message of flow
// that carries it: Seq and Data hold the pull number.
func (p UECPull) Feedback(flow cc.FlowID) cc.Feedback {
	f := cc.Feedback{Kind: cc.FeedbackCredit, Flow: flow, Seq: uint64(p.Pull)}
	f.Data[0] = uecFlagValid
	if p.Slow {
		f.Data[0] |= uecPullFlagSlow
	}
	binary.BigEndian.PutUint32(f.Data[4:], p.Pull)
	return f
}

// DecodeUECPull reads a pull from a credit message: the pull number is
// f.Seq mod 2^32, the slow flag Data's when Data's valid bit is set. Data
// with its valid bit set is a pull's and must agree with Seq and have no
// other bits set (*cc.DecodeError); without it, Data is not a pull's (a
// credit message from another source, whose Data may be zero or its own)
// and is not read: the pull is Seq's, not slow.
func DecodeUECPull(f *cc.Feedback) (UECPull, error) {
	p := UECPull{Pull: uint32(f.Seq)}
	d := &f.Data
	if d[0]&uecFlagValid == 0 {
		return p, nil
	}
	if d[0]&^(uecFlagValid|uecPullFlagSlow) != 0 {
		return UECPull{}, &cc.DecodeError{What: "UEC pull", Offset: 0, Reason: "reserved flag bits set"}
	}
	for i, b := range d {
		if (i >= 1 && i < 4 || i >= 8) && b != 0 {
			return UECPull{}, &cc.DecodeError{What: "UEC pull", Offset: i, Reason: "reserved byte set"}
		}
	}
	if binary.BigEndian.Uint32(d[4:]) != p.Pull {
		return UECPull{}, &cc.DecodeError{What: "UEC pull", Offset: 4, Reason: "pull number differs from the message's sequence number"}
	}
	p.Slow = d[0]&uecPullFlagSlow != 0
	return p, nil
}
