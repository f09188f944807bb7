package window

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/hwtables"
	"github.com/hwcc/hwcc/units"
)

// paperSim is the paper's simulation setting (section 5.1): 100 Gb/s NIC,
// T = 13 µs, so W_init = 100 Gb/s × 13 µs / 8 = 162500 B; η = 95 %,
// maxStage = 5, W_AI = 80 B; W_min = 1 Gb/s × 13 µs = 1625 B.
func paperSim() Config {
	return Config{
		T:        13 * units.Microsecond,
		Init:     162500,
		Min:      1625,
		AI:       80,
		Eta:      Eta95,
		MaxStage: 5,
	}
}

// fineTable is a reciprocal table at ε = 2^-16 (the finest hwtables
// builds), used where a test wants the arithmetic error to be small.
func fineTable(t testing.TB) *hwtables.Table {
	tb, err := hwtables.NewReciprocal(hwtables.ReciprocalConfig{EpsLog2: hwtables.MaxEpsLog2})
	require.NoError(t, err)
	return tb
}

func TestConfigValidate(t *testing.T) {
	good := paperSim()
	require.NoError(t, good.Validate())
	cases := []struct {
		name  string
		mod   func(*Config)
		field string
	}{
		{"T too small", func(c *Config) { c.T = MinT - 1 }, "T"},
		{"T too large", func(c *Config) { c.T = MaxT + 1 }, "T"},
		{"Init zero", func(c *Config) { c.Init = 0 }, "Init"},
		{"Init above 32 bits", func(c *Config) { c.Init = MaxWindow + 1; c.Max = MaxWindow + 1 }, "Init"},
		{"Min zero", func(c *Config) { c.Min = 0 }, "Min"},
		{"Min above Init", func(c *Config) { c.Min = c.Init + 1 }, "Min"},
		{"Max below Init", func(c *Config) { c.Max = c.Init - 1 }, "Max"},
		{"Max above 32 bits", func(c *Config) { c.Max = MaxWindow + 1 }, "Max"},
		{"AI negative", func(c *Config) { c.AI = -1 }, "AI"},
		{"AI above Max", func(c *Config) { c.AI = c.Init + 1 }, "AI"},
		{"Eta below 0.5", func(c *Config) { c.Eta = EtaMin - 1 }, "Eta"},
		{"Eta above 1", func(c *Config) { c.Eta = EtaMax + 1 }, "Eta"},
		{"MaxStage negative", func(c *Config) { c.MaxStage = -1 }, "MaxStage"},
		{"MaxStage above 8 bits", func(c *Config) { c.MaxStage = 256 }, "MaxStage"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := good
			tc.mod(&c)
			err := c.Validate()
			require.ErrorIs(t, err, cc.ErrConfig)
			var ce *cc.ConfigError
			require.ErrorAs(t, err, &ce)
			require.Equal(t, tc.field, ce.Field)
			require.NotEmpty(t, ce.Value)
			require.NotEmpty(t, ce.Range)
			_, err = New(c)
			require.ErrorIs(t, err, cc.ErrConfig)
			_, err = NewLaw(c)
			require.ErrorIs(t, err, cc.ErrConfig)
		})
	}
}

func TestEta95(t *testing.T) {
	// The constant is the configuration conversion of 0.95 (nearest).
	q, err := fixedpoint.UQ32_32FromFloat(0.95)
	require.NoError(t, err)
	require.Equal(t, q, Eta95)
	require.InDelta(t, 0.95, qFloat(Eta95), math.Ldexp(1, -33))
}

