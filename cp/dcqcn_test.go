package cp

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/units"
)

// dcqcnExactFloor returns floor(Pmax·2^16·(q − Kmin)/(Kmax − Kmin)) with
// math/big: the exact Q0.32 probability in the linear region.
func dcqcnExactFloor(kmin, kmax, pmax, q uint64) uint64 {
	num := new(big.Int).SetUint64(pmax)
	num.Lsh(num, dcqcnProbFrac-dcqcnPmaxFrac)
	num.Mul(num, new(big.Int).SetUint64(q-kmin))
	num.Quo(num, new(big.Int).SetUint64(kmax-kmin))
	return num.Uint64()
}

// dcqcnCheckProb checks MarkProbability at q against the exact value: 0 at
// or below Kmin, 2^32 above Kmax, within one unit of the exact floor in
// between (the bound derived in MarkProbability's doc).
func dcqcnCheckProb(t *testing.T, c *DCQCN, q uint64) {
	t.Helper()
	cfg := c.Config()
	kmin, kmax := uint64(cfg.Kmin), uint64(cfg.Kmax)
	got := c.MarkProbability(units.Bytes(q))
	switch {
	case q <= kmin:
		require.Zero(t, got, "q=%d ≤ Kmin", q)
	case q > kmax:
		require.Equal(t, dcqcnProbOne, got, "q=%d > Kmax", q)
	default:
		want := dcqcnExactFloor(kmin, kmax, uint64(cfg.Pmax), q)
		diff := int64(got) - int64(want)
		require.LessOrEqual(t, diff, int64(1), "q=%d got %d want %d", q, got, want)
		require.GreaterOrEqual(t, diff, int64(-1), "q=%d got %d want %d", q, got, want)
		require.LessOrEqual(t, got, uint64(cfg.Pmax)<<16, "never above Pmax")
	}
}

// Exhaustive over every queue length for small threshold gaps, and sampled
// for large ones up to the 32-bit limit, the integer probability is within
// one 2^-32 unit of the exact rational value (math/big).
func TestDCQCNMarkProbabilityExact(t *testing.T) {
	cfgs := []DCQCNConfig{
		{Kmin: 0, Kmax: 1, Pmax: DCQCNPmaxOne, Seed: 1},
		{Kmin: 5, Kmax: 12, Pmax: 1, Seed: 1},
		{Kmin: 1000, Kmax: 1000 + 4099, Pmax: 13107, Seed: 1},
		{Kmin: 100000, Kmax: 400000, Pmax: 13107, Seed: 1},
		{Kmin: 0, Kmax: DCQCNMaxThreshold, Pmax: DCQCNPmaxOne, Seed: 1},
		{Kmin: 1, Kmax: DCQCNMaxThreshold, Pmax: 65535, Seed: 1},
		{Kmin: DCQCNMaxThreshold - 3, Kmax: DCQCNMaxThreshold, Pmax: 777, Seed: 1},
	}
	r := rand.New(rand.NewPCG(5, 6))
	for _, cfg := range cfgs {
		c, err := NewDCQCN(cfg)
		require.NoError(t, err)
		kmin, kmax := uint64(cfg.Kmin), uint64(cfg.Kmax)
		if kmax-kmin <= 1<<13 {
			lo := kmin - min(kmin, 3)
			for q := lo; q <= kmax+2; q++ {
				dcqcnCheckProb(t, c, q)
			}
			continue
		}
		for _, q := range []uint64{0, kmin, kmin + 1, kmax - 1, kmax, kmax + 1} {
			dcqcnCheckProb(t, c, q)
		}
		for range 20000 {
			dcqcnCheckProb(t, c, kmin+r.Uint64N(kmax-kmin+1))
		}
	}
}

