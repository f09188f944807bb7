package mercury_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/mercury"
	"github.com/hwcc/hwcc/units"
)

// switchRound is one packet through a congested Determined port: it joins
// a queue of about 60 KB (above the 40 KB threshold: a CNP when its entry
// is due) and the head leaves.
func switchRound(s *mercury.Switch, act *cc.Actions, now units.Time, i int) error {
	act.Reset()
	p := cc.Packet{Flow: cc.FlowID(i & 15), Src: cc.NodeID(i & 15), Dst: 99, Size: frame, Prio: 3}
	if err := s.Enqueue(now, 1, &p, q(60*frame), act); err != nil {
		return err
	}
	return s.Dequeue(now, 1, &p, q(59*frame), act)
}

func warm(t testing.TB) (*mercury.Switch, *cc.Actions) {
	s := newSwitch(t)
	act := cc.NewActions(8)
	for i := range 59 {
		p := cc.Packet{Src: cc.NodeID(i & 15), Dst: 99, Size: frame, Prio: 3}
		act.Reset()
		require.NoError(t, s.Enqueue(0, 1, &p, q(units.Bytes(i+1)*frame), act))
	}
	return s, act
}

// TestNoAllocs: the switch's and the sender's events allocate nothing.
func TestNoAllocs(t *testing.T) {
	s, act := warm(t)
	now := units.Time(0)
	i := 0
	n := testing.AllocsPerRun(1000, func() {
		now += 100 * units.Nanosecond
		i++
		if err := switchRound(s, act, now, i); err != nil {
			panic(err)
		}
	})
	require.Zero(t, n, "Switch")
	require.Positive(t, s.CNPs())

	snd, err := mercury.NewSender(mercury.PaperSender(line40, rtt16))
	require.NoError(t, err)
	f := cnp(1, mercury.Window{}, 10_000)
	p := cc.Packet{Payload: 1000}
	n = testing.AllocsPerRun(1000, func() {
		now += units.Microsecond
		_ = snd.Sent(now, &p, nil)
		_ = snd.Feedback(now, f, nil)
		_ = snd.Timer(now, nil)
	})
	require.Zero(t, n, "Sender")
}

// BenchmarkSwitch: one enqueue and one dequeue at a congested port (a CNP
// every 50 µs per flow entry).
func BenchmarkSwitch(b *testing.B) {
	s, act := warm(b)
	now := units.Time(0)
	b.ReportAllocs()
	for i := range b.N {
		now += 100 * units.Nanosecond
		if err := switchRound(s, act, now, i); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSender: a packet sent and a CNP taken.
func BenchmarkSender(b *testing.B) {
	snd, err := mercury.NewSender(mercury.PaperSender(line40, rtt16))
	require.NoError(b, err)
	f := cnp(1, mercury.Window{}, 10_000)
	p := cc.Packet{Payload: 1000}
	now := units.Time(0)
	b.ReportAllocs()
	for range b.N {
		now += units.Microsecond
		_ = snd.Sent(now, &p, nil)
		_ = snd.Feedback(now, f, nil)
	}
}
