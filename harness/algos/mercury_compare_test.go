package algos

import (
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/units"
)

// mercuryCNPCounter counts the CNPs a flow's reaction point is given:
// all of them, and those within [from, to), the first of which came at
// first (−1 before any).
type mercuryCNPCounter struct {
	cc.ReactionPoint
	from, to   units.Time
	all, inWin int
	first      units.Time
}

func (c *mercuryCNPCounter) Feedback(now units.Time, f *cc.Feedback, act *cc.Actions) error {
	if f.Kind == cc.FeedbackCNP {
		c.all++
		if now >= c.from && now < c.to {
			if c.inWin == 0 {
				c.first = now
			}
			c.inWin++
		}
	}
	return c.ReactionPoint.Feedback(now, f, act)
}

// mercuryFig9CNPs are the CNPs of one run: the victim F1's over the whole
// run, the culprit F2's during the burst and when the first of those came
// (−1: none).
type mercuryFig9CNPs struct {
	victim, culprit int
	culpritFirst    units.Time
}

// mercuryFig9Run runs mercury-fig9 under algo and returns the result and
// the CNPs F1 received and F2 received during the burst (the measurement
// window).
func mercuryFig9Run(t *testing.T, algo string) (r *harness.Result, cnps mercuryFig9CNPs) {
	t.Helper()
	sc, err := harness.Builtin(mercuryFig9Name)
	require.NoError(t, err)
	sc = sc.ForAlgorithm(algo)
	var counters [2]*mercuryCNPCounter
	r, err = harness.Run(sc, harness.Options{NoSeries: true, Wrap: func(at harness.Place, p cc.Part) cc.Part {
		if rp, ok := p.(cc.ReactionPoint); ok && at.Flow >= 0 && at.Flow < 2 {
			c := &mercuryCNPCounter{ReactionPoint: rp, from: mercuryBurstAt, to: mercuryBurstAt + mercuryBurstLength, first: -1}
			counters[at.Flow] = c
			return c
		}
		return p
	}})
	require.NoError(t, err)
	require.Nil(t, r.Report.Errors, "%s: the state machines refused events", algo)
	return r, mercuryFig9CNPs{victim: counters[0].all, culprit: counters[1].inWin, culpritFirst: counters[1].first}
}

