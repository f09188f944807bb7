package rp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// qcnCNMFeedback returns a FeedbackCNM for flow 1 carrying quantised feedback q.
func qcnCNMFeedback(q uint8) *cc.Feedback {
	f := &cc.Feedback{Kind: wire.FeedbackCNM, Flow: 1}
	wire.CNM{QntzFb: q, CPID: 42, Prio: 3}.Put(&f.Data)
	return f
}

// qcnRefRP is a float reference model of the QCN reaction point written from
// the equations ([QCN-Allerton]; [Survey] §4.1.1): rates in
// bit/s as real numbers, RC ← RC(1 − Gd·q), RC ← (RC + RT)/2, RT += R_AI
// or i·R_HAI. It is stepped one event at a time from the part's own
// registers, so that each comparison checks one event's arithmetic.
type qcnRefRP struct {
	cfg                 QCNConfig
	rc, rt              float64 // bit/s
	active              bool
	bstage, tstage      int
	bcount              float64
	next                units.Time
	line, min, ai, hai  float64
	decreases, increase int
}

func newQCNRefRP(cfg QCNConfig) *qcnRefRP {
	return &qcnRefRP{cfg: cfg, line: float64(cfg.LineRate), min: float64(cfg.MinRate), ai: float64(cfg.AIRate), hai: float64(cfg.HAIRate)}
}

// load copies the part's registers into the model.
func (m *qcnRefRP) load(s QCNState) {
	m.rc, m.rt = float64(s.RC)*1000, float64(s.RT)*1000
	m.active = s.Active
	m.bstage, m.tstage = int(s.ByteStage), int(s.TimerStage)
	m.bcount = float64(s.ByteCount)
	m.next = s.NextTimer
}

func (m *qcnRefRP) cycleBytes(stage int) float64 {
	if m.cfg.HalveAfterRecovery && stage >= int(m.cfg.Threshold) {
		return float64(m.cfg.ByteLimit / 2)
	}
	return float64(m.cfg.ByteLimit)
}

func (m *qcnRefRP) period(stage int) units.Time {
	if m.cfg.HalveAfterRecovery && stage >= int(m.cfg.Threshold) {
		return m.cfg.Period / 2
	}
	return m.cfg.Period
}

func (m *qcnRefRP) cnm(now units.Time, q int) {
	if q == 0 {
		return
	}
	if !m.active || m.cfg.TargetEveryCNM || m.bstage > 0 || m.tstage > 0 {
		m.rt = m.rc
	}
	m.active = true
	gd := math.Ldexp(1, -int(m.cfg.GdShift))
	m.rc = math.Max(m.rc*(1-gd*float64(q)), m.rc*float64(m.cfg.MinDecFac)/100)
	m.rc = math.Max(m.rc, m.min)
	m.bstage, m.tstage = 0, 0
	m.bcount = m.cycleBytes(0)
	m.next = now + m.period(0)
	m.decreases++
}

func (m *qcnRefRP) incr() {
	f := int(m.cfg.Threshold)
	if max(m.bstage, m.tstage) > f {
		if lo := min(m.bstage, m.tstage); lo > f {
			m.rt += float64(lo-f) * m.hai
		} else {
			m.rt += m.ai
		}
		m.rt = math.Min(m.rt, m.line)
	}
	m.rc = (m.rc + m.rt) / 2
	m.increase++
	// The part rounds the average up to whole Kb/s: it is back at the line
	// rate once the exact average is within one unit of it.
	if m.rt == m.line && m.rc > m.line-1000 {
		m.active = false
		m.bstage, m.tstage, m.bcount = 0, 0, 0
		m.next = units.MaxTime
	}
}

func (m *qcnRefRP) sent(n float64) {
	for m.active && n >= m.bcount {
		n -= m.bcount
		m.bstage++
		m.bcount = m.cycleBytes(m.bstage)
		m.incr()
	}
	if m.active {
		m.bcount -= n
	}
}

// timer runs every expiry due by now, each at its own deadline (cc rule
// 4): a timer cycle, an increase, the next deadline one cycle after it.
func (m *qcnRefRP) timer(now units.Time) {
	for m.active && m.next <= now {
		due := m.next
		m.tstage++
		m.incr()
		if m.active {
			m.next = due + m.period(m.tstage)
		}
	}
}

