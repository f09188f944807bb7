package harness_test

import (
	"encoding/binary"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/units"
)

// A toy scheme with a switch point, defined here and not in the harness,
// in HierCC's shape: the first switch a data frame leaves writes its own
// node ID into the frame's header (cc.Packet.Hdr bytes 0..3) and every
// switch counts itself in byte 4; the switch that delivers the frame to
// its host sends the first switch a credit message (kind toySWCredit) for
// every frame, and the first switch, on each message, credits the VOQ the
// frame came from with one frame's bytes (ActionCredit). With scheduler
// voq-credit and a small initial credit the flow can only finish if that
// loop works. The receiver's NP checks the header.
const toySWCredit = cc.FeedbackUser + 9

type toySW struct {
	clock    cc.Monotonic
	swID     uint16
	ports    int
	arrive   []units.Bytes // per ingress port
	enq, deq []units.Bytes // per egress port
	pauses   int
	msgs     int
	credits  int
	voqPort  map[cc.NodeID]uint16 // egress port of the frames this switch stamped first, by destination
}

func (t *toySW) NextDeadline() units.Time { return units.MaxTime }
func (t *toySW) Timer(now units.Time, _ *cc.Actions) error {
	return t.clock.Accept("toysw", "Timer", now)
}
func (t *toySW) AppendRegisters(dst []cc.Register) []cc.Register {
	return append(dst, t.clock.Register(), cc.Reg("msgs", 64, uint64(t.msgs)))
}

func (t *toySW) port(event string, now units.Time, port int, p *cc.Packet) error {
	if err := t.clock.Check("toysw", event, now); err != nil {
		return err
	}
	if p == nil || port < 0 || port >= t.ports {
		return &cc.EventError{Part: "toysw", Event: event, Reason: "bad packet or port"}
	}
	return nil
}

func (t *toySW) Arrive(now units.Time, in int, p *cc.Packet, _ *cc.Actions) error {
	if err := t.port("Arrive", now, in, p); err != nil {
		return err
	}
	t.clock.Advance(now)
	t.arrive[in] += p.Size
	return nil
}

func (t *toySW) Enqueue(now units.Time, out int, p *cc.Packet, _ cc.Queue, _ *cc.Actions) error {
	if err := t.port("Enqueue", now, out, p); err != nil {
		return err
	}
	t.clock.Advance(now)
	t.enq[out] += p.Size
	return nil
}

func (t *toySW) Dequeue(now units.Time, out int, p *cc.Packet, _ cc.Queue, act *cc.Actions) error {
	if err := t.port("Dequeue", now, out, p); err != nil {
		return err
	}
	first := binary.BigEndian.Uint32(p.Hdr[0:4])
	last := p.Hdr[4] == 2 // the third switch of a leaf-spine path delivers the frame
	if last {
		if err := act.Reserve("toysw", "Dequeue", 1); err != nil {
			return err
		}
	}
	t.clock.Advance(now)
	t.deq[out] += p.Size
	if first == 0 {
		binary.BigEndian.PutUint32(p.Hdr[0:4], uint32(t.swID)+1)
		t.voqPort[p.Dst] = uint16(out)
	}
	p.Hdr[4]++
	if last {
		var fb cc.Feedback
		fb.Kind = toySWCredit
		binary.BigEndian.PutUint32(fb.Data[0:4], uint32(p.Dst))
		binary.BigEndian.PutUint64(fb.Data[4:12], uint64(p.Size))
		act.SendSwitch(uint16(first-1), cc.ControlPrio, fb)
	}
	return nil
}

func (t *toySW) Pause(now units.Time, out int, _ uint8, paused bool, _ *cc.Actions) error {
	if err := t.clock.Accept("toysw", "Pause", now); err != nil {
		return err
	}
	if paused {
		t.pauses++
	}
	return nil
}

func (t *toySW) Message(now units.Time, _ int, f *cc.Feedback, act *cc.Actions) error {
	if err := t.clock.Check("toysw", "Message", now); err != nil {
		return err
	}
	dst := cc.NodeID(binary.BigEndian.Uint32(f.Data[0:4]))
	port, ok := t.voqPort[dst]
	if f.Kind != toySWCredit || !ok {
		return &cc.EventError{Part: "toysw", Event: "Message", Reason: "not a credit for a VOQ of this switch"}
	}
	if err := act.Reserve("toysw", "Message", 1); err != nil {
		return err
	}
	t.clock.Advance(now)
	t.msgs++
	act.Credit(port, dst, units.Bytes(binary.BigEndian.Uint64(f.Data[4:12])))
	t.credits++
	return nil
}

// toySWNP checks each frame's header at the receiver.
type toySWNP struct {
	clock     cc.Monotonic
	frames    int
	badHops   int
	firstSeen map[uint32]int
}

func (n *toySWNP) NextDeadline() units.Time { return units.MaxTime }
func (n *toySWNP) Timer(now units.Time, _ *cc.Actions) error {
	return n.clock.Accept("toyswnp", "Timer", now)
}
func (n *toySWNP) AppendRegisters(dst []cc.Register) []cc.Register {
	return append(dst, n.clock.Register())
}
func (n *toySWNP) Receive(now units.Time, p *cc.Packet, _ *cc.Actions) error {
	if err := n.clock.Accept("toyswnp", "Receive", now); err != nil {
		return err
	}
	n.frames++
	if p.Hdr[4] != 3 {
		n.badHops++
	}
	n.firstSeen[binary.BigEndian.Uint32(p.Hdr[0:4])]++
	return nil
}
func (n *toySWNP) Feedback(now units.Time, _ *cc.Feedback, _ *cc.Actions) error {
	return n.clock.Accept("toyswnp", "Feedback", now)
}

