package np_test

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cc/cctest"
	"github.com/hwcc/hwcc/np"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// rcccCfg is the model's receiver at 100 Gb/s with 4096-byte packets and a
// 12 µs network RTT: 64 quanta per pull (4·4096/256), slow credit up to
// 1.5·150 000 B = 878 quanta.
func rcccCfg() np.RCCCConfig { return np.RCCCDefault(100*units.Gbps, 4096, 12*units.Microsecond) }

// rcccTau is τ as the part holds it: 8·256 B/(0.99·100 Gb/s) = 20 686.87
// ps, in Q16, rounded to nearest.
const rcccTau = 20686.868686868686

// pkt is a data packet of flow with pull target pt (quanta).
func pkt(flow cc.FlowID, pt uint32, trimmed, lastHop bool) *cc.Packet {
	p := &cc.Packet{Flow: flow, Payload: 4096, Size: 4178}
	wire.UECData{Valid: true, HasPull: true, PullTarget: pt, Frame: 4178, Payload: 4096,
		Trimmed: trimmed, LastHop: lastHop}.Put(&p.Hdr)
	return p
}

// pulls returns the pulls in act: (flow, pull number, slow).
func pulls(t *testing.T, act *cc.Actions) []wire.UECPull {
	t.Helper()
	var out []wire.UECPull
	for _, a := range act.All() {
		require.Equal(t, cc.ActionFeedback, a.Kind)
		require.Equal(t, cc.ToSource, a.To)
		require.Equal(t, cc.FeedbackCredit, a.Feedback.Kind)
		p, err := wire.DecodeUECPull(&a.Feedback)
		require.NoError(t, err)
		out = append(out, p)
	}
	return out
}

// One sender asks for 100 quanta: the idle pacer pulls at once (64, a
// pull's worth), then 64·τ later the 36 left, and the sender goes idle;
// 36·τ later a slow pull of 64 beyond its target. Each gap is τ per
// quantum granted, τ = 8·256/(0.99·100 Gb/s).
func TestRCCCPacesOneSender(t *testing.T) {
	r, err := np.NewRCCC(rcccCfg())
	require.NoError(t, err)
	act := cc.NewActions(8)
	require.NoError(t, r.Receive(1000, pkt(7, 100, false, false), act))
	require.Equal(t, []wire.UECPull{{Pull: 64}}, pulls(t, act))
	next := r.NextDeadline()
	require.InDelta(t, 1000+64*rcccTau, float64(next), 1, "64 quanta of pacing")
	act.Reset()
	require.NoError(t, r.Timer(next, act))
	require.Equal(t, []wire.UECPull{{Pull: 100}}, pulls(t, act))
	require.Equal(t, uint32(1), r.State().Idle)
	next2 := r.NextDeadline()
	require.InDelta(t, float64(next)+36*rcccTau, float64(next2), 1)
	act.Reset()
	require.NoError(t, r.Timer(next2, act))
	require.Equal(t, []wire.UECPull{{Pull: 164, Slow: true}}, pulls(t, act))
	for _, a := range act.All() {
		require.Equal(t, cc.FlowID(7), a.Feedback.Flow)
	}
}

// Slow pulls stop once an idle sender's slow credit reaches MaxCredit
// (878 quanta): ⌈878/64⌉ = 14 slow pulls, then the pacer stops.
func TestRCCCSlowCreditCap(t *testing.T) {
	r, err := np.NewRCCC(rcccCfg())
	require.NoError(t, err)
	act := cc.NewActions(64)
	require.NoError(t, r.Receive(0, pkt(1, 64, false, false), act))
	require.NoError(t, r.Timer(units.Second, act))
	ps := pulls(t, act)
	slow := 0
	for _, p := range ps {
		if p.Slow {
			slow++
		}
	}
	require.Equal(t, 14, slow)
	require.Equal(t, uint32(64+14*64), ps[len(ps)-1].Pull)
	require.Equal(t, units.MaxTime, r.NextDeadline(), "the pacer stopped")
}

