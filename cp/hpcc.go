package cp

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/hwcc/hwcc/cc"
	inttel "github.com/hwcc/hwcc/int"
	"github.com/hwcc/hwcc/units"
)

// HPCC is the congestion point of HPCC, one switch egress port
// ([HPCC] §3.1, §4.1 and Figure 7). HPCC's switch
// decides nothing; at egress it appends one INT record describing the port
// to every data packet:
//
//	B        4 bits   the port's speed code
//	TS       24 bits  egress time, ns (wraps every 16.78 ms)
//	txBytes  20 bits  the port's cumulative transmitted bytes, 128 B units
//	                  (wraps every 128 MiB)
//	qLen     16 bits  the egress queue, 80 B units (saturates at 5.24 MB)
//
// and adds 1 to nHop and XORs its 12-bit switch ID (HPCCConfig.SwitchID)
// into pathID. The encoding is package inttel's (Codec.Push on a frame's
// wire bytes; a firmware model that keeps a decoded Header stamps it with
// Codec.Stamp, the same record); this type holds what the port owns: the
// cumulative transmit counter, the switch ID and the port rate. It has no
// timer (NextDeadline is units.MaxTime, so no deadline is ever late) and
// sends no feedback: its only output is the record, so every event takes
// a nil *cc.Actions.
//
// # Events
//
// The part has the contract's events only (cc.CongestionPoint): Enqueue
// records the time and the queue and nothing else. Dequeue, as the
// authors' ns-3 switch does in SwitchNotifyDequeue, pushes the port's
// record onto p.Tel in place when the packet carries a telemetry stack
// (the INT header as wire bytes, which the stack grows by 8), with the
// queue the packet leaves behind (q.Len), and then counts the packet's
// bytes, so a record's txBytes counts the bytes sent before the packet.
// The sender only uses differences of txBytes between records of the same
// port, so either order works if it is the same for every packet.
//
// # Which bytes txBytes counts
//
// By default the port counts what it sees: the Size of every packet its own
// queue dequeues. The authors' ns-3 switch counts txBytes per port over all
// priorities (m_txBytes[ifIndex] grows by every packet the port sends: data
// of every class, ACKs, PFC frames), so its txRate measures the whole link.
// With HPCCConfig.PortTxBytes set, Dequeue reads that counter from the
// caller instead, cc.Queue.TxBytes (the port's bytes sent on every
// priority), and stamps it as given: pass the bytes sent before this
// packet, as ns-3 and hwcc's harness do. ns-3 also stamps qLen as the
// port's bytes over all priorities (GetNBytesTotal); hwcc stamps the q.Len
// it is given, which the caller may make either.
//
// # Registers (AppendRegisters)
//
//	now             64 bits  latest accepted time (cc.Monotonic)
//	tx_bytes        27 bits  cumulative bytes sent, kept modulo the field's
//	                         period 2^20·TxBytesUnit (2^27 B at 128 B), so
//	                         that the stamped ⌊txBytes/unit⌋ mod 2^20 equals
//	                         the unbounded counter's; wraps. Its width is
//	                         bitlen(period − 1) for other units.
//	last_qlen       64 bits  the queue at the last event, bytes (model)
//	last_dequeue    64 bits  time of the last dequeue (model)
//	packets, stamped, path_full, qlen_saturated
//	                64 bits  event counters (model, wrap)
//
// An HPCC is not safe for concurrent use; its events do not allocate on
// success.
type HPCC struct {
	cfg     HPCCConfig
	codec   *inttel.Codec
	period  uint64 // 2^20·TxBytesUnit, bytes
	txBits  uint8  // bitlen(period − 1): the tx_bytes register's width
	txBytes uint64 // cumulative bytes mod period
	mono    cc.Monotonic
	st      HPCCState
}

var _ cc.CongestionPoint = (*HPCC)(nil)

// hpccCPPart names the part in errors.
const hpccCPPart = "cp.HPCC"

// HPCCConfig configures one egress port's INT stamping.
type HPCCConfig struct {
	// SwitchID is the switch's ID, XORed into pathID (section 4.1): a
	// register of inttel.PathIDBits (12) bits. Range 0..inttel.MaxPathID.
	SwitchID uint16
	// Rate is the port's speed; it must have a code in the Codec's speed
	// table (default: 10, 25, 40, 50, 100, 200, 400, 800 Gb/s). The record's
	// B is this rate's code, whatever cc.Queue.Rate says.
	Rate units.Rate
	// Codec gives the INT units, speed codes and hop limit; nil means
	// inttel.DefaultConfig() (128 B, 80 B, 1 ns, 5 hops).
	Codec *inttel.Codec
	// PortTxBytes makes Dequeue stamp the caller's port counter,
	// cc.Queue.TxBytes (bytes sent on every priority, as the authors' ns-3
	// counts them), instead of counting this queue's own packets (off, the
	// default). See the type's doc.
	PortTxBytes bool
}

