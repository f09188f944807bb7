package wire

import (
	"encoding/binary"
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// ExpressPass ([ExpressPass]: Cho, Jang, Han, "Credit-Scheduled
// Delay-Bounded Congestion Control for Datacenters", SIGCOMM 2017) in two
// parts: np.ExpressPass, the data receiver's notification point that paces
// credits and runs the paper's Algorithm 1 (credit feedback control), and
// rp.ExpressPass, the data sender's reaction point that asks for credits,
// holds them and spends one per data frame. The exchange, as the parts see
// it through package cc:
//
//	sender Timer at 0        → cc.FeedbackCreditRequest to the destination
//	receiver Feedback(req)   → first cc.FeedbackCredit{Seq: s} to the source, then one per expiry
//	sender Feedback(credit)  → the credit joins a FIFO; Limits().Credit grows by a frame
//	sender Sent(frame)       → spends the oldest credit; frame.Hdr echoes its seq
//	receiver Receive(frame)  → gaps in the echoes are credits the network dropped
//	sender Sent(last byte)   → cc.FeedbackCreditStop to the destination
//
// Each request, credit and stop carries its wire image, an
// ExpressPassPacket, in Feedback.Data; data frames carry the echo
// (PutExpressPassEcho). The sizes and the sequence space below are
// checked against the authors' ns-2 code ([ExpressPass-ns2], whose
// xpass/xpass.cc implements Algorithm 1 and whose scripts set its
// parameters).
const (
	// ExpressPassCreditBytes is a credit frame's wire size: 84 B, a
	// minimum 64 B Ethernet frame with preamble and inter-frame gap
	// ([ExpressPass] §3.1; ns-2 min_credit_size_ = max_credit_size_ = 84
	// in scripts/*.tcl).
	ExpressPassCreditBytes units.Bytes = 84
	// ExpressPassFrameBytes is the largest data frame's wire size, 1538 B
	// (ns-2 max_ethernet_size_): what one credit allows. The credit rate
	// that fills a link is link·84/(84+1538) (ns-2 creditBW =
	// linkRate·avgCreditSize/(avgCreditSize+maxEthernetSize)).
	ExpressPassFrameBytes units.Bytes = 1538
	// ExpressPassMinSeqBits and ExpressPassMaxSeqBits bound the width of
	// the credit sequence number both parts are configured with
	// (SeqBits): 8..32, the field's 32 bits at most.
	ExpressPassMinSeqBits = 8
	ExpressPassMaxSeqBits = 32
)

// ExpressPassMaxSeq is the largest credit sequence number of a space of
// bits bits (ExpressPassMinSeqBits..ExpressPassMaxSeqBits): 2^bits − 1.
// Sequence numbers run 1..ExpressPassMaxSeq(bits) and wrap to 1, skipping
// 0 (xpass.cc construct_credit: c_seqno_ = max(1, c_seqno_ + 1)), which
// frees echo 0 to mean "no credit" (PutExpressPassEcho).
func ExpressPassMaxSeq(bits uint8) uint64 { return 1<<bits - 1 }

// ExpressPassType is the 8-bit type field of an ExpressPass control
// packet.
type ExpressPassType uint8

// ExpressPass control packet types. The values keep the order of the
// authors' ns-2 packet types (common/packet.h: PT_XPASS_CREDIT_REQUEST 73,
// PT_XPASS_CREDIT_STOP 74, PT_XPASS_CREDIT 75), less 72. Type 0 and
// 4..255 are not control packets (ns-2's 76 and 77 are the data packet and
// the NACK, which travel in other headers); the decoder refuses them, so
// that an all-zero buffer is never a message.
const (
	// ExpressPassTypeRequest asks the receiver to start sending credits
	// (cc.FeedbackCreditRequest).
	ExpressPassTypeRequest ExpressPassType = 1
	// ExpressPassTypeStop asks it to stop (cc.FeedbackCreditStop).
	ExpressPassTypeStop ExpressPassType = 2
	// ExpressPassTypeCredit is a credit: permission to send one data
	// frame (cc.FeedbackCredit).
	ExpressPassTypeCredit ExpressPassType = 3
)

// String returns the name of the cc.FeedbackKind the type carries
// ("credit-request", "credit-stop", "credit"), or "reserved(n)".
func (t ExpressPassType) String() string {
	if k := t.Kind(); k != cc.FeedbackNone {
		return k.String()
	}
	return "reserved(" + strconv.Itoa(int(t)) + ")"
}

// Kind returns the cc.FeedbackKind of a packet of type t, or
// cc.FeedbackNone for a reserved type.
func (t ExpressPassType) Kind() cc.FeedbackKind {
	switch t {
	case ExpressPassTypeRequest:
		return cc.FeedbackCreditRequest
	case ExpressPassTypeStop:
		return cc.FeedbackCreditStop
	case ExpressPassTypeCredit:
		return cc.FeedbackCredit
	}
	return cc.FeedbackNone
}

// ExpressPassPacket layout constants.
const (
	// ExpressPassPacketSize is the control packet's payload: 16 bytes, all
	// of cc.Feedback.Data. In a minimum Ethernet frame (64 B: 14 B header,
	// 46 B payload, 4 B FCS; 84 B on the wire, ExpressPassCreditBytes)
	// behind an IPv4 and a UDP header (28 B) it leaves 2 bytes of padding.
	ExpressPassPacketSize = 16
	// ExpressPassPacketVersion is the version this codec writes and the
	// only one it reads.
	ExpressPassPacketVersion = 1
	// ExpressPassTSUnit is the time per count of the TS field: 1 ns, so
	// that the 32-bit field wraps every 2^32 ns ≈ 4.295 s.
	ExpressPassTSUnit = units.Nanosecond
)

// The packet must fit the feedback message that carries it.
var _ [cc.FeedbackDataLen - ExpressPassPacketSize]byte

// Byte offsets of the fields.
const (
	epPktType     = 0
	epPktVersion  = 1
	epPktReserved = 2
	epPktFlow     = 4
	epPktSeq      = 8
	epPktTS       = 12
)

// ExpressPassPacket is the payload of ExpressPass's control packets: the
// credit request and the credit stop a data sender sends to its receiver,
// and the credits the receiver paces back ([ExpressPass]). A
// credit is a minimum-size frame (ExpressPassCreditBytes on the wire), so
// the payload is small and of fixed layout; hwcc carries it in
// cc.Feedback.Data.
//
// Wire format, 16 bytes, big-endian (network order):
//
//	byte   bits  field     meaning
//	0      8     type      ExpressPassTypeRequest (1), ExpressPassTypeStop
//	                       (2) or ExpressPassTypeCredit (3); others reserved
//	1      8     version   ExpressPassPacketVersion (1)
//	2–3    16    reserved  0
//	4–7    32    flow      the flow the packet is about (cc.FlowID)
//	8–11   32    seq       a credit's sequence number, 1..2^32 − 1 (0 is
//	                       skipped: see ExpressPassMaxSeq); 0 in a
//	                       request or a stop
//	12–15  32    ts        the sender's clock when the packet left, in
//	                       ExpressPassTSUnit (1 ns), mod 2^32
//
// Sources. The fields are those of the authors' ns-2 header
// ([ExpressPass-ns2], xpass/xpass.h, struct hdr_xpass):
// credit_seq_ ("Credit sequence number") and credit_sent_time_ ("To
// measure RTT", a double in seconds), plus sendbuffer_, which that header
// marks "temp variables for test" and this layout leaves out. In
// xpass/xpass.cc, construct_credit writes credit_seq_ = c_seqno_ (then
// c_seqno_ = max(1, c_seqno_ + 1)) and credit_sent_time_ = now();
// construct_credit_request writes credit_seq_ = 0 and credit_sent_time_ =
// now() (the receiver keeps it as the flow's start, fst_); and
// construct_credit_stop writes credit_seq_ = 0 and leaves the time unset.
// Request and stop are min_ethernet_size_ frames (84 B on the wire in
// scripts/large-scale-fattree.tcl) and a credit is min_credit_size_ to
// max_credit_size_ bytes (construct_credit draws its size in that range).
// ns-2 names the packet's type and flow in its common and IP headers
// (ptype: PT_XPASS_CREDIT_REQUEST, _STOP, _CREDIT in common/packet.h;
// fid_); a NIC's payload carries them itself, hence the type and flow
// fields. The widths, byte order, version and reserved bytes are hwcc's:
// 32 bits of sequence number hold the widest space the parts allow
// (SeqBits ≤ 32), cc.FlowID is 32 bits, and a 32-bit nanosecond time
// stamp measures RTTs up to 4.29 s by a wrapping subtraction. hwcc's parts
// write ts in all three types (a stop's included) and never read it: they
// do not measure RTT (see np.ExpressPass).
//
// A sequence number beyond the configured SeqBits is the parts' business,
// not the codec's: rp.ExpressPass refuses the credit.
//
// The zero value is not a valid packet (type 0). An ExpressPassPacket is
// a plain value; Encode, AppendTo and Decode never allocate (AppendTo
// only when dst must grow) except for their errors.
type ExpressPassPacket struct {
	Type ExpressPassType // 8 bits
	Flow cc.FlowID       // 32 bits
	Seq  uint32          // 32 bits: 1..2^32 − 1 in a credit, else 0
	TS   uint32          // 32 bits: send time in ns, mod 2^32
}

// ExpressPassTS returns the TS field for a packet sent at now (≥ 0):
// ⌊now / 1 ns⌋ mod 2^32.
func ExpressPassTS(now units.Time) uint32 { return uint32(now / ExpressPassTSUnit) }

// epPacketPart names the packet in encode errors.
const epPacketPart = "wire.ExpressPassPacket"

// Validate reports a packet that cannot be encoded as a *cc.EventError
// (event "Encode"): a reserved type, a credit with sequence number 0, a
// request or stop with a nonzero one.
func (p ExpressPassPacket) Validate() error {
	if p.valid() {
		return nil
	}
	return p.invalid()
}

// valid: a credit numbered 1 or more, or a request or stop numbered 0.
func (p ExpressPassPacket) valid() bool {
	switch p.Type {
	case ExpressPassTypeCredit:
		return p.Seq != 0
	case ExpressPassTypeRequest, ExpressPassTypeStop:
		return p.Seq == 0
	}
	return false
}

// invalid returns Validate's error for a packet that is not valid.
//
//go:noinline
func (p ExpressPassPacket) invalid() error {
	switch p.Type {
	case ExpressPassTypeCredit: // numbered 0
		return p.refuse("credit with sequence number 0 (sequence numbers skip 0)")
	case ExpressPassTypeRequest, ExpressPassTypeStop: // numbered
		return p.refuse(p.Type.String() + " with sequence number " + strconv.FormatUint(uint64(p.Seq), 10) + ", want 0")
	}
	return p.refuse("type " + strconv.Itoa(int(p.Type)) + " is reserved (want 1 request, 2 stop or 3 credit)")
}

func (p ExpressPassPacket) refuse(reason string) error {
	return &cc.EventError{Part: epPacketPart, Event: "Encode", Reason: reason}
}

// Encode returns the packet's 16 bytes. It refuses, with the error of
// Validate, a packet that is not valid.
func (p ExpressPassPacket) Encode() (b [ExpressPassPacketSize]byte, err error) {
	if !p.valid() {
		return b, p.invalid()
	}
	p.put(&b)
	return b, nil
}

// AppendTo appends the packet's 16 bytes to dst and returns the extended
// slice; it allocates only when dst must grow. It refuses, returning dst
// unchanged and the error of Validate, a packet that is not valid.
func (p ExpressPassPacket) AppendTo(dst []byte) ([]byte, error) {
	if !p.valid() {
		return dst, p.invalid()
	}
	var b [ExpressPassPacketSize]byte
	p.put(&b)
	return append(dst, b[:]...), nil
}

// put writes p into b as it is (the caller knows it valid).
func (p ExpressPassPacket) put(b *[ExpressPassPacketSize]byte) {
	// Two 64-bit words: type, version, reserved (0) and flow; seq and ts.
	binary.BigEndian.PutUint64(b[epPktType:], uint64(p.Type)<<56|ExpressPassPacketVersion<<48|uint64(p.Flow))
	binary.BigEndian.PutUint64(b[epPktSeq:], uint64(p.Seq)<<32|uint64(p.TS))
}

// Put writes the packet into a feedback message's Data (all 16 bytes),
// allocating nothing: what a part's event path uses. It refuses, writing
// nothing, a packet that is not valid, with the error of Validate.
func (p ExpressPassPacket) Put(data *[cc.FeedbackDataLen]byte) error {
	if !p.valid() {
		return p.invalid()
	}
	p.put((*[ExpressPassPacketSize]byte)(data[:ExpressPassPacketSize]))
	return nil
}

// Feedback returns the message that carries p: Kind p.Type.Kind(), Flow
// p.Flow, Seq p.Seq, Data its 16 bytes. A packet that Validate refuses
// gives Validate's error. It allocates nothing but the error.
func (p ExpressPassPacket) Feedback() (cc.Feedback, error) {
	f := cc.Feedback{Kind: p.Type.Kind(), Flow: p.Flow, Seq: uint64(p.Seq)}
	if !p.valid() {
		return f, p.invalid()
	}
	p.put((*[ExpressPassPacketSize]byte)(f.Data[:ExpressPassPacketSize]))
	return f, nil
}

// DecodeExpressPassPacket reads a control packet from the first
// ExpressPassPacketSize bytes of b (bytes beyond them are the frame's
// padding and are not read). Malformed input is a *cc.DecodeError naming
// the byte offset, checked in this order:
//
//   - fewer than 16 bytes: offset len(b);
//   - a version other than 1: offset 1 (before the type: the other
//     fields are version 1's);
//   - a reserved type (0, 4..255): offset 0;
//   - a nonzero reserved byte: offset 2 or 3, the first nonzero one;
//   - a credit with sequence number 0, or a request or stop with a
//     nonzero one: offset 8.
//
// Every value of flow and ts is accepted. It never panics and never
// allocates except for its error; what it accepts, Encode writes back
// byte for byte.
func DecodeExpressPassPacket(b []byte) (ExpressPassPacket, error) {
	if len(b) < ExpressPassPacketSize {
		return ExpressPassPacket{}, epDecodeErr(len(b), "short packet: "+strconv.Itoa(len(b))+" bytes, want 16")
	}
	if v := b[epPktVersion]; v != ExpressPassPacketVersion {
		return ExpressPassPacket{}, epDecodeErr(epPktVersion, "version "+strconv.Itoa(int(v))+", want 1")
	}
	p := ExpressPassPacket{
		Type: ExpressPassType(b[epPktType]),
		Flow: cc.FlowID(binary.BigEndian.Uint32(b[epPktFlow:])),
		Seq:  binary.BigEndian.Uint32(b[epPktSeq:]),
		TS:   binary.BigEndian.Uint32(b[epPktTS:]),
	}
	if p.Type.Kind() == cc.FeedbackNone {
		return ExpressPassPacket{}, epDecodeErr(epPktType, "reserved type "+strconv.Itoa(int(p.Type)))
	}
	for i := epPktReserved; i < epPktFlow; i++ {
		if b[i] != 0 {
			return ExpressPassPacket{}, epDecodeErr(i, "reserved byte 0x"+strconv.FormatUint(uint64(b[i]), 16)+", want 0")
		}
	}
	if (p.Type == ExpressPassTypeCredit) != (p.Seq != 0) {
		reason := "credit with sequence number 0"
		if p.Type != ExpressPassTypeCredit {
			reason = p.Type.String() + " with sequence number " + strconv.FormatUint(uint64(p.Seq), 10) + ", want 0"
		}
		return ExpressPassPacket{}, epDecodeErr(epPktSeq, reason)
	}
	return p, nil
}

// Decode is DecodeExpressPassPacket as a method: it sets *p from b and
// returns DecodeExpressPassPacket's error, leaving *p unchanged on error.
func (p *ExpressPassPacket) Decode(b []byte) error {
	q, err := DecodeExpressPassPacket(b)
	if err != nil {
		return err
	}
	*p = q
	return nil
}

//go:noinline
func epDecodeErr(offset int, reason string) error {
	return &cc.DecodeError{What: "ExpressPass control packet", Offset: offset, Reason: reason}
}

// ExpressPassEchoSize is the bytes of a data frame's cc.Packet.Hdr that
// ExpressPass's echo takes: 8 (see PutExpressPassEcho); the other 8 are
// reserved.
const ExpressPassEchoSize = 8

// epEchoWhat names the data frame's header in decode errors.
const epEchoWhat = "ExpressPass data header"

// PutExpressPassEcho writes ExpressPass's data frame header into hdr, a
// data frame's cc.Packet.Hdr: the echo seq, the sequence number of the
// credit the frame spends (0: it spends none). rp.ExpressPass writes
// it in Sent, np.ExpressPass reads it in Receive
// (ExpressPassEcho). All 16 bytes are written, big-endian:
//
//	byte   bits  field     meaning
//	0–7    64    echo      the sequence number of the credit the frame
//	                       spends, 1..2^SeqBits − 1; 0: none
//	8–15   64    reserved  0
//
// Sources. ExpressPass's sender sends one data frame per credit and the
// frame carries the credit's sequence number back to the receiver, which
// counts the gaps between the numbers it sees as credits the network
// dropped: the loss that drives its credit feedback control
// ([ExpressPass] §3). A NIC would carry that echo in the data frame's
// transport header, as wide as the credit's own sequence number (32 bits
// in ExpressPassPacket). The offset, the width and the reserved bytes are
// hwcc's: 64 bits hold any number the field is given, so that the
// receiver, not the codec, judges it against its sequence space (SeqBits,
// at most 32), as ExpressPassPacket leaves a credit's number to the
// parts; the rest of cc.Packet.Hdr is reserved so that a frame carrying
// another scheme's bytes is refused, not read as an echo. An all-zero
// Hdr is a frame that spent no credit.
func PutExpressPassEcho(hdr *[cc.PacketHdrLen]byte, seq uint64) {
	binary.BigEndian.PutUint64(hdr[:ExpressPassEchoSize], seq)
	binary.BigEndian.PutUint64(hdr[ExpressPassEchoSize:], 0) // reserved
}

// ExpressPassEcho reads the echo from a data frame's header (the layout
// of PutExpressPassEcho): bytes 0–7, any value (0: the frame spent no
// credit). A nonzero reserved byte (8–15) is a *cc.DecodeError naming
// the first one. It never allocates except for its error; what it
// accepts, PutExpressPassEcho writes back byte for byte.
func ExpressPassEcho(hdr *[cc.PacketHdrLen]byte) (uint64, error) {
	if binary.BigEndian.Uint64(hdr[ExpressPassEchoSize:]) != 0 {
		return 0, epEchoReserved(hdr)
	}
	return binary.BigEndian.Uint64(hdr[:ExpressPassEchoSize]), nil
}

// epEchoReserved is ExpressPassEcho's error: the first nonzero reserved
// byte.
//
//go:noinline
func epEchoReserved(hdr *[cc.PacketHdrLen]byte) error {
	i := ExpressPassEchoSize
	for hdr[i] == 0 {
		i++
	}
	return &cc.DecodeError{What: epEchoWhat, Offset: i, Reason: "reserved byte 0x" + strconv.FormatUint(uint64(hdr[i]), 16) + ", want 0"}
}
