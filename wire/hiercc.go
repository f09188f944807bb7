package wire

import (
	"encoding/binary"
	"math"
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/voq"
)

// HierCC's wire constants ([HierCC] §3.2 and §4 name the fields; the
// widths, offsets and unit are hwcc's, see each format).
const (
	// HierCCVersion is the version the ToRs' formats (HierCCHeader, HierCCCreditPacket,
	// HierCCRatePacket) write and the only one their decoders read; a host's
	// header is version 0 (HierCCHostHeader).
	HierCCVersion = 1
	// HierCCToRBits is the width of a ToR identifier i: 12 bits, 0..4095, the
	// width of INT's switch ID (cc.Env.SwitchID). The paper gives none.
	HierCCToRBits = 12
	// HierCCMaxToR is the largest ToR identifier.
	HierCCMaxToR = 1<<HierCCToRBits - 1
	// HierCCHeaderSize, HierCCCreditPacketSize and HierCCRatePacketSize are 16 bytes each:
	// all of cc.Packet.Hdr and of cc.Feedback.Data.
	HierCCHeaderSize       = 16
	HierCCCreditPacketSize = 16
	HierCCRatePacketSize   = 16
	// HierCCRateUnit is the LSB of the rate packet's rate and of every
	// HierCC rate register (cp.HierCC's first hop, rp.HierCC): 1 kb/s. A
	// 32-bit register holds up to 4.29 Tb/s.
	HierCCRateUnit = units.Kbps
	// HierCCMaxRate is the largest rate a 32-bit register of HierCCRateUnit
	// holds: (2^32 − 1) kb/s.
	HierCCMaxRate = units.Rate(math.MaxUint32) * HierCCRateUnit
	// HierCCMaxCreditAmount is the largest credit a credit packet carries: 2^30
	// bytes, the largest Δ of credit.WRR (credit.WRRMaxCredit).
	HierCCMaxCreditAmount = 1 << 30
)

// The formats fit what carries them.
var (
	_ [cc.PacketHdrLen - HierCCHeaderSize]byte
	_ [cc.FeedbackDataLen - HierCCCreditPacketSize]byte
	_ [cc.FeedbackDataLen - HierCCRatePacketSize]byte
)

// Feedback kinds of HierCC's two control messages. They are kinds from
// cc.FeedbackUser up (package cc's range for schemes that add a kind
// without editing cc/types.go). cc.FeedbackRate ("a congestion point's
// rate message ... in the codec of the algorithm that sent it") would fit
// the rate packet too; hwcc keeps HierCC's own kind so that a rate packet
// is never read with another scheme's codec.
const (
	// FeedbackHierCCRate is the rate packet from a sender-side ToR to a host's
	// flow (HierCCRatePacket in Data), which rp.HierCC takes.
	FeedbackHierCCRate = cc.FeedbackUser + 16
	// FeedbackHierCCCredit is the credit packet from a receiver-side ToR to a
	// sender-side ToR (HierCCCreditPacket in Data), which cp.HierCC takes.
	FeedbackHierCCCredit = cc.FeedbackUser + 17
)

// Packet types: the first byte of a credit and of a rate packet, so that
// neither decodes as the other.
const (
	hierccTypeCredit = 1
	hierccTypeRate   = 2
)

func hierccItoa(v uint64) string { return strconv.FormatUint(v, 10) }

// ---------------------------------------------------------------------------
// HierCCHeader

// Byte offsets of the header's fields.
const (
	hierccHdrVersion = 0
	hierccHdrFlags   = 1
	hierccHdrToR     = 2
	hierccHdrDst     = 4
	hierccHdrFlows   = 8
	hierccHdrSent    = 10
	hierccHdrPad     = 14
)

// hdrMark is the flags byte's M bit.
const hierccHdrMark = 0x01

// headerWhat names the header in decode errors.
const hierccHeaderWhat = "HierCC header"