// HPCCState is every register of an HPCC congestion point, each in the
// unit of its snapshot (AppendRegisters).
type HPCCState struct {
	// TxBytes is the port's cumulative transmitted bytes modulo
	// 2^20·TxBytesUnit (register tx_bytes, bytes).
	TxBytes units.Bytes
	// LastQLen is the queue length at the last Enqueue or Dequeue, bytes
	// (register last_qlen).
	LastQLen units.Bytes
	// LastDequeue is the time of the last Dequeue, ps (register
	// last_dequeue).
	LastDequeue units.Time
	// Packets counts dequeues (64 bits, wraps); Stamped counts records
	// written, PathFull packets that arrived with every hop slot used, and
	// QLenSaturated records whose qLen was clamped at 0xFFFF.
	Packets, Stamped, PathFull, QLenSaturated uint64
}

// NewHPCC validates cfg and returns a port with txBytes = 0. Its errors are
// *cc.ConfigError naming the field.
func NewHPCC(cfg HPCCConfig) (*HPCC, error) {
	if cfg.SwitchID > inttel.MaxPathID {
		return nil, &cc.ConfigError{Part: hpccCPPart, Field: "SwitchID", Value: fmt.Sprintf("%#x", cfg.SwitchID),
			Range: fmt.Sprintf("0..%#x (%d bits)", inttel.MaxPathID, inttel.PathIDBits)}
	}
	if cfg.Codec == nil {
		c, err := inttel.NewCodec(inttel.DefaultConfig())
		if err != nil { // cannot happen: a fixed, valid configuration
			return nil, &cc.ConfigError{Part: hpccCPPart, Field: "Codec", Err: err}
		}
		cfg.Codec = c
	}
	if _, ok := cfg.Codec.Code(cfg.Rate); !ok {
		return nil, &cc.ConfigError{Part: hpccCPPart, Field: "Rate", Value: cfg.Rate.String(),
			Range: "a rate with a speed code (" + cfg.Codec.Speeds().String() + ")"}
	}
	period := uint64(cfg.Codec.TxBytesWrap())
	return &HPCC{cfg: cfg, codec: cfg.Codec, period: period, txBits: uint8(bits.Len64(period - 1))}, nil
}

// Config returns the configuration (Codec resolved).
func (c *HPCC) Config() HPCCConfig { return c.cfg }

// State returns every register but the time (register now).
func (c *HPCC) State() HPCCState {
	s := c.st
	s.TxBytes = units.Bytes(c.txBytes)
	return s
}

// eventError is a *cc.EventError of this part.
func (c *HPCC) eventError(event, reason string, err error) error {
	return &cc.EventError{Part: hpccCPPart, Event: event, Reason: reason, Err: err}
}

// Enqueue records a packet joining the queue at now with q.Len bytes queued
// (the contract's event): HPCC's switch acts only at egress, so it keeps
// the time and the queue and nothing else. act is not touched (nil is
// fine). Errors, after which nothing changed: *cc.TimeOrderError;
// *cc.EventError for a nil p (every event of a queue has a frame) or a
// negative q.Len.
func (c *HPCC) Enqueue(now units.Time, p *cc.Packet, q cc.Queue, _ *cc.Actions) error {
	const event = "Enqueue"
	if err := c.mono.Check(hpccCPPart, event, now); err != nil {
		return err
	}
	if p == nil {
		return c.eventError(event, "nil packet", nil)
	}
	if q.Len < 0 {
		return c.eventError(event, fmt.Sprintf("queue length %d B is negative", q.Len), nil)
	}
	c.st.LastQLen = q.Len
	c.mono.Advance(now)
	return nil
}

