package rp

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/units"
)

// TestDCQCNShortCatchUpIsGeneral: alphaRun's one-loop catch-up (fewer than
// dcqcnTickLoop periods) leaves α, the CNP flag and NextAlpha exactly as
// the general two steps do (dcqcnTicks counts the ticks and the deadline
// after them, alphaTicks applies them, the timer idles if it reports so),
// over seeded random registers (α from 0 to 2^f − 1, with and without a
// CNP flagged), widths f = 10..24, every g from the edges (0, 1, 1019,
// 1023) and random, periods and phases, including deadlines at the end of
// time.
func TestDCQCNShortCatchUpIsGeneral(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 3))
	for i := range 200_000 {
		cfg := DCQCNConnectX(100 * units.Gbps)
		cfg.AlphaFracBits = uint8(DCQCNAlphaFracBitsMin + rng.IntN(DCQCNAlphaFracBitsMax-DCQCNAlphaFracBitsMin+1))
		cfg.DceTCPG = [...]fixedpoint.UQ0_10{0, 1, 1019, 1023, fixedpoint.UQ0_10(rng.IntN(1024))}[rng.IntN(5)]
		cfg.DceTCPRtt = units.Time(1 + rng.Int64N(int64(DCQCNMaxPeriod)))
		if rng.IntN(2) == 0 {
			cfg.DceTCPRtt = units.Microsecond
		}
		d, err := NewDCQCN(cfg)
		require.NoError(t, err)
		p := cfg.DceTCPRtt
		d.s.Active = true
		d.s.AlphaRaw = uint32(rng.Uint64N(dcqcnAlphaMax(d) + 1))
		if rng.IntN(4) == 0 {
			d.s.AlphaRaw = uint32(rng.IntN(3)) // near the idle edge
		}
		d.s.AlphaCNPArrived = rng.IntN(2) == 0
		d.s.NextAlpha = units.Time(rng.Int64N(1 << 40))
		switch rng.IntN(16) {
		case 0, 1:
			d.s.NextAlpha = units.MaxTime - units.Time(rng.Int64N(int64(dcqcnTickLoop)*int64(p)))
		case 2:
			d.s.NextAlpha = units.MaxTime // idle
		}
		gap := units.Time(rng.Int64N(dcqcnTickLoop * int64(p)))
		if rng.IntN(3) == 0 {
			gap = units.Time(rng.IntN(dcqcnTickLoop)) * p // on a tick
		}
		bound := d.s.NextAlpha + min(gap, units.MaxTime-d.s.NextAlpha) // at most the end of time

		want := *d
		if k, after := dcqcnTicks(want.s.NextAlpha, bound, p); k > 0 {
			if want.alphaTicks(k) {
				want.s.NextAlpha = units.MaxTime
			} else {
				want.s.NextAlpha = after
			}
		}
		d.alphaRun(bound, false)
		if d.s != want.s {
			t.Fatalf("case %d (f %d, g %d, p %v, bound − next %v): got %+v, want %+v",
				i, cfg.AlphaFracBits, cfg.DceTCPG, p, bound-want.s.NextAlpha, d.s, want.s)
		}
	}
}

