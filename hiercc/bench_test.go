package hiercc_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/hiercc"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/voq"
)

// busySender returns a SenderToR with 16 VOQs holding data and plenty of
// credit.
func busySender(t testing.TB) *hiercc.SenderToR {
	s := newSender(t)
	for d := range voq.Key(16) {
		_, _, err := s.Arrive(0, hiercc.Arrival{Flow: cc.FlowID(d), Dst: d, Size: 1000}, nil)
		require.NoError(t, err)
	}
	return s
}

// TestNoAllocs: every per-event method of the ToRs, the first hop and the
// host allocates nothing when the caller's slices have room.
func TestNoAllocs(t *testing.T) {
	s := busySender(t)
	out := make([]hiercc.RatePacket, 0, s.MaxRatePackets())
	now := units.Time(0)
	n := testing.AllocsPerRun(500, func() {
		now += 100 * units.Nanosecond
		sl, o, _ := s.Arrive(now, hiercc.Arrival{Flow: 3, Dst: 3, Size: 1000, Mark: true}, out[:0])
		_, o, _ = s.Dequeue(now, sl, 1000, o[:0])
		_ = s.Credit(now, hiercc.CreditPacket{ToR: 3, Dst: 3, Amount: 1000})
		_ = s.Timer(now)
		_ = o
	})
	require.Zero(t, n, "SenderToR")

	r := newReceiver(t)
	cout := make([]hiercc.CreditPacket, 0, r.MaxCreditPackets())
	var sent uint32
	n = testing.AllocsPerRun(500, func() {
		now += 320 * units.Nanosecond
		sent += 1000
		_, _ = r.Arrive(now, 0, hiercc.Header{ToR: 1, Dst: 3, Flows: 2, Sent: sent})
		cout, _ = r.Timer(now, cout[:0])
	})
	require.Zero(t, n, "ReceiverToR")

	h, err := hiercc.NewHost(hiercc.PaperHost(line25))
	require.NoError(t, err)
	fb, _ := hiercc.RatePacket{Flow: 0, Rate: 1000}.Feedback()
	var p cc.Packet
	n = testing.AllocsPerRun(500, func() {
		now += units.Microsecond
		_ = h.Sent(now, &p, nil)
		_ = h.Feedback(now, &fb, nil)
		_ = h.Limits()
	})
	require.Zero(t, n, "Host")
}

func BenchmarkSenderArriveCreditDequeue(b *testing.B) {
	s := busySender(b)
	out := make([]hiercc.RatePacket, 0, s.MaxRatePackets())
	now := units.Time(0)
	b.ReportAllocs()
	for i := range b.N {
		now += 10 * units.Nanosecond
		sl, _, _ := s.Arrive(now, hiercc.Arrival{Flow: 1, Dst: voq.Key(i & 15), Size: 1000, Mark: i&7 == 0}, out[:0])
		_ = s.Credit(now, hiercc.CreditPacket{ToR: 3, Dst: voq.Key(i & 15), Amount: 1000}) // keep it eligible
		_, _, _ = s.Dequeue(now, sl, 1000, out[:0])                                        // and short
	}
}

func BenchmarkSenderTimer(b *testing.B) {
	s := busySender(b)
	now := units.Time(0)
	b.ReportAllocs()
	for range b.N {
		now += 10 * units.Microsecond // an update of all 16 VOQs each time
		_ = s.Timer(now)
	}
}

func BenchmarkReceiver(b *testing.B) {
	r := newReceiver(b)
	out := make([]hiercc.CreditPacket, 0, r.MaxCreditPackets())
	now := units.Time(0)
	var sent [8]uint32
	b.ReportAllocs()
	for i := range b.N {
		now += 320 * units.Nanosecond
		tor := i & 7
		sent[tor] += 1000
		_, _ = r.Arrive(now, 0, hiercc.Header{ToR: uint16(tor), Dst: 3, Flows: uint16(tor), Sent: sent[tor]})
		out, _ = r.Timer(now, out[:0])
	}
}

