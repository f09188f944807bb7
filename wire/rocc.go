package wire

import (
	"encoding/binary"
	"strconv"

	"github.com/hwcc/hwcc/cc"
)

// RoCCFeedbackLen is the length of an encoded RoCCFeedback in bytes: the 16
// reserved bytes of a CNP (cc.FeedbackDataLen).
const RoCCFeedbackLen = cc.FeedbackDataLen

// RoCCFeedbackVersion is the only version this codec reads and writes.
const RoCCFeedbackVersion = 1

// RoCCFeedbackType is the 4-bit type of a RoCC CNP.
type RoCCFeedbackType uint8

const (
	// RoCCRateFeedback carries the fair rate F the CP computed ([RoCC]
	// §III-B); the RP applies it (Algorithm 2, rp.RoCC).
	RoCCRateFeedback RoCCFeedbackType = 1
	// RoCCReportFeedback carries Qcur (and F when the CP has it) for a host
	// that computes the rate itself ([RoCC] §III-F, rp.RoCCHost).
	RoCCReportFeedback RoCCFeedbackType = 2
)

// Field positions of the wire layout.
const (
	roccFbVersionShift = 4    // version in the high nibble of byte 0
	roccFbTypeMask     = 0x0f // type in the low nibble of byte 0
	roccFbCounter      = 1
	roccFbPort         = 2
	roccFbSwitch       = 4
	roccFbRate         = 8
	roccFbQDepth       = 10
	roccFbFlow         = 12
	roccFbCPShift      = 16 // CP() = switch<<16 | port
)

// roccFbWhat names the message in decode errors.
const roccFbWhat = "RoCC feedback"

// RoCCFeedback is one RoCC CNP, RoCC's feedback message ([RoCC]
// §III-C): "the fair rate value (in multiples of ΔF)" and what the RP
// needs to find the flow's rate limiter, carried in ICMP (the DPDK
// prototype used the reserved ICMP type 253, §VI-B). The paper's P4
// header (§IV-B, Listing 1) has port (16 bits), qdepth (16 bits) and
// counter (8 bits); this layout keeps those three fields and adds the rate,
// the CP's switch and the flow, so that one message serves both the
// switch-computed rate (§III-B) and the host-computed one (§III-F). The
// switch (cp.RoCC) writes it; the sender's parts (rp.RoCC, rp.RoCCHost)
// read it. Through the cc contract it travels in cc.Feedback.Data of a
// cc.FeedbackRate message.
//
// Wire layout, 16 bytes, big-endian (network order), the ICMP payload:
//
//	byte  bits  field    meaning
//	0     7–4   version  RoCCFeedbackVersion (1)
//	0     3–0   type     1 = RoCCRateFeedback, 2 = RoCCReportFeedback
//	1     7–0   counter  the CP's 8-bit update counter (Listing 1), mod 256
//	2–3   16    port     the CP's egress port (Listing 1)
//	4–7   32    switch   the CP's switch (its IPv4 address, what GETCP of
//	                     Algorithm 2 returns)
//	8–9   16    rate     F in ΔF units: 1 to 65535 (655.35 Gb/s at ΔF =
//	                     10 Mb/s); 0 is malformed in a rate message and means
//	                     "no F, the host keeps its own" in a report
//	10–11 16    qdepth   Qcur in ΔQ units (Listing 1), 0 to 65535
//	12–15 32    flow     the flow identifier the rate applies to
//
// A decoder accepts a buffer longer than 16 bytes (Ethernet pads short
// frames) and ignores the bytes after the message.
//
// The zero value is not a valid message (type 0); Validate says why.
type RoCCFeedback struct {
	Type   RoCCFeedbackType
	Seq    uint8  // the CP's update counter (Listing 1's counter), wraps mod 256
	Port   uint16 // the CP's egress port
	Switch uint32 // the CP's switch
	Rate   uint16 // F in ΔF units
	QDepth uint16 // Qcur in ΔQ units
	Flow   uint32 // flow identifier
}

// CP returns the congestion point's identity for Algorithm 2's CPcur test:
// switch·2^16 + port, 48 bits, so that two ports of one switch are two CPs.
// It is also the cc.Feedback.From of the message.
func (f RoCCFeedback) CP() uint64 { return uint64(f.Switch)<<roccFbCPShift | uint64(f.Port) }

// RoCCCPBits is the width of CP(): 32 bits of switch and 16 of port.
const RoCCCPBits = 48

