package cp_test

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

const (
	bfcLine  = 40 * units.Gbps
	bfcHop   = 3 * units.Microsecond
	bfcFrame = units.Bytes(1082)
	bfcUS    = units.Microsecond
)

// bfcSwitch is a cp.BFC under test with verbs: ports 0 and 1 face hosts,
// 2 and 3 switches; switch ID 9.
type bfcSwitch struct {
	t   *testing.T
	s   *cp.BFC
	act *cc.Actions
}

func newBFCSwitch(t *testing.T, edit func(*cp.BFCConfig)) *bfcSwitch {
	cfg := cp.BFCPaper(4, bfcLine, bfcHop)
	cfg.Edge = []bool{true, true, false, false}
	cfg.SwitchID = 9
	if edit != nil {
		edit(&cfg)
	}
	s, err := cp.NewBFC(cfg)
	require.NoError(t, err)
	return &bfcSwitch{t: t, s: s, act: cc.NewActions(64)}
}

// bfcPkt is a full frame of flow, tagged by upstream switch up (port
// upPort, queue uq) unless up is 0 (from a host).
func bfcPkt(flow cc.FlowID, up uint16, upPort uint16, uq uint8) *cc.Packet {
	p := &cc.Packet{Flow: flow, Payload: 1000, Size: bfcFrame, Prio: 3}
	if up != 0 {
		if err := (wire.BFCTag{Switch: up, Port: upPort, Queue: uq}).Put(&p.Hdr); err != nil {
			panic(err)
		}
	}
	return p
}

// in takes p arriving through in and joining out; it returns the actions.
func (b *bfcSwitch) in(now units.Time, in, out int, p *cc.Packet) []cc.Action {
	b.t.Helper()
	b.act.Reset()
	require.NoError(b.t, b.s.Arrive(now, in, p, b.act))
	require.NoError(b.t, b.s.Enqueue(now, out, p, cc.Queue{Rate: bfcLine}, b.act))
	return slices.Clone(b.act.All())
}

// out takes p leaving out; it returns the actions.
func (b *bfcSwitch) out(now units.Time, out int, p *cc.Packet) []cc.Action {
	b.t.Helper()
	b.act.Reset()
	require.NoError(b.t, b.s.Dequeue(now, out, p, cc.Queue{Rate: bfcLine}, b.act))
	return slices.Clone(b.act.All())
}

// msg gives the switch a message through port in.
func (b *bfcSwitch) msg(now units.Time, in int, f cc.Feedback) []cc.Action {
	b.t.Helper()
	b.act.Reset()
	require.NoError(b.t, b.s.Message(now, in, &f, b.act))
	return slices.Clone(b.act.All())
}

// pauses returns the BFC pauses among acts, decoded, with where they go.
func bfcPauses(t *testing.T, acts []cc.Action) (out []wire.BFCPause, to []cc.Action) {
	t.Helper()
	for _, a := range acts {
		if a.Kind == cc.ActionFeedback && a.Feedback.Kind == wire.FeedbackBFCPause {
			m, err := wire.DecodeBFCPause(&a.Feedback.Data)
			require.NoError(t, err)
			out = append(out, m)
			to = append(to, a)
		}
	}
	return out, to
}

// TestBFCThresholds: Th(N) = max(µ·HopRTT/N, MinThreshold), the real
// quotient floored, against the closed form in float: 40 Gb/s × 3 µs =
// 15 000 B, so 15 000, 7 500, 5 000, ... and 2 KB from N = 8 on.
func TestBFCThresholds(t *testing.T) {
	b := newBFCSwitch(t, nil)
	for n := 1; n <= cp.BFCPaperQueues; n++ {
		want := max(units.Bytes(float64(bfcLine)*bfcHop.Seconds()/8/float64(n)), 2*units.KB)
		got, ok := b.s.Threshold(0, n)
		require.True(t, ok)
		require.Equal(t, want, got, "N = %d", n)
	}
	th0, _ := b.s.Threshold(0, 0)
	require.Equal(t, units.Bytes(15000), th0, "N = 0 reads N = 1's")
}

