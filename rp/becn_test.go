package rp_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

const (
	becnUs = units.Microsecond
	becnTq = rp.BECNSurveyQuietPeriod
)

// becnPkt is a full data packet of flow f.
func becnPkt(f cc.FlowID) *cc.Packet { return &cc.Packet{Flow: f, Payload: 1000, Size: 1082} }

// becnNewRP builds a reaction point of cfg.
func becnNewRP(t testing.TB, cfg rp.BECNConfig) *rp.BECN {
	t.Helper()
	r, err := rp.NewBECN(cfg)
	require.NoError(t, err)
	return r
}

// becnNote is a notification message.
var becnNote = cc.Feedback{Kind: wire.FeedbackBECN, Flow: 1}

// becnNotify delivers a notification at now through Feedback.
func becnNotify(t testing.TB, r *rp.BECN, now units.Time) {
	t.Helper()
	f := becnNote
	require.NoError(t, r.Feedback(now, &f, nil))
}

// becnRefRP is the float reference of the reaction point, written from the
// survey's sentences (section 4.1.1) and the package's stated choices, not
// from the code: it keeps the rate as a real number and the quiet timer as
// the time of the last notification, and answers "what is the state at
// time t" by replaying the recoveries that a quiet stretch since the last
// notification implies.
type becnRefRP struct {
	line, min  float64 // kb/s
	pauseAfter int
	tq, pause  units.Time

	rate       float64
	run        int
	paused     bool
	pauseEnd   units.Time
	last       units.Time // the latest notification
	any        bool       // a notification has come
	stepsTaken int        // recoveries applied since last
}

func becnNewRef(cfg rp.BECNConfig) *becnRefRP {
	line := float64(cfg.LineRate / rp.BECNRateUnit)
	return &becnRefRP{line: line, min: float64(cfg.MinRate / rp.BECNRateUnit), pauseAfter: int(cfg.PauseAfter),
		tq: cfg.QuietPeriod, pause: cfg.PauseTime, rate: line}
}

// advance brings the reference to time t: every whole quiet period since
// the last notification (at last + k·Tq ≤ t) ends the row and doubles the
// rate toward the line rate; a fixed pause ends at its end.
func (m *becnRefRP) advance(t units.Time) {
	if m.any && t >= m.last+m.tq {
		m.run = 0
		if m.pause == 0 {
			m.paused = false
		}
		k := int((t - m.last) / m.tq) // quiet periods elapsed
		for ; m.stepsTaken < k && m.rate < m.line; m.stepsTaken++ {
			m.rate = math.Min(2*m.rate, m.line)
		}
	}
	if m.paused && m.pause > 0 && t >= m.pauseEnd {
		m.paused = false
	}
}

// notify is a notification at t: half the rate (not below the minimum),
// one more in the row, pause from the PauseAfter-th on.
func (m *becnRefRP) notify(t units.Time) {
	m.advance(t)
	m.rate = math.Max(m.rate/2, m.min)
	m.run++
	if m.pauseAfter > 0 && m.run >= m.pauseAfter {
		m.paused = true
		m.pauseEnd = t + m.pause
	}
	m.last, m.any, m.stepsTaken = t, true, 0
}