// Validate reports whether f can be encoded as a well-formed message: a
// known type and, for a rate message, a rate of at least 1 ΔF. The error is
// a *cc.DecodeError naming the byte of the encoding that would be
// malformed: 0 for the type, 8 for the rate.
func (f RoCCFeedback) Validate() error {
	switch f.Type {
	case RoCCRateFeedback:
		if f.Rate == 0 {
			return &cc.DecodeError{What: roccFbWhat, Offset: roccFbRate, Reason: "rate message with rate 0, want 1..65535 ΔF"}
		}
	case RoCCReportFeedback:
	default:
		return &cc.DecodeError{What: roccFbWhat, Offset: 0, Reason: "type " + strconv.Itoa(int(f.Type)) + ", want 1 (rate) or 2 (report)"}
	}
	return nil
}

// Append appends f's 16-byte encoding to dst and returns the extended
// slice; with 16 bytes of spare capacity it does not allocate. It encodes
// the fields as they are (a Type above 15 loses its high bits); call
// Validate first to refuse a malformed message.
func (f RoCCFeedback) Append(dst []byte) []byte {
	dst = append(dst, RoCCFeedbackVersion<<roccFbVersionShift|byte(f.Type)&roccFbTypeMask, f.Seq)
	dst = binary.BigEndian.AppendUint16(dst, f.Port)
	dst = binary.BigEndian.AppendUint32(dst, f.Switch)
	dst = binary.BigEndian.AppendUint16(dst, f.Rate)
	dst = binary.BigEndian.AppendUint16(dst, f.QDepth)
	return binary.BigEndian.AppendUint32(dst, f.Flow)
}

// Put writes f's encoding into b (cc.Feedback.Data), the bytes Append
// appends, as two big-endian 64-bit words: bytes 0–7 are version and type,
// counter, port and switch, bytes 8–15 rate, qdepth and flow.
func (f RoCCFeedback) Put(b *[RoCCFeedbackLen]byte) {
	head := uint64(RoCCFeedbackVersion<<roccFbVersionShift|byte(f.Type)&roccFbTypeMask)<<56 |
		uint64(f.Seq)<<48 | uint64(f.Port)<<32 | uint64(f.Switch)
	binary.BigEndian.PutUint64(b[:roccFbRate], head)
	binary.BigEndian.PutUint64(b[roccFbRate:], uint64(f.Rate)<<48|uint64(f.QDepth)<<32|uint64(f.Flow))
}

// PutRoCCFlow writes flow into the flow field (bytes 12–15) of the
// message encoded in b, as Put writes it: a CP that sends one message to
// each flow of its table encodes the message once and writes each flow
// into its copy.
func PutRoCCFlow(b *[RoCCFeedbackLen]byte, flow uint32) {
	binary.BigEndian.PutUint32(b[roccFbFlow:], flow)
}

// String returns a one-line description for traces.
func (f RoCCFeedback) String() string {
	t := "type" + strconv.Itoa(int(f.Type))
	switch f.Type {
	case RoCCRateFeedback:
		t = "rate"
	case RoCCReportFeedback:
		t = "report"
	}
	return "rocc " + t + " cp=" + strconv.FormatUint(uint64(f.Switch), 10) + ":" + strconv.Itoa(int(f.Port)) +
		" seq=" + strconv.Itoa(int(f.Seq)) + " F=" + strconv.Itoa(int(f.Rate)) +
		" Q=" + strconv.Itoa(int(f.QDepth)) + " flow=" + strconv.FormatUint(uint64(f.Flow), 10)
}

// DecodeRoCCFeedback decodes the message at the start of b. It returns a
// *cc.DecodeError naming the byte where decoding failed: len(b) for a buffer
// shorter than 16 bytes (the first missing byte), 0 for a version other
// than 1 or an unknown type, 8 for a rate message with rate 0. Bytes after
// the first 16 are ignored. It does not allocate on success.
func DecodeRoCCFeedback(b []byte) (RoCCFeedback, error) {
	if len(b) < RoCCFeedbackLen {
		return RoCCFeedback{}, &cc.DecodeError{What: roccFbWhat, Offset: len(b),
			Reason: "message of " + strconv.Itoa(len(b)) + " bytes, want 16"}
	}
	if v := b[0] >> roccFbVersionShift; v != RoCCFeedbackVersion {
		return RoCCFeedback{}, &cc.DecodeError{What: roccFbWhat, Offset: 0,
			Reason: "version " + strconv.Itoa(int(v)) + ", want 1"}
	}
	f := RoCCFeedback{
		Type:   RoCCFeedbackType(b[0] & roccFbTypeMask),
		Seq:    b[roccFbCounter],
		Port:   binary.BigEndian.Uint16(b[roccFbPort:]),
		Switch: binary.BigEndian.Uint32(b[roccFbSwitch:]),
		Rate:   binary.BigEndian.Uint16(b[roccFbRate:]),
		QDepth: binary.BigEndian.Uint16(b[roccFbQDepth:]),
		Flow:   binary.BigEndian.Uint32(b[roccFbFlow:]),
	}
	if err := f.Validate(); err != nil {
		return RoCCFeedback{}, err
	}
	return f, nil
}