// HierCCHeader is what HierCC carries in a data packet between the two ToRs
// ([HierCC] §3.2: "Before dequeuing a packet from a VOQ,
// the value of F_ij and S_ij will be inserted into the packet header";
// "the receiver-side ToR will determine which ToR the packet comes from"),
// and the host's reserved mark bit (section 4: "A sender marks one
// reserved bit in the data packet header every 10us"). The sender-side ToR
// writes it on dequeue, the receiver-side ToR reads it (both cp.HierCC).
// hwcc carries it in cc.Packet.Hdr.
//
// Wire format, 16 bytes, big-endian:
//
//	byte   bits  field    meaning
//	0      8     version  HierCCVersion (1); 0 is no ToR's header: an all-zero
//	                      cc.Packet.Hdr is "none", and a host writes
//	                      version 0 (HierCCHostHeader)
//	1      1     M        bit 0: the host's mark bit as the packet arrived
//	                      at the sender-side ToR (HierCCFlagMark of the host's
//	                      header, at the same place); bits 1–7 reserved, 0
//	2–3    16    tor      sender-side ToR i in the low 12 bits; the high
//	                      4 bits reserved, 0
//	4–7    32    dst      destination host j, the VOQ's key (voq.Key)
//	8–9    16    F_ij     flows in VOQ i.j (voq.FlowBits)
//	10–13  32    S_ij     bytes sent from VOQ i.j, this packet included,
//	                      mod 2^32 (voq.SentBits)
//	14–15  16    reserved 0
//
// The paper names F_ij, S_ij and the reserved bit and gives no widths,
// offsets or identifiers; all of those are hwcc's: F_ij and S_ij as
// package voq keeps them (16 and 32 bits), the ToR in 12 bits as INT's
// switch ID, the destination as a 32-bit host number. The VOQ i.j is
// (tor, dst). In a real frame the M bit sits in a reserved bit of the
// transport header (BTH's reserved bits, say); hwcc carries it from the
// host to the sender-side ToR in the host's header (HierCCHostHeader), which
// the ToR replaces with this one on dequeue.
//
// The zero value encodes (ToR 0, host 0, no flows, nothing sent). Encode,
// AppendTo and Decode never allocate except for their errors (AppendTo
// when dst must grow).
type HierCCHeader struct {
	Mark  bool    // M, 1 bit
	ToR   uint16  // i, 12 bits
	Dst   voq.Key // j, 32 bits
	Flows uint16  // F_ij, 16 bits
	Sent  uint32  // S_ij, 32 bits, wraps
}

// Validate reports a header that cannot be encoded (a ToR above HierCCMaxToR)
// as a *cc.EventError.
func (h HierCCHeader) Validate() error {
	if h.ToR > HierCCMaxToR {
		return eventErr("wire.HierCCHeader", "Encode", "tor "+hierccItoa(uint64(h.ToR))+", want 0..4095")
	}
	return nil
}

// Encode returns the header's 16 bytes, or Validate's error.
func (h HierCCHeader) Encode() (b [HierCCHeaderSize]byte, err error) {
	if err := h.Validate(); err != nil {
		return b, err
	}
	h.put(&b)
	return b, nil
}

// AppendTo appends the header's 16 bytes to dst, or returns dst unchanged
// and Validate's error.
func (h HierCCHeader) AppendTo(dst []byte) ([]byte, error) {
	if err := h.Validate(); err != nil {
		return dst, err
	}
	var b [HierCCHeaderSize]byte
	h.put(&b)
	return append(dst, b[:]...), nil
}

// Put writes the header into a packet's Hdr (all 16 bytes). It refuses,
// writing nothing, what Validate refuses.
func (h HierCCHeader) Put(hdr *[cc.PacketHdrLen]byte) error {
	if h.ToR > HierCCMaxToR { // Validate's check, without a call when valid
		return h.Validate()
	}
	h.put((*[HierCCHeaderSize]byte)(hdr[:HierCCHeaderSize]))
	return nil
}

func (h HierCCHeader) put(b *[HierCCHeaderSize]byte) {
	var flags uint64
	if h.Mark {
		flags = hierccHdrMark
	}
	// Two 64-bit words: version, flags, tor, dst; F, S, reserved.
	binary.BigEndian.PutUint64(b[0:], HierCCVersion<<56|flags<<48|uint64(h.ToR)<<32|uint64(h.Dst))
	binary.BigEndian.PutUint64(b[8:], uint64(h.Flows)<<48|uint64(h.Sent)<<16)
}

