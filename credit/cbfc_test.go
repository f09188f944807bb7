package credit_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/credit"
	"github.com/hwcc/hwcc/units"
)

// cbfcMod is the 4096 modulus written as the test's own constant.
const cbfcMod = 4096

// cbfcSenderAt returns a sender whose FCTBS is phase and whose credit is
// c blocks (0..2048), reached through the public events only: grants of
// at most 2048 blocks and sends of at most 2047.
func cbfcSenderAt(t testing.TB, phase, c int) *credit.CBFCSender {
	t.Helper()
	s, err := credit.NewCBFCSender(3)
	require.NoError(t, err)
	for sent := 0; sent < phase; {
		n := min(phase-sent, 2047)
		ok, err := s.Update(0, uint16((sent+n)%cbfcMod))
		require.NoError(t, err)
		require.True(t, ok)
		require.NoError(t, s.Send(0, credit.Blocks(n)))
		sent += n
	}
	ok, err := s.Update(0, uint16((phase+c)%cbfcMod))
	require.NoError(t, err)
	require.True(t, ok || c == 0) // c = 0 repeats the limit in force
	require.EqualValues(t, phase%cbfcMod, s.FCTBS())
	require.EqualValues(t, c, s.Credit())
	return s
}

// TestCBFCSendTest: at every phase of FCTBS and every credit c in
// [0, 2048], the sender passes a packet of n blocks exactly when n ≤ c
// (the meaning of credit), and agrees with IBA's formula
// (FCCL − (FCTBS + n)) mod 4096 ≤ 2048 evaluated here with Go's % on
// non-negative ints. Phases step by 13 (coprime to 4096) plus the edges.
func TestCBFCSendTest(t *testing.T) {
	phases := []int{0, 1, 2047, 2048, 2049, 4094, 4095}
	for p := 5; p < cbfcMod; p += 13 {
		phases = append(phases, p)
	}
	for _, phase := range phases {
		for _, c := range []int{0, 1, 2, 63, 64, 1000, 2046, 2047, 2048} {
			s := cbfcSenderAt(t, phase, c)
			for _, n := range []int{1, 2, c - 1, c, c + 1, 66, 1024, 2046, 2047} {
				if n < 1 || n > 2047 {
					continue
				}
				iba := ((int(s.FCCL())-(int(s.FCTBS())+n))%cbfcMod+cbfcMod)%cbfcMod <= 2048
				require.Equal(t, n <= c, s.CanSend(credit.Blocks(n)), "phase %d credit %d n %d", phase, c, n)
				require.Equal(t, iba, s.CanSend(credit.Blocks(n)), "phase %d credit %d n %d", phase, c, n)
			}
		}
	}
}

// TestCBFCSendTestLimit shows why MaxPacketBlocks is 2047: with no credit
// at all, IBA's formula passes a packet of 2048 blocks ((0 − 2048) mod 4096
// = 2048), so the sender refuses that size outright.
func TestCBFCSendTestLimit(t *testing.T) {
	s := cbfcSenderAt(t, 0, 0)
	require.Equal(t, 2048, ((0-(0+2048))%cbfcMod+cbfcMod)%cbfcMod) // the formula's verdict: pass
	require.False(t, s.CanSend(2048))
	err := s.Send(1, 2048)
	require.ErrorIs(t, err, cc.ErrEvent)
	require.False(t, errors.Is(err, credit.ErrNoCredit)) // a size refusal, not a credit one
	require.False(t, s.CanSend(0))
	require.False(t, s.CanSend(-1))
}

