package wire

import (
	"encoding/binary"
	"strconv"

	"github.com/hwcc/hwcc/cc"
)

// The Congestion Notification Packet's opcode, sizes and offsets (IBA
// annex A17, RoCEv2, section A17.9.3).
const (
	// OpCodeCNP is the BTH OpCode of a RoCEv2 CNP: 0x81, binary 100 00001
	// (annex A17.9.3).
	OpCodeCNP = 0x81
	// CNPReservedBytes is the length of the reserved field that follows
	// the CNP's BTH: 16 bytes (annex A17.9.3).
	CNPReservedBytes = 16
	// ICRCBytes is the length of the invariant CRC that ends every
	// RoCEv2 packet: 4 bytes.
	ICRCBytes = 4
	// CNPBytes is the CNP's transport part on the wire: BTH (12), reserved
	// (16), ICRC (4) — everything after the UDP header.
	CNPBytes = BTHBytes + CNPReservedBytes + ICRCBytes
	// CNPReservedOffset is the byte offset of the reserved field.
	CNPReservedOffset = BTHBytes
	// CNPICRCOffset is the byte offset of the ICRC.
	CNPICRCOffset = CNPReservedOffset + CNPReservedBytes
	// MaxReservedWordOffset is the largest offset of a 32-bit word inside
	// the reserved field (ReservedWord, PutReservedWord).
	MaxReservedWordOffset = CNPReservedBytes - 4
)

// The layout adds up: 12 + 16 + 4 = 32, ICRC at 28.
var (
	_ [CNPBytes - 32]byte
	_ [32 - CNPBytes]byte
	_ [CNPICRCOffset - 28]byte
	_ [28 - CNPICRCOffset]byte
)

const (
	cnpWhat = "CNP"
	cnpPart = "wire.CNP"
	// cnpWord0 is the constant part of the CNP's first 64 bits: OpCode
	// 0x81 in byte 0, byte 1 zero (SE, M, PadCnt, TVer all 0), BECN in
	// byte 4.
	cnpWord0 = OpCodeCNP<<56 | bitBECN<<24
)

// CNP is the transport part of a RoCEv2 Congestion Notification Packet
// (IBA annex A17, section A17.9.3): what follows the UDP header (port
// 4791) of the packet a notification point (the receiving NIC) sends to
// the reaction point (the sending NIC) of a flow whose packets arrived
// with ECN CE marks. Only DestQP, the P_Key, the reserved bytes and the
// ICRC vary; every other BTH field is fixed.
//
// Wire format, 32 bytes, big-endian (annex A17.9.3 for the CNP, IBA Vol. 1
// section 9.2 for the BTH):
//
//	byte    bits  field     value
//	0       8     OpCode    0x81 (OpCodeCNP)
//	1       1     SE        0
//	        1     M         0
//	        2     PadCnt    0
//	        4     TVer      0
//	2–3     16    P_Key     PKey, as given (0xFFFF, the default partition,
//	                        is the usual choice; the codec stores what the
//	                        caller gives)
//	4       1     FECN      0
//	        1     BECN      1
//	        6     Resv6     0
//	5–7     24    DestQP    DestQP: the QP of the flow's sender, to which
//	                        the CNP is addressed
//	8       1     AckReq    0
//	        7     Resv7     0
//	9–11    24    PSN       0
//	12–27   128   reserved  Reserved, carried as given (a scheme may put a
//	                        value here: ReservedWord, PutReservedWord)
//	28–31   32    ICRC      ICRC, carried as given, not computed
//
// The ICRC is carried, not computed: a real ICRC (IBA Vol. 1 section 7.8,
// as annex A17 extends it to RoCEv2) is a CRC-32 over the IP header, the
// UDP header and the BTH with their variant fields (TTL or hop limit,
// traffic class, flow label, checksums, BTH byte 4's FECN, BECN and
// Resv6) masked to ones, and over the payload. This codec sees neither the
// IP nor the UDP header, so Encode writes ICRC at bytes 28–31 (most
// significant byte first) and DecodeCNP reads it back, checking nothing.
// A model that needs the real value computes it over the whole frame.
//
// Encode (and Put, AppendTo) refuse a DestQP at or above 2^24. DecodeCNP
// refuses what is not a CNP (see there). What DecodeCNP accepts, Encode
// writes back byte for byte, and Encode then DecodeCNP is the identity
// for every CNP that Validate accepts. None of them allocates except for
// its errors (AppendTo when dst must grow).
type CNP struct {
	DestQP   uint32                 // destination QP, 24 bits, 0..MaxQPN (bytes 5–7)
	PKey     uint16                 // P_Key, 16 bits (bytes 2–3), as given
	Reserved [CNPReservedBytes]byte // reserved, 128 bits (bytes 12–27), as given
	ICRC     uint32                 // invariant CRC, 32 bits (bytes 28–31), carried not computed
}

