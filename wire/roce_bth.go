package wire

import (
	"encoding/binary"
	"strconv"

	"github.com/hwcc/hwcc/cc"
)

// Sizes and limits of the Base Transport Header (IBA Vol. 1 section 9.2).
const (
	// BTHBytes is the BTH's length on the wire: 12 bytes, three 32-bit
	// words (IBA Vol. 1 section 9.2).
	BTHBytes = 12
	// BTHVersion is the transport header version (TVer) IBA Vol. 1
	// section 9.2 defines and the only one DecodeBTH reads: 0.
	BTHVersion = 0
	// MaxQPN is the largest DestQP: a queue pair number is 24 bits.
	MaxQPN = 1<<24 - 1
	// MaxPSN is the largest PSN: a packet sequence number is 24 bits and
	// wraps modulo 2^24.
	MaxPSN = 1<<24 - 1
	// MaxPadCnt is the largest PadCnt: 2 bits, the 0..3 pad bytes that
	// bring the payload to a multiple of 4 bytes.
	MaxPadCnt = 3
	// MaxTVer is the largest value TVer's 4 bits hold. BTH.Encode writes
	// any of 0..15; DecodeBTH reads only BTHVersion.
	MaxTVer = 15
)

// Byte offsets of the BTH's fields (IBA Vol. 1 section 9.2) and the bits
// within bytes 1, 4 and 8.
const (
	bthOpCode = 0 // OpCode, 8 bits
	bthFlags  = 1 // SE, M, PadCnt, TVer
	bthPKey   = 2 // P_Key, 16 bits
	bthECN    = 4 // FECN, BECN, Resv6
	bthDestQP = 5 // DestQP, 24 bits
	bthAck    = 8 // AckReq, Resv7
	bthPSN    = 9 // PSN, 24 bits

	bitSE       = 0x80 // byte 1 bit 7
	bitM        = 0x40 // byte 1 bit 6
	maskPadCnt  = 0x30 // byte 1 bits 5–4
	shiftPadCnt = 4
	maskTVer    = 0x0F // byte 1 bits 3–0
	bitFECN     = 0x80 // byte 4 bit 7
	bitBECN     = 0x40 // byte 4 bit 6
	maskResv6   = 0x3F // byte 4 bits 5–0
	bitAckReq   = 0x80 // byte 8 bit 7
	maskResv7   = 0x7F // byte 8 bits 6–0
	mask24      = 1<<24 - 1
	bthWhat     = "BTH"
	bthPart     = "wire.BTH"
)

// decodeErr builds a decoder's error; not inlined, so that the accepting
// path carries no allocation site.
//
//go:noinline
func decodeErr(what string, offset int, reason string) error {
	return &cc.DecodeError{What: what, Offset: offset, Reason: reason}
}

// reservedErr is the error of reserved bytes b[from:to] that are not all
// 0, naming the first nonzero one; nil when all are 0.
func reservedErr(what string, b []byte, from, to int) error {
	for i := from; i < to; i++ {
		if b[i] != 0 {
			return decodeErr(what, i, "reserved byte not 0")
		}
	}
	return nil
}

// shortErr is the error for fewer than want bytes (at offset n = len(b)).
//
//go:noinline
func shortErr(what string, n, want int) error {
	return &cc.DecodeError{What: what, Offset: n, Reason: "short: " + strconv.Itoa(n) + " bytes, want " + strconv.Itoa(want)}
}

// valueErr is a decoder's error for a field whose value is not the one
// allowed: "<field> <v>, want <want>".
//
//go:noinline
func valueErr(what string, offset int, field string, v uint64, want string) error {
	return &cc.DecodeError{What: what, Offset: offset, Reason: field + " " + strconv.FormatUint(v, 10) + ", want " + want}
}

// eventErr builds an encoder's (or accessor's) error.
//
//go:noinline
func eventErr(part, event, reason string) error {
	return &cc.EventError{Part: part, Event: event, Reason: reason}
}

