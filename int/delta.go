package inttel

import (
	"fmt"

	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/units"
)

// HopValues is a hop record in physical units, for the sender.
type HopValues struct {
	// Rate is the port speed B_j of the link.
	Rate units.Rate
	// TS is TS·TSUnit: the egress time modulo TSWrap, floored to a unit.
	// Only differences (TSDelta) are meaningful.
	TS units.Time
	// TxBytes is txBytes·TxBytesUnit: the port's cumulative bytes modulo
	// TxBytesWrap, floored to a unit. Only differences (TxBytesDelta) are
	// meaningful.
	TxBytes units.Bytes
	// QLen is qLen·QLenUnit, the queue floored to a unit: the true queue was
	// in [QLen, QLen+QLenUnit). At qLen = 0xFFFF it is at least QLen.
	QLen units.Bytes
}

// Values converts a hop record to physical units. It fails only if the
// speed code is not in the table (ErrUnknownSpeed) or TS or TxBytes is wider
// than its field (ErrFieldRange); decoded records always pass.
func (c *Codec) Values(h Hop) (HopValues, error) {
	if err := c.checkHop(0, h); err != nil {
		return HopValues{}, err
	}
	r, _ := c.speeds.Rate(h.Speed)
	return HopValues{
		Rate:    r,
		TS:      units.Time(c.ts.Dequantize(uint64(h.TS))),
		TxBytes: units.Bytes(c.tx.Dequantize(uint64(h.TxBytes))),
		QLen:    units.Bytes(c.qlen.Dequantize(uint64(h.QLen))),
	}, nil
}

// TxBytesDelta returns the bytes the port sent between two records of the
// same hop, older first:
//
//	ΔtxBytes = ((newer.TxBytes − older.TxBytes) mod 2^20) · TxBytesUnit
//
// It is exact (in TxBytesUnit counts) as long as the counter advanced by
// fewer than 2^20 counts between the samples, which is guaranteed when at
// most (2^20 − 1)·TxBytesUnit bytes (134217600 B at 128 B) left the port:
// samples at most MaxSampleGap(r) apart on a port of rate r. Each full wrap
// beyond that is invisible and makes the result 2^20 counts too small.
// Fields wider than 20 bits are taken modulo 2^20. Never negative; does not
// allocate.
func (c *Codec) TxBytesDelta(older, newer Hop) units.Bytes {
	// Dequantize is exact here: the delta is below 2^20, far inside the
	// count's width (see Codec).
	return units.Bytes(c.tx.Dequantize(fixedpoint.WrapSub(uint64(newer.TxBytes), uint64(older.TxBytes), TxBytesBits)))
}

// TSDelta returns the time between two records of the same hop, older
// first:
//
//	Δts = ((newer.TS − older.TS) mod 2^24) · TSUnit
//
// It is exact (in TS units) as long as fewer than 2^24 units passed between
// the samples, which holds for samples at most (2^24 − 1)·TSUnit apart
// (16.78 ms at 1 ns). Fields wider than 24 bits are taken modulo 2^24.
// Never negative; zero when both records carry the same TS (see TxRate).
func (c *Codec) TSDelta(older, newer Hop) units.Time {
	return units.Time(c.ts.Dequantize(fixedpoint.WrapSub(uint64(newer.TS), uint64(older.TS), TSBits)))
}

// errZeroInterval is TxRate's only error, built once so that it does not
// allocate.
var errZeroInterval = fmt.Errorf("%w: the two records carry the same TS; keep the older record and wait for a later one",
	ErrZeroInterval)

// TxRate returns the port's transmit rate between two records of the same
// hop, HPCC's txRate = ΔtxBytes/Δts (section 3.2, Algorithm 1 line 4):
//
//	txRate = TxBytesDelta·8 / TSDelta   bit/s, rounded down (units.RateOf)
//
// When Δts = 0 (two packets left within one TS unit, or the same record was
// echoed twice) there is no rate to measure and it returns ErrZeroInterval
// instead of dividing by zero; the authors' ns-3 code does not guard this.
// Does not allocate.
func (c *Codec) TxRate(older, newer Hop) (units.Rate, error) {
	dt := c.TSDelta(older, newer)
	if dt == 0 {
		return 0, errZeroInterval
	}
	return units.RateOf(c.TxBytesDelta(older, newer), dt), nil
}

// TxBytesWrap returns the period of the txBytes field in bytes,
// 2^20·TxBytesUnit (134217728 B = 128 MiB at 128 B).
func (c *Codec) TxBytesWrap() units.Bytes { return units.Bytes(c.tx.Dequantize(1 << TxBytesBits)) }

// TSWrap returns the period of the TS field, 2^24·TSUnit (16.777216 ms at
// 1 ns).
func (c *Codec) TSWrap() units.Time { return units.Time(c.ts.Dequantize(1 << TSBits)) }

// TxBytesWrapTime returns how long a port sending at rate r takes to wrap
// the txBytes field: TxBytesWrap·8 / r, rounded up (units.SerializationTime).
// At 128 B: 2.684354560 ms at 400 Gb/s, 10.737418240 ms at 100 Gb/s. r ≤ 0
// gives units.MaxTime.
func (c *Codec) TxBytesWrapTime(r units.Rate) units.Time {
	return units.SerializationTime(c.TxBytesWrap(), r)
}

// MaxSampleGap returns the longest time between two records of one hop for
// which both deltas are guaranteed exact on a port sending at most r:
//
//	min( floor((2^20 − 1)·TxBytesUnit·8 / r),  (2^24 − 1)·TSUnit )
//
// in picoseconds. The first term is how long the port takes to send the
// most bytes that keep the txBytes advance below 2^20 counts; the second
// keeps the TS advance below 2^24 units (floor quantisation can add one
// count to a difference, hence 2^w − 1 rather than 2^w). At the default
// units: 2.684352 ms at 400 Gb/s, 16.777215 ms at 10 Gb/s (TS-bound).
// r ≤ 0 gives the TS bound.
func (c *Codec) MaxSampleGap(r units.Rate) units.Time {
	tsBound := c.ts.Dequantize(MaxTS)
	if r <= 0 {
		return units.Time(tsBound)
	}
	// bits = (2^20 − 1)·unit·8 ≤ 2^55; bits·10^12 needs 128 bits.
	bitsMax := c.tx.Dequantize(MaxTxBytes) * bitsPerByte
	// floor(bits·10^12 / r), saturating (beyond 2^64 ps the TS bound wins).
	q := fixedpoint.MulDivSat(bitsMax, picosPerSecond, uint64(r))
	return units.Time(min(q, tsBound))
}

const (
	bitsPerByte    = 8
	picosPerSecond = uint64(units.Second)
)