// TestBFCQueueAssignment: each new flow takes the lowest empty queue;
// when every queue holds a flow the next shares one chosen by its hash
// (Crowded counts it); a queue whose flow has left is empty again and the
// next new flow takes it. Every packet's queue is the ActionAssignQueue of
// its Enqueue, first among its actions.
func TestBFCQueueAssignment(t *testing.T) {
	b := newBFCSwitch(t, func(c *cp.BFCConfig) { c.Queues = 4 })
	queueOf := func(acts []cc.Action) uint16 {
		require.NotEmpty(t, acts)
		require.Equal(t, cc.ActionAssignQueue, acts[0].Kind)
		return acts[0].Queue
	}
	now := units.Time(0)
	for f := range 4 {
		require.Equal(t, uint16(f), queueOf(b.in(now, 2, 1, bfcPkt(cc.FlowID(100+f), 7, 0, 0))), "flow %d", f)
	}
	// A second packet of a flow joins its queue.
	require.Equal(t, uint16(2), queueOf(b.in(now, 2, 1, bfcPkt(102, 7, 0, 0))))
	// A fifth flow finds no empty queue.
	q := queueOf(b.in(now, 2, 1, bfcPkt(200, 7, 0, 0)))
	require.Less(t, q, uint16(4))
	require.Equal(t, uint64(1), b.s.Counters().Crowded)
	// Flow 101 leaves (its only packet): queue 1 is empty, and the next
	// new flow takes it.
	b.out(now, 1, bfcPkt(101, 7, 0, 0))
	require.Equal(t, units.Bytes(0), b.s.QueueLen(1, 1))
	require.Equal(t, uint16(1), queueOf(b.in(now, 2, 1, bfcPkt(300, 7, 0, 0))))
	// Queue bytes: flow 102's two frames in queue 2.
	require.Equal(t, 2*bfcFrame, b.s.QueueLen(1, 2))
}

// TestBFCPauseUpstreamSwitch: a flow from switch 7's queue 5 (port 3)
// whose queue passes the threshold pauses that queue once (a message to
// switch 7 naming its port and queue, with the lease); a second flow from
// the same upstream queue that passes its threshold sends nothing more;
// the resume goes only when both have drained. Th with N = 2 active
// queues is 7500 B: the 7th frame of a flow (7574 B) passes it.
func TestBFCPauseUpstreamSwitch(t *testing.T) {
	b := newBFCSwitch(t, nil)
	now := units.Time(0)
	a, c := bfcPkt(1, 7, 3, 5), bfcPkt(2, 7, 3, 5)
	b.in(now, 2, 1, c) // two active queues from the start
	var sent []wire.BFCPause
	var to []cc.Action
	for i := 1; i <= 7; i++ {
		m, x := bfcPauses(t, b.in(now, 2, 1, a))
		if i < 7 {
			require.Empty(t, m, "frame %d: %v B ≤ 7500 B", i, units.Bytes(i)*bfcFrame)
		}
		sent, to = append(sent, m...), append(to, x...)
	}
	require.Len(t, sent, 1)
	require.Equal(t, wire.BFCPause{Port: 3, Queue: 5, Lease: 192 * bfcUS}, sent[0])
	require.Equal(t, cc.ToSwitch, to[0].To)
	require.Equal(t, uint16(7), to[0].Switch)
	require.Equal(t, cc.ControlPrio, to[0].Prio)
	require.Equal(t, uint64(1)<<5, b.s.UpPaused(2))
	// Flow 2 from the same queue passes its threshold too: no message.
	for range 7 {
		m, _ := bfcPauses(t, b.in(now, 2, 1, c))
		require.Empty(t, m)
	}
	e, ok := b.s.Entry(1, 2)
	require.True(t, ok)
	require.True(t, e.Paused)
	// Flow 1 drains to the threshold: its entry resumes, but flow 2's
	// still holds the upstream queue.
	for range 7 {
		now += units.Microsecond
		m, _ := bfcPauses(t, b.out(now, 1, a))
		require.Empty(t, m)
	}
	require.Equal(t, uint64(1)<<5, b.s.UpPaused(2))
	// Flow 2 drains: the resume (lease 0) goes to switch 7.
	var resumes []wire.BFCPause
	for range 8 {
		now += units.Microsecond
		m, _ := bfcPauses(t, b.out(now, 1, c))
		resumes = append(resumes, m...)
	}
	require.Equal(t, []wire.BFCPause{{Port: 3, Queue: 5}}, resumes)
	require.Zero(t, b.s.UpPaused(2))
	cnt := b.s.Counters()
	require.Equal(t, uint64(1), cnt.Pauses)
	require.Equal(t, uint64(1), cnt.Resumes)
}

