package harness_test

import (
	"encoding/binary"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/units"
)

// A toy receiver-credited scheme, defined here and not in the harness, in
// ExpressPass's shape ([ExpressPass]): the sender's RP asks its
// destination for credits when the flow starts and says stop after its
// last byte; the receiver's NP, once asked, sends a credit every
// toyXGap, far faster than the credit class's shaper lets through, so the
// shapers (84-byte frames, one per 1622 bytes of port time, queues of 8)
// both pace and drop them; the RP sends one frame per credit and writes
// the credit's number into its header (cc.Packet.Hdr bytes 0..7), which
// the NP checks.
const toyXGap = 10 * units.Nanosecond

// toyXFrame is the most wire bytes one toy credit pays for: more than any
// frame of the default scenario.
const toyXFrame units.Bytes = 4000

type toyXNP struct {
	clock             cc.Monotonic
	active            bool
	next              units.Time
	seq               uint64 // credits sent
	requests, stops   int
	frames            int
	lastEcho          uint64
	echoesOutOfOrder  int
	creditsAfterStops int
}

func (n *toyXNP) NextDeadline() units.Time {
	if !n.active {
		return units.MaxTime
	}
	return n.next
}

func (n *toyXNP) Timer(now units.Time, act *cc.Actions) error {
	if err := n.clock.Check("toyx-np", "Timer", now); err != nil {
		return err
	}
	if !n.active || now < n.next {
		n.clock.Advance(now)
		return nil
	}
	if err := act.Reserve("toyx-np", "Timer", 1); err != nil {
		return err
	}
	n.clock.Advance(now)
	n.seq++
	act.Send(cc.ToSource, cc.ControlPrio, cc.Feedback{Kind: cc.FeedbackCredit, Seq: n.seq})
	n.next = now + toyXGap
	return nil
}

func (n *toyXNP) AppendRegisters(dst []cc.Register) []cc.Register {
	return append(dst, n.clock.Register(), cc.Reg("seq", 64, n.seq))
}

func (n *toyXNP) Receive(now units.Time, p *cc.Packet, _ *cc.Actions) error {
	if err := n.clock.Accept("toyx-np", "Receive", now); err != nil {
		return err
	}
	n.frames++
	echo := binary.BigEndian.Uint64(p.Hdr[0:8])
	if echo <= n.lastEcho {
		n.echoesOutOfOrder++
	}
	n.lastEcho = echo
	return nil
}

func (n *toyXNP) Feedback(now units.Time, f *cc.Feedback, _ *cc.Actions) error {
	if err := n.clock.Accept("toyx-np", "Feedback", now); err != nil {
		return err
	}
	switch f.Kind {
	case cc.FeedbackCreditRequest:
		n.requests++
		n.active, n.next = true, now
	case cc.FeedbackCreditStop:
		n.stops++
		n.active = false
	default:
		return &cc.EventError{Part: "toyx-np", Event: "Feedback", Reason: "not a credit request or stop"}
	}
	return nil
}

type toyXRP struct {
	clock    cc.Monotonic
	size     units.Bytes
	asked    bool
	held     []uint64 // credit numbers held, oldest first (at most 8)
	credits  int      // credits received
	wasted   int      // credits received while 8 were held
	sent     int
	stopSent bool
}

func (r *toyXRP) NextDeadline() units.Time {
	if r.asked {
		return units.MaxTime
	}
	return 0
}

func (r *toyXRP) Timer(now units.Time, act *cc.Actions) error {
	if err := r.clock.Check("toyx-rp", "Timer", now); err != nil {
		return err
	}
	if r.asked {
		r.clock.Advance(now)
		return nil
	}
	if err := act.Reserve("toyx-rp", "Timer", 1); err != nil {
		return err
	}
	r.clock.Advance(now)
	r.asked = true
	act.Send(cc.ToDestination, cc.ControlPrio, cc.Feedback{Kind: cc.FeedbackCreditRequest})
	return nil
}

func (r *toyXRP) AppendRegisters(dst []cc.Register) []cc.Register {
	return append(dst, r.clock.Register(), cc.Reg("held", 8, uint64(len(r.held))))
}

