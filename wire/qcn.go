package wire

import (
	"encoding/binary"
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/fixedpoint"
)

// FeedbackCNM is the cc.FeedbackKind of a congestion notification message
// (CNM): a CP's message to the source of a sampled frame, its payload the
// CNM codec's 16 bytes in cc.Feedback.Data. It is cc.FeedbackUser + 20, in
// package cc's range for schemes outside its own list.
const FeedbackCNM = cc.FeedbackUser + 20

// CNMLen is the length of an encoded CNM: the 16 bytes of cc.Feedback.Data.
const CNMLen = cc.FeedbackDataLen

// CNMVersion is the only CNM PDU version this codec reads and writes: 0,
// the version 802.1Qau's CNM carries (HPE FlexFabric 5940/5930
// configuration guides, "CNM format": "Version, 4 bits, its value is fixed
// at 0").
const CNMVersion = 0

// CNMQUnit is the unit of the CNM's cnmQOffset and cnmQDelta fields in
// this codec: 64 bytes, so that ±2 MiB fits the fields' 16 signed bits.
// (hwcc's choice: the sources hwcc could read give the fields' width, 2
// bytes each, but not their unit.)
const CNMQUnit = 64

// The widths of the quantised feedback and the priority a CNM carries.
const (
	// CNMFbBits is the width of the quantised feedback QntzFb: 6 bits.
	CNMFbBits = 6
	// CNMMaxQntzFb is the largest quantised |Fb|: 2^6 − 1 = 63.
	CNMMaxQntzFb = 1<<CNMFbBits - 1
	// CNMPrioBits is the width of an 802.1p priority: 3 bits.
	CNMPrioBits = 3
	// CNMMaxPrio is the largest 802.1p priority: 7.
	CNMMaxPrio = 1<<CNMPrioBits - 1
)

// Byte offsets of the fields (see CNM).
const (
	cnmByteVersion = 0  // version (bits 7–4), ReservedV high bits (3–0)
	cnmByteFb      = 1  // ReservedV low bits (7–6), QntzFb (5–0)
	cnmByteCPID    = 2  // 8 bytes
	cnmByteQOffset = 10 // 2 bytes, signed
	cnmByteQDelta  = 12 // 2 bytes, signed
	cnmBytePrio    = 14 // 2 bytes: 13 reserved bits, priority in 2–0
	cnmFbMask      = CNMMaxQntzFb
	cnmResvHiMask  = 0x0f // ReservedV's 4 bits in byte 0
	cnmResvLoMask  = 0xc0 // ReservedV's 2 bits in byte 1
	cnmPrioMask    = CNMMaxPrio
	cnmWhat        = "QCN CNM"
)

// CNM is the part of an IEEE 802.1Qau congestion notification message that
// QCN's reaction point reads, in a 16-byte layout that fits
// cc.Feedback.Data.
//
// The standard's CNM PDU ([QCN]; field list as [QCN-HPE] reproduces it,
// "CNM format") is: Version (4 bits,
// 0), ReservedV (6 bits, 0), Quantized Feedback (6 bits), Congestion Point
// Identifier (CPID, 8 bytes), cnmQOffset (2 bytes), cnmQDelta (2 bytes),
// Encapsulated priority (2 bytes), Encapsulated destination MAC address (6
// bytes), Encapsulated MSDU length (2 bytes) and Encapsulated MSDU (0 to
// 64 bytes): 24 to 88 bytes. This codec keeps the first 16 bytes, field
// for field, and drops the encapsulated destination MAC, MSDU length and
// MSDU: the reaction point they let a station find travels in
// cc.Feedback.Flow (and the CP's identity, besides CPID, in
// cc.Feedback.From).
//
// Wire layout, 16 bytes, big-endian (network order) as the PDU:
//
//	byte   bits  field       meaning
//	0      7–4   Version     CNMVersion (0); any other is malformed
//	0      3–0   ReservedV   high 4 of 6 reserved bits, 0
//	1      7–6   ReservedV   low 2 reserved bits, 0
//	1      5–0   QntzFb      quantised |Fb|, 0..63
//	2–9    64    CPID        the congestion point's identifier
//	10–11  16    QOffset     cnmQOffset: Q − Qeq, signed, in CNMQUnit (64 B)
//	12–13  16    QDelta      cnmQDelta: Q − Qold, signed, in CNMQUnit
//	14–15  16    Prio        encapsulated priority: 0..7 in bits 2–0 of
//	                         byte 15; bits 15–3 reserved, 0
//
// (Where the standard puts the priority within its 2-byte field hwcc could
// not read; the low 3 bits are hwcc's choice.) A reserved bit set, a
// version other than 0 or a buffer shorter than 16 bytes is malformed. A
// decoder ignores bytes after the first 16.
type CNM struct {
	// QntzFb is the quantised feedback |Fb|·63/Fbmax, 0..CNMMaxQntzFb
	// (CNMFbBits).
	QntzFb uint8
	// CPID is the Congestion Point Identifier (64 bits).
	CPID uint64
	// QOffset is cnmQOffset, Q − Qeq in CNMQUnit (signed 16 bits).
	QOffset int16
	// QDelta is cnmQDelta, Q − Qold in CNMQUnit (signed 16 bits).
	QDelta int16
	// Prio is the encapsulated priority of the sampled frame,
	// 0..CNMMaxPrio (CNMPrioBits).
	Prio uint8
}