func TestAIRule(t *testing.T) {
	cases := []struct {
		name string
		init units.Bytes
		n    int
		want units.Bytes
	}{
		// Section 5.4: 100 Gb/s × 4 µs × (1 − 0.95)/16 = 156.25 B, "should
		// not exceed ... ≈ 150 bytes"; floor gives 156.
		{"section 5.4, 16 flows", units.BytesIn(100*units.Gbps, 4*units.Microsecond), 16, 156},
		// Section 5.1 footnote 4: 100 flows at 100 Gb/s, T = 13 µs:
		// 162500 × 0.05 / 100 = 81.25 B (the paper rounds to 80 B).
		{"section 5.1, 100 flows", 162500, 100, 81},
		// Testbed, 25 Gb/s × 9 µs = 28125 B, N = 100: 14.06 B.
		{"testbed, 100 flows", 28125, 100, 14},
		// One flow: 162500 × (1 − η) = 8125.0000075 with the η register
		// (0.2·2^-32 below 0.95), floor 8125.
		{"one flow", 162500, 1, 8125},
		{"zero window", 0, 10, 0},
	}
	for _, tc := range cases {
		got, err := AIRule(tc.init, Eta95, tc.n)
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.want, got, tc.name)
		// Closed form with the exact η register: ⌊init·(1 − η)/N⌋.
		exact := math.Floor(float64(tc.init) * (1 - qFloat(Eta95)) / float64(tc.n))
		require.Equal(t, exact, float64(got), tc.name)
	}
	var ce *cc.ConfigError
	_, err := AIRule(100, Eta95, 0)
	require.ErrorAs(t, err, &ce)
	require.Equal(t, "n", ce.Field)
	_, err = AIRule(-1, Eta95, 1)
	require.ErrorAs(t, err, &ce)
	require.Equal(t, "init", ce.Field)
	_, err = AIRule(100, EtaMin-1, 1)
	require.ErrorAs(t, err, &ce)
	require.Equal(t, "eta", ce.Field)
}

func TestNewWindowInitialState(t *testing.T) {
	w, err := New(paperSim())
	require.NoError(t, err)
	s := w.State()
	require.Equal(t, units.Bytes(162500), s.W)
	require.Equal(t, units.Bytes(162500), s.Wc)
	require.Zero(t, s.IncStage)
	require.Zero(t, s.LastUpdateSeq)
	// R = W/T = 162500 B × 8 / 13 µs = 100 Gb/s exactly: W_init = B_NIC·T.
	require.Equal(t, 100*units.Gbps, s.Rate)
	for _, h := range s.Hops {
		require.Equal(t, units.Bytes(162500), h.Wc)
	}
	// Max resolves to Init.
	require.Equal(t, units.Bytes(162500), w.Law().Config().Max)
}

// TestLawNewWindowShares: the Windows built from one Law share it and keep
// their registers apart. Two of them (one built in place, InitWindow) fed
// different ACKs interleaved each end where a Window with a Law of its own
// fed the same ACKs alone ends: a shared Law carries nothing from one
// Window to another. (New now builds through NewWindow too, so equal
// results alone would show nothing; the interleaving is the test.)
func TestLawNewWindowShares(t *testing.T) {
	l, err := NewLaw(paperSim())
	require.NoError(t, err)
	a := l.NewWindow()
	var b Window
	l.InitWindow(&b)
	require.Same(t, l, a.Law())
	require.Same(t, l, b.Law())
	aloneA, err := New(paperSim())
	require.NoError(t, err)
	aloneB, err := New(paperSim())
	require.NoError(t, err)
	require.NotSame(t, l, aloneA.Law())
	rng := rand.New(rand.NewPCG(5, 6))
	var seqA, seqB uint64
	for range 2000 {
		u := fixedpoint.UQ32_32(rng.Uint64N(2 * uint64(fixedpoint.UQ32_32One)))
		if rng.IntN(2) == 0 {
			seqA += rng.Uint64N(20000)
			require.Equal(t, aloneA.OnAck(u, seqA, seqA+50000), a.OnAck(u, seqA, seqA+50000))
		} else {
			seqB += rng.Uint64N(20000)
			require.Equal(t, aloneB.OnAck(u, seqB, seqB+50000), b.OnAck(u, seqB, seqB+50000))
		}
	}
	require.Equal(t, aloneA.State(), a.State())
	require.Equal(t, aloneB.State(), b.State())
	require.NotEqual(t, a.State(), b.State())
	require.NotZero(t, a.State().Commits)
}