func (r *toyXRP) Sent(now units.Time, p *cc.Packet, act *cc.Actions) error {
	if err := r.clock.Check("toyx-rp", "Sent", now); err != nil {
		return err
	}
	if len(r.held) == 0 || p.Size > toyXFrame {
		return &cc.EventError{Part: "toyx-rp", Event: "Sent", Reason: "no credit for the frame"}
	}
	last := r.size > 0 && units.Bytes(p.Seq)+p.Payload >= r.size
	if last {
		if err := act.Reserve("toyx-rp", "Sent", 1); err != nil {
			return err
		}
	}
	r.clock.Advance(now)
	binary.BigEndian.PutUint64(p.Hdr[0:8], r.held[0])
	r.held = r.held[1:]
	r.sent++
	if last && !r.stopSent {
		r.stopSent = true
		act.Send(cc.ToDestination, cc.ControlPrio, cc.Feedback{Kind: cc.FeedbackCreditStop})
	}
	return nil
}

func (r *toyXRP) Feedback(now units.Time, f *cc.Feedback, _ *cc.Actions) error {
	if err := r.clock.Accept("toyx-rp", "Feedback", now); err != nil {
		return err
	}
	if f.Kind != cc.FeedbackCredit {
		return nil // ACKs and NAKs: nothing to do
	}
	r.credits++
	if len(r.held) == 8 {
		r.wasted++
		return nil
	}
	r.held = append(r.held, f.Seq)
	return nil
}

func (r *toyXRP) Limits() cc.Limits {
	return cc.Limits{Credited: true, Credit: units.Bytes(len(r.held)) * toyXFrame}
}

var (
	toyXOnce sync.Once
	toyXNPs  []*toyXNP
	toyXRPs  []*toyXRP
)

// toyXCredit is the credit class: ExpressPass's numbers (84-byte credits,
// one per 84 + 1538 bytes of port time, a queue of 8).
var toyXCredit = cc.MessageKind{Kind: cc.FeedbackCredit, Name: "credit", Frame: 64, Prio: harness.ControlPrio, Spacing: 84 + 1538, Queue: 8}

func registerToyX() {
	toyXOnce.Do(func() {
		spec := func(role cc.Role) *cc.Spec[cc.Env] {
			return &cc.Spec[cc.Env]{
				Presets: []cc.Preset[cc.Env]{{Name: "only", Config: func(e cc.Env) cc.Env { return e }}},
				New: func(e cc.Env) (cc.Part, error) {
					if role == cc.RoleNP {
						n := &toyXNP{}
						toyXNPs = append(toyXNPs, n)
						return n, nil
					}
					r := &toyXRP{size: e.Size, held: make([]uint64, 0, 8)}
					toyXRPs = append(toyXRPs, r)
					return r, nil
				},
			}
		}
		kinds := []cc.MessageKind{
			toyXCredit,
			{Kind: cc.FeedbackCreditRequest, Name: "credit-request", Frame: 64, Prio: harness.ControlPrio},
			{Kind: cc.FeedbackCreditStop, Name: "credit-stop", Frame: 64, Prio: harness.ControlPrio},
		}
		// The same parts, with and without symmetric routing.
		for _, sym := range []bool{true, false} {
			name := "test-toy-xpass"
			if !sym {
				name += "-asym"
			}
			cc.MustRegisterAlgorithm(cc.Algorithm{
				Name: name, Title: "toy credited", Paper: "none", Doc: "receiver credits in ExpressPass's shape",
				Parts: []cc.PartSpec{
					{Name: "np", Role: cc.RoleNP, Doc: "credits", Config: spec(cc.RoleNP)},
					{Name: "rp", Role: cc.RoleRP, Doc: "spends them", Config: spec(cc.RoleRP)},
				},
				Deploy: cc.Deployment{Symmetric: sym, Messages: kinds},
			})
		}
	})
}

func toyXRun(t *testing.T, algo string, topo harness.TopologySpec, flows []harness.FlowSpec, d units.Time) *harness.Result {
	t.Helper()
	registerToyX()
	toyXNPs, toyXRPs = nil, nil
	sc := harness.DefaultScenario()
	sc.Name = "toyx"
	sc.Algorithm = algo
	sc.Topology = topo
	sc.Workload = harness.WorkloadSpec{Flows: flows}
	sc.Duration = harness.Time(d)
	sc.MeasureFrom = 0
	r, err := harness.Run(sc, harness.Options{})
	require.NoError(t, err)
	require.Nil(t, r.Report.Errors)
	return r
}

