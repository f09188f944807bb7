package rp

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// dcqcnRegs returns d's registers.
func dcqcnRegs(d *DCQCN) []cc.Register { return d.AppendRegisters(nil) }

// The contract methods and the fast paths they run (onCNP, onSend,
// onTimer) leave the same registers and
// limits on the same random events (CNPs, sends, ACKs, timer calls, for the
// three presets and both decrease schedules); the contract never appends
// an action and takes a nil Actions; after every event the deadline is
// later than now (every timer due by now has run).
func TestDCQCNContractMatchesTyped(t *testing.T) {
	increases := uint64(0)
	for i, base := range []DCQCNConfig{DCQCNConnectX(25 * units.Gbps), DCQCNPaper(25 * units.Gbps), DCQCNHPCCSim(25 * units.Gbps)} {
		for _, mode := range []DCQCNRateReduceMode{DCQCNReduceSpacing, DCQCNReduceGrid} {
			cfg := base
			cfg.RateReduceMode = mode
			typed, err := NewDCQCN(cfg)
			require.NoError(t, err)
			contract, err := NewDCQCN(cfg)
			require.NoError(t, err)
			r := rand.New(rand.NewPCG(uint64(i), uint64(mode)))
			act := cc.NewActions(1)
			now := units.Time(0)
			for e := range 4000 {
				now += units.Time(r.Int64N(int64(20 * units.Microsecond)))
				switch k := r.IntN(8); {
				case k < 2:
					require.NoError(t, typed.onCNP(now))
					require.NoError(t, contract.Feedback(now, &cc.Feedback{Kind: cc.FeedbackCNP, Flow: 4}, act))
				case k < 5:
					n := units.Bytes(r.Int64N(int64(DCQCNMaxSendBytes) + 1))
					require.NoError(t, typed.onSend(now, n))
					require.NoError(t, contract.Sent(now, &cc.Packet{Flow: 4, Payload: n, Size: n + 82}, nil))
				case k < 6:
					// An ACK is of no use but for the timers due: counted.
					require.NoError(t, typed.onTimer(now))
					typed.s.Unused.Count()
					require.NoError(t, contract.Feedback(now, &cc.Feedback{Kind: cc.FeedbackAck, Flow: 4, Seq: 1000}, nil))
				default:
					if dl := typed.NextDeadline(); dl != units.MaxTime && r.IntN(2) == 0 {
						now = max(now, dl)
					}
					require.NoError(t, typed.onTimer(now))
					require.NoError(t, contract.Timer(now, act))
				}
				require.Zero(t, act.Len(), "DCQCN's RP appends nothing")
				require.Greater(t, contract.NextDeadline(), now, "event %d", e)
				require.Equal(t, dcqcnRegs(typed), dcqcnRegs(contract), "%v %v event %d", i, mode, e)
				require.Equal(t, cc.Limits{Rate: typed.Rate()}, contract.Limits())
			}
			require.Positive(t, typed.State().Decreases)
			increases += typed.State().Increases
		}
	}
	require.Positive(t, increases)
}