// DecodeHierCCHeader reads a header from the first 16 bytes of b. Malformed
// input is a *cc.DecodeError naming the byte offset, checked in this
// order: fewer than 16 bytes (offset len(b)); a version other than 1
// (offset 0; an all-zero Hdr, "no header", fails here); a reserved flag
// bit (1); a ToR's reserved high bits (2); a nonzero reserved byte (14 or
// 15). What it accepts, Encode writes back byte for byte.
func DecodeHierCCHeader(b []byte) (HierCCHeader, error) {
	if len(b) < HierCCHeaderSize {
		return HierCCHeader{}, shortErr(hierccHeaderWhat, len(b), HierCCHeaderSize)
	}
	if b[hierccHdrVersion] != HierCCVersion {
		return HierCCHeader{}, decodeErr(hierccHeaderWhat, hierccHdrVersion, "version "+hierccItoa(uint64(b[hierccHdrVersion]))+", want 1")
	}
	if b[hierccHdrFlags]&^hierccHdrMark != 0 {
		return HierCCHeader{}, decodeErr(hierccHeaderWhat, hierccHdrFlags, "reserved flag bits set")
	}
	tor := binary.BigEndian.Uint16(b[hierccHdrToR:])
	if tor > HierCCMaxToR {
		return HierCCHeader{}, decodeErr(hierccHeaderWhat, hierccHdrToR, "tor's reserved high bits set")
	}
	if err := reservedErr(hierccHeaderWhat, b, hierccHdrPad, HierCCHeaderSize); err != nil {
		return HierCCHeader{}, err
	}
	return HierCCHeader{
		Mark:  b[hierccHdrFlags]&hierccHdrMark != 0,
		ToR:   tor,
		Dst:   voq.Key(binary.BigEndian.Uint32(b[hierccHdrDst:])),
		Flows: binary.BigEndian.Uint16(b[hierccHdrFlows:]),
		Sent:  binary.BigEndian.Uint32(b[hierccHdrSent:]),
	}, nil
}

// Decode sets *h from b, leaving it unchanged on error (DecodeHierCCHeader).
func (h *HierCCHeader) Decode(b []byte) error {
	x, err := DecodeHierCCHeader(b)
	if err != nil {
		return err
	}
	*h = x
	return nil
}

// ---------------------------------------------------------------------------
// HierCC host header

// HierCCFlags are what a host (rp.HierCC) tells the sender-side ToR of each data packet, in
// the host's header (HierCCHostHeader): bit 0 HierCCFlagMark, bit 1 HierCCFlagFirst, bit 2
// HierCCFlagLast; bits 3–7 are reserved.
type HierCCFlags uint8

// The host's flags.
const (
	// HierCCFlagMark is the host's mark (section 4's reserved bit): the
	// sender-side ToR answers it with a rate packet and
	// copies it into its header's M bit (HierCCHeader.Mark).
	HierCCFlagMark HierCCFlags = 1 << 0
	// HierCCFlagFirst and HierCCFlagLast say that a packet is the first or the last of
	// its flow (both: a one-packet flow), as RoCEv2's BTH opcodes FIRST,
	// LAST and ONLY say it of a message: the sender-side ToR counts F_ij
	// with them (cp.HierCC). rp.HierCC sets each on one packet of a flow only, the
	// first time it is sent.
	HierCCFlagFirst HierCCFlags = 1 << 1
	HierCCFlagLast  HierCCFlags = 1 << 2
)

// hostFlags is every flag bit the host's header defines.
const hierccHostFlags = HierCCFlagMark | HierCCFlagFirst | HierCCFlagLast

// hostWhat names the host's header in decode errors.
const hierccHostWhat = "HierCC host header"

