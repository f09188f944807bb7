package algos

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// bfcProbe watches every BFC part of a run (harness.Options.Wrap): the
// physical queue each switch assigns each packet, the queues each switch
// holds by its own decisions, the bytes of every queue after each
// Enqueue; it loses the pause messages lose says to lose before they
// reach the part. It records what breaks the properties.
type bfcProbe struct {
	lose     func(target string) bool // nil: lose nothing
	bad      []string
	maxQueue map[string]units.Bytes // by "switch:port:queue"
	lost     int
	sent     int // frames sent by the senders
	holds    int // ActionPauseQueue decisions
}

func (pr *bfcProbe) fail(format string, a ...any) {
	if len(pr.bad) < 10 {
		pr.bad = append(pr.bad, fmt.Sprintf(format, a...))
	}
}

// bfcSWProbe wraps one switch's cp.BFC.
type bfcSWProbe struct {
	*cp.BFC
	pr       *bfcProbe
	name     string
	held     map[[2]int]bool
	assigned map[[3]uint64][]uint16 // (port, flow, seq): the queues of its copies in order
}

// record reads the decisions of an accepted event.
func (w *bfcSWProbe) record(act *cc.Actions) {
	for _, a := range act.All() {
		switch a.Kind {
		case cc.ActionPauseQueue:
			w.held[[2]int{int(a.Port), int(a.Queue)}] = true
			w.pr.holds++
		case cc.ActionResumeQueue:
			delete(w.held, [2]int{int(a.Port), int(a.Queue)})
		}
	}
}

func (w *bfcSWProbe) Arrive(now units.Time, in int, p *cc.Packet, act *cc.Actions) error {
	err := w.BFC.Arrive(now, in, p, act)
	if err == nil {
		w.record(act)
	}
	return err
}

func (w *bfcSWProbe) Enqueue(now units.Time, out int, p *cc.Packet, q cc.Queue, act *cc.Actions) error {
	err := w.BFC.Enqueue(now, out, p, q, act)
	if err != nil {
		return err
	}
	w.record(act)
	for _, a := range act.All() {
		if a.Kind == cc.ActionAssignQueue {
			k := [3]uint64{uint64(out), uint64(p.Flow), p.Seq}
			w.assigned[k] = append(w.assigned[k], a.Queue)
			key := fmt.Sprintf("%s:%d:%d", w.name, out, a.Queue)
			w.pr.maxQueue[key] = max(w.pr.maxQueue[key], w.QueueLen(out, int(a.Queue)))
		}
	}
	return nil
}

func (w *bfcSWProbe) Dequeue(now units.Time, out int, p *cc.Packet, q cc.Queue, act *cc.Actions) error {
	k := [3]uint64{uint64(out), uint64(p.Flow), p.Seq}
	if qs := w.assigned[k]; len(qs) > 0 {
		if w.held[[2]int{out, int(qs[0])}] {
			w.pr.fail("%s: at %v flow %d's packet %d leaves port %d from queue %d, which the switch holds paused", w.name, now, p.Flow, p.Seq, out, qs[0])
		}
		if len(qs) == 1 {
			delete(w.assigned, k)
		} else {
			w.assigned[k] = qs[1:]
		}
	}
	err := w.BFC.Dequeue(now, out, p, q, act)
	if err == nil {
		w.record(act)
	}
	return err
}

func (w *bfcSWProbe) Message(now units.Time, in int, f *cc.Feedback, act *cc.Actions) error {
	if f.Kind == wire.FeedbackBFCPause && w.pr.lose != nil {
		if m, err := wire.DecodeBFCPause(&f.Data); err == nil && w.pr.lose(fmt.Sprintf("%s:%d:%d", w.name, m.Port, m.Queue)) {
			w.pr.lost++
			return nil // lost on the way: the switch never sees it
		}
	}
	err := w.BFC.Message(now, in, f, act)
	if err == nil {
		w.record(act)
	}
	return err
}

