package inttel

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/hwcc/hwcc/cc"
)

// Field widths of Figure 7, in bits.
const (
	NHopBits    = 4  // hop count
	PathIDBits  = 12 // XOR of switch IDs
	SpeedBits   = 4  // port speed code B
	TSBits      = 24 // egress timestamp
	TxBytesBits = 20 // cumulative transmitted bytes
	QLenBits    = 16 // queue length
)

// Largest value of each field: 2^width − 1.
const (
	HopsLimit  = 1<<NHopBits - 1    // 15: the most hops nHop can count
	MaxPathID  = 1<<PathIDBits - 1  // 0xFFF; also the largest switch ID
	MaxSpeed   = 1<<SpeedBits - 1   // 15: the largest speed code
	MaxTS      = 1<<TSBits - 1      // 0xFFFFFF
	MaxTxBytes = 1<<TxBytesBits - 1 // 0xFFFFF
	MaxQLen    = 1<<QLenBits - 1    // 0xFFFF, also the saturated reading
)

// Sizes on the wire, in bytes.
const (
	PrefixLen = (NHopBits + PathIDBits) / 8                       // 2: nHop and pathID
	HopLen    = (SpeedBits + TSBits + TxBytesBits + QLenBits) / 8 // 8: one hop record
	MaxLen    = PrefixLen + HopLen*HopsLimit                      // 122: 15 hops
)

// Bit positions, counted from the least significant bit of the big-endian
// 16-bit prefix and 64-bit hop word.
const (
	nHopShift    = PathIDBits                      // 12: prefix = nHop<<12 | pathID
	speedShift   = TSBits + TxBytesBits + QLenBits // 60: hop = B<<60 | ...
	tsShift      = TxBytesBits + QLenBits          // 36: ... | TS<<36 | ...
	txBytesShift = QLenBits                        // 16: ... | txBytes<<16 | qLen
)

// HeaderLen returns the wire length of a header with nHop hop records:
// 2 + 8·nHop bytes (42 for 5 hops).
func HeaderLen(nHop int) int { return PrefixLen + HopLen*nHop }

// Hop is one switch's record of its egress port, as raw register values. A
// valid Hop has every field within its width; Codec.Values turns it into
// physical quantities.
type Hop struct {
	Speed   uint8  // B, 4 bits: port speed code, see SpeedTable
	TS      uint32 // 24 bits, TSUnit each (1 ns): egress time, wraps every 2^24 units
	TxBytes uint32 // 20 bits, TxBytesUnit each (128 B): port's bytes sent, wraps every 2^20 units
	QLen    uint16 // 16 bits, QLenUnit each (80 B): egress queue, saturated at 0xFFFF
}

// Header is the INT header of one packet. The zero value is the empty header
// a sender attaches (nHop = 0, pathID = 0). Hops[:NHop] are the records, first
// switch first; Decode zeroes the rest. The fixed array lets a caller reuse
// one Header per packet without allocating.
type Header struct {
	NHop   uint8  // 4 bits: number of records in Hops, at most the Codec's MaxHops
	PathID uint16 // 12 bits: XOR of the IDs of the switches that stamped
	Hops   [HopsLimit]Hop
}

// Len returns the header's wire length, HeaderLen(NHop).
func (h *Header) Len() int { return HeaderLen(int(h.NHop)) }

// Path returns the hop records present, h.Hops[:NHop], sharing h's storage.
// An NHop above HopsLimit (only possible in a hand-built Header) is clamped.
func (h *Header) Path() []Hop {
	n := int(h.NHop)
	if n > HopsLimit {
		n = HopsLimit
	}
	return h.Hops[:n]
}

// packHop returns the 64-bit hop word B<<60 | TS<<36 | txBytes<<16 | qLen.
// The caller has checked every field against its width.
func packHop(p Hop) uint64 {
	return uint64(p.Speed)<<speedShift | uint64(p.TS)<<tsShift |
		uint64(p.TxBytes)<<txBytesShift | uint64(p.QLen)
}

// unpackHop splits a 64-bit hop word into its fields; every bit is used.
func unpackHop(w uint64) Hop {
	return Hop{
		Speed:   uint8(w >> speedShift),
		TS:      uint32(w>>tsShift) & MaxTS,
		TxBytes: uint32(w>>txBytesShift) & MaxTxBytes,
		QLen:    uint16(w),
	}
}