// The RP against the float reference on random notification sequences:
// bursts in a row, gaps of about Tq (either side), long silences; timers
// called on time, late, early or not at all. The rates are powers of two
// in kb/s (line 2^26 kb/s ≈ 67 Gb/s, floor 2^10 kb/s), so that every halving
// and doubling is exact in both and the rates must agree exactly
// (tolerance 0); TestRPHalvingFloors covers a line rate that halves with
// a remainder.
func TestBECNMatchesFloatReference(t *testing.T) {
	for _, cfg := range []rp.BECNConfig{
		{LineRate: 1 << 26 * rp.BECNRateUnit, MinRate: 1 << 10 * rp.BECNRateUnit, PauseAfter: 5, QuietPeriod: becnTq},
		{LineRate: 1 << 26 * rp.BECNRateUnit, MinRate: 1 << 20 * rp.BECNRateUnit, PauseAfter: 3, QuietPeriod: 10 * becnUs, PauseTime: 25 * becnUs},
		{LineRate: 1 << 26 * rp.BECNRateUnit, MinRate: 1 << 10 * rp.BECNRateUnit, PauseAfter: 0, QuietPeriod: 7 * becnUs},
		{LineRate: 1 << 12 * rp.BECNRateUnit, MinRate: 1 << 12 * rp.BECNRateUnit, PauseAfter: 1, QuietPeriod: becnUs, PauseTime: 3 * becnUs},
	} {
		rng := rand.New(rand.NewPCG(11, uint64(cfg.QuietPeriod)^uint64(cfg.MinRate)))
		r := becnNewRP(t, cfg)
		m := becnNewRef(cfg)
		now := units.Time(0)
		pauses, maxRun := 0, 0
		for i := range 20000 {
			switch rng.IntN(10) {
			case 0: // a long silence: full recovery
				now += units.Time(30+rng.IntN(10)) * cfg.QuietPeriod
			case 1, 2: // around one quiet period, either side of it
				now += cfg.QuietPeriod + units.Time(rng.IntN(3)-1)
			default: // in a row
				now += units.Time(rng.Int64N(int64(cfg.QuietPeriod)))
			}
			if rng.IntN(3) == 0 { // a timer call somewhere before the notification
				at := r.Last() + units.Time(rng.Int64N(int64(now-r.Last())+1))
				require.NoError(t, r.Timer(at, nil))
			}
			becnNotify(t, r, now)
			m.notify(now)
			if m.paused {
				pauses++
			}
			maxRun = max(maxRun, m.run)
			check := func(at units.Time) {
				require.Equal(t, m.rate, float64(r.State().RC), "event %d at %v: rate", i, at)
				require.Equal(t, m.paused, r.Paused(), "event %d at %v: paused", i, at)
				require.Equal(t, min(m.run, 255), int(r.State().Run), "event %d at %v: run", i, at)
				l := r.Limits()
				require.Equal(t, units.Rate(r.State().RC)*rp.BECNRateUnit, l.Rate)
				require.Equal(t, m.paused, l.Credited)
				require.Zero(t, l.Credit)
				require.GreaterOrEqual(t, l.Rate, cfg.MinRate, "never below MinRate")
				require.LessOrEqual(t, l.Rate, cfg.LineRate, "never above the line rate")
			}
			check(now)
			// Now and then run the timer at each deadline up to a random
			// later time, as a simulator would, and compare there too.
			until := now
			if rng.IntN(4) == 0 {
				until += units.Time(rng.Int64N(int64(3 * cfg.QuietPeriod)))
			}
			for d := r.NextDeadline(); d <= until; d = r.NextDeadline() {
				require.NoError(t, r.Timer(d, nil))
				require.Greater(t, r.NextDeadline(), d, "a timer at the deadline moves it past now")
				m.advance(d)
				check(d)
				now = d
			}
		}
		t.Logf("%+v: %d notifications paused, longest row %d, %d steps up", cfg, pauses, maxRun, r.State().Steps)
		require.Equal(t, cfg.PauseAfter > 0, pauses > 0, "the run paused unless PauseAfter is 0")
		require.Equal(t, cfg.MinRate < cfg.LineRate, r.State().Steps > 0, "the rate stepped up unless it cannot move")
		require.Greater(t, maxRun, 10, "long rows too")
	}
}