func TestRate(t *testing.T) {
	// R = W·8/T, checked against the closed form over many windows and
	// periods; the integer result is floor of the exact value or 1 below
	// (rateMul is rounded to nearest: |error| < W·2^-33 + 1 < 1.5 bit/s).
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		c := paperSim()
		c.T = MinT + units.Time(rng.Int64N(int64(MaxT-MinT)))
		c.Init = MaxWindow
		c.Min = 1
		l, err := NewLaw(c)
		require.NoError(t, err)
		w := units.Bytes(1 + rng.Int64N(int64(MaxWindow)))
		exact := float64(w) * 8e12 / float64(c.T)
		got := float64(l.Rate(w))
		require.InDelta(t, exact, got, 1.5+exact*1e-15, "W=%d T=%v", w, c.T)
	}
	l, err := NewLaw(paperSim())
	require.NoError(t, err)
	require.Zero(t, l.Rate(0))
	require.Zero(t, l.Rate(-5))
	// 80 B per 13 µs = 49230769.2 bit/s, floor.
	require.Equal(t, units.Rate(49230769), l.Rate(80))
}

func TestComputeWindAIThenMI(t *testing.T) {
	// Algorithm 1 with U held at 0.5 < η: maxStage = 5 AI steps of W_AI,
	// then one MI step W = Wc·η/U + W_AI, with the native divide so the
	// expected values are exact floors.
	c := paperSim()
	c.Init, c.Max = 100000, 1000000
	c.NativeDivision = true
	l, err := NewLaw(c)
	require.NoError(t, err)
	ref := l.InitialReference()
	u := fixedpoint.UQ32_32One / 2
	for k := 1; k <= 5; k++ {
		w := l.ComputeWind(&ref, u, true)
		require.Equal(t, units.Bytes(100000+80*k), w, "AI step %d", k)
		require.Equal(t, uint8(k), ref.IncStage)
	}
	w := l.ComputeWind(&ref, u, true)
	// Wc = 100400; W = ⌊100400·η_raw / 2^31⌋ + 80 with η_raw = Eta95.
	want := units.Bytes(uint64(100400)*uint64(Eta95)/(1<<31)) + 80
	require.Equal(t, want, w)
	require.InDelta(t, 100400*0.95/0.5+80, float64(w), 1) // 190840, the paper's formula
	require.Zero(t, ref.IncStage)
	require.Equal(t, w, ref.Wc)
}

func TestComputeWindNoCommitKeepsReference(t *testing.T) {
	// Figure 5: two ACKs describing the same queue must not compound. With
	// U = 2η the first ACK gives W(1) = Wc/2 + W_AI and, without a commit,
	// the second gives the same W(2) = W(1), not W(1)/2.
	c := paperSim()
	c.NativeDivision = true
	l, err := NewLaw(c)
	require.NoError(t, err)
	ref := l.InitialReference()
	u := 2 * Eta95
	w1 := l.ComputeWind(&ref, u, false)
	w2 := l.ComputeWind(&ref, u, false)
	require.Equal(t, units.Bytes(162500/2+80), w1)
	require.Equal(t, w1, w2)
	require.Equal(t, units.Bytes(162500), ref.Wc) // untouched
	// Committing then reacting again halves from the committed value.
	w3 := l.ComputeWind(&ref, u, true)
	require.Equal(t, w1, w3)
	require.Equal(t, w1, ref.Wc)
	w4 := l.ComputeWind(&ref, u, false)
	require.Equal(t, (w1)/2+80, w4)
}

