package cc

import (
	"strconv"
	"strings"

	"github.com/hwcc/hwcc/units"
)

// Deployment is how an algorithm's parts run in a network: which part runs
// at every switch egress data queue, every sending flow, every receiving
// flow and every switch, and what the network must do for them beyond
// carrying their packets. It is plain data on the registration, so that a
// simulator (hwcc's harness, a user's) runs any registered algorithm with
// no code of its own for it.
//
// The zero value runs the algorithm's first part of each role where the
// role runs, with nothing asked of the network.
type Deployment struct {
	// CP, RP, NP and SW name the parts that run at every switch egress
	// data queue, every sending flow, every receiving flow and every
	// switch: "" for the algorithm's first part of that role (none when
	// it has none), "-" for none. A network of flows needs a reaction
	// point: an algorithm that deploys none (a lone congestion point) is
	// registered, traced and driven alone, but a simulator of flows
	// refuses to run it.
	CP, RP, NP, SW string
	// Telemetry: data packets carry a telemetry stack that the sender
	// attaches as Telemetry.Init zero bytes and that each switch on the
	// path may extend by Telemetry.Hop bytes on dequeue; receivers echo it
	// in their ACKs; the base RTT a flow's parts are told (Env.BaseRTT)
	// includes its bytes. Zero: no stack.
	Telemetry TelemetryFormat
	// NetworkRTT: a flow's parts are told the network's largest base RTT
	// (over every pair of hosts and path), one value for every flow,
	// instead of their flow's own.
	NetworkRTT bool
	// Symmetric: every packet of a flow that travels from its destination
	// back to its source (ACKs, CNPs, credits, a switch's feedback)
	// retraces the flow's data path link by link, as credit schemes need.
	Symmetric bool
	// ECN: the switches mark CE on data packets with their own threshold
	// marker (a simulator's setting), for an algorithm that has no
	// congestion point of its own to mark.
	ECN bool
	// NoAcks: the reaction point reacts to no ACK or NAK (a RoCE NIC's
	// transport handles them without its congestion control), so the
	// sender does not hand it them.
	NoAcks bool
	// Defaults are settings applied before the user's, in the syntax of
	// a simulator's parameters: "NAME" for every part that has the
	// setting, "cp.NAME", "rp.NAME", "np.NAME" or "sw.NAME" for one role's
	// part; where the deployment's choice differs from the part's first
	// preset.
	Defaults map[string]string
	// Network are settings of the simulator's network model the parts rely
	// on, in the simulator's own keys (hwcc's harness: its scenario keys,
	// "scheduler": "voq-credit"), applied over the user's scenario.
	Network map[string]string
	// Messages declare the wire size and priority of the feedback kinds
	// the parts send beyond an ACK, a NAK and a CNP; a message of an
	// undeclared kind travels as a RoCEv2 CNP does.
	Messages []MessageKind
	// Doc says what runs where (one paragraph).
	Doc string
}

// TelemetryFormat is the size of a telemetry stack on the wire: Init bytes
// as the sender attaches it, Hop more per switch that pushes a record.
type TelemetryFormat struct {
	Init, Hop units.Bytes
}

// MessageKind is a feedback kind on the wire: its name for reports, its
// frame size (without preamble and inter-frame gap) and the priority it
// travels at; optionally shaped.
//
// A kind with a Spacing is shaped at every port it leaves: its messages
// wait in a queue of their own, served after ControlPrio and before data,
// that starts a message at most once per Spacing bytes of the port's time
// (one message and the data it stands for; no burst) and holds at most
// Queue messages, dropping one that arrives at a full queue. That is a
// credit scheme's credit class: a credit that gets through makes room for
// exactly one full data frame on the reverse path.
type MessageKind struct {
	Kind  FeedbackKind
	Name  string
	Frame units.Bytes
	Prio  uint8
	// Spacing is the bytes of port time one message takes from the
	// shaper, preamble and gap included (≥ the frame's wire size); 0: not
	// shaped. Queue is the shaper's queue in messages (≥ 1 when shaped).
	Spacing units.Bytes
	Queue   int
}

// Limits of a MessageKind: what check enforces.
const (
	// MinMessageFrame and MaxMessageFrame bound MessageKind.Frame: an
	// Ethernet frame of 64 B to a 9216 B jumbo frame.
	MinMessageFrame units.Bytes = 64
	MaxMessageFrame units.Bytes = 9216
	// MaxMessageSpacing and MaxMessageQueue bound a shaped kind.
	MaxMessageSpacing units.Bytes = 1 << 20
	MaxMessageQueue               = 1 << 20
	// wireGap is the preamble, start delimiter and inter-frame gap every
	// frame takes on the wire (7 + 1 + 12 bytes).
	wireGap units.Bytes = 20
)

// Deployed returns the name of the part that runs in role r under the
// algorithm's Deploy, or "" for none.
func (a *Algorithm) Deployed(r Role) string {
	d := &a.Deploy
	var name string
	switch r {
	case RoleCP:
		name = d.CP
	case RoleRP:
		name = d.RP
	case RoleNP:
		name = d.NP
	case RoleSW:
		name = d.SW
	}
	switch name {
	case "-":
		return ""
	case "":
		for _, p := range a.Parts {
			if p.Role == r {
				return p.Name
			}
		}
	}
	return name
}