// HierCCHostHeader returns the 16 bytes of cc.Packet.Hdr rp.HierCC writes in Sent
// for the sender-side ToR (cp.HierCC reads them with DecodeHierCCHostHeader, then
// writes its HierCCHeader over them on dequeue). Bits of f beyond HierCCFlagLast are
// reserved and not written.
//
// Wire format, 16 bytes:
//
//	byte   bits  field     meaning
//	0      8     version   0: no ToR's header yet (HierCCHeader's version byte)
//	1      1     mark      bit 0: HierCCFlagMark, at the place of HierCCHeader's M bit
//	       1     first     bit 1: HierCCFlagFirst
//	       1     last      bit 2: HierCCFlagLast; bits 3–7 reserved, 0
//	2–15   112   reserved  0
//
// A packet with no flag has an all-zero header: "none". In a real frame
// the mark is a reserved bit of the transport header and first and last
// are its opcodes (BTH's FIRST, LAST and ONLY): bits the ToR reads where
// the host's NIC wrote them. The layout is hwcc's, so that one field,
// cc.Packet.Hdr, carries the host's bits to the ToR and the ToR's header
// on from there: a version byte of 0 tells the host's form from the ToR's
// (version 1), and the mark sits where the ToR's M bit does.
func HierCCHostHeader(f HierCCFlags) (hdr [cc.PacketHdrLen]byte) {
	hdr[hierccHdrFlags] = byte(f & hierccHostFlags)
	return hdr
}

// IsHierCCHostHeader reports whether hdr is in a host's form, version 0
// (an all-zero Hdr, "none", included), which DecodeHierCCHostHeader reads,
// rather than a ToR's header (version 1, HierCCHeader), which
// DecodeHierCCHeader reads. It reads the version byte alone: either
// decoder may still refuse the rest.
func IsHierCCHostHeader(hdr *[cc.PacketHdrLen]byte) bool { return hdr[hierccHdrVersion] == 0 }

// DecodeHierCCHostHeader reads the flags of a host's header (HierCCHostHeader) from
// the first 16 bytes of b. Malformed input is a *cc.DecodeError naming
// the byte offset, checked in this order: fewer than 16 bytes (offset
// len(b)); a version other than 0, a ToR's header (0); a reserved flag
// bit (1); a nonzero reserved byte (2..15, the first). What it accepts,
// HierCCHostHeader writes back byte for byte. It never allocates except for
// its error.
func DecodeHierCCHostHeader(b []byte) (HierCCFlags, error) {
	if len(b) < HierCCHeaderSize {
		return 0, shortErr(hierccHostWhat, len(b), HierCCHeaderSize)
	}
	if b[hierccHdrVersion] != 0 {
		return 0, decodeErr(hierccHostWhat, hierccHdrVersion, "version "+hierccItoa(uint64(b[hierccHdrVersion]))+", want 0 (a ToR's header is version 1)")
	}
	f := HierCCFlags(b[hierccHdrFlags])
	if f&^hierccHostFlags != 0 {
		return 0, decodeErr(hierccHostWhat, hierccHdrFlags, "reserved flag bits set")
	}
	if binary.BigEndian.Uint64(b[8:]) != 0 || binary.BigEndian.Uint64(b[0:])&0xFFFF_FFFF_FFFF != 0 {
		return 0, reservedErr(hierccHostWhat, b, hierccHdrToR, HierCCHeaderSize)
	}
	return f, nil
}

// ---------------------------------------------------------------------------
// Credit packet

const (
	hierccCrType   = 0
	hierccCrVer    = 1
	hierccCrToR    = 2
	hierccCrDst    = 4
	hierccCrAmount = 8
	hierccCrTotal  = 12
)

const hierccCreditWhat = "HierCC credit packet"

// HierCCCreditPacket is the credit a receiver-side ToR's WRR scheduler sends to
// VOQ i.j at sender-side ToR i ([HierCC] §3.2: "When a
// new credit packet to VOQ_ij is received from the receiver-side ToR, the
// amount of credits of VOQ_ij will be increased by the received credit
// amount"; section 3.1: "k WRR schedulers to determine when and how many
// credits will be sent to the corresponding VOQs"). hwcc carries it in
// cc.Feedback.Data with Kind FeedbackHierCCCredit.
//
// Wire format, 16 bytes, big-endian:
//
//	byte   bits  field    meaning
//	0      8     type     1 (credit)
//	1      8     version  HierCCVersion (1)
//	2–3    16    tor      sender-side ToR i, low 12 bits; high 4 bits 0
//	4–7    32    dst      destination host j (the VOQ's key)
//	8–11   32    amount   bytes of credit, 1..2^30 (Δ = 1 KB per credit,
//	                      section 5)
//	12–15  32    total    C_ij: credit bytes the receiver has granted the
//	                      VOQ after this one, mod 2^32
//
// The paper says a credit packet carries "the credit amount" for VOQ i.j
// and nothing of its format; the layout is hwcc's. The amount is in bytes
// rather than a count of Δ, so that the sender need not know the
// receiver's Δ. total is the receiver's C_ij register: a sender can see a
// lost credit as a jump in it (cp.HierCC counts the bytes in credit_gap)
// without it changing what the sender does.
type HierCCCreditPacket struct {
	ToR    uint16  // i, 12 bits
	Dst    voq.Key // j
	Amount uint32  // bytes, 1..2^30
	Total  uint32  // C_ij after this credit, wraps
}