func TestComputeWindEdges(t *testing.T) {
	c := paperSim()
	l, err := NewLaw(c)
	require.NoError(t, err)

	// U = 0 in the MI branch (maxStage reached): an idle path, W = Max.
	ref := Reference{Wc: 5000, IncStage: 5}
	require.Equal(t, units.Bytes(162500), l.ComputeWind(&ref, 0, true))
	require.Zero(t, ref.IncStage)

	// A huge U drives W to Min, never to 0.
	ref = l.InitialReference()
	require.Equal(t, units.Bytes(1625), l.ComputeWind(&ref, math.MaxUint64, true))

	// AI saturates at Max.
	ref = l.InitialReference()
	require.Equal(t, units.Bytes(162500), l.ComputeWind(&ref, 1, true))

	// A hand-made Reference outside [Min, Max] is clamped first.
	ref = Reference{Wc: -7}
	require.Equal(t, units.Bytes(1625+80), l.ComputeWind(&ref, 1, false))
	ref = Reference{Wc: 1 << 40}
	require.Equal(t, units.Bytes(162500), l.ComputeWind(&ref, 1, false))

	// maxStage = 0: every update is MI (the authors' run.py default).
	c.MaxStage = 0
	c.NativeDivision = true
	l0, err := NewLaw(c)
	require.NoError(t, err)
	ref = Reference{Wc: 10000}
	u := fixedpoint.UQ32_32One / 4
	require.Equal(t, units.Bytes(uint64(10000)*uint64(Eta95)/(1<<30)+80), l0.ComputeWind(&ref, u, true))
	require.Zero(t, ref.IncStage)
}

func TestWindowCommitGate(t *testing.T) {
	// Lines 21–27: an ACK commits only if it covers data sent after the
	// last commit (ack.seq > lastUpdateSeq); then lastUpdateSeq = snd_nxt.
	c := paperSim()
	c.NativeDivision = true
	w, err := New(c)
	require.NoError(t, err)
	u := 2 * Eta95 // MI halves from Wc each time
	require.True(t, w.Due(1))
	w.OnAck(u, 1000, 50000) // commit: Wc = 162500/2 + 80 = 81330
	s := w.State()
	require.Equal(t, uint64(50000), s.LastUpdateSeq)
	require.Equal(t, units.Bytes(81330), s.Wc)
	require.Equal(t, uint64(1), s.Commits)
	// ACKs up to and including 50000 do not commit: W stays Wc/2 + AI.
	for _, ack := range []uint64{2000, 30000, 50000} {
		require.False(t, w.Due(ack))
		require.Equal(t, units.Bytes(81330/2+80), w.OnAck(u, ack, 60000))
		require.Equal(t, units.Bytes(81330), w.State().Wc)
	}
	// The first ACK past 50000 commits.
	require.True(t, w.Due(50001))
	w.OnAck(u, 50001, 90000)
	require.Equal(t, units.Bytes(81330/2+80), w.State().Wc)
	require.Equal(t, uint64(90000), w.State().LastUpdateSeq)
	// Hold moves the gate without an update.
	w.Hold(120000)
	require.False(t, w.Due(120000))
	require.Equal(t, units.Bytes(81330/2+80), w.State().Wc)
	// The rate follows W: R = W·8/T.
	require.Equal(t, w.Law().Rate(w.Window()), w.Rate())
	// Reset restores the initial state.
	w.Reset()
	require.Equal(t, units.Bytes(162500), w.Window())
	require.Zero(t, w.State().LastUpdateSeq)
}

func TestCanSend(t *testing.T) {
	c := paperSim()
	c.Min = 1
	w, err := New(c)
	require.NoError(t, err)
	require.True(t, w.CanSend(0))
	require.True(t, w.CanSend(-3))
	require.True(t, w.CanSend(162499))
	require.False(t, w.CanSend(162500))
	require.False(t, w.CanSend(1<<40))
	// Even the smallest window lets one packet go when nothing is in
	// flight (inflight < W, W ≥ Min ≥ 1).
	w.Update(math.MaxUint64, true, 0)
	require.Equal(t, units.Bytes(80), w.Window()) // MI gives ⌊162500·0.95/2^32⌋ = 0, then + W_AI
	require.True(t, w.CanSend(0))
	require.True(t, w.CanSend(79))
	require.False(t, w.CanSend(80))
}

