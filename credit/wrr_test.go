package credit_test

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/credit"
	"github.com/hwcc/hwcc/units"
)

// wrrPropSeed fixes gopter's random source for the WRR properties;
// override with -credit.wrr.seed=N.
var wrrPropSeed = flag.Int64("credit.wrr.seed", 20210824, "seed of the credit package's WRR properties")

func wrrProperties(minSuccess int) *gopter.Properties {
	p := gopter.DefaultTestParametersWithSeed(*wrrPropSeed)
	p.MinSuccessfulTests = minSuccess
	return gopter.NewProperties(p)
}

// wrrRef is a reference model of the scheduler written the slow way: the
// two lists are slices, the per-round counts live in a map that is
// cleared at every new round, and C < S is a signed 32-bit difference.
type wrrRef struct {
	credit, c0 uint32
	ent        map[int]*wrrRefEntry
	active     []int
	done       []int
}

type wrrRefEntry struct {
	s, c uint32
	f    uint16
	cnt  int
}

func newWRRRef(cfg credit.WRRConfig) *wrrRef {
	return &wrrRef{credit: uint32(cfg.Credit), c0: uint32(cfg.C0), ent: map[int]*wrrRefEntry{}}
}

func (m *wrrRef) eligible(e *wrrRefEntry) bool { return int32(e.s-e.c) > 0 }
func (m *wrrRef) weight(e *wrrRefEntry) int {
	if e.f == 0 {
		return 1
	}
	return int(e.f)
}

func (m *wrrRef) where(i int) int {
	switch {
	case slices.Contains(m.active, i):
		return 1
	case slices.Contains(m.done, i):
		return 2
	}
	return 0
}

func (m *wrrRef) drop(i int) {
	m.active = slices.DeleteFunc(m.active, func(j int) bool { return j == i })
	m.done = slices.DeleteFunc(m.done, func(j int) bool { return j == i })
}

func (m *wrrRef) place(i int) {
	e := m.ent[i]
	want := 0
	if m.eligible(e) {
		want = 1
		if e.cnt >= m.weight(e) {
			want = 2
		}
	}
	if m.where(i) == want {
		return
	}
	m.drop(i)
	switch want {
	case 1:
		m.active = append(m.active, i)
	case 2:
		m.done = append(m.done, i)
	}
}

func (m *wrrRef) observe(i int, s uint32, f uint16) bool {
	e, ok := m.ent[i]
	if !ok {
		c := uint32(0)
		if s > m.c0 {
			c = s - m.c0
		}
		e = &wrrRefEntry{s: s, c: c, f: f}
		m.ent[i] = e
	} else {
		if int32(s-e.s) < 0 {
			return false // older than the stored S
		}
		if d := int64(int32(e.c - s)); d >= int64(m.credit) {
			return false // a counter lap: C would stand Δ or more past S
		}
		e.s, e.f = s, f
	}
	m.place(i)
	return true
}

func (m *wrrRef) remove(i int) {
	m.drop(i)
	delete(m.ent, i)
}

func (m *wrrRef) grant() (int, bool) {
	if len(m.active) == 0 {
		if len(m.done) == 0 {
			return 0, false
		}
		m.active, m.done = m.done, nil
		for _, e := range m.ent {
			e.cnt = 0
		}
	}
	i := m.active[0]
	m.active = m.active[1:]
	e := m.ent[i]
	e.cnt++
	e.c += m.credit
	switch {
	case !m.eligible(e):
	case e.cnt >= m.weight(e):
		m.done = append(m.done, i)
	default:
		m.active = append(m.active, i)
	}
	return i, true
}

func newWRR(t testing.TB, cfg credit.WRRConfig) *credit.WRR {
	t.Helper()
	w, err := credit.NewWRR(cfg)
	require.NoError(t, err)
	return w
}

// TestWRRInterleaved: weights 3, 2, 1 give A B C A B A each round (the
// interleaved order), six grants of 1 KB per round.
func TestWRRInterleaved(t *testing.T) {
	w := newWRR(t, credit.HierCCWRR(8))
	for i, f := range []uint16{3, 2, 1} {
		_, err := w.Observe(0, i, 1<<30, f)
		require.NoError(t, err)
	}
	var got []int
	for range 12 {
		i, ok, err := w.Grant(1)
		require.NoError(t, err)
		require.True(t, ok)
		got = append(got, i)
	}
	// Round 2 starts from the done list's order: C finished first.
	require.Equal(t, []int{0, 1, 2, 0, 1, 0, 2, 1, 0, 1, 0, 0}, got)
	e, _ := w.Entry(0)
	require.Equal(t, uint32(1<<30-10000+6000), e.C) // C0 = 10 KB below S, then 6 grants of 1 KB
	require.EqualValues(t, 1, w.Round())            // rounds 0 and 1; round 2 starts at the next grant
	require.EqualValues(t, 12, w.Grants())
}