// Round robin: three senders with large targets are pulled in turn, a
// pull's worth each, 64·τ apart, so the pulls arrive at 0.99 of the line
// rate shared equally. The first sender's packet starts the pacer (a pull
// at once, and back to the list's tail), so it is pulled again before the
// two that arrive after it: 1, 1, 2, 3, 1, 2, 3, … as in the model, whose
// pacer puts a sender still owed back at the tail before the others ask.
func TestRCCCRoundRobin(t *testing.T) {
	r, err := np.NewRCCC(rcccCfg())
	require.NoError(t, err)
	act := cc.NewActions(256)
	for f := cc.FlowID(1); f <= 3; f++ {
		require.NoError(t, r.Receive(0, pkt(f, 10000, false, false), act))
	}
	var times []units.Time
	var flows []cc.FlowID
	flows = append(flows, act.All()[0].Feedback.Flow)
	times = append(times, 0)
	for range 12 {
		at := r.NextDeadline()
		act.Reset()
		require.NoError(t, r.Timer(at, act))
		require.Equal(t, 1, act.Len())
		flows = append(flows, act.All()[0].Feedback.Flow)
		times = append(times, at)
	}
	for i, f := range flows {
		want := cc.FlowID(1)
		if i > 0 {
			want = cc.FlowID(1 + (i-1)%3)
		}
		require.Equal(t, want, f, "pull %d", i)
	}
	for i := 1; i < len(times); i++ {
		require.InDelta(t, 64*rcccTau, float64(times[i]-times[i-1]), 1)
	}
	for f := cc.FlowID(1); f <= 3; f++ {
		_, latest, ok := r.Sender(f)
		require.True(t, ok)
		want := map[cc.FlowID]uint32{1: 5 * 64, 2: 4 * 64, 3: 4 * 64}[f]
		require.Equal(t, want, latest, "flow %d", f)
	}
}

// A trimmed header puts its sender on the active list even when its
// target is not new (its payload must be resent); a target behind the
// highest is ignored.
func TestRCCCTrimmedRequestsPull(t *testing.T) {
	c := rcccCfg()
	c.MaxCredit = 0 // no slow pulls: the pacer stops when no one is owed
	r, err := np.NewRCCC(c)
	require.NoError(t, err)
	act := cc.NewActions(8)
	require.NoError(t, r.Receive(0, pkt(3, 10, false, false), act))
	require.NoError(t, r.Timer(units.Millisecond, act))
	require.Equal(t, units.MaxTime, r.NextDeadline())
	act.Reset()
	require.NoError(t, r.Receive(2*units.Millisecond, pkt(3, 5, false, false), act))
	require.Zero(t, act.Len(), "an old target starts nothing")
	require.NoError(t, r.Receive(2*units.Millisecond, pkt(3, 10, true, true), act))
	require.Equal(t, []wire.UECPull{{Pull: 10}}, pulls(t, act), "a pull, of nothing new")
	require.Equal(t, uint64(1), r.State().Trims)
}

// The receiver's rate for oversubscribed fabrics, one period by hand: of
// 10 packets 5 ECN-marked, F = 0.5, g = 0 + 0.5·0.5 = 0.25 ≤ 0.3: no
// decrease, rate stays 1 (the increase clamps); the next period with 10
// of 10 marked: g = 0.25 + 0.5·0.75 = 0.625, rate = 1·(1 − 0.325·0.5) =
// 0.8375, τ = τ₀/0.8375. A trim elsewhere than the last hop in a period of
// 4 packets takes 1/4 off the rate.
func TestRCCCOversubscribed(t *testing.T) {
	c := rcccCfg()
	c.Oversubscribed = true
	r, err := np.NewRCCC(c)
	require.NoError(t, err)
	act := cc.NewActions(4096)
	first := r.NextDeadline()
	require.GreaterOrEqual(t, float64(first), 0.75*1.5*12e6-1)
	require.LessOrEqual(t, float64(first), 1.25*1.5*12e6)
	p := &cc.Packet{Flow: 1}
	for i := range 10 {
		p.CE = i%2 == 0
		require.NoError(t, r.Receive(units.Time(i), p, act))
	}
	require.NoError(t, r.Timer(first, act))
	require.Equal(t, uint32(65536), r.State().Pacer.Rate)
	require.InDelta(t, 0.25, float64(r.State().Pacer.G)/65536, 2.0/65536)
	second := r.NextDeadline()
	p.CE = true
	for range 10 {
		require.NoError(t, r.Receive(first+1, p, act))
	}
	require.NoError(t, r.Timer(second, act))
	s := r.State().Pacer
	require.InDelta(t, 0.625, float64(s.G)/65536, 3.0/65536)
	require.InDelta(t, 0.8375, float64(s.Rate)/65536, 4.0/65536)
	require.InDelta(t, rcccTau/0.8375, float64(s.Tau)/65536, 0.01*rcccTau)

	r, err = np.NewRCCC(c)
	require.NoError(t, err)
	first = r.NextDeadline()
	for i := range 4 {
		require.NoError(t, r.Receive(units.Time(i), pkt(2, 0, i == 0, false), act))
	}
	require.NoError(t, r.Timer(first, act))
	require.InDelta(t, 0.75, float64(r.State().Pacer.Rate)/65536, 2.0/65536)
}

