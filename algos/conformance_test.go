package algos_test

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	_ "github.com/hwcc/hwcc/algos"
	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cc/cctest"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/voq"
	"github.com/hwcc/hwcc/wire"
)

// messages returns the feedback the algorithm's own congestion and
// notification points send when driven by well-formed sequences: what its
// reaction points must take (RoCC's rate messages and reports, DCQCN's
// CNPs). Each CP and NP runs with its defaults and once with each value of
// each of its choice parameters, so that every message format it can send
// (RoCC's report mode, say) is among them.
func messages(t *testing.T, a cc.Algorithm) []cc.Feedback {
	var out []cc.Feedback
	rng := rand.New(rand.NewSource(11))
	for _, ps := range a.Parts {
		if ps.Role == cc.RoleRP {
			continue
		}
		variants := [][]cc.Setting{nil}
		for _, q := range ps.Config.Describe().Params {
			for _, c := range q.Choices {
				variants = append(variants, []cc.Setting{{Name: q.Name, Value: c.Name}})
			}
		}
		for _, st := range variants {
			p, err := cc.NewWith(a.Name, ps.Name, st)
			if err != nil {
				continue // a choice that needs other settings
			}
			evs := cctest.Events(rng, ps.Role, cctest.GenOptions{Events: 400, INT: true, Hdrs: npHdrs[a.Name]})
			n := 0
			err = cctest.Drive(p, evs, cc.NewActions(4096), func(s cctest.Step) bool {
				for _, x := range s.Actions {
					if x.Kind == cc.ActionFeedback && n < 16 {
						out = append(out, x.Feedback)
						n++
					}
				}
				return true
			})
			require.NoError(t, err)
		}
	}
	return out
}

// variants returns the settings the conformance suite runs a part with:
// each preset, and the default preset with each value of each choice
// parameter (RoCC's message formats, DCQCN's marking point, ...).
func variants(ps cc.PartSpec) [][]cc.Setting {
	var out [][]cc.Setting
	d := ps.Config.Describe()
	for _, pr := range d.Presets {
		out = append(out, []cc.Setting{{Name: cc.SettingPreset, Value: pr.Name}})
	}
	for _, q := range d.Params {
		for _, c := range q.Choices {
			if c.Name != q.Default {
				out = append(out, []cc.Setting{{Name: q.Name, Value: c.Name}})
			}
		}
	}
	return out
}

// swEnv is where the suite runs switch points: a ToR of two server ports
// (hosts 1 and 2 at 25 Gb/s) and two uplinks (100 Gb/s), switch ID 3.
var swEnv = cc.Env{Rate: 100 * units.Gbps, Node: 10, SwitchID: 3, Ports: 4, SwitchPorts: []cc.SwitchPort{
	{Rate: 25 * units.Gbps, Edge: true, Host: 1}, {Rate: 25 * units.Gbps, Edge: true, Host: 2},
	{Rate: 100 * units.Gbps}, {Rate: 100 * units.Gbps},
}}

// swHdrs are, per algorithm, headers its hosts and its switch points
// upstream write into the packets that reach swEnv's servers: HierCC's,
// from ToRs 5 and 6, for hosts 1 and 2, with growing S_ij, and a host's
// (no ToR header, its flags mark, first and last in byte 1).
var swHdrs = map[string][][cc.PacketHdrLen]byte{"hiercc": append(hierccHdrs(),
	wire.HierCCHostHeader(1), wire.HierCCHostHeader(2), wire.HierCCHostHeader(3), wire.HierCCHostHeader(4),
	wire.HierCCHostHeader(5), wire.HierCCHostHeader(6), wire.HierCCHostHeader(7)),
	"bfc": bfcTags()}

// npHdrs are, per algorithm, headers its senders write into the data
// packets its notification points receive: Ultra Ethernet's pull targets,
// growing, a trimmed header among them.
var npHdrs = map[string][][cc.PacketHdrLen]byte{"rccc": uecHdrs(), "uec": uecHdrs()}

func uecHdrs() [][cc.PacketHdrLen]byte {
	var out [][cc.PacketHdrLen]byte
	for i := range 8 {
		var b [cc.PacketHdrLen]byte
		wire.UECData{Valid: true, HasPull: true, PullTarget: uint32(40 * (i + 1)), Frame: 1082, Payload: 1000,
			Trimmed: i == 5, LastHop: i == 5}.Put(&b)
		out = append(out, b)
	}
	return out
}

// swMsgs are, per algorithm, messages other switches send swEnv's:
// HierCC's credits for its VOQs toward the hosts elsewhere (64..127 in
// cctest's sequences), with totals that grow.
var swMsgs = map[string][]cc.Feedback{"hiercc": hierccCredits(), "bfc": bfcPauses()}

// bfcTags are the tags BFC switches 5 and 6 upstream write: their
// ports 0..3, queues 0..31.
func bfcTags() [][cc.PacketHdrLen]byte {
	var out [][cc.PacketHdrLen]byte
	for i := range 8 {
		var b [cc.PacketHdrLen]byte
		if err := (wire.BFCTag{Switch: uint16(5 + i%2), Port: uint16(i % 4), Queue: uint8(5 * i % 32)}).Put(&b); err != nil {
			panic(err)
		}
		out = append(out, b)
	}
	return out
}

// bfcPauses are the pauses and resumes swEnv's downstream neighbours send
// it for its ports' queues: leases of 0 (resume), 50 µs and until
// resumed.
func bfcPauses() []cc.Feedback {
	var out []cc.Feedback
	for i := range 12 {
		m := wire.BFCPause{Port: uint16(i % 4), Queue: uint8(i % 3)}
		switch i % 3 {
		case 0:
			m.Lease = 50 * units.Microsecond
		case 1:
			m.Forever = true
		}
		f, err := m.Feedback(0)
		if err != nil {
			panic(err)
		}
		out = append(out, f)
	}
	return out
}