// Validate reports a packet that cannot be encoded (ToR above 4095, an
// amount outside 1..2^30) as a *cc.EventError.
func (c HierCCCreditPacket) Validate() error {
	switch {
	case c.ToR > HierCCMaxToR:
		return eventErr("wire.HierCCCreditPacket", "Encode", "tor "+hierccItoa(uint64(c.ToR))+", want 0..4095")
	case c.Amount < 1 || c.Amount > HierCCMaxCreditAmount:
		return eventErr("wire.HierCCCreditPacket", "Encode", "amount "+hierccItoa(uint64(c.Amount))+" B, want 1..1073741824")
	}
	return nil
}

// Encode returns the packet's 16 bytes, or Validate's error.
func (c HierCCCreditPacket) Encode() (b [HierCCCreditPacketSize]byte, err error) {
	if err := c.Validate(); err != nil {
		return b, err
	}
	c.put(&b)
	return b, nil
}

// AppendTo appends the packet's 16 bytes to dst, or returns dst unchanged
// and Validate's error.
func (c HierCCCreditPacket) AppendTo(dst []byte) ([]byte, error) {
	if err := c.Validate(); err != nil {
		return dst, err
	}
	var b [HierCCCreditPacketSize]byte
	c.put(&b)
	return append(dst, b[:]...), nil
}

func (c HierCCCreditPacket) put(b *[HierCCCreditPacketSize]byte) {
	binary.BigEndian.PutUint64(b[0:], hierccTypeCredit<<56|HierCCVersion<<48|uint64(c.ToR)<<32|uint64(c.Dst))
	binary.BigEndian.PutUint64(b[8:], uint64(c.Amount)<<32|uint64(c.Total))
}

// Put writes the packet into a feedback message's Data (all 16 bytes),
// allocating nothing: what a part's event path uses. It refuses, writing
// nothing, what Validate refuses.
func (c HierCCCreditPacket) Put(data *[cc.FeedbackDataLen]byte) error {
	if c.ToR > HierCCMaxToR || c.Amount < 1 || c.Amount > HierCCMaxCreditAmount { // Validate's checks
		return c.Validate()
	}
	c.put((*[HierCCCreditPacketSize]byte)(data[:HierCCCreditPacketSize]))
	return nil
}

// Feedback returns the message that carries c: Kind FeedbackHierCCCredit, Data
// its 16 bytes. A packet that Validate refuses gives Validate's error.
func (c HierCCCreditPacket) Feedback() (cc.Feedback, error) {
	f := cc.Feedback{Kind: FeedbackHierCCCredit}
	if err := c.Validate(); err != nil {
		return f, err
	}
	c.put((*[HierCCCreditPacketSize]byte)(f.Data[:HierCCCreditPacketSize]))
	return f, nil
}