// Halving floors in the 32-bit kb/s register: at 100 Gb/s (10^8 kb/s =
// 2^8·390 625), k notifications in a row leave ⌊10^8/2^k⌋ kb/s, never below
// MinRate (1 Mb/s = 1000 kb/s), and the way back doubles that floored
// value each quiet period, min(2^j·RC, 10^8), exactly (integers, no
// tolerance).
func TestBECNHalvingFloors(t *testing.T) {
	cfg := rp.BECNSurvey(100 * units.Gbps)
	cfg.PauseAfter = 0 // no pause: many in a row
	r := becnNewRP(t, cfg)
	const line = 100_000_000
	want := uint32(line)
	for k := 1; k <= 20; k++ {
		becnNotify(t, r, units.Time(k)*becnUs)
		want = max(want>>1, 1000)
		require.Equal(t, uint32(max(line>>k, 1000)), r.State().RC, "after %d", k)
		require.Equal(t, want, r.State().RC)
	}
	require.Equal(t, uint64(17), r.State().Cuts, "10^8/2^17 = 762 < 1000: the 17th cut hits the floor, later ones cut nothing")
	last := r.State().LastNote
	rc := uint64(r.State().RC)
	for j := 1; ; j++ {
		d := r.NextDeadline()
		require.Equal(t, last+units.Time(j)*becnTq, d, "one step per quiet period")
		require.NoError(t, r.Timer(d, nil))
		require.Equal(t, uint32(min(rc<<j, line)), r.State().RC, "step %d", j)
		if r.State().RC == line {
			require.Equal(t, 17, j, "1000·2^16 = 65 536 000 < 10^8 ≤ 1000·2^17")
			break
		}
	}
	require.Equal(t, units.MaxTime, r.NextDeadline(), "recovered: no timer")
	require.Equal(t, 100*units.Gbps, r.Limits().Rate)
}

// Exactly five in a row pause; four in a row, a quiet period, and a fifth
// do not; the fifth of a row less than Tq apart does.
func TestBECNPauseAfterFiveInARow(t *testing.T) {
	line := 40 * units.Gbps
	t.Run("five", func(t *testing.T) {
		r := becnNewRP(t, rp.BECNSurvey(line))
		for i := range 4 {
			becnNotify(t, r, units.Time(i)*(becnTq-1))
			require.False(t, r.Paused(), "after %d", i+1)
			require.False(t, r.Limits().Credited)
		}
		becnNotify(t, r, 4*(becnTq-1))
		require.True(t, r.Paused(), "the fifth in a row pauses")
		require.Equal(t, cc.Limits{Rate: line / 32, Credited: true, Credit: 0}, r.Limits(), "halved five times, gated")
		require.Equal(t, uint64(1), r.State().Pauses)
		becnNotify(t, r, 5*(becnTq-1))
		require.True(t, r.Paused(), "the sixth keeps it paused")
		require.Equal(t, uint64(1), r.State().Pauses, "one pause")
	})
	t.Run("four, quiet, one", func(t *testing.T) {
		r := becnNewRP(t, rp.BECNSurvey(line))
		for i := range 4 {
			becnNotify(t, r, units.Time(i)*becnUs)
		}
		require.Equal(t, uint8(4), r.State().Run)
		// A gap of exactly Tq is a quiet period: the timer fires at
		// last + Tq, before the notification at that instant.
		becnNotify(t, r, 3*becnUs+becnTq)
		require.False(t, r.Paused())
		require.Equal(t, uint8(1), r.State().Run, "a new row")
		require.Equal(t, line/16, r.Limits().Rate, "four halvings, one step up, one halving: line/16·2/2")
		for i := range 3 {
			becnNotify(t, r, 3*becnUs+becnTq+units.Time(i+1)*becnUs)
			require.False(t, r.Paused())
		}
		becnNotify(t, r, 3*becnUs+becnTq+4*becnUs)
		require.True(t, r.Paused(), "five in the new row")
	})
	t.Run("gap just under Tq", func(t *testing.T) {
		r := becnNewRP(t, rp.BECNSurvey(line))
		for i := range 5 {
			becnNotify(t, r, units.Time(i)*(becnTq-1))
		}
		require.True(t, r.Paused())
	})
}