// qcnCheckInvariants asserts MinRate ≤ RC ≤ RT ≤ LineRate and the deadline's
// consistency with Active.
func qcnCheckInvariants(t *testing.T, r *QCN, where int) {
	s := r.State()
	cfg := r.Config()
	rc, rt := units.Rate(s.RC)*QCNRateUnit, units.Rate(s.RT)*QCNRateUnit
	if rc < cfg.MinRate || rc > rt || rt > cfg.LineRate {
		t.Fatalf("event %d: rc %v rt %v outside [%v, %v]", where, rc, rt, cfg.MinRate, cfg.LineRate)
	}
	if s.Active == (s.NextTimer == units.MaxTime) {
		t.Fatalf("event %d: active %v, next timer %v", where, s.Active, s.NextTimer)
	}
	if !s.Active && (rc != cfg.LineRate || rt != cfg.LineRate) {
		t.Fatalf("event %d: inactive at rc %v rt %v", where, rc, rt)
	}
}

// Each event of a long random run agrees with the float model stepped from
// the part's registers: RC and RT within one unit per rounding (1 Kb/s:
// the floor of a decrease or the ceiling of an average; an event with k
// increases and decreases, a byte counter run or a CNM after a late
// timer's expiries, rounds k times, so the tolerance is k units), the stages, counters and deadline exactly; and the rates
// stay in [MinRate, LineRate] throughout.
func TestQCNMatchesFloatReference(t *testing.T) {
	for seed, cfg := range []QCNConfig{
		QCNStandard(10 * units.Gbps),
		QCNPaper(100 * units.Gbps),
		func() QCNConfig {
			c := QCNStandard(units.Gbps)
			c.TargetEveryCNM, c.HalveAfterRecovery, c.Threshold, c.GdShift, c.MinDecFac = true, false, 2, 5, 30
			c.ByteLimit = 10000
			return c
		}(),
	} {
		r, err := NewQCN(cfg)
		require.NoError(t, err)
		ref := newQCNRefRP(cfg)
		rng := rand.New(rand.NewPCG(uint64(seed), 3))
		now := units.Time(0)
		var cnms, timers, maxIncr, releases int
		for i := range 100000 {
			ref.load(r.State())
			before := r.State().Increases
			cuts := r.State().Decreases
			// Congested spells (a CNM in 33 events) alternate with quiet
			// ones (one in 1000), so that the run visits every phase.
			cnmOdds := 3
			if i/10000%2 == 1 {
				cnmOdds = 0
				if rng.IntN(10) == 0 {
					cnmOdds = 1
				}
			}
			switch x := rng.IntN(100); {
			case x < cnmOdds: // a wire.CNM
				q := uint8(rng.IntN(64))
				now += units.Time(rng.Int64N(int64(units.Millisecond)))
				require.NoError(t, r.Feedback(now, qcnCNMFeedback(q), nil))
				ref.timer(now) // the expiries due first (cc rule 4)
				ref.cnm(now, int(q))
				cnms++
			case x < 10: // the timer, at its deadline or at a random time
				if d := r.NextDeadline(); d != units.MaxTime && rng.IntN(2) == 0 {
					now = max(now, d+units.Time(rng.IntN(3))*cfg.Period)
				} else {
					now += units.Time(rng.Int64N(int64(cfg.Period)))
				}
				require.NoError(t, r.Timer(now, nil))
				ref.timer(now)
				timers++
			default: // frames
				n := units.Bytes(64 + rng.IntN(9000))
				if rng.IntN(50) == 0 {
					n = QCNMaxSendBytes
				}
				now += units.Time(rng.Int64N(int64(units.Microsecond)))
				require.NoError(t, r.Sent(now, &cc.Packet{Size: n, Payload: n - 82}, nil))
				ref.timer(now)
				ref.sent(float64(n))
			}
			s := r.State()
			k := max(int(s.Increases-before+s.Decreases-cuts), 1)
			maxIncr = max(maxIncr, k)
			tol := float64(k) * 1000
			require.InDelta(t, ref.rc, float64(s.RC)*1000, tol, "event %d", i)
			require.InDelta(t, ref.rt, float64(s.RT)*1000, tol, "event %d", i)
			require.Equal(t, ref.active, s.Active, "event %d", i)
			require.Equal(t, ref.bstage, int(s.ByteStage), "event %d", i)
			require.Equal(t, ref.tstage, int(s.TimerStage), "event %d", i)
			require.Equal(t, ref.bcount, float64(s.ByteCount), "event %d", i)
			require.Equal(t, ref.next, s.NextTimer, "event %d", i)
			require.Equal(t, r.Rate(), r.Limits().Rate)
			qcnCheckInvariants(t, r, i)
			if !s.Active && s.Increases > before { // an increase released the limiter
				releases++
			}
		}
		s := r.State()
		t.Logf("%v: %d CNMs, %d timers, %d decreases, %d increases (up to %d in one event), %d releases, rc %v", cfg.LineRate, cnms, timers, s.Decreases, s.Increases, maxIncr, releases, r.Rate())
		require.NotZero(t, releases, "the run recovers to the line rate")
		require.NotZero(t, s.Decreases)
		require.Greater(t, s.Increases, s.Decreases)
	}
}

