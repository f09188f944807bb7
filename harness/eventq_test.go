package harness

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
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

// queueUnderTest is what the differential test drives: eventQueue with its
// own push or with Brown's sorted slots (pushSorted), or fixedCalendar.
type queueUnderTest struct {
	name string
	push func(event)
	pop  func() event
	len  func() int
	geom func() (shift uint, slots int) // the geometry now, for the delays and the coverage count
}

func queuesUnderTest() []func() queueUnderTest {
	return []func() queueUnderTest{
		func() queueUnderTest {
			q := new(eventQueue)
			return queueUnderTest{"eventQueue", q.push, q.pop, q.len, func() (uint, int) { return q.shift, len(q.head) }}
		},
		func() queueUnderTest {
			q := new(eventQueue)
			return queueUnderTest{"eventQueue sorted slots", q.pushSorted, q.pop, q.len, func() (uint, int) { return q.shift, len(q.head) }}
		},
		func() queueUnderTest {
			q := new(fixedCalendar)
			return queueUnderTest{"fixedCalendar", q.push, q.pop, q.len, func() (uint, int) { return fixedCalShift, fixedCalSlots }}
		},
	}
}

// TestEventQueueMatchesHeap: every queue pops exactly what the 4-ary heap
// alone pops, over seeded random schedules. Each schedule is a series of
// phases, each driving the population towards a target (a few events to
// 30 000) with delays on a scale of its own (1 ps to 1 ms), so that
// eventQueue re-chooses its slot width and count many times (the test
// counts the geometries it went through). The delays mix ties, slot-mates
// and the edge of the slots at the queue's current geometry, far timers,
// and (unlike a run's) the past.
func TestEventQueueMatchesHeap(t *testing.T) {
	for i, mk := range queuesUnderTest() {
		name := mk().name
		seeds := uint64(8) // eventQueue's; fewer for the benchmarks' other candidates
		if i > 0 {
			seeds = 3
		}
		geoms := map[[2]int]bool{}
		for seed := uint64(1); seed <= seeds; seed++ {
			q := mk()
			r := rand.New(rand.NewPCG(seed, 7))
			var ref eventHeap
			var seq uint64
			now := units.Time(0)
			delay := func(scale units.Time) units.Time {
				shift, slots := q.geom()
				width := units.Time(1) << shift
				// The slots' reach, capped so that 100 of them fit in 63 bits.
				year := max(min(units.Time(slots)*width, 1<<50), 1) // 0 slots before the first push
				switch r.IntN(8) {
				case 0:
					return 0 // the same instant
				case 1:
					return units.Time(r.Int64N(4)) // near ties
				case 2:
					return units.Time(r.Int64N(int64(width))) // slot-mates
				case 3:
					return year - 1 + units.Time(r.Int64N(3)) // the slots' edge
				case 4:
					return units.Time(r.Int64N(100 * int64(year))) // far
				case 5:
					return -units.Time(r.Int64N(2 * int64(width))) // the past
				default:
					return units.Time(r.Int64N(int64(scale))) // the phase's own
				}
			}
			check := func(phase, step int) {
				got, want := q.pop(), ref.pop()
				if got.at != want.at || got.idx != want.idx {
					t.Fatalf("%s seed %d phase %d step %d: popped %d at %v, want %d at %v", q.name, seed, phase, step, got.idx, got.at, want.idx, want.at)
				}
				now = max(now, got.at)
			}
			var last [2]int
			for phase := range 10 {
				target := int(math.Exp(r.Float64() * math.Log(30000)))
				scale := units.Time(1) << r.IntN(31)
				for step := range 2*target + 2000 {
					if q.len() == 0 || (q.len() < target) == (r.IntN(4) > 0) {
						e := event{at: now + delay(scale), idx: int32(phase<<24 | step), kind: evTest}
						q.push(e)
						e.seq = seq
						seq++
						ref.push(e)
					} else {
						check(phase, step)
					}
					if shift, slots := q.geom(); last != [2]int{int(shift), slots} {
						last = [2]int{int(shift), slots}
						geoms[last] = true
					}
				}
			}
			require.Equal(t, len(ref.ev), q.len())
			for q.len() > 0 {
				check(-1, -1)
			}
		}
		t.Logf("%s: %d geometries", name, len(geoms))
		if i == 0 {
			require.Greater(t, len(geoms), 10, "the schedules make eventQueue adapt")
		}
	}
}