// TestBFCPauseSender: a flow from a host port is paused at its sender (a
// message to the flow's source, port wire.BFCHostPort), and resumed when
// its last packet leaves; Dequeue writes the switch's tag.
func TestBFCPauseSender(t *testing.T) {
	b := newBFCSwitch(t, nil)
	p := bfcPkt(5, 0, 0, 0)
	var sent []wire.BFCPause
	var to []cc.Action
	for range 15 { // Th(1) = 15 000 B: the 14th frame passes it
		m, x := bfcPauses(t, b.in(0, 0, 2, p))
		sent, to = append(sent, m...), append(to, x...)
	}
	require.Equal(t, []wire.BFCPause{{Port: wire.BFCHostPort, Lease: 192 * bfcUS}}, sent)
	require.Equal(t, cc.ToSource, to[0].To)
	require.Equal(t, cc.FlowID(5), to[0].Feedback.Flow)
	var resumes []wire.BFCPause
	for range 15 {
		q := *p
		m, _ := bfcPauses(t, b.out(bfcUS, 2, &q))
		resumes = append(resumes, m...)
		tag, ok, err := wire.DecodeBFCTag(&q.Hdr)
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, wire.BFCTag{Switch: 9, Port: 2, Queue: 0}, tag)
	}
	// The queue drains to Th on the way: one resume.
	require.Equal(t, []wire.BFCPause{{Port: wire.BFCHostPort}}, resumes)
	_, ok := b.s.Entry(2, 5)
	require.False(t, ok, "the entry is free once its packets have left")
}

// TestBFCRepause: a packet of a paused flow that still arrives Repause (6
// µs) after the pause means the upstream keeps sending: the pause goes
// again; one sooner does not.
func TestBFCRepause(t *testing.T) {
	b := newBFCSwitch(t, nil)
	p := bfcPkt(1, 7, 3, 5)
	n := 0
	for range 14 {
		m, _ := bfcPauses(t, b.in(0, 2, 1, p))
		n += len(m)
	}
	require.Equal(t, 1, n)
	m, _ := bfcPauses(t, b.in(5*bfcUS, 2, 1, p))
	require.Empty(t, m, "within the repause time: frames in flight")
	m, _ = bfcPauses(t, b.in(6*bfcUS, 2, 1, p))
	require.Equal(t, []wire.BFCPause{{Port: 3, Queue: 5, Lease: 192 * bfcUS}}, m)
	require.Equal(t, uint64(1), b.s.Counters().Repauses)
}

