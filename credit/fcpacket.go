package credit

import (
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// FCOp is the 4-bit Op field of a flow-control packet.
type FCOp uint8

// Flow-control packet operations (IBA 7.9.4). Op values 2..15 are
// reserved; Decode refuses them.
const (
	// FCNormal (Op 0) is the normal flow-control packet, sent while the
	// link is up: periodically and when the credit limit changes.
	FCNormal FCOp = 0
	// FCInit (Op 1) is the flow-control init packet, sent while the link
	// initialises (see CBFCSender.UpdateFC for how hwcc takes one).
	FCInit FCOp = 1
)

// String returns "normal", "init" or "reserved(n)".
func (o FCOp) String() string {
	switch o {
	case FCNormal:
		return "normal"
	case FCInit:
		return "init"
	}
	return "reserved(" + strconv.Itoa(int(o)) + ")"
}

// FCPacket layout constants.
const (
	// FCPacketSize is the flow-control packet's length on the link: 6
	// bytes, 4 of fields and the 2-byte LPCRC.
	FCPacketSize = 6
	// LPCRCPoly is the LPCRC's generator polynomial in normal (MSB-first)
	// notation, x^16 + x^12 + x^3 + x + 1: the same CRC-16 as IBA's VCRC.
	LPCRCPoly = 0x100B
	// lpcrcPolyRev is LPCRCPoly bit-reversed, for the LSB-first register.
	lpcrcPolyRev = 0xD008
)

// FCPacket is an InfiniBand link-level flow-control packet (IBA 7.9.4): a
// port sends one per data virtual lane to its link partner, carrying the
// FCTBS of its own transmit side (for the partner's receiver, Resync) and
// the FCCL of its own receive side (for the partner's sender, Update).
//
// Wire format, 6 bytes, fields most significant bit first:
//
//	byte  0        1        2        3        4        5
//	bit   7654 3210 76543210 7654 3210 76543210 76543210 76543210
//	      Op   FCTBS[11:0]   VL   FCCL[11:0]    LPCRC[15:0]
//
//	Op     4 bits  FCNormal (0) or FCInit (1); 2..15 reserved
//	FCTBS 12 bits  the sender's total blocks sent, mod 4096
//	VL     4 bits  the data VL, 0..14 (VL15 is not flow controlled)
//	FCCL  12 bits  the receiver's credit limit, mod 4096
//	LPCRC 16 bits  CRC-16 of bytes 0..3 (below)
//
// Sources for the layout: [IBA] §7.9.4; Wireshark's InfiniBand dissector
// ([Wireshark-IB], epan/dissectors/packet-infiniband.c),
// dissect_infiniband_link, which reads Op from the high nibble of byte 0
// (values 0 "Normal Flow Control" and 1 "Flow Control Init", others
// "Reserved"), FCTBS from the low 12 bits of bytes 0–1, VL and FCCL from
// bytes 2–3 and LPCRC from bytes 4–5, all big-endian; and the Erlangen
// InfiniBand HCA model's packet_header.h (class fcp: op bits 0–3, fctbs
// 4–15, vl 16–19, fccl 20–31, lpcrc 32–47; NORMAL = 0, INIT = 1).
//
// LPCRC: IBA computes it as it computes the VCRC, a CRC-16 with generator
// 0x100B (LPCRCPoly; the Erlangen model: "16 Bit CRC based upon HIPPI 6400
// CRC with generator polynome 0x100B"). hwcc follows Endace's dagcrc.c
// (dagcrc_infiniband_vcrc16_r): register initialised to 0xFFFF, each byte
// fed least significant bit first (the reflected form, polynomial 0xD008),
// the result complemented; LPCRC gives the check value. Where the sources
// are silent: the byte order of the 16-bit result on the link. hwcc writes
// it most significant byte first, as Wireshark reads the field; a model
// that must match an HCA bit for bit should check
// this against the specification's CRC figure.
//
// The zero value is a normal packet on VL 0 with both counters 0. An
// FCPacket is a plain value; Encode, AppendTo and Decode never allocate
// (AppendTo only when dst must grow).
type FCPacket struct {
	Op    FCOp   // 4 bits: FCNormal or FCInit
	FCTBS uint16 // 12 bits: total blocks sent, mod 4096
	VL    uint8  // 4 bits: 0..MaxVL
	FCCL  uint16 // 12 bits: credit limit, mod 4096
}

// fcPacketPart names the packet in errors.
const fcPacketPart = "credit.FCPacket"

// Validate reports a field out of its range as a *cc.EventError (event
// "Encode"): Op not FCNormal or FCInit, FCTBS or FCCL above 4095, VL above
// MaxVL.
func (p FCPacket) Validate() error {
	switch {
	case p.Op > FCInit:
		return p.refuse("Op " + strconv.Itoa(int(p.Op)) + " is reserved (want 0 normal or 1 init)")
	case p.FCTBS > counterMask:
		return p.refuse("FCTBS " + strconv.Itoa(int(p.FCTBS)) + " is not a 12-bit value (0..4095)")
	case p.VL > MaxVL:
		return p.refuse("VL " + strconv.Itoa(int(p.VL)) + " is not a data VL (0..14)")
	case p.FCCL > counterMask:
		return p.refuse("FCCL " + strconv.Itoa(int(p.FCCL)) + " is not a 12-bit value (0..4095)")
	}
	return nil
}

//go:noinline
func (p FCPacket) refuse(reason string) error {
	return &cc.EventError{Part: fcPacketPart, Event: "Encode", Reason: reason}
}

// Encode returns the packet's 6 bytes with its LPCRC. It refuses, with the
// error of Validate, a field out of range (it never truncates one).
func (p FCPacket) Encode() ([FCPacketSize]byte, error) {
	var b [FCPacketSize]byte
	if err := p.Validate(); err != nil {
		return b, err
	}
	p.put(&b)
	return b, nil
}

// AppendTo appends the packet's 6 bytes to dst and returns the extended
// slice; it allocates only when dst must grow. It refuses, returning dst
// unchanged and the error of Validate, a field out of range.
func (p FCPacket) AppendTo(dst []byte) ([]byte, error) {
	if err := p.Validate(); err != nil {
		return dst, err
	}
	var b [FCPacketSize]byte
	p.put(&b)
	return append(dst, b[:]...), nil
}

// put writes the valid packet p into b.
func (p FCPacket) put(b *[FCPacketSize]byte) {
	b[0] = byte(p.Op)<<4 | byte(p.FCTBS>>8)
	b[1] = byte(p.FCTBS)
	b[2] = p.VL<<4 | byte(p.FCCL>>8)
	b[3] = byte(p.FCCL)
	c := LPCRC(b[:4])
	b[4] = byte(c >> 8)
	b[5] = byte(c)
}

// DecodeFCPacket reads a flow-control packet from the first FCPacketSize
// bytes of b (bytes beyond them are the caller's framing and are not
// read). Malformed input is a *cc.DecodeError naming the byte offset:
// fewer than 6 bytes (offset len(b)), a reserved Op (offset 0), VL 15
// (offset 2) or an LPCRC that does not match bytes 0..3 (offset 4). It
// never panics and never allocates except for its error.
func DecodeFCPacket(b []byte) (FCPacket, error) {
	if len(b) < FCPacketSize {
		return FCPacket{}, decodeErr(len(b), "short packet: "+strconv.Itoa(len(b))+" bytes, want 6")
	}
	p := FCPacket{
		Op:    FCOp(b[0] >> 4),
		FCTBS: uint16(b[0]&0x0F)<<8 | uint16(b[1]),
		VL:    b[2] >> 4,
		FCCL:  uint16(b[2]&0x0F)<<8 | uint16(b[3]),
	}
	if p.Op > FCInit {
		return FCPacket{}, decodeErr(0, "reserved Op "+strconv.Itoa(int(p.Op)))
	}
	if p.VL > MaxVL {
		return FCPacket{}, decodeErr(2, "VL 15 is not flow controlled")
	}
	if got, want := uint16(b[4])<<8|uint16(b[5]), LPCRC(b[:4]); got != want {
		return FCPacket{}, decodeErr(4, "LPCRC 0x"+strconv.FormatUint(uint64(got), 16)+", want 0x"+strconv.FormatUint(uint64(want), 16))
	}
	return p, nil
}

// Decode is DecodeFCPacket as a method: it sets *p from b and returns
// DecodeFCPacket's error, leaving *p unchanged on error.
func (p *FCPacket) Decode(b []byte) error {
	q, err := DecodeFCPacket(b)
	if err != nil {
		return err
	}
	*p = q
	return nil
}

//go:noinline
func decodeErr(offset int, reason string) error {
	return &cc.DecodeError{What: "InfiniBand flow-control packet", Offset: offset, Reason: reason}
}

// LPCRC returns the link packet CRC of b: CRC-16, generator 0x100B,
// register initialised to 0xFFFF, bits fed least significant first,
// result complemented (see FCPacket). A flow-control packet's LPCRC covers
// its bytes 0..3. Worked values: LPCRC([]byte("123456789")) = 0x0A3D, and
// the all-zero normal packet for VL 0 reads 00 00 00 00 62 B3; the tests
// check LPCRC against an independent MSB-first computation.
func LPCRC(b []byte) uint16 {
	c := uint16(0xFFFF)
	for _, x := range b {
		c ^= uint16(x)
		for range 8 {
			// Shift out the low bit; where it was 1, the reflected
			// polynomial divides it out.
			if c&1 != 0 {
				c = c>>1 ^ lpcrcPolyRev
			} else {
				c >>= 1
			}
		}
	}
	return ^c
}

// UpdateFC takes a flow-control packet from the link partner at now: its
// FCCL is this sender's credit limit. It returns whether the limit was
// taken, and refuses, changing nothing, a packet for another VL, a field
// out of range, and an event out of time order.
//
//   - FCNormal: Update(now, p.FCCL), with its stale-update rule.
//   - FCInit: IBA sends init packets only while the link initialises,
//     before data flows; the sources consulted do not give the sender's
//     rule for them. hwcc assigns the limit instead of advancing it: FCCL
//     = p.FCCL whenever (p.FCCL − FCTBS) mod 4096 ≤ 2048, also when that
//     moves it backwards (a receiver that re-initialised and has less
//     room). Moving the limit back only withholds credit, so the rule is
//     as safe as Update's; a value more than 2048 ahead is ignored as
//     Update ignores it. The packet's FCTBS is for the receive side
//     (CBFCReceiver.ResyncFC).
func (s *CBFCSender) UpdateFC(now units.Time, p FCPacket) (accepted bool, err error) {
	if !s.clock.InOrder(now) {
		return false, s.clock.Check(cbfcSenderPart, "UpdateFC", now)
	}
	if err := p.Validate(); err != nil {
		return false, &cc.EventError{Part: cbfcSenderPart, Event: "UpdateFC", Reason: "bad packet", Err: err}
	}
	if p.VL != s.vl {
		return false, wrongVL(cbfcSenderPart, "UpdateFC", p.VL, s.vl)
	}
	if p.Op == FCNormal {
		return s.Update(now, p.FCCL)
	}
	s.clock.Advance(now)
	if Blocks(wrap12(p.FCCL-s.fctbs)) > MaxAdvance {
		s.ignored++
		return false, nil
	}
	s.fccl = p.FCCL
	return true, nil
}

// ResyncFC takes a flow-control packet from the link partner at now: its
// FCTBS resynchronises ABR (Resync), for an init packet as for a normal
// one. Its FCCL is for the sender side (CBFCSender.UpdateFC). It
// refuses, changing nothing, a packet for another VL, a field out of
// range, and an event out of time order.
func (r *CBFCReceiver) ResyncFC(now units.Time, p FCPacket) error {
	if !r.clock.InOrder(now) {
		return r.clock.Check(cbfcReceiverPart, "ResyncFC", now)
	}
	if err := p.Validate(); err != nil {
		return &cc.EventError{Part: cbfcReceiverPart, Event: "ResyncFC", Reason: "bad packet", Err: err}
	}
	if p.VL != r.cfg.VL {
		return wrongVL(cbfcReceiverPart, "ResyncFC", p.VL, r.cfg.VL)
	}
	return r.Resync(now, p.FCTBS)
}

//go:noinline
func wrongVL(part, event string, got, want uint8) error {
	return &cc.EventError{Part: part, Event: event,
		Reason: "packet for VL " + strconv.Itoa(int(got)) + " on VL " + strconv.Itoa(int(want))}
}