// One CNM, then the byte counter alone: five fast-recovery cycles of
// 150 KB halve RT − RC each (RT fixed), leaving RC within RT·2^−5 of RT;
// then active increase in 75 KB cycles, RT += 5 Mb/s each; the timer's
// cycles (15 ms, then 7.5 ms) bring the limiter to hyper-active increase
// once both stages pass 5, RT += i·50 Mb/s.
func TestQCNRecoveryPhases(t *testing.T) {
	cfg := QCNStandard(10 * units.Gbps)
	r, err := NewQCN(cfg)
	require.NoError(t, err)
	require.Equal(t, units.MaxTime, r.NextDeadline())
	require.Equal(t, 10*units.Gbps, r.Limits().Rate, "inactive: line rate")
	require.NoError(t, r.Sent(0, &cc.Packet{Size: 1500}, nil))
	require.Equal(t, uint32(0), r.State().ByteCount, "inactive: nothing counted")

	require.NoError(t, r.Feedback(1, qcnCNMFeedback(63), nil))
	s := r.State()
	// RC = 10^7 − ⌊10^7·63/128⌋ = 5 078 125 Kb/s; RT = the line rate.
	require.Equal(t, uint32(10_000_000-10_000_000*63/128), s.RC)
	require.Equal(t, uint32(10_000_000), s.RT)
	require.Equal(t, 1+QCNStandardPeriod, r.NextDeadline())
	rt := float64(s.RT)
	gap := float64(s.RT - s.RC)
	now := units.Time(2)
	sendBytes := func(n int) {
		for ; n > 0; n -= 1000 {
			require.NoError(t, r.Sent(now, &cc.Packet{Size: units.Bytes(min(n, 1000))}, nil))
		}
	}
	for cycle := 1; cycle <= 5; cycle++ {
		sendBytes(150000 - 1)
		require.Equal(t, uint32(cycle-1), r.State().ByteStage, "one byte short of cycle %d", cycle)
		sendBytes(1)
		s = r.State()
		require.Equal(t, uint32(cycle), s.ByteStage)
		require.Equal(t, uint32(10_000_000), s.RT, "fast recovery leaves RT")
		gap /= 2
		require.InDelta(t, gap, float64(s.RT-s.RC), 1, "cycle %d: the gap halves (±1 for rounding up)", cycle)
	}
	require.LessOrEqual(t, float64(s.RT-s.RC), rt/32, "after 5 cycles RC is within RT·2^−5 of RT")
	require.Equal(t, uint32(75000), s.ByteCount, "active increase counts 75 KB cycles")
	// A fresh limiter whose RT is below the line: CNM, byte increase, CNM
	// (RT ← RC now), then AI steps of exactly R_AI = 5000 Kb/s.
	r, _ = NewQCN(cfg)
	require.NoError(t, r.Feedback(0, qcnCNMFeedback(63), nil))
	now = 1
	sendBytes(150000)
	rc1 := r.State().RC
	require.NoError(t, r.Feedback(4, qcnCNMFeedback(10), nil))
	now = 4
	s = r.State()
	require.Equal(t, rc1, s.RT, "after an increase, a wire.CNM sets RT ← RC")
	rt0 := s.RT
	sendBytes(5 * 150000)
	require.Equal(t, rt0, r.State().RT)
	for k := 1; k <= 4; k++ {
		sendBytes(75000)
		require.Equal(t, rt0+uint32(k)*5000, r.State().RT, "AI step %d", k)
	}
	// Timer: 5 cycles of 15 ms (B > 5 already: AI on each), then 7.5 ms
	// cycles; from the 6th, both stages exceed 5: HAI, i = min(B, T) − 5.
	t0 := units.Time(4)
	require.Equal(t, t0+QCNStandardPeriod, r.NextDeadline())
	rtBefore := r.State().RT
	now = t0
	for k := 1; k <= 5; k++ {
		now = r.NextDeadline()
		require.NoError(t, r.Timer(now, nil))
		require.Equal(t, rtBefore+uint32(k)*5000, r.State().RT, "timer AI %d", k)
	}
	require.Equal(t, now+QCNStandardPeriod/2, r.NextDeadline(), "T/2 after 5 timer cycles")
	rtBefore = r.State().RT
	b := r.State().ByteStage // 9
	require.Equal(t, uint32(9), b)
	for k := 1; k <= 3; k++ {
		require.NoError(t, r.Timer(r.NextDeadline(), nil))
		// T = 5 + k, min(B, T) − 5 = k.
		rtBefore += uint32(k) * 50000
		require.Equal(t, rtBefore, r.State().RT, "HAI %d", k)
	}
}