// TestBFCHoldAndLease: a pause from downstream holds the queue
// (ActionPauseQueue) until its lease ends, when the timer resumes it at
// that time (NextDeadline) or a later event catches it up first; a
// second pause moves the end; a resume ends it at once; a pause until
// resumed never ends by itself.
func TestBFCHoldAndLease(t *testing.T) {
	b := newBFCSwitch(t, nil)
	pause := func(port uint16, q uint8, lease units.Time, forever bool) cc.Feedback {
		f, err := wire.BFCPause{Port: port, Queue: q, Lease: lease, Forever: forever}.Feedback(0)
		require.NoError(t, err)
		return f
	}
	acts := b.msg(10*bfcUS, 2, pause(2, 4, 50*bfcUS, false))
	require.Equal(t, []cc.Action{{Kind: cc.ActionPauseQueue, Port: 2, Queue: 4}}, acts)
	require.Equal(t, uint64(1)<<4, b.s.Held(2))
	require.Equal(t, 60*bfcUS, b.s.NextDeadline())
	// Refreshed at 40 µs: ends at 90 µs, no new action.
	require.Empty(t, b.msg(40*bfcUS, 2, pause(2, 4, 50*bfcUS, false)))
	require.Equal(t, 90*bfcUS, b.s.NextDeadline())
	// A hold until resumed on port 3.
	require.Len(t, b.msg(41*bfcUS, 3, pause(3, 0, 0, true)), 1)
	// The timer before the deadline does nothing; at it, the resume.
	b.act.Reset()
	require.NoError(t, b.s.Timer(89*bfcUS, b.act))
	require.Zero(t, b.act.Len())
	// A late event catches the expiry up first, then its own decisions.
	acts = b.in(200*bfcUS, 0, 1, bfcPkt(3, 0, 0, 0))
	require.Equal(t, cc.Action{Kind: cc.ActionResumeQueue, Port: 2, Queue: 4}, acts[0])
	require.Equal(t, cc.ActionAssignQueue, acts[1].Kind)
	require.Equal(t, uint64(1), b.s.Counters().Expiries)
	require.Equal(t, units.MaxTime, b.s.NextDeadline(), "the hold until resumed has no end")
	require.Equal(t, uint64(1), b.s.Held(3))
	require.Equal(t, []cc.Action{{Kind: cc.ActionResumeQueue, Port: 3, Queue: 0}}, b.msg(300*bfcUS, 3, pause(3, 0, 0, false)))
	require.Zero(t, b.s.Held(3))
	// A resume of a queue not held does nothing.
	require.Empty(t, b.msg(301*bfcUS, 3, pause(3, 0, 0, false)))
}

// TestBFCRefuses: a pause for a port or queue the switch lacks, or one for
// a sender, and a departure without its arrival, are refused, changing
// nothing; another kind of message is counted as unused.
func TestBFCRefuses(t *testing.T) {
	b := newBFCSwitch(t, func(c *cp.BFCConfig) { c.Queues = 8 })
	before := b.s.AppendRegisters(nil)
	for _, m := range []wire.BFCPause{{Port: 4, Queue: 0, Lease: bfcUS}, {Port: 0, Queue: 8, Lease: bfcUS}, {Port: wire.BFCHostPort, Lease: bfcUS}} {
		f, err := m.Feedback(0)
		require.NoError(t, err)
		b.act.Reset()
		require.ErrorIs(t, b.s.Message(bfcUS, 0, &f, b.act), cp.ErrBFCPause, "%+v", m)
	}
	b.act.Reset()
	require.ErrorIs(t, b.s.Dequeue(bfcUS, 1, bfcPkt(1, 0, 0, 0), cc.Queue{}, b.act), cp.ErrBFCTable)
	bad := bfcPkt(1, 0, 0, 0)
	bad.Hdr[0] = 7
	require.ErrorIs(t, b.s.Enqueue(bfcUS, 1, bad, cc.Queue{}, b.act), cc.ErrDecode)
	require.ErrorIs(t, b.s.Enqueue(bfcUS, 1, bfcPkt(1, 0, 0, 0), cc.Queue{}, nil), cc.ErrNoActions)
	require.Equal(t, before, b.s.AppendRegisters(nil))
	require.Zero(t, b.act.Len())
	require.Empty(t, b.msg(bfcUS, 0, cc.Feedback{Kind: cc.FeedbackCNP}))
	require.Equal(t, uint64(1), regValue(t, b.s.AppendRegisters(nil), cc.UnusedRegister))
}

// regValue returns register name's value.
func regValue(t *testing.T, rs []cc.Register, name string) uint64 {
	t.Helper()
	for _, r := range rs {
		if r.Name == name {
			return r.Value
		}
	}
	t.Fatalf("no register %q", name)
	return 0
}