// Kmax = Kmin is a step marker: nothing at or below, everything above.
func TestDCQCNStepMarker(t *testing.T) {
	c, err := NewDCQCN(DCQCNConfig{Kmin: 3000, Kmax: 3000, Pmax: 0, Seed: 9})
	require.NoError(t, err)
	for q, want := range map[units.Bytes]bool{0: false, 2999: false, 3000: false, 3001: true, 1 << 40: true} {
		got, err := c.onDequeue(0, q)
		require.NoError(t, err)
		require.Equal(t, want, got, "q=%d", q)
	}
	require.Zero(t, c.State().Draws, "a step marker never draws")
}

// The marking frequency at a fixed probability matches it, and consecutive
// decisions are independent. 200 000 decisions at p = 0.1: the mark count is
// binomial with mean 20 000 and σ = √(n·p·(1−p)) ≈ 134; the tolerance is 5σ.
// The pairs (k, k+1) both marked: mean n·p² = 2000, σ ≈ √(n·p²(1−p²)) ≈ 44.5,
// tolerance 5σ; a generator that reused shifted bits between draws would
// inflate this count. Deterministic: the seed is fixed.
func TestDCQCNMarkFrequency(t *testing.T) {
	// Kmin = 0, Kmax = 1000, Pmax = 1.0: q = 100 gives p = 0.1 (Q0.32
	// 429496729.6, floored), so realised p = (p−1)/(2^32−1) ≈ 0.1.
	c, err := NewDCQCN(DCQCNConfig{Kmin: 0, Kmax: 1000, Pmax: DCQCNPmaxOne, Seed: DCQCNDefaultSeed})
	require.NoError(t, err)
	const n = 200000
	const p = 0.1
	marks, pairs := 0, 0
	prev := false
	for i := range n {
		m, err := c.onDequeue(units.Time(i), 100)
		require.NoError(t, err)
		if m {
			marks++
			if prev {
				pairs++
			}
		}
		prev = m
	}
	sigma := math.Sqrt(n * p * (1 - p))
	require.InDelta(t, n*p, float64(marks), 5*sigma)
	sigma2 := math.Sqrt(n * p * p * (1 - p*p))
	require.InDelta(t, n*p*p, float64(pairs), 5*sigma2)
	s := c.State()
	require.Equal(t, uint64(n), s.Packets)
	require.Equal(t, uint64(n), s.Draws)
	require.Equal(t, uint64(marks), s.Marked)
}

// Same seed, same decisions; the LFSR advances once per decision in the
// linear region and not at all outside it.
func TestDCQCNDeterministicDraws(t *testing.T) {
	cfg := DCQCNHPCCSim(25 * units.Gbps)
	a, err := NewDCQCN(cfg)
	require.NoError(t, err)
	b, err := NewDCQCN(cfg)
	require.NoError(t, err)
	ref, err := fixedpoint.NewLFSR32(cfg.Seed)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(7, 8))
	for i := range 10000 {
		q := units.Bytes(r.Int64N(int64(cfg.Kmax) + 100000))
		ma, err := a.onDequeue(units.Time(i), q)
		require.NoError(t, err)
		mb, err := b.onDequeue(units.Time(i), q)
		require.NoError(t, err)
		require.Equal(t, ma, mb)
		if q > cfg.Kmin && q <= cfg.Kmax {
			// A reference LFSR stepped only here must agree with the
			// marker's register and decision.
			d := ref.Next()
			require.Equal(t, uint64(d) < a.MarkProbability(q), ma)
		}
		require.Equal(t, ref.State(), a.State().LFSR)
	}
}

