package algos

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/pi"
	"github.com/hwcc/hwcc/units"
)

// Paper constants (section VI, "System parameters").
const (
	roccTestDeltaF      = 10 * units.Mbps // ΔF
	roccTestDeltaQ      = 600             // ΔQ, bytes
	roccTestFmin        = 10              // Fmin, ΔF
	roccTestPeriod      = 40 * units.Microsecond
	roccTestQref40      = 150 * units.KB
	roccTestQref100     = 300 * units.KB
	roccTestAlphaBar    = 0.3
	roccTestBetaBar     = 1.5
	roccTestQmax40      = 360 * units.KB
	roccTestQmax100     = 660 * units.KB
	roccTestAlphaBar100 = 0.45
	roccTestReaction    = 15 * units.Microsecond
	roccTestPaperConv   = 2 * units.Millisecond // "converges in ~2 ms" (VI-A a), "less than 2 ms" (VI-A b)
	// roccTestAbout2ms is the bound for Fig. 8's "~2 ms": read to its one
	// significant figure, a time that would be reported as 2 ms is below
	// 2.5 ms; faster passes too (the paper reports faster convergence for
	// larger N). Not the strict "< 2 ms" of Fig. 9: N = 2 at 40 Gb/s
	// measures exactly 2.00 ms with the idle gain.
	roccTestAbout2ms = 2500 * units.Microsecond
	// roccTestPool is the scenarios' shared pool (roccPool), the authors'
	// 5000 KB queue capacity.
	roccTestPool = 5 * units.MB
)

// roccOnOff is the value of param.idle_gain for idle.
func roccOnOff(idle bool) string {
	if idle {
		return "on"
	}
	return "off"
}

// roccSettleBand returns the half-width, in ΔF, of the band the fair rate
// must stay in to count as settled on a target of target ΔF: 5 % of the
// target (the usual settling criterion), but at least 5 ΔF. The floor is
// the ΔF quantisation: the CNP carries ⌊F⌋ whole ΔF, so at N flows one ΔF
// moves the aggregate rate by N·ΔF, 1 Gb/s = 2.5 % of the link at N = 100;
// the queue then integrates that error for several periods before the PI
// (gain ᾱ/32 = 0.0094 ΔF per ΔQ per T in the lowest AUTO_TUNE region, and
// β̄/32 = 0.047 on the queue's change) walks F back, a limit cycle of a few
// ΔF around C/N (35..43 ΔF at N = 100). A band of 5 % of 40 ΔF (2 ΔF) would
// sit inside that cycle and never "settle".
func roccSettleBand(target float64) float64 { return max(0.05*target, 5) }

// roccSettle returns the time of the first traced update after which every
// update's F is within band of target, and false if the last update is not.
func roccSettle(tr []roccTracePoint, target, band float64) (units.Time, bool) {
	i := len(tr)
	for i > 0 && math.Abs(float64(tr[i-1].f)-target) <= band {
		i--
	}
	if i == len(tr) {
		return 0, false
	}
	return tr[i].at, true
}

// roccRefRatio is AUTO_TUNE (Algorithm 1, lines 15–21) in real numbers:
// level starts at 2 and doubles while F < Fmax/level and level < 64; the
// gains are ᾱ/ratio and β̄/ratio with ratio = level/2.
func roccRefRatio(f, fmax float64) float64 {
	level := 2.0
	for f < fmax/level && level < 64 {
		level *= 2
	}
	return level / 2
}

// roccRefRamp returns the number of updates line 8 needs to raise F from
// f0 to at least target with the queue empty (Qcur = Qold = 0): each update
// adds α·Qref = (ᾱ/ratio)·Qref, the most line 8 adds while the queue stays
// empty. A real-valued reference, independent of cp's integer machine.
func roccRefRamp(f0, target, fmax, alphaBar, qref float64) int {
	f, k := f0, 0
	for f < target {
		f += alphaBar / roccRefRatio(f, fmax) * qref
		k++
	}
	return k
}

