package cp

import (
	"errors"
	"fmt"

	inttel "github.com/hwcc/hwcc/int"
	"github.com/hwcc/hwcc/units"
)

// HPCC congestion point: the switch side of HPCC (papers/hpcc.txt section
// 3.1, section 4.1 and Figure 7). HPCC's switch decides nothing; at egress it
// appends one INT record describing the port to every data packet:
//
//	B        4 bits   the port's speed code
//	TS       24 bits  egress time, ns (wraps every 16.78 ms)
//	txBytes  20 bits  the port's cumulative transmitted bytes, 128 B units
//	                  (wraps every 128 MiB)
//	qLen     16 bits  the egress queue, 80 B units (saturates at 5.24 MB)
//
// and adds 1 to nHop and XORs its 12-bit switch ID into pathID. The encoding
// is package inttel's (Codec.Stamp); this type holds what the port owns:
// the cumulative transmit counter, the switch ID and the port rate.
//
// Order on a dequeue, as in the authors' ns-3 switch (SwitchNotifyDequeue):
// Stamp the packet with the queue left behind it, then OnDequeue to count
// its bytes, so a record's txBytes counts the bytes sent before the packet.
// The sender only uses differences of txBytes between records of the same
// port, so either order works if it is the same for every packet.
//
// Registers:
//
//	txBytes  cumulative bytes sent, kept modulo the field's period
//	         2^20·TxBytesUnit (2^27 B at 128 B), so that the stamped
//	         floor(txBytes/unit) mod 2^20 equals the unbounded counter's;
//	         wraps.
//	lastQLen the queue length of the last dequeue, bytes (for State only).
//
// An HPCC is not safe for concurrent use; Stamp and OnDequeue do not
// allocate.
type HPCC struct {
	cfg     HPCCConfig
	codec   *inttel.Codec
	period  uint64 // 2^20·TxBytesUnit, bytes
	txBytes uint64 // cumulative bytes mod period
	st      HPCCState
}

// HPCCConfig configures one egress port's INT stamping.
type HPCCConfig struct {
	// SwitchID is the switch's 12-bit ID, XORed into pathID (section
	// 4.1). Range 0..0xFFF.
	SwitchID uint16
	// Rate is the port's speed; it must have a code in the Codec's speed
	// table (default: 10, 25, 40, 50, 100, 200, 400, 800 Gb/s).
	Rate units.Rate
	// Codec gives the INT units, speed codes and hop limit; nil means
	// inttel.DefaultConfig() (128 B, 80 B, 1 ns, 5 hops).
	Codec *inttel.Codec
}

// HPCCState is every register of an HPCC congestion point.
type HPCCState struct {
	// TxBytes is the port's cumulative transmitted bytes modulo
	// 2^20·TxBytesUnit.
	TxBytes units.Bytes
	// LastQLen is the queue length at the last OnDequeue, bytes.
	LastQLen units.Bytes
	// LastDequeue is the time of the last OnDequeue.
	LastDequeue units.Time
	// Packets counts dequeues (64 bits, wraps); Stamped counts records
	// written, PathFull packets that arrived with every hop slot used, and
	// QLenSaturated records whose qLen was clamped at 0xFFFF.
	Packets, Stamped, PathFull, QLenSaturated uint64
}

// ErrHPCCConfig is wrapped by NewHPCC's errors; ErrHPCCEvent by an event's.
var (
	ErrHPCCConfig = errors.New("cp: HPCC: invalid config")
	ErrHPCCEvent  = errors.New("cp: HPCC: invalid event")
)

// NewHPCC validates cfg and returns a port with txBytes = 0.
func NewHPCC(cfg HPCCConfig) (*HPCC, error) {
	if cfg.SwitchID > inttel.MaxPathID {
		return nil, fmt.Errorf("%w: SwitchID = %#x, want 0..%#x (12 bits)", ErrHPCCConfig, cfg.SwitchID, inttel.MaxPathID)
	}
	if cfg.Codec == nil {
		c, err := inttel.NewCodec(inttel.DefaultConfig())
		if err != nil {
			return nil, fmt.Errorf("%w: default INT codec: %w", ErrHPCCConfig, err)
		}
		cfg.Codec = c
	}
	if _, ok := cfg.Codec.Code(cfg.Rate); !ok {
		return nil, fmt.Errorf("%w: Rate = %v has no speed code (%s)", ErrHPCCConfig, cfg.Rate, cfg.Codec.Speeds())
	}
	return &HPCC{cfg: cfg, codec: cfg.Codec, period: uint64(cfg.Codec.TxBytesWrap())}, nil
}

// Config returns the configuration (Codec resolved).
func (c *HPCC) Config() HPCCConfig { return c.cfg }

// State returns every register.
func (c *HPCC) State() HPCCState {
	s := c.st
	s.TxBytes = units.Bytes(c.txBytes)
	return s
}

// Stamp appends this port's record to hdr at egress time now, with the
// egress queue at qlen bytes (section 4.1):
//
//	hdr.Hops[nHop] = {B: code(Rate), TS: now/1 ns mod 2^24,
//	                  txBytes: txBytes/128 B mod 2^20, qLen: min(qlen/80 B, 0xFFFF)}
//	nHop += 1; pathID ^= SwitchID
//
// A header that already holds the Codec's MaxHops records is left as it is
// and Stamp returns nil (the packet is forwarded; State counts PathFull).
// qLen saturation is counted in State and is not an error. Errors, which
// leave hdr unchanged: nil hdr, negative now or qlen, a malformed hdr
// (inttel's errors, wrapped).
func (c *HPCC) Stamp(now units.Time, hdr *inttel.Header, qlen units.Bytes) error {
	if hdr == nil {
		return fmt.Errorf("%w: nil header", ErrHPCCEvent)
	}
	sat, err := c.codec.Stamp(now, hdr, inttel.Port{
		SwitchID: c.cfg.SwitchID,
		Rate:     c.cfg.Rate,
		TxBytes:  units.Bytes(c.txBytes),
		QLen:     qlen,
	})
	if errors.Is(err, inttel.ErrPathFull) {
		c.st.PathFull++
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrHPCCEvent, err)
	}
	c.st.Stamped++
	if sat {
		c.st.QLenSaturated++
	}
	return nil
}

// OnDequeue counts a packet of pktBytes leaving the port at now, with qlen
// bytes left in the queue: txBytes += pktBytes (modulo its period). Errors:
// negative pktBytes or qlen, leaving the state unchanged.
func (c *HPCC) OnDequeue(now units.Time, pktBytes, qlen units.Bytes) error {
	if pktBytes < 0 || qlen < 0 {
		return fmt.Errorf("%w: pktBytes = %d, qlen = %d, want both ≥ 0", ErrHPCCEvent, pktBytes, qlen)
	}
	// txBytes = (txBytes + pktBytes) mod 2^20·unit: both terms below
	// 2^63, so the sum cannot overflow 64 bits.
	c.txBytes = (c.txBytes + uint64(pktBytes)%c.period) % c.period
	c.st.LastQLen = qlen
	c.st.LastDequeue = now
	c.st.Packets++
	return nil
}