func hierccCredits() []cc.Feedback {
	var out []cc.Feedback
	for i := range 8 {
		f, err := wire.HierCCCreditPacket{ToR: swEnv.SwitchID, Dst: voq.Key(64 + i), Amount: 1000, Total: uint32(1000 * (i + 1))}.Feedback()
		if err != nil {
			panic(err)
		}
		out = append(out, f)
	}
	return out
}

func hierccHdrs() [][cc.PacketHdrLen]byte {
	var out [][cc.PacketHdrLen]byte
	for i := range 8 {
		var b [cc.PacketHdrLen]byte
		h := wire.HierCCHeader{ToR: uint16(5 + i%2), Dst: voq.Key(1 + i/2%2), Flows: uint16(i), Sent: uint32(1000 * (i + 1))}
		if err := h.Put(&b); err != nil {
			panic(err)
		}
		out = append(out, b)
	}
	return out
}

// TestConformance runs the contract's conformance suite over every part of
// every registered algorithm, in every preset and every choice.
func TestConformance(t *testing.T) {
	algos := cc.Algorithms()
	require.NotEmpty(t, algos)
	for _, a := range algos {
		msgs := messages(t, a)
		for _, ps := range a.Parts {
			for _, settings := range variants(ps) {
				name := a.Name + "/" + ps.Name + "/" + settings[0].Name + "=" + settings[0].Value
				var env *cc.Env
				if ps.Role == cc.RoleSW {
					env = &swEnv
				}
				newPart := func() (cc.Part, error) { return cc.NewIn(env, a.Name, ps.Name, settings) }
				if _, err := newPart(); err != nil {
					// A choice that needs other settings with it (RoCC's
					// aged flow table needs an age): it is the part's
					// own validation, tested with the part.
					require.ErrorIs(t, err, cc.ErrConfig, name)
					continue
				}
				t.Run(name, func(t *testing.T) {
					o := cctest.Options{Gen: cctest.GenOptions{INT: true, Messages: msgs}}
					if ps.Role == cc.RoleNP {
						o.Gen.Hdrs = npHdrs[a.Name]
					}
					if ps.Role == cc.RoleSW {
						o.Gen.Ports, o.Gen.SwitchPorts = len(swEnv.SwitchPorts), swEnv.SwitchPorts
						o.Gen.Hdrs = swHdrs[a.Name]
						o.Gen.Messages = append(o.Gen.Messages, swMsgs[a.Name]...)
					}
					if testing.Short() {
						o.Sequences, o.Chaos, o.AllocSequences = 6, 12, 1
					}
					st, err := cctest.TestStats(newPart, o)
					require.NoError(t, err)
					// Not vacuous: most well-formed events are taken (a
					// refusal is legal, e.g. a rate message of another CP's
					// flow, but not the rule).
					require.Greater(t, st.Accepted, st.Calls*3/4, "accepted %d of %d: %v", st.Accepted, st.Calls, st.Refused)
					t.Logf("%d calls, %d accepted, actions %v, refused %v", st.Calls, st.Accepted, st.Actions, st.Refused)
				})
			}
		}
	}
}

// TestEveryPartRefusesTimeGoingBack: the contract's time-order rule spelled
// out for each registered part on its own, beyond the suite's probes: an
// event at 5 µs after one at 10 µs gives cc.ErrTimeOrder naming both times.
func TestEveryPartRefusesTimeGoingBack(t *testing.T) {
	for _, a := range cc.Algorithms() {
		for _, ps := range a.Parts {
			p, err := cc.NewWith(a.Name, ps.Name, nil)
			require.NoError(t, err)
			act := cc.NewActions(4096)
			require.NoError(t, p.Timer(10_000_000, act), "%s %s", a.Name, ps.Name)
			err = p.Timer(5_000_000, act)
			var te *cc.TimeOrderError
			require.ErrorAs(t, err, &te, "%s %s", a.Name, ps.Name)
			require.Equal(t, int64(5_000_000), int64(te.Now))
			require.Equal(t, int64(10_000_000), int64(te.Last))
		}
	}
}

// TestEveryParamRefusesGarbage: for every parameter of every part, a value
// that cannot parse gives a *cc.ConfigError naming that parameter.
func TestEveryParamRefusesGarbage(t *testing.T) {
	for _, a := range cc.Algorithms() {
		for _, ps := range a.Parts {
			for _, q := range ps.Config.Describe().Params {
				_, err := cc.NewWith(a.Name, ps.Name, []cc.Setting{{Name: q.Name, Value: "#garbage"}})
				var ce *cc.ConfigError
				require.ErrorAs(t, err, &ce, "%s %s %s", a.Name, ps.Name, q.Name)
				require.Equal(t, q.Name, ce.Field)
				require.Equal(t, "#garbage", ce.Value)
			}
		}
	}
}

// TestEveryDefaultBuilds: each parameter set to its listed default builds
// the same part as no setting at all (the description matches the preset).
func TestEveryDefaultBuilds(t *testing.T) {
	for _, a := range cc.Algorithms() {
		for _, ps := range a.Parts {
			plain, err := cc.NewWith(a.Name, ps.Name, nil)
			require.NoError(t, err)
			var st []cc.Setting
			for _, q := range ps.Config.Describe().Params {
				st = append(st, cc.Setting{Name: q.Name, Value: q.Default})
			}
			withDefaults, err := cc.NewWith(a.Name, ps.Name, st)
			require.NoError(t, err, "%s %s", a.Name, ps.Name)
			require.Equal(t, plain.AppendRegisters(nil), withDefaults.AppendRegisters(nil), "%s %s", a.Name, ps.Name)
		}
	}
}