// rangeErr is an encoder's error for a field above its width:
// "<field> <v>, want 0..<max> (<bits> bits)".
//
//go:noinline
func rangeErr(part, field string, v, max uint64, bits int) error {
	return &cc.EventError{Part: part, Event: "Encode", Reason: field + " " + strconv.FormatUint(v, 10) + ", want 0.." + strconv.FormatUint(max, 10) + " (" + strconv.Itoa(bits) + " bits)"}
}

// BTH is the InfiniBand Base Transport Header as RoCEv2 carries it right
// after the UDP header (IBA Vol. 1 section 9.2; annex A17 keeps it
// unchanged). It is every field the header has except the two reserved
// ones, which are 0 on the wire.
//
// Wire format, 12 bytes, big-endian (IBA Vol. 1 section 9.2, "Base
// Transport Header"):
//
//	byte   bits  field    meaning
//	0      8     OpCode   packet type: transport (bits 7–5) and operation
//	                      (bits 4–0); 0x81 is the RoCEv2 CNP (A17)
//	1      1     SE       bit 7: solicited event
//	       1     M        bit 6: MigReq, the path migration state
//	       2     PadCnt   bits 5–4: pad bytes after the payload, 0..3
//	       4     TVer     bits 3–0: transport header version, 0
//	2–3    16    P_Key    partition key
//	4      1     FECN     bit 7: forward explicit congestion notification
//	       1     BECN     bit 6: backward explicit congestion notification
//	       6     Resv6    bits 5–0: reserved, 0
//	5–7    24    DestQP   destination queue pair number
//	8      1     AckReq   bit 7: the responder is asked for an ACK
//	       7     Resv7    bits 6–0: reserved, 0
//	9–11   24    PSN      packet sequence number, mod 2^24
//
// Encode (and Put, AppendTo) refuse a field above its width; DecodeBTH
// refuses a TVer other than 0 and nonzero reserved bits. What DecodeBTH
// accepts, Encode writes back byte for byte. The zero value encodes (an
// RC SEND First to QP 0, PSN 0). None of them allocates except for its
// errors (AppendTo when dst must grow).
type BTH struct {
	OpCode uint8  // OpCode, 8 bits (byte 0)
	SE     bool   // solicited event, 1 bit (byte 1 bit 7)
	M      bool   // MigReq, 1 bit (byte 1 bit 6)
	PadCnt uint8  // pad count, 2 bits, 0..3 (byte 1 bits 5–4)
	TVer   uint8  // transport header version, 4 bits, 0..15 (byte 1 bits 3–0); decoders read 0 only
	PKey   uint16 // P_Key, 16 bits (bytes 2–3)
	FECN   bool   // forward ECN, 1 bit (byte 4 bit 7)
	BECN   bool   // backward ECN, 1 bit (byte 4 bit 6); set in a CNP
	DestQP uint32 // destination QP, 24 bits, 0..MaxQPN (bytes 5–7)
	AckReq bool   // acknowledge request, 1 bit (byte 8 bit 7)
	PSN    uint32 // packet sequence number, 24 bits, 0..MaxPSN (bytes 9–11)
}

// Validate reports a header that cannot be encoded — PadCnt above 3, TVer
// above 15, DestQP or PSN at or above 2^24 — as a *cc.EventError.
func (h BTH) Validate() error {
	switch {
	case h.PadCnt > MaxPadCnt:
		return rangeErr(bthPart, "PadCnt", uint64(h.PadCnt), MaxPadCnt, 2)
	case h.TVer > MaxTVer:
		return rangeErr(bthPart, "TVer", uint64(h.TVer), MaxTVer, 4)
	case h.DestQP > MaxQPN:
		return rangeErr(bthPart, "DestQP", uint64(h.DestQP), MaxQPN, 24)
	case h.PSN > MaxPSN:
		return rangeErr(bthPart, "PSN", uint64(h.PSN), MaxPSN, 24)
	}
	return nil
}

// Encode returns the header's 12 bytes, or Validate's error.
func (h BTH) Encode() (b [BTHBytes]byte, err error) {
	if err := h.Validate(); err != nil {
		return b, err
	}
	h.put(&b)
	return b, nil
}