// The pause ends with the row (PauseTime 0: at the first quiet period,
// with the first step up) or PauseTime after the latest pausing
// notification.
func TestBECNPauseEnds(t *testing.T) {
	line := 40 * units.Gbps
	r := becnNewRP(t, rp.BECNSurvey(line))
	for i := range 5 {
		becnNotify(t, r, units.Time(i)*becnUs)
	}
	require.True(t, r.Paused())
	require.Equal(t, 4*becnUs+becnTq, r.NextDeadline())
	require.NoError(t, r.Timer(4*becnUs+becnTq-1, nil))
	require.True(t, r.Paused(), "a timer before the deadline does nothing")
	require.NoError(t, r.Timer(4*becnUs+becnTq, nil))
	require.False(t, r.Paused())
	require.Equal(t, cc.Limits{Rate: line / 16}, r.Limits(), "resumed at one step up from line/32")

	cfg := rp.BECNSurvey(line)
	cfg.PauseTime = 200 * becnUs
	r = becnNewRP(t, cfg)
	for i := range 6 {
		becnNotify(t, r, units.Time(i)*becnUs)
	}
	require.Equal(t, 5*becnUs+becnTq, r.NextDeadline(), "the quiet timer comes first")
	require.NoError(t, r.Timer(5*becnUs+becnTq, nil))
	require.True(t, r.Paused(), "the quiet period does not end a PauseTime pause")
	require.Equal(t, line/32, r.Limits().Rate, "line/64, one step up while paused")
	require.NoError(t, r.Timer(5*becnUs+200*becnUs-1, nil))
	require.True(t, r.Paused())
	require.Equal(t, 5*becnUs+200*becnUs, r.NextDeadline(), "PauseTime after the latest (sixth) notification")
	require.NoError(t, r.Timer(5*becnUs+200*becnUs, nil))
	require.False(t, r.Paused())
}

// A notification runs what fell due before it: a caller that never calls
// Timer gets the same registers after each notification as one that
// calls it at every deadline.
func TestBECNLateTimerSameOutcome(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	cfg := rp.BECNSurvey(25 * units.Gbps)
	cfg.PauseTime = 80 * becnUs
	timely, lazy := becnNewRP(t, cfg), becnNewRP(t, cfg)
	now := units.Time(0)
	ack := cc.Feedback{Kind: cc.FeedbackAck}
	for range 5000 {
		now += units.Time(rng.Int64N(int64(3 * becnTq)))
		for d := timely.NextDeadline(); d <= now; d = timely.NextDeadline() {
			require.NoError(t, timely.Timer(d, nil))
		}
		// Any event runs the overdue expiries first (cc rule 4): a
		// notification, a packet sent, a message of a kind it does not use.
		switch rng.IntN(3) {
		case 0:
			becnNotify(t, timely, now)
			becnNotify(t, lazy, now)
		case 1:
			require.NoError(t, timely.Sent(now, becnPkt(1), nil))
			require.NoError(t, lazy.Sent(now, becnPkt(1), nil))
		default:
			require.NoError(t, timely.Feedback(now, &ack, nil))
			require.NoError(t, lazy.Feedback(now, &ack, nil))
		}
		require.Equal(t, timely.State(), lazy.State())
		require.Equal(t, timely.AppendRegisters(nil), lazy.AppendRegisters(nil))
		require.Greater(t, lazy.NextDeadline(), now)
	}
	require.NotZero(t, lazy.State().Steps)
	require.NotZero(t, lazy.State().Pauses)
}