// Time going backwards (or below 0) is a *cc.TimeOrderError from every
// event, naming both times, and changes no register; so are the time
// checks of a nil packet or feedback, which are otherwise
// *cc.EventError, as is a byte count out of range.
func TestDCQCNContractTimeOrder(t *testing.T) {
	d, err := NewDCQCN(DCQCNConnectX(100 * units.Gbps))
	require.NoError(t, err)
	require.NoError(t, d.onCNP(10*dcqcnUs))
	require.NoError(t, d.onSend(20*dcqcnUs, 1000))
	before := dcqcnRegs(d)
	cnp := &cc.Feedback{Kind: cc.FeedbackCNP}
	// The fast paths (onCNP, onSend, onTimer) name the contract event they
	// serve.
	for _, e := range []struct {
		name string
		ev   func(now units.Time) error
	}{
		{"Sent", func(now units.Time) error { return d.Sent(now, &cc.Packet{Payload: 1000}, nil) }},
		{"Feedback", func(now units.Time) error { return d.Feedback(now, cnp, nil) }},
		{"Timer", func(now units.Time) error { return d.Timer(now, nil) }},
		{"Feedback", func(now units.Time) error { return d.onCNP(now) }},
		{"Sent", func(now units.Time) error { return d.onSend(now, 1000) }},
		{"Timer", func(now units.Time) error { return d.onTimer(now) }},
	} {
		for _, now := range []units.Time{20*dcqcnUs - 1, -1} {
			err := e.ev(now)
			var to *cc.TimeOrderError
			require.ErrorAs(t, err, &to, e.name)
			require.Equal(t, cc.TimeOrderError{Part: "rp.DCQCN", Event: e.name, Now: now, Last: 20 * dcqcnUs}, *to)
			require.Equal(t, before, dcqcnRegs(d), e.name)
		}
	}
	require.ErrorIs(t, d.Sent(1, nil, nil), cc.ErrTimeOrder)
	require.ErrorIs(t, d.Feedback(1, nil, nil), cc.ErrTimeOrder)
	now := 30 * dcqcnUs
	for _, err := range []error{
		d.Sent(now, nil, nil),
		d.Feedback(now, nil, nil),
		d.Sent(now, &cc.Packet{Payload: -1}, nil),
		d.Sent(now, &cc.Packet{Payload: DCQCNMaxSendBytes + 1}, nil),
	} {
		var ee *cc.EventError
		require.ErrorAs(t, err, &ee)
		require.Equal(t, "rp.DCQCN", ee.Part)
		require.True(t, cc.Typed(err))
		require.Equal(t, before, dcqcnRegs(d))
	}
}

// DCQCN's RP decides nothing that needs room: a full or nil Actions works
// for every event, and stays as it was.
func TestDCQCNContractActionsFull(t *testing.T) {
	full := cc.NewActions(1)
	full.MarkCE()
	for _, act := range []*cc.Actions{nil, full, cc.NewActions(0)} {
		d, err := NewDCQCN(DCQCNConnectX(100 * units.Gbps))
		require.NoError(t, err)
		require.NoError(t, d.Feedback(0, &cc.Feedback{Kind: cc.FeedbackCNP}, act))
		require.NoError(t, d.Sent(dcqcnUs, &cc.Packet{Payload: 4096}, act))
		require.NoError(t, d.Feedback(2*dcqcnUs, &cc.Feedback{Kind: cc.FeedbackCNP}, act))
		require.NoError(t, d.Timer(4*dcqcnUs, act)) // the pending cut, 4 µs after the first
		require.Equal(t, uint64(2), d.State().Decreases)
	}
	require.Equal(t, 1, full.Len())
}

// Every kind of feedback but a CNP is of no use to DCQCN (cc's rule 8): an
// ACK, a NAK, a rate message, a user kind, the zero kind leave the
// registers as onTimer at the same time would (the timers due run first,
// as for any event), but for unused_feedback, which counts each.
func TestDCQCNContractUnusedFeedback(t *testing.T) {
	kinds := []cc.FeedbackKind{cc.FeedbackNone, cc.FeedbackAck, cc.FeedbackNak, cc.FeedbackRate, cc.FeedbackUser}
	a, err := NewDCQCN(DCQCNConnectX(100 * units.Gbps))
	require.NoError(t, err)
	b, err := NewDCQCN(DCQCNConnectX(100 * units.Gbps))
	require.NoError(t, err)
	require.NoError(t, a.onCNP(0))
	require.NoError(t, b.onCNP(0))
	for i, k := range kinds {
		now := units.Time(i+1) * 350 * dcqcnUs
		require.NoError(t, a.Feedback(now, &cc.Feedback{Kind: k, ECE: true}, nil))
		require.NoError(t, b.onTimer(now))
		ra, rb := dcqcnRegs(a), dcqcnRegs(b)
		n := len(ra) - 1
		require.Equal(t, cc.UnusedRegister, ra[n].Name)
		require.Equal(t, uint64(i+1), ra[n].Value, k.String())
		require.Equal(t, uint64(i+1), a.State().Unused.N(), k.String())
		require.Equal(t, rb[:n], ra[:n], k.String())
		require.Equal(t, uint64(1), a.State().CNPs, k.String())
	}
	require.Positive(t, a.State().Increases, "the timers ran")
}