// checkHop validates the fields of hop i against their widths and the speed
// table.
func (c *Codec) checkHop(i int, p Hop) error {
	if _, ok := c.speeds.Rate(p.Speed); !ok {
		return fmt.Errorf("%w: hop %d: speed code B = %d is not in the speed table (%s)",
			ErrUnknownSpeed, i, p.Speed, c.speeds.String())
	}
	if p.TS > MaxTS {
		return fmt.Errorf("%w: hop %d: TS = %#x, want 0..%#x (24 bits)", ErrFieldRange, i, p.TS, MaxTS)
	}
	if p.TxBytes > MaxTxBytes {
		return fmt.Errorf("%w: hop %d: TxBytes = %#x, want 0..%#x (20 bits)",
			ErrFieldRange, i, p.TxBytes, MaxTxBytes)
	}
	return nil // QLen is a uint16: every value fits
}

// checkHeader validates a Header for encoding or stamping: NHop within
// MaxHops, PathID within 12 bits.
func (c *Codec) checkHeader(h *Header) error {
	if h.NHop > c.maxHops {
		return fmt.Errorf("%w: Header.NHop = %d, want 0..%d (Config.MaxHops)", ErrTooManyHops, h.NHop, c.maxHops)
	}
	if h.PathID > MaxPathID {
		return fmt.Errorf("%w: Header.PathID = %#x, want 0..%#x (12 bits)", ErrFieldRange, h.PathID, MaxPathID)
	}
	return nil
}

// AppendHeader appends the wire form of h, HeaderLen(h.NHop) bytes, to dst
// and returns the extended slice. It allocates only if dst lacks capacity
// (MaxLen bytes always suffice).
//
// It rejects, returning dst unchanged: NHop above MaxHops (ErrTooManyHops), a
// PathID, TS or TxBytes wider than its field (ErrFieldRange, nothing is
// truncated), and a speed code not in the table (ErrUnknownSpeed), so that
// everything it writes Decode reads back.
func (c *Codec) AppendHeader(dst []byte, h *Header) ([]byte, error) {
	if err := c.checkHeader(h); err != nil {
		return dst, err
	}
	hops := h.Hops[:h.NHop]
	for i, p := range hops {
		if err := c.checkHop(i, p); err != nil {
			return dst, err
		}
	}
	dst = binary.BigEndian.AppendUint16(dst, uint16(h.NHop)<<nHopShift|h.PathID)
	for _, p := range hops {
		dst = binary.BigEndian.AppendUint64(dst, packHop(p))
	}
	return dst, nil
}

// DecodeError is a header Decode could not read: the contract's decode
// error (cc.DecodeError; errors.Is(err, cc.ErrDecode)). Offset is the byte
// of the buffer where decoding failed: the first missing byte when the
// buffer is short, the prefix (0) when nHop is too large, the first byte of
// hop i's record (2 + 8·i) when its speed code is unknown. Err is the
// sentinel (ErrShortBuffer, ErrTooManyHops or ErrUnknownSpeed) that
// errors.Is matches; Reason gives the values.
type DecodeError = cc.DecodeError

// decodeError returns a *DecodeError of an INT header.
func decodeError(offset int, sentinel error, reason string) error {
	return &DecodeError{What: "INT header", Offset: offset, Reason: reason, Err: sentinel}
}

// Decode reads one header from the start of b into *h and returns the number
// of bytes it took, HeaderLen(nHop); the bytes after it (the BTH) are not
// read. It does not allocate on success.
//
// Errors, each a *DecodeError naming the byte offset, after which *h is
// unchanged: b shorter than the 2-byte prefix or than the nHop records it
// announces (ErrShortBuffer); nHop above the Codec's MaxHops
// (ErrTooManyHops); a record whose speed code is not in the table
// (ErrUnknownSpeed). Every other bit pattern is a valid header, so
// re-encoding a decoded header reproduces the n bytes exactly.
func (c *Codec) Decode(b []byte, h *Header) (n int, err error) {
	if len(b) < PrefixLen {
		return 0, decodeError(len(b), ErrShortBuffer, fmt.Sprintf("%d bytes, need %d for nHop and pathID", len(b), PrefixLen))
	}
	prefix := binary.BigEndian.Uint16(b)
	nHop := uint8(prefix >> nHopShift)
	if nHop > c.maxHops {
		return 0, decodeError(0, ErrTooManyHops, fmt.Sprintf("nHop = %d, want 0..%d (Config.MaxHops)", nHop, c.maxHops))
	}
	n = HeaderLen(int(nHop))
	if len(b) < n {
		return 0, decodeError(len(b), ErrShortBuffer, fmt.Sprintf("%d bytes, need %d for nHop = %d", len(b), n, nHop))
	}
	// First pass: validate, so that *h is untouched on error.
	for i := range int(nHop) {
		off := PrefixLen + HopLen*i
		code := uint8(binary.BigEndian.Uint64(b[off:]) >> speedShift)
		if _, ok := c.speeds.Rate(code); !ok {
			return 0, decodeError(off, ErrUnknownSpeed, fmt.Sprintf("hop %d: speed code B = %d is not in the speed table (%s)",
				i, code, c.speeds.String()))
		}
	}
	*h = Header{NHop: nHop, PathID: prefix & MaxPathID}
	for i := range int(nHop) {
		h.Hops[i] = unpackHop(binary.BigEndian.Uint64(b[PrefixLen+HopLen*i:]))
	}
	return n, nil
}

