package cp

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/voq"
	"github.com/hwcc/hwcc/wire"
)

// busySender returns a SenderToR with 16 VOQs holding data and plenty of
// credit.
func hierccBusySender(t testing.TB) *hierccSender {
	s := hierccNewSender(t)
	for d := range voq.Key(16) {
		_, _, err := s.Arrive(0, hierccArrival{Flow: cc.FlowID(d), Dst: d, Size: 1000}, nil)
		require.NoError(t, err)
	}
	return s
}

// TestHierCCSidesNoAllocs: every per-event method of the two sides of the ToR
// allocates nothing when the caller's slices have room.
func TestHierCCSidesNoAllocs(t *testing.T) {
	s := hierccBusySender(t)
	out := make([]wire.HierCCRatePacket, 0, s.MaxRatePackets())
	now := units.Time(0)
	n := testing.AllocsPerRun(500, func() {
		now += 100 * units.Nanosecond
		sl, o, _ := s.Arrive(now, hierccArrival{Flow: 3, Dst: 3, Size: 1000, Mark: true}, out[:0])
		_, o, _ = s.Dequeue(now, sl, 1000, o[:0])
		_ = s.Credit(now, wire.HierCCCreditPacket{ToR: 3, Dst: 3, Amount: 1000})
		_ = s.Timer(now)
		_ = o
	})
	require.Zero(t, n, "SenderToR")

	r := hierccNewReceiver(t)
	cout := make([]wire.HierCCCreditPacket, 0, r.MaxCreditPackets())
	var sent uint32
	n = testing.AllocsPerRun(500, func() {
		now += 320 * units.Nanosecond
		sent += 1000
		_, _ = r.Arrive(now, 0, wire.HierCCHeader{ToR: 1, Dst: 3, Flows: 2, Sent: sent})
		cout, _ = r.Timer(now, cout[:0])
	})
	require.Zero(t, n, "ReceiverToR")
}

func BenchmarkHierCCSenderArriveCreditDequeue(b *testing.B) {
	s := hierccBusySender(b)
	out := make([]wire.HierCCRatePacket, 0, s.MaxRatePackets())
	now := units.Time(0)
	b.ReportAllocs()
	for i := range b.N {
		now += 10 * units.Nanosecond
		sl, _, _ := s.Arrive(now, hierccArrival{Flow: 1, Dst: voq.Key(i & 15), Size: 1000, Mark: i&7 == 0}, out[:0])
		_ = s.Credit(now, wire.HierCCCreditPacket{ToR: 3, Dst: voq.Key(i & 15), Amount: 1000}) // keep it eligible
		_, _, _ = s.Dequeue(now, sl, 1000, out[:0])                                            // and short
	}
}

func BenchmarkHierCCSenderTimer(b *testing.B) {
	s := hierccBusySender(b)
	now := units.Time(0)
	b.ReportAllocs()
	for range b.N {
		now += 10 * units.Microsecond // an update of all 16 VOQs each time
		_ = s.Timer(now)
	}
}

func BenchmarkHierCCReceiver(b *testing.B) {
	r := hierccNewReceiver(b)
	out := make([]wire.HierCCCreditPacket, 0, r.MaxCreditPackets())
	now := units.Time(0)
	var sent [8]uint32
	b.ReportAllocs()
	for i := range b.N {
		now += 320 * units.Nanosecond
		tor := i & 7
		sent[tor] += 1000
		_, _ = r.Arrive(now, 0, wire.HierCCHeader{ToR: uint16(tor), Dst: 3, Flows: uint16(tor), Sent: sent[tor]})
		out, _ = r.Timer(now, out[:0])
	}
}

func BenchmarkHierCCFirstHopUpdate(b *testing.B) {
	f, err := newHierCCFirstHop(HierCCPaperFirstHop(hierccLine25))
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

// hierccToRRound is one packet's life through two ToRs: joins A's uplink,
// leaves it, joins B's server port, then both timers and A takes the
// credits B sent in its two events. It reports the events it ran.
func hierccToRRound(a, b *HierCC, act, msg *cc.Actions, now units.Time, p *cc.Packet) (events int, err error) {
	act.Reset()
	ev := func(e error) {
		events++
		if err == nil {
			err = e
		}
	}
	ev(a.Enqueue(now, hierccUpPort, p, cc.Queue{}, act))
	ev(a.Dequeue(now, hierccUpPort, p, cc.Queue{}, act))
	act.Reset()
	ev(b.Enqueue(now, 0, p, cc.Queue{}, act)) // may send the credits due before it
	ev(b.Timer(now, act))
	for _, x := range act.All() {
		if x.To == cc.ToSwitch {
			msg.Reset()
			ev(a.Message(now, hierccUpPort, &x.Feedback, msg))
		}
	}
	msg.Reset()
	ev(a.Timer(now, msg))
	return events, err
}

// TestHierCCContractNoAllocs: a ToR's events allocate nothing, on a loop of two ToRs
// whose every event is accepted.
func TestHierCCContractNoAllocs(t *testing.T) {
	a, b := hierccNewToR(t, hierccToRA, 10, 11), hierccNewToR(t, hierccToRB, 20, 21)
	act, msg := cc.NewActions(256), cc.NewActions(256)
	now := units.Time(0)
	var p cc.Packet
	n := testing.AllocsPerRun(500, func() {
		now += 400 * units.Nanosecond
		p = cc.Packet{Flow: 1, Src: 10, Dst: 20, Payload: 1000, Size: hierccFrame, Hdr: wire.HierCCHostHeader(wire.HierCCFlagMark)}
		if _, err := hierccToRRound(a, b, act, msg, now, &p); err != nil {
			panic(err)
		}
	})
	require.Zero(t, n)
}

// BenchmarkHierCC: per event of a ToR (ns/op is per event: see torRound).
func BenchmarkHierCC(b *testing.B) {
	ta, tb := hierccNewToR(b, hierccToRA, 10, 11), hierccNewToR(b, hierccToRB, 20, 21)
	act, msg := cc.NewActions(256), cc.NewActions(256)
	now := units.Time(0)
	events := 0
	var p cc.Packet
	b.ReportAllocs()
	for i := range b.N {
		now += 400 * units.Nanosecond
		p = cc.Packet{Flow: cc.FlowID(i & 7), Src: 10, Dst: 20, Payload: 1000, Size: hierccFrame, Hdr: wire.HierCCHostHeader(wire.HierCCFlags(i&1) * wire.HierCCFlagMark)}
		n, err := hierccToRRound(ta, tb, act, msg, now, &p)
		if err != nil {
			b.Fatal(err)
		}
		events += n
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
}