// Validate reports a CNP that cannot be encoded (a DestQP at or above
// 2^24) as a *cc.EventError.
func (c CNP) Validate() error {
	if c.DestQP > MaxQPN {
		return rangeErr(cnpPart, "DestQP", uint64(c.DestQP), MaxQPN, 24)
	}
	return nil
}

// BTH returns the CNP's Base Transport Header: OpCode 0x81, BECN set,
// c's P_Key and DestQP, every other field 0.
func (c CNP) BTH() BTH {
	return BTH{OpCode: OpCodeCNP, PKey: c.PKey, BECN: true, DestQP: c.DestQP}
}

// Encode returns the CNP's 32 bytes, or Validate's error.
func (c CNP) Encode() (b [CNPBytes]byte, err error) {
	if err := c.Validate(); err != nil {
		return b, err
	}
	c.put(&b)
	return b, nil
}

// Put writes the CNP into b[0:32]. It refuses, writing nothing, what
// Validate refuses and a b shorter than 32 bytes (a *cc.EventError).
func (c CNP) Put(b []byte) error {
	if len(b) < CNPBytes {
		return eventErr(cnpPart, "Encode", "buffer too short for the 32-byte CNP")
	}
	if err := c.Validate(); err != nil {
		return err
	}
	c.put((*[CNPBytes]byte)(b))
	return nil
}

// AppendTo appends the CNP's 32 bytes to dst, or returns dst unchanged and
// Validate's error.
func (c CNP) AppendTo(dst []byte) ([]byte, error) {
	if err := c.Validate(); err != nil {
		return dst, err
	}
	var b [CNPBytes]byte
	c.put(&b)
	return append(dst, b[:]...), nil
}

// put writes a validated CNP: BTH words 0–1 as one 64-bit store (the
// fixed bits, P_Key, DestQP), word 2 (AckReq 0, PSN 0), the reserved
// bytes, the ICRC.
func (c CNP) put(b *[CNPBytes]byte) {
	binary.BigEndian.PutUint64(b[0:], cnpWord0|uint64(c.PKey)<<32|uint64(c.DestQP))
	binary.BigEndian.PutUint32(b[bthAck:], 0)
	copy(b[CNPReservedOffset:CNPICRCOffset], c.Reserved[:])
	binary.BigEndian.PutUint32(b[CNPICRCOffset:], c.ICRC)
}

