package rp_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// nsccModel is NSCC's equations (docs/derivations.md, "Ultra Ethernet:
// NSCC and RCCC") in float64, written from the equations and not from
// the integer code: every constant exact (a, b, α, fi, η, fi_scale, λ, γ
// and Q_t as reals, from NSCCConfig.Scaling), every product and quotient
// exact, no truncation. It takes the same inputs as the integer part: the
// acknowledged bytes, the ECN echo, the RTT sample in whole ns (the
// echo's resolution) and the time.
type nsccModel struct {
	sc                          rp.NSCCScaling
	mss, qaFactor, adjBytes     float64
	lambda, gamma               float64
	fastDelay                   float64 // ns
	adjPeriod                   float64 // ps
	gate                        uint8
	noQA, baseOnNack, credit    bool
	cwnd, maxwnd, base, avg     float64
	inc, fiCount                float64
	fast, triggered             bool
	achieved, received          float64
	toIgnore, ignored, inflight float64
	qaEnd, lastAdjust, lastDec  float64 // ps

	// what the event did: the branch, fulfil steps, and the EWMA's sample
	// and the average before it (ewmaN > 0 when it ran)
	branch      string
	fulfils     int
	ewmaN       int
	lastX, avg0 float64
	// cwnd and inc as the fulfil step found them
	preCwnd, preInc float64
}

func newNSCCModel(c rp.NSCCConfig) *nsccModel {
	m := &nsccModel{
		sc: c.Scaling(), mss: float64(c.MSS), qaFactor: float64(c.QAFactor),
		lambda: c.DelayAlpha, gamma: c.Gamma, fastDelay: float64(c.FastDelay) / 1000,
		gate: c.QAGate, noQA: c.NoQuickAdapt, baseOnNack: c.BaseOnNack, credit: c.Credit.On,
	}
	m.adjBytes = float64(c.AdjustBytes)
	if m.adjBytes == 0 {
		m.adjBytes = 8 * m.mss
	}
	m.adjPeriod = float64(c.AdjustPeriod)
	if m.adjPeriod == 0 {
		m.adjPeriod = float64(c.NetworkRTT)
	}
	return m
}

// load sets the model's state to the integer part's registers (exactly:
// avg from Q16.16, inc from Q8), so that one event's arithmetic is
// compared from a common start.
func (m *nsccModel) load(s rp.NSCCState) {
	m.cwnd, m.maxwnd, m.base = float64(s.Cwnd), float64(s.MaxWnd), float64(s.BaseRTT)
	m.avg, m.inc = float64(s.AvgDelay)/65536, float64(s.Inc)/256
	m.fiCount, m.fast, m.triggered = float64(s.FICount), s.Fast, s.Triggered
	m.achieved, m.received = float64(s.Achieved), float64(s.Received)
	m.toIgnore, m.ignored, m.inflight = float64(s.ToIgnore), float64(s.Ignored), float64(s.InFlight)
	m.qaEnd, m.lastAdjust, m.lastDec = float64(s.QAEnd), float64(s.LastAdjust), float64(s.LastDec)
	m.branch, m.fulfils, m.ewmaN = "", 0, 0
}

func (m *nsccModel) updateBase(raw float64) {
	if raw < m.base {
		m.base = raw
		m.maxwnd = math.Max(1.5*raw*m.sc.BytesPerNs, m.mss)
	}
}

func (m *nsccModel) ewma(x float64) {
	m.ewmaN++
	m.lastX, m.avg0 = x, m.avg
	m.avg = (1-m.lambda)*m.avg + m.lambda*x
}

func (m *nsccModel) clamp() { m.cwnd = math.Min(math.Max(m.cwnd, m.mss), m.maxwnd) }