// TestCBFCSenderRefusals: every refusal is typed and leaves the registers
// as they were.
func TestCBFCSenderRefusals(t *testing.T) {
	_, err := credit.NewCBFCSender(15)
	require.ErrorIs(t, err, cc.ErrConfig)

	s := cbfcSenderAt(t, 4000, 100) // credit wraps past 4095
	require.NoError(t, s.Send(10, 60))
	before := s.AppendRegisters(nil)
	cases := []struct {
		name string
		do   func() error
		is   error
	}{
		{"no credit", func() error { return s.Send(10, 41) }, credit.ErrNoCredit},
		{"size", func() error { return s.Send(10, 0) }, cc.ErrEvent},
		{"time order", func() error { return s.Send(9, 1) }, cc.ErrTimeOrder},
		{"13-bit FCCL", func() error { _, err := s.Update(10, 4096); return err }, cc.ErrEvent},
		{"update time order", func() error { _, err := s.Update(9, 0); return err }, cc.ErrTimeOrder},
		{"wrong VL", func() error { _, err := s.UpdateFC(10, credit.FCPacket{VL: 2}); return err }, cc.ErrEvent},
		{"bad packet", func() error { _, err := s.UpdateFC(10, credit.FCPacket{VL: 3, Op: 7}); return err }, cc.ErrEvent},
	}
	for _, c := range cases {
		err := c.do()
		require.ErrorIs(t, err, c.is, c.name)
		require.True(t, cc.Typed(err), c.name)
		require.Equal(t, before, s.AppendRegisters(nil), c.name)
	}
	require.EqualValues(t, 40, s.Credit())
}

// TestCBFCUpdateRule checks Update's acceptance rule against the truth it
// stands for. A receiver made an update with limit L = ABR_u + a (a ≤ 2048
// free blocks advertised); when it arrives the sender has sent T blocks,
// T ≥ ABR_u, and holds credit c. The update is safe to take exactly when
// x = L − T ≥ 0 and it does not lower the credit (x ≥ c). Within the bound
// T − ABR_u < 2048 (so x > −2048), the rule must accept exactly those,
// and then the credit becomes x: no aliasing, at any phase.
func TestCBFCUpdateRule(t *testing.T) {
	for _, phase := range []int{0, 1, 1000, 2047, 2048, 4095} {
		for _, c := range []int{0, 1, 700, 2048} {
			for x := -2047; x <= 2048; x++ {
				s := cbfcSenderAt(t, phase, c)
				fccl := uint16(((phase+x)%cbfcMod + cbfcMod) % cbfcMod)
				ok, err := s.Update(1, fccl)
				require.NoError(t, err)
				want := x >= c
				require.Equal(t, want, ok, "phase %d credit %d x %d", phase, c, x)
				if want {
					require.EqualValues(t, x, s.Credit())
				} else {
					require.EqualValues(t, c, s.Credit())
				}
			}
		}
	}
}

// TestCBFCFCInit: an init packet assigns the limit, also backwards, within
// 2048 blocks of FCTBS; beyond that it is ignored like a stale update.
func TestCBFCFCInit(t *testing.T) {
	s := cbfcSenderAt(t, 4090, 1000) // FCCL = 5090 mod 4096 = 994
	ok, err := s.UpdateFC(1, credit.FCPacket{Op: credit.FCInit, VL: 3, FCCL: 4090 + 10 - cbfcMod})
	require.NoError(t, err)
	require.True(t, ok)
	require.EqualValues(t, 10, s.Credit()) // moved back from 1000 to 10
	// A normal packet would not have moved it back.
	ok, err = s.UpdateFC(2, credit.FCPacket{Op: credit.FCNormal, VL: 3, FCCL: 4095})
	require.NoError(t, err)
	require.False(t, ok)
	require.EqualValues(t, 10, s.Credit())
	// 2049 ahead: ignored, counted.
	ok, err = s.UpdateFC(3, credit.FCPacket{Op: credit.FCInit, VL: 3, FCCL: (4090 + 2049) % cbfcMod})
	require.NoError(t, err)
	require.False(t, ok)
	require.EqualValues(t, 2, s.Ignored())
}

func cbfcReceiver(t testing.TB, capacity credit.Blocks, period, gap units.Time) *credit.CBFCReceiver {
	t.Helper()
	r, err := credit.NewCBFCReceiver(credit.CBFCReceiverConfig{VL: 3, Capacity: capacity, Period: period, MinGap: gap})
	require.NoError(t, err)
	return r
}