// DecodeHierCCCreditPacket reads a credit packet from the first 16 bytes of b.
// Malformed input is a *cc.DecodeError naming the byte offset, checked in
// this order: fewer than 16 bytes (offset len(b)); a type other than 1
// (0); a version other than 1 (1); the ToR's reserved bits (2); an amount
// of 0 or above 2^30 (8). What it accepts, Encode writes back byte for
// byte.
func DecodeHierCCCreditPacket(b []byte) (HierCCCreditPacket, error) {
	if len(b) < HierCCCreditPacketSize {
		return HierCCCreditPacket{}, shortErr(hierccCreditWhat, len(b), HierCCCreditPacketSize)
	}
	if b[hierccCrType] != hierccTypeCredit {
		return HierCCCreditPacket{}, decodeErr(hierccCreditWhat, hierccCrType, "type "+hierccItoa(uint64(b[hierccCrType]))+", want 1 (credit)")
	}
	if b[hierccCrVer] != HierCCVersion {
		return HierCCCreditPacket{}, decodeErr(hierccCreditWhat, hierccCrVer, "version "+hierccItoa(uint64(b[hierccCrVer]))+", want 1")
	}
	c := HierCCCreditPacket{
		ToR:    binary.BigEndian.Uint16(b[hierccCrToR:]),
		Dst:    voq.Key(binary.BigEndian.Uint32(b[hierccCrDst:])),
		Amount: binary.BigEndian.Uint32(b[hierccCrAmount:]),
		Total:  binary.BigEndian.Uint32(b[hierccCrTotal:]),
	}
	if c.ToR > HierCCMaxToR {
		return HierCCCreditPacket{}, decodeErr(hierccCreditWhat, hierccCrToR, "tor's reserved high bits set")
	}
	if c.Amount < 1 || c.Amount > HierCCMaxCreditAmount {
		return HierCCCreditPacket{}, decodeErr(hierccCreditWhat, hierccCrAmount, "amount "+hierccItoa(uint64(c.Amount))+" B, want 1..1073741824")
	}
	return c, nil
}

// Decode sets *c from b, leaving it unchanged on error.
func (c *HierCCCreditPacket) Decode(b []byte) error {
	x, err := DecodeHierCCCreditPacket(b)
	if err != nil {
		return err
	}
	*c = x
	return nil
}

// ---------------------------------------------------------------------------
// Rate packet

const (
	hierccRtType  = 0
	hierccRtVer   = 1
	hierccRtFlags = 2
	hierccRtPad   = 3
	hierccRtFlow  = 4
	hierccRtRate  = 8
	hierccRtDst   = 12
)

// rtStop is the flags byte's S bit.
const hierccRtStop = 0x01

const hierccRateWhat = "HierCC rate packet"

// HierCCRatePacket is the rate allocation packet a sender-side ToR sends to a
// flow's source ([HierCC] §4: "The sender-side ToR then
// feeds a rate allocation packet for every marked packet based on
// Equation (1)"; section 3.3: R(t) = 0 stops the source while the VOQ is
// above V_high, and "the previous rate value before stopping the source
// will be sent to the senders to resume"). hwcc carries it in
// cc.Feedback.Data with Kind FeedbackHierCCRate; rp.HierCC takes it.
//
// Wire format, 16 bytes, big-endian:
//
//	byte   bits  field    meaning
//	0      8     type     2 (rate)
//	1      8     version  HierCCVersion (1)
//	2      1     S        bit 0: stop (R = 0 while the VOQ is above
//	                      V_high); bits 1–7 reserved, 0
//	3      8     reserved 0
//	4–7    32    flow     the flow the rate is for (cc.FlowID)
//	8–11   32    rate     R in HierCCRateUnit (1 kb/s): 1..2^32−1 (up to 4.29
//	                      Tb/s); 0 exactly when S is set
//	12–15  32    dst      destination host j of the VOQ that set it
//
// The paper gives no format; the layout, the 1 kb/s unit and the stop
// flag (a rate of 0 could be told from no rate by its value alone, but a
// flag lets a NIC act on one bit) are hwcc's. dst is informational (traces,
// and a host with flows to several destinations).
type HierCCRatePacket struct {
	Stop bool      // S, 1 bit
	Flow cc.FlowID // 32 bits
	Rate uint32    // R, kb/s; 0 iff Stop
	Dst  voq.Key   // j
}

// Validate reports a packet that cannot be encoded (a stop with a rate, or
// a rate of 0 without stop) as a *cc.EventError.
func (r HierCCRatePacket) Validate() error {
	if r.Stop != (r.Rate == 0) {
		return eventErr("wire.HierCCRatePacket", "Encode", "rate "+hierccItoa(uint64(r.Rate))+" kb/s with stop "+strconv.FormatBool(r.Stop)+": want rate 0 exactly when stop")
	}
	return nil
}

// Encode returns the packet's 16 bytes, or Validate's error.
func (r HierCCRatePacket) Encode() (b [HierCCRatePacketSize]byte, err error) {
	if err := r.Validate(); err != nil {
		return b, err
	}
	r.put(&b)
	return b, nil
}