// TestMercuryFig9Compare: [Mercury] Figure 9 under the six systems
// (docs/scenarios.md, "Mercury's comparisons"). Over the burst (3 to 3.5
// ms), with F1 the victim h0_0→h1_0 and F2 the culprit h0_1→h2_0, both
// offered 20 Gb/s:
//
//   - Fig. 9b, as the paper reports: Mercury keeps the victim (at least
//     95 % of 20 Gb/s; measured 20.0), DCQCN and DCQCN+TCD take it below
//     75 % (measured 11.2 and 11.0), and s1 pauses s0's port toward s1
//     under each of them (PFC spreads to the victim's port).
//   - Where hwcc differs: under TIMELY, HPCC and PACC the victim keeps
//     its rate (measured 20.0, 20.3 and 20.0), because s0's port toward s1
//     is never paused (0 pauses, against 9 and 10 under DCQCN+TCD and
//     DCQCN): their F2 slows before its bytes in s1 reach Xoff, so PFC
//     never spreads to the port F1 shares with it. The paper shows all
//     three slowing the victim. PACC's switch notifies F2 from s1's
//     queue toward s2 as it builds, without the trip through the burst's
//     queues to h2_0 and back that DCQCN's CNPs take: F2's first CNP of
//     the burst comes before DCQCN's (measured 3.057 against 3.097 ms),
//     and with CNPs up to every 4 µs the paper's reaction point cuts it
//     every 50 µs from there (with CNPs spaced by 80 µs, its 55 µs
//     increase timer undoes part of each cut, and the victim falls to 9.3
//     Gb/s).
//   - Why DCQCN and DCQCN+TCD lose it: the victim receives no CNP in the
//     whole run, under PACC neither; its loss is PFC's head-of-line
//     blocking at the paused port, which no marking rule changes, so
//     DCQCN+TCD loses it as DCQCN does (the paper: TCD "can identify
//     victim flows", yet the victim drops to 5 Gb/s).
//   - TCD's states at work: the culprit F2 receives fewer CNPs under
//     DCQCN+TCD than under DCQCN (measured 17 against 50): s1's port
//     toward s2, which s2 pauses, is undetermined and does not mark.
//   - Fig. 9a: every system slows the culprit below 20 % of its 20 Gb/s
//     (all measured 2.8 but Mercury's), and Mercury the most (1.4 Gb/s).
func TestMercuryFig9Compare(t *testing.T) {
	const victim = float64(mercuryVictimRate)
	res := map[string]*harness.Result{}
	cnps := map[string]mercuryFig9CNPs{}
	for _, a := range mercuryCompareAll {
		res[a], cnps[a] = mercuryFig9Run(t, a)
		t.Logf("%-8s F1 %.2f Gb/s, F2 %.2f Gb/s, s0->s1 pauses %d, CNPs to F1 %d (run), to F2 %d (burst, the first at %v)", a,
			res[a].Flows[0].Throughput/1e9, res[a].Flows[1].Throughput/1e9, mercuryPauses(t, res[a], "s0->s1"), cnps[a].victim, cnps[a].culprit, cnps[a].culpritFirst)
	}
	require.GreaterOrEqual(t, res[mercuryName].Flows[0].Throughput, 0.95*victim, "Mercury keeps the victim")
	require.Zero(t, cnps[mercuryName].victim, "Mercury sends the victim no CNP")
	for _, a := range []string{dcqcnName, tcdName} {
		require.Less(t, res[a].Flows[0].Throughput, 0.75*victim, "%s slows the victim", a)
		require.Positive(t, mercuryPauses(t, res[a], "s0->s1"), "%s: PFC spreads to the victim's port", a)
	}
	for _, a := range []string{timelyName, hpccName, paccName} {
		require.GreaterOrEqual(t, res[a].Flows[0].Throughput, 0.95*victim, "%s keeps the victim in hwcc", a)
		require.Zero(t, mercuryPauses(t, res[a], "s0->s1"), "%s: the victim's port is never paused", a)
	}
	require.Zero(t, cnps[dcqcnName].victim, "DCQCN marks no packet of the victim")
	require.Zero(t, cnps[tcdName].victim, "DCQCN+TCD marks no packet of the victim")
	require.Zero(t, cnps[paccName].victim, "PACC sends the victim no CNP")
	require.Positive(t, cnps[paccName].culprit, "PACC notifies the culprit during the burst")
	require.Positive(t, cnps[dcqcnName].culprit)
	require.Less(t, cnps[paccName].culpritFirst, cnps[dcqcnName].culpritFirst, "PACC's switch notifies the culprit before DCQCN's receiver does")
	require.Less(t, cnps[tcdName].culprit, cnps[dcqcnName].culprit, "TCD's undetermined port spares the culprit some CNPs")
	for _, a := range mercuryCompareAll {
		require.Less(t, res[a].Flows[1].Throughput, 0.2*victim, "%s slows the culprit", a)
		require.LessOrEqual(t, res[mercuryName].Flows[1].Throughput, res[a].Flows[1].Throughput, "Mercury slows the culprit most (%s)", a)
	}
}

// mercuryCompareRows runs scenario name under the six systems, with the
// -set overrides in set, and returns each system's comparison row, by
// name, and its result.
func mercuryCompareRows(t *testing.T, name string, set ...string) (map[string]harness.ComparisonRow, map[string]*harness.Result) {
	t.Helper()
	sc, err := harness.Builtin(name)
	require.NoError(t, err)
	require.NoError(t, sc.SetAll(set))
	cmp, results, err := harness.Compare(sc, nil, harness.Options{NoSeries: true})
	require.NoError(t, err)
	rows, res := map[string]harness.ComparisonRow{}, map[string]*harness.Result{}
	for i, row := range cmp.Rows {
		require.Nil(t, results[i].Report.Errors, "%s under %s: the state machines refused events", name, row.Algorithm)
		rows[row.Algorithm], res[row.Algorithm] = row, results[i]
		t.Logf("%-8s %d/%d done, FCT mean %v p99 %v, bottleneck queue max %v, pauses %d", row.Algorithm, row.Finished, row.Sized,
			units.Time(row.FCTMeanNs)*units.Nanosecond, units.Time(row.FCTP99Ns)*units.Nanosecond, units.Bytes(row.QueueMaxBytes), row.PFCPauses)
	}
	return rows, res
}