// DecodeCNP reads a CNP from the first 32 bytes of b. Malformed input is a
// *cc.DecodeError naming the byte offset, checked in this order: fewer
// than 32 bytes (What "CNP", offset len(b)); a BTH that DecodeBTH refuses
// (its error, What "BTH": TVer at 1, Resv6 at 4, Resv7 at 8); then, What
// "CNP": an OpCode other than 0x81 (offset 0); SE, M or a nonzero PadCnt
// (offset 1); FECN set or BECN clear (offset 4); AckReq set (offset 8); a
// nonzero PSN (offset 9). The reserved bytes and the ICRC are read as
// they are (the ICRC is not checked; see CNP). What it accepts, Encode
// writes back byte for byte.
func DecodeCNP(b []byte) (CNP, error) {
	if len(b) < CNPBytes {
		return CNP{}, shortErr(cnpWhat, len(b), CNPBytes)
	}
	h, err := DecodeBTH(b)
	if err != nil {
		return CNP{}, err
	}
	switch {
	case h.OpCode != OpCodeCNP:
		return CNP{}, valueErr(cnpWhat, bthOpCode, "OpCode", uint64(h.OpCode), "129 (0x81, CNP)")
	case h.SE:
		return CNP{}, decodeErr(cnpWhat, bthFlags, "SE set, want 0 in a CNP")
	case h.M:
		return CNP{}, decodeErr(cnpWhat, bthFlags, "M (MigReq) set, want 0 in a CNP")
	case h.PadCnt != 0:
		return CNP{}, valueErr(cnpWhat, bthFlags, "PadCnt", uint64(h.PadCnt), "0 in a CNP")
	case h.FECN:
		return CNP{}, decodeErr(cnpWhat, bthECN, "FECN set, want 0 in a CNP")
	case !h.BECN:
		return CNP{}, decodeErr(cnpWhat, bthECN, "BECN clear, want 1 in a CNP")
	case h.AckReq:
		return CNP{}, decodeErr(cnpWhat, bthAck, "AckReq set, want 0 in a CNP")
	case h.PSN != 0:
		return CNP{}, valueErr(cnpWhat, bthPSN, "PSN", uint64(h.PSN), "0 in a CNP")
	}
	c := CNP{
		DestQP: h.DestQP,
		PKey:   h.PKey,
		ICRC:   binary.BigEndian.Uint32(b[CNPICRCOffset:]),
	}
	copy(c.Reserved[:], b[CNPReservedOffset:CNPICRCOffset])
	return c, nil
}

// Decode sets *c from b, leaving it unchanged on error (DecodeCNP).
func (c *CNP) Decode(b []byte) error {
	x, err := DecodeCNP(b)
	if err != nil {
		return err
	}
	*c = x
	return nil
}

// wordErr is the error of ReservedWord and PutReservedWord.
//
//go:noinline
func wordErr(event string, off int, nilOrder bool) error {
	if nilOrder {
		return &cc.EventError{Part: cnpPart, Event: event, Reason: "nil byte order"}
	}
	return &cc.EventError{Part: cnpPart, Event: event, Reason: "offset " + strconv.Itoa(off) + ", want 0..12 (a 32-bit word inside the 16 reserved bytes)"}
}

// ReservedWord reads the 32-bit word at byte offset off (0..12) of a CNP's
// reserved field in the given byte order, for schemes that carry a value
// there (Mercury's window, say): annex A17.9.3 reserves the 16 bytes, and
// a scheme that writes them is its own standard. An offset outside 0..12
// or a nil order is a *cc.EventError. Offsets are relative to the reserved
// field: its byte 0 is the CNP's byte 12 (CNPReservedOffset).
//
// For binary.BigEndian and binary.LittleEndian it never allocates; another
// binary.ByteOrder is called through a 4-byte copy, which may.
func ReservedWord(res *[CNPReservedBytes]byte, off int, order binary.ByteOrder) (uint32, error) {
	if off < 0 || off > MaxReservedWordOffset || order == nil {
		return 0, wordErr("ReservedWord", off, order == nil)
	}
	w := (*[4]byte)(res[off : off+4])
	switch order {
	case binary.BigEndian:
		return binary.BigEndian.Uint32(w[:]), nil
	case binary.LittleEndian:
		return binary.LittleEndian.Uint32(w[:]), nil
	}
	// Any other order gets a copy, so that res never escapes into the
	// interface call.
	tmp := *w
	return order.Uint32(tmp[:]), nil
}

// PutReservedWord writes v as the 32-bit word at byte offset off (0..12)
// of a CNP's reserved field in the given byte order, leaving the other 12
// bytes as they are. An offset outside 0..12 or a nil order is a
// *cc.EventError, and writes nothing. It allocates as ReservedWord does.
func PutReservedWord(res *[CNPReservedBytes]byte, off int, order binary.ByteOrder, v uint32) error {
	if off < 0 || off > MaxReservedWordOffset || order == nil {
		return wordErr("PutReservedWord", off, order == nil)
	}
	w := (*[4]byte)(res[off : off+4])
	switch order {
	case binary.BigEndian:
		binary.BigEndian.PutUint32(w[:], v)
		return nil
	case binary.LittleEndian:
		binary.LittleEndian.PutUint32(w[:], v)
		return nil
	}
	var tmp [4]byte
	order.PutUint32(tmp[:], v)
	*w = tmp
	return nil
}