func TestUpdateHops(t *testing.T) {
	// Multi-rate: each hop runs the law on its own reference, W is the
	// smallest per-hop window, unsampled hops count with their Wc.
	c := paperSim()
	c.Max = 1000000
	c.NativeDivision = true
	w, err := New(c)
	require.NoError(t, err)
	us := []fixedpoint.UQ32_32{Eta95 / 2, 4 * Eta95, 2 * Eta95}
	// Hop 0 AI (Wc+80), hop 1 MI /4, hop 2 not sampled.
	got := w.UpdateHops(us, 0b011, true, 777)
	require.Equal(t, units.Bytes(162500/4+80), got)
	s := w.State()
	require.Equal(t, units.Bytes(162500+80), s.Hops[0].Wc)
	require.Equal(t, uint8(1), s.Hops[0].IncStage)
	require.Equal(t, units.Bytes(162500/4+80), s.Hops[1].Wc)
	require.Equal(t, units.Bytes(162500), s.Hops[2].Wc)
	require.Equal(t, uint64(777), s.LastUpdateSeq)
	// Unsampled hop with the smallest Wc sets W.
	w.hops[2].Wc = 1700
	require.Equal(t, units.Bytes(1700), w.UpdateHops(us, 0b001, false, 0))
	// No hop: W unchanged.
	require.Equal(t, units.Bytes(1700), w.UpdateHops(nil, 0, false, 0))
	// ResetHops restarts every hop at the current W.
	w.ResetHops()
	for _, h := range w.State().Hops {
		require.Equal(t, Reference{Wc: 1700}, h)
	}
}

func TestDividerBound(t *testing.T) {
	// Quo and Quo128 against the exact quotient (math/big), over random
	// numerators and divisors of every width, for the default table, a fine
	// table and the native divide.
	rng := rand.New(rand.NewPCG(3, 4))
	divs := []Divider{NewDivider(nil, false), NewDivider(fineTable(t), false), NewDivider(nil, true)}
	for _, d := range divs {
		over, under := divBound(d)
		for range 20000 {
			a := rng.Uint64() >> rng.UintN(64)
			n := rng.Uint64()>>rng.UintN(64) | 1
			q := d.Quo(a, n)
			require.True(t, withinDivBound(q, exactQuo(0, a, n), over, under), "Quo(%d, %d) = %d", a, n, q)
			hi := rng.Uint64() >> rng.UintN(64)
			if hi >= n {
				require.Equal(t, uint64(math.MaxUint64), d.Quo128(hi, a, n))
				continue
			}
			q = d.Quo128(hi, a, n)
			x := exactQuo(hi, a, n)
			if q == math.MaxUint64 && !d.Native() {
				// Documented saturation: the shifted numerator needed more
				// than 64 bits, so the quotient is at least 2^42.
				f, _ := x.Float64()
				require.GreaterOrEqual(t, f, math.Ldexp(1, 42))
				continue
			}
			require.True(t, withinDivBound(q, x, over, under), "Quo128(%d, %d, %d) = %d", hi, a, n, q)
		}
		require.Equal(t, uint64(math.MaxUint64), d.Quo(5, 0))
		require.Equal(t, uint64(math.MaxUint64), d.Quo128(0, 5, 0))
	}
	// The stated bound at the default table: 0.787 % over, 0.098 % under.
	over, under := divBound(NewDivider(nil, false))
	require.InDelta(t, 1.0/127, over, 1e-6)
	require.InDelta(t, 1.0/1024, under, 1e-6)
}

func TestErrorsAreConfigErrors(t *testing.T) {
	_, err := New(Config{})
	require.True(t, errors.Is(err, cc.ErrConfig))
	require.True(t, cc.Typed(err))
}
