package units

import (
	"math"
	"math/big"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"
)

// bigCeilDiv and bigFloorDiv are the math/big oracles for the 128-bit helpers.
func bigFloorDiv(a, b, c int64) *big.Int {
	n := new(big.Int).Mul(big.NewInt(a), big.NewInt(b))
	return n.Quo(n, big.NewInt(c)) // operands are positive: Quo is floor
}

func bigCeilDiv(a, b, c int64) *big.Int {
	n := new(big.Int).Mul(big.NewInt(a), big.NewInt(b))
	n.Add(n, big.NewInt(c-1))
	return n.Quo(n, big.NewInt(c))
}

func TestSerializationTimeStandardSpeeds(t *testing.T) {
	// Closed form: one byte is 8 bits; at r bit/s it lasts 8/r s = 8e12/r ps.
	cases := []struct {
		n    Bytes
		r    Rate
		want Time
	}{
		{1, 800 * Gbps, 10 * Picosecond},
		{1, 400 * Gbps, 20 * Picosecond},
		{1, 100 * Gbps, 80 * Picosecond},
		{1, 40 * Gbps, 200 * Picosecond},
		{1, 25 * Gbps, 320 * Picosecond},
		{1, 10 * Gbps, 800 * Picosecond},
		{1000, 100 * Gbps, 80 * Nanosecond},
		{1500, 10 * Gbps, 1200 * Nanosecond},
		{1, 3 * BitPerSecond, 2666666666667}, // 8e12/3 = 2666666666666.67, rounded up
		{0, Gbps, 0},
		{-5, Gbps, 0},
		{1, 0, MaxTime},
		{1, -1, MaxTime},
		{MaxBytes, 1, MaxTime}, // 7.4e31 ps does not fit
	}
	for _, c := range cases {
		require.Equal(t, c.want, SerializationTime(c.n, c.r), "%d B at %v", c.n, c.r)
	}
}

func TestBytesIn(t *testing.T) {
	cases := []struct {
		r    Rate
		d    Time
		want Bytes
	}{
		{100 * Gbps, Microsecond, 12500},                     // 1e11·1e-6/8
		{40 * Gbps, 13 * Microsecond, 65000},                 // HPCC's B·T at 40G
		{100 * Gbps, 79 * Picosecond, 0},                     // 0.9875 B: floor
		{400 * Gbps, 2684354 * Nanosecond, 134217700},        // just under a 20-bit×128 B wrap
		{Rate(math.MaxInt64), Time(math.MaxInt64), MaxBytes}, // saturates
		{0, Second, 0}, {Gbps, 0, 0}, {-Gbps, Second, 0}, {Gbps, -1, 0},
	}
	for _, c := range cases {
		require.Equal(t, c.want, BytesIn(c.r, c.d), "%v for %v", c.r, c.d)
	}
}

// TestConversionsAgainstBig compares the helpers with math/big over seeded
// random operands spanning the whole int64 range of each argument.
func TestConversionsAgainstBig(t *testing.T) {
	params := gopter.DefaultTestParametersWithSeed(1)
	params.MinSuccessfulTests = 2000
	props := gopter.NewProperties(params)
	maxT := big.NewInt(math.MaxInt64)
	props.Property("SerializationTime = ceil(n·8e12/r) or MaxTime", prop.ForAll(
		func(n, r int64) bool {
			exact := bigCeilDiv(n, 8*int64(Second), r)
			got := SerializationTime(Bytes(n), Rate(r))
			if exact.Cmp(maxT) > 0 {
				return got == MaxTime
			}
			return int64(got) == exact.Int64()
		},
		gen.Int64Range(1, math.MaxInt64).WithLabel("n"), gen.Int64Range(1, math.MaxInt64).WithLabel("r"),
	))
	props.Property("BytesIn = floor(r·d/8e12) or MaxBytes", prop.ForAll(
		func(r, d int64) bool {
			exact := bigFloorDiv(r, d, 8*int64(Second))
			got := BytesIn(Rate(r), Time(d))
			if exact.Cmp(maxT) > 0 {
				return got == MaxBytes
			}
			return int64(got) == exact.Int64()
		},
		gen.Int64Range(1, math.MaxInt64).WithLabel("r"), gen.Int64Range(1, math.MaxInt64).WithLabel("d"),
	))
	props.Property("a rate moves at least the bytes it was timed for", prop.ForAll(
		func(n int64, g int64) bool {
			// SerializationTime rounds up and BytesIn rounds down, so the
			// round trip loses nothing: BytesIn(r, SerializationTime(n, r)) ≥ n.
			r := Rate(g) * Mbps
			return BytesIn(r, SerializationTime(Bytes(n), r)) >= Bytes(n)
		},
		gen.Int64Range(1, 1<<40).WithLabel("n"), gen.Int64Range(1, 1_000_000).WithLabel("Mb/s"),
	))
	props.TestingRun(t)
}