// roccModel is the settling-time model of a start or a step that sends F
// to Fmin (TestRoCCFairnessFig8): the burst lasts t1 (until the CNP of the
// update that set F = Fmin takes effect) and builds at excess = offered −
// C bit/s, up to the switch's shared pool (roccTestPool: PFC then pauses
// the senders, which resume at Fmin); it drains at D = C − N·Fmin·ΔF; then
// line 8 climbs from Fmin into the band. The drain and the climb overlap: line 8's β term raises F
// as soon as β·(Qold − Qcur) outweighs α·(Qcur − Qref), that is once the
// queue is within (β̄/ᾱ)·D·T of Qref (the ratio of the gains is the same in
// every AUTO_TUNE region), so the drain counts only down to that level.
// The model leaves out what the β term adds to F in those last updates
// (it shortens the climb, most at 100 Gb/s where D·T is largest), the
// queue the sources' recovery timers rebuild during the climb (it
// lengthens it), and the bytes that land in the PFC headroom above the
// pool after the pauses (the queue peaks near 5.4 MB, not 5 MB; it
// lengthens the drain by up to 8 %). The tests allow 25 %: each omission
// is about a tenth of the total or less in these runs, so two adding up
// stay inside it (largest measured gap: 15 %, Fig. 9's 25 → 50 flows).
type roccModel struct {
	c                        units.Rate
	n                        int
	qref                     units.Bytes
	alphaBar, betaBar        float64
	t1                       float64 // s
	excess                   float64 // bit/s
	target, band             float64 // ΔF
	burst, drain, climb, sum float64 // bytes, s, s, s
}

func (m *roccModel) eval() {
	rate := float64(m.c) - float64(m.n*roccTestFmin)*float64(roccTestDeltaF) // drain, bit/s
	m.burst = min(m.excess*m.t1/8, float64(roccTestPool))
	level := float64(m.qref) + m.betaBar/m.alphaBar*rate*roccTestPeriod.Seconds()/8
	m.drain = max(0, m.burst-level) * 8 / rate
	m.climb = float64(roccRefRamp(roccTestFmin, m.target-m.band, float64(m.c/roccTestDeltaF),
		m.alphaBar, float64(m.qref/roccTestDeltaQ))) * roccTestPeriod.Seconds()
	m.sum = m.t1 + m.drain + m.climb
}

func (m *roccModel) String() string {
	return fmt.Sprintf("model %.2f ms = burst %.0f µs (%.2f MB) + drain %.2f ms + climb %.2f ms",
		m.sum*1e3, m.t1*1e6, m.burst/1e6, m.drain*1e3, m.climb*1e3)
}

// roccRequireClean checks what every RoCC run must satisfy: no state
// machine refused an event (a malformed or misaddressed CNP among them), no
// drop, PFC headroom never exceeded, and the harness's feedback counters
// agree with the parts: the CPs' updates asked for a CNP to every flow of
// their tables, the harness sent all of them but those for flows that had
// finished or stopped (none when every flow runs to the end), and every CNP
// that reached a sender's NIC went to its RP after the NIC's reaction
// delay, but those still waiting it out when the run ended. Those arrived
// in the run's last 15 µs: a CP updates every T (20 µs or more here) and
// its CNPs take a few µs to reach the senders, so they are at most the
// CNPs of each CP's last update.
func roccRequireClean(t *testing.T, res *harness.Result, pr *roccProbe) {
	t.Helper()
	require.Nil(t, res.Report.Errors, "a state machine rejected an event")
	var handed, last, received uint64
	for _, c := range pr.cps {
		handed += c.handed
		last += c.last
	}
	for _, r := range pr.rps {
		received += r.received
	}
	require.Zero(t, res.Report.Drops)
	require.Zero(t, res.Counters.HeadroomDrops)
	require.LessOrEqual(t, res.Counters.FeedbackSent, int64(handed))
	w := res.Scenario.Workload
	endless := len(w.Incast) == 0 && w.Poisson == nil && (w.FanIn == nil || (w.FanIn.Size == 0 && w.FanIn.Stop == 0))
	for _, f := range w.Flows {
		endless = endless && f.Stop == 0 && f.Size == 0
	}
	if endless {
		require.Equal(t, int64(handed), res.Counters.FeedbackSent, "every CNP asked for was sent")
	}
	require.LessOrEqual(t, int64(received), res.Counters.FeedbackReceived)
	require.LessOrEqual(t, res.Counters.FeedbackReceived-int64(received), int64(last), "waiting out the reaction delay at the end")
	require.LessOrEqual(t, res.Counters.FeedbackReceived, res.Counters.FeedbackSent)
}

// roccPort returns the port result of link ("node->peer").
func roccPort(t *testing.T, res *harness.Result, link string) harness.PortResult {
	t.Helper()
	for _, p := range res.Ports {
		if p.Link == link {
			return p
		}
	}
	t.Fatalf("no port %s", link)
	return harness.PortResult{}
}

// roccRun runs built-in name with the key=value settings under the probe.
func roccRun(t *testing.T, name string, sets ...string) (*harness.Result, *roccProbe) {
	t.Helper()
	sc, err := harness.Builtin(name)
	require.NoError(t, err)
	require.NoError(t, sc.SetAll(sets))
	res, pr, err := roccRunProbe(t, sc, harness.Options{NoSeries: true})
	require.NoError(t, err)
	roccRequireClean(t, res, pr)
	return res, pr
}

