package harness

import (
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/units"
)

// TestQueuePercentilesAgainstSortedOracle drives the time-weighted queue
// statistics with random (length, duration) steps and compares them with an
// exact oracle: the weighted quantile of the sorted steps. The histogram
// reports a bucket midpoint: exact below 128 B, and within half a bucket
// (1/128 of the value, 0.8 %) above; the mean and the maximum are exact.
func TestQueuePercentilesAgainstSortedOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for trial := 0; trial < 50; trial++ {
		s := &Sim{from: 1000, to: 1000 + 1_000_000}
		q := &qstat{hist: make([]int64, histBucket(8*units.MB)+1)}
		type step struct {
			v  units.Bytes
			dt units.Time
		}
		var steps []step
		var area float64
		s.now = 0
		for s.now < s.to {
			v := units.Bytes(rng.Int64N(1 << uint(rng.IntN(22)+1)))
			dt := units.Time(rng.Int64N(50_000) + 1)
			s.qAdvance(q)
			q.cur = v
			end := min(s.now+dt, s.to)
			if a := max(s.now, s.from); end > a {
				steps = append(steps, step{v, end - a})
				area += float64(v) * float64(end-a)
			}
			s.now += dt
		}
		s.now = s.to
		s.qAdvance(q)
		sort.Slice(steps, func(i, j int) bool { return steps[i].v < steps[j].v })
		total := float64(s.to - s.from)
		require.InEpsilon(t, area, q.area, 1e-12)
		for _, p := range []float64{0.5, 0.95, 0.99, 1} {
			var cum float64
			var want units.Bytes
			for _, st := range steps {
				cum += float64(st.dt)
				if cum >= p*total {
					want = st.v
					break
				}
			}
			got := q.percentile(p)
			tol := float64(want) / 128 // half a bucket of width ≤ value/64
			if want < 128 {
				tol = 0
			}
			require.InDelta(t, float64(want), float64(got), tol+0.5, "trial %d p%.0f", trial, p*100)
		}
	}
}
