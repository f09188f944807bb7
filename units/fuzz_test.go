package units

import (
	"math/big"
	"testing"
)

// FuzzParse checks that the parsers never panic and that whatever they
// accept prints back to a string that parses to the same value.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"40Gbps", "10Mb/s", "1.5us", "150KB", "150KiB", "", ".", "-0s",
		"99999999999999999999999s", "1.00000000000000000001ms", "µs", "1e3ns"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if v, err := ParseTime(s); err == nil {
			if back, err := ParseTime(v.String()); err != nil || back != v {
				t.Fatalf("time %q -> %d -> %q -> %d, %v", s, v, v.String(), back, err)
			}
		}
		if v, err := ParseRate(s); err == nil {
			if back, err := ParseRate(v.String()); err != nil || back != v {
				t.Fatalf("rate %q -> %d -> %q -> %d, %v", s, v, v.String(), back, err)
			}
		}
		if v, err := ParseBytes(s); err == nil {
			if back, err := ParseBytes(v.String()); err != nil || back != v {
				t.Fatalf("bytes %q -> %d -> %q -> %d, %v", s, v, v.String(), back, err)
			}
		}
	})
}

// FuzzSerializationTime is a differential test of the 128-bit arithmetic
// against math/big.
func FuzzSerializationTime(f *testing.F) {
	f.Add(int64(1000), int64(100e9)) // a packet at 100 Gb/s
	f.Add(int64(1), int64(3))        // rounding up
	f.Add(int64(1<<62), int64(1))    // saturation
	f.Fuzz(func(t *testing.T, n, r int64) {
		got := SerializationTime(Bytes(n), Rate(r))
		switch {
		case n <= 0:
			if got != 0 {
				t.Fatalf("n=%d: got %d, want 0", n, got)
			}
			return
		case r <= 0:
			if got != MaxTime {
				t.Fatalf("r=%d: got %d, want MaxTime", r, got)
			}
			return
		}
		exact := new(big.Int).Mul(big.NewInt(n), big.NewInt(8*int64(Second)))
		exact.Add(exact, big.NewInt(r-1))
		exact.Quo(exact, big.NewInt(r))
		if !exact.IsInt64() {
			if got != MaxTime {
				t.Fatalf("%d B at %d: got %d, want MaxTime", n, r, got)
			}
			return
		}
		if int64(got) != exact.Int64() {
			t.Fatalf("%d B at %d: got %d, want %s", n, r, got, exact)
		}
	})
}