// A Timer left late is caught up tick by tick (cc rule 4), and a caller
// whose Actions cannot hold the pulls is refused with the count, the part
// unchanged.
func TestRCCCCatchUpAndFullActions(t *testing.T) {
	mk := func() *np.RCCC {
		r, err := np.NewRCCC(rcccCfg())
		require.NoError(t, err)
		require.NoError(t, r.Receive(0, pkt(1, 1000, false, false), cc.NewActions(1)))
		return r
	}
	late, onTime := mk(), mk()
	at := 20 * units.Microsecond
	big := cc.NewActions(256)
	require.NoError(t, late.Timer(at, big))
	var want []cc.Action
	small := cc.NewActions(1)
	for onTime.NextDeadline() <= at {
		small.Reset()
		require.NoError(t, onTime.Timer(onTime.NextDeadline(), small))
		want = append(want, small.All()...)
	}
	require.NoError(t, onTime.Timer(at, small))
	require.Equal(t, want, big.All())
	require.Equal(t, onTime.State(), late.State())

	r := mk()
	before := r.AppendRegisters(nil)
	tiny := cc.NewActions(2)
	err := r.Timer(at, tiny)
	var full *cc.ActionsFullError
	require.ErrorAs(t, err, &full)
	require.Equal(t, len(want), full.Need)
	require.Zero(t, tiny.Len())
	require.Equal(t, before, r.AppendRegisters(nil))
	require.NoError(t, cc.RunGrowing(&tiny, cc.ActionsLimit, func(a *cc.Actions) error { return r.Timer(at, a) }))
	require.Equal(t, want, tiny.All())
}

// rcccHdrs are headers the conformance suite's packets carry: pull
// targets that grow, trimmed ones among them.
func rcccHdrs() [][cc.PacketHdrLen]byte {
	var out [][cc.PacketHdrLen]byte
	for i := range 12 {
		var b [cc.PacketHdrLen]byte
		wire.UECData{Valid: true, HasPull: true, PullTarget: uint32(50 * (i + 1)), Frame: 1082, Payload: 1000,
			Trimmed: i%4 == 3, LastHop: i%8 == 3}.Put(&b)
		out = append(out, b)
	}
	return out
}

// TestRCCCContract runs the conformance suite, with and without the
// oversubscription option and slow pulls.
func TestRCCCContract(t *testing.T) {
	for name, mod := range map[string]func(*np.RCCCConfig){
		"default": func(*np.RCCCConfig) {}, "oversubscribed": func(c *np.RCCCConfig) { c.Oversubscribed = true },
		"noslow": func(c *np.RCCCConfig) { c.MaxCredit = 0 }, "tiny-table": func(c *np.RCCCConfig) { c.Senders = 1 },
	} {
		t.Run(name, func(t *testing.T) {
			c := np.RCCCDefault(100*units.Gbps, 1000, 5*units.Microsecond)
			mod(&c)
			o := cctest.Options{Gen: cctest.GenOptions{Hdrs: rcccHdrs()}}
			if testing.Short() {
				o.Sequences, o.Chaos, o.AllocSequences = 6, 12, 1
			}
			require.NoError(t, cctest.TestNP(func() (cc.NotificationPoint, error) { return np.NewRCCC(c) }, o))
		})
	}
}

// FuzzRCCC drives the receiver with cctest.FromBytes's events, their
// headers made valid UEC headers from the event's bytes: no panic, cc's
// errors only, a refused event changes nothing, and no sender is granted
// beyond its highest target by more than the slow credit and one pull.
func FuzzRCCC(f *testing.F) {
	f.Add(make([]byte, 16*8))
	seed := make([]byte, 16*16)
	for i := range seed {
		seed[i] = byte(i * 37)
	}
	f.Add(seed)
	f.Fuzz(func(t *testing.T, data []byte) {
		c := np.RCCCDefault(100*units.Gbps, 1000, 5*units.Microsecond)
		c.Senders = 4
		c.Oversubscribed = len(data) > 0 && data[0]&1 != 0
		r, err := np.NewRCCC(c)
		require.NoError(t, err)
		act := cc.NewActions(8)
		evs := cctest.FromBytes(data, cc.RoleNP)
		var before []cc.Register
		for i := range evs {
			ev := &evs[i]
			b := ev.Feedback.Data
			if b[0]&2 == 0 {
				wire.UECData{Valid: true, HasPull: b[0]&4 == 0, PullTarget: uint32(b[8])<<6 | uint32(b[9]),
					Trimmed: b[10]&1 != 0, LastHop: b[10]&3 == 3}.Put(&ev.Packet.Hdr)
			} else {
				copy(ev.Packet.Hdr[:], b[:])
			}
			act.Reset()
			before = r.AppendRegisters(before[:0])
			err := ev.Apply(r, act)
			if err != nil {
				if !cc.Typed(err) {
					t.Fatalf("event %d: untyped %v", i, err)
				}
				if !slices.Equal(before, r.AppendRegisters(nil)) || act.Len() != 0 {
					t.Fatalf("event %d refused (%v) but changed the part", i, err)
				}
				continue
			}
			rcccGrantBound(t, r, c)
		}
	})
}