// AppendTo appends the packet's 16 bytes to dst, or returns dst unchanged
// and Validate's error.
func (r HierCCRatePacket) AppendTo(dst []byte) ([]byte, error) {
	if err := r.Validate(); err != nil {
		return dst, err
	}
	var b [HierCCRatePacketSize]byte
	r.put(&b)
	return append(dst, b[:]...), nil
}

func (r HierCCRatePacket) put(b *[HierCCRatePacketSize]byte) {
	var flags uint64
	if r.Stop {
		flags = hierccRtStop
	}
	binary.BigEndian.PutUint64(b[0:], hierccTypeRate<<56|HierCCVersion<<48|flags<<40|uint64(r.Flow))
	binary.BigEndian.PutUint64(b[8:], uint64(r.Rate)<<32|uint64(r.Dst))
}

// Put writes the packet into a feedback message's Data (all 16 bytes),
// allocating nothing: what a part's event path uses. It refuses, writing
// nothing, what Validate refuses.
func (r HierCCRatePacket) Put(data *[cc.FeedbackDataLen]byte) error {
	if r.Stop != (r.Rate == 0) { // Validate's check, without a call when valid
		return r.Validate()
	}
	r.put((*[HierCCRatePacketSize]byte)(data[:HierCCRatePacketSize]))
	return nil
}

// Feedback returns the message that carries r to its flow's source: Kind
// FeedbackHierCCRate, Flow r.Flow, Data its 16 bytes (Validate's error for a
// packet it refuses).
func (r HierCCRatePacket) Feedback() (cc.Feedback, error) {
	f := cc.Feedback{Kind: FeedbackHierCCRate, Flow: r.Flow}
	if err := r.Validate(); err != nil {
		return f, err
	}
	r.put((*[HierCCRatePacketSize]byte)(f.Data[:HierCCRatePacketSize]))
	return f, nil
}

// DecodeHierCCRatePacket reads a rate packet from the first 16 bytes of b.
// Malformed input is a *cc.DecodeError naming the byte offset, checked in
// this order: fewer than 16 bytes (offset len(b)); a type other than 2
// (0); a version other than 1 (1); a reserved flag bit (2); a nonzero
// reserved byte (3); a rate of 0 without S, or a rate with S (8). What it
// accepts, Encode writes back byte for byte.
func DecodeHierCCRatePacket(b []byte) (HierCCRatePacket, error) {
	if len(b) < HierCCRatePacketSize {
		return HierCCRatePacket{}, shortErr(hierccRateWhat, len(b), HierCCRatePacketSize)
	}
	if b[hierccRtType] != hierccTypeRate {
		return HierCCRatePacket{}, decodeErr(hierccRateWhat, hierccRtType, "type "+hierccItoa(uint64(b[hierccRtType]))+", want 2 (rate)")
	}
	if b[hierccRtVer] != HierCCVersion {
		return HierCCRatePacket{}, decodeErr(hierccRateWhat, hierccRtVer, "version "+hierccItoa(uint64(b[hierccRtVer]))+", want 1")
	}
	if b[hierccRtFlags]&^hierccRtStop != 0 {
		return HierCCRatePacket{}, decodeErr(hierccRateWhat, hierccRtFlags, "reserved flag bits set")
	}
	if b[hierccRtPad] != 0 {
		return HierCCRatePacket{}, decodeErr(hierccRateWhat, hierccRtPad, "reserved byte not 0")
	}
	r := HierCCRatePacket{
		Stop: b[hierccRtFlags]&hierccRtStop != 0,
		Flow: cc.FlowID(binary.BigEndian.Uint32(b[hierccRtFlow:])),
		Rate: binary.BigEndian.Uint32(b[hierccRtRate:]),
		Dst:  voq.Key(binary.BigEndian.Uint32(b[hierccRtDst:])),
	}
	if r.Stop != (r.Rate == 0) {
		return HierCCRatePacket{}, decodeErr(hierccRateWhat, hierccRtRate, "rate "+hierccItoa(uint64(r.Rate))+" kb/s with stop "+strconv.FormatBool(r.Stop)+": want 0 exactly when stop")
	}
	return r, nil
}

// Decode sets *r from b, leaving it unchanged on error.
func (r *HierCCRatePacket) Decode(b []byte) error {
	x, err := DecodeHierCCRatePacket(b)
	if err != nil {
		return err
	}
	*r = x
	return nil
}