// TestBFCConfigRefuses: every field out of range is a *cc.ConfigError
// naming it.
func TestBFCConfigRefuses(t *testing.T) {
	for field, edit := range map[string]func(*cp.BFCConfig){
		"Ports":        func(c *cp.BFCConfig) { c.Ports = 0 },
		"Rates":        func(c *cp.BFCConfig) { c.Rates = c.Rates[:1] },
		"Edge":         func(c *cp.BFCConfig) { c.Edge = []bool{true} },
		"SwitchID":     func(c *cp.BFCConfig) { c.SwitchID = 4096 },
		"Prio":         func(c *cp.BFCConfig) { c.Prio = 8 },
		"Queues":       func(c *cp.BFCConfig) { c.Queues = 65 },
		"TableBits":    func(c *cp.BFCConfig) { c.TableBits = 17 },
		"HopRTT":       func(c *cp.BFCConfig) { c.HopRTT = 0 },
		"MinThreshold": func(c *cp.BFCConfig) { c.MinThreshold = 0 },
		"Lease":        func(c *cp.BFCConfig) { c.Lease = 1500 },
		"Repause":      func(c *cp.BFCConfig) { c.Repause = -1 },
		"Rates[1]":     func(c *cp.BFCConfig) { c.Rates[1] = 0 },
	} {
		cfg := cp.BFCPaper(4, bfcLine, bfcHop)
		edit(&cfg)
		_, err := cp.NewBFC(cfg)
		var ce *cc.ConfigError
		require.ErrorAs(t, err, &ce, field)
		require.Equal(t, field, ce.Field)
	}
	// µ·HopRTT above 32 bits at 10 Tb/s.
	cfg := cp.BFCPaper(1, cp.BFCMaxRate, 4*units.Millisecond)
	_, err := cp.NewBFC(cfg)
	require.ErrorIs(t, err, cc.ErrConfig)
}

// TestBFCManyHolders: more flow entries than a 16-bit count holds
// (2^16 + 2, on two egress ports of 2^16 entries each) hold one upstream
// queue paused, each flow's one packet above a threshold of 5 B: the
// queue is paused once, and resumed once, when the last holder's packet
// leaves; none of the others resumes it. (Each port's one queue is
// crowded from its second flow on.)
func TestBFCManyHolders(t *testing.T) {
	const holders = 1<<16 + 2
	b := newBFCSwitch(t, func(c *cp.BFCConfig) {
		*c = cp.BFCPaper(3, bfcLine, units.Nanosecond)
		c.SwitchID, c.Queues, c.TableBits, c.MinThreshold, c.Repause = 9, 1, cp.BFCMaxTableBits, 1, 0
	})
	p := bfcPkt(0, 7, 3, 5) // from switch 7's queue 5, through port 2
	type held struct {
		out  int
		flow cc.FlowID
	}
	order := make([]held, 0, holders)
	flow := cc.FlowID(0)
	for i := range holders {
		out := i % 2
		for ; ; flow++ {
			if _, taken := b.s.Entry(out, flow); !taken {
				break
			}
		}
		p.Flow = flow
		b.act.Reset()
		if err := b.s.Arrive(0, 2, p, b.act); err != nil {
			t.Fatal(err)
		}
		if err := b.s.Enqueue(0, out, p, cc.Queue{Rate: bfcLine}, b.act); err != nil {
			t.Fatal(err)
		}
		if e, _ := b.s.Entry(out, flow); !e.Paused {
			t.Fatalf("holder %d (flow %d at port %d) not paused", i, flow, out)
		}
		order = append(order, held{out, flow})
		flow++
	}
	require.Equal(t, uint64(1), b.s.Counters().Pauses, "one pause for all holders")
	require.Equal(t, uint64(1)<<5, b.s.UpPaused(2))
	for i, h := range order {
		q := *p
		q.Flow = h.flow
		b.act.Reset()
		if err := b.s.Dequeue(units.Nanosecond, h.out, &q, cc.Queue{Rate: bfcLine}, b.act); err != nil {
			t.Fatal(err)
		}
		if i < len(order)-1 && (b.s.Counters().Resumes != 0 || b.s.UpPaused(2) != 1<<5) {
			t.Fatalf("resumed after %d of %d holders left", i+1, holders)
		}
	}
	m, to := bfcPauses(t, b.act.All())
	require.Equal(t, []wire.BFCPause{{Port: 3, Queue: 5}}, m, "the last holder resumes")
	require.Equal(t, uint16(7), to[0].Switch)
	require.Zero(t, b.s.UpPaused(2))
	require.Equal(t, cp.BFCCounters{Pauses: 1, Resumes: 1, Crowded: holders - 2}, b.s.Counters())
}