// TestMercuryFig10Compare: [Mercury] Figure 10, FB_Hadoop at 80 % of the
// link between two 40 Gb/s switches (docs/scenarios.md, "Mercury's
// comparisons"). The paper reports Mercury's maximum queue 20.9 %–39.2 %
// and its 99th percentile FCT 16.1 %–25.5 % below the others'.
//
//   - As the paper reports: Mercury's bottleneck queue peaks at least 20 %
//     below TIMELY's, DCQCN's and DCQCN+TCD's (measured 347 KB against
//     465, 484 and 484 KB) and below PACC's (408 KB: 15 %, less than the
//     paper's 20.9 %), and its mean FCT is below DCQCN's and DCQCN+TCD's
//     (320 against 381 µs).
//   - Where hwcc differs: HPCC has the lowest queue (181 KB) and a lower
//     mean and 99th percentile FCT than the systems that finish every
//     flow (240 µs, 7.8 ms); Mercury's 99th percentile is within 5 % of
//     DCQCN's (11.4 ms against 11.3), and PACC's is below both (9.8 ms).
//     Here the congestion is at the first hop and PFC barely acts (0
//     pauses under Mercury and PACC, 3 under DCQCN): Mercury's port states
//     change nothing, and the tail is the largest FB_Hadoop flows (up to
//     10 MB), which after the arrivals stop (10 ms) climb back from the
//     rate their last cut left them at by the additive steps of DCQCN's
//     reaction point, which Mercury's and PACC's senders run too; PACC's
//     cuts leave them higher (docs/scenarios.md). HPCC's window targets
//     95 % of the link and keeps the queue short by design.
//   - TIMELY leaves flows unfinished after 30 ms without arrivals
//     (measured 951 of 967): its FCTs leave them out (its 130 µs mean and
//     1.3 ms p99 are those of the flows it finished).
//   - DCQCN+TCD decides exactly as DCQCN (its 3 pauses never leave a
//     queue above the threshold undetermined): the same rows.
func TestMercuryFig10Compare(t *testing.T) {
	rows, _ := mercuryCompareRows(t, mercuryFig10Name)
	me := rows[mercuryName]
	require.Equal(t, me.Sized, me.Finished, "Mercury finishes every flow")
	for _, a := range []string{timelyName, dcqcnName, tcdName} {
		require.LessOrEqual(t, float64(me.QueueMaxBytes), 0.8*float64(rows[a].QueueMaxBytes), "Mercury's queue peak 20 %% below %s's", a)
	}
	require.Less(t, me.QueueMaxBytes, rows[paccName].QueueMaxBytes, "Mercury's queue peak below PACC's")
	require.Less(t, rows[hpccName].QueueMaxBytes, me.QueueMaxBytes, "HPCC's queue is the shortest")
	for _, a := range []string{dcqcnName, tcdName} {
		require.Less(t, me.FCTMeanNs, rows[a].FCTMeanNs, "Mercury's mean FCT below %s's", a)
	}
	for _, a := range []string{mercuryName, dcqcnName, tcdName, paccName} {
		require.Less(t, rows[hpccName].FCTP99Ns, rows[a].FCTP99Ns, "HPCC's p99 FCT below %s's", a)
		require.Less(t, rows[hpccName].FCTMeanNs, rows[a].FCTMeanNs, "HPCC's mean FCT below %s's", a)
	}
	require.InEpsilon(t, float64(rows[dcqcnName].FCTP99Ns), float64(me.FCTP99Ns), 0.05, "Mercury's p99 FCT near DCQCN's")
	require.Less(t, rows[paccName].FCTP99Ns, me.FCTP99Ns, "where hwcc differs: PACC's p99 FCT below Mercury's")
	require.Less(t, rows[timelyName].Finished, rows[timelyName].Sized, "TIMELY leaves flows unfinished")
	dc, tc := rows[dcqcnName], rows[tcdName]
	tc.Algorithm, tc.Events = dc.Algorithm, dc.Events
	require.Equal(t, dc, tc, "DCQCN+TCD decides as DCQCN here")
}

// mercuryShortFlow is Figure 13's split between short and long flows:
// below 100 KB (FB_Hadoop's flows are mostly far smaller: 90 % of the
// drawn flows here; the paper names no size).
const mercuryShortFlow = 100 * units.KB