// Put writes the header into b[0:12]. It refuses, writing nothing, what
// Validate refuses and a b shorter than 12 bytes (a *cc.EventError).
func (h BTH) Put(b []byte) error {
	if len(b) < BTHBytes {
		return eventErr(bthPart, "Encode", "buffer too short for the 12-byte BTH")
	}
	if err := h.Validate(); err != nil {
		return err
	}
	h.put((*[BTHBytes]byte)(b))
	return nil
}

// AppendTo appends the header's 12 bytes to dst, or returns dst unchanged
// and Validate's error.
func (h BTH) AppendTo(dst []byte) ([]byte, error) {
	if err := h.Validate(); err != nil {
		return dst, err
	}
	var b [BTHBytes]byte
	h.put(&b)
	return append(dst, b[:]...), nil
}

// flags returns byte 1: SE, M, PadCnt, TVer.
func (h BTH) flags() uint64 {
	f := uint64(h.PadCnt)<<shiftPadCnt | uint64(h.TVer)
	if h.SE {
		f |= bitSE
	}
	if h.M {
		f |= bitM
	}
	return f
}

// put writes a validated header: the first two words (OpCode, flags,
// P_Key, ECN byte, DestQP) as one 64-bit store, the third (AckReq, PSN) as
// a 32-bit one.
func (h BTH) put(b *[BTHBytes]byte) {
	var ecn, ack uint64
	if h.FECN {
		ecn |= bitFECN
	}
	if h.BECN {
		ecn |= bitBECN
	}
	if h.AckReq {
		ack = bitAckReq
	}
	binary.BigEndian.PutUint64(b[0:], uint64(h.OpCode)<<56|h.flags()<<48|uint64(h.PKey)<<32|ecn<<24|uint64(h.DestQP))
	binary.BigEndian.PutUint32(b[8:], uint32(ack<<24)|h.PSN)
}

// DecodeBTH reads a header from the first 12 bytes of b. Malformed input
// is a *cc.DecodeError (What "BTH") naming the byte offset, checked in
// this order: fewer than 12 bytes (offset len(b)); a TVer other than 0
// (offset 1); nonzero Resv6 (offset 4); nonzero Resv7 (offset 8). The
// OpCode is not checked: every 8-bit value decodes. What it accepts,
// Encode writes back byte for byte.
func DecodeBTH(b []byte) (BTH, error) {
	if len(b) < BTHBytes {
		return BTH{}, shortErr(bthWhat, len(b), BTHBytes)
	}
	if v := b[bthFlags] & maskTVer; v != BTHVersion {
		return BTH{}, valueErr(bthWhat, bthFlags, "TVer", uint64(v), "0")
	}
	if v := b[bthECN] & maskResv6; v != 0 {
		return BTH{}, valueErr(bthWhat, bthECN, "Resv6", uint64(v), "0")
	}
	if v := b[bthAck] & maskResv7; v != 0 {
		return BTH{}, valueErr(bthWhat, bthAck, "Resv7", uint64(v), "0")
	}
	w0 := binary.BigEndian.Uint64(b[0:])
	w2 := binary.BigEndian.Uint32(b[8:])
	f := b[bthFlags]
	return BTH{
		OpCode: b[bthOpCode],
		SE:     f&bitSE != 0,
		M:      f&bitM != 0,
		PadCnt: (f & maskPadCnt) >> shiftPadCnt,
		TVer:   f & maskTVer,
		PKey:   uint16(w0 >> 32),
		FECN:   b[bthECN]&bitFECN != 0,
		BECN:   b[bthECN]&bitBECN != 0,
		DestQP: uint32(w0) & mask24,
		AckReq: b[bthAck]&bitAckReq != 0,
		PSN:    w2 & mask24,
	}, nil
}

// Decode sets *h from b, leaving it unchanged on error (DecodeBTH).
func (h *BTH) Decode(b []byte) error {
	x, err := DecodeBTH(b)
	if err != nil {
		return err
	}
	*h = x
	return nil
}