// The registers: names, widths and order fixed, every value within its
// width (α's register AlphaFracBits wide).
func TestDCQCNRegisters(t *testing.T) {
	for _, f := range []uint8{10, 20, 24} {
		cfg := DCQCNConnectX(100 * units.Gbps)
		cfg.AlphaFracBits = f
		d, err := NewDCQCN(cfg)
		require.NoError(t, err)
		require.NoError(t, d.onCNP(3))
		var names []string
		for _, r := range dcqcnRegs(d) {
			require.True(t, r.Fits(), r.String())
			names = append(names, r.Name)
			if r.Name == "alpha" {
				require.Equal(t, f, r.Width)
				require.Equal(t, uint64(d.AlphaRaw()), r.Value)
			}
		}
		require.Equal(t, []string{
			"now", "active", "rc", "rt", "prev_rc", "alpha", "alpha_cnp_arrived", "decrease_pending",
			"timer_stage", "byte_stage", "byte_count", "alpha_anchor", "next_alpha", "next_increase",
			"next_decrease", "decreased", "last_decrease", "cnps", "decreases", "increases", cc.UnusedRegister,
		}, names)
	}
	d, err := NewDCQCN(DCQCNConnectX(100 * units.Gbps))
	require.NoError(t, err)
	require.NoError(t, d.onCNP(3))
	regs := dcqcnRegs(d)
	require.Equal(t, "now[64]=3", regs[0].String())
	require.Equal(t, "rc[32]=50049", regs[2].String(), "100000 − ⌊100000·1023/2048⌋")
	require.Equal(t, "rt[32]=100000", regs[3].String())
}

// Timer before the deadline only records now; at or after it, every
// expiry due runs and the deadline moves past now.
func TestDCQCNContractDeadlines(t *testing.T) {
	d, err := NewDCQCN(DCQCNConnectX(100 * units.Gbps))
	require.NoError(t, err)
	require.Equal(t, units.MaxTime, d.NextDeadline())
	require.NoError(t, d.Timer(5, nil), "no timer yet: Timer only records now")
	require.Equal(t, units.Time(5), d.Last())
	require.NoError(t, d.Feedback(10, &cc.Feedback{Kind: cc.FeedbackCNP}, nil))
	dl := d.NextDeadline()
	require.Equal(t, 10+dcqcnUs, dl, "the α tick")
	before := dcqcnRegs(d)
	require.NoError(t, d.Timer(dl-1, nil))
	after := dcqcnRegs(d)
	require.Equal(t, before[1:], after[1:], "early: only the time moved")
	require.NoError(t, d.Timer(dl+5*dcqcnUs, nil))
	require.Greater(t, d.NextDeadline(), dl+5*dcqcnUs)
}

// Zero allocations per contract event, and for AppendRegisters with room
// (each case on its own part, every call checked to succeed).
func TestDCQCNContractNoAllocs(t *testing.T) {
	act := cc.NewActions(1)
	cnp := cc.Feedback{Kind: cc.FeedbackCNP, Flow: 1}
	ack := cc.Feedback{Kind: cc.FeedbackAck, Flow: 1}
	p := cc.Packet{Flow: 1, Payload: 4096, Size: 4178}
	regs := make([]cc.Register, 0, 32)
	for _, c := range []struct {
		name string
		f    func(d *DCQCN, now units.Time)
	}{
		{"Feedback CNP", func(d *DCQCN, now units.Time) { require.NoError(t, d.Feedback(now, &cnp, act)) }},
		{"Feedback ACK", func(d *DCQCN, now units.Time) { require.NoError(t, d.Feedback(now, &ack, act)) }},
		{"Sent", func(d *DCQCN, now units.Time) { require.NoError(t, d.Sent(now, &p, act)) }},
		{"Timer", func(d *DCQCN, now units.Time) {
			require.NoError(t, d.Feedback(now, &cnp, act))
			require.NoError(t, d.Timer(d.NextDeadline(), act))
		}},
		{"Limits", func(d *DCQCN, _ units.Time) { _ = d.Limits() }},
		{"AppendRegisters", func(d *DCQCN, _ units.Time) { regs = d.AppendRegisters(regs[:0]) }},
	} {
		d, err := NewDCQCN(DCQCNConnectX(100 * units.Gbps))
		require.NoError(t, err)
		require.NoError(t, d.onCNP(0))
		now := units.Time(0)
		require.Zero(t, testing.AllocsPerRun(1000, func() { now += 5 * dcqcnUs; c.f(d, now) }), c.name)
	}
}