// TestEventQueueLargePopulation: a hold model at 300 000 pending events
// (delays of the 1024-host fat tree's mix, holdDelays) pops exactly what
// the heap pops, in a geometry adapted to them: its events popped per slot
// within a factor 2 of eventPerSlot, and slots reaching as far as the
// delays of the mix's arrivals.
func TestEventQueueLargePopulation(t *testing.T) {
	const n = 300_000
	delays := holdDelays(realisticMix, 1)
	var q eventQueue
	var ref eventHeap
	r := rand.New(rand.NewPCG(2, 3))
	for i := range n {
		e := event{at: units.Time(r.Int64N(int64(units.Microsecond))), idx: int32(i), kind: evTest}
		q.push(e)
		e.seq = uint64(i)
		ref.push(e)
	}
	seq := uint64(n)
	slotsPopped, refills := 0, 0
	for i := range 3 * n {
		got, want := q.pop(), ref.pop()
		if got.at != want.at || got.idx != want.idx {
			t.Fatalf("pop %d: popped %d at %v, want %d at %v", i, got.idx, got.at, want.idx, want.at)
		}
		if q.bi == len(q.bot) {
			refills++
		}
		e := event{at: got.at + delays[(i+n)&(len(delays)-1)], idx: int32(n + i), kind: evTest}
		q.push(e)
		e.seq = seq
		seq++
		ref.push(e)
		slotsPopped++
	}
	// adapt keeps ρ, the events popped per slot width, within a factor 2
	// of eventPerSlot; at Poisson density ρ a non-empty slot holds
	// ρ/(1 − e^−ρ) events on average.
	perSlot := float64(slotsPopped) / float64(refills)
	t.Logf("shift %d, %d slots, %.2f events popped per non-empty slot", q.shift, len(q.head), perSlot)
	nonEmpty := func(rho float64) float64 { return rho / (1 - math.Exp(-rho)) }
	require.GreaterOrEqual(t, perSlot, nonEmpty(eventPerSlot/2.0))
	require.LessOrEqual(t, perSlot, nonEmpty(eventPerSlot*2.0))
	// 99.4 % of the mix's delays are at most an arrival's, 1 µs plus a
	// 1124-byte frame's serialisation; the slots hold all but 1/32 of the
	// pushes, so they reach that far.
	reach := units.Time(len(q.head)) << q.shift
	require.GreaterOrEqual(t, reach, units.Microsecond+units.SerializationTime(1124, 100*units.Gbps))
	for q.len() > 0 {
		if got, want := q.pop(), ref.pop(); got.idx != want.idx {
			t.Fatalf("drain: popped %d, want %d", got.idx, want.idx)
		}
	}
	_, ok := q.popUntil(units.MaxTime)
	require.False(t, ok, "empty")
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

// delayMix names a distribution of the delays of pushed events (from the
// time of the event popped before) for the hold model.
type delayMix int

const (
	// realisticMix is what the 1024-host fat tree pushes under Poisson
	// WebSearch traffic at load 0.5, 1000 B payloads, 100 Gb/s and 1 µs
	// links (counted by event kind in a run of 100 µs, 1.7 M events): for
	// every frame put on a wire, its end of serialisation and its arrival
	// 1 µs later; half of the frames are data frames (1084–1124 wire
	// bytes with INT: 87–90 ns), half ACKs (88–128 bytes: 7–10 ns); 3.7 %
	// NIC wake-ups, three quarters of them 1 ps ahead, the rest spread
	// log-uniformly up to 262 ns; 0.06 % far timers (a retransmission
	// timeout 1 ms ahead, an exponential Poisson gap of mean 274 µs).
	realisticMix delayMix = iota
	// burstyMix is events in clumps over ten decades: a quarter at the
	// same instant, a quarter exactly 1 µs ahead, a quarter exactly 86.56
	// ns ahead (one full frame's serialisation), a quarter log-uniform from
	// 1 ps to 10 ms.
	burstyMix
)

func (m delayMix) String() string { return [...]string{"realistic", "bursty"}[m] }

// holdDelays returns 4096 delays drawn from mix with the given seed.
func holdDelays(mix delayMix, seed uint64) []units.Time {
	r := rand.New(rand.NewPCG(seed, 3))
	logUniform := func(lo, hi float64) units.Time {
		return units.Time(lo * math.Exp(r.Float64()*math.Log(hi/lo)))
	}
	ser := func(b units.Bytes) units.Time { return units.SerializationTime(b, 100*units.Gbps) }
	d := make([]units.Time, 4096)
	for i := range d {
		switch mix {
		case realisticMix:
			var frame units.Bytes
			if r.IntN(2) == 0 {
				frame = 1084 + 8*units.Bytes(r.IntN(6)) // data, INT of 0..5 hops
			} else {
				frame = 88 + 8*units.Bytes(r.IntN(6)) // ACK, INT echo
			}
			switch x := r.IntN(10000); {
			case x < 3:
				d[i] = units.Millisecond // RTO
			case x < 6:
				d[i] = units.Time(r.ExpFloat64() * float64(274*units.Microsecond)) // Poisson gap
			case x < 6+278:
				d[i] = 1 // NIC wake-up at the next instant
			case x < 6+370:
				d[i] = logUniform(256, 262_144) // paced NIC wake-up
			case x < 6+370+(10000-376)/2:
				d[i] = ser(frame) // end of serialisation
			default:
				d[i] = ser(frame) + units.Microsecond // arrival
			}
		case burstyMix:
			switch r.IntN(4) {
			case 0:
				d[i] = 0
			case 1:
				d[i] = units.Microsecond
			case 2:
				d[i] = ser(1082)
			default:
				d[i] = logUniform(1, 1e10)
			}
		}
	}
	return d
}

// holdQueue is one event queue of BenchmarkEventQueue: its push and pop.
type holdQueue interface {
	push(event)
	pop() event
}

// sortedSlots is eventQueue with Brown's sorted slots (pushSorted).
type sortedSlots struct{ eventQueue }

func (q *sortedSlots) push(e event) { q.pushSorted(e) }

// BenchmarkEventQueue: the hold model (pop one event, push one a delay
// after it, the delay drawn from a mix) with n events pending, after
// holdWarmUp untimed pops and pushes; eventQueue against eventQueue with
// sorted slots, the former fixed calendar and the 4-ary heap alone. The
// initial events are spread uniformly over 1 µs and pushed in time order,
// so that the fixed calendar's set-up does not walk its lists.
func BenchmarkEventQueue(b *testing.B) {
	queues := []struct {
		name string
		mk   func() holdQueue
	}{
		{"calendar", func() holdQueue { return new(eventQueue) }},
		{"sorted-slots", func() holdQueue { return new(sortedSlots) }},
		{"fixed-calendar", func() holdQueue { return new(fixedCalendar) }},
		{"heap", func() holdQueue { return new(eventHeapQueue) }},
	}
	for _, mix := range []delayMix{realisticMix, burstyMix} {
		delays := holdDelays(mix, 1)
		for _, n := range []int{100, 10_000, 1_000_000} {
			for _, qu := range queues {
				// The queue, built and warmed up at the first call, lives
				// on through the calls the testing package makes with
				// growing b.N: set-up once per queue and mix.
				var q holdQueue
				var step int
				b.Run(fmt.Sprintf("mix=%v/pending=%d/queue=%s", mix, n, qu.name), func(b *testing.B) {
					hold := func(k int) {
						for range k {
							e := q.pop()
							e.at += delays[step&(len(delays)-1)]
							step++
							q.push(e)
						}
					}
					if q == nil {
						q = qu.mk()
						r := rand.New(rand.NewPCG(2, 3))
						init := make([]units.Time, n)
						for i := range init {
							init[i] = units.Time(r.Int64N(int64(units.Microsecond)))
						}
						slices.Sort(init)
						for _, at := range init {
							q.push(event{at: at, kind: evTest})
						}
						hold(holdWarmUp)
					}
					b.ReportAllocs()
					b.ResetTimer()
					hold(b.N)
					b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
				})
			}
		}
	}
}

// holdWarmUp is the pops and pushes BenchmarkEventQueue makes before it
// measures: 16 of eventQueue's epochs, for its geometry to settle (the
// initial events, uniform over 1 µs, are already close to the realistic
// mix's steady state).
const holdWarmUp = 16 * eventEpoch

// eventHeapQueue is eventHeap with a push that stamps the sequence number.
type eventHeapQueue struct {
	eventHeap
	seq uint64
}

func (q *eventHeapQueue) push(e event) {
	e.seq = q.seq
	q.seq++
	q.eventHeap.push(e)
}