// Kinds the RP does not use are counted in unused_feedback and change
// nothing else but the time (cc rule 8); nil input and negative sizes are
// refused and change nothing; time order is checked first, by every
// event.
func TestBECNEvents(t *testing.T) {
	r := becnNewRP(t, rp.BECNSurvey(10*units.Gbps))
	becnNotify(t, r, 10)
	before := r.AppendRegisters(nil)
	kinds := []cc.FeedbackKind{cc.FeedbackNone, cc.FeedbackAck, cc.FeedbackCNP, cc.FeedbackRate, cc.FeedbackUser, wire.FeedbackBECN + 1}
	for _, k := range kinds {
		require.NoError(t, r.Feedback(20, &cc.Feedback{Kind: k}, nil))
	}
	after := r.AppendRegisters(nil)
	n := len(after) - 1
	require.Equal(t, cc.TimeReg("now", 20), after[0])
	require.Equal(t, cc.Reg(cc.UnusedRegister, 64, uint64(len(kinds))), after[n])
	require.Equal(t, before[1:n], after[1:n], "nothing but the time and unused_feedback")
	require.Equal(t, uint64(len(kinds)), r.State().Unused.N())
	require.NoError(t, r.Sent(20, &cc.Packet{Payload: 1000, Size: 1082}, nil))
	require.Equal(t, after, r.AppendRegisters(nil))

	for _, err := range []error{
		r.Feedback(30, nil, nil),
		r.Sent(30, nil, nil),
		r.Sent(30, &cc.Packet{Size: -1}, nil),
		r.Sent(30, &cc.Packet{Payload: -1}, nil),
	} {
		require.ErrorIs(t, err, cc.ErrEvent)
		var ee *cc.EventError
		require.True(t, errors.As(err, &ee))
	}
	require.Equal(t, after, r.AppendRegisters(nil), "refused events change nothing")
	for _, err := range []error{
		r.Feedback(19, &becnNote, nil), r.Feedback(19, nil, nil), r.Sent(19, nil, nil), r.Timer(19, nil),
	} {
		var te *cc.TimeOrderError
		require.ErrorAs(t, err, &te)
		require.Equal(t, units.Time(19), te.Now)
		require.Equal(t, units.Time(20), te.Last)
	}
	require.Equal(t, after, r.AppendRegisters(nil))
	becnNotify(t, r, 20) // equal times are in order
	require.Equal(t, uint64(2), r.State().Notifications)
}

func TestBECNConfig(t *testing.T) {
	good := rp.BECNSurvey(100 * units.Gbps)
	require.NoError(t, good.Validate())
	require.Equal(t, rp.BECNConfig{LineRate: 100 * units.Gbps, MinRate: units.Mbps, PauseAfter: 5, QuietPeriod: 55 * becnUs}, good)
	require.Equal(t, 500*units.Kbps, rp.BECNSurvey(500*units.Kbps+999).MinRate, "a line below 1 Mb/s is its own floor, rounded down to 1 kb/s")
	for field, mod := range map[string]func(*rp.BECNConfig){
		"LineRate":    func(c *rp.BECNConfig) { c.LineRate = 0 },
		"MinRate":     func(c *rp.BECNConfig) { c.MinRate = c.LineRate + rp.BECNRateUnit },
		"QuietPeriod": func(c *rp.BECNConfig) { c.QuietPeriod = 0 },
		"PauseTime":   func(c *rp.BECNConfig) { c.PauseTime = 2 * units.Second },
	} {
		c := good
		mod(&c)
		_, err := rp.NewBECN(c)
		var ce *cc.ConfigError
		require.ErrorAs(t, err, &ce, field)
		require.Equal(t, field, ce.Field)
		require.ErrorIs(t, err, cc.ErrConfig)
	}
	c := good
	c.LineRate = rp.BECNMaxRate + rp.BECNRateUnit
	require.Error(t, c.Validate())
	c.LineRate = 100*units.Gbps + 1
	require.Error(t, c.Validate(), "not a multiple of 1 kb/s")
	c = good
	c.LineRate, c.MinRate = rp.BECNMaxRate, rp.BECNMaxRate
	r := becnNewRP(t, c)
	becnNotify(t, r, 0)
	require.Equal(t, rp.BECNMaxRate, r.Limits().Rate, "the 32-bit register holds the largest line rate")
}