// The tests of this file reproduce RoCC's evaluation ([RoCC]
// §VI) on the harness with the "rocc" scheme: the paper's numbers
// are the expected values; every tolerance is derived in a comment. Where a
// claim does not reproduce (the ~2 ms convergence of Fig. 8), the test
// asserts the mechanism that explains the measured value instead, and says
// so. Measurement: the probe algorithm (rocc_probe_test.go) is "rocc" with
// each CP's updates traced: the fair rate F the CNPs carry (whole ΔF) and
// the queue sampled (bytes). Throughput and queue means come from the
// harness's report over each scenario's measurement window.
//
// TestRoCCFairnessFig8 is section VI-A a (Fig. 8): N = 2, 10, 100 flows,
// each offered 90 % of the link, into one 40 Gb/s port (and 100 Gb/s,
// "consistent"). The paper: "the computed fair rate converges in ~2 ms for
// all values of N", "faster with larger N", "the egress queue at the switch
// is stable at its reference value regardless of N", and each flow gets its
// fair share C/N. Every case runs twice: Algorithm 1 as printed (the
// default) and with param.idle_gain=on (pi.Config.IdleGain, the
// idle-queue gain of the authors' earlier controller).
//
// What reproduces with both: F converges to C/N (2000, 400, 40 ΔF at
// 40 Gb/s), the queue sits at Qref (150 KB; 300 KB at 100 Gb/s), every flow
// gets C/N (Jain's index 1 to 4 digits). The steady state is the same: the
// rule acts only on a queue below Qref/8.
//
// The ~2 ms reproduces with the idle gain: measured, 40 Gb/s, N = 2 2.0 ms,
// N = 10 0.7 ms, N = 100 1.6 ms; 100 Gb/s, N = 2 1.6 ms, N = 10 1.1 ms. The
// test asserts the paper's "~2 ms" read to one significant figure
// (roccTestAbout2ms, < 2.5 ms).
//
// With Algorithm 1 as printed it does not, for small N: N = 2 6.9 ms,
// N = 10 4.0 ms at 40 Gb/s (5.7 and 3.2 ms at 100 Gb/s). Why, from
// Algorithm 1 and the paper's parameters (no harness artefact): all N flows
// start together at 90 % of the link and keep that rate until the first
// CNP takes effect (the next update, 40 µs, plus the 15 µs reaction delay),
// so the queue passes Qmax and line 3 resets F to Fmin = 10 ΔF (asserted
// below). From Fmin, line 8 raises F by at most α·Qref per update while the
// queue is empty, with α = ᾱ/32 below Fmax/32: 2.3 ΔF per 40 µs at
// 40 Gb/s. Climbing back to C/N takes (roccRefRamp) 6.2 ms for N = 2 and
// 3.6 ms for N = 10, more than 2 ms before any queue dynamics. The
// authors' published simulator has the same law and starts F at 0, so it
// climbs from Fmin too. For N = 100 the climb is short (0.4 ms) and the
// initial burst (100 × 36 Gb/s for ≈56 µs, ≈25 MB) is capped by the
// switch's 5 MB pool (PFC pauses the senders), which drains at C − N·Fmin
// = 30 Gb/s in ≈1.3 ms: 1.6 ms in all. The test asserts that the measured
// settling time agrees with this model (roccModel: burst, drain, climb) to
// within 25 % (the model's omissions are listed there).
//
// 100 Gb/s with N = 100 (1 Gb/s each) never settles into the ±5 % band,
// with or without the idle gain: F keeps cycling between about 89 and
// 109 ΔF every few updates (the range is logged), inside the band for most
// updates but never staying there. At the same N the 100 Gb/s preset's
// gains (ᾱ = 0.45, β̄ = 2.25) are 1.5 times the 40 Gb/s ones in the same
// bottom AUTO_TUNE region, and section V's analysis says the phase margin
// falls as N·α grows; at 40 Gb/s the cycle is 36..43 ΔF, inside the band.
// For that case the test asserts what holds on average: F's window mean is
// C/N, and the steady state below.
//
// Other settings (not asserted; rocc-fairness -set ...): with T = 20 µs
// (param.t=20us) the printed algorithm settles N = 10 in 2.5 ms. The
// Tofino preset (ΔQ = 80 B, so α·Qref per update is 7.5 times larger in
// ΔF) climbs fastest but is noisier. The paper's simulation setting is
// ΔQ = 600 B and T = 40 µs, which is what this test runs.
func TestRoCCFairnessFig8(t *testing.T) {
	skipLongReproduction(t)
	for _, tc := range []struct {
		c          units.Rate
		n          int
		qref, qmax units.Bytes // the port's preset: 40g or 100g
		alphaBar   float64
		cycles     bool // F cycles around C/N wider than the band (see above)
	}{
		{40 * units.Gbps, 2, roccTestQref40, roccTestQmax40, roccTestAlphaBar, false},
		{40 * units.Gbps, 10, roccTestQref40, roccTestQmax40, roccTestAlphaBar, false},
		{40 * units.Gbps, 100, roccTestQref40, roccTestQmax40, roccTestAlphaBar, false},
		// "Results for B = 100 Gb/s are consistent with those for
		// B = 40 Gb/s": the 100 Gb/s preset (Qref 300 KB, ᾱ = 0.45).
		{100 * units.Gbps, 2, roccTestQref100, roccTestQmax100, roccTestAlphaBar100, false},
		{100 * units.Gbps, 10, roccTestQref100, roccTestQmax100, roccTestAlphaBar100, false},
		{100 * units.Gbps, 100, roccTestQref100, roccTestQmax100, roccTestAlphaBar100, true},
	} {
		for _, idle := range []bool{false, true} {
			c, n := tc.c, tc.n
			t.Run(fmt.Sprintf("B=%v/N=%d/idle_gain=%s", c, n, roccOnOff(idle)), func(t *testing.T) {
				res, pr := roccRun(t, roccFairnessName, fmt.Sprintf("senders=%d", n), "link="+c.String(),
					"param.idle_gain="+roccOnOff(idle))
				cpt := pr.cp("s0", "h0")
				require.NotNil(t, cpt)
				fair := float64(c) / float64(n)              // C/N, bit/s (wire)
				target := fair / float64(roccTestDeltaF)     // C/N in ΔF
				band := roccSettleBand(target)               // see roccSettleBand
				from := units.Time(res.Scenario.MeasureFrom) // 8 ms
				to := units.Time(res.Scenario.Duration)      // 12 ms
				window := (to - from).Seconds()              // 4 ms

				// The mechanism: the first update that sees the burst takes
				// line 3 (md-min) and F = Fmin. Before it the queue is
				// building from empty: line 8, idle while below Qref/8 when
				// the rule is on.
				first := -1
				for i, tp := range cpt.trace {
					if tp.br == pi.MDMin {
						first = i
						break
					}
					require.Contains(t, []pi.Branch{pi.PI, pi.PIIdle}, tp.br, "update at %v before the first md-min", tp.at)
					if !idle {
						require.Equal(t, pi.PI, tp.br, "no idle branch without the option")
					}
				}
				require.GreaterOrEqual(t, first, 0, "line 3 never fired")
				require.Equal(t, uint32(roccTestFmin), cpt.trace[first].f)
				require.LessOrEqual(t, cpt.trace[first].at, 3*roccTestPeriod)
				// After line 3, the idle rule is what speeds the climb:
				// without the option it never applies; with it, at N ≤ 10,
				// the queue drains to empty under flows at Fmin and the
				// climb takes the idle branch. At N = 100 the 5 MB burst
				// drains for ≈1.1 ms while the β term already lifts F, so
				// the queue does not get below Qref/8 again and the rule
				// need not fire (the settling time is the same with or
				// without it).
				idleAfter := 0
				for _, tp := range cpt.trace[first:] {
					if tp.br == pi.PIIdle {
						idleAfter++
					}
				}
				switch {
				case !idle:
					require.Zero(t, idleAfter, "no idle branch without the option")
				case n <= 10:
					require.Positive(t, idleAfter, "the climb never took the idle branch")
				}

				if tc.cycles {
					// F's mean over the window is C/N: the link is busy the
					// whole window (checked below) and every flow sends at
					// the F of its last CNP, 15 µs late, so N·ΔF·mean(F)
					// over the window is what the link carried plus the
					// queue's change between the window's ends (at most its
					// range, under 400 KB: 0.8 % of C·W at 100 Gb/s over
					// 4 ms) and the lag at the edges (15 µs of 4 ms, 0.4 %);
					// 2 %.
					var sum float64
					var k int
					lo, hi := uint32(math.MaxUint32), uint32(0)
					for _, tp := range cpt.trace {
						if tp.at >= from {
							sum += float64(tp.f)
							k++
							lo, hi = min(lo, tp.f), max(hi, tp.f)
						}
					}
					require.InEpsilon(t, target, sum/float64(k), 0.02, "F's mean over the window")
					t.Logf("N=%d at %v: F cycles in [%d, %d] ΔF over the window (C/N = %.0f ΔF), mean %.1f", n, c, lo, hi, target, sum/float64(k))
				} else {
					settle, ok := roccSettle(cpt.trace, target, band)
					require.True(t, ok, "F never settled within ±%.1f ΔF of %.1f", band, target)
					// The window opens after settling (the scenario's
					// defaults are chosen so): the steady state below is
					// measured there.
					require.Less(t, settle, from)
					if idle {
						// The paper's number.
						t.Logf("N=%d: settled within ±%.1f ΔF of %.1f ΔF at %v (paper: ~%v)", n, band, target, settle, roccTestPaperConv)
						require.Less(t, settle, roccTestAbout2ms, "the paper's ~2 ms")
					} else {
						// The model: the burst lasts until the CNP of the
						// md-min update takes effect (the update, then the
						// feedback frame's 1 µs link and the reaction delay);
						// it builds at N·O − C with O = 0.9 C offered, up to
						// the pool, and drains at C − N·Fmin; then line 8
						// climbs from Fmin into the band.
						m := roccModel{c: c, n: n, qref: tc.qref, alphaBar: tc.alphaBar, betaBar: 5 * tc.alphaBar,
							t1:     (cpt.trace[first].at + 1*units.Microsecond + roccTestReaction).Seconds(),
							excess: float64(n)*0.9*float64(c) - float64(c), target: target, band: band}
						m.eval()
						t.Logf("N=%d: settled within ±%.1f ΔF of %.1f ΔF at %v (paper: ~%v); %v", n, band, target, settle, roccTestPaperConv, &m)
						require.InEpsilon(t, m.sum, settle.Seconds(), 0.25, "settling time vs the drain + climb model")
					}
				}

				// Steady state. Every flow gets C/N. The link is busy the
				// whole window (the queue never empties, checked below), so
				// the flows' wire bytes add up to C·W to within one frame;
				// all flows hear the same CNPs, so they differ only by
				// window-edge granularity (one 1082-byte frame over 4 ms:
				// 2.2 Mb/s) and by the occasional recovery doubling of a
				// flow that missed a CNP (at most 2F for 25 µs, F·25 µs/4 ms
				// = 0.6 % of F, per miss). 1 % of C/N plus one frame covers
				// one miss per flow.
				require.InDelta(t, 1.0, roccPort(t, res, "s0->h0").Utilization, 1082*8/(float64(c)*window))
				tol := 0.01*fair + 1082*8/window
				for _, f := range res.Flows {
					require.InDelta(t, fair, f.Throughput, tol, "flow %d", f.ID)
				}
				require.Greater(t, res.Report.Fairness.Jain, 0.9999)

				// The queue is stable at Qref: the time-weighted mean over
				// the window within ±10 % of Qref. Sources of deviation: the
				// floor in Qcur = ⌊q/ΔQ⌋ (+ΔQ/2 = 0.2 %), and the integral
				// action's residue: over n updates in one AUTO_TUNE region
				// line 8 gives Σ(Qcur − Qref) = −[(F_end − F_start) +
				// β·(Q_end − Q_start)]/α, so the mean error is the window's
				// net drift of F and of the queue divided by α·n. With F
				// inside the band and the queue ending near where it
				// started that is a few ΔQ at N = 2 and 10 (α = ᾱ, ᾱ/4); at
				// N = 100, α = ᾱ/32 is smallest and the ΔF limit cycle
				// (roccSettleBand, and the wider cycle at 100 Gb/s) moves
				// both F and the queue, the largest residue. The sampled
				// queue must also never empty (stable, not oscillating to
				// zero) and stay below Qmax with every update on line 8 (no
				// MD after settling; and not idle, the queue being far above
				// Qref/8).
				port := roccPort(t, res, "s0->h0")
				require.InEpsilon(t, float64(tc.qref), port.MeanBytes, 0.10, "mean queue over the window")
				inWindow := 0
				for _, tp := range cpt.trace {
					if tp.at >= from {
						inWindow++
						require.Positive(t, tp.q, "queue empty at %v", tp.at)
						require.Less(t, tp.q, tc.qmax, "queue at %v", tp.at)
						require.Equal(t, pi.PI, tp.br, "update at %v", tp.at)
					}
				}
				// One update every T over the window [8 ms, 12 ms): 100.
				require.GreaterOrEqual(t, inWindow, int((to-from)/roccTestPeriod), "updates traced in the window")
				t.Logf("N=%d: window mean queue %.0f B (Qref %d B), p99 %d B; per-flow %.4f Gb/s (C/N %.4f), Jain %.6f",
					n, port.MeanBytes, int64(tc.qref), port.P99, res.Flows[0].Throughput/1e9, fair/1e9, res.Report.Fairness.Jain)
			})
		}
	}
}