// mercuryFCT is the FCT of one class of sized flows: the mean over the
// finished ones, and the 99th percentile (nearest rank) over all that
// started, an unfinished flow counting as longer than any finished one
// (the harness's own table takes both over the finished flows, which
// would reward a system that leaves its slowest flows unfinished).
type mercuryFCT struct {
	n, done   int
	mean, p99 units.Time
}

// mercuryFCTs returns r's FCT over every sized flow, the short ones and
// the long ones.
func mercuryFCTs(r *harness.Result) (all, short, long mercuryFCT) {
	var xs [3][]units.Time
	for _, f := range r.Flows {
		if f.Size == 0 {
			continue
		}
		fct := f.FCT
		if f.Finish < 0 {
			fct = units.MaxTime
		}
		xs[0] = append(xs[0], fct)
		if f.Size < mercuryShortFlow {
			xs[1] = append(xs[1], fct)
		} else {
			xs[2] = append(xs[2], fct)
		}
	}
	var out [3]mercuryFCT
	for i, x := range xs {
		slices.Sort(x)
		c := mercuryFCT{n: len(x)}
		var sum units.Time
		for _, v := range x {
			if v != units.MaxTime {
				c.done++
				sum += v
			}
		}
		if c.done > 0 {
			c.mean = sum / units.Time(c.done)
		}
		if c.n > 0 {
			c.p99 = x[int(math.Ceil(0.99*float64(c.n)))-1]
		}
		out[i] = c
	}
	return out[0], out[1], out[2]
}

// TestMercuryFig11Compare: [Mercury] Figures 11, 12 and 13 on the
// large-scale fat tree, FB_Hadoop at load 0.5 (docs/scenarios.md,
// "Mercury's comparisons"; the numbers are the default scenario's).
//
//   - Fig. 11, as the paper reports: Mercury's mean FCT is the lowest
//     (measured 28.6 µs; the others 30.4 to 33.2).
//   - Fig. 12, as the paper reports: Mercury's 99th percentile is the
//     lowest, at least 20 % below every other's (393 µs; the others 496
//     to 599; -set seed=2: 584 µs, the others 645 to 725).
//   - Fig. 13, as the paper reports: for short flows (under 100 KB)
//     Mercury's mean and 99th percentile are below TIMELY's, DCQCN's,
//     DCQCN+TCD's and PACC's, and its mean within 5 % of HPCC's, which is
//     lower (13.6 against 13.3 µs: the paper's "only slightly higher than
//     HPCC"); for long flows its mean and 99th percentile are the lowest.
func TestMercuryFig11Compare(t *testing.T) {
	skipLongReproduction(t)
	_, res := mercuryCompareRows(t, mercuryFig11Name)
	type fcts struct{ all, short, long mercuryFCT }
	f := map[string]fcts{}
	for a, r := range res {
		all, short, long := mercuryFCTs(r)
		f[a] = fcts{all, short, long}
		t.Logf("%-8s all %d/%d mean %v p99 %v; short mean %v p99 %v; long mean %v p99 %v", a, all.done, all.n, all.mean, all.p99,
			short.mean, short.p99, long.mean, long.p99)
	}
	me := f[mercuryName]
	require.Equal(t, me.all.n, me.all.done, "Mercury finishes every flow")
	for _, a := range mercuryCompareAll[1:] {
		require.Less(t, me.all.mean, f[a].all.mean, "Fig. 11: Mercury's mean FCT below %s's", a)
		require.Less(t, me.long.mean, f[a].long.mean, "Fig. 13c: long flows' mean below %s's", a)
		require.Less(t, me.long.p99, f[a].long.p99, "Fig. 13d: long flows' p99 below %s's", a)
	}
	for _, a := range mercuryCompareAll[1:] {
		require.Less(t, float64(me.all.p99), 0.8*float64(f[a].all.p99), "Fig. 12: Mercury's p99 FCT 20 %% below %s's", a)
	}
	for _, a := range []string{timelyName, dcqcnName, tcdName, paccName} {
		require.Less(t, me.short.mean, f[a].short.mean, "Fig. 13a: short flows' mean below %s's", a)
		require.Less(t, me.short.p99, f[a].short.p99, "Fig. 13b: short flows' p99 below %s's", a)
	}
	require.Less(t, f[hpccName].short.mean, me.short.mean, "Fig. 13a: HPCC's short flows' mean lower")
	require.InEpsilon(t, float64(f[hpccName].short.mean), float64(me.short.mean), 0.05, "Fig. 13a: only slightly")
}
