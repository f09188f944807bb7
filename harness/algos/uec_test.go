package algos

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/units"
)

// uecRun runs built-in name under algo.
func uecRun(t *testing.T, name, algo string) *harness.Result {
	t.Helper()
	sc, err := harness.Builtin(name)
	require.NoError(t, err)
	r, err := harness.Run(sc.ForAlgorithm(algo), harness.Options{NoSeries: true})
	require.NoError(t, err)
	require.Equal(t, algo, r.Report.Algorithm)
	require.Empty(t, r.Report.Errors, "%s under %s", name, algo)
	return r
}

// uecFCTs returns the flows' FCTs, sorted, after checking that every flow
// finished and delivered its bytes exactly once, that no byte was lost
// (every payload byte sent was received, trimmed or is in flight, none
// dropped), and, on the trimming fabric, that every trimmed byte was
// resent once and nothing arrived twice.
func uecFCTs(t *testing.T, r *harness.Result) []units.Time {
	t.Helper()
	c := r.Counters
	require.Zero(t, c.Drops, "no frame lost")
	require.Zero(t, c.DroppedDataPayload)
	require.Equal(t, c.DataSentPayload, c.DataRecvPayload+c.InFlightDataPayload+c.TrimmedPayload)
	require.Zero(t, c.DuplicatePayload, "no byte delivered twice")
	require.Zero(t, c.Timeouts)
	require.Equal(t, c.TrimmedPayload, c.RetransmittedPayload, "each trimmed byte resent once")
	var fcts []units.Time
	for _, f := range r.Flows {
		require.GreaterOrEqual(t, f.Finish, units.Time(0), "flow %d finished", f.ID)
		require.Equal(t, f.Size, f.Delivered, "flow %d delivered its bytes once", f.ID)
		fcts = append(fcts, f.FCT)
	}
	slices.Sort(fcts)
	return fcts
}

// The incast of 16 × 2 MB into h0 on the k = 8 fat tree (uec-incast).
//
// The done-when numbers: under NSCC with RCCC (uec) every flow finishes,
// no byte is lost or delivered twice, and the last flow ends within 10 %
// of the ideal 2.56 ms (32 MB at 100 Gb/s; the frames' headers alone
// add 0.7 %, so no run can end before 2.578 ms).
//
// What the consortium's model shows on its 16-node incast (15 × 2 MB,
// validate_outputs/validate_uec_*.out): the last flow within 3.3 % of the
// ideal under each scheme; with the receiver's pacer (rccc, uec) the flows
// finish together (first/last FCT 1.04, 1.03), under NSCC alone they do
// not (1.95). The test asserts the same regimes: all three schemes finish
// within 10 % of the ideal, rccc's and uec's first and last FCTs within
// 10 % of each other, nscc's more than 30 % apart. HPCC and DCQCN, on the
// lossless fabric, finish every flow with no drop.
func TestUECIncast(t *testing.T) {
	ideal := float64(uecIdealIncast)
	for _, algo := range []string{uecName, rcccName, nsccName} {
		r := uecRun(t, uecIncastName, algo)
		fcts := uecFCTs(t, r)
		last, first := fcts[len(fcts)-1], fcts[0]
		require.Len(t, fcts, uecSenders)
		require.GreaterOrEqual(t, float64(last), ideal*(1+62.0/float64(uecPayload)), "%s: no faster than the line rate", algo)
		require.LessOrEqual(t, float64(last), 1.1*ideal, "%s: last flow within 10 %% of 2.56 ms", algo)
		require.Positive(t, r.Counters.Trims, "%s: the incast trims", algo)
		require.Zero(t, r.Report.PFC.Pauses, "%s: a lossy fabric", algo)
		if algo == nsccName {
			require.Greater(t, float64(last)/float64(first), 1.3, "nscc: the flows do not finish together")
		} else {
			require.Less(t, float64(last)/float64(first), 1.1, "%s: the pacer's round robin finishes them together", algo)
		}
		t.Logf("%s: last FCT %v (%.2f × ideal), first %v, %d trims, %d NACKs, %v resent", algo, last, float64(last)/ideal, first,
			r.Counters.Trims, r.Counters.Nacks, units.Bytes(r.Counters.RetransmittedPayload))
	}
	for _, algo := range []string{hpccName, dcqcnName} {
		r := uecRun(t, uecIncastName, algo)
		fcts := uecFCTs(t, r)
		require.Zero(t, r.Counters.Trims, "%s: the lossless fabric", algo)
		t.Logf("%s: last FCT %v", algo, fcts[len(fcts)-1])
	}
}

// The permutation at full load (uec-permutation): every flow of every
// scheme finishes with no byte lost or delivered twice. What the model
// shows for single-path permutations (ECMP, as the harness routes;
// validate_uec_{sender,rcv}.out, "Large permutation (1024 nodes), single
// path"): NSCC alone resends a few percent of the packets (25 621 of
// 501 760, 5.1 %), RCCC alone more than it sends new (751 044 of 501 760):
// the receiver's pacer cannot see the core's collisions, the sender's
// window can. The test asserts those regimes: under nscc and uec under 10 %
// of the payload resent, under rccc more than half.
func TestUECPermutation(t *testing.T) {
	hosts := uecK * uecK * uecK / 4
	total := float64(hosts) * float64(uecSize)
	for _, algo := range []string{uecName, nsccName, rcccName, hpccName, dcqcnName} {
		r := uecRun(t, uecPermName, algo)
		fcts := uecFCTs(t, r)
		require.Len(t, fcts, hosts)
		resent := float64(r.Counters.RetransmittedPayload) / total
		switch algo {
		case uecName, nsccName:
			require.Less(t, resent, 0.10, algo)
		case rcccName:
			require.Greater(t, resent, 0.5, algo)
		default:
			require.Zero(t, r.Counters.Trims, algo)
		}
		t.Logf("%s: FCT median %v, last %v, resent %.1f %%", algo, fcts[len(fcts)/2], fcts[len(fcts)-1], 100*resent)
	}
}

// The permutation has no fixed point and is one cycle (Sattolo).
func TestUECPermutationIsACycle(t *testing.T) {
	p := uecPermutation(128)
	seen := map[int]bool{}
	i := 0
	for range 128 {
		require.NotEqual(t, i, p[i], "a host sends to itself")
		require.False(t, seen[i])
		seen[i] = true
		i = p[i]
	}
	require.Equal(t, 0, i, "one cycle through every host")
}