// TestWRRSkipping: an entry whose credits reached its bytes sent gets
// nothing until its S grows; the others take its turns.
func TestWRRSkipping(t *testing.T) {
	w := newWRR(t, credit.WRRConfig{Entries: 4, Credit: 1000, C0: 0})
	// A VOQ's first packet: S = 3000 with C0 = 0 gives C = S − min(S, C0)
	// = 3000, so A starts caught up.
	_, err := w.Observe(0, 0, 3000, 5)
	require.NoError(t, err)
	e, _ := w.Entry(0)
	require.False(t, e.Eligible)
	_, ok, err := w.Grant(1)
	require.NoError(t, err)
	require.False(t, ok)              // nothing eligible
	_, err = w.Observe(2, 0, 6000, 5) // 3000 B more sent: 3 credits due
	require.NoError(t, err)
	_, err = w.Observe(2, 1, 0, 1) // B: C = S = 0
	require.NoError(t, err)
	_, err = w.Observe(2, 1, 1<<30, 1)
	require.NoError(t, err)
	counts := map[int]int{}
	for range 20 {
		i, ok, err := w.Grant(3)
		require.NoError(t, err)
		require.True(t, ok)
		counts[i]++
	}
	require.Equal(t, map[int]int{0: 3, 1: 17}, counts)
	e, _ = w.Entry(0)
	require.Equal(t, credit.WRREntry{S: 6000, C: 6000, F: 5}, e)
	require.Equal(t, 1, w.Eligible())
	// S grows by 1500: two credits (the second overshoots by 500).
	_, err = w.Observe(4, 0, 7500, 5)
	require.NoError(t, err)
	counts = map[int]int{}
	for range 10 {
		i, _, _ := w.Grant(5)
		counts[i]++
	}
	require.Equal(t, map[int]int{0: 2, 1: 8}, counts)
	e, _ = w.Entry(0)
	require.Equal(t, uint32(8000), e.C)
}

// TestWRRWrap: S and C are 32-bit counters; eligibility and the stale
// test work across their wrap.
func TestWRRWrap(t *testing.T) {
	w := newWRR(t, credit.WRRConfig{Entries: 2, Credit: 1000, C0: 2000})
	s := uint32(1<<32 - 1500)
	_, err := w.Observe(0, 1, s, 1) // C = S − 2000
	require.NoError(t, err)
	s += 5000 // wraps to 3500
	require.Equal(t, uint32(3500), s)
	taken, err := w.Observe(1, 1, s, 1)
	require.NoError(t, err)
	require.True(t, taken)
	n := 0
	for {
		_, ok, err := w.Grant(2)
		require.NoError(t, err)
		if !ok {
			break
		}
		n++
	}
	require.Equal(t, 7, n) // 7000 B due: 2000 (C0 back) + 5000 sent
	e, _ := w.Entry(1)
	require.Equal(t, s, e.C) // 2^32 − 3500 + 7000 wraps to 3500
	// An older report (before the wrap) is ignored and counted.
	taken, err = w.Observe(3, 1, 1<<32-100, 9)
	require.NoError(t, err)
	require.False(t, taken)
	require.EqualValues(t, 1, w.Ignored())
	e, _ = w.Entry(1)
	require.EqualValues(t, 1, e.F)
	// Entry 0 has C = S − C0 = S − 2000. A report 2^31 − 100 ahead of S is
	// newer than S in serial order (the stale rule takes it), but C would
	// then stand 2^31 − 1900 bytes *past* the new S: a lap of the 32-bit
	// counters, which a VOQ sending at most C0 + Δ unreported cannot make.
	// Ignored, so C never stands more than Δ − 1 past S.
	const s0 = 10_000
	_, err = w.Observe(4, 0, s0, 1)
	require.NoError(t, err)
	taken, err = w.Observe(5, 0, s0+1<<31-100, 9)
	require.NoError(t, err)
	require.False(t, taken)
	require.EqualValues(t, 2, w.Ignored())
	e, _ = w.Entry(0)
	require.Equal(t, uint32(s0), e.S)
	// 2^31 − 2001 ahead is taken: C trails the new S by 2^31 − 1 bytes,
	// the most serial order can say is owed.
	taken, err = w.Observe(6, 0, s0+1<<31-2001, 9)
	require.NoError(t, err)
	require.True(t, taken)
	e, _ = w.Entry(0)
	require.True(t, e.Eligible)
	require.Equal(t, uint32(1<<31-1), e.S-e.C)
}