func TestDCQCNHPCCSimPreset(t *testing.T) {
	// [HPCC] §5.1: Kmin = 100 KB·Bw/25G, Kmax = 400 KB·Bw/25G.
	for link, want := range map[units.Rate][2]units.Bytes{
		25 * units.Gbps:  {100000, 400000},
		100 * units.Gbps: {400000, 1600000},
		10 * units.Gbps:  {40000, 160000},
	} {
		c := DCQCNHPCCSim(link)
		require.Equal(t, want[0], c.Kmin, "link %v", link)
		require.Equal(t, want[1], c.Kmax, "link %v", link)
		require.NoError(t, c.Validate())
	}
	// 0.2 in Q0.16 rounded to nearest: 0.2·65536 = 13107.2.
	require.Equal(t, uint32(math.Round(0.2*DCQCNPmaxOne)), DCQCNHPCCSim(25*units.Gbps).Pmax)
	require.Error(t, DCQCNHPCCSim(1<<62).Validate(), "an absurd link fails instead of wrapping")
}

func TestDCQCNValidate(t *testing.T) {
	ok := DCQCNConfig{Kmin: 10, Kmax: 20, Pmax: 100, Seed: 1}
	require.NoError(t, ok.Validate())
	for name, tc := range map[string]struct {
		mod  func(*DCQCNConfig)
		want string
	}{
		"negative Kmin": {func(c *DCQCNConfig) { c.Kmin = -1 }, "Kmin"},
		"Kmax < Kmin":   {func(c *DCQCNConfig) { c.Kmax = 9 }, "Kmax"},
		"Kmax too big":  {func(c *DCQCNConfig) { c.Kmax = DCQCNMaxThreshold + 1 }, "Kmax"},
		"Pmax > 1":      {func(c *DCQCNConfig) { c.Pmax = DCQCNPmaxOne + 1 }, "Pmax"},
		"seed 0":        {func(c *DCQCNConfig) { c.Seed = 0 }, "Seed"},
		"mark at 2":     {func(c *DCQCNConfig) { c.MarkAt = 2 }, "MarkAt"},
	} {
		cfg := ok
		tc.mod(&cfg)
		_, err := NewDCQCN(cfg)
		var ce *cc.ConfigError
		require.ErrorAs(t, err, &ce, name)
		require.Equal(t, tc.want, ce.Field, name)
	}
}

// Bad input is an error and changes nothing.
func TestDCQCNBadInput(t *testing.T) {
	c, err := NewDCQCN(DCQCNConfig{Kmin: 0, Kmax: 100, Pmax: 30000, Seed: 1})
	require.NoError(t, err)
	_, err = c.onDequeue(10, 50)
	require.NoError(t, err)
	before := c.State()
	_, err = c.onDequeue(9, 50)
	var to *cc.TimeOrderError
	require.ErrorAs(t, err, &to)
	require.Equal(t, units.Time(9), to.Now)
	require.Equal(t, units.Time(10), to.Last)
	_, err = c.onDequeue(11, -1)
	require.ErrorIs(t, err, cc.ErrEvent)
	require.ErrorContains(t, err, "queue length")
	require.Equal(t, before, c.State())
	require.Equal(t, units.Time(10), c.Last())
	require.Zero(t, c.MarkProbability(-5))
}

// Property: the probability is non-decreasing in the queue length and never
// above Pmax in the linear region, for arbitrary thresholds.
func TestDCQCNProbabilityMonotoneProperty(t *testing.T) {
	params := gopter.DefaultTestParametersWithSeed(1234)
	params.MinSuccessfulTests = 500
	props := gopter.NewProperties(params)
	props.Property("monotone and capped", prop.ForAll(
		func(kmin, span uint64, pmax uint32, q uint64) bool {
			c, err := NewDCQCN(DCQCNConfig{Kmin: units.Bytes(kmin), Kmax: units.Bytes(kmin + span), Pmax: pmax, Seed: 1})
			if err != nil {
				return false
			}
			p0 := c.MarkProbability(units.Bytes(q))
			p1 := c.MarkProbability(units.Bytes(q + 1))
			if p1 < p0 {
				return false
			}
			if q > kmin && q <= kmin+span && p0 > uint64(pmax)<<16 {
				return false
			}
			return true
		},
		gen.UInt64Range(0, 1<<31).WithLabel("kmin"),
		gen.UInt64Range(0, 1<<31).WithLabel("span"),
		gen.UInt32Range(0, DCQCNPmaxOne).WithLabel("pmax"),
		gen.UInt64Range(0, 1<<33).WithLabel("q"),
	))
	props.TestingRun(t)
}