// TestRoCCConvergenceFig9 is section VI-A b (Fig. 9): 3 flows, doubling
// every 10 ms to 100, then halving back to 3, each offered 90 % of a
// 40 Gb/s link. The paper: the fair rate goes "from 13.3 Gb/s to 400 Mb/s"
// and back, and "the queue size and fair rate always stabilize in less
// than 2 ms". As TestRoCCFairnessFig8, it runs Algorithm 1 as printed and
// with param.idle_gain=on.
//
// What reproduces with both: each plateau's fair rate is C/N (1333 ΔF =
// 13.3 Gb/s at N = 3, 40 ΔF = 400 Mb/s at N = 100), the queue returns to
// Qref on every plateau, and every halving step (the flow count halves, F
// doubles: one AUTO_TUNE region of climb) settles in under 2 ms.
//
// With the idle gain every step settles in under 2 ms, as the paper says
// (measured 0.3 to 1.8 ms).
//
// With Algorithm 1 as printed the doubling steps take 1.5 to 5.8 ms (3 → 6:
// 4.6 ms). The mechanism is the one of TestRoCCFairnessFig8: the new flows
// start at 36 Gb/s, the next update sees the burst and F drops to Fmin (by
// line 3 while F > Fmax/8, else by line 8 on the burst's queue, clamped by
// line 12), and the settling time is the burst's drain at C − N·Fmin plus
// line 8's climb from Fmin back to C/N. The test checks each doubling step
// against that model (roccModel, 25 %, as in TestRoCCFairnessFig8).
func TestRoCCConvergenceFig9(t *testing.T) {
	skipLongReproduction(t)
	for _, idle := range []bool{false, true} {
		t.Run("idle_gain="+roccOnOff(idle), func(t *testing.T) {
			roccConvergenceFig9(t, idle)
		})
	}
}

