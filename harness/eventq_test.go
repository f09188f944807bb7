package harness

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/units"
)

// TestEventQueueOrder: whatever the push order, pops come out sorted by
// time and, at equal times, in push order (the reference is a stable sort).
func TestEventQueueOrder(t *testing.T) {
	params := gopter.DefaultTestParametersWithSeed(1)
	params.MinSuccessfulTests = 200
	props := gopter.NewProperties(params)
	props.Property("pop order = stable sort by time", prop.ForAll(
		func(times []int64, interleave []bool) bool {
			var q eventQueue
			type ref struct {
				at  units.Time
				seq int32
			}
			var want, got []ref
			next := 0
			for i, at := range times {
				q.push(event{at: units.Time(at), idx: int32(i)})
				want = append(want, ref{units.Time(at), int32(i)})
				// Interleave pops with pushes: popped events must still
				// come out in order relative to what is left.
				if i < len(interleave) && interleave[i] && q.len() > 0 {
					e := q.pop()
					got = append(got, ref{e.at, e.idx})
					next++
				}
			}
			for q.len() > 0 {
				e := q.pop()
				got = append(got, ref{e.at, e.idx})
			}
			if len(got) != len(want) {
				return false
			}
			// Without interleaving the order is exactly the stable sort.
			sort.SliceStable(want, func(a, b int) bool { return want[a].at < want[b].at })
			if next == 0 {
				for i := range want {
					if want[i] != got[i] {
						return false
					}
				}
			}
			// With interleaving: every pop is the minimum of what was queued,
			// so equal times still come out in push order.
			last := map[units.Time]int32{}
			for _, r := range got {
				if p, ok := last[r.at]; ok && p > r.seq {
					return false
				}
				last[r.at] = r.seq
			}
			return true
		},
		gen.SliceOf(gen.Int64Range(0, 50)).WithLabel("times"),
		gen.SliceOf(gen.Bool()).WithLabel("interleave"),
	))
	props.TestingRun(t)
}

// TestEventQueueMatchesHeap: the calendar queue pops exactly what the
// 4-ary heap alone pops, over seeded random schedules whose delays mix
// ties, slot-mates, calendar wrap-arounds and far timers, with pushes
// between pops, a few of them (unlike a run's) before the last event popped.
func TestEventQueueMatchesHeap(t *testing.T) {
	const width = 1 << calShift
	delays := []func(r *rand.Rand) units.Time{
		func(*rand.Rand) units.Time { return 0 },                                              // same instant
		func(r *rand.Rand) units.Time { return units.Time(r.Int64N(4)) },                      // near ties
		func(r *rand.Rand) units.Time { return units.Time(r.Int64N(width)) },                  // slot-mates
		func(r *rand.Rand) units.Time { return units.Time(r.Int64N(calSlots * width)) },       // within a turn
		func(r *rand.Rand) units.Time { return units.Time(calSlots*width - 1 + r.Int64N(3)) }, // the turn's edge
		func(r *rand.Rand) units.Time { return units.Time(r.Int64N(100 * calSlots * width)) }, // far
		func(r *rand.Rand) units.Time { return -units.Time(r.Int64N(2 * width)) },             // the past (the heap takes it)
	}
	for seed := uint64(1); seed <= 50; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		var q eventQueue
		var ref eventHeap
		var seq uint64
		now := units.Time(0)
		for step := 0; step < 5000; step++ {
			if r.IntN(3) > 0 || q.len() == 0 {
				e := event{at: now + delays[r.IntN(len(delays))](r), idx: int32(step), kind: evTest}
				q.push(e)
				e.seq = seq
				seq++
				ref.push(e)
				continue
			}
			got, want := q.pop(), ref.pop()
			require.Equal(t, want.at, got.at, "seed %d step %d", seed, step)
			require.Equal(t, want.idx, got.idx, "seed %d step %d", seed, step)
			now = got.at
		}
		require.Equal(t, len(ref.ev), q.len())
		for q.len() > 0 {
			got, want := q.pop(), ref.pop()
			require.Equal(t, want.idx, got.idx, "seed %d drain", seed)
		}
	}
}

func TestTimerSlot(t *testing.T) {
	ts := timerSlot{at: units.MaxTime}
	require.False(t, ts.want(units.MaxTime), "no deadline, no event")
	require.True(t, ts.want(100))
	require.False(t, ts.want(150), "a later deadline waits for the pending event")
	require.True(t, ts.want(50), "an earlier one needs its own event")
	ts.fired(50)
	require.Equal(t, units.MaxTime, ts.at)
	require.True(t, ts.want(150))
	ts.fired(100) // the stale event from want(100) fires before 150
	require.Equal(t, units.Time(150), ts.at, "a stale event does not clear the pending one")
}

func TestHistogramBuckets(t *testing.T) {
	check := func(v uint64) {
		b := histBucket(units.Bytes(v))
		low, w := histRange(b)
		if v < low || v >= low+w {
			t.Fatalf("value %d in bucket %d = [%d, %d)", v, b, low, low+w)
		}
		// Exact below 128 B, then bucket width at most 1/64 of the value.
		if (v < 1<<histExactBits && w != 1) || (v >= 1<<histExactBits && w*64 > v) {
			t.Fatalf("value %d: bucket width %d", v, w)
		}
		if b > 0 {
			if pl, pw := histRange(b - 1); low != pl+pw {
				t.Fatalf("buckets %d and %d do not tile: %d+%d != %d", b-1, b, pl, pw, low)
			}
		}
	}
	for v := uint64(0); v < 1<<18; v++ {
		check(v)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		check(r.Uint64N(1 << 40))
	}
}

func TestJain(t *testing.T) {
	require.Equal(t, 1.0, Jain([]float64{3, 3, 3}))
	require.InDelta(t, 0.25, Jain([]float64{1, 0, 0, 0}), 1e-12) // 1/n
	// (1+2+3)² / (3·(1+4+9)) = 36/42
	require.InDelta(t, 36.0/42, Jain([]float64{1, 2, 3}), 1e-12)
	require.Zero(t, Jain(nil))
	require.Zero(t, Jain([]float64{0, 0}))
}

// BenchmarkEventQueue measures the heap alone: a hold model with n
// pending events, each pop followed by one push at a later time.
func BenchmarkEventQueue(b *testing.B) {
	for _, n := range []int{64, 4096} {
		b.Run(fmt.Sprintf("pending=%d", n), func(b *testing.B) {
			var q eventQueue
			r := rand.New(rand.NewPCG(1, 1))
			gaps := make([]units.Time, 1024)
			for i := range gaps {
				gaps[i] = units.Time(1 + r.Int64N(1_000_000))
			}
			for i := range n {
				q.push(event{at: gaps[i%len(gaps)], kind: evTest})
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				e := q.pop()
				e.at += gaps[i&(len(gaps)-1)]
				q.push(e)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}
