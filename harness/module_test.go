package harness_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/units"
)

// countingModule is a switch point that keeps per-port state in its
// switch: the bytes every egress port took in and sent out, the frames
// that arrived, the pause changes it saw; and every 20 µs it sends flow
// 0's source a report.
type countingModule struct {
	in, out  []units.Bytes
	arrivals int
	pauses   int // PAUSE (not RESUME) frames applied to the switch's egress ports
	next     units.Time
	reports  int
}

func (m *countingModule) Arrive(units.Time, int, *cc.Packet, *cc.Actions) error {
	m.arrivals++
	return nil
}
func (m *countingModule) Enqueue(_ units.Time, out int, p *cc.Packet, _ cc.Queue, _ *cc.Actions) error {
	m.in[out] += p.Size
	return nil
}
func (m *countingModule) Dequeue(_ units.Time, out int, p *cc.Packet, _ cc.Queue, _ *cc.Actions) error {
	m.out[out] += p.Size
	return nil
}
func (m *countingModule) Pause(_ units.Time, _ int, _ uint8, paused bool, _ *cc.Actions) error {
	if paused {
		m.pauses++
	}
	return nil
}
func (m *countingModule) Message(units.Time, int, *cc.Feedback, *cc.Actions) error { return nil }
func (m *countingModule) NextDeadline() units.Time                                 { return m.next }
func (m *countingModule) Timer(now units.Time, act *cc.Actions) error {
	if now < m.next {
		return nil
	}
	if err := act.Reserve("counting", "Timer", 1); err != nil {
		return err
	}
	act.Send(cc.ToSource, cc.ControlPrio, cc.Feedback{Kind: toyReport, Flow: 0})
	m.reports++
	m.next = now + 20*units.Microsecond
	return nil
}
func (m *countingModule) AppendRegisters(dst []cc.Register) []cc.Register {
	return append(dst, cc.Reg("reports", 64, uint64(m.reports)))
}

const toyReport = cc.FeedbackUser + 3

// reportRP counts the reports that reach it; it paces nothing.
type reportRP struct {
	clock   cc.Monotonic
	reports uint64
}

func (r *reportRP) NextDeadline() units.Time { return units.MaxTime }
func (r *reportRP) Timer(now units.Time, _ *cc.Actions) error {
	return r.clock.Accept("report", "Timer", now)
}
func (r *reportRP) AppendRegisters(dst []cc.Register) []cc.Register {
	return append(dst, r.clock.Register(), cc.Reg("reports", 64, r.reports))
}
func (r *reportRP) Sent(now units.Time, _ *cc.Packet, _ *cc.Actions) error {
	return r.clock.Accept("report", "Sent", now)
}
func (r *reportRP) Feedback(now units.Time, f *cc.Feedback, _ *cc.Actions) error {
	if err := r.clock.Accept("report", "Feedback", now); err != nil {
		return err
	}
	if f.Kind == toyReport {
		r.reports++
	}
	return nil
}
func (r *reportRP) Limits() cc.Limits { return cc.Limits{} }

var (
	moduleOnce sync.Once
	modules    map[string]*countingModule
	reportRPs  []*reportRP
)

// TestSwitchModuleSeesEveryFrameAndPause: an algorithm with a switch
// point in every switch, defined here and not in the harness. On a
// dumbbell (4 senders at 100 Gb/s behind s0, the receiver behind s1, a
// 400 Gb/s core, so that s1 pauses s0's core port with PFC) the switch
// point's own accounts must agree with the harness's: for every egress
// port, the bytes it saw join the queue less those it saw leave are the
// bytes queued at the end; every data frame that arrived was seen; s0 saw
// as many PAUSE frames as the report counts on its ports; and every report
// it sent reached flow 0's sender. The switch points are kept by name as
// the run builds them (Options.Wrap).
func TestSwitchModuleSeesEveryFrameAndPause(t *testing.T) {
	moduleOnce.Do(func() {
		cc.MustRegisterAlgorithm(cc.Algorithm{
			Name: "test-module", Title: "module", Paper: "none", Doc: "a switch point and a counting sender",
			Parts: []cc.PartSpec{
				{Name: "rp", Role: cc.RoleRP, Doc: "counts reports", Config: toySpec(func() *reportRP {
					r := &reportRP{}
					reportRPs = append(reportRPs, r)
					return r
				})},
				{Name: "sw", Role: cc.RoleSW, Doc: "counts frames and pauses", Config: &cc.Spec[cc.Env]{
					Presets: []cc.Preset[cc.Env]{{Name: "only", Config: func(e cc.Env) cc.Env { return e }}},
					New: func(e cc.Env) (cc.Part, error) {
						return &countingModule{in: make([]units.Bytes, e.Ports), out: make([]units.Bytes, e.Ports), next: 10 * units.Microsecond}, nil
					},
				}},
			},
			Deploy: cc.Deployment{Messages: []cc.MessageKind{{Kind: toyReport, Name: "report", Frame: 64, Prio: harness.ControlPrio}}},
		})
	})
	modules, reportRPs = map[string]*countingModule{}, nil
	sc := harness.DefaultScenario()
	sc.Name = "module"
	sc.Algorithm = "test-module"
	sc.Topology = harness.TopologySpec{Kind: "dumbbell", Left: 4, Right: 1, CoreLink: harness.Rate(400 * units.Gbps)}
	for i := range 4 {
		sc.Workload.Flows = append(sc.Workload.Flows, harness.FlowSpec{Src: "l" + string(rune('0'+i)), Dst: "r0"})
	}
	sc.Duration = harness.Time(300 * units.Microsecond)
	sc.MeasureFrom = 0
	r, err := harness.Run(sc, harness.Options{Wrap: func(at harness.Place, p cc.Part) cc.Part {
		if m, ok := p.(*countingModule); ok {
			modules[at.Node] = m
		}
		return p
	}})
	require.NoError(t, err)
	require.Nil(t, r.Report.Errors)
	require.Len(t, modules, 2)
	pauses := map[string]int64{}
	var coreTx uint64
	corePort := -1
	for _, p := range r.Ports {
		if p.IsSwitch {
			pauses[p.Node] += p.Pauses
		}
		if p.Link == "s0->s1" {
			coreTx, corePort = p.TxBytes, p.Port
		}
	}
	s0, s1 := modules["s0"], modules["s1"]
	require.Positive(t, s0.pauses, "s1 paused s0's core port")
	require.Equal(t, pauses["s0"], int64(s0.pauses), "every PAUSE applied to s0's egress ports")
	// s0's core port carries only data (ACKs flow the other way, s0's PFC
	// frames go to its hosts): the module saw every byte it sent.
	require.Equal(t, coreTx, uint64(s0.out[corePort]), "data bytes s0's core port sent")
	for _, m := range modules {
		for port := range m.in {
			require.GreaterOrEqual(t, m.in[port], m.out[port], "port %d: more left than joined", port)
		}
	}
	// Every frame r0 received crossed s1, which it reached through s0.
	require.GreaterOrEqual(t, int64(s0.arrivals), int64(s1.arrivals))
	require.GreaterOrEqual(t, int64(s1.arrivals), r.Counters.DataRecvPackets)
	require.Positive(t, r.Counters.DataRecvPackets)
	require.Len(t, reportRPs, 4)
	got := reportRPs[0].reports
	require.Positive(t, got)
	sent := int64(s0.reports + s1.reports)
	require.Equal(t, sent, r.Counters.FeedbackSent, "the harness sent every report the switch points asked for (flow 0 never ends)")
	require.Equal(t, uint64(sent), got, "every report reached flow 0's sender")
}