// rcccGrantBound checks every sender of flows 0..7: latest − highest ≤
// MaxCredit + CreditPerPull in quanta (serial: a pull-mode grant never
// passes the target; slow pulls stop once the slow credit reaches
// MaxCredit, the last one overshooting by under a pull).
func rcccGrantBound(t *testing.T, r *np.RCCC, c np.RCCCConfig) {
	t.Helper()
	lim := int32(c.MaxCredit>>8) + int32(c.CreditPerPull>>8)
	for f := cc.FlowID(0); f < 8; f++ {
		h, l, ok := r.Sender(f)
		if ok && int32(l-h) > lim {
			t.Fatalf("flow %d: latest %d, highest %d: %d quanta beyond", f, l, h, int32(l-h))
		}
	}
}

// TestRCCCNoAllocs: the events allocate nothing.
func TestRCCCNoAllocs(t *testing.T) {
	r, err := np.NewRCCC(rcccCfg())
	require.NoError(t, err)
	act := cc.NewActions(64)
	now := units.Time(0)
	var p [4]*cc.Packet
	for i := range p {
		p[i] = pkt(cc.FlowID(i), 0, false, false)
	}
	pt := uint32(0)
	require.Zero(t, testing.AllocsPerRun(2000, func() {
		now += 300 * units.Nanosecond
		act.Reset()
		pt += 8
		q := p[pt%4]
		wire.UECData{Valid: true, HasPull: true, PullTarget: pt, Trimmed: pt%5 == 0}.Put(&q.Hdr)
		_ = r.Receive(now, q, act)
		_ = r.Timer(now, act)
	}))
	require.False(t, errors.Is(nil, cc.ErrEvent))
}

// TestRCCCGrantsWithinAdvertisedProperty: over random sequences of
// packets from 1 to 6 senders (pull targets that grow and fall back,
// trimmed headers, gaps from 0 to 5 µs, timers late or on time), no
// sender is ever granted beyond the pull target it advertised: without
// slow pulls its latest pull never passes its highest target; with them,
// by at most the slow-credit cap plus one pull (slow pulls stop once an
// idle sender's slow credit reaches MaxCredit).
func TestRCCCGrantsWithinAdvertisedProperty(t *testing.T) {
	params := gopter.DefaultTestParametersWithSeed(20250611)
	params.MinSuccessfulTests = 80
	props := gopter.NewProperties(params)
	props.Property("credit never exceeds the advertised backlog", prop.ForAll(
		func(seed uint64, senders, events int, slow bool) bool {
			c := rcccCfg()
			if !slow {
				c.MaxCredit = 0
			}
			r, err := np.NewRCCC(c)
			if err != nil {
				return false
			}
			rng := rand.New(rand.NewPCG(seed, 9))
			adv := make([]uint32, senders) // what each advertised, highest
			act := cc.NewActions(4096)
			now := units.Time(0)
			lim := int32(c.MaxCredit>>8) + int32(c.CreditPerPull>>8)
			for range events {
				now += units.Time(rng.IntN(5000)) * units.Nanosecond
				act.Reset()
				f := rng.IntN(senders)
				switch rng.IntN(4) {
				case 0:
					if err := r.Timer(now, act); err != nil {
						return false
					}
				default:
					pt := adv[f] + uint32(rng.IntN(200))
					if rng.IntN(5) == 0 {
						pt = adv[f] - uint32(rng.IntN(100)) // an old target, behind
					}
					if serial := int32(pt - adv[f]); serial > 0 {
						adv[f] = pt
					}
					if err := r.Receive(now, pkt(cc.FlowID(f), pt, rng.IntN(6) == 0, rng.IntN(2) == 0), act); err != nil {
						return false
					}
				}
				for g := range senders {
					h, l, ok := r.Sender(cc.FlowID(g))
					if !ok {
						continue
					}
					if h != adv[g] {
						t.Logf("sender %d: highest %d, advertised %d", g, h, adv[g])
						return false
					}
					if over := int32(l - h); (!slow && over > 0) || over > lim {
						t.Logf("sender %d: latest %d, highest %d", g, l, h)
						return false
					}
				}
			}
			return true
		},
		gen.UInt64().WithLabel("seed"), gen.IntRange(1, 6).WithLabel("senders"),
		gen.IntRange(1, 3000).WithLabel("events"), gen.Bool().WithLabel("slow pulls"),
	))
	props.TestingRun(t)
}