// A Timer before the deadline changes nothing but the time. A deadline
// left to pass is caught up by the next event, whatever it is (cc rule 4):
// a part given a late Timer, Sent or Feedback ends with the registers of
// one given its Timer at every deadline (each expiry a timer cycle and an
// increase, the next deadline one cycle after the last: T, then T/2 once
// the timer's stage reaches F = 5).
func TestQCNTimerCatchUp(t *testing.T) {
	r, _ := NewQCN(QCNStandard(10 * units.Gbps))
	require.NoError(t, r.Feedback(0, qcnCNMFeedback(20), nil))
	before := r.State()
	require.NoError(t, r.Timer(QCNStandardPeriod-1, nil))
	after := r.State()
	after.Time = before.Time
	require.Equal(t, before, after)

	late := 10 * QCNStandardPeriod
	// The deadlines by hand: 15, 30, 45, 60, 75 ms (stages 1..5, T), then
	// 82.5, 90, 97.5, 105, ... ms (T/2 from stage 5 on): 15 by 150 ms.
	var want []units.Time
	for d := units.Time(0); ; {
		if len(want) < 5 {
			d += QCNStandardPeriod
		} else {
			d += QCNStandardPeriod / 2
		}
		if d > late {
			break
		}
		want = append(want, d)
	}
	require.Len(t, want, 15)
	for _, ev := range []func(r *QCN) error{
		func(r *QCN) error { return r.Timer(late, nil) },
		func(r *QCN) error { return r.Sent(late, &cc.Packet{Size: 0}, nil) },
		func(r *QCN) error { return r.Feedback(late, &cc.Feedback{Kind: cc.FeedbackAck}, nil) },
		func(r *QCN) error { return r.Feedback(late, qcnCNMFeedback(0), nil) },
	} {
		onTime, _ := NewQCN(QCNStandard(10 * units.Gbps))
		lazy, _ := NewQCN(QCNStandard(10 * units.Gbps))
		for _, p := range []*QCN{onTime, lazy} {
			require.NoError(t, p.Feedback(0, qcnCNMFeedback(20), nil))
		}
		var got []units.Time
		for d := onTime.NextDeadline(); d <= late; d = onTime.NextDeadline() {
			got = append(got, d)
			require.NoError(t, onTime.Timer(d, nil))
		}
		require.Equal(t, want, got)
		require.NoError(t, ev(onTime))
		require.NoError(t, ev(lazy))
		require.Equal(t, onTime.State(), lazy.State())
		require.Equal(t, uint32(15), lazy.State().TimerStage)
		require.True(t, lazy.State().Active, "RC is still 2^-15 of the cut below RT")
		require.Equal(t, want[14]+QCNStandardPeriod/2, lazy.NextDeadline())
	}
}

