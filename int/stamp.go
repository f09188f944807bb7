package inttel

import (
	"encoding/binary"
	"fmt"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// Port is what a switch knows about the egress port a packet leaves by, in
// physical units; Stamp quantises it into a hop record.
type Port struct {
	// SwitchID is the switch's 12-bit ID (0..0xFFF), XORed into pathID.
	SwitchID uint16
	// Rate is the port speed; it must have a code in the speed table.
	Rate units.Rate
	// TxBytes is the port's cumulative transmitted bytes since it started,
	// any size ≥ 0: Stamp keeps the low 20 bits of floor(TxBytes/TxBytesUnit).
	// Whether it includes the packet being stamped is the switch's choice;
	// the sender only uses differences, so it must only be consistent.
	TxBytes units.Bytes
	// QLen is the egress queue length in bytes, ≥ 0.
	QLen units.Bytes
}

// Stamp is the switch's INT step (section 4.1): at egress time now it
// appends the port's record to h and updates the prefix,
//
//	Hops[nHop] = {B: code(Rate), TS: floor(now/TSUnit) mod 2^24,
//	              txBytes: floor(TxBytes/TxBytesUnit) mod 2^20,
//	              qLen: min(floor(QLen/QLenUnit), 0xFFFF)}
//	nHop += 1;  pathID ^= SwitchID
//
// qLenSaturated reports that the queue exceeded 0xFFFF·QLenUnit (5.24 MB at
// 80 B) and was clamped; the record then says "at least" that much. The
// switch model should count these.
//
// A header that already holds MaxHops records is left unchanged (nHop and
// pathID included) and ErrPathFull is returned without allocating; the
// switch forwards the packet all the same. Other errors also leave h
// unchanged: a rate with no speed code (ErrUnknownSpeed), a SwitchID above
// 0xFFF, a negative now, TxBytes or QLen, or a header PathID above 0xFFF
// (ErrFieldRange), a header NHop above MaxHops (ErrTooManyHops).
func (c *Codec) Stamp(now units.Time, h *Header, p Port) (qLenSaturated bool, err error) {
	if h.NHop == c.maxHops {
		return false, c.errPathFull
	}
	if err := c.checkHeader(h); err != nil {
		return false, err
	}
	rec, qLenSaturated, err := c.record(now, p)
	if err != nil {
		return false, err
	}
	h.Hops[h.NHop] = rec
	h.NHop++
	h.PathID ^= p.SwitchID
	return qLenSaturated, nil
}

// Push is Stamp on a frame's telemetry stack as it travels: t holds the
// header's wire form (Put's), and Push appends the port's 8-byte record to
// it and rewrites the 2-byte prefix (nHop + 1, pathID ^ SwitchID) in
// place, without allocating (also when it refuses with ErrPathFull). Its
// outcomes are Stamp's on the header t holds, with t unchanged on every
// error; a stack that is not one header is a *DecodeError: shorter than
// its prefix or than the records nHop announces (ErrShortBuffer, at the
// first missing byte), longer than them or a Len above cc.TelemetryCap
// (ErrLength, at the first byte too many). The records already in t are
// not read, as Stamp does not check them.
func (c *Codec) Push(now units.Time, t *cc.Telemetry, p Port) (qLenSaturated bool, err error) {
	switch {
	case int(t.Len) > cc.TelemetryCap:
		return false, decodeError(cc.TelemetryCap, ErrLength, fmt.Sprintf("stack length %d is above %d", t.Len, cc.TelemetryCap))
	case t.Len < PrefixLen:
		return false, decodeError(int(t.Len), ErrShortBuffer, fmt.Sprintf("%d bytes, need %d for nHop and pathID", t.Len, PrefixLen))
	}
	prefix := binary.BigEndian.Uint16(t.Data[:])
	nHop := uint8(prefix >> nHopShift)
	switch n := HeaderLen(int(nHop)); {
	case nHop == c.maxHops && int(t.Len) == n:
		return false, c.errPathFull
	case nHop > c.maxHops:
		return false, fmt.Errorf("%w: nHop = %d, want 0..%d (Config.MaxHops)", ErrTooManyHops, nHop, c.maxHops)
	case int(t.Len) < n:
		return false, decodeError(int(t.Len), ErrShortBuffer, fmt.Sprintf("%d bytes, need %d for nHop = %d", t.Len, n, nHop))
	case int(t.Len) > n:
		return false, decodeError(n, ErrLength, fmt.Sprintf("%d bytes, nHop = %d announces %d", t.Len, nHop, n))
	}
	rec, qLenSaturated, err := c.record(now, p)
	if err != nil {
		return false, err
	}
	binary.BigEndian.PutUint64(t.Data[t.Len:], packHop(rec))
	t.Len += HopLen
	binary.BigEndian.PutUint16(t.Data[:], uint16(nHop+1)<<nHopShift|(prefix^p.SwitchID)&MaxPathID)
	return qLenSaturated, nil
}

// record is the hop record of port p at egress time now (Stamp's rule),
// or the reason the port's values do not fit one.
func (c *Codec) record(now units.Time, p Port) (rec Hop, qLenSaturated bool, err error) {
	code, ok := c.speeds.Code(p.Rate)
	switch {
	case !ok:
		return rec, false, fmt.Errorf("%w: Port.Rate = %v has no speed code (%s)", ErrUnknownSpeed, p.Rate, c.speeds.String())
	case p.SwitchID > MaxPathID:
		return rec, false, fmt.Errorf("%w: Port.SwitchID = %#x, want 0..%#x (12 bits)", ErrFieldRange, p.SwitchID, MaxPathID)
	case now < 0:
		return rec, false, fmt.Errorf("%w: now = %v, want ≥ 0", ErrFieldRange, now)
	case p.TxBytes < 0:
		return rec, false, fmt.Errorf("%w: Port.TxBytes = %d, want ≥ 0", ErrFieldRange, p.TxBytes)
	case p.QLen < 0:
		return rec, false, fmt.Errorf("%w: Port.QLen = %d, want ≥ 0", ErrFieldRange, p.QLen)
	}
	// qLen = min(⌊QLen/QLenUnit⌋, 0xFFFF); TS and txBytes are the low 24
	// and 20 bits of ⌊now/TSUnit⌋ and ⌊TxBytes/TxBytesUnit⌋ (see Codec).
	// The two counters wrap rather than saturate, so their floor is written
	// with their quantisers' Δ (both Floor, countQuantizer): through
	// Quantize, with its mode and saturation tests, it measured slower
	// (BenchmarkStamp).
	q, qLenSaturated := c.qlen.QuantizeSat(uint64(p.QLen))
	return Hop{
		Speed:   code,
		TS:      uint32(uint64(now) / c.ts.Delta() & (1<<TSBits - 1)),
		TxBytes: uint32(uint64(p.TxBytes) / c.tx.Delta() & (1<<TxBytesBits - 1)),
		QLen:    uint16(q),
	}, qLenSaturated, nil
}