// TestCBFCReceiverFCCL: the advertised limit is (ABR + min(free, 2048))
// mod 4096 after every event, ABR counts received blocks mod 4096 and is
// overwritten by Resync, and free = Capacity − held.
func TestCBFCReceiverFCCL(t *testing.T) {
	r := cbfcReceiver(t, 3000, units.Microsecond, 0)
	abr, free := 0, 3000
	check := func() {
		t.Helper()
		require.EqualValues(t, abr%cbfcMod, r.ABR())
		require.EqualValues(t, free, r.Free())
		require.EqualValues(t, (abr+min(free, 2048))%cbfcMod, r.FCCL())
		require.EqualValues(t, 3000-free, r.Held())
	}
	check()
	for i := range 200 { // 200 × 97 blocks wraps ABR four times
		require.NoError(t, r.Absorb(units.Time(i), 97))
		abr, free = abr+97, free-97
		check()
		require.NoError(t, r.Drain(units.Time(i), 97))
		free += 97
		check()
	}
	require.NoError(t, r.Absorb(300, 2047))
	abr, free = abr+2047, free-2047
	check()
	require.NoError(t, r.Resync(301, 5))
	abr = 5
	check()
	err := r.Absorb(302, 954)
	require.ErrorIs(t, err, credit.ErrOverrun)
	require.True(t, cc.Typed(err))
	check()
	require.ErrorIs(t, r.Drain(302, 2048), cc.ErrEvent)
	require.ErrorIs(t, r.Resync(302, 4096), cc.ErrEvent)
	require.ErrorIs(t, r.Absorb(1, 1), cc.ErrTimeOrder)
	require.ErrorIs(t, r.ResyncFC(302, credit.FCPacket{VL: 4}), cc.ErrEvent)
	check()
	require.NoError(t, r.ResyncFC(303, credit.FCPacket{VL: 3, FCTBS: 4095}))
	abr = 4095
	check()
	require.EqualValues(t, 200*97+2047, r.Received())
	require.EqualValues(t, 200*97, r.Drained())
}

// TestCBFCReceiverConfig: each field out of range is a *cc.ConfigError.
func TestCBFCReceiverConfig(t *testing.T) {
	ok := credit.CBFCReceiverConfig{VL: 0, Capacity: 1, Period: 1}
	require.NoError(t, ok.Validate())
	for _, c := range []credit.CBFCReceiverConfig{
		{VL: 15, Capacity: 1, Period: 1},
		{Capacity: 0, Period: 1},
		{Capacity: credit.MaxCapacity + 1, Period: 1},
		{Capacity: 1, Period: 0},
		{Capacity: 1, Period: 10, MinGap: 11},
		{Capacity: 1, Period: 10, MinGap: -1},
	} {
		_, err := credit.NewCBFCReceiver(c)
		var ce *cc.ConfigError
		require.ErrorAs(t, err, &ce, "%+v", c)
	}
}

