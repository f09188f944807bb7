package inttel

import (
	"errors"
	"fmt"
	"math/bits"
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/units"
)

// Sentinel errors. Every error this package returns wraps exactly one of
// them with the field, the value and the allowed range; test with errors.Is.
var (
	// ErrConfig: a Config field is out of range (NewCodec, NewSpeedTable).
	ErrConfig = errors.New("inttel: invalid config")
	// ErrShortBuffer: Decode's buffer ends before the header does (inside
	// a *DecodeError).
	ErrShortBuffer = errors.New("inttel: buffer too short")
	// ErrTooManyHops: a header's nHop is above the Codec's MaxHops (inside a
	// *DecodeError when Decode meets it).
	ErrTooManyHops = errors.New("inttel: hop count above maximum")
	// ErrPathFull: Stamp found MaxHops records already present. The header
	// is unchanged; the switch forwards the packet without a record.
	ErrPathFull = errors.New("inttel: path full, hop not stamped")
	// ErrUnknownSpeed: a speed code with no rate, or a rate with no code
	// (inside a *DecodeError when Decode meets it).
	ErrUnknownSpeed = errors.New("inttel: unknown speed")
	// ErrFieldRange: a value does not fit its field (a PathID, TS or TxBytes
	// wider than its bits, a switch ID above 12 bits, a negative input).
	ErrFieldRange = errors.New("inttel: field out of range")
	// ErrZeroInterval: TxRate's two samples carry the same timestamp.
	ErrZeroInterval = errors.New("inttel: zero time between samples")
)

// Limits of the configurable units. They keep every product of a field and
// its unit far inside int64: 2^24·2^32 ps = 2^56 ps, 2^20·2^32 B = 2^52 B.
const (
	MaxByteUnit units.Bytes = 1 << 32 // largest TxBytesUnit and QLenUnit, 4 GiB
	MaxTSUnit   units.Time  = 1 << 32 // largest TSUnit, 2^32 ps ≈ 4.29 ms
)

// HPCC's values (section 4.1, Figure 7).
const (
	HPCCTxBytesUnit units.Bytes = 128              // txBytes "in units of 128 Bytes"
	HPCCQLenUnit    units.Bytes = 80               // qLen "in units of 80 Bytes"
	HPCCTSUnit      units.Time  = units.Nanosecond // TS in ns, as the ns-3 code stamps it
	HPCCMaxHops                 = 5                // "the path length is often no more than 5 hops"
)

// Config sets the units, the speed codes and the hop limit of a Codec.
type Config struct {
	// TxBytesUnit is the bytes per count of the 20-bit txBytes field.
	// HPCC: 128 B. Range 1 B .. MaxByteUnit. The ns-3 simulator's INT_MULTI
	// scales it (128·INT_MULTI): a larger unit wraps less often, coarser.
	TxBytesUnit units.Bytes
	// QLenUnit is the bytes per count of the 16-bit qLen field. HPCC: 80 B
	// (saturates at 65535·80 B = 5.24 MB). Range 1 B .. MaxByteUnit. ns-3:
	// 80·INT_MULTI.
	QLenUnit units.Bytes
	// TSUnit is the time per count of the 24-bit TS field. HPCC: 1 ns (wraps
	// every 16.78 ms). Range 1 ps .. MaxTSUnit.
	TSUnit units.Time
	// Speeds assigns the 4-bit speed codes; see NewSpeedTable for the rules.
	// NewCodec copies it.
	Speeds []SpeedCode
	// MaxHops is the most hop records a header may carry: Stamp refuses a
	// record beyond it, Decode and AppendHeader reject a header above it.
	// HPCC: 5 (42 bytes). Range 1..15: the 4-bit nHop cannot count more.
	MaxHops int
}

// DefaultConfig returns HPCC's configuration: 128 B, 80 B and 1 ns units,
// DefaultSpeedCodes, and 5 hops.
func DefaultConfig() Config {
	return Config{
		TxBytesUnit: HPCCTxBytesUnit,
		QLenUnit:    HPCCQLenUnit,
		TSUnit:      HPCCTSUnit,
		Speeds:      DefaultSpeedCodes(),
		MaxHops:     HPCCMaxHops,
	}
}

// Codec encodes, decodes and stamps HPCC INT headers under one Config. It
// is immutable and safe for concurrent use.
//
// Its three quantisers are fixedpoint.Quantizer values, all rounding down
// (Floor), so that a field times its unit is a lower bound of the physical
// value within one unit. The division is exact floor division by a
// configuration constant: a switch implements the power-of-two units
// (128 B, 1 ns on a ns clock) as a shift and 80 B as a constant divider,
// both exact, so no reciprocal approximation belongs in the golden model.
//
//	qlen  16 bits, QLenUnit: the field itself; QuantizeSat saturates at
//	      0xFFFF and reports it.
//	tx    TxBytesUnit, and ts, TSUnit: a count of whole units wide enough
//	      (64 − bitlen(unit) bits) that no int64 input saturates; the 20-bit
//	      txBytes and 24-bit TS fields are the low bits of that count,
//	      fixedpoint.WrapAdd(count, 0, width): wrapping counters.
type Codec struct {
	speeds  SpeedTable
	tx      fixedpoint.Quantizer // txBytes count, TxBytesUnit
	qlen    fixedpoint.Quantizer // qLen, QLenUnit, 16 bits, saturating
	ts      fixedpoint.Quantizer // TS count, TSUnit
	maxHops uint8                // 1..15

	// errPathFull is built once so that a refused stamp, which a switch on
	// a long path meets on every packet, does not allocate.
	errPathFull error
}