// Validate reports whether m can be encoded: QntzFb ≤ CNMMaxQntzFb and
// Prio ≤ CNMMaxPrio. The
// error is a *cc.DecodeError naming the byte of the encoding whose field is
// out of range: 1 for QntzFb, 15 for Prio.
func (m CNM) Validate() error {
	if m.QntzFb > CNMMaxQntzFb {
		return &cc.DecodeError{What: cnmWhat, Offset: cnmByteFb, Reason: "quantised feedback " + strconv.Itoa(int(m.QntzFb)) + ", want 0.." + strconv.Itoa(CNMMaxQntzFb)}
	}
	if m.Prio > CNMMaxPrio {
		return &cc.DecodeError{What: cnmWhat, Offset: cnmBytePrio + 1, Reason: "priority " + strconv.Itoa(int(m.Prio)) + ", want 0.." + strconv.Itoa(CNMMaxPrio)}
	}
	return nil
}

// Append appends m's 16-byte encoding to dst and returns the extended
// slice; with 16 bytes of spare capacity it does not allocate. Fields out
// of range lose their high bits; call Validate first to refuse them.
func (m CNM) Append(dst []byte) []byte {
	var b [CNMLen]byte
	m.Put(&b)
	return append(dst, b[:]...)
}

// Put writes m's 16-byte encoding into b (cc.Feedback.Data). Fields out of
// range lose their high bits, as in Append.
func (m CNM) Put(b *[CNMLen]byte) {
	b[cnmByteVersion] = CNMVersion << 4
	b[cnmByteFb] = m.QntzFb & cnmFbMask
	binary.BigEndian.PutUint64(b[cnmByteCPID:], m.CPID)
	binary.BigEndian.PutUint16(b[cnmByteQOffset:], uint16(m.QOffset))
	binary.BigEndian.PutUint16(b[cnmByteQDelta:], uint16(m.QDelta))
	binary.BigEndian.PutUint16(b[cnmBytePrio:], uint16(m.Prio)&cnmPrioMask)
}

// String returns a one-line description for traces.
func (m CNM) String() string {
	return "cnm fb=" + strconv.Itoa(int(m.QntzFb)) + " cpid=" + strconv.FormatUint(m.CPID, 16) +
		" qoff=" + strconv.Itoa(int(m.QOffset)) + " qdelta=" + strconv.Itoa(int(m.QDelta)) +
		" prio=" + strconv.Itoa(int(m.Prio))
}

// DecodeCNM decodes the message at the start of b. A malformed message is a
// *cc.DecodeError naming the byte where decoding failed: len(b) for a
// buffer shorter than 16 bytes (the first missing byte), 0 for a version
// other than 0 or a reserved bit set in byte 0, 1 for a reserved bit set in
// byte 1, 14 or 15 for a reserved bit of the priority field set in that
// byte. Bytes after the first 16 are ignored. It does not allocate on
// success; a message it decodes re-encodes (Append) to the same 16 bytes.
func DecodeCNM(b []byte) (CNM, error) {
	if len(b) < CNMLen {
		return CNM{}, cnmBad(len(b), "message of "+strconv.Itoa(len(b))+" bytes, want 16")
	}
	if v := b[cnmByteVersion] >> 4; v != CNMVersion {
		return CNM{}, cnmBad(cnmByteVersion, "version "+strconv.Itoa(int(v))+", want 0")
	}
	if b[cnmByteVersion]&cnmResvHiMask != 0 {
		return CNM{}, cnmBad(cnmByteVersion, "reserved bits set")
	}
	if b[cnmByteFb]&cnmResvLoMask != 0 {
		return CNM{}, cnmBad(cnmByteFb, "reserved bits set")
	}
	p := binary.BigEndian.Uint16(b[cnmBytePrio:])
	if p&^cnmPrioMask != 0 {
		off := cnmBytePrio
		if b[cnmBytePrio] == 0 {
			off++
		}
		return CNM{}, cnmBad(off, "reserved bits of the priority field set")
	}
	return CNM{
		QntzFb:  b[cnmByteFb] & cnmFbMask,
		CPID:    binary.BigEndian.Uint64(b[cnmByteCPID:]),
		QOffset: int16(binary.BigEndian.Uint16(b[cnmByteQOffset:])),
		QDelta:  int16(binary.BigEndian.Uint16(b[cnmByteQDelta:])),
		Prio:    uint8(p),
	}, nil
}

// cnmBad builds a decode error out of line, so that DecodeCNM's success
// path holds no allocation site.
//
//go:noinline
func cnmBad(off int, reason string) error {
	return &cc.DecodeError{What: cnmWhat, Offset: off, Reason: reason}
}

// CNMQ converts a queue difference of v bytes to the value of the CNM's
// 16-bit signed fields cnmQOffset and cnmQDelta (CNM.QOffset and
// CNM.QDelta): v/CNMQUnit, truncated toward zero and saturated at the
// field's range.
func CNMQ(v int64) int16 { return fixedpoint.SatConv[int16](v / CNMQUnit) }