func TestRateOf(t *testing.T) {
	require.Equal(t, 100*Gbps, RateOf(12500, Microsecond))
	require.Equal(t, Rate(2666666666666), RateOf(1, 3*Picosecond)) // floor of 8e12/3
	require.Equal(t, Rate(0), RateOf(0, Second))
	require.Equal(t, Rate(0), RateOf(1, 0))
	require.Equal(t, Rate(math.MaxInt64), RateOf(MaxBytes, 1))
}

func TestString(t *testing.T) {
	require.Equal(t, "0s", Time(0).String())
	require.Equal(t, "500ps", (500 * Picosecond).String())
	require.Equal(t, "1.5ns", (1500 * Picosecond).String())
	require.Equal(t, "13us", (13 * Microsecond).String())
	require.Equal(t, "2.000001ms", (2*Millisecond + Nanosecond).String())
	require.Equal(t, "-1.25us", (-1250 * Nanosecond).String())
	require.Equal(t, "9223372.036854775807s", MaxTime.String())
	require.Equal(t, "-9223372.036854775808s", Time(math.MinInt64).String())
	require.Equal(t, "64B", Bytes(64).String())
	require.Equal(t, "150KB", (150 * KB).String())
	require.Equal(t, "153.6KB", (150 * KiB).String())
	require.Equal(t, "40Gbps", (40 * Gbps).String())
	require.Equal(t, "2.5Gbps", (2500 * Mbps).String())
	require.Equal(t, "10Mbps", (10 * Mbps).String())
	require.Equal(t, "0bps", Rate(0).String())
	require.Equal(t, "0B", Bytes(0).String())
}