var (
	toySWOnce sync.Once
	toySWs    []*toySW
	toySWNPs  []*toySWNP
)

func registerToySW() {
	toySWOnce.Do(func() {
		cc.MustRegisterAlgorithm(cc.Algorithm{
			Name: "test-toy-sw", Title: "toy switch point", Paper: "none", Doc: "a switch point that stamps headers and credits VOQs",
			Parts: []cc.PartSpec{
				{Name: "sw", Role: cc.RoleSW, Doc: "stamps and credits", Config: &cc.Spec[cc.Env]{
					Presets: []cc.Preset[cc.Env]{{Name: "only", Config: func(e cc.Env) cc.Env { return e }}},
					New: func(e cc.Env) (cc.Part, error) {
						t := &toySW{swID: e.SwitchID, ports: e.Ports, arrive: make([]units.Bytes, e.Ports), enq: make([]units.Bytes, e.Ports),
							deq: make([]units.Bytes, e.Ports), voqPort: map[cc.NodeID]uint16{}}
						toySWs = append(toySWs, t)
						return t, nil
					},
				}},
				{Name: "rp", Role: cc.RoleRP, Doc: "line rate", Config: toySpec(func() lineRateRP { return lineRateRP{} })},
				{Name: "np", Role: cc.RoleNP, Doc: "checks headers", Config: &cc.Spec[struct{}]{
					Presets: []cc.Preset[struct{}]{{Name: "only", Config: func(cc.Env) struct{} { return struct{}{} }}},
					New: func(struct{}) (cc.Part, error) {
						n := &toySWNP{firstSeen: map[uint32]int{}}
						toySWNPs = append(toySWNPs, n)
						return n, nil
					},
				}},
			},
			Deploy: cc.Deployment{Messages: []cc.MessageKind{
				{Kind: toySWCredit, Name: "toy-credit", Frame: 64, Prio: harness.ControlPrio},
			}},
		})
	})
}

// TestSwitchPointScheme: an algorithm whose switch part is a
// cc.SwitchPoint runs in every switch with no harness edit. One flow of 200 frames
// crosses a leaf-spine (leaf0, a spine, leaf1) whose ports hold VOQs that
// start with 2 frames of credit at the leaves' uplinks (switch.scheduler
// voq-credit, voq_gate uplinks): the flow finishes only because every
// frame delivered by leaf1 sends leaf0 a credit message (routed switch to
// switch) that leaf0 turns into one frame's credit for the VOQ, two
// frames per loop of about 4.3 µs (four 1 µs links and the frames'
// serialisation), so 200 frames take some 430 µs against the 17 µs they
// would take at line rate: the credit, not the link, paces the flow.
// Checked: the header the first switch
// writes reaches the receiver with the hop count 3 on every frame; leaf0
// receives one message per frame; every switch's part saw each frame
// arrive, join and leave (the same bytes in as out).
func TestSwitchPointScheme(t *testing.T) {
	registerToySW()
	toySWs, toySWNPs = nil, nil
	const frames = 200
	frame := units.Bytes(1000 + 62 + 20)
	sc := harness.DefaultScenario()
	sc.Name = "toysw"
	sc.Algorithm = "test-toy-sw"
	sc.Topology = harness.TopologySpec{Kind: "leaf-spine", Leaves: 2, Spines: 2, HostsPerLeaf: 2}
	sc.Workload = harness.WorkloadSpec{Flows: []harness.FlowSpec{{Src: "h0", Dst: "h2", Size: harness.Bytes(frames * 1000)}}}
	sc.Switch.Scheduler = harness.SchedulerVOQCredit
	c0 := harness.Bytes(2 * frame)
	sc.Switch.VOQCredit = &c0
	sc.Switch.VOQGate = harness.VOQGateUplinks
	sc.Duration = harness.Time(units.Millisecond)
	sc.MeasureFrom = 0
	r, err := harness.Run(sc, harness.Options{})
	require.NoError(t, err)
	require.Nil(t, r.Report.Errors)
	require.Equal(t, int64(1), r.Counters.FlowsFinished, "the credit loop lets the flow finish")
	fct := r.Flows[0].FCT
	require.Greater(t, fct, 300*units.Microsecond, "two frames per credit loop: the credit paces the flow")
	require.Less(t, fct, 600*units.Microsecond)
	require.Zero(t, r.Counters.Drops)

	require.Len(t, toySWNPs, 1)
	np := toySWNPs[0]
	require.Equal(t, frames, np.frames)
	require.Zero(t, np.badHops, "every frame crossed three switches, each counted in the header")
	require.Len(t, np.firstSeen, 1, "one switch stamped first: the source's leaf")

	require.Len(t, toySWs, 4) // leaf0, leaf1, spine0, spine1
	var msgs, stamped int
	for _, s := range toySWs {
		msgs += s.msgs
		if len(s.voqPort) > 0 {
			stamped++
			require.Equal(t, frames, s.msgs, "the source's leaf gets a credit per frame")
			require.Equal(t, frames, s.credits)
		}
		var in, out units.Bytes
		for i := range s.arrive {
			in += s.arrive[i]
			out += s.deq[i]
			require.Equal(t, s.enq[i], s.deq[i], "port %d: what joined left", i)
		}
		// Data frames only: each counted in as it arrives and out as it
		// leaves (the ACKs and credits are control frames).
		require.Equal(t, in, out, "switch %d: bytes in = bytes out", s.swID)
	}
	require.Equal(t, 1, stamped)
	require.Equal(t, frames, msgs)
}