func (w *bfcSWProbe) Timer(now units.Time, act *cc.Actions) error {
	err := w.BFC.Timer(now, act)
	if err == nil {
		w.record(act)
	}
	return err
}

func (w *bfcSWProbe) Pause(now units.Time, out int, prio uint8, paused bool, act *cc.Actions) error {
	err := w.BFC.Pause(now, out, prio, paused, act)
	if err == nil {
		w.record(act)
	}
	return err
}

// bfcRPProbe wraps one sender's rp.BFC.
type bfcRPProbe struct {
	*rp.BFC
	pr   *bfcProbe
	flow harness.FlowID
}

func (w *bfcRPProbe) Sent(now units.Time, p *cc.Packet, act *cc.Actions) error {
	if paused, end := w.Paused(); paused && end > now {
		w.pr.fail("flow %d sent packet %d at %v while paused until %v", w.flow, p.Seq, now, end)
	}
	w.pr.sent++
	return w.BFC.Sent(now, p, act)
}

func (w *bfcRPProbe) Feedback(now units.Time, f *cc.Feedback, act *cc.Actions) error {
	if f.Kind == wire.FeedbackBFCPause && w.pr.lose != nil && w.pr.lose(fmt.Sprintf("flow:%d", w.flow)) {
		w.pr.lost++
		return nil
	}
	return w.BFC.Feedback(now, f, act)
}

// wrap is the run's harness.Options.Wrap.
func (pr *bfcProbe) wrap(at harness.Place, p cc.Part) cc.Part {
	switch x := p.(type) {
	case *cp.BFC:
		return &bfcSWProbe{BFC: x, pr: pr, name: at.Node, held: map[[2]int]bool{}, assigned: map[[3]uint64][]uint16{}}
	case *rp.BFC:
		return &bfcRPProbe{BFC: x, pr: pr, flow: at.Flow}
	}
	return p
}

// bfcAsymIncast is the asymmetric topology of RoCC §VI-A e (five 40 Gb/s
// sources on S0, two 100 Gb/s on S1, both into S2 by 100 Gb/s links, B0
// behind S2's 100 Gb/s port) with each source sending size bytes to B0 at
// once: S2 pauses S0's and S1's queues, and S0 and S1 pause the senders.
func bfcAsymIncast(t *testing.T, size units.Bytes, dur units.Time, params map[string]string) *harness.Scenario {
	sc, err := harness.Builtin(roccAsymName)
	require.NoError(t, err)
	for i := range sc.Workload.Flows {
		sc.Workload.Flows[i].Rate = 0
		sc.Workload.Flows[i].Size = harness.Bytes(size)
	}
	sc.Algorithm = bfcName
	sc.Params = params
	sc.Duration = harness.Time(dur)
	sc.MeasureFrom = 0
	return sc
}

