package fuzz

import (
	"errors"
	"testing"

	_ "github.com/hwcc/hwcc/algos"
	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cc/cctest"
	"github.com/hwcc/hwcc/units"
)

// contractPart is one registered part with its default configuration.
type contractPart struct {
	name string
	role cc.Role
	make func() (cc.Part, error)
}

// swEnv is where a switch point runs: four ports, the first two facing
// hosts 0 and 1 (the nodes cctest.FromBytes's packets go between are
// 0..3), switch ID 3.
var swEnv = cc.Env{Rate: 100 * units.Gbps, Node: 10, SwitchID: 3, Ports: 4, SwitchPorts: []cc.SwitchPort{
	{Rate: 25 * units.Gbps, Edge: true, Host: 0}, {Rate: 25 * units.Gbps, Edge: true, Host: 1},
	{Rate: 100 * units.Gbps}, {Rate: 100 * units.Gbps},
}}

func registeredParts() []contractPart {
	var out []contractPart
	for _, a := range cc.Algorithms() {
		for _, ps := range a.Parts {
			var env *cc.Env
			if ps.Role == cc.RoleSW {
				env = &swEnv
			}
			out = append(out, contractPart{
				name: a.Name + " " + ps.Name, role: ps.Role,
				make: func() (cc.Part, error) { return cc.NewIn(env, a.Name, ps.Name, nil) },
			})
		}
	}
	return out
}

// FuzzContract drives every registered part with an arbitrary event
// sequence decoded from the input (cctest.FromBytes: times that go back,
// negative and huge sizes, unknown feedback kinds, random payload bytes,
// telemetry stacks of any bytes and length). Every part must take it without
// panicking, return only cc's error types, leave its registers unchanged
// when it refuses an event, keep every register within its width, refuse
// every event before its latest accepted now, accept no time before 0, and
// decide exactly as a twin part given the same events.
func FuzzContract(f *testing.F) {
	f.Add([]byte{})
	f.Add(make([]byte, 64))
	seed := make([]byte, 16*12)
	for i := range seed {
		seed[i] = byte(i * 37)
	}
	f.Add(seed)
	parts := registeredParts()
	if len(parts) == 0 {
		f.Fatal("no registered parts")
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, cp := range parts {
			p, err := cp.make()
			if err != nil {
				t.Fatalf("%s: %v", cp.name, err)
			}
			twin, err := cp.make()
			if err != nil {
				t.Fatalf("%s: %v", cp.name, err)
			}
			act, actTwin := cc.NewActions(4096), cc.NewActions(4096)
			var accepted units.Time
			for i, ev := range cctest.FromBytes(data, cp.role) {
				before := p.AppendRegisters(nil)
				act.Reset()
				sent := ev
				err := ev.Apply(p, act)
				after := p.AppendRegisters(nil)
				// Determinism: a twin given the same event decides the same.
				actTwin.Reset()
				errTwin := sent.Apply(twin, actTwin)
				if (err == nil) != (errTwin == nil) || (err != nil && err.Error() != errTwin.Error()) ||
					act.Len() != actTwin.Len() || ev.Tel != sent.Tel || p.NextDeadline() != twin.NextDeadline() {
					t.Fatalf("%s event %d (%s): two equal parts differ: %v / %v, %d / %d actions", cp.name, i, &ev, err, errTwin, act.Len(), actTwin.Len())
				}
				for j, r := range twin.AppendRegisters(nil) {
					if after[j] != r {
						t.Fatalf("%s event %d (%s): two equal parts' registers differ: %v / %v", cp.name, i, &ev, after[j], r)
					}
				}
				for _, r := range after {
					if !r.Fits() {
						t.Fatalf("%s event %d (%s): register %v does not fit", cp.name, i, &ev, r)
					}
				}
				if err != nil {
					if !cc.Typed(err) {
						t.Fatalf("%s event %d (%s): untyped error %T: %v", cp.name, i, &ev, err, err)
					}
					if len(before) != len(after) {
						t.Fatalf("%s event %d: refused, but its register count changed", cp.name, i)
					}
					for j := range before {
						if before[j] != after[j] {
							t.Fatalf("%s event %d (%s) refused (%v) but changed %v to %v", cp.name, i, &ev, err, before[j], after[j])
						}
					}
					if ev.At < accepted && !errors.Is(err, cc.ErrTimeOrder) {
						t.Fatalf("%s event %d (%s) before %v refused with %v, not ErrTimeOrder", cp.name, i, &ev, accepted, err)
					}
					continue
				}
				if ev.At < accepted || ev.At < 0 {
					t.Fatalf("%s event %d (%s) accepted before the latest now %v", cp.name, i, &ev, accepted)
				}
				accepted = ev.At
			}
		}
	})
}
