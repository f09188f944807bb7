package cp

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/voq"
	"github.com/hwcc/hwcc/wire"
)

func hierccNewReceiver(t testing.TB) *hierccReceiver {
	r, err := newHierCCReceiver(hierccPaperReceiver(2, 8, hierccLine25))
	require.NoError(t, err)
	return r
}

// TestHierCCReceiverPacing: credits come one per Δ of port time (1 KB at 25
// Gb/s: 320 ns), to the VOQ that reported bytes, only while C < S; the
// WRR splits them by F_ij.
func TestHierCCReceiverPacing(t *testing.T) {
	r := hierccNewReceiver(t)
	require.Equal(t, 320*units.Nanosecond, r.Interval())
	require.Equal(t, units.MaxTime, r.NextDeadline(), "nothing to credit")
	// VOQ 1.7 (3 flows) and 2.7 (1 flow) have each sent 1 MB beyond C0.
	_, err := r.Arrive(0, 1, wire.HierCCHeader{ToR: 1, Dst: 7, Flows: 3, Sent: 1_010_000})
	require.NoError(t, err)
	_, err = r.Arrive(0, 1, wire.HierCCHeader{ToR: 2, Dst: 7, Flows: 1, Sent: 1_010_000})
	require.NoError(t, err)
	require.Equal(t, units.Time(0), r.NextDeadline())
	out := make([]wire.HierCCCreditPacket, 0, r.MaxCreditPackets())
	per := map[uint16]int{}
	now := units.Time(0)
	for i := range 40 {
		// Both keep sending (S grows by 1 KB per tick each), so both
		// stay eligible (C < S) and the WRR's weights decide.
		for tor := uint16(1); tor <= 2; tor++ {
			_, err = r.Arrive(now, 1, wire.HierCCHeader{ToR: tor, Dst: 7, Flows: 3 - 2*(tor-1), Sent: 1_010_000 + 1000*uint32(i)})
			require.NoError(t, err)
		}
		out, err = r.Timer(now, out[:0])
		require.NoError(t, err)
		require.Len(t, out, 1, "one credit per tick on time")
		require.Equal(t, uint32(1000), out[0].Amount)
		require.Equal(t, uint16(7), uint16(out[0].Dst))
		per[out[0].ToR]++
		now = r.NextDeadline()
		require.Equal(t, units.Time(0), now%(320*units.Nanosecond))
	}
	require.Equal(t, map[uint16]int{1: 30, 2: 10}, per, "weights 3:1")
	e, ok := r.Entry(1, 1)
	require.True(t, ok)
	require.Equal(t, uint32(1_000_000+30_000), e.C, "C starts at S − C0 = 1 MB")
	// A timer ten ticks late sends the credit of every tick it missed,
	// eleven (both VOQs are owed far more), and ticks on from the last.
	before := r.Credits()
	out, err = r.Timer(now+10*320*units.Nanosecond, out[:0])
	require.NoError(t, err)
	require.Len(t, out, 11)
	require.Equal(t, before+11, r.Credits())
	require.Equal(t, now+11*320*units.Nanosecond, r.NextDeadline())
	// An early timer does nothing.
	n := r.Credits()
	out, err = r.Timer(r.NextDeadline()-1, out[:0])
	require.NoError(t, err)
	require.Empty(t, out)
	require.Equal(t, n, r.Credits())
}

// TestHierCCReceiverCreditsNeverPassSent: a property over random sequences of
// headers (several ToRs, S growing by random packets, reordered and
// stale reports, wraps of the 32-bit S) and timers: at every step every
// entry has C ≤ S + Δ − 1 in serial order, and the credits to a ToR add up
// to its C's growth.
func TestHierCCReceiverCreditsNeverPassSent(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for range 100 {
		r := hierccNewReceiver(t)
		sent := [8]uint32{}
		for i := range sent {
			sent[i] = rng.Uint32() // anywhere, wraps included
		}
		granted := map[[2]int]uint64{}
		first := map[[2]int]uint32{}
		now := units.Time(0)
		var out []wire.HierCCCreditPacket
		take := func() {
			t.Helper()
			var err error
			out, err = r.Timer(now, out[:0])
			require.NoError(t, err)
			for _, c := range out {
				port := int(c.Dst) - 40
				k := [2]int{port, int(c.ToR)}
				granted[k] += uint64(c.Amount)
				require.Equal(t, first[k]+uint32(granted[k]), c.Total, "each credit carries C_ij after it")
			}
		}
		for range 400 {
			now += units.Time(rng.Intn(2000)) * units.Nanosecond
			if rng.Intn(2) == 0 {
				take() // the credits due before the header, as cp.HierCC runs them
				tor := rng.Intn(8)
				port := rng.Intn(2)
				s := sent[tor]
				if rng.Intn(8) != 0 {
					sent[tor] += uint32(1 + rng.Intn(9000))
					s = sent[tor]
				} else {
					s -= uint32(rng.Intn(5000)) // a stale report
				}
				_, err := r.Arrive(now, port, wire.HierCCHeader{ToR: uint16(tor), Dst: voq.Key(40 + port), Flows: uint16(rng.Intn(5)), Sent: s})
				require.NoError(t, err)
				if _, ok := first[[2]int{port, tor}]; !ok {
					e, _ := r.Entry(port, tor)
					first[[2]int{port, tor}] = e.C
				}
			} else {
				take()
			}
			for port := range 2 {
				for tor := range 8 {
					e, ok := r.Entry(port, tor)
					if !ok {
						continue
					}
					require.LessOrEqual(t, int64(int32(e.C-e.S)), int64(999), "C ≤ S + Δ − 1")
					require.Equal(t, uint32(granted[[2]int{port, tor}]), e.C-first[[2]int{port, tor}])
				}
			}
		}
	}
}