// checkDeploy validates a's Deploy: every named part exists in its role,
// the defaults are valid settings of the parts that
// run, every message kind is declared once and within its limits.
func (a *Algorithm) checkDeploy() error {
	d := &a.Deploy
	bad := func(field, value, want string) error {
		return &ConfigError{Part: "register " + a.Name + " deploy", Field: field, Value: value, Range: want}
	}
	for _, r := range Roles {
		name := a.Deployed(r)
		if name == "" {
			continue
		}
		ps, err := a.Part(name)
		if err != nil {
			return bad(strings.ToLower(r.Short()), name, "a part of "+a.Name+" or \"-\"")
		}
		if ps.Role != r {
			return bad(strings.ToLower(r.Short()), name, "a "+r.String()+", not a "+ps.Role.String())
		}
	}
	if t := d.Telemetry; t.Init < 0 || t.Hop < 0 || t.Init+15*t.Hop > TelemetryCap {
		return bad("telemetry", strconv.FormatInt(int64(t.Init), 10)+" + 15·"+strconv.FormatInt(int64(t.Hop), 10),
			"sizes ≥ 0 that fit "+strconv.Itoa(TelemetryCap)+" bytes with 15 records")
	}
	if err := a.ValidateParams(nil); err != nil {
		return err
	}
	for i, k := range d.Messages {
		switch {
		case k.Kind == FeedbackNone:
			return bad("messages", k.Name, "a feedback kind")
		case k.Name == "":
			return bad("messages", k.Kind.String(), "a name")
		case k.Frame < MinMessageFrame || k.Frame > MaxMessageFrame || k.Prio > 7:
			return bad("messages", k.Name, "a frame of "+MinMessageFrame.String()+".."+MaxMessageFrame.String()+" at a priority 0..7")
		case k.Spacing != 0 && (k.Spacing < k.Frame+wireGap || k.Spacing > MaxMessageSpacing || k.Queue < 1 || k.Queue > MaxMessageQueue):
			return bad("messages", k.Name, "a spacing of at least the wire frame ("+(k.Frame+wireGap).String()+") and at most 1 MiB, and a queue of 1..2^20 messages")
		}
		for _, o := range d.Messages[:i] {
			if o.Kind == k.Kind {
				return bad("messages", k.Name, "each kind declared once")
			}
		}
	}
	return nil
}

// route returns the role a setting in the deployment's syntax goes to (0:
// every running part that has it) and its name for the part; an error if
// its prefix names no role, or no running part has it.
func (a *Algorithm) route(st Setting) (Role, string, error) {
	role, name := Role(0), st.Name
	if pfx, rest, ok := strings.Cut(st.Name, "."); ok {
		switch pfx {
		case "cp":
			role = RoleCP
		case "rp":
			role = RoleRP
		case "np":
			role = RoleNP
		case "sw":
			role = RoleSW
		default:
			return 0, "", &ConfigError{Part: a.Name, Field: st.Name, Value: st.Value, Range: "a parameter, or cp., rp., np. or sw. and a parameter"}
		}
		name = rest
	}
	var running []string
	for _, r := range Roles {
		pn := a.Deployed(r)
		ps, err := a.Part(pn)
		if pn == "" || err != nil {
			continue
		}
		running = append(running, a.Name+" "+pn)
		if (role == 0 || role == r) && ps.Config.Has(name) {
			return role, name, nil
		}
	}
	return 0, "", &ConfigError{Part: a.Name, Field: st.Name, Value: st.Value,
		Range: "a parameter of " + strings.Join(running, ", ") + " (hwcc algos " + a.Name + ")"}
}

// DeploySettings returns the settings of the part that runs in role r
// (nil if none does): the Deploy's Defaults, then params (a simulator's
// user settings), both in the syntax of Deployment.Defaults, a later value
// of a name replacing an earlier one. It refuses a setting that no running
// part has, or whose prefix names no role.
func (a *Algorithm) DeploySettings(r Role, params map[string]string) ([]Setting, error) {
	pn := a.Deployed(r)
	var ps PartSpec
	if pn != "" {
		var err error
		if ps, err = a.Part(pn); err != nil {
			return nil, err
		}
	}
	var out []Setting
	for _, m := range []map[string]string{a.Deploy.Defaults, params} {
		for _, st := range SettingsOf(m) {
			role, name, err := a.route(st)
			if err != nil {
				return nil, err
			}
			if pn == "" || (role != 0 && role != r) || !ps.Config.Has(name) {
				continue
			}
			out = setSetting(out, Setting{Name: name, Value: st.Value})
		}
	}
	return out, nil
}

// ValidateParams checks params as DeploySettings takes them, for every
// running part: each names a setting of a part that runs and parses within
// its range (what only building can tell is left to it).
func (a *Algorithm) ValidateParams(params map[string]string) error {
	for _, r := range Roles {
		pn := a.Deployed(r)
		if pn == "" {
			continue
		}
		st, err := a.DeploySettings(r, params)
		if err != nil {
			return err
		}
		ps, err := a.Part(pn)
		if err != nil {
			return err
		}
		if err := ps.Config.Validate(a.Name+" "+pn, st); err != nil {
			return err
		}
	}
	return nil
}

// setSetting adds st to list, replacing an earlier value of the same name.
func setSetting(list []Setting, st Setting) []Setting {
	for i := range list {
		if list[i].Name == st.Name {
			list[i] = st
			return list
		}
	}
	return append(list, st)
}
