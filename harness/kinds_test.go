package harness_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/units"
)

// A toy scheme, defined here and not in the harness, with two control
// kinds of its own: its congestion point sends the flow's source a
// "credit" (100-byte frames at priority 6) for every fourth data packet it
// dequeues, its notification point an "echo" (80-byte frames at the
// control priority) for every eighth packet it receives, and its reaction
// point counts what arrives.
const (
	toyCredit = cc.FeedbackUser + 1
	toyEcho   = cc.FeedbackUser + 2
)

type toyPart struct {
	clock          cc.Monotonic
	n              uint64 // packets seen (CP, NP) or credits received (RP)
	echoes         uint64 // RP: echoes received
	emitEvery      uint64
	kind           cc.FeedbackKind
	credits, flows map[cc.FlowID]bool
}

func (t *toyPart) NextDeadline() units.Time { return units.MaxTime }
func (t *toyPart) Timer(now units.Time, _ *cc.Actions) error {
	return t.clock.Accept("toy", "Timer", now)
}
func (t *toyPart) AppendRegisters(dst []cc.Register) []cc.Register {
	return append(dst, t.clock.Register(), cc.Reg("n", 64, t.n), cc.Reg("echoes", 64, t.echoes))
}

// count is the CP's Dequeue and the NP's Receive: every emitEvery-th data
// packet sends one message of the part's kind to the flow's source.
func (t *toyPart) count(event string, now units.Time, p *cc.Packet, act *cc.Actions) error {
	if err := t.clock.Check("toy", event, now); err != nil {
		return err
	}
	if p == nil {
		return &cc.EventError{Part: "toy", Event: event, Reason: "no packet"}
	}
	emit := (t.n+1)%t.emitEvery == 0
	if emit {
		if err := act.Reserve("toy", event, 1); err != nil {
			return err
		}
	}
	t.clock.Advance(now)
	t.n++
	if emit {
		act.Send(cc.ToSource, cc.ControlPrio, cc.Feedback{Kind: t.kind, Flow: p.Flow})
	}
	return nil
}

type toyCP struct{ toyPart }

func (c *toyCP) Enqueue(now units.Time, _ *cc.Packet, _ cc.Queue, _ *cc.Actions) error {
	return c.clock.Accept("toy", "Enqueue", now)
}
func (c *toyCP) Dequeue(now units.Time, p *cc.Packet, _ cc.Queue, act *cc.Actions) error {
	return c.count("Dequeue", now, p, act)
}

type toyNP struct{ toyPart }

func (n *toyNP) Receive(now units.Time, p *cc.Packet, act *cc.Actions) error {
	return n.count("Receive", now, p, act)
}
func (n *toyNP) Feedback(now units.Time, _ *cc.Feedback, _ *cc.Actions) error {
	return n.clock.Accept("toy", "Feedback", now)
}

type toyRP struct{ toyPart }

func (r *toyRP) Sent(now units.Time, _ *cc.Packet, _ *cc.Actions) error {
	return r.clock.Accept("toy", "Sent", now)
}
func (r *toyRP) Feedback(now units.Time, f *cc.Feedback, _ *cc.Actions) error {
	if err := r.clock.Accept("toy", "Feedback", now); err != nil {
		return err
	}
	switch f.Kind {
	case toyCredit:
		r.n++
	case toyEcho:
		r.echoes++
	}
	return nil
}
func (r *toyRP) Limits() cc.Limits { return cc.Limits{} }

var (
	toyOnce sync.Once
	toyRPs  []*toyRP
)

func toySpec[P cc.Part](mk func() P) *cc.Spec[struct{}] {
	return &cc.Spec[struct{}]{
		Presets: []cc.Preset[struct{}]{{Name: "only", Config: func(cc.Env) struct{} { return struct{}{} }}},
		New:     func(struct{}) (cc.Part, error) { return mk(), nil },
	}
}

func registerToy() {
	toyOnce.Do(func() {
		cc.MustRegisterAlgorithm(cc.Algorithm{
			Name: "test-toy-credit", Title: "toy", Paper: "none", Doc: "a scheme with control kinds of its own",
			Parts: []cc.PartSpec{
				{Name: "cp", Role: cc.RoleCP, Doc: "credits", Config: toySpec(func() *toyCP { return &toyCP{toyPart{emitEvery: 4, kind: toyCredit}} })},
				{Name: "np", Role: cc.RoleNP, Doc: "echoes", Config: toySpec(func() *toyNP { return &toyNP{toyPart{emitEvery: 8, kind: toyEcho}} })},
				{Name: "rp", Role: cc.RoleRP, Doc: "counts", Config: toySpec(func() *toyRP {
					r := &toyRP{}
					toyRPs = append(toyRPs, r)
					return r
				})},
			},
			Deploy: cc.Deployment{Messages: []cc.MessageKind{
				{Kind: toyCredit, Name: "credit", Frame: 100, Prio: 6},
				{Kind: toyEcho, Name: "echo", Frame: 80, Prio: harness.ControlPrio},
			}},
		})
	})
}

// TestToySchemeWithItsOwnControlKinds: adding an algorithm to the harness
// is registering it in cc with its deployment; its control messages
// travel with their declared sizes and priorities, with no harness edit.
// One flow of 100 packets crosses one switch: its CP dequeues 100 packets
// (25 credits), its NP receives 100 (12 echoes), and the reverse link s0→h1
// carries exactly 100 ACKs, 25 credit frames and 12 echo frames.
func TestToySchemeWithItsOwnControlKinds(t *testing.T) {
	registerToy()
	toyRPs = nil
	sc := harness.DefaultScenario()
	sc.Name = "toy"
	sc.Algorithm = "test-toy-credit"
	sc.Workload = harness.WorkloadSpec{Flows: []harness.FlowSpec{{Src: "h1", Dst: "h0", Size: harness.Bytes(100 * 1000)}}}
	sc.Duration = harness.Time(100 * units.Microsecond)
	sc.MeasureFrom = 0
	r, err := harness.Run(sc, harness.Options{})
	require.NoError(t, err)
	require.Nil(t, r.Report.Errors)
	require.Len(t, toyRPs, 1)
	require.Equal(t, uint64(25), toyRPs[0].n, "credits from the CP of s0->h0 (one per 4 dequeued packets)")
	require.Equal(t, uint64(12), toyRPs[0].echoes, "echoes from the NP (one per 8 received packets)")
	const preamble, ack = 20, 66
	want := uint64(100*(ack+preamble) + 25*(100+preamble) + 12*(80+preamble))
	for _, p := range r.Ports {
		if p.Link == "s0->h1" {
			require.Equal(t, want, p.TxBytes, "ACKs, credits and echoes on the reverse link, at their declared sizes")
			return
		}
	}
	t.Fatal("no port s0->h1")
}
