package inttel

import (
	"math/rand/v2"
	"testing"

	"github.com/hwcc/hwcc/units"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"
)

func TestDefaultSpeedTable(t *testing.T) {
	tab, err := NewSpeedTable(DefaultSpeedCodes())
	require.NoError(t, err)
	// The rates of the default speed codes (the package doc: 10 to 800
	// Gb/s), in the documented increasing-order numbering.
	want := []units.Rate{10, 25, 40, 50, 100, 200, 400, 800}
	require.Equal(t, len(want), tab.Len())
	for code, g := range want {
		r, ok := tab.Rate(uint8(code))
		require.True(t, ok, "code %d", code)
		require.Equal(t, g*units.Gbps, r)
		back, ok := tab.Code(g * units.Gbps)
		require.True(t, ok, "%d Gb/s", g)
		require.Equal(t, uint8(code), back)
	}
	for code := 8; code <= 255; code++ {
		_, ok := tab.Rate(uint8(code))
		require.False(t, ok, "code %d is unassigned", code)
	}
	for _, r := range []units.Rate{0, -1, 1, 100*units.Gbps - 1, 100*units.Gbps + 1, 1600 * units.Gbps, 1 << 62} {
		_, ok := tab.Code(r)
		require.False(t, ok, "rate %v has no code", r)
	}
	require.Equal(t, "0=10Gbps 1=25Gbps 2=40Gbps 3=50Gbps 4=100Gbps 5=200Gbps 6=400Gbps 7=800Gbps", tab.String())
}

func TestZeroSpeedTable(t *testing.T) {
	var tab SpeedTable
	_, ok := tab.Rate(0)
	require.False(t, ok)
	_, ok = tab.Code(0)
	require.False(t, ok)
	require.Zero(t, tab.Len())
}

func TestCustomSpeedTable(t *testing.T) {
	// Out-of-order codes and rates, the top code used, a non-Ethernet rate.
	tab, err := NewSpeedTable([]SpeedCode{
		{15, 1600 * units.Gbps}, {0, 1 * units.Gbps}, {9, 2500 * units.Mbps}, {3, 100 * units.Gbps},
	})
	require.NoError(t, err)
	require.Equal(t, 4, tab.Len())
	for _, e := range []SpeedCode{{15, 1600 * units.Gbps}, {0, units.Gbps}, {9, 2500 * units.Mbps}, {3, 100 * units.Gbps}} {
		r, ok := tab.Rate(e.Code)
		require.True(t, ok)
		require.Equal(t, e.Rate, r)
		c, ok := tab.Code(e.Rate)
		require.True(t, ok)
		require.Equal(t, e.Code, c)
	}
	_, ok := tab.Code(10 * units.Gbps)
	require.False(t, ok, "not in this table")
	require.Equal(t, []SpeedCode{{0, units.Gbps}, {3, 100 * units.Gbps}, {9, 2500 * units.Mbps}, {15, 1600 * units.Gbps}},
		tab.Entries(nil))
}

func TestSpeedTableErrors(t *testing.T) {
	seventeen := make([]SpeedCode, 17)
	for i := range seventeen {
		seventeen[i] = SpeedCode{uint8(i % 16), units.Rate(i+1) * units.Gbps}
	}
	cases := []struct {
		name    string
		entries []SpeedCode
		says    string
	}{
		{"nil", nil, "Config.Speeds = 0 entries: want 1..16 entries"},
		{"17 entries", seventeen, "Config.Speeds = 17 entries: want 1..16"},
		{"code 16", []SpeedCode{{16, units.Gbps}}, "Config.Speeds[0].Code = 16: want 0..15"},
		{"rate 0", []SpeedCode{{0, units.Gbps}, {1, 0}}, "Config.Speeds[1].Rate = 0bps: want > 0"},
		{"negative rate", []SpeedCode{{0, -units.Gbps}}, "Config.Speeds[0].Rate = -1Gbps"},
		{"duplicate code", []SpeedCode{{2, units.Gbps}, {2, 2 * units.Gbps}}, "Config.Speeds[1].Code = 2: want a code used once (it is 1Gbps already)"},
		{"duplicate rate", []SpeedCode{{2, units.Gbps}, {5, units.Gbps}}, "Config.Speeds[1].Rate = 1Gbps: want a rate used once (it has code 2 already)"},
	}
	for _, tc := range cases {
		_, err := NewSpeedTable(tc.entries)
		require.ErrorIs(t, err, ErrConfig, tc.name)
		require.ErrorContains(t, err, tc.says, tc.name)
	}
}

// TestSpeedTableProperty builds random valid tables (a random subset of
// codes with random distinct rates) and checks both lookups against the
// list they were built from, by linear search.
func TestSpeedTableProperty(t *testing.T) {
	props := gopter.NewProperties(params(500))
	props.Property("lookups agree with the entry list", prop.ForAll(
		func(n int, s uint64) bool {
			rng := rand.New(rand.NewPCG(s, 1))
			codes := rng.Perm(16)[:n]
			seen := map[units.Rate]bool{}
			var entries []SpeedCode
			for _, c := range codes {
				r := units.Rate(rng.Int64N(1<<40) + 1)
				for seen[r] {
					r++
				}
				seen[r] = true
				entries = append(entries, SpeedCode{uint8(c), r})
			}
			tab, err := NewSpeedTable(entries)
			if err != nil || tab.Len() != n {
				return false
			}
			for code := range 16 {
				var want units.Rate
				for _, e := range entries {
					if int(e.Code) == code {
						want = e.Rate
					}
				}
				got, ok := tab.Rate(uint8(code))
				if ok != (want != 0) || got != want {
					return false
				}
			}
			for _, e := range entries {
				if c, ok := tab.Code(e.Rate); !ok || c != e.Code {
					return false
				}
				if _, ok := tab.Code(e.Rate + 1); ok && !seen[e.Rate+1] {
					return false
				}
			}
			return true
		},
		gen.IntRange(1, 16).WithLabel("entries"),
		gen.UInt64().WithLabel("seed"),
	))
	props.TestingRun(t)
}
