package cc_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
)

// deployParts are the parts of the deployment tests' algorithms: two
// reaction points and a notification point (the registry does not build
// them, so one Spec serves every role).
func deployParts() []cc.PartSpec {
	return []cc.PartSpec{
		{Name: "rp", Role: cc.RoleRP, Doc: "a sender", Config: demoSpec()},
		{Name: "rp2", Role: cc.RoleRP, Doc: "another sender", Config: demoSpec()},
		{Name: "np", Role: cc.RoleNP, Doc: "a receiver", Config: demoSpec()},
	}
}

func deployAlgo(name string, d cc.Deployment) cc.Algorithm {
	return cc.Algorithm{Name: name, Title: name, Paper: "none", Doc: "a deployment test", Parts: deployParts(), Deploy: d}
}

// TestDeployResolvesParts: Deployed names the part a role runs: the named
// one, the role's first part for "", none for "-" or a role the algorithm
// has no part of.
func TestDeployResolvesParts(t *testing.T) {
	a := deployAlgo("zz-deploy-parts", cc.Deployment{RP: "rp2", NP: "-"})
	require.NoError(t, cc.RegisterAlgorithm(a))
	got, err := cc.Lookup("zz-deploy-parts")
	require.NoError(t, err)
	require.Equal(t, "rp2", got.Deployed(cc.RoleRP))
	require.Empty(t, got.Deployed(cc.RoleNP), `"-": none`)
	require.Empty(t, got.Deployed(cc.RoleCP), "no part of the role")
	require.Empty(t, got.Deployed(cc.RoleSW))
	d := deployAlgo("zz-deploy-first", cc.Deployment{})
	require.Equal(t, "rp", d.Deployed(cc.RoleRP), `"": the role's first part`)
	require.Equal(t, "np", d.Deployed(cc.RoleNP))
}