// TestWRRNewEntryC: C starts at S − min(S, C0): 0 for a VOQ that has sent
// at most C0, S − C0 for one re-learnt with a long history.
func TestWRRNewEntryC(t *testing.T) {
	w := newWRR(t, credit.HierCCWRR(2))
	_, _ = w.Observe(0, 0, 4000, 1)
	_, _ = w.Observe(0, 1, 5_000_000, 1)
	e0, _ := w.Entry(0)
	e1, _ := w.Entry(1)
	require.Equal(t, uint32(0), e0.C)
	require.Equal(t, uint32(5_000_000-10_000), e1.C)
	require.NoError(t, w.Remove(1, 1))
	_, ok := w.Entry(1)
	require.False(t, ok)
	require.Equal(t, 1, w.Len())
}

// TestWRRErrors: refusals are typed and change nothing.
func TestWRRErrors(t *testing.T) {
	for _, c := range []credit.WRRConfig{
		{Entries: 0, Credit: 1}, {Entries: 1<<16 + 1, Credit: 1}, {Entries: 1, Credit: 0},
		{Entries: 1, Credit: credit.WRRMaxCredit + 1}, {Entries: 1, Credit: 1, C0: -1}, {Entries: 1, Credit: 1, C0: 1 << 31},
	} {
		_, err := credit.NewWRR(c)
		require.ErrorIs(t, err, cc.ErrConfig, "%+v", c)
	}
	w := newWRR(t, credit.HierCCWRR(4))
	_, err := w.Observe(10, 2, 50000, 3)
	require.NoError(t, err)
	before := w.AppendRegisters(nil)
	e0, _ := w.Entry(2)
	_, err = w.Observe(10, 4, 1, 1)
	require.ErrorIs(t, err, credit.ErrNoEntry)
	_, err = w.Observe(10, -1, 1, 1)
	require.ErrorIs(t, err, credit.ErrNoEntry)
	_, err = w.Observe(9, 2, 60000, 1)
	require.ErrorIs(t, err, cc.ErrTimeOrder)
	require.ErrorIs(t, w.Remove(10, 1), credit.ErrNoEntry)
	require.ErrorIs(t, w.Remove(9, 2), cc.ErrTimeOrder)
	_, _, err = w.Grant(9)
	require.ErrorIs(t, err, cc.ErrTimeOrder)
	require.True(t, cc.Typed(err))
	require.Equal(t, before, w.AppendRegisters(nil))
	e1, _ := w.Entry(2)
	require.Equal(t, e0, e1)
	for _, r := range before {
		require.True(t, r.Fits(), r.String())
	}
}

// wrrRun applies one random operation to both the scheduler and the
// reference model and compares them.
func wrrRun(w *credit.WRR, m *wrrRef, rng *rand.Rand, now units.Time, entries int) error {
	switch k := rng.IntN(10); {
	case k < 3:
		i := rng.IntN(entries)
		var s uint32
		if e, ok := m.ent[i]; ok && rng.IntN(4) > 0 {
			s = e.s + uint32(rng.IntN(5000)) - 500 // mostly forward, sometimes stale
		} else {
			s = rng.Uint32()
		}
		f := uint16(rng.IntN(6))
		want := m.observe(i, s, f)
		got, err := w.Observe(now, i, s, f)
		if err != nil || got != want {
			return fmt.Errorf("Observe(%d, %d, %d) = %v, %v; model %v", i, s, f, got, err, want)
		}
	case k < 4:
		i := rng.IntN(entries)
		_, had := m.ent[i]
		err := w.Remove(now, i)
		if had != (err == nil) {
			return fmt.Errorf("Remove(%d): %v, model had it %v", i, err, had)
		}
		m.remove(i)
	default:
		wi, wok := m.grant()
		gi, gok, err := w.Grant(now)
		if err != nil || gok != wok || (wok && gi != wi) {
			return fmt.Errorf("Grant = %d %v %v; model %d %v", gi, gok, err, wi, wok)
		}
	}
	eligible := 0
	for i := range entries {
		e, ok := w.Entry(i)
		me, mok := m.ent[i]
		if ok != mok || ok && (e.S != me.s || e.C != me.c || e.F != me.f || e.Eligible != m.eligible(me)) {
			return fmt.Errorf("entry %d: %+v %v; model %+v %v", i, e, ok, me, mok)
		}
		if ok && e.Eligible {
			eligible++
		}
	}
	if w.Eligible() != eligible || w.Len() != len(m.ent) || eligible != len(m.active)+len(m.done) {
		return fmt.Errorf("counts: eligible %d/%d, len %d/%d", w.Eligible(), eligible, w.Len(), len(m.ent))
	}
	return nil
}