// BenchmarkDCQCNContractFeedback is BenchmarkDCQCNOnCNP through the
// contract.
func BenchmarkDCQCNContractFeedback(b *testing.B) {
	d, _ := NewDCQCN(DCQCNConnectX(100 * units.Gbps))
	f := cc.Feedback{Kind: cc.FeedbackCNP, Flow: 1}
	act := cc.NewActions(1)
	now := units.Time(0)
	b.ReportAllocs()
	for b.Loop() {
		now += 5 * dcqcnUs
		_ = d.Feedback(now, &f, act)
	}
}

// BenchmarkDCQCNContractSent is BenchmarkDCQCNOnSend through the contract.
func BenchmarkDCQCNContractSent(b *testing.B) {
	d, _ := NewDCQCN(DCQCNConnectX(100 * units.Gbps))
	p := cc.Packet{Flow: 1, Payload: 4096, Size: 4178}
	act := cc.NewActions(1)
	now := units.Time(0)
	_ = d.onCNP(now)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		now += 400 * units.Nanosecond
		if i%250 == 0 {
			_ = d.onCNP(now)
		}
		_ = d.Sent(now, &p, act)
		i++
	}
}

// BenchmarkDCQCNContractTimer is BenchmarkDCQCNOnTimer through the
// contract.
func BenchmarkDCQCNContractTimer(b *testing.B) {
	d, _ := NewDCQCN(DCQCNConnectX(100 * units.Gbps))
	act := cc.NewActions(1)
	_ = d.onCNP(0)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		dl := d.NextDeadline()
		if dl == units.MaxTime || i%400 == 0 {
			_ = d.onCNP(d.Last() + dcqcnUs)
			dl = d.NextDeadline()
		}
		_ = d.Timer(dl, act)
		i++
	}
}

// cc's rules 3 and 4 through the contract. Rule 3: DCQCN's reaction point
// never decides, so every event takes a nil *cc.Actions. Rule 4: a part
// given only the events (its timers left to pass, caught up by the next
// event) holds after each the registers of a twin whose Timer was called
// at every deadline before it; neither appends an action. (Rule 8:
// TestDCQCNContractUnusedFeedback.)
func TestDCQCNContractRules(t *testing.T) {
	for _, cfg := range []DCQCNConfig{DCQCNConnectX(25 * units.Gbps), DCQCNPaper(25 * units.Gbps), DCQCNHPCCSim(25 * units.Gbps)} {
		x, err := NewDCQCN(cfg)
		require.NoError(t, err)
		y, err := NewDCQCN(cfg)
		require.NoError(t, err)
		r := rand.New(rand.NewPCG(5, uint64(cfg.RpgTimeReset)))
		actX := cc.NewActions(4)
		now := units.Time(0)
		ticks := 0
		for e := range 3000 {
			now += units.Time(r.Int64N(int64(60 * units.Microsecond)))
			for d := x.NextDeadline(); d <= now; d = x.NextDeadline() {
				require.NoError(t, x.Timer(d, actX))
				ticks++
			}
			var ev func(d *DCQCN, act *cc.Actions) error
			switch k := r.IntN(40); {
			case k < 1: // a CNP every 1.2 ms on average: the increase timers expire
				ev = func(d *DCQCN, act *cc.Actions) error {
					return d.Feedback(now, &cc.Feedback{Kind: cc.FeedbackCNP, Flow: 2}, act)
				}
			case k < 30:
				ev = func(d *DCQCN, act *cc.Actions) error { return d.Sent(now, &cc.Packet{Flow: 2, Payload: 4096}, act) }
			default:
				ev = func(d *DCQCN, act *cc.Actions) error {
					return d.Feedback(now, &cc.Feedback{Kind: cc.FeedbackAck, Flow: 2}, act)
				}
			}
			require.NoError(t, ev(x, actX))
			require.NoError(t, ev(y, nil), "event %d: a nil Actions is taken", e)
			require.Equal(t, dcqcnRegs(x), dcqcnRegs(y), "event %d", e)
		}
		require.Zero(t, actX.Len())
		require.Positive(t, ticks)
		require.Positive(t, y.State().Increases)
		require.Positive(t, y.State().Decreases)
		require.NoError(t, y.Timer(now+units.Second, nil))
	}
}