// TestCBFCTiming checks NextDeadline and Advertise against the closed form:
// the first packet is due at once; afterwards at last + Period, or, when
// the limit differs from the last advertised, at max(change, last +
// MinGap) if that is earlier. Advertise sends at or after the deadline only.
func TestCBFCTiming(t *testing.T) {
	const P, G = 100 * units.Nanosecond, 30 * units.Nanosecond
	r := cbfcReceiver(t, 5000, P, G)
	require.Equal(t, units.Time(0), r.NextDeadline())
	p, sent, err := r.Advertise(0)
	require.NoError(t, err)
	require.True(t, sent)
	require.Equal(t, credit.FCPacket{Op: credit.FCNormal, VL: 3, FCCL: 2048}, p)
	require.Equal(t, P, r.NextDeadline()) // periodic: last + P

	// No change: periodic packets at k·P; an early Advertise sends nothing.
	_, sent, err = r.Advertise(P - 1)
	require.NoError(t, err)
	require.False(t, sent)
	_, sent, _ = r.Advertise(P)
	require.True(t, sent)
	require.Equal(t, 2*P, r.NextDeadline())

	// A receive at P+10 with 5000 free moves FCCL (ABR+10, free still
	// ≥ 2048 after it): due at max(P+10, P+G) = P+G.
	require.NoError(t, r.Absorb(P+10, 10))
	require.Equal(t, P+G, r.NextDeadline())
	// A change after the gap is due at once.
	r2 := cbfcReceiver(t, 5000, P, G)
	r2.Advertise(0)
	require.NoError(t, r2.Absorb(G+5, 1))
	require.Equal(t, G+5, r2.NextDeadline())

	p, sent, _ = r.Advertise(P + G)
	require.True(t, sent)
	require.EqualValues(t, 10+2048, p.FCCL)
	require.Equal(t, 2*P+G, r.NextDeadline())

	// A change undone before the packet (buffer below 2048 free: a receive
	// leaves FCCL alone; fill it first) sends nothing early.
	r3 := cbfcReceiver(t, 100, P, G)
	r3.Advertise(0) // FCCL = 100
	require.NoError(t, r3.Absorb(1, 50))
	require.Equal(t, P, r3.NextDeadline()) // ABR+50, free−50: FCCL unchanged
	require.NoError(t, r3.Drain(2, 20))
	require.Equal(t, G, r3.NextDeadline()) // FCCL 120 ≠ 100: on change, gap G
	require.NoError(t, r3.Resync(3, 30))   // ABR 50 → 30: FCCL back to 100
	require.Equal(t, P, r3.NextDeadline())

	// Missed periods are one expiry: an Advertise at 10·P sends once, next at 11·P.
	r4 := cbfcReceiver(t, 100, P, 0)
	r4.Advertise(0)
	_, sent, _ = r4.Advertise(10 * P)
	require.True(t, sent)
	require.Equal(t, 11*P, r4.NextDeadline())
	_, sent, _ = r4.Advertise(10 * P)
	require.False(t, sent)

	// MinGap 0: every change is due at once.
	require.NoError(t, r4.Absorb(10*P+1, 1))
	require.NoError(t, r4.Drain(10*P+2, 1))
	require.Equal(t, 10*P+2, r4.NextDeadline())

	_, _, err = r4.Advertise(0)
	require.ErrorIs(t, err, cc.ErrTimeOrder)
}

// TestCBFCTimingSchedule drives a receiver with a periodic timer only and
// checks the packet times against k·Period for many periods, including
// IBAUpdatePeriod's value for a 4 ns symbol (65,536 × 4 ns = 262.144 µs).
func TestCBFCTimingSchedule(t *testing.T) {
	P := credit.IBAUpdatePeriod(4 * units.Nanosecond)
	require.Equal(t, 262144*units.Nanosecond, P)
	require.Equal(t, 5242880*units.Picosecond, credit.IBAUpdatePeriod(80*units.Picosecond))
	require.Equal(t, units.Time(0), credit.IBAUpdatePeriod(0))
	require.Equal(t, units.MaxTime, credit.IBAUpdatePeriod(units.MaxTime))
	r := cbfcReceiver(t, 64, P, 0)
	for k := range 1000 {
		require.Equal(t, units.Time(k)*P, r.NextDeadline())
		_, sent, err := r.Advertise(units.Time(k) * P)
		require.NoError(t, err)
		require.True(t, sent)
	}
}

// TestCBFCBlocksOf: ceil(n/64), checked against integer division written
// the other way round.
func TestCBFCBlocksOf(t *testing.T) {
	for n := units.Bytes(-5); n < 5000; n++ {
		want := credit.Blocks(0)
		if n > 0 {
			want = credit.Blocks((n + 63) / 64)
		}
		require.Equal(t, want, credit.BlocksOf(n), "n=%d", n)
	}
	require.Equal(t, credit.Blocks(1<<31-1), credit.BlocksOf(units.Bytes(1)<<62))
	require.Equal(t, units.Bytes(4224), credit.Blocks(66).Bytes())
}

// TestCBFCRegisters: every register fits its width after a busy run.
func TestCBFCRegisters(t *testing.T) {
	s := cbfcSenderAt(t, 4000, 2048)
	r := cbfcReceiver(t, credit.MaxCapacity, units.Microsecond, 0)
	require.NoError(t, r.Absorb(5, 2047))
	for _, reg := range append(s.AppendRegisters(nil), r.AppendRegisters(nil)...) {
		require.True(t, reg.Fits(), reg.String())
	}
	require.Len(t, s.AppendRegisters(nil), 6)
	require.Len(t, r.AppendRegisters(nil), 10)
}