func roccConvergenceFig9(t *testing.T, idle bool) {
	const c = 40 * units.Gbps
	res, pr := roccRun(t, roccConvergenceName, "param.idle_gain="+roccOnOff(idle))
	cpt := pr.cp("s0", "h0")
	require.NotNil(t, cpt)
	// The staircase: 5 steps of ≈×2 from 3 to 100, rounded (3·(100/3)^(k/5)).
	levels := []int{3, 6, 12, 25, 50, 100, 50, 25, 12, 6, 3}
	const step = 10 * units.Millisecond
	require.Equal(t, units.Time(len(levels))*step, units.Time(res.Scenario.Duration))
	for k, n := range levels {
		mid := units.Time(k)*step + step/2
		active := 0
		for _, f := range res.Scenario.Workload.Flows {
			if units.Time(f.Start) <= mid && (f.Stop == 0 || units.Time(f.Stop) > mid) {
				active++
			}
		}
		require.Equal(t, n, active, "flows active in step %d", k)
	}
	// The option is what differs between the two runs: the idle branch
	// fires only with it (after a step where flows stop, or after line 3,
	// the queue empties).
	idleUpdates := 0
	for _, tp := range cpt.trace {
		if tp.br == pi.PIIdle {
			idleUpdates++
		}
	}
	if idle {
		require.Positive(t, idleUpdates)
	} else {
		require.Zero(t, idleUpdates)
	}
	o := 0.9 * float64(c) // offered by each flow
	for k, n := range levels {
		begin, end := units.Time(k)*step, units.Time(k+1)*step
		var tr []roccTracePoint
		for _, tp := range cpt.trace {
			if tp.at >= begin && tp.at < end {
				tr = append(tr, tp)
			}
		}
		target := float64(c/roccTestDeltaF) / float64(n)
		band := roccSettleBand(target)
		settle, ok := roccSettle(tr, target, band)
		require.True(t, ok, "step %d (N=%d): F never settled within ±%.1f of %.1f", k, n, band, target)
		settle -= begin

		// Every plateau ends at C/N (the settle check) with the queue at
		// Qref: the mean of the samples of the last 2 ms within ±10 % of
		// Qref (as in TestRoCCFairnessFig8), never empty.
		var qsum float64
		var qn int
		for _, tp := range tr {
			if tp.at >= end-2*units.Millisecond {
				require.Positive(t, tp.q, "step %d: queue empty at %v", k, tp.at)
				qsum += float64(tp.q)
				qn++
			}
		}
		require.InEpsilon(t, float64(roccTestQref40), qsum/float64(qn), 0.10, "step %d: queue over the last 2 ms", k)

		old := 0
		if k > 0 {
			old = levels[k-1]
		}
		if idle || n < old {
			// The paper's "less than 2 ms": every step with the idle
			// gain, the halving steps either way.
			t.Logf("step %d: %d -> %d flows, settled at +%v (paper: < %v)", k, old, n, settle, roccTestPaperConv)
			require.Less(t, settle, roccTestPaperConv, "step %d", k)
			continue
		}
		// A doubling step (or the start) under Algorithm 1 as printed: m
		// new flows at O join n − m old ones at the previous fair rate. The
		// model of TestRoCCFairnessFig8: the burst lasts until the CNP of
		// the first update that sets F = Fmin takes effect, builds at the
		// total offered rate minus C up to the pool and drains at C −
		// N·Fmin; then line 8 climbs from Fmin into the band. F reaches
		// Fmin by line 3 when F > Fmax/8 (500 ΔF, steps 0 to 2), and
		// otherwise by line 8's decrease on the burst's queue, clamped by
		// line 12.
		first := -1
		for i, tp := range tr {
			if tp.f == roccTestFmin {
				first = i
				break
			}
		}
		require.GreaterOrEqual(t, first, 0, "step %d: F never reached Fmin", k)
		fmax := float64(c / roccTestDeltaF)
		before := fmax // F before the first flows start
		if k > 0 {
			before = fmax / float64(old)
		}
		if before > fmax/8 {
			require.Equal(t, pi.MDMin, tr[first].br, "step %d: F > Fmax/8 before the burst, so line 3", k)
		}
		prev := 0.0
		if k > 0 {
			prev = float64(c) / float64(old)
		}
		m := roccModel{c: c, n: n, qref: roccTestQref40, alphaBar: roccTestAlphaBar, betaBar: roccTestBetaBar,
			t1:     (tr[first].at - begin + 1*units.Microsecond + roccTestReaction).Seconds(),
			excess: float64(n-old)*o + float64(old)*prev - float64(c), target: target, band: band}
		m.eval()
		t.Logf("step %d: %d -> %d flows, settled at +%v (paper: < %v); %v", k, old, n, settle, roccTestPaperConv, &m)
		require.InEpsilon(t, m.sum, settle.Seconds(), 0.25, "step %d: settling time vs the drain + climb model", k)
	}
}