func (m *nsccModel) quickAdapt(now float64, loss, skip bool, delay float64) bool {
	if m.noQA {
		return false
	}
	done := false
	if m.ignored < m.toIgnore && skip {
		done = true
	} else if now > m.qaEnd {
		// maxwnd >> gate is the model's own integer shift of an integer
		// register ([uet-htsim] quick_adapt).
		if m.qaEnd != 0 && (m.triggered || loss || delay > m.qaFactor*m.sc.QtNs) &&
			m.achieved < float64(uint64(m.maxwnd)>>m.gate) {
			m.cwnd = math.Max(m.achieved, m.mss)
			m.toIgnore, m.ignored, m.triggered = m.inflight, 0, false
			m.branch = "qa"
			done = true
		}
		m.achieved = 0
		m.qaEnd = now + m.base*1000 + m.sc.QtNs*1000
	}
	if done {
		m.inc, m.received = 0, 0
		if m.branch == "" {
			m.branch = "ignored"
		}
	}
	return done
}

// ack is the ACK of docs/derivations.md; raw < 0: no RTT sample.
func (m *nsccModel) ack(now, acked float64, ece bool, raw float64) {
	m.inflight = math.Max(m.inflight-acked, 0)
	m.achieved += acked
	m.received += acked
	m.ignored += acked
	delay := m.avg
	if raw >= 0 {
		m.updateBase(raw)
		delay = raw - m.base
		x := delay
		if !ece && delay > m.sc.QtNs {
			x = m.base / 4
		}
		m.ewma(x)
	}
	if m.quickAdapt(now, false, ece, delay) {
		m.clamp()
		return
	}
	qt := m.sc.QtNs
	switch {
	case !ece && delay >= qt:
		m.inc += m.sc.Fi * acked
		m.branch = "fair"
	case !ece:
		if delay < m.fastDelay {
			m.fiCount += acked
			if m.fiCount > m.cwnd || m.fast {
				m.cwnd += m.sc.FiScale * acked
				m.fast = true
				m.branch = "fast"
				break
			}
		} else {
			m.fiCount = 0
		}
		m.fast = false
		m.inc += m.sc.K * acked * (qt - delay)
		m.branch = "prop"
	case delay >= qt:
		m.fast, m.fiCount = false, 0
		m.branch = "md-skipped"
		if m.avg > qt && now-m.lastDec > m.base*1000 {
			m.cwnd *= math.Max(1-m.gamma*(m.avg-qt)/m.avg, 0.5)
			m.cwnd = math.Max(m.cwnd, m.mss)
			m.lastDec = now
			m.branch = "md"
		}
	default:
		m.branch = "none"
	}
	m.clamp()
	if m.received > m.adjBytes || now-m.lastAdjust > m.adjPeriod {
		m.preCwnd, m.preInc = m.cwnd, m.inc
		m.cwnd += m.inc / m.cwnd
		if now-m.lastAdjust >= m.adjPeriod {
			m.cwnd += m.sc.Eta
			m.lastAdjust = now
		}
		m.inc, m.received = 0, 0
		m.fulfils++
	}
	m.clamp()
}

// nack is the NACK of docs/derivations.md.
func (m *nsccModel) nack(now, nacked, raw float64, lastHop bool) {
	if raw >= 0 && m.baseOnNack {
		m.updateBase(raw)
	}
	m.inflight = math.Max(m.inflight-nacked, 0)
	m.ignored += nacked
	m.ewma(m.sc.TnNs)
	m.triggered = true
	if m.quickAdapt(now, true, true, 0) {
		m.clamp()
		return
	}
	m.branch = "nack"
	if !m.credit || !lastHop {
		m.cwnd -= nacked
	}
	m.clamp()
}

// nsccBranch is the branch the integer part took, from its counters.
func nsccBranch(before, after rp.NSCCState) string {
	switch {
	case after.QuickAdapts > before.QuickAdapts:
		return "qa"
	case after.FairIncs > before.FairIncs:
		return "fair"
	case after.PropIncs > before.PropIncs:
		return "prop"
	case after.FastIncs > before.FastIncs:
		return "fast"
	case after.Decreases > before.Decreases:
		return "md"
	}
	return ""
}