// TestHierCCReceiverRefusals: refused events return typed errors and change no
// register.
func TestHierCCReceiverRefusals(t *testing.T) {
	r := hierccNewReceiver(t)
	_, err := r.Arrive(100, 0, wire.HierCCHeader{ToR: 1, Dst: 3, Sent: 20_000})
	require.NoError(t, err)
	before := r.AppendRegisters(nil)
	for name, call := range map[string]func() error{
		"port":       func() error { _, err := r.Arrive(200, 2, wire.HierCCHeader{}); return err },
		"negative":   func() error { _, err := r.Arrive(200, -1, wire.HierCCHeader{}); return err },
		"other host": func() error { _, err := r.Arrive(200, 0, wire.HierCCHeader{ToR: 1, Dst: 4}); return err },
		"tor":        func() error { _, err := r.Arrive(200, 1, wire.HierCCHeader{ToR: 8}); return err },
		"back":       func() error { _, err := r.Arrive(99, 1, wire.HierCCHeader{}); return err },
		"timer back": func() error { _, err := r.Timer(99, nil); return err },
	} {
		err := call()
		require.Error(t, err, name)
		require.True(t, cc.Typed(err), name)
		require.Equal(t, before, r.AppendRegisters(nil), name)
	}
	h, ok := r.Host(0)
	require.True(t, ok)
	require.Equal(t, voq.Key(3), h)
	for _, rg := range before {
		require.True(t, rg.Fits(), rg.Name)
	}
	for field, c := range map[string]hierccReceiverConfig{
		"Ports": {Ports: 0, ToRs: 1, Rate: 1, Delta: 1},
		"ToRs":  {Ports: 1, ToRs: 4097, Rate: 1, Delta: 1},
		"Rate":  {Ports: 1, ToRs: 1, Rate: 0, Delta: 1},
		"Delta": {Ports: 1, ToRs: 1, Rate: 1, Delta: 0},
	} {
		_, err := newHierCCReceiver(c)
		var ce *cc.ConfigError
		require.ErrorAs(t, err, &ce, field)
		require.Equal(t, field, ce.Field)
	}
}

// TestHierCCCreditExchange: a credit exchange between sender-side ToR 1
// and the receiver-side ToR of host 7. The VOQ starts with C0 = 10 KB and
// is offered 12 packets of 1 KB, so it sends ten (its credit reaches 0,
// 2 KB stay queued); the receiver learns S_ij = 10 KB from their headers
// and grants one 1 KB credit per tick only while C_ij < S_ij: ten credits,
// which make C_ij = S_ij and restore the VOQ's balance to C0.
func TestHierCCCreditExchange(t *testing.T) {
	line := 25 * units.Gbps
	s, err := newHierCCSender(hierccPaperSender(1, 8, line, 1000))
	require.NoError(t, err)
	r, err := newHierCCReceiver(hierccPaperReceiver(1, 4, line))
	require.NoError(t, err)
	require.NoError(t, s.FlowStart(0, 7))

	var rates []wire.HierCCRatePacket
	var credits []wire.HierCCCreditPacket
	for range 12 {
		_, rates, err = s.Arrive(0, hierccArrival{Flow: 42, Dst: 7, Size: 1000}, rates[:0])
		require.NoError(t, err)
	}
	for { // the uplink serves the VOQ while it has credit
		slot, ok := s.Next()
		if !ok {
			break
		}
		h, _, err := s.Dequeue(0, slot, 1000, rates[:0])
		require.NoError(t, err)
		_, err = r.Arrive(units.Microsecond, 0, h) // one hop later
		require.NoError(t, err)
	}
	st, err := s.VOQs().State(0)
	require.NoError(t, err)
	require.Equal(t, uint32(10000), st.Sent)
	require.Equal(t, units.Bytes(0), st.Credit)
	require.Equal(t, 2*units.KB, st.Queued)

	for r.NextDeadline() != units.MaxTime {
		at := r.NextDeadline()
		credits, err = r.Timer(at, credits[:0])
		require.NoError(t, err)
		for _, c := range credits {
			require.NoError(t, s.Credit(at, c))
		}
	}
	e, ok := r.Entry(0, 1)
	require.True(t, ok)
	require.Equal(t, uint32(10000), e.S)
	require.Equal(t, uint32(10000), e.C)
	require.Equal(t, uint64(10), r.Credits())
	st, err = s.VOQs().State(0)
	require.NoError(t, err)
	require.Equal(t, 10*units.KB, st.Credit)
	require.True(t, st.Active)
}