// roccRequireShares checks each flow's throughput over the scenario's
// window against want (bit/s, by flow ID). Flows limited by their own
// offered rate send at exactly that rate (pacing): the tolerance is one
// frame over the window. Flows limited by a CP get the same CNPs as the
// other flows there, and the CP's link is busy the whole window, so its
// flows add up to its rate to within a frame: the tolerance is 1 % of the
// share (one recovery doubling of 25 µs at 2F per flow over a window of at
// least 4 ms is 0.6 %) plus one frame. capped[i] says flow i is limited by
// its offered rate.
func roccRequireShares(t *testing.T, res *harness.Result, want []float64, capped []bool) {
	t.Helper()
	require.Len(t, res.Flows, len(want))
	w := (units.Time(res.Scenario.Duration) - units.Time(res.Scenario.MeasureFrom)).Seconds()
	frame := 1082 * 8 / w
	for i, f := range res.Flows {
		tol := 0.01*want[i] + frame
		if capped[i] {
			tol = frame
		}
		require.InDelta(t, want[i], f.Throughput, tol, "flow %d %s->%s", f.ID, f.Src, f.Dst)
		t.Logf("flow %d %s->%s: %.4f Gb/s (max-min share %.4f)", f.ID, f.Src, f.Dst, f.Throughput/1e9, want[i]/1e9)
	}
}

