// Package workloads holds the flow-size distributions the harness draws
// Poisson workloads from, embedded in the binary, with a strict parser and
// an inverse-CDF sampler.
//
// The distributions are the ones datacenter congestion-control papers use
// (see data/): WebSearch and FB_Hadoop (the HPCC paper's workloads, section
// 5, also used by RoCC and Mercury), AliStorage2019 (a production storage
// workload) and GoogleRPC2008 (an RPC size distribution). Each file has one
// "size_bytes cdf_percent" pair per line, sizes and percentages
// non-decreasing, the last percentage 100.
//
// Sampling is by inverse CDF with linear interpolation between the points:
// a uniform u in [0, 100) falls between two points (s0, p0) and (s1, p1)
// with p0 ≤ u < p1 and gives s0 + (s1 − s0)·(u − p0)/(p1 − p0), so the
// sampled distribution is piecewise uniform. The size is rounded to the
// nearest byte (halves up) and is at least 1 byte. A first point with a
// percentage above 0 is a point mass at its size.
package workloads

import (
	"bufio"
	"embed"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	"github.com/hwcc/hwcc/units"
)

//go:embed data/*.txt
var files embed.FS

// builtin maps the distribution names to their embedded files.
var builtin = map[string]string{
	"websearch":  "data/WebSearch_distribution.txt",
	"fbhadoop":   "data/FbHdp_distribution.txt",
	"alistorage": "data/AliStorage2019.txt",
	"googlerpc":  "data/GoogleRPC2008.txt",
}

// Names returns the names of the embedded distributions, sorted.
func Names() []string {
	n := make([]string, 0, len(builtin))
	for k := range builtin {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// Named returns an embedded distribution by name (see Names).
func Named(name string) (*CDF, error) {
	path, ok := builtin[name]
	if !ok {
		return nil, fmt.Errorf("workloads: unknown distribution %q (want one of %s)", name, strings.Join(Names(), ", "))
	}
	f, err := files.Open(path)
	if err != nil {
		return nil, fmt.Errorf("workloads: %s: %w", name, err)
	}
	defer f.Close()
	return Parse(name, f)
}

// CDF is a flow-size distribution: points (size, cumulative percent). It is
// immutable after Parse.
type CDF struct {
	name string
	size []float64 // bytes, non-decreasing
	pct  []float64 // percent, non-decreasing, last = 100
}

// MaxLines bounds the input Parse accepts.
const MaxLines = 1 << 20

// Parse reads a distribution: one "size cdf_percent" pair per line, fields
// separated by white space; blank lines and lines starting with '#' are
// skipped. Sizes are whole bytes ≥ 0, percentages decimal numbers in
// [0, 100]; both must be non-decreasing, the last percentage must be 100
// and at least one line must be present. Any violation is an error naming
// the line.
func Parse(name string, r io.Reader) (*CDF, error) {
	c := &CDF{name: name}
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		if line > MaxLines {
			return nil, fmt.Errorf("workloads: %s: more than %d lines", name, MaxLines)
		}
		t := strings.TrimSpace(sc.Text())
		if t == "" || t[0] == '#' {
			continue
		}
		fs := strings.Fields(t)
		if len(fs) != 2 {
			return nil, fmt.Errorf("workloads: %s line %d: %q: want two fields \"size_bytes cdf_percent\"", name, line, t)
		}
		sz, err := strconv.ParseInt(fs[0], 10, 64)
		if err != nil || sz < 0 || sz > 1<<53 {
			return nil, fmt.Errorf("workloads: %s line %d: size %q: want a whole number of bytes in 0..2^53", name, line, fs[0])
		}
		p, err := strconv.ParseFloat(fs[1], 64)
		if err != nil || math.IsNaN(p) || p < 0 || p > 100 {
			return nil, fmt.Errorf("workloads: %s line %d: percent %q: want a number in 0..100", name, line, fs[1])
		}
		if n := len(c.size); n > 0 {
			if float64(sz) < c.size[n-1] {
				return nil, fmt.Errorf("workloads: %s line %d: size %d is below the previous %v: sizes must not decrease", name, line, sz, c.size[n-1])
			}
			if p < c.pct[n-1] {
				return nil, fmt.Errorf("workloads: %s line %d: percent %v is below the previous %v: the CDF must not decrease", name, line, p, c.pct[n-1])
			}
		}
		c.size = append(c.size, float64(sz))
		c.pct = append(c.pct, p)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("workloads: %s: %w", name, err)
	}
	if len(c.size) == 0 {
		return nil, fmt.Errorf("workloads: %s: no points", name)
	}
	if last := c.pct[len(c.pct)-1]; last != 100 {
		return nil, fmt.Errorf("workloads: %s: last percent is %v, want 100", name, last)
	}
	if c.size[len(c.size)-1] == 0 {
		return nil, fmt.Errorf("workloads: %s: every size is 0", name)
	}
	return c, nil
}

// Name returns the distribution's name.
func (c *CDF) Name() string { return c.name }

// Len returns the number of points.
func (c *CDF) Len() int { return len(c.size) }

// Point returns point i: its size in bytes and cumulative percent.
func (c *CDF) Point(i int) (size units.Bytes, percent float64) {
	return units.Bytes(c.size[i]), c.pct[i]
}

// Quantile returns the size at cumulative percent u in [0, 100), by linear
// interpolation between the points, before rounding.
func (c *CDF) Quantile(u float64) float64 {
	// First point whose percent exceeds u.
	i := sort.Search(len(c.pct), func(k int) bool { return c.pct[k] > u })
	if i == 0 {
		return c.size[0] // point mass at the first size
	}
	if i == len(c.pct) {
		return c.size[len(c.size)-1]
	}
	p0, p1 := c.pct[i-1], c.pct[i]
	s0, s1 := c.size[i-1], c.size[i]
	return s0 + (s1-s0)*(u-p0)/(p1-p0)
}

// Sample draws one flow size: Quantile of a uniform percent, rounded to the
// nearest byte (halves up), at least 1 byte.
func (c *CDF) Sample(r *rand.Rand) units.Bytes {
	x := math.Floor(c.Quantile(r.Float64()*100) + 0.5)
	if x < 1 {
		return 1
	}
	return units.Bytes(x)
}

// Mean returns the mean of the interpolated distribution (before rounding):
// the point mass at the first size plus, per segment, its probability times
// its midpoint.
func (c *CDF) Mean() float64 {
	m := c.pct[0] / 100 * c.size[0]
	for i := 1; i < len(c.size); i++ {
		m += (c.pct[i] - c.pct[i-1]) / 100 * (c.size[i-1] + c.size[i]) / 2
	}
	return m
}

// SecondMoment returns E[X²] of the interpolated distribution: per segment
// uniform on [a, b], E[X²] = (a² + ab + b²)/3.
func (c *CDF) SecondMoment() float64 {
	m := c.pct[0] / 100 * c.size[0] * c.size[0]
	for i := 1; i < len(c.size); i++ {
		a, b := c.size[i-1], c.size[i]
		m += (c.pct[i] - c.pct[i-1]) / 100 * (a*a + a*b + b*b) / 3
	}
	return m
}
