package units

import (
	"fmt"
	"math"
	"math/bits"
	"strings"
)

// Suffixes accepted by the parsers, matched case-sensitively after optional
// white space. Each maps to the size of the unit in the base unit of its type.
var (
	timeSuffixes = map[string]int64{
		"ps": int64(Picosecond), "ns": int64(Nanosecond),
		"us": int64(Microsecond), "µs": int64(Microsecond), "μs": int64(Microsecond),
		"ms": int64(Millisecond), "s": int64(Second),
	}
	rateSuffixes = map[string]int64{
		"bps": 1, "b/s": 1, "bit/s": 1,
		"Kbps": int64(Kbps), "kbps": int64(Kbps), "Kb/s": int64(Kbps), "kb/s": int64(Kbps), "Kbit/s": int64(Kbps), "kbit/s": int64(Kbps),
		"Mbps": int64(Mbps), "Mb/s": int64(Mbps), "Mbit/s": int64(Mbps), "M": int64(Mbps),
		"Gbps": int64(Gbps), "Gb/s": int64(Gbps), "Gbit/s": int64(Gbps), "G": int64(Gbps),
		"Tbps": int64(Tbps), "Tb/s": int64(Tbps), "Tbit/s": int64(Tbps), "T": int64(Tbps),
	}
	byteSuffixes = map[string]int64{
		"": 1, "B": 1,
		"KB": int64(KB), "kB": int64(KB), "MB": int64(MB), "GB": int64(GB),
		"KiB": int64(KiB), "MiB": int64(MiB), "GiB": int64(GiB),
	}
)

// ParseTime parses a duration such as "1.5us", "10µs", "40 ns", "2ms", "1s" or
// "500ps". The number is decimal (no exponent) and the result must be a
// whole number of picoseconds that fits a Time; anything else is an error
// that quotes the input. A bare number has no unit and is rejected, since
// "1.5" could mean any of them; a bare zero ("0", "0.0") is 0 in any unit
// and is accepted.
func ParseTime(s string) (Time, error) {
	v, err := parse(s, "time", timeSuffixes, false, "ps, ns, us (or µs), ms, s")
	return Time(v), err
}

// ParseRate parses a rate such as "40Gbps", "10Mb/s", "2.5 Gbit/s", "100G"
// or "800bps". Units are decimal (1 Gb/s = 10^9 bit/s). The result must be a
// whole number of bit/s; negative rates are rejected. As for ParseTime, a
// bare number other than zero is rejected for its missing unit.
func ParseRate(s string) (Rate, error) {
	v, err := parse(s, "rate", rateSuffixes, false, "bps, Kbps, Mbps (or Mb/s, M), Gbps (or Gb/s, G), Tbps")
	if err == nil && v < 0 {
		return 0, fmt.Errorf("units: rate %q is negative", s)
	}
	return Rate(v), err
}

// ParseBytes parses an amount of data such as "1500", "1500B", "150KB"
// (150000 B), "150KiB" (153600 B), "1.5MB" or "2MiB". A bare number is bytes.
// The result must be a whole number of bytes; negative sizes are rejected.
func ParseBytes(s string) (Bytes, error) {
	v, err := parse(s, "size", byteSuffixes, true, "B, KB, MB, GB (decimal), KiB, MiB, GiB (binary)")
	if err == nil && v < 0 {
		return 0, fmt.Errorf("units: size %q is negative", s)
	}
	return Bytes(v), err
}

// parse reads [-]digits[.digits] followed by optional spaces and a suffix
// from table, and returns the exact product with the suffix's size.
func parse(s, what string, table map[string]int64, bareOK bool, allowed string) (int64, error) {
	in := strings.TrimSpace(s)
	i := 0
	neg := false
	if i < len(in) && (in[i] == '-' || in[i] == '+') {
		neg = in[i] == '-'
		i++
	}
	start := i
	for i < len(in) && (in[i] >= '0' && in[i] <= '9' || in[i] == '.') {
		i++
	}
	num := in[start:i]
	suffix := strings.TrimSpace(in[i:])
	if num == "" || num == "." || strings.Count(num, ".") > 1 {
		return 0, fmt.Errorf("units: bad %s %q: want a decimal number followed by a unit (%s)", what, s, allowed)
	}
	if suffix == "" && !bareOK {
		// Zero is zero in every unit: a bare 0 needs none.
		if strings.Trim(num, "0.") == "" {
			return 0, nil
		}
		return 0, fmt.Errorf("units: bad %s %q: missing unit (%s)", what, s, allowed)
	}
	size, ok := table[suffix]
	if !ok {
		return 0, fmt.Errorf("units: bad %s %q: unknown unit %q (want %s)", what, s, suffix, allowed)
	}
	whole, frac, _ := strings.Cut(num, ".")
	// value = (whole·10^len(frac) + frac) · size / 10^len(frac), exactly.
	digits := whole + frac
	var mant uint64
	for _, c := range []byte(digits) {
		hi, lo := bits.Mul64(mant, 10)
		lo, carry := bits.Add64(lo, uint64(c-'0'), 0)
		if hi != 0 || carry != 0 {
			return 0, fmt.Errorf("units: %s %q is out of range", what, s)
		}
		mant = lo
	}
	den := uint64(1)
	for range frac {
		if den > math.MaxUint64/10 {
			return 0, fmt.Errorf("units: %s %q has too many decimals", what, s)
		}
		den *= 10
	}
	hi, lo := bits.Mul64(mant, uint64(size))
	if hi >= den {
		return 0, fmt.Errorf("units: %s %q is out of range", what, s)
	}
	q, r := bits.Div64(hi, lo, den)
	if r != 0 {
		return 0, fmt.Errorf("units: %s %q is not a whole number of %s", what, s, baseName(what))
	}
	if q > math.MaxInt64 {
		return 0, fmt.Errorf("units: %s %q is out of range", what, s)
	}
	v := int64(q)
	if neg {
		v = -v
	}
	return v, nil
}

func baseName(what string) string {
	switch what {
	case "time":
		return "picoseconds"
	case "rate":
		return "bit/s"
	}
	return "bytes"
}
