// Package inttel is HPCC's in-band network telemetry (INT) header: its wire
// format, the switch-side stamping of one hop record per egress port, the
// sender-side decoding into physical values, and the wrap-safe deltas the
// sender's rate estimate is built on.
//
// Source: [HPCC] §3.2 (how the sender uses qLen, txBytes and ts) and §4.1
// with Figure 7 (the packet format). The directory is
// int/ but the package is inttel: a package named int would shadow the
// built-in type in every file that imports it.
//
// # API at a glance
//
//	cfg := inttel.DefaultConfig()             // HPCC: 128 B, 80 B, 1 ns, 8 speeds, 5 hops
//	c, err := inttel.NewCodec(cfg)            // validates; a Codec is immutable
//
//	// Switch (per packet, at egress): append this port's hop record.
//	sat, err := c.Stamp(now, &hdr, inttel.Port{SwitchID: id, Rate: r, TxBytes: tx, QLen: q})
//	//   sat: qLen saturated at 0xFFFF (count it); errors.Is(err, inttel.ErrPathFull):
//	//   MaxHops records already present, header unchanged, forward the packet anyway.
//
//	// Wire.
//	buf, err = c.AppendHeader(buf, &hdr)      // appends 2 + 8·NHop bytes
//	n, err := c.Decode(pkt, &hdr)             // fills the caller's Header, n bytes consumed
//
//	// The same on a frame's telemetry stack (cc.Telemetry: the wire bytes
//	// cc.Packet.Tel and cc.Feedback.Tel carry, one header and nothing else).
//	err = c.Put(&tel, &inttel.Header{})       // sender: attach the empty header (2 bytes)
//	sat, err = c.Push(now, &tel, port)        // switch: Stamp in place, 8 bytes more
//	err = c.Get(&tel, &hdr)                   // Decode, refusing bytes past the header
//	err = inttel.ReadHeader(tel.Bytes(), &hdr) // lengths only, no Codec; Hops past NHop untouched
//
//	// Sender (per ACK, per hop i, same hop of the previous ACK as older):
//	dB := c.TxBytesDelta(older, newer)        // units.Bytes, wrap-safe (20-bit counter)
//	dT := c.TSDelta(older, newer)             // units.Time, wrap-safe (24-bit counter)
//	txRate, err := c.TxRate(older, newer)     // ΔtxBytes/Δts; ErrZeroInterval if Δts = 0
//	v, err := c.Values(newer)                 // Rate, TS, TxBytes, QLen as units types
//	c.MaxSampleGap(r)                         // samples at most this apart: deltas exact
//	c.TxBytesWrapTime(r), c.TSWrap()          // the two counters' wrap periods
//
// Stamp and Push (also when they refuse with ErrPathFull), AppendHeader
// (into a buffer with room), Put, Decode, Get, ReadHeader, Values, the
// deltas, TxRate and the speed lookups do not allocate on success. Push's
// outcomes are Stamp's on the header the stack holds, and every error
// leaves the Header or the stack as it was. Errors are sentinels
// (ErrShortBuffer, ErrLength, ErrTooManyHops, ErrPathFull, ErrUnknownSpeed,
// ErrFieldRange, ErrConfig, ErrZeroInterval) wrapped with the field, the
// value and the allowed range; test them with errors.Is. NewCodec's errors
// are *cc.ConfigError values (wrapping ErrConfig), and the errors of bytes
// that are not a header (Decode's, Get's, ReadHeader's, and Push's of a
// stack that is not one header) are *DecodeError values that also name the
// byte offset where reading failed. Nothing here panics on any bytes, field
// values or configuration (a nil *Header, *cc.Telemetry or *Codec is a
// programming error).
//
// # Wire format
//
// The header sits after the UDP header and before the InfiniBand BTH, in
// network byte order (big-endian). Bits are numbered from the most
// significant bit of the first byte:
//
//	offset 0, 16 bits:  nHop<<12 | pathID
//	    bits 0-3   nHop    hop records that follow, 0..15 (the sender sends 0)
//	    bits 4-15  pathID  XOR of the 12-bit IDs of the switches that stamped
//	offset 2 + 8·i, 64 bits, i = 0 .. nHop-1, first switch first:
//	    B<<60 | TS<<36 | txBytes<<16 | qLen
//	    bits 0-3   B       port speed code (SpeedTable)
//	    bits 4-27  TS      egress time, low 24 bits of floor(now / TSUnit)
//	    bits 28-47 txBytes low 20 bits of floor(cumulative port bytes / TxBytesUnit)
//	    bits 48-63 qLen    floor(queue bytes / QLenUnit), saturated at 0xFFFF
//
// All field widths are multiples of 4 bits, so the hex dump of a record is its
// fields' hex digits side by side: B=6, TS=0x123456, txBytes=0xabcde,
// qLen=0x1234 is 6123456abcde1234.
//
// The header is 2 + 8·nHop bytes, with no padding. For the paper's 5 hops that
// is 2 + 40 = 42 bytes, exactly the "42 bytes for 5 hops" of Figure 7 and
// section 4.1, so this layout and the paper's agree with nothing left over:
// the 4+12-bit prefix is the 2 bytes and each hop is 4+24+20+16 = 64 bits. The
// authors' ns-3 code packs its hop record differently (3/24/20/17 bits); it is
// not wire-compatible with Figure 7 and is not followed here.
//
// # Units, widths and overflow policy
//
// Every field is a register of the stated width; Hop holds them as raw
// register values and Values converts them to units types.
//
//	field    width  unit (DefaultConfig)  on the switch        overflow
//	nHop     4      records               +1 per stamp          reject (ErrPathFull)
//	pathID   12     -                     ^= switch ID          XOR never overflows
//	B        4      code                  SpeedTable.Code       unknown rate: reject
//	TS       24     1 ns  (Config.TSUnit) floor(now/unit)       wrap, 16.78 ms period
//	txBytes  20     128 B (TxBytesUnit)   floor(bytes/unit)     wrap, 128 MiB period
//	qLen     16     80 B  (QLenUnit)      floor(bytes/unit)     saturate at 0xFFFF
//
// The three units are configurable, like the INT_MULTI factor of the authors'
// ns-3 simulator, which multiplies the 128 B and 80 B units to stretch the
// counters at the cost of resolution.
//
// txBytes and TS are wrapping counters. The deltas take them modulo 2^20 and
// 2^24 and are exact as long as the counter advanced by fewer than one full
// period between the two samples (see TxBytesDelta and TSDelta). At 400 Gb/s
// the txBytes counter wraps every 2^20·128 B·8 / 400 Gb/s = 2.68 ms; the ns
// timestamp wraps every 2^24 ns = 16.78 ms; HPCC samples every ACK, a few µs
// apart, far inside both.
//
// qLen saturates instead of wrapping (a wrapped queue would read as nearly
// empty, the worst possible error for a congestion signal). The authors' ns-3
// code truncates silently; Stamp reports saturation to its caller.
//
// # Choices the paper leaves open
//
// The paper names no speed codes; DefaultSpeedCodes numbers the eight standard
// rates in increasing order, 10 Gb/s = 0 .. 800 Gb/s = 7, and leaves 8..15
// unassigned. MaxHops defaults to 5, the paper's sizing and the ns-3 code's
// maxHop; the 4-bit nHop allows up to 15. A switch that finds MaxHops records
// already present leaves the header unchanged (nHop and pathID too) and
// returns ErrPathFull; the packet is forwarded and the sender sees the first
// MaxHops hops of the path, so a path change beyond them goes unnoticed.
//
// Rounding on the switch is floor for all three quantised fields
// (fixedpoint.Quantizer with fixedpoint.Floor, the quantiser every hwcc
// algorithm shares): a queue of 79 B reads as 0, a port that has sent 127 B
// reads as txBytes 0. Decoded values are therefore lower bounds within one
// unit.
//
// # Concurrency and allocation
//
// A Codec is immutable after NewCodec and safe for concurrent use. A Header is
// a plain value with a fixed array of HopsLimit records (about 200 bytes);
// its zero value is the empty header a sender puts on a packet. A frame
// carries the header as wire bytes in a cc.Telemetry (128 bytes, room for
// 15 hops' 122), which Push grows in place.
package inttel
