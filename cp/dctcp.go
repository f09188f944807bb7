package cp

import (
	"fmt"
	"math"

	"github.com/hwcc/hwcc/units"
)

// DCTCP congestion point: step ECN marking at one threshold K on the
// instantaneous queue (DCTCP, Alizadeh et al., SIGCOMM 2010, section 3.1;
// REFERENCE.md, "TIMELY and DCTCP"). A packet is marked when the queue length
// it sees exceeds K bytes:
//
//	mark ⇔ q > K
//
// ("greater than K", the paper's wording; q = K is not marked). No random
// draw, no averaging. It is DCQCN's marker with Kmin = Kmax = K, written out
// on its own because it needs no LFSR.

// DCTCPMaxThreshold is the largest K: a 32-bit byte register.
const DCTCPMaxThreshold units.Bytes = math.MaxUint32

// DCTCPConfig configures a DCTCP congestion point.
type DCTCPConfig struct {
	// K is the marking threshold in bytes. Range: 0..DCTCPMaxThreshold.
	K units.Bytes
}

// DCTCPHPCCSim is the marker of the HPCC paper's DCTCP runs
// (papers/hpcc.txt section 5.1, "Parameters": Kmin = Kmax = 30 KB·Bw/10 Gb/s,
// "according to [8]", the DCTCP paper). KB is 1000 B; K is rounded down to
// whole bytes.
func DCTCPHPCCSim(link units.Rate) DCTCPConfig {
	const (
		k   = 30 * units.KB
		ref = 10 * units.Gbps
	)
	if link <= 0 {
		return DCTCPConfig{}
	}
	if int64(link) > int64(DCTCPMaxThreshold+1)/int64(k)*int64(ref) {
		return DCTCPConfig{K: DCTCPMaxThreshold + 1} // fails Validate
	}
	return DCTCPConfig{K: units.Bytes(int64(k) * int64(link) / int64(ref))}
}

// Validate checks K's range and returns an error naming it and the allowed
// range.
func (c DCTCPConfig) Validate() error {
	if c.K < 0 || c.K > DCTCPMaxThreshold {
		return fmt.Errorf("cp: DCTCP K = %v, want 0..%d bytes", c.K, int64(DCTCPMaxThreshold))
	}
	return nil
}

// DCTCPState is every register of a DCTCP congestion point.
type DCTCPState struct {
	// Started is false until the first OnEnqueue; Last is that call's time
	// (earlier times are rejected).
	Started bool
	Last    units.Time
	// Packets counts decisions, Marked the packets marked. 64-bit
	// counters, wrapping.
	Packets, Marked uint64
}

// DCTCP is the marker of one egress queue. It is not safe for concurrent use.
// The zero value is not usable; build one with NewDCTCP.
type DCTCP struct {
	cfg DCTCPConfig
	s   DCTCPState
}

// NewDCTCP validates cfg and returns a marker.
func NewDCTCP(cfg DCTCPConfig) (*DCTCP, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &DCTCP{cfg: cfg}, nil
}

// Config returns the configuration c was built with.
func (c *DCTCP) Config() DCTCPConfig { return c.cfg }

// State returns every register.
func (c *DCTCP) State() DCTCPState { return c.s }

// OnEnqueue decides whether to mark a packet that sees queue length qlen
// (bytes) at time now: qlen > K. A negative qlen, or a now earlier than the
// previous call's, is an error and changes nothing.
func (c *DCTCP) OnEnqueue(now units.Time, qlen units.Bytes) (mark bool, err error) {
	if qlen < 0 {
		return false, fmt.Errorf("cp: DCTCP OnEnqueue qlen = %v, want ≥ 0", qlen)
	}
	if c.s.Started && now < c.s.Last {
		return false, fmt.Errorf("cp: DCTCP OnEnqueue at %v is before the previous call at %v", now, c.s.Last)
	}
	c.s.Started, c.s.Last = true, now
	c.s.Packets++
	mark = qlen > c.cfg.K
	if mark {
		c.s.Marked++
	}
	return mark, nil
}
