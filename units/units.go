package units

import (
	"math"
	"math/bits"
	"strconv"
)

// Time is a duration or an instant in picoseconds. The zero value is zero
// time. Arithmetic is plain int64 arithmetic; the range is ±9.2e18 ps, about
// ±106 days, far beyond any simulated run.
type Time int64

// Time units. A Time is an integer count of picoseconds.
const (
	Picosecond  Time = 1
	Nanosecond  Time = 1000 * Picosecond
	Microsecond Time = 1000 * Nanosecond
	Millisecond Time = 1000 * Microsecond
	Second      Time = 1000 * Millisecond

	// MaxTime is the largest Time: "never" for a deadline and the saturated
	// result of a conversion that does not fit.
	MaxTime Time = math.MaxInt64
)

// Bytes is an amount of data in bytes.
type Bytes int64

// Byte units. KB, MB and GB are decimal (KB = 1000 B, as network papers and
// the RoCC authors' code use it); KiB, MiB and GiB are binary.
const (
	Byte Bytes = 1
	KB   Bytes = 1000
	MB   Bytes = 1000 * KB
	GB   Bytes = 1000 * MB
	KiB  Bytes = 1024
	MiB  Bytes = 1024 * KiB
	GiB  Bytes = 1024 * MiB

	// MaxBytes is the largest Bytes, the saturated result of a conversion
	// that does not fit.
	MaxBytes Bytes = math.MaxInt64
)

// Rate is a data rate in bits per second.
type Rate int64

// Rate units, decimal as link speeds are.
const (
	BitPerSecond Rate = 1
	Kbps         Rate = 1000
	Mbps         Rate = 1000 * Kbps
	Gbps         Rate = 1000 * Mbps
	Tbps         Rate = 1000 * Gbps
)

const bitsPerByte = 8

// picosPerSecond is Second as an unsigned number for the 128-bit helpers.
const picosPerSecond = uint64(Second)

// mulDiv returns floor(a*b/c) and whether it fits in an int64, and whether
// the remainder was non-zero. It needs c > 0.
func mulDiv(a, b, c uint64) (q uint64, rem bool, ok bool) {
	hi, lo := bits.Mul64(a, b)
	if hi >= c {
		return 0, false, false
	}
	q, r := bits.Div64(hi, lo, c)
	if q > math.MaxInt64 {
		return 0, false, false
	}
	return q, r != 0, true
}

// SerializationTime returns how long n bytes take to leave a port of rate r:
// ceil(n·8·10^12 / r) picoseconds.
//
// Rounding: up, so that a sender paced by these times never exceeds r. At
// every standard link speed from 1 Gb/s to 800 Gb/s a byte is a whole number
// of picoseconds and no rounding happens; at 400 Gb/s and 800 Gb/s one byte is
// 20 ps and 10 ps.
//
// Edge cases, none of which panic: n ≤ 0 gives 0; r ≤ 0 gives MaxTime (a port
// that never finishes); a result beyond MaxTime saturates at MaxTime.
func SerializationTime(n Bytes, r Rate) Time {
	if n <= 0 {
		return 0
	}
	if r <= 0 {
		return MaxTime
	}
	q, rem, ok := mulDiv(uint64(n), bitsPerByte*picosPerSecond, uint64(r))
	if !ok || (rem && q == math.MaxInt64) {
		return MaxTime
	}
	if rem {
		q++
	}
	return Time(q)
}

// BytesIn returns how many whole bytes a rate r moves in a duration d:
// floor(r·d / (8·10^12)).
//
// Rounding: down, a byte counts once all of its bits have moved. Edge cases:
// r ≤ 0 or d ≤ 0 gives 0; a result beyond MaxBytes saturates at MaxBytes.
func BytesIn(r Rate, d Time) Bytes {
	if r <= 0 || d <= 0 {
		return 0
	}
	q, _, ok := mulDiv(uint64(r), uint64(d), picosPerSecond*bitsPerByte)
	if !ok {
		return MaxBytes
	}
	return Bytes(q)
}