// FuzzDCQCNMark drives the marker with arbitrary thresholds and queue lengths:
// no panic, invalid configurations rejected, the probability within one unit
// of the exact value, and a mark exactly when the draw says so.
func FuzzDCQCNMark(f *testing.F) {
	f.Add(uint32(100000), uint32(300000), uint32(13107), uint32(1), int64(250000))       // HPCC 25G preset, mid-region
	f.Add(uint32(0), uint32(0), uint32(0), uint32(1), int64(1))                          // step marker at 0
	f.Add(uint32(0), uint32(math.MaxUint32), uint32(65536), uint32(7), int64(1<<32-1))   // widest span, q = Kmax
	f.Add(uint32(10), uint32(5), uint32(70000), uint32(0), int64(-3))                    // invalid Pmax, seed, qlen
	f.Add(uint32(math.MaxUint32), uint32(1), uint32(1), uint32(3), int64(math.MaxInt64)) // Kmax overflows 32 bits
	f.Fuzz(func(t *testing.T, kmin, span, pmax, seed uint32, q int64) {
		cfg := DCQCNConfig{Kmin: units.Bytes(kmin), Kmax: units.Bytes(uint64(kmin) + uint64(span)), Pmax: pmax, Seed: seed}
		c, err := NewDCQCN(cfg)
		valid := seed != 0 && pmax <= DCQCNPmaxOne && uint64(kmin)+uint64(span) <= math.MaxUint32
		require.Equal(t, valid, err == nil, "config %+v: %v", cfg, err)
		if !valid {
			return
		}
		if q >= 0 {
			dcqcnCheckProb(t, c, uint64(q))
		}
		l := c.State().LFSR
		m, err := c.onDequeue(0, units.Bytes(q))
		if q < 0 {
			require.Error(t, err)
			return
		}
		require.NoError(t, err)
		p := c.MarkProbability(units.Bytes(q))
		switch {
		case p == 0:
			require.False(t, m)
		case p >= dcqcnProbOne:
			require.True(t, m)
		default:
			ref, err := fixedpoint.NewLFSR32(l)
			require.NoError(t, err)
			require.Equal(t, uint64(ref.Next()) < p, m)
		}
	})
}

func TestDCQCNOnDequeueNoAllocs(t *testing.T) {
	c, err := NewDCQCN(DCQCNHPCCSim(25 * units.Gbps))
	require.NoError(t, err)
	now := units.Time(0)
	allocs := testing.AllocsPerRun(1000, func() {
		now += units.Nanosecond
		_, _ = c.onDequeue(now, 250*units.KB)
	})
	require.Zero(t, allocs)
}

// BenchmarkDCQCNOnEnqueue measures one mark decision in the linear region
// (a draw every call, the most expensive case) taken on enqueue.
func BenchmarkDCQCNOnEnqueue(b *testing.B) {
	cfg := DCQCNHPCCSim(25 * units.Gbps)
	cfg.MarkAt = DCQCNMarkEnqueue
	c, _ := NewDCQCN(cfg)
	now := units.Time(0)
	b.ReportAllocs()
	for b.Loop() {
		now += units.Nanosecond
		_, _ = c.onEnqueue(now, 250*units.KB)
	}
}

// BenchmarkDCQCNOnDequeue is BenchmarkDCQCNOnEnqueue with the decision
// taken on dequeue (the default).
func BenchmarkDCQCNOnDequeue(b *testing.B) {
	c, _ := NewDCQCN(DCQCNHPCCSim(25 * units.Gbps))
	now := units.Time(0)
	b.ReportAllocs()
	for b.Loop() {
		now += units.Nanosecond
		_, _ = c.onDequeue(now, 250*units.KB)
	}
}
