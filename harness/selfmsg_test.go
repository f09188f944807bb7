package harness_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/units"
)

// selfModule is a switch point that sends a message to switch to (its own
// switch, unless told otherwise) at every timer and records how each
// arrives.
type selfModule struct {
	to        uint16
	next      units.Time
	once      bool // one timer only
	inTimer   bool
	sent      []units.Time
	got       []units.Time
	ins       []int
	reentrant int
}

func (m *selfModule) Arrive(units.Time, int, *cc.Packet, *cc.Actions) error { return nil }
func (m *selfModule) Enqueue(units.Time, int, *cc.Packet, cc.Queue, *cc.Actions) error {
	return nil
}
func (m *selfModule) Dequeue(units.Time, int, *cc.Packet, cc.Queue, *cc.Actions) error {
	return nil
}
func (m *selfModule) Pause(units.Time, int, uint8, bool, *cc.Actions) error { return nil }
func (m *selfModule) NextDeadline() units.Time                              { return m.next }
func (m *selfModule) AppendRegisters(dst []cc.Register) []cc.Register {
	return append(dst, cc.TimeReg("next", m.next))
}

func (m *selfModule) Message(now units.Time, in int, _ *cc.Feedback, _ *cc.Actions) error {
	if m.inTimer {
		m.reentrant++
	}
	m.got = append(m.got, now)
	m.ins = append(m.ins, in)
	return nil
}

func (m *selfModule) Timer(now units.Time, act *cc.Actions) error {
	if now < m.next {
		return nil
	}
	if err := act.Reserve("self", "Timer", 1); err != nil {
		return err
	}
	m.inTimer = true
	defer func() { m.inTimer = false }()
	m.next = now + 10*units.Microsecond
	if m.once {
		m.next = units.MaxTime
	}
	act.SendSwitch(m.to, cc.ControlPrio, cc.Feedback{Kind: toyReport})
	m.sent = append(m.sent, now)
	return nil
}

var (
	selfOnce    sync.Once
	selfModules map[string]*selfModule
)

// registerSelf registers test-selfmsg, whose switch points message their
// own switch every 10 µs, and test-selfmsg-unknown, whose switch points
// message switch ID 4000 once, at 5 µs.
func registerSelf() {
	selfOnce.Do(func() {
		sw := func(unknown bool) *cc.Spec[cc.Env] {
			return &cc.Spec[cc.Env]{
				Presets: []cc.Preset[cc.Env]{{Name: "only", Config: func(e cc.Env) cc.Env { return e }}},
				New: func(e cc.Env) (cc.Part, error) {
					if unknown {
						return &selfModule{to: 4000, next: 5 * units.Microsecond, once: true}, nil
					}
					return &selfModule{to: e.SwitchID, next: 10 * units.Microsecond}, nil
				},
			}
		}
		for _, unknown := range []bool{false, true} {
			name := "test-selfmsg"
			if unknown {
				name += "-unknown"
			}
			cc.MustRegisterAlgorithm(cc.Algorithm{
				Name: name, Title: "self message", Paper: "none", Doc: "a switch point that messages a switch",
				Parts: []cc.PartSpec{
					{Name: "rp", Role: cc.RoleRP, Doc: "counts reports", Config: toySpec(func() *reportRP { return &reportRP{} })},
					{Name: "sw", Role: cc.RoleSW, Doc: "messages a switch", Config: sw(unknown)},
				},
				Deploy: cc.Deployment{Messages: []cc.MessageKind{{Kind: toyReport, Name: "report", Frame: 64, Prio: harness.ControlPrio}}},
			})
		}
	})
}

// TestSwitchMessageToItself: a message a switch addresses to itself
// (cc.ToSwitch with its own ID, a ToR crediting its own VOQs) reaches its
// switch point at the same instant, through no port (in = −1), and after
// the event that sent it, not inside it; an unknown ID is refused (and
// the refusal reported as an error of the switch).
func TestSwitchMessageToItself(t *testing.T) {
	registerSelf()
	r := runSelf(t, "test-selfmsg", 105*units.Microsecond)
	require.Nil(t, r.Report.Errors, "every message was accepted")
	m := selfModules["s0"]
	require.NotNil(t, m)
	require.Len(t, m.sent, 10, "a timer every 10 µs to 100 µs")
	require.Equal(t, m.sent, m.got, "each arrives at the instant it was sent")
	require.Zero(t, m.reentrant, "never inside the timer that sent it")
	for _, in := range m.ins {
		require.Equal(t, -1, in)
	}

	r = runSelf(t, "test-selfmsg-unknown", 20*units.Microsecond)
	require.Len(t, selfModules["s0"].sent, 1)
	require.NotNil(t, r.Report.Errors)
	require.Equal(t, int64(1), r.Report.Errors.Count)
	require.Contains(t, r.Report.Errors.First[0].Message, "no switch has ID")
	require.Empty(t, selfModules["s0"].got)
}

// runSelf runs one flow h1→h0 on the star under algo for dur, keeping its
// switch points by name in selfModules.
func runSelf(t *testing.T, algo string, dur units.Time) *harness.Result {
	t.Helper()
	selfModules = map[string]*selfModule{}
	sc := harness.DefaultScenario()
	sc.Name = algo
	sc.Algorithm = algo
	sc.Workload.Flows = []harness.FlowSpec{{Src: "h1", Dst: "h0"}}
	sc.Duration = harness.Time(dur)
	r, err := harness.Run(sc, harness.Options{NoSeries: true, Wrap: func(at harness.Place, p cc.Part) cc.Part {
		if m, ok := p.(*selfModule); ok {
			selfModules[at.Node] = m
		}
		return p
	}})
	require.NoError(t, err)
	return r
}