// TestBFCNoAllocs: the events allocate nothing.
func TestBFCNoAllocs(t *testing.T) {
	b := newBFCSwitch(t, nil)
	p := bfcPkt(1, 7, 3, 5)
	f, err := wire.BFCPause{Port: 1, Queue: 2, Lease: 10 * bfcUS}.Feedback(0)
	require.NoError(t, err)
	now := units.Time(0)
	allocs := testing.AllocsPerRun(200, func() {
		now += bfcUS
		b.act.Reset()
		_ = b.s.Arrive(now, 2, p, b.act)
		_ = b.s.Enqueue(now, 1, p, cc.Queue{}, b.act)
		q := *p
		_ = b.s.Dequeue(now, 1, &q, cc.Queue{}, b.act)
		_ = b.s.Message(now, 3, &f, b.act)
		_ = b.s.Timer(now, b.act)
	})
	require.Zero(t, allocs)
}

// TestBFCRandomBalance: under random arrivals and departures (each
// departure a packet that arrived and has not left, per port in FIFO
// order), the switch's queue bytes equal the bytes enqueued less dequeued
// per assigned queue, every packet's queue is the one its Enqueue
// assigned, and when every packet has left no upstream is held paused
// and every pause sent has its resume.
func TestBFCRandomBalance(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	b := newBFCSwitch(t, func(c *cp.BFCConfig) { c.Queues = 8; c.TableBits = 3 })
	type pkt struct {
		p *cc.Packet
		q uint16
	}
	fifo := make([][]pkt, 4)
	want := make(map[[2]int]units.Bytes)
	held := map[[3]int]int{} // (switch, port, queue) and host flows: pauses minus resumes
	count := func(acts []cc.Action) {
		for _, a := range acts {
			if a.Kind != cc.ActionFeedback {
				continue
			}
			m, err := wire.DecodeBFCPause(&a.Feedback.Data)
			require.NoError(t, err)
			k := [3]int{int(a.Switch), int(m.Port), int(m.Queue)}
			if a.To == cc.ToSource {
				k = [3]int{-1, int(a.Feedback.Flow), 0}
			}
			if m.Resume() {
				held[k]--
			} else if held[k] == 0 {
				held[k]++
			}
		}
	}
	now := units.Time(0)
	for range 20000 {
		now += units.Time(rng.Intn(200)) * units.Nanosecond
		out := 2 + rng.Intn(2)
		if rng.Intn(2) == 0 || len(fifo[out]) == 0 {
			in := rng.Intn(2) // hosts 0, 1; or switches 2, 3
			var p *cc.Packet
			if rng.Intn(2) == 0 {
				in += 2
				p = bfcPkt(cc.FlowID(rng.Intn(24)), uint16(7+in), uint16(in), uint8(rng.Intn(4)))
			} else {
				p = bfcPkt(cc.FlowID(100+rng.Intn(24)), 0, 0, 0)
			}
			acts := b.in(now, in, out, p)
			fifo[out] = append(fifo[out], pkt{p, acts[0].Queue})
			want[[2]int{out, int(acts[0].Queue)}] += p.Size
			count(acts[1:])
			continue
		}
		x := fifo[out][0]
		fifo[out] = fifo[out][1:]
		q := *x.p
		count(b.out(now, out, &q))
		want[[2]int{out, int(x.q)}] -= x.p.Size
		tag, _, err := wire.DecodeBFCTag(&q.Hdr)
		require.NoError(t, err)
		require.Equal(t, uint8(x.q), tag.Queue, "the tag names the queue the packet was assigned")
		for k, v := range want {
			require.Equal(t, v, b.s.QueueLen(k[0], k[1]))
		}
	}
	for out := range fifo {
		for _, x := range fifo[out] {
			q := *x.p
			count(b.out(now, out, &q))
		}
	}
	for k, v := range held {
		require.LessOrEqual(t, v, 0, "upstream %v still paused", k)
	}
	for in := range 4 {
		require.Zero(t, b.s.UpPaused(in))
	}
	cnt := b.s.Counters()
	require.Positive(t, cnt.Pauses, "the run paused something")
	require.Positive(t, cnt.Shared+cnt.Crowded, "the run had collisions")
}