// RateOf returns the rate that moves n bytes in d: floor(n·8·10^12 / d) bit/s.
// It is the inverse of SerializationTime up to rounding (down here). d ≤ 0 or
// n ≤ 0 gives 0; a result beyond the Rate range saturates at math.MaxInt64.
func RateOf(n Bytes, d Time) Rate {
	if n <= 0 || d <= 0 {
		return 0
	}
	q, _, ok := mulDiv(uint64(n), bitsPerByte*picosPerSecond, uint64(d))
	if !ok {
		return math.MaxInt64
	}
	return Rate(q)
}

// Seconds returns t in seconds as a float64, for reports and plots only.
func (t Time) Seconds() float64 { return float64(t) / float64(Second) }

// Nanoseconds returns t in whole nanoseconds, truncated toward zero.
func (t Time) Nanoseconds() int64 { return int64(t / Nanosecond) }

// BitsPerSecond returns r as a float64, for reports and plots only.
func (r Rate) BitsPerSecond() float64 { return float64(r) }

// scaled is one unit of a family, largest first.
type scaled struct {
	name string
	size int64
}

var timeUnits = []scaled{
	{"s", int64(Second)}, {"ms", int64(Millisecond)}, {"us", int64(Microsecond)},
	{"ns", int64(Nanosecond)}, {"ps", int64(Picosecond)},
}

var rateUnits = []scaled{
	{"Tbps", int64(Tbps)}, {"Gbps", int64(Gbps)}, {"Mbps", int64(Mbps)},
	{"Kbps", int64(Kbps)}, {"bps", int64(BitPerSecond)},
}

var byteUnits = []scaled{
	{"GB", int64(GB)}, {"MB", int64(MB)}, {"KB", int64(KB)}, {"B", int64(Byte)},
}

// format writes v exactly in the largest unit of us that v reaches, with as
// many decimals as needed and no trailing zeros: 1500 ps is "1.5ns". The units
// are powers of ten apart, so the result is exact.
func format(v int64, us []scaled, zero string) string {
	if v == 0 {
		return zero
	}
	neg := v < 0
	var u uint64
	if neg {
		u = uint64(-(v + 1)) + 1 // safe for math.MinInt64
	} else {
		u = uint64(v)
	}
	unit := us[len(us)-1]
	for _, c := range us {
		if u >= uint64(c.size) {
			unit = c
			break
		}
	}
	size := uint64(unit.size)
	buf := make([]byte, 0, 32)
	if neg {
		buf = append(buf, '-')
	}
	buf = strconv.AppendUint(buf, u/size, 10)
	if frac := u % size; frac != 0 {
		digits := len(strconv.FormatUint(size, 10)) - 1
		f := strconv.FormatUint(frac, 10)
		buf = append(buf, '.')
		for i := len(f); i < digits; i++ {
			buf = append(buf, '0')
		}
		for len(f) > 0 && f[len(f)-1] == '0' {
			f = f[:len(f)-1]
		}
		buf = append(buf, f...)
	}
	return string(append(buf, unit.name...))
}

// String formats t exactly in the largest unit it reaches: "0s", "500ps",
// "1.5ns", "13us", "2.000001ms". The output parses back with ParseTime.
func (t Time) String() string { return format(int64(t), timeUnits, "0s") }

// String formats b exactly in the largest decimal unit it reaches: "64B",
// "1.5KB", "150KB", "1.048576MB"; zero is "0B". The output parses back
// with ParseBytes.
func (b Bytes) String() string { return format(int64(b), byteUnits, "0B") }

// String formats r exactly in the largest unit it reaches: "40Gbps",
// "10Mbps", "2.5Gbps"; zero is "0bps". The output parses back with
// ParseRate.
func (r Rate) String() string { return format(int64(r), rateUnits, "0bps") }