// TestDCQCNEventsNoAllocs: every event path, typed and through the
// contract, allocates nothing on success, whether no timer is due, one α
// tick is, a short catch-up (counted by subtraction) or a long one (by
// division) runs, or an increase or a pending decrease fires.
func TestDCQCNEventsNoAllocs(t *testing.T) {
	act := cc.NewActions(1)
	cnp := cc.Feedback{Kind: cc.FeedbackCNP, Flow: 1}
	ack := cc.Feedback{Kind: cc.FeedbackAck, Flow: 1}
	p := cc.Packet{Flow: 1, Payload: 4096, Size: 4178}
	events := []struct {
		name string
		f    func(d *DCQCN, now units.Time) error
	}{
		{"onCNP", func(d *DCQCN, now units.Time) error { return d.onCNP(now) }},
		{"onSend", func(d *DCQCN, now units.Time) error { return d.onSend(now, 4096) }},
		{"onTimer", func(d *DCQCN, now units.Time) error { return d.onTimer(now) }},
		{"Feedback CNP", func(d *DCQCN, now units.Time) error { return d.Feedback(now, &cnp, act) }},
		{"Feedback ACK", func(d *DCQCN, now units.Time) error { return d.Feedback(now, &ack, act) }},
		{"Sent", func(d *DCQCN, now units.Time) error { return d.Sent(now, &p, act) }},
		{"Timer", func(d *DCQCN, now units.Time) error { return d.Timer(now, act) }},
	}
	for _, presetCase := range []struct {
		name string
		cfg  DCQCNConfig
	}{{"ConnectX", DCQCNConnectX(100 * units.Gbps)}, {"HPCCSim", DCQCNHPCCSim(100 * units.Gbps)}} {
		for _, e := range events {
			// The spacing between events: none, a fraction of the α period,
			// one period, a short catch-up, a long one, past the increase
			// timer.
			for _, step := range []units.Time{0, 300 * units.Nanosecond, units.Microsecond, 7 * units.Microsecond,
				9 * units.Microsecond, 40 * units.Microsecond, 400 * units.Microsecond} {
				d, err := NewDCQCN(presetCase.cfg)
				require.NoError(t, err)
				require.NoError(t, d.onCNP(0))
				now := units.Time(0)
				i := 0
				allocs := testing.AllocsPerRun(500, func() {
					now += step
					if i++; i%5 == 0 {
						_ = d.onCNP(now) // keep α and the decrease timer busy
					}
					if err := e.f(d, now); err != nil {
						t.Fatal(err)
					}
				})
				require.Zero(t, allocs, "%s, %s every %v", presetCase.name, e.name, step)
			}
		}
	}
}

// TestDCQCNTicksClosedForm: dcqcnTicks (its count by subtraction below
// dcqcnTickLoop periods, by division above) is the closed form k =
// ⌊(bound − next)/period⌋ + 1, after = next + k·period saturated at
// units.MaxTime (math/big), 0 ticks when next > bound or the timer is idle;
// over periods up to DCQCNMaxPeriod, gaps on, beside and between ticks
// around dcqcnTickLoop periods, and deadlines near the end of time.
func TestDCQCNTicksClosedForm(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 44))
	maxT := big.NewInt(int64(units.MaxTime))
	for range 200_000 {
		p := units.Time(1 + rng.Int64N(int64(DCQCNMaxPeriod)))
		if rng.IntN(3) == 0 {
			p = units.Time(1 + rng.IntN(1000))
		}
		next := units.Time(rng.Int64N(1 << 50))
		if rng.IntN(8) == 0 {
			next = units.MaxTime - units.Time(rng.Int64N(int64(4*dcqcnTickLoop)*int64(p)))
		}
		j := rng.Int64N(3 * dcqcnTickLoop)
		off := [...]int64{0, -1, 1, rng.Int64N(int64(p))}[rng.IntN(4)]
		gap := j*int64(p) + off
		bound := next + units.Time(min(max(gap, -1), int64(units.MaxTime-next)))
		k, after := dcqcnTicks(next, bound, p)
		if next > bound || next == units.MaxTime {
			require.Zero(t, k)
			require.Equal(t, next, after)
			continue
		}
		wantK := uint64((bound-next)/p) + 1
		wantAfter := new(big.Int).Mul(big.NewInt(int64(wantK)), big.NewInt(int64(p)))
		wantAfter.Add(wantAfter, big.NewInt(int64(next)))
		if wantAfter.Cmp(maxT) > 0 {
			wantAfter.Set(maxT)
		}
		require.Equal(t, wantK, k, "next %d bound %d period %d", next, bound, p)
		require.Equal(t, units.Time(wantAfter.Int64()), after, "next %d bound %d period %d", next, bound, p)
	}
}

// dcqcnAlphaMax is the α register's largest value, 2^f − 1.
func dcqcnAlphaMax(d *DCQCN) uint64 { return uint64(1)<<d.cfg.AlphaFracBits - 1 }