// roccCPID is the CNP's CP identity of a traced CP (the cp's Env hook:
// switch = NodeID, port = port number).
func roccCPID(c *roccTracedCP) uint64 { return uint64(c.info.Node)<<16 | uint64(c.info.Port) }

// TestRoCCMultiBottleneckFig12a is section VI-A d (Fig. 10, Fig. 12(a)):
// D0 crosses the CPs S0→S1 (40 Gb/s) and S1→B0 (10 Gb/s). The paper: "flows
// {D0, D5} and {D1, …, D4} attain their fair bandwidth shares of 5 Gb/s and
// 8.75 Gb/s". Reproduces. Each flow is offered 9 Gb/s (90 % of its 10 Gb/s
// access link; the paper gives no load here), above 8.75, so every flow is
// limited by a CP. The run is 20 ms with the window from 12 ms: S0's PI
// integrates while F is above what the flows offer (F has no effect until
// it falls below 9 Gb/s), reaches Qmax at ≈2 ms, resets to Fmin and climbs
// back, settling at ≈10 ms.
func TestRoCCMultiBottleneckFig12a(t *testing.T) {
	res, pr := roccRun(t, roccMultiName)
	g := float64(units.Gbps)
	roccRequireShares(t, res, []float64{5 * g, 8.75 * g, 8.75 * g, 8.75 * g, 8.75 * g, 5 * g}, make([]bool, 6))
	// Both CPs hold their queues at Qref (±10 %, as in
	// TestRoCCFairnessFig8) over the window.
	for _, link := range []string{"S0->S1", "S1->B0"} {
		require.InEpsilon(t, float64(roccTestQref40), roccPort(t, res, link).MeanBytes, 0.10, link)
	}
	// Algorithm 2 at D0: its limiter follows S1→B0, the most congested CP
	// on its path, and rejects S0's higher rate (line 4).
	s1 := pr.cp("S1", "B0")
	require.NotNil(t, s1)
	st := pr.rps[0].r.State()
	require.Equal(t, roccCPID(s1), uint64(s1.c.Config().Switch)<<16|uint64(s1.c.Config().Port))
	require.Equal(t, "A0", pr.rps[0].info.SrcName)
	require.Equal(t, roccCPID(s1), st.CPCur)
	require.Positive(t, st.Rejected, "D0 never rejected S0's fair rate")
}

