package harness_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/units"
)

// selfModule sends a message to its own switch at every timer and records
// how each arrives.
type selfModule struct {
	swID      uint16
	next      units.Time
	inTimer   bool
	sent      []units.Time
	got       []units.Time
	ins       []int
	reentrant int
}

func (m *selfModule) Arrive(units.Time, *harness.Switch, int, *harness.Packet)  {}
func (m *selfModule) Enqueue(units.Time, *harness.Switch, int, *harness.Packet) {}
func (m *selfModule) Dequeue(units.Time, *harness.Switch, int, *harness.Packet) {}
func (m *selfModule) Pause(units.Time, *harness.Switch, int, uint8, bool)       {}
func (m *selfModule) NextDeadline() units.Time                                  { return m.next }
func (m *selfModule) Message(now units.Time, _ *harness.Switch, in int, _ *cc.Feedback) {
	if m.inTimer {
		m.reentrant++
	}
	m.got = append(m.got, now)
	m.ins = append(m.ins, in)
}

func (m *selfModule) Timer(now units.Time, sw *harness.Switch) {
	m.inTimer = true
	defer func() { m.inTimer = false }()
	m.next = now + 10*units.Microsecond
	if err := sw.SendSwitchID(m.swID, cc.Feedback{Kind: toyReport}); err == nil {
		m.sent = append(m.sent, now)
	}
}

var (
	selfOnce, probeOnce sync.Once
	selfModules         map[string]*selfModule
	probeErr            error
)

// TestSwitchMessageToItself: a message a switch addresses to itself
// (Switch.SendSwitchID with its own ID, a ToR crediting its own VOQs)
// reaches its module at the same instant, through no port (in = −1), and
// after the event that sent it, not inside it; an unknown ID is refused.
func TestSwitchMessageToItself(t *testing.T) {
	selfOnce.Do(func() {
		cc.MustRegisterAlgorithm(cc.Algorithm{
			Name: "test-selfmsg", Title: "self message", Paper: "none", Doc: "a module that messages itself",
			Parts: []cc.PartSpec{{Name: "rp", Role: cc.RoleRP, Doc: "counts reports", Config: toySpec(func() *reportRP { return &reportRP{} })}},
		})
		harness.MustRegisterScheme(harness.Scheme{
			Algo:  "test-selfmsg",
			Kinds: []harness.ControlKind{{Kind: toyReport, Name: "report", Frame: 64, Prio: harness.ControlPrio}},
			Module: func(info harness.SwitchInfo) (harness.SwitchModule, error) {
				m := &selfModule{swID: info.SwitchID, next: 10 * units.Microsecond}
				selfModules[info.Name] = m
				return m, nil
			},
		})
	})
	selfModules = map[string]*selfModule{}
	r := runSelf(t, "test-selfmsg", 105*units.Microsecond)
	require.Nil(t, r.Report.Errors)
	m := selfModules["s0"]
	require.NotNil(t, m)
	require.Len(t, m.sent, 10, "a timer every 10 µs to 100 µs")
	require.Equal(t, m.sent, m.got, "each arrives at the instant it was sent")
	require.Zero(t, m.reentrant, "never inside the timer that sent it")
	for _, in := range m.ins {
		require.Equal(t, -1, in)
	}

	require.ErrorContains(t, unknownSwitchID(t), "no switch has ID")
}

// unknownSwitchID runs a module that addresses switch ID 4000 and returns
// what SendSwitchID said.
func unknownSwitchID(t *testing.T) error {
	t.Helper()
	probeOnce.Do(func() {
		harness.MustRegisterScheme(harness.Scheme{
			Algo: "test-selfmsg", Name: "test-selfmsg-unknown",
			Module: func(harness.SwitchInfo) (harness.SwitchModule, error) {
				return &probeSelf{report: func(err error) { probeErr = err }}, nil
			},
		})
	})
	probeErr = nil
	runSelf(t, "test-selfmsg-unknown", 20*units.Microsecond)
	return probeErr
}

// runSelf runs one flow h1→h0 on the star under algo for dur.
func runSelf(t *testing.T, algo string, dur units.Time) *harness.Result {
	t.Helper()
	sc := harness.DefaultScenario()
	sc.Name = algo
	sc.Algorithm = algo
	sc.Workload.Flows = []harness.FlowSpec{{Src: "h1", Dst: "h0"}}
	sc.Duration = harness.Time(dur)
	r, err := harness.Run(sc, harness.Options{NoSeries: true})
	require.NoError(t, err)
	return r
}

type probeSelf struct {
	selfModule
	report func(error)
	done   bool
}

func (p *probeSelf) NextDeadline() units.Time {
	if p.done {
		return units.MaxTime
	}
	return 5 * units.Microsecond
}

func (p *probeSelf) Timer(_ units.Time, sw *harness.Switch) {
	p.done = true
	p.report(sw.SendSwitchID(4000, cc.Feedback{Kind: toyReport}))
}