// TestBFCProperties runs BFC on an incast in the asymmetric topology and
// checks, at every event:
//
//   - a switch never serves a physical queue it holds paused (no Dequeue
//     from a queue after its ActionPauseQueue and before its
//     ActionResumeQueue), and a sender never sends while paused;
//   - no queue exceeds its bound: the pause threshold at one active queue
//     (µ·hop_rtt = 37.5 KB at 100 Gb/s, 15 KB at 40 Gb/s) plus what the
//     upstream sends before the pause takes effect, at most its link rate
//     over the round trip of the link (2 × 1 µs) and four full frames (the
//     pause's wait behind one, the upstream's frame in serialisation, the
//     frame that crossed the threshold, one of margin): each queue here
//     holds one flow from one ingress port (7 flows, 32 queues);
//   - every flow finishes, PFC (kept as a backstop) never pauses and
//     nothing drops.
func TestBFCProperties(t *testing.T) {
	pr := &bfcProbe{maxQueue: map[string]units.Bytes{}}
	res, err := harness.Run(bfcAsymIncast(t, 2*units.MB, 4*units.Millisecond, nil), harness.Options{NoSeries: true, Wrap: pr.wrap})
	require.NoError(t, err)
	require.Empty(t, pr.bad)
	require.Empty(t, res.Report.Errors)
	require.Positive(t, pr.sent)
	require.Positive(t, pr.holds, "switches held queues: the first property is not vacuous")
	t.Logf("%d holds", pr.holds)
	frame := units.Bytes(1082)
	// The bound of each port's queues: its threshold at N = 1 plus its
	// ingress link's rate over 2 µs and four frames; ingress 100 Gb/s into
	// S2 (from S0 and S1), into S1 (from A5, A6), 40 Gb/s into S0.
	bound := func(key string) units.Bytes {
		th, in := units.BytesIn(100*units.Gbps, 3*units.Microsecond), 100*units.Gbps
		if key[:2] == "S0" {
			in = 40 * units.Gbps
			if key[:4] != "S0:5" { // S0's host ports carry only ACKs
				th = units.BytesIn(40*units.Gbps, 3*units.Microsecond)
			}
		}
		return th + units.BytesIn(in, 2*units.Microsecond) + 4*frame
	}
	worst := 0.0
	for key, q := range pr.maxQueue {
		require.LessOrEqual(t, q, bound(key), key)
		worst = max(worst, float64(q)/float64(bound(key)))
	}
	t.Logf("largest queue / its bound: %.2f (%d queues seen)", worst, len(pr.maxQueue))
	require.Greater(t, worst, 0.3, "the bound is not vacuous: some queue came near it")
	for _, f := range res.Flows {
		require.GreaterOrEqual(t, f.Finish, units.Time(0), "flow %d finished", f.ID)
	}
	require.Zero(t, res.Report.PFC.Pauses)
	require.Zero(t, res.Report.Drops)
}

// TestBFCLostPauses: BFC's stated bound on lost messages (cp.BFC,
// docs/derivations.md "BFC"): a hold ends at its lease (192 µs) without
// its resume, and a paused flow that keeps arriving is paused again after
// repause (6 µs). With every second pause or resume of each upstream
// queue and each sender lost, the incast still finishes, and no sender
// sends while paused. Without leases and repauses (lease=0s,
// repause=0s) the same losses leave some upstream paused for good: a
// flow never finishes (the deadlock the lease prevents).
func TestBFCLostPauses(t *testing.T) {
	run := func(params map[string]string) (*harness.Result, *bfcProbe) {
		n := map[string]int{}
		pr := &bfcProbe{maxQueue: map[string]units.Bytes{}, lose: func(target string) bool {
			n[target]++
			return n[target]%2 == 0
		}}
		res, err := harness.Run(bfcAsymIncast(t, units.MB, 40*units.Millisecond, params), harness.Options{NoSeries: true, Wrap: pr.wrap})
		require.NoError(t, err)
		return res, pr
	}
	res, pr := run(nil)
	require.Empty(t, pr.bad)
	require.Positive(t, pr.lost, "messages were lost")
	for _, f := range res.Flows {
		require.GreaterOrEqual(t, f.Finish, units.Time(0), "flow %d finished despite %d lost messages", f.ID, pr.lost)
	}
	t.Logf("with leases: %d messages lost, last flow done at %v", pr.lost, lastFinish(res))

	res, pr = run(map[string]string{"lease": "0s", "repause": "0s"})
	require.Positive(t, pr.lost)
	stuck := 0
	for _, f := range res.Flows {
		if f.Finish < 0 {
			stuck++
		}
	}
	t.Logf("without leases: %d messages lost, %d of %d flows never finish", pr.lost, stuck, len(res.Flows))
	require.Positive(t, stuck, "without leases a lost resume holds a queue for good")
}

// lastFinish is the latest finish of r's flows.
func lastFinish(r *harness.Result) units.Time {
	var t units.Time
	for _, f := range r.Flows {
		t = max(t, f.Finish)
	}
	return t
}