// TestRoCCAsymmetricFig12b is section VI-A e (Fig. 12(b)): five 40 Gb/s
// and two 100 Gb/s sources into one 100 Gb/s port. The paper: "each flow
// should obtain a fair bandwidth share of 14.29 Gb/s … with RoCC, each flow
// attains the intended bandwidth". Reproduces (every flow is offered 36 or
// 90 Gb/s, above 100/7). The bottleneck is a 100 Gb/s port, so it runs the
// 100 Gb/s preset: its queue sits at that preset's Qref, 300 KB.
func TestRoCCAsymmetricFig12b(t *testing.T) {
	res, _ := roccRun(t, roccAsymName)
	share := 100.0 / 7 * float64(units.Gbps)
	want := []float64{share, share, share, share, share, share, share}
	roccRequireShares(t, res, want, make([]bool, 7))
	require.InEpsilon(t, float64(roccTestQref100), roccPort(t, res, "S2->B0").MeanBytes, 0.10)
	require.Greater(t, res.Report.Fairness.Jain, 0.9999)
}

// TestRoCCMaxMin is sections VI-B and VI-C (Fig. 14): three senders
// offering 10, 3 and 1 Gb/s into a 10 Gb/s port attain "the max-min fair
// value of 6 Gb/s" for the first; offering 40, 30 and 10 Gb/s into a
// 40 Gb/s port, "15 Gb/s" for the first two. The paper ran these on its
// testbeds (DPDK: T = 100 µs, Qref 75 KB; Tofino: T = 20 µs, ΔQ = 80 B,
// Qref 75 KB) and in simulation; both reproduce with the simulation preset
// (Qref 150 KB) and with the testbed presets, whose queue the paper reports
// "stabilizes at 75 KB".
func TestRoCCMaxMin(t *testing.T) {
	g := float64(units.Gbps)
	for _, tc := range []struct {
		name   string
		sets   []string
		want   []float64
		capped []bool
		qref   units.Bytes
	}{
		{"10G simulation preset", nil, []float64{6 * g, 3 * g, 1 * g}, []bool{false, true, true}, roccTestQref40},
		{"10G DPDK testbed", []string{"param.preset=dpdk10g"}, []float64{6 * g, 3 * g, 1 * g}, []bool{false, true, true}, 75 * units.KB},
		{"40G simulation preset", []string{"link=40Gbps", "offered=40Gbps,30Gbps,10Gbps"},
			[]float64{15 * g, 15 * g, 10 * g}, []bool{false, false, true}, roccTestQref40},
		{"40G Tofino testbed", []string{"link=40Gbps", "offered=40Gbps,30Gbps,10Gbps", "param.preset=tofino40g"},
			[]float64{15 * g, 15 * g, 10 * g}, []bool{false, false, true}, 75 * units.KB},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, _ := roccRun(t, roccMaxMinName, tc.sets...)
			roccRequireShares(t, res, tc.want, tc.capped)
			require.InEpsilon(t, float64(tc.qref), roccPort(t, res, "s0->h0").MeanBytes, 0.10)
		})
	}
}