func BenchmarkFirstHopUpdate(b *testing.B) {
	f, err := hiercc.NewFirstHop(hiercc.PaperFirstHop(line25))
	require.NoError(b, err)
	now := units.Time(0)
	b.ReportAllocs()
	for range b.N {
		now += 10 * units.Microsecond
		_, _ = f.Arrive(now, 30_000, 30_000)
		_ = f.Credit(now, 25_000)
		_, _ = f.Timer(now, 30_000)
	}
}

func BenchmarkHost(b *testing.B) {
	h, err := hiercc.NewHost(hiercc.PaperHost(line25))
	require.NoError(b, err)
	fb, _ := hiercc.RatePacket{Flow: 0, Rate: 1000}.Feedback()
	var p cc.Packet
	now := units.Time(0)
	b.ReportAllocs()
	for range b.N {
		now += units.Microsecond
		_ = h.Sent(now, &p, nil)
		_ = h.Feedback(now, &fb, nil)
	}
}

func BenchmarkCodecs(b *testing.B) {
	hd := hiercc.Header{ToR: 1, Dst: 2, Flows: 3, Sent: 4}
	b.ReportAllocs()
	for range b.N {
		var p cc.Packet
		_ = hd.Put(&p.Hdr)
		x, _ := hiercc.DecodeHeader(p.Hdr[:])
		f, _ := hiercc.RatePacket{Flow: 1, Rate: x.Sent}.Feedback()
		_, _ = hiercc.DecodeRatePacket(f.Data[:])
	}
}

// torRound is one packet's life through two ToRs: joins A's uplink,
// leaves it, joins B's server port, then both timers and A takes B's
// credits. It reports the events it ran.
func torRound(a, b *hiercc.ToR, act, msg *cc.Actions, now units.Time, p *cc.Packet) (events int, err error) {
	act.Reset()
	ev := func(e error) {
		events++
		if err == nil {
			err = e
		}
	}
	ev(a.Enqueue(now, upPort, p, cc.Queue{}, act))
	ev(a.Dequeue(now, upPort, p, cc.Queue{}, act))
	ev(b.Enqueue(now, 0, p, cc.Queue{}, act))
	act.Reset()
	ev(b.Timer(now, act))
	for _, x := range act.All() {
		if x.To == cc.ToSwitch {
			msg.Reset()
			ev(a.Message(now, upPort, &x.Feedback, msg))
		}
	}
	msg.Reset()
	ev(a.Timer(now, msg))
	return events, err
}

// TestToRNoAllocs: a ToR's events allocate nothing, on a loop of two ToRs
// whose every event is accepted.
func TestToRNoAllocs(t *testing.T) {
	a, b := newToR(t, torA, 10, 11), newToR(t, torB, 20, 21)
	act, msg := cc.NewActions(256), cc.NewActions(256)
	now := units.Time(0)
	var p cc.Packet
	n := testing.AllocsPerRun(500, func() {
		now += 400 * units.Nanosecond
		p = cc.Packet{Flow: 1, Src: 10, Dst: 20, Payload: 1000, Size: frame, Hdr: hiercc.HostHeader(hiercc.FlagMark)}
		if _, err := torRound(a, b, act, msg, now, &p); err != nil {
			panic(err)
		}
	})
	require.Zero(t, n)
}

// BenchmarkToR: per event of a ToR (ns/op is per event: see torRound).
func BenchmarkToR(b *testing.B) {
	ta, tb := newToR(b, torA, 10, 11), newToR(b, torB, 20, 21)
	act, msg := cc.NewActions(256), cc.NewActions(256)
	now := units.Time(0)
	events := 0
	var p cc.Packet
	b.ReportAllocs()
	for i := range b.N {
		now += 400 * units.Nanosecond
		p = cc.Packet{Flow: cc.FlowID(i & 7), Src: 10, Dst: 20, Payload: 1000, Size: frame, Hdr: hiercc.HostHeader(hiercc.Flags(i&1) * hiercc.FlagMark)}
		n, err := torRound(ta, tb, act, msg, now, &p)
		if err != nil {
			b.Fatal(err)
		}
		events += n
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
}