// NewCodec validates cfg and returns a Codec. Each error is a
// *cc.ConfigError  naming the field, its value and the
// allowed range, and wraps ErrConfig.
func NewCodec(cfg Config) (*Codec, error) {
	bad := func(field, value, want string) error {
		return &cc.ConfigError{Part: "inttel.Codec", Field: "Config." + field, Value: value, Range: want, Err: ErrConfig}
	}
	if cfg.TxBytesUnit < 1 || cfg.TxBytesUnit > MaxByteUnit {
		return nil, bad("TxBytesUnit", cfg.TxBytesUnit.String(), "1B.."+MaxByteUnit.String())
	}
	if cfg.QLenUnit < 1 || cfg.QLenUnit > MaxByteUnit {
		return nil, bad("QLenUnit", cfg.QLenUnit.String(), "1B.."+MaxByteUnit.String())
	}
	if cfg.TSUnit < 1 || cfg.TSUnit > MaxTSUnit {
		return nil, bad("TSUnit", cfg.TSUnit.String(), "1ps.."+MaxTSUnit.String())
	}
	if cfg.MaxHops < 1 || cfg.MaxHops > HopsLimit {
		return nil, bad("MaxHops", strconv.Itoa(cfg.MaxHops), "1.."+strconv.Itoa(HopsLimit)+" (4-bit nHop)")
	}
	speeds, err := NewSpeedTable(cfg.Speeds)
	if err != nil {
		return nil, err
	}
	// The units are within 1..2^32 (checked above), so every quantiser
	// below exists: (2^width − 1)·unit fits 64 bits.
	tx, err1 := countQuantizer(uint64(cfg.TxBytesUnit))
	ts, err2 := countQuantizer(uint64(cfg.TSUnit))
	qlen, err3 := fixedpoint.NewQuantizer(uint64(cfg.QLenUnit), QLenBits, fixedpoint.Floor)
	if err := errors.Join(err1, err2, err3); err != nil {
		return nil, &cc.ConfigError{Part: "inttel.Codec", Field: "Config", Err: fmt.Errorf("%w: %w", ErrConfig, err)}
	}
	return &Codec{
		speeds:  speeds,
		tx:      tx,
		qlen:    qlen,
		ts:      ts,
		maxHops: uint8(cfg.MaxHops),
		errPathFull: fmt.Errorf("%w: header already holds Config.MaxHops = %d records",
			ErrPathFull, cfg.MaxHops),
	}, nil
}

// Config returns the Codec's configuration (with a fresh Speeds slice in
// code order).
func (c *Codec) Config() Config {
	return Config{
		TxBytesUnit: c.TxBytesUnit(),
		QLenUnit:    c.QLenUnit(),
		TSUnit:      c.TSUnit(),
		Speeds:      c.speeds.Entries(nil),
		MaxHops:     int(c.maxHops),
	}
}

// MaxHops returns Config.MaxHops.
func (c *Codec) MaxHops() int { return int(c.maxHops) }

// TxBytesUnit returns Config.TxBytesUnit (without the copy of the speed
// codes Config makes).
func (c *Codec) TxBytesUnit() units.Bytes { return units.Bytes(c.tx.Delta()) }

// QLenUnit returns Config.QLenUnit.
func (c *Codec) QLenUnit() units.Bytes { return units.Bytes(c.qlen.Delta()) }

// TSUnit returns Config.TSUnit.
func (c *Codec) TSUnit() units.Time { return units.Time(c.ts.Delta()) }

// Speeds returns the Codec's speed table.
func (c *Codec) Speeds() *SpeedTable { return &c.speeds }

// Rate returns the port rate of speed code B; see SpeedTable.Rate.
func (c *Codec) Rate(code uint8) (units.Rate, bool) { return c.speeds.Rate(code) }

// Code returns the speed code B of a port rate; see SpeedTable.Code.
func (c *Codec) Code(r units.Rate) (uint8, bool) { return c.speeds.Code(r) }

// countQuantizer returns the Floor quantiser of a wrapping field's count
// in units of unit (1..2^32): 64 − bitlen(unit) bits wide. For every input
// below 2^63 (every non-negative int64) the count v/unit is below
// 2^63/2^(bitlen(unit)−1) = 2^(64−bitlen(unit)), so it never saturates, and
// (2^width − 1)·unit < 2^64 as NewQuantizer requires.
func countQuantizer(unit uint64) (fixedpoint.Quantizer, error) {
	return fixedpoint.NewQuantizer(unit, 64-uint(bits.Len64(unit)), fixedpoint.Floor)
}