// The limiter recovers to the line rate and releases itself: the timer
// idles and the next CNM starts again from RT ← RC.
func TestQCNRelease(t *testing.T) {
	cfg := QCNStandard(units.Gbps)
	r, _ := NewQCN(cfg)
	require.NoError(t, r.Feedback(0, qcnCNMFeedback(1), nil))
	require.True(t, r.State().Active)
	n := 0
	for r.State().Active {
		require.NoError(t, r.Timer(r.NextDeadline(), nil))
		n++
		require.Less(t, n, 1000)
	}
	require.Equal(t, units.Gbps, r.Rate())
	require.Equal(t, units.MaxTime, r.NextDeadline())
	s := r.State()
	require.Zero(t, s.ByteStage+s.TimerStage+s.ByteCount)
	t.Logf("released after %d timer cycles", n)
}

// TargetEveryCNM: RT follows RC on every CNM; without it, a CNM before any
// increase keeps RT.
func TestQCNTargetRule(t *testing.T) {
	for _, every := range []bool{false, true} {
		cfg := QCNStandard(10 * units.Gbps)
		cfg.TargetEveryCNM = every
		r, _ := NewQCN(cfg)
		require.NoError(t, r.Feedback(0, qcnCNMFeedback(32), nil))
		rc1 := r.State().RC
		// 10^7 Kb/s·(1 − 32/128) = 7 500 000 Kb/s.
		require.Equal(t, uint32(7_500_000), rc1)
		require.NoError(t, r.Feedback(1, qcnCNMFeedback(32), nil))
		s := r.State()
		if every {
			require.Equal(t, rc1, s.RT)
		} else {
			require.Equal(t, uint32(10_000_000), s.RT)
		}
		// 7 500 000·(1 − 1/4) = 5 625 000 Kb/s, exact.
		require.Equal(t, rc1-rc1*32/128, s.RC)
		require.Equal(t, uint32(5_625_000), s.RC)
	}
}

// MinDecFac bounds one cut; MinRate bounds every cut.
func TestQCNDecreaseBounds(t *testing.T) {
	cfg := QCNStandard(10 * units.Gbps)
	cfg.GdShift = 5 // Gd = 1/32: q = 63 would cut 197 %
	r, _ := NewQCN(cfg)
	require.NoError(t, r.Feedback(0, qcnCNMFeedback(63), nil))
	require.Equal(t, uint32(5_000_000), r.State().RC, "MinDecFac 50 %: half")
	for i := range 100 {
		require.NoError(t, r.Feedback(units.Time(i+1), qcnCNMFeedback(63), nil))
	}
	require.Equal(t, QCNStandardMinRate, r.Rate())
}