// TestPropWRRMatchesModel: under random Observe, Remove and Grant events
// the scheduler makes the same decision as the reference model every
// time, and its entries agree.
func TestPropWRRMatchesModel(t *testing.T) {
	props := wrrProperties(100)
	props.Property("same decisions as the model", prop.ForAll(
		func(seed uint64, entries int, delta int64) string {
			cfg := credit.WRRConfig{Entries: entries, Credit: units.Bytes(delta), C0: 10 * units.KB}
			w, err := credit.NewWRR(cfg)
			if err != nil {
				return err.Error()
			}
			m := newWRRRef(cfg)
			rng := rand.New(rand.NewPCG(seed, 3))
			for step := range 2000 {
				if err := wrrRun(w, m, rng, units.Time(step), entries); err != nil {
					return fmt.Sprintf("step %d: %v", step, err)
				}
			}
			return ""
		},
		gen.UInt64().WithLabel("seed"),
		gen.IntRange(1, 12).WithLabel("entries"),
		gen.Int64Range(1, 3000).WithLabel("Δ"),
	))
	props.TestingRun(t)
}

// TestPropWRRBound is the Done-when property: after a random warm-up
// (weights and eligibility changing, rounds left half done), over a window
// of W grants with the eligible set and weights fixed, every entry k gets
// g_k with |g_k − W·w_k/F| ≤ 2·w_k·(F − w_k)/F, checked in integers as
// |g_k·F − W·w_k| ≤ 2·w_k·(F − w_k). The largest deviation seen, as a
// fraction of the bound, is logged.
func TestPropWRRBound(t *testing.T) {
	worst := 0.0
	props := wrrProperties(300)
	props.Property("|g_k − W·w_k/F| ≤ 2·w_k·(F − w_k)/F", prop.ForAll(
		func(seed uint64, n int, maxW int, warm int, window int) string {
			// C0 = 2^31 − 1: a new entry starts at C = 0, far below S.
			w := newWRR(t, credit.WRRConfig{Entries: 16, Credit: 1, C0: 1<<31 - 1})
			rng := rand.New(rand.NewPCG(seed, 4))
			const big = 1 << 30 // S: never caught up within the test
			weights := make([]uint16, n)
			for i := range n {
				weights[i] = uint16(1 + rng.IntN(maxW))
				_, _ = w.Observe(0, i, big, weights[i])
			}
			// Warm-up: grants interleaved with weight changes and entries
			// leaving and returning (eligible again from a higher S).
			extra := 16 - n
			for k := range warm {
				switch rng.IntN(10) {
				case 0:
					i := rng.IntN(n)
					weights[i] = uint16(1 + rng.IntN(maxW))
					_, _ = w.Observe(1, i, big, weights[i])
				case 1:
					if extra > 0 {
						_, _ = w.Observe(1, n+rng.IntN(extra), uint32(k%3), 7) // entries that drop out
					}
				default:
					_, _, _ = w.Grant(1)
				}
			}
			// Entries outside 0..n−1 must not be eligible in the window.
			for i := n; i < 16; i++ {
				if e, ok := w.Entry(i); ok && e.Eligible {
					_ = w.Remove(2, i)
				}
			}
			got := make([]int64, 16)
			for range window {
				i, ok, err := w.Grant(3)
				if err != nil || !ok {
					return "no grant"
				}
				got[i]++
			}
			var F int64
			for _, x := range weights {
				F += int64(x)
			}
			for k := range n {
				wk := int64(weights[k])
				dev := got[k]*F - int64(window)*wk
				bound := 2 * wk * (F - wk)
				if dev > bound || -dev > bound {
					return fmt.Sprintf("entry %d weight %d of %d: %d grants in %d, bound %d/%d", k, wk, F, got[k], window, bound, F)
				}
				if bound > 0 {
					worst = max(worst, float64(max(dev, -dev))/float64(bound))
				}
			}
			return ""
		},
		gen.UInt64().WithLabel("seed"),
		gen.IntRange(1, 12).WithLabel("entries"),
		gen.IntRange(1, 40).WithLabel("largest weight"),
		gen.IntRange(0, 500).WithLabel("warm-up events"),
		gen.IntRange(1, 3000).WithLabel("window W"),
	))
	props.TestingRun(t)
	t.Logf("largest deviation seen: %.2f of the bound", worst)
}