func TestParse(t *testing.T) {
	times := map[string]Time{
		"1.5us": 1500 * Nanosecond, "10µs": 10 * Microsecond, "10μs": 10 * Microsecond,
		" 40 ns ": 40 * Nanosecond, "2ms": 2 * Millisecond, "1s": Second, "500ps": 500,
		"0.000001s": Microsecond, "-3us": -3 * Microsecond, ".5ns": 500, "13us": 13 * Microsecond,
		// Zero is zero in any unit: a bare zero needs none.
		"0": 0, "0.0": 0, "-0": 0, " 0 ": 0,
	}
	for in, want := range times {
		got, err := ParseTime(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	rates := map[string]Rate{
		"40Gbps": 40 * Gbps, "10Mb/s": 10 * Mbps, "2.5 Gbit/s": 2500 * Mbps, "100G": 100 * Gbps,
		"800bps": 800, "1.5Tbps": 1500 * Gbps, "5kbps": 5000, "0": 0,
	}
	for in, want := range rates {
		got, err := ParseRate(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	sizes := map[string]Bytes{
		"150KB": 150000, "150KiB": 153600, "1500": 1500, "1500B": 1500, "1.5MB": 1500000,
		"2MiB": 2 << 20, "1GB": 1_000_000_000, "1GiB": 1 << 30, "0.5KiB": 512,
	}
	for in, want := range sizes {
		got, err := ParseBytes(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
}

func TestParseErrorsNameTheInput(t *testing.T) {
	bad := []struct {
		parse func(string) error
		in    string
		says  string
	}{
		{timeErr, "1.5", "missing unit"},
		{timeErr, "13", "missing unit"},
		{timeErr, "0.01", "missing unit"},
		{rateErr, "13", "missing unit"},
		{timeErr, "1.5 fortnights", "unknown unit"},
		{timeErr, "0.1ps", "not a whole number of picoseconds"},
		{timeErr, "", "want a decimal number"},
		{timeErr, "us", "want a decimal number"},
		{timeErr, "1.2.3us", "want a decimal number"},
		{timeErr, "99999999999999999999s", "out of range"},
		{timeErr, "10000000s", "out of range"}, // 1e19 ps > MaxInt64
		{rateErr, "40Gbpss", "unknown unit"},
		{rateErr, "-1Gbps", "negative"},
		{rateErr, "1.0000000001bps", "not a whole number of bit/s"},
		{rateErr, "1e9bps", "unknown unit"}, // exponents are not accepted
		{bytesErr, "1.5B", "not a whole number of bytes"},
		{bytesErr, "-1KB", "negative"},
		{bytesErr, "3 parsecs", "unknown unit"},
		{bytesErr, "0.00000000000000000001KB", "too many decimals"},
	}
	for _, c := range bad {
		err := c.parse(c.in)
		require.Error(t, err, c.in)
		require.Contains(t, err.Error(), c.says, c.in)
		require.Contains(t, err.Error(), "\""+c.in+"\"", "error must quote the input")
	}
}

func timeErr(s string) error  { _, err := ParseTime(s); return err }
func rateErr(s string) error  { _, err := ParseRate(s); return err }
func bytesErr(s string) error { _, err := ParseBytes(s); return err }

// TestStringRoundTrip checks that every String output parses back to the
// same value, over seeded random values of each type.
func TestStringRoundTrip(t *testing.T) {
	params := gopter.DefaultTestParametersWithSeed(2)
	params.MinSuccessfulTests = 2000
	props := gopter.NewProperties(params)
	props.Property("ParseTime(t.String()) = t", prop.ForAll(func(v int64) bool {
		got, err := ParseTime(Time(v).String())
		return err == nil && got == Time(v)
	}, gen.Int64Range(-math.MaxInt64, math.MaxInt64)))
	props.Property("ParseRate(r.String()) = r", prop.ForAll(func(v int64) bool {
		got, err := ParseRate(Rate(v).String())
		return err == nil && got == Rate(v)
	}, gen.Int64Range(0, math.MaxInt64)))
	props.Property("ParseBytes(b.String()) = b", prop.ForAll(func(v int64) bool {
		got, err := ParseBytes(Bytes(v).String())
		return err == nil && got == Bytes(v)
	}, gen.Int64Range(0, math.MaxInt64)))
	props.TestingRun(t)
}

func TestNoAllocs(t *testing.T) {
	var sink Time
	var sinkB Bytes
	allocs := testing.AllocsPerRun(1000, func() {
		sink += SerializationTime(1000, 100*Gbps)
		sinkB += BytesIn(100*Gbps, Microsecond)
	})
	require.Zero(t, allocs)
	_, _ = sink, sinkB
}

func BenchmarkSerializationTime(b *testing.B) {
	b.ReportAllocs()
	var sink Time
	for i := 0; b.Loop(); i++ {
		sink += SerializationTime(Bytes(1000+i&1023), 100*Gbps)
	}
	_ = sink
}

func BenchmarkBytesIn(b *testing.B) {
	b.ReportAllocs()
	var sink Bytes
	for i := 0; b.Loop(); i++ {
		sink += BytesIn(100*Gbps, Time(i&0xffff)*Nanosecond)
	}
	_ = sink
}
