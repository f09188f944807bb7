package workloads

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNamedDistributionsParse(t *testing.T) {
	require.Equal(t, []string{"alistorage", "fbhadoop", "googlerpc", "websearch"}, Names())
	for _, n := range Names() {
		c, err := Named(n)
		require.NoError(t, err, n)
		require.Equal(t, n, c.Name())
		require.Greater(t, c.Len(), 5)
		_, p := c.Point(c.Len() - 1)
		require.Equal(t, 100.0, p)
	}
	_, err := Named("zipf")
	require.ErrorContains(t, err, "websearch")
}

// TestWebSearchMeanByHand checks Mean against the trapezoid sum worked out
// from the file's 12 points (independent arithmetic on the printed table).
func TestWebSearchMeanByHand(t *testing.T) {
	c, err := Named("websearch")
	require.NoError(t, err)
	pts := [][2]float64{{0, 0}, {10000, 15}, {20000, 20}, {30000, 30}, {50000, 40}, {80000, 53},
		{200000, 60}, {1000000, 70}, {2000000, 80}, {5000000, 90}, {10000000, 97}, {30000000, 100}}
	want := 0.0
	for i := 1; i < len(pts); i++ {
		want += (pts[i][1] - pts[i-1][1]) / 100 * (pts[i][0] + pts[i-1][0]) / 2
	}
	require.InDelta(t, want, c.Mean(), 1e-6)
	// By hand: 750 + 750 + 2500 + 4000 + 8450 + 9800 + 60000 + 150000 +
	// 350000 + 525000 + 600000 bytes.
	require.InDelta(t, 1_711_250.0, want, 1e-6)
}

// TestSampleMeanMatchesCDF draws 400k sizes per distribution and compares
// their mean with the interpolated distribution's. Tolerance: 5 standard
// errors σ/√n, σ² = E[X²] − mean² computed from the same piecewise-uniform
// model (false alarm < 1e-6), plus 1 byte for the rounding to whole bytes.
func TestSampleMeanMatchesCDF(t *testing.T) {
	const n = 400_000
	for i, name := range Names() {
		c, err := Named(name)
		require.NoError(t, err)
		r := rand.New(rand.NewPCG(uint64(i+1), 99))
		sum := 0.0
		for range n {
			v := c.Sample(r)
			if v < 1 {
				t.Fatalf("%s: sample %d below 1 byte", name, v)
			}
			sum += float64(v)
		}
		mean := c.Mean()
		sd := math.Sqrt(c.SecondMoment() - mean*mean)
		tol := 5*sd/math.Sqrt(n) + 1
		require.InDelta(t, mean, sum/n, tol, "%s: mean %.1f, tolerance %.1f", name, mean, tol)
	}
}

func TestQuantileInterpolates(t *testing.T) {
	c, err := Parse("t", strings.NewReader("100 10\n200 50\n600 100\n"))
	require.NoError(t, err)
	require.Equal(t, 100.0, c.Quantile(0))   // point mass of 10 % at 100
	require.Equal(t, 100.0, c.Quantile(9.9)) // still in the point mass
	require.Equal(t, 150.0, c.Quantile(30))  // halfway between (100,10) and (200,50)
	require.Equal(t, 400.0, c.Quantile(75))  // halfway between (200,50) and (600,100)
	// Mean: 0.1·100 + 0.4·150 + 0.5·400 = 270.
	require.InDelta(t, 270, c.Mean(), 1e-9)
}

func TestParseErrors(t *testing.T) {
	cases := map[string]string{
		"":                   "no points",
		"# only a comment\n": "no points",
		"100\n":              "line 1",
		"100 50 7\n":         "two fields",
		"abc 50\n":           "size",
		"1.5 50\n":           "size",
		"-1 50\n":            "size",
		"100 fifty\n":        "percent",
		"100 101\n":          "percent",
		"100 NaN\n":          "percent",
		"100 50\n50 100\n":   "line 2: size 50 is below",
		"100 50\n200 40\n":   "line 2: percent 40 is below",
		"100 50\n200 99.9\n": "last percent is 99.9",
		"0 0\n0 100\n":       "every size is 0",
	}
	for in, want := range cases {
		_, err := Parse("t", strings.NewReader(in))
		require.ErrorContains(t, err, want, fmt.Sprintf("%q", in))
	}
	_, err := Parse("ok", strings.NewReader("# sizes\n\n0 0\n  10  100 \n"))
	require.NoError(t, err)
}

func FuzzParse(f *testing.F) {
	// Seeds: a valid table, a point mass, a decreasing CDF, junk.
	f.Add("0 0\n1000 50\n2000 100\n")
	f.Add("5 100\n")
	f.Add("10 50\n20 40\n")
	f.Add("\x00\xff 1e400\n")
	f.Fuzz(func(t *testing.T, in string) {
		c, err := Parse("fuzz", strings.NewReader(in))
		if err != nil {
			return
		}
		// A parsed CDF samples within its range and has a finite mean.
		r := rand.New(rand.NewPCG(1, 1))
		lo, _ := c.Point(0)
		hi, _ := c.Point(c.Len() - 1)
		for range 16 {
			v := c.Sample(r)
			if v < 1 || (v > hi && v > 1) || (v < lo && v > 1 && lo > 0 && float64(v) < float64(lo)-0.5) {
				t.Fatalf("sample %d outside [%d, %d]", v, lo, hi)
			}
		}
		if m := c.Mean(); math.IsNaN(m) || math.IsInf(m, 0) {
			t.Fatalf("mean %v", m)
		}
	})
}

func ExampleNamed() {
	c, err := Named("websearch")
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s: %d points, mean %.0f bytes, median %.0f bytes\n", c.Name(), c.Len(), c.Mean(), c.Quantile(50))
	// Output: websearch: 12 points, mean 1711250 bytes, median 73077 bytes
}