// ErrLength: a telemetry stack holds bytes beyond the 2 + 8·nHop its
// prefix announces, or a Len above cc.TelemetryCap (inside a
// *DecodeError).
var ErrLength = errors.New("inttel: stack length does not match nHop")

// ReadHeader reads the header that fills b, exactly HeaderLen(nHop)
// bytes, into h without a Codec: it checks lengths only, so that a sender
// whose own checks cover the fields (speed codes, the hop limit) decodes
// an ACK's stack in one pass. Records past h.NHop are left as they were;
// read h.Path(). Every bit pattern of the right length is a header: an
// nHop up to 15, any speed code. Errors, after which *h is unchanged: a
// *DecodeError with ErrShortBuffer (b shorter than the prefix or than the
// records it announces) or ErrLength (bytes beyond them). It does not
// allocate on success.
func ReadHeader(b []byte, h *Header) error {
	if len(b) < PrefixLen {
		return readHeaderError(b)
	}
	prefix := binary.BigEndian.Uint16(b)
	nHop := int(prefix >> nHopShift)
	if len(b) != HeaderLen(nHop) {
		return readHeaderError(b)
	}
	h.NHop, h.PathID = uint8(nHop), prefix&MaxPathID
	// b steps through the records, 8 bytes each: len(b) = 8·nHop, so the
	// test is never true; it lets the compiler drop the loop's bounds
	// checks (with them, and the errors built in this function, 5 hops
	// measured about 1.3 ns slower).
	hops, b := h.Hops[:nHop], b[PrefixLen:]
	for i := range hops {
		if len(b) < HopLen {
			break
		}
		hops[i] = unpackHop(binary.BigEndian.Uint64(b))
		b = b[HopLen:]
	}
	return nil
}

// readHeaderError is ReadHeader's error for b, which is not one header:
// apart from ReadHeader, so that the per-ACK path's function stays small.
func readHeaderError(b []byte) error {
	if len(b) < PrefixLen {
		return decodeError(len(b), ErrShortBuffer, fmt.Sprintf("%d bytes, need %d for nHop and pathID", len(b), PrefixLen))
	}
	nHop := int(binary.BigEndian.Uint16(b) >> nHopShift)
	n := HeaderLen(nHop)
	if len(b) < n {
		return decodeError(len(b), ErrShortBuffer, fmt.Sprintf("%d bytes, need %d for nHop = %d", len(b), n, nHop))
	}
	return decodeError(n, ErrLength, fmt.Sprintf("%d bytes, nHop = %d announces %d", len(b), nHop, n))
}

// Put writes h's wire form into the telemetry stack t, replacing what t
// held: what a sender attaches (the zero Header: nHop = 0, pathID = 0, 2
// bytes). It refuses what AppendHeader refuses, leaving t unchanged.
func (c *Codec) Put(t *cc.Telemetry, h *Header) error {
	b, err := c.AppendHeader(t.Data[:0], h)
	if err != nil {
		return err
	}
	t.Len = uint8(len(b))
	return nil
}

// Get decodes the telemetry stack t into h, as Decode does, and refuses
// bytes beyond the header: a stack holds one header and nothing else.
// Errors, each a *DecodeError after which *h is unchanged: Decode's
// (ErrShortBuffer, ErrTooManyHops, ErrUnknownSpeed), and ErrLength for a
// Len above cc.TelemetryCap or bytes after the nHop records (when nHop is
// within MaxHops, before the records' speed codes are read). It does not
// allocate on success.
func (c *Codec) Get(t *cc.Telemetry, h *Header) error {
	if int(t.Len) > cc.TelemetryCap {
		return decodeError(cc.TelemetryCap, ErrLength, fmt.Sprintf("stack length %d is above %d", t.Len, cc.TelemetryCap))
	}
	b := t.Data[:t.Len]
	if len(b) >= PrefixLen {
		// Before Decode, which writes *h once its checks pass.
		nHop := int(binary.BigEndian.Uint16(b) >> nHopShift)
		if n := HeaderLen(nHop); nHop <= int(c.maxHops) && len(b) > n {
			return decodeError(n, ErrLength, fmt.Sprintf("%d bytes, nHop = %d announces %d", len(b), nHop, n))
		}
	}
	_, err := c.Decode(b, h) // on success it took all of b: len(b) ≤ HeaderLen(nHop) ≤ what it took
	return err
}