// Dequeue is the contract's egress event: p left the queue at now, which
// holds q.Len bytes behind it. If p.Tel is not nil, Dequeue pushes this
// port's record onto it (inttel's Codec.Push, with q.Len; section 4.1):
//
//	hdr.Hops[nHop] = {B: code(Rate), TS: now/1 ns mod 2^24,
//	                  txBytes: txBytes/128 B mod 2^20, qLen: min(q.Len/80 B, 0xFFFF)}
//	nHop += 1; pathID ^= SwitchID
//
// then counts the packet: txBytes += p.Size.
// With HPCCConfig.PortTxBytes it sets txBytes = q.TxBytes instead, before
// stamping, so that the record carries the port's bytes over every
// priority. A header already holding the Codec's MaxHops records is left
// unchanged and counted in PathFull; that is not an error. act is not
// touched (nil is fine).
//
// Errors, after which nothing changed (p.Tel included):
// *cc.TimeOrderError; *cc.EventError for a nil p, a negative p.Size or
// q.Len, or a p.Tel that is not an INT header the Codec takes (its length
// is not the 2 + 8·nHop bytes its prefix announces, or nHop is above
// MaxHops; inttel's error, a *cc.DecodeError or ErrTooManyHops, is its
// Err).
func (c *HPCC) Dequeue(now units.Time, p *cc.Packet, q cc.Queue, _ *cc.Actions) error {
	const event = "Dequeue"
	if err := c.mono.Check(hpccCPPart, event, now); err != nil {
		return err
	}
	if p == nil {
		return c.eventError(event, "nil packet", nil)
	}
	if err := c.checkCount(event, p.Size, q.Len); err != nil {
		return err
	}
	tx, size := c.txBytes, p.Size
	if c.cfg.PortTxBytes {
		// The caller's counter, modulo the field's period: the stamped
		// ⌊tx/unit⌋ mod 2^20 is the same as the full counter's.
		tx, size = q.TxBytes%c.period, 0
	}
	if p.Tel != nil {
		sat, err := c.codec.Push(now, p.Tel, c.port(tx, q.Len))
		if err := c.counted(event, sat, err); err != nil {
			return err
		}
	}
	c.txBytes = tx
	c.count(now, size, q.Len)
	c.mono.Advance(now)
	return nil
}

// port is the egress port's state for a record: this port's ID and rate,
// transmit counter tx and queue qlen.
func (c *HPCC) port(tx uint64, qlen units.Bytes) inttel.Port {
	return inttel.Port{SwitchID: c.cfg.SwitchID, Rate: c.cfg.Rate, TxBytes: units.Bytes(tx), QLen: qlen}
}

// counted counts the outcome of a record Codec.Push made or refused: a
// record is counted in Stamped (and in QLenSaturated when sat); a refusal
// is refused's.
func (c *HPCC) counted(event string, sat bool, err error) error {
	if err != nil {
		return c.refused(event, err)
	}
	c.st.Stamped++
	if sat {
		c.st.QLenSaturated++
	}
	return nil
}

// refused handles a record the Codec refused: a full path is counted in
// PathFull and is not an error; any other refusal is the event's error,
// with nothing counted. It is apart from counted so that counted inlines.
func (c *HPCC) refused(event string, err error) error {
	if errors.Is(err, inttel.ErrPathFull) {
		c.st.PathFull++
		return nil
	}
	return c.eventError(event, "cannot stamp", err)
}

func (c *HPCC) checkCount(event string, pktBytes, qlen units.Bytes) error {
	if pktBytes < 0 || qlen < 0 {
		return c.negative(event, pktBytes, qlen)
	}
	return nil
}

// negative is checkCount's error, apart so that checkCount inlines.
func (c *HPCC) negative(event string, pktBytes, qlen units.Bytes) error {
	return c.eventError(event, fmt.Sprintf("packet %d B, queue %d B: want both ≥ 0", pktBytes, qlen), nil)
}

// count adds pktBytes ≥ 0 to txBytes and records the dequeue.
func (c *HPCC) count(now units.Time, pktBytes, qlen units.Bytes) {
	// txBytes = (txBytes + pktBytes) mod P, P = 2^20·unit (not a power of
	// two for every unit). A packet is almost always shorter than P, and
	// txBytes < P, so the sum is below 2P (no overflow: P ≤ 2^52) and one
	// conditional subtraction reduces it; the division runs only for a
	// count of P bytes or more.
	n := uint64(pktBytes)
	if n >= c.period {
		n %= c.period
	}
	tx := c.txBytes + n
	if tx >= c.period {
		tx -= c.period
	}
	c.txBytes = tx
	c.st.LastQLen = qlen
	c.st.LastDequeue = now
	c.st.Packets++
}

// NextDeadline returns units.MaxTime: HPCC's switch has no timer.
func (c *HPCC) NextDeadline() units.Time { return units.MaxTime }

// Timer records now (*cc.TimeOrderError if it is before the last event)
// and does nothing else: there is no timer.
func (c *HPCC) Timer(now units.Time, _ *cc.Actions) error {
	return c.mono.Accept(hpccCPPart, "Timer", now)
}

// AppendRegisters appends the registers listed on the type, in that order.
func (c *HPCC) AppendRegisters(dst []cc.Register) []cc.Register {
	return append(dst,
		c.mono.Register(),
		cc.Reg("tx_bytes", c.txBits, c.txBytes),
		cc.BytesReg("last_qlen", c.st.LastQLen),
		cc.TimeReg("last_dequeue", c.st.LastDequeue),
		cc.Reg("packets", 64, c.st.Packets),
		cc.Reg("stamped", 64, c.st.Stamped),
		cc.Reg("path_full", 64, c.st.PathFull),
		cc.Reg("qlen_saturated", 64, c.st.QLenSaturated),
	)
}