// nsccRefConfigs are the configurations the reference test runs: the
// presets' shape at 25 to 800 Gb/s, RTTs from 2 to 40 µs, payloads from
// 1000 to 8938 B, with and without trimming and credit.
func nsccRefConfigs(r *rand.Rand, n int) []rp.NSCCConfig {
	var out []rp.NSCCConfig
	for range n {
		link := []units.Rate{25 * units.Gbps, 100 * units.Gbps, 400 * units.Gbps, 800 * units.Gbps}[r.IntN(4)]
		rtt := units.Time(2000+r.IntN(38000)) * units.Nanosecond
		rtt += units.Time(r.IntN(1000)) // a fraction of a ns: Q_t is not whole
		mss := []units.Bytes{1000, 4096, 8938}[r.IntN(3)]
		c := rp.NSCCDefault(link, rtt, mss)
		c.Trimming = r.IntN(3) != 0
		c.BaseOnNack = r.IntN(2) == 0
		if r.IntN(3) == 0 {
			c.Credit = rp.RCCCSenderConfig{On: true, Size: 2 * units.MB, FrameOverhead: 82}
		}
		out = append(out, c)
	}
	return out
}

// nsccGen generates NSCC's events for the reference and property tests:
// sends; ACKs of 0..3 packets with a delay drawn across every branch
// (below the fast-increase delay, below target, between target and the
// quick-adapt threshold, above it), ECN one time in four, an echo missing
// one time in twenty; stretches of congestion (delays above target, ECN
// four times in five) that drive the average above target; NACKs with the
// last-hop mark one time in two; the base RTT falling now and then; gaps
// from 0 to 3 µs and now and then several RTTs.
type nsccGen struct {
	r    *rand.Rand
	c    rp.NSCCConfig
	sc   rp.NSCCScaling
	now  units.Time
	base float64 // the path's true base RTT, ns
	seq  uint64
	hot  bool // a congested stretch: delays above target, ECN mostly
}

func newNSCCGen(r *rand.Rand, c rp.NSCCConfig) *nsccGen {
	return &nsccGen{r: r, c: c, sc: c.Scaling(), base: float64(c.NetworkRTT) / 1000 * (0.8 + 0.2*r.Float64())}
}

// delay draws a queueing delay, ns.
func (g *nsccGen) delay() float64 {
	qt := g.sc.QtNs
	if g.hot {
		return qt + g.r.Float64()*2*qt
	}
	switch g.r.IntN(10) {
	case 0, 1, 2:
		return g.r.Float64() * 1000
	case 3, 4, 5:
		return g.r.Float64() * qt
	case 6, 7, 8:
		return qt + g.r.Float64()*3*qt
	}
	return 4*qt + g.r.Float64()*4*qt
}

// echo returns the header a receiver echoes for a packet of payload pay
// whose round trip ends now after base + delay.
func (g *nsccGen) echo(pay units.Bytes, rtt float64) [16]byte {
	var b [16]byte
	sent := uint32(uint64(g.now)/1000) - uint32(rtt)
	wire.UECData{Valid: true, Frame: uint16(pay + 82), SentNs: sent, Payload: uint16(pay)}.Put(&b)
	return b
}

func (g *nsccGen) next() cc.Event {
	r := g.r
	if r.IntN(40) == 0 {
		g.now += units.Time(r.IntN(5*int(g.c.NetworkRTT)) + 1)
	} else {
		g.now += units.Time(r.IntN(3000)) * units.Nanosecond
	}
	if r.IntN(200) == 0 {
		g.base *= 0.97
	}
	if r.IntN(150) == 0 {
		g.hot = !g.hot
	}
	mss := g.c.MSS
	ev := cc.Event{At: g.now}
	switch x := r.IntN(100); {
	case x < 35:
		ev.Kind = cc.EventSent
		ev.Packet = cc.Packet{Seq: g.seq, Payload: mss, Size: mss + 82}
		g.seq += uint64(mss)
	case x < 85:
		ev.Kind = cc.EventFeedback
		ev.Feedback = cc.Feedback{Kind: cc.FeedbackAck, Acked: units.Bytes(r.IntN(4)) * mss, ECE: r.IntN(4) == 0 || g.hot && r.IntN(5) != 0}
		if r.IntN(20) != 0 {
			ev.Feedback.Data = g.echo(mss, g.base+g.delay())
		}
	case x < 95:
		ev.Kind = cc.EventFeedback
		ev.Feedback = cc.Feedback{Kind: cc.FeedbackNak}
		if r.IntN(20) != 0 {
			ev.Feedback.Data = g.echo(mss, g.base+g.delay())
			wire.MarkUECTrimmed(&ev.Feedback.Data, r.IntN(2) == 0)
		}
	default:
		ev.Kind = cc.EventFeedback
		ev.Feedback = cc.Feedback{Kind: cc.FeedbackCNP}
	}
	return ev
}