// Feedback of other kinds is counted in unused_feedback and changes
// nothing else but the time (cc rule 8); a CNM with QntzFb 0 changes
// nothing but the time and the CNM counter; a malformed CNM is an
// *EventError wrapping the codec's *DecodeError and changes nothing; nil
// arguments and bad sizes are refused; time order first.
func TestQCNFeedbackKinds(t *testing.T) {
	r, _ := NewQCN(QCNStandard(10 * units.Gbps))
	require.NoError(t, r.Feedback(5, qcnCNMFeedback(30), nil))
	before := r.State()
	regs := r.AppendRegisters(nil)
	for i, f := range []*cc.Feedback{{}, {Kind: cc.FeedbackAck, Seq: 9}, {Kind: cc.FeedbackCNP}, {Kind: cc.FeedbackRate}, {Kind: cc.FeedbackUser}, {Kind: wire.FeedbackCNM + 1}, {Kind: 255}} {
		require.NoError(t, r.Feedback(6, f, nil))
		after := r.State()
		require.Equal(t, units.Time(6), after.Time.Last())
		require.Equal(t, uint64(i+1), after.Unused.N(), "%v counted", f.Kind)
		after.Time, after.Unused = before.Time, before.Unused
		require.Equal(t, before, after, "%v", f.Kind)
		now := r.AppendRegisters(nil)
		require.Equal(t, cc.Reg(cc.UnusedRegister, 64, uint64(i+1)), now[len(now)-1])
		require.Equal(t, regs[1:len(regs)-1], now[1:len(now)-1], "only now and unused_feedback move")
	}
	before = r.State()
	require.NoError(t, r.Feedback(7, qcnCNMFeedback(0), nil))
	after := r.State()
	require.Equal(t, before.CNMs+1, after.CNMs)
	after.Time, after.CNMs = before.Time, before.CNMs
	require.Equal(t, before, after, "QntzFb 0 decreases nothing")

	before = r.State()
	bad := qcnCNMFeedback(5)
	bad.Data[0] = 0x10
	err := r.Feedback(8, bad, nil)
	var ee *cc.EventError
	require.ErrorAs(t, err, &ee)
	var de *cc.DecodeError
	require.ErrorAs(t, err, &de)
	require.Equal(t, 0, de.Offset)
	require.ErrorIs(t, r.Feedback(8, nil, nil), cc.ErrEvent)
	require.ErrorIs(t, r.Sent(8, nil, nil), cc.ErrEvent)
	require.ErrorIs(t, r.Sent(8, &cc.Packet{Size: -1}, nil), cc.ErrEvent)
	require.ErrorIs(t, r.Sent(8, &cc.Packet{Size: QCNMaxSendBytes + 1}, nil), cc.ErrEvent)
	for _, ev := range []func() error{
		func() error { return r.Feedback(4, bad, nil) },
		func() error { return r.Feedback(4, nil, nil) },
		func() error { return r.Sent(4, nil, nil) },
		func() error { return r.Timer(4, nil) },
	} {
		var te *cc.TimeOrderError
		require.ErrorAs(t, ev(), &te)
		require.Equal(t, units.Time(7), te.Last)
	}
	require.Equal(t, before, r.State())
}

func TestQCNConfigErrors(t *testing.T) {
	for _, c := range []struct {
		field string
		mod   func(*QCNConfig)
	}{
		{"LineRate", func(c *QCNConfig) { c.LineRate = 0 }},
		{"LineRate", func(c *QCNConfig) { c.LineRate = QCNMaxLineRate + QCNRateUnit }},
		{"LineRate", func(c *QCNConfig) { c.LineRate = units.Gbps + 1 }},
		{"MinRate", func(c *QCNConfig) { c.MinRate = 0 }},
		{"MinRate", func(c *QCNConfig) { c.MinRate = 2 * units.Gbps }},
		{"GdShift", func(c *QCNConfig) { c.GdShift = 0 }},
		{"GdShift", func(c *QCNConfig) { c.GdShift = 17 }},
		{"MinDecFac", func(c *QCNConfig) { c.MinDecFac = 101 }},
		{"ByteLimit", func(c *QCNConfig) { c.ByteLimit = 999 }},
		{"Period", func(c *QCNConfig) { c.Period = 0 }},
		{"Period", func(c *QCNConfig) { c.Period = 11 * units.Second }},
		{"AIRate", func(c *QCNConfig) { c.AIRate = 0 }},
		{"HAIRate", func(c *QCNConfig) { c.HAIRate = 2 * units.Gbps }},
	} {
		cfg := QCNStandard(units.Gbps)
		c.mod(&cfg)
		_, err := NewQCN(cfg)
		var ce *cc.ConfigError
		require.ErrorAs(t, err, &ce, c.field)
		require.Equal(t, c.field, ce.Field)
		require.Equal(t, "rp.QCN", ce.Part)
	}
	require.NoError(t, QCNStandard(QCNMaxLineRate).Validate())
	require.Equal(t, QCNPaperPeriod, QCNPaper(units.Gbps).Period)
}

func TestQCNRegisters(t *testing.T) {
	r, _ := NewQCN(QCNStandard(100 * units.Gbps))
	regs := r.AppendRegisters(nil)
	var names []string
	for _, x := range regs {
		names = append(names, x.Name)
		require.True(t, x.Fits(), "%v", x)
	}
	require.Equal(t, []string{"now", "active", "rc", "rt", "byte_stage", "timer_stage", "byte_count", "next_timer", "cnms", "decreases", "increases", "unused_feedback"}, names)
	require.Equal(t, uint64(100_000_000), regs[2].Value)
}