// TestWRRLongRunShare: from a round boundary, m whole rounds give each
// entry exactly m·w_k grants (the closed form with no error).
func TestWRRLongRunShare(t *testing.T) {
	w := newWRR(t, credit.WRRConfig{Entries: 5, Credit: 1, C0: 1<<31 - 1})
	weights := []uint16{1, 7, 3, 0, 12} // F = 0 weighs 1
	F := 0
	for i, f := range weights {
		_, _ = w.Observe(0, i, 1<<30, f)
		F += int(max(f, 1))
	}
	got := make([]int, 5)
	for range 100 * F {
		i, _, _ := w.Grant(0)
		got[i]++
	}
	require.EqualValues(t, 99, w.Round()) // rounds 0..99; the first is round 0
	for i, f := range weights {
		require.Equal(t, 100*int(max(f, 1)), got[i], "entry %d", i)
	}
}

// FuzzWRR drives the scheduler and the reference model with operations
// drawn from the fuzzer's bytes; they must agree at every step.
func FuzzWRR(f *testing.F) {
	f.Add(uint8(3), uint16(1000), []byte{1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add(uint8(12), uint16(1), []byte{255, 0, 255, 0, 17, 99})
	f.Fuzz(func(t *testing.T, entries uint8, delta uint16, b []byte) {
		n := 1 + int(entries)%16
		cfg := credit.WRRConfig{Entries: n, Credit: units.Bytes(1 + int(delta)%4096), C0: 10 * units.KB}
		w, err := credit.NewWRR(cfg)
		if err != nil {
			t.Fatal(err)
		}
		m := newWRRRef(cfg)
		rng := rand.New(&cbfcBytes{b: b, tail: rand.NewPCG(uint64(len(b)), 5)})
		for step := range min(3*len(b), 3000) {
			if err := wrrRun(w, m, rng, units.Time(step), n); err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
		}
	})
}

// TestWRROwed: Owed is the number of grants that can be made before no
// entry is eligible, counted independently by granting until Grant says
// none (over random tables, with S ahead of C by whole and partial
// credits, across the 32-bit wrap); a copy (CopyFrom) grants the same
// sequence as its source and leaves the source as it was.
func TestWRROwed(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	for range 200 {
		cfg := credit.WRRConfig{Entries: 1 + rng.IntN(8), Credit: units.Bytes(1 + rng.IntN(3000)), C0: units.Bytes(rng.IntN(20000))}
		w := newWRR(t, cfg)
		base := uint32(rng.Uint64()) // anywhere, across the wrap
		for src := range cfg.Entries {
			if rng.IntN(4) == 0 {
				continue
			}
			_, err := w.Observe(0, src, base, uint16(rng.IntN(4)))
			require.NoError(t, err)
			_, err = w.Observe(0, src, base+uint32(rng.IntN(50000)), uint16(rng.IntN(4)))
			require.NoError(t, err)
		}
		owed := w.Owed()
		cp := newWRR(t, cfg)
		require.NoError(t, cp.CopyFrom(w))
		before := w.AppendRegisters(nil)
		var ahead []int
		for {
			a, ok, err := cp.Grant(1)
			require.NoError(t, err)
			if !ok {
				break
			}
			ahead = append(ahead, a)
		}
		require.Equal(t, before, w.AppendRegisters(nil), "granting on the copy leaves the source alone")
		var got []int
		for {
			b, ok, err := w.Grant(1)
			require.NoError(t, err)
			if !ok {
				break
			}
			got = append(got, b)
		}
		require.Equal(t, ahead, got, "the copy grants as its source does")
		require.Equal(t, uint64(len(got)), owed)
		require.Zero(t, w.Owed())
	}
	small := newWRR(t, credit.WRRConfig{Entries: 1, Credit: 1})
	require.ErrorIs(t, small.CopyFrom(newWRR(t, credit.WRRConfig{Entries: 2, Credit: 1})), cc.ErrEvent)
}