// TestNSCCMatchesFloatModel checks the integer NSCC against nsccModel one
// event at a time along random sequences: before each event the model is
// loaded with the part's registers; after it, the two must have taken the
// same branch (fair, proportional, fast, decrease, quick adapt) and agree
// within the bounds the roundings give (docs/derivations.md, "NSCC in
// integers"):
//
//	avg:    λ is held as round(λ·2^16) (off by ≤ 2^−17), the update
//	        floors at 2^−16 ns, and the samples base/4 and T_n are whole
//	        ns, floored (< 1 ns): |Δavg| ≤ 2^−17·|x − avg| + 2^−16 + λ ns.
//	maxwnd: the link's bytes per ns in Q16 (off by ≤ 2^−17) times a base
//	        of b ns, floored, then BDP + BDP >> 1 floored:
//	        |Δ| ≤ 1.5·(b·2^−17 + 1) + 1 bytes.
//	inc:    fi in Q8 (≤ 2^−9 B per byte), α·(Q_t − d) in Q8 from α in Q32
//	        (≤ (Q_t − d)·2^−33 + 2^−8 B per byte), and Q_t held as whole ns
//	        (≤ 1 ns·α per byte): |Δinc| ≤ n·(2^−9 + Q_t·2^−33 + 2^−8 + α).
//	cwnd:   before the fulfil step, fast increase's Q16 fi_scale
//	        (≤ n·2^−17 + 1), the decrease's factor (x and γ·x each floored
//	        to 2^−16, γ off by ≤ 2^−17, Q_t whole ns, the average off by
//	        Δavg: ≤ cwnd·(4·2^−16 + (1 + Δavg)/avg) + 1) and the maxwnd
//	        bound when the clamp binds:
//	        e ≤ 2 + n·2^−17 + cwnd·(4·2^−16 + (1 + Δavg)/avg) + |Δmaxwnd|;
//	        the fulfil step cwnd + inc/cwnd maps e to
//	        e·(1 + inc/(cwnd·(cwnd − e))), adds |Δinc|/(cwnd − e), two
//	        floors and η rounded to whole bytes (2.5 B) and the clamp again.
//
// A branch taken on a comparison the roundings may flip is ambiguous and
// not compared: a delay within 1 ns of Q_t (held as whole ns), an average
// within its bound of Q_t, a delay within QAFactor ns of QAFactor·Q_t.
// The test requires few of them (under 2 %).
func TestNSCCMatchesFloatModel(t *testing.T) {
	r := rand.New(rand.NewPCG(2025, 6))
	var events, compared, ambiguous int
	branches := map[string]int{}
	var worst float64
	for ci, c := range nsccRefConfigs(r, 24) {
		part, err := rp.NewNSCC(c)
		require.NoError(t, err)
		m := newNSCCModel(c)
		g := newNSCCGen(r, c)
		act := cc.NewActions(4)
		qt := m.sc.QtNs
		for i := range 2500 {
			ev := g.next()
			before := part.State()
			m.load(before)
			now := float64(ev.At)
			raw := -1.0
			var h wire.UECData
			if ev.Kind == cc.EventFeedback {
				h, err = wire.DecodeUECData(ev.Feedback.Data[:])
				require.NoError(t, err)
				if h.Valid {
					raw = float64(uint32(uint64(ev.At)/1000) - h.SentNs)
				}
			}
			act.Reset()
			require.NoError(t, ev.Apply(part, act), "config %d event %d %v", ci, i, ev)
			events++
			after := part.State()
			amb := false
			switch {
			case ev.Kind == cc.EventFeedback && ev.Feedback.Kind == cc.FeedbackAck:
				// The delay the part took: the sample less its (updated)
				// base, or the average without a sample.
				if raw >= 0 {
					d := raw - math.Min(float64(before.BaseRTT), raw)
					amb = math.Abs(d-qt) <= 1 || math.Abs(d-float64(c.QAFactor)*qt) <= float64(c.QAFactor)
				} else {
					amb = math.Abs(float64(before.AvgDelay)/65536-qt) <= 1
				}
				m.ack(now, float64(ev.Feedback.Acked), ev.Feedback.ECE, raw)
				amb = amb || math.Abs(m.avg-qt) <= 2
			case ev.Kind == cc.EventFeedback && ev.Feedback.Kind == cc.FeedbackNak:
				nacked := float64(c.MSS)
				if h.Valid {
					nacked = float64(h.Payload)
				}
				m.nack(now, nacked, raw, h.LastHop)
			case ev.Kind == cc.EventSent:
				m.inflight += float64(ev.Packet.Payload)
			}
			if amb {
				ambiguous++
				continue
			}
			if ib := nsccBranch(before, after); ib != "" || m.branch == "fair" || m.branch == "prop" || m.branch == "fast" || m.branch == "md" || m.branch == "qa" {
				require.Equal(t, m.branch, ib, "config %d event %d %v: branch", ci, i, ev)
				branches[ib]++
			}
			require.Equal(t, m.fulfils, int(after.Fulfils-before.Fulfils), "config %d event %d: fulfil step", ci, i)
			// The bounds of the doc comment.
			bAvg := 1e-9
			if m.ewmaN > 0 {
				bAvg += math.Ldexp(math.Abs(m.lastX-m.avg0), -17) + math.Ldexp(1, -16) + m.lambda
			}
			require.InDelta(t, m.avg, float64(after.AvgDelay)/65536, bAvg, "config %d event %d: avg", ci, i)
			bMax := 1.5*(m.base*math.Ldexp(1, -17)+1) + 1
			require.InDelta(t, m.maxwnd, float64(after.MaxWnd), bMax, "config %d event %d: maxwnd", ci, i)
			acked := float64(ev.Feedback.Acked)
			bInc := acked*(math.Ldexp(1, -9)+qt*math.Ldexp(1, -33)+math.Ldexp(1, -8)+m.sc.K) + 1
			if m.fulfils == 0 {
				require.InDelta(t, m.inc, float64(after.Inc)/256, bInc, "config %d event %d: inc", ci, i)
			}
			// Before the fulfil step: fast increase, the decrease (with the
			// average's own error in its factor) and the clamp.
			c0 := m.cwnd
			if m.fulfils > 0 {
				c0 = m.preCwnd
			}
			ePre := 2 + acked*math.Ldexp(1, -17) + c0*(4*math.Ldexp(1, -16)+(1+bAvg)/math.Max(m.avg, 1)) + bMax
			bCwnd := ePre
			if m.fulfils > 0 {
				// cwnd + inc/cwnd: an error e in cwnd becomes
				// e·|1 − inc/(c·c')| ≤ e·(1 + inc/(c·(c − e))); inc's own
				// error adds |Δinc|/cwnd; two floors and η's rounding 2.5 B.
				bCwnd = ePre*(1+m.preInc/(c0*math.Max(c0-ePre, 1))) + bInc/math.Max(c0-ePre, 1) + 2.5 + bMax
			}
			diff := math.Abs(m.cwnd - float64(after.Cwnd))
			require.LessOrEqual(t, diff, bCwnd, "config %d event %d %v: cwnd model %.3f part %d", ci, i, ev, m.cwnd, after.Cwnd)
			worst = math.Max(worst, diff)
			compared++
		}
	}
	t.Logf("%d events, %d compared, %d ambiguous, branches %v, largest cwnd difference %.2f B", events, compared, ambiguous, branches, worst)
	require.Less(t, ambiguous, events/50, "ambiguous events are rare")
	for _, b := range []string{"fair", "prop", "fast", "md", "qa"} {
		require.NotZero(t, branches[b], "branch %s never taken: the test would not check it", b)
	}
}