// TestDeployChecks: RegisterAlgorithm refuses, with a *ConfigError naming
// the Deploy field, a deployment whose parts do not exist in their role,
// that runs no reaction point, whose defaults are not settings of the
// parts it runs, whose telemetry stack does not hold 15 records, or that
// declares a message kind outside its limits or twice; a refused
// algorithm is not registered. The limits' edges are accepted.
func TestDeployChecks(t *testing.T) {
	msg := func(k cc.MessageKind) cc.Deployment { return cc.Deployment{Messages: []cc.MessageKind{k}} }
	credit := cc.MessageKind{Kind: cc.FeedbackCredit, Name: "credit", Frame: 64, Prio: cc.ControlPrio, Spacing: 84 + 1538, Queue: 8}
	user := cc.MessageKind{Kind: cc.FeedbackUser, Name: "user", Frame: cc.MinMessageFrame, Prio: 0}
	ok := []cc.Deployment{
		{Messages: []cc.MessageKind{credit, user}},
		msg(cc.MessageKind{Kind: cc.FeedbackUser, Name: "jumbo", Frame: cc.MaxMessageFrame, Prio: 7}),
		msg(cc.MessageKind{Kind: cc.FeedbackUser, Name: "tight", Frame: 64, Spacing: 84, Queue: 1}),
		msg(cc.MessageKind{Kind: cc.FeedbackUser, Name: "wide", Frame: 64, Spacing: cc.MaxMessageSpacing, Queue: cc.MaxMessageQueue}),
		{Telemetry: cc.TelemetryFormat{Init: 2, Hop: 8}},
		{Telemetry: cc.TelemetryFormat{Init: 8, Hop: 8}}, // 8 + 15·8 = 128: full
		{Defaults: map[string]string{"t": "100us", "np.qref": "10KB", "rp.preset": "big"}},
	}
	for i, d := range ok {
		name := "zz-deploy-ok" + string(rune('a'+i))
		require.NoError(t, cc.RegisterAlgorithm(deployAlgo(name, d)), "%d", i)
	}
	bad := []struct {
		name        string
		d           cc.Deployment
		field, want string // the error's Field, and what its Range says
	}{
		{"unknown-part", cc.Deployment{NP: "nope"}, "np", "a part of"},
		{"wrong-role", cc.Deployment{CP: "np"}, "cp", "a congestion point, not a notification point"},
		{"rp-as-np", cc.Deployment{NP: "rp"}, "np", "a notification point, not a reaction point"},
		{"bad-default", cc.Deployment{Defaults: map[string]string{"nope": "1"}}, "nope", "a parameter of"},
		{"default-range", cc.Deployment{Defaults: map[string]string{"t": "1s"}}, "t", "1us..10ms"},
		{"default-prefix", cc.Deployment{Defaults: map[string]string{"xx.t": "10us"}}, "xx.t", "cp., rp., np. or sw."},
		{"default-not-running", cc.Deployment{NP: "-", Defaults: map[string]string{"np.t": "10us"}}, "np.t", "a parameter of zz-deploy-default-not-running rp ("},
		{"tel-big", cc.Deployment{Telemetry: cc.TelemetryFormat{Init: 9, Hop: 8}}, "telemetry", "fit 128 bytes"},
		{"tel-negative", cc.Deployment{Telemetry: cc.TelemetryFormat{Init: -1}}, "telemetry", "sizes ≥ 0"},
		{"msg-kind", msg(cc.MessageKind{Name: "none", Frame: 64}), "messages", "a feedback kind"},
		{"msg-name", msg(cc.MessageKind{Kind: cc.FeedbackUser, Frame: 64}), "messages", "a name"},
		{"msg-small", msg(cc.MessageKind{Kind: cc.FeedbackUser, Name: "small", Frame: cc.MinMessageFrame - 1}), "messages", "a frame of"},
		{"msg-big", msg(cc.MessageKind{Kind: cc.FeedbackUser, Name: "big", Frame: cc.MaxMessageFrame + 1}), "messages", "a frame of"},
		{"msg-prio", msg(cc.MessageKind{Kind: cc.FeedbackUser, Name: "prio", Frame: 64, Prio: 8}), "messages", "a priority 0..7"},
		{"msg-spacing", msg(cc.MessageKind{Kind: cc.FeedbackUser, Name: "spacing", Frame: 64, Spacing: 83, Queue: 1}), "messages", "a spacing of at least the wire frame"},
		{"msg-spacing-big", msg(cc.MessageKind{Kind: cc.FeedbackUser, Name: "wide", Frame: 64, Spacing: cc.MaxMessageSpacing + 1, Queue: 1}), "messages", "at most 1 MiB"},
		{"msg-queue", msg(cc.MessageKind{Kind: cc.FeedbackUser, Name: "queue", Frame: 64, Spacing: 84}), "messages", "a queue of 1..2^20"},
		{"msg-queue-big", msg(cc.MessageKind{Kind: cc.FeedbackUser, Name: "queue", Frame: 64, Spacing: 84, Queue: cc.MaxMessageQueue + 1}), "messages", "a queue of 1..2^20"},
		{"msg-twice", cc.Deployment{Messages: []cc.MessageKind{credit, user, {Kind: cc.FeedbackCredit, Name: "again", Frame: 64}}}, "messages", "each kind declared once"},
	}
	for _, c := range bad {
		name := "zz-deploy-" + c.name
		err := cc.RegisterAlgorithm(deployAlgo(name, c.d))
		var ce *cc.ConfigError
		require.ErrorAs(t, err, &ce, c.name)
		require.Equal(t, c.field, ce.Field, "%s: %v", c.name, err)
		require.Contains(t, ce.Range, c.want, "%s: %v", c.name, err)
		_, err = cc.Lookup(name)
		require.ErrorIs(t, err, cc.ErrUnknown, "%s: refused, not registered", c.name)
	}
	// A deployment without a reaction point registers (a lone part is
	// traced and driven alone; a simulator of flows refuses to run it),
	// and deploys no part in that role.
	noRP := deployAlgo("zz-deploy-no-rp", cc.Deployment{RP: "-"})
	require.NoError(t, cc.RegisterAlgorithm(noRP))
	require.Empty(t, noRP.Deployed(cc.RoleRP))
	onlyNP := cc.Algorithm{Name: "zz-deploy-np-only", Parts: deployParts()[2:]}
	require.NoError(t, cc.RegisterAlgorithm(onlyNP))
	require.Empty(t, onlyNP.Deployed(cc.RoleRP))
}

// TestRegistryRefusesAndLists: a name is registered once and has no
// spaces; an unknown name is an error wrapping ErrUnknown that lists the
// registered names; Names is sorted.
func TestRegistryRefusesAndLists(t *testing.T) {
	a := deployAlgo("zz-registry", cc.Deployment{})
	require.NoError(t, cc.RegisterAlgorithm(a))
	require.ErrorIs(t, cc.RegisterAlgorithm(a), cc.ErrConfig, "twice")
	require.ErrorIs(t, cc.RegisterAlgorithm(deployAlgo("has space", cc.Deployment{})), cc.ErrConfig)
	_, err := cc.Lookup("has space")
	require.ErrorIs(t, err, cc.ErrUnknown)
	require.Contains(t, err.Error(), "zz-registry", "lists the registered names")
	names := cc.Names()
	require.True(t, slices.IsSorted(names), "%v", names)
	require.Contains(t, names, "zz-registry")
}