// TestCreditedFlow runs one credited flow of 100 packets across one switch
// and checks what the harness owes such a scheme:
//   - the credit request reaches the destination's NP once, at the start,
//     and the stop once, after the last frame (ToDestination);
//   - the flow sends exactly one frame per credit held, each carrying the
//     number of the credit it spends, in order (Credited, Hdr);
//   - the credit class is shaped: credits leave the receiver's NIC at most
//     one per 1622 bytes of port time, so 100 frames take at least 99
//     shaper slots (ser(1622 B) = 129.76 ns at 100 Gb/s) and, since
//     each credit through the shaper becomes a frame, not much more than
//     100 slots plus a round trip; what the 8-message shaper queue cannot
//     hold is dropped and counted, and every credit the NP sent either
//     reaches the source or is dropped (the run lasts long enough to drain).
func TestCreditedFlow(t *testing.T) {
	const pkts = 100
	r := toyXRun(t, "test-toy-xpass", harness.TopologySpec{Kind: "star", Hosts: 2},
		[]harness.FlowSpec{{Src: "h1", Dst: "h0", Size: harness.Bytes(pkts * 1000)}}, 200*units.Microsecond)
	require.Len(t, toyXNPs, 1)
	require.Len(t, toyXRPs, 1)
	np, rp := toyXNPs[0], toyXRPs[0]
	require.Equal(t, 1, np.requests, "credit requests at the destination")
	require.Equal(t, 1, np.stops, "credit stops at the destination")
	require.Equal(t, pkts, rp.sent, "frames sent, one per credit")
	require.Equal(t, pkts, np.frames, "frames received")
	require.Zero(t, np.echoesOutOfOrder, "each frame echoes a later credit than the one before")

	c := r.Counters
	require.Positive(t, c.ShapedDrops, "the NP sends a credit every 10 ns; the shaper passes one per 129.76 ns")
	// Counters.FeedbackReceived counts every credit that reaches the
	// source, and the request and the stop at the destination; the RP
	// sees the credits that arrive before its flow ends.
	require.Equal(t, int64(np.seq), c.FeedbackReceived-2+c.ShapedDrops, "credits sent = arrived + dropped by shapers")
	require.LessOrEqual(t, int64(rp.credits), c.FeedbackReceived-2)
	require.GreaterOrEqual(t, rp.credits, pkts)
	require.Zero(t, c.Drops, "no data or control frame dropped")

	f := r.Flows[0]
	require.Positive(t, f.FCT)
	slot := units.SerializationTime(84+1538, 100*units.Gbps)
	require.GreaterOrEqual(t, f.FCT, units.Time(pkts-1)*slot, "credits pace the flow")
	require.LessOrEqual(t, f.FCT, units.Time(pkts+1)*slot+2*f.BaseRTT, "one frame per credit slot, plus the request's and the last ACK's trips")
}

// TestCreditedSymmetricRouting: on a leaf-spine with four spines, each
// flow's credits (and ACKs) retrace its data path when the scheme asks for
// it (cc.Deployment.Symmetric), so exactly one spine carries the flow in each
// direction and it is the same spine; without it, ECMP hashes the two
// directions independently and some pair of hosts out of eight goes back
// through another spine (the hash is fixed, so this is a fact of the
// topology, not a chance: 4^-8 would be the chance that eight independent
// hashes all agree).
func TestCreditedSymmetricRouting(t *testing.T) {
	topo := harness.TopologySpec{Kind: "leaf-spine", Leaves: 2, Spines: 4, HostsPerLeaf: 8}
	// spineOf returns the spines whose port toward leaf sent anything.
	spineOf := func(r *harness.Result, leaf string) []string {
		var out []string
		for _, p := range r.Ports {
			for sp := 0; sp < 4; sp++ {
				if p.Link == fmt.Sprintf("spine%d->%s", sp, leaf) && p.TxBytes > 0 {
					out = append(out, fmt.Sprintf("spine%d", sp))
				}
			}
		}
		return out
	}
	differ := 0
	for i := 0; i < 8; i++ {
		flow := []harness.FlowSpec{{Src: fmt.Sprintf("h%d", i), Dst: fmt.Sprintf("h%d", 8+i), Size: harness.Bytes(20 * 1000)}}
		r := toyXRun(t, "test-toy-xpass", topo, flow, 50*units.Microsecond)
		fwd, rev := spineOf(r, "leaf1"), spineOf(r, "leaf0")
		require.Len(t, fwd, 1, "pair %d: the data crosses one spine", i)
		require.Equal(t, fwd, rev, "pair %d: credits and ACKs come back through the data's spine", i)
		require.Equal(t, 1, toyXNPs[0].stops, "pair %d: the flow ends", i)

		r = toyXRun(t, "test-toy-xpass-asym", topo, flow, 50*units.Microsecond)
		fwd, rev = spineOf(r, "leaf1"), spineOf(r, "leaf0")
		require.Len(t, fwd, 1)
		require.Len(t, rev, 1)
		if fwd[0] != rev[0] {
			differ++
		}
	}
	require.Positive(t, differ, "without Symmetric, some reverse path differs from its data path")
}
