package trace_test

import (
	"bytes"
	"errors"
	"io"
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	_ "github.com/hwcc/hwcc/algos"
	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cc/cctest"
	"github.com/hwcc/hwcc/trace"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// swEnv is where switch points run: a ToR of two server ports (hosts 1
// and 2 at 25 Gb/s) and two uplinks (100 Gb/s), switch ID 3, as in
// algos' conformance test.
var swEnv = cc.Env{Rate: 100 * units.Gbps, Node: 10, SwitchID: 3, Ports: 4, SwitchPorts: []cc.SwitchPort{
	{Rate: 25 * units.Gbps, Edge: true, Host: 1}, {Rate: 25 * units.Gbps, Edge: true, Host: 2},
	{Rate: 100 * units.Gbps}, {Rate: 100 * units.Gbps},
}}

// rpEnv is where reaction and notification points run.
var rpEnv = cc.Env{Rate: 100 * units.Gbps, Node: 1, BaseRTT: 8 * units.Microsecond, Bottleneck: 100 * units.Gbps, Hops: 2, Payload: 1000, Index: 1}

// cpEnv is where congestion points run.
var cpEnv = cc.Env{Rate: 100 * units.Gbps, Node: 10, Port: 2, SwitchID: 3, Index: 1}

func envFor(r cc.Role) cc.Env {
	switch r {
	case cc.RoleSW:
		return swEnv
	case cc.RoleCP:
		return cpEnv
	}
	return rpEnv
}

// case_ is one registered part with a trace header and events for it.
type case_ struct {
	name string
	h    trace.Header
	evs  []cc.Event
}

// cases returns one case per registered part, events from seed.
func cases(t *testing.T, n int, seed int64) []case_ {
	var out []case_
	for _, a := range cc.Algorithms() {
		for _, ps := range a.Parts {
			h := trace.Header{Algorithm: a.Name, Part: ps.Name, Role: ps.Role, Env: envFor(ps.Role)}
			p, err := trace.NewPart(h)
			require.NoError(t, err, a.Name+" "+ps.Name)
			o := cctest.GenOptions{Events: n, INT: true}
			if ps.Role == cc.RoleSW {
				o.Ports, o.SwitchPorts = len(swEnv.SwitchPorts), swEnv.SwitchPorts
				// A HierCC host's header bytes, which its ToR reads.
				o.Hdrs = [][cc.PacketHdrLen]byte{wire.HierCCHostHeader(wire.HierCCFlagMark), wire.HierCCHostHeader(wire.HierCCFlagFirst), wire.HierCCHostHeader(wire.HierCCFlagMark | wire.HierCCFlagFirst)}
			}
			if rp, ok := p.(cc.ReactionPoint); ok {
				o.Credited = rp.Limits().Credited
			}
			evs := cctest.Events(rand.New(rand.NewSource(seed)), ps.Role, o)
			out = append(out, case_{name: a.Name + "/" + ps.Name, h: h, evs: evs})
		}
	}
	require.NotEmpty(t, out)
	return out
}

func write(t *testing.T, h trace.Header, evs []cc.Event) []byte {
	var buf bytes.Buffer
	w, err := trace.NewWriter(&buf, h)
	require.NoError(t, err)
	for i := range evs {
		require.NoError(t, w.Write(&evs[i]))
	}
	require.Equal(t, len(evs), w.Events())
	return buf.Bytes()
}

func replay(t *testing.T, tr []byte) []byte {
	var out bytes.Buffer
	require.NoError(t, trace.Replay(bytes.NewReader(tr), &out))
	return out.Bytes()
}

// TestRoundTrip: every registered part's generated events, written and
// read back, are the same events under the same header.
func TestRoundTrip(t *testing.T) {
	for _, c := range cases(t, 300, 1) {
		tr := write(t, c.h, c.evs)
		h, evs, err := trace.ReadAll(bytes.NewReader(tr))
		require.NoError(t, err, c.name)
		want := c.h
		want.Version = cc.Version
		require.Equal(t, want, h, c.name)
		canon := make([]cc.Event, len(c.evs))
		for i := range c.evs {
			canon[i] = trace.Canonical(c.evs[i], c.h.Role)
		}
		require.Equal(t, canon, evs, c.name)
		// And written again, the same bytes.
		require.Equal(t, string(tr), string(write(t, h, evs)), c.name)
	}
}

func TestHeaderSettingsKeepTheirOrder(t *testing.T) {
	h := trace.Header{Algorithm: "dcqcn", Part: "rp", Role: cc.RoleRP, Version: "v1",
		Settings: []cc.Setting{{Name: "preset", Value: "connectx"}, {Name: "link", Value: "40Gbps"}}}
	tr := write(t, h, nil)
	require.Contains(t, string(tr), `"settings":{"preset":"connectx","link":"40Gbps"}`)
	got, _, err := trace.ReadAll(bytes.NewReader(tr))
	require.NoError(t, err)
	require.Equal(t, h, got)
}

// TestReplayEveryPart: for every registered part, a trace of generated
// events replays the same twice, and the same as driving the part
// directly with the events (one Apply each).
func TestReplayEveryPart(t *testing.T) {
	for _, c := range cases(t, 400, 2) {
		tr := write(t, c.h, c.evs)
		first, second := replay(t, tr), replay(t, tr)
		require.Equal(t, string(first), string(second), c.name+": replay is not deterministic")
		require.Equal(t, len(c.evs), bytes.Count(first, []byte("\n")), c.name)

		p, err := trace.NewPart(c.h)
		require.NoError(t, err)
		var direct bytes.Buffer
		ow := trace.NewOutputWriter(&direct)
		act := cc.NewActions(4096)
		accepted := 0
		for i := range c.evs {
			ev := c.evs[i] // Apply writes into its event (telemetry records)
			act.Reset()
			err := ev.Apply(p, act)
			if err == nil {
				accepted++
			}
			o := trace.OutputOf(i+1, p, err, act)
			require.NoError(t, ow.Write(&o))
		}
		require.Equal(t, direct.String(), string(first), c.name+": replay differs from driving the part")
		require.Greater(t, accepted, len(c.evs)/2, c.name+": most events are taken")

		// The outputs read back as written.
		m, err := trace.Diff(bytes.NewReader(first), bytes.NewReader(direct.Bytes()))
		require.NoError(t, err)
		require.Nil(t, m, c.name)
	}
}

// TestDiffFindsPerturbedRegister: one register changed in the expected
// outputs is reported at its event and by its name.
func TestDiffFindsPerturbedRegister(t *testing.T) {
	h := trace.Header{Algorithm: "dcqcn", Part: "rp", Role: cc.RoleRP, Env: rpEnv}
	evs := cctest.Events(rand.New(rand.NewSource(3)), cc.RoleRP, cctest.GenOptions{Events: 100})
	got := replay(t, write(t, h, evs))
	lines := strings.Split(strings.TrimSuffix(string(got), "\n"), "\n")
	require.Len(t, lines, 100)
	const k = 57
	old := `["byte_count",64,`
	i := strings.Index(lines[k-1], old)
	require.Positive(t, i)
	j := i + len(old) + strings.IndexByte(lines[k-1][i+len(old):], ']')
	value := lines[k-1][i+len(old) : j]
	lines[k-1] = lines[k-1][:i+len(old)] + "1" + value + lines[k-1][j:]
	want := strings.Join(lines, "\n") + "\n"

	m, err := trace.Diff(bytes.NewReader(got), strings.NewReader(want))
	require.NoError(t, err)
	require.NotNil(t, m)
	require.Equal(t, trace.Mismatch{Event: k, Line: k + 1, Field: "register byte_count", Got: value, Want: "1" + value}, *m)
	require.Equal(t, "event 57 (line 58): register byte_count: got "+value+", want 1"+value, m.String())

	// A missing line, an extra action, a different error.
	m, err = trace.Diff(bytes.NewReader(got), strings.NewReader(strings.Join(lines[:10], "\n")+"\n"))
	require.NoError(t, err)
	require.Equal(t, "events", m.Field)
	require.Equal(t, 11, m.Event)
	bad := strings.Replace(lines[0], `"registers"`, `"err":"refused","registers"`, 1)
	m, err = trace.Diff(bytes.NewReader(got), strings.NewReader(bad+"\n"))
	require.NoError(t, err)
	require.Equal(t, trace.Mismatch{Event: 1, Line: 2, Field: "err", Got: `""`, Want: `"refused"`}, *m)
}

// TestReplayDiffAgreesWithDiff: comparing while replaying finds what
// replaying and then comparing the files finds (the same *Mismatch, or
// none), on the same perturbations: a register, a missing line, an extra
// line, an error; and it writes the outputs Replay writes.
func TestReplayDiffAgreesWithDiff(t *testing.T) {
	h := trace.Header{Algorithm: "dcqcn", Part: "rp", Role: cc.RoleRP, Env: rpEnv}
	tr := write(t, h, cctest.Events(rand.New(rand.NewSource(3)), cc.RoleRP, cctest.GenOptions{Events: 100}))
	got := replay(t, tr)
	lines := strings.Split(strings.TrimSuffix(string(got), "\n"), "\n")
	reg := strings.Replace(lines[56], `["byte_count",64,`, `["byte_count",64,1`, 1)
	require.NotEqual(t, lines[56], reg)
	for name, want := range map[string]string{
		"same":     string(got),
		"register": strings.Join(append(append(append([]string{}, lines[:56]...), reg), lines[57:]...), "\n") + "\n",
		"shorter":  strings.Join(lines[:10], "\n") + "\n",
		"longer":   string(got) + lines[99] + "\n",
		"error":    strings.Replace(lines[0], `"registers"`, `"err":"refused","registers"`, 1) + "\n",
	} {
		wantM, err := trace.Diff(bytes.NewReader(got), strings.NewReader(want))
		require.NoError(t, err, name)
		var out bytes.Buffer
		m, err := trace.ReplayDiff(bytes.NewReader(tr), strings.NewReader(want), &out)
		require.NoError(t, err, name)
		require.Equal(t, wantM, m, name)
		if m == nil {
			require.Equal(t, string(got), out.String(), name)
		} else {
			require.True(t, strings.HasPrefix(string(got), out.String()), "%s: the outputs up to the mismatch", name)
		}
	}
	_, err := trace.ReplayDiff(bytes.NewReader(tr), strings.NewReader("{not json\n"), nil)
	require.ErrorContains(t, err, "want:")
	// Every registered part: the outputs of a replay match themselves.
	for _, c := range cases(t, 200, 2) {
		tr := write(t, c.h, c.evs)
		m, err := trace.ReplayDiff(bytes.NewReader(tr), bytes.NewReader(replay(t, tr)), nil)
		require.NoError(t, err, c.name)
		require.Nil(t, m, c.name)
	}
}

// TestMalformed: each broken trace gives an *Error naming its line and
// field.
func TestMalformed(t *testing.T) {
	hdr := `{"hwcc_trace":2,"version":"devel","algorithm":"dcqcn","part":"rp","role":"RP","settings":{},"env":{"rate":100000000000}}`
	sent := `{"t":1,"ev":"sent","packet":{"flow":0,"payload":1000,"size":1082}}`
	for _, c := range []struct {
		name, text string
		line       int
		field      string
		is         error
	}{
		{"empty", "", 1, "", trace.ErrNoHeader},
		{"no header", sent + "\n", 1, "hwcc_trace", trace.ErrNoHeader},
		{"not JSON", "hello\n", 1, "", trace.ErrNoHeader},
		{"format version", strings.Replace(hdr, `"hwcc_trace":2`, `"hwcc_trace":1`, 1), 1, "hwcc_trace", nil},
		{"missing algorithm", strings.Replace(hdr, `"algorithm":"dcqcn",`, ``, 1), 1, "algorithm", trace.ErrMissing},
		{"bad role", strings.Replace(hdr, `"RP"`, `"XP"`, 1), 1, "role", nil},
		{"unknown header field", strings.Replace(hdr, `"version"`, `"versoin"`, 1), 1, "versoin", trace.ErrUnknownField},
		{"unknown env field", strings.Replace(hdr, `"rate"`, `"rat"`, 1), 1, "env.rat", trace.ErrUnknownField},
		{"env wrong type", strings.Replace(hdr, `100000000000`, `"100G"`, 1), 1, "env.rate", nil},
		{"setting not a string", strings.Replace(hdr, `"settings":{}`, `"settings":{"t":5}`, 1), 1, "settings", nil},
		{"unknown event field", hdr + "\n" + sent + "\n" + strings.Replace(sent, `"flow"`, `"flwo"`, 1), 3, "packet.flwo", trace.ErrUnknownField},
		{"wrong type", hdr + "\n" + strings.Replace(sent, `"payload":1000`, `"payload":"1000"`, 1), 2, "packet.payload", nil},
		{"fraction", hdr + "\n" + strings.Replace(sent, `"payload":1000`, `"payload":1000.5`, 1), 2, "packet.payload", nil},
		{"negative seq", hdr + "\n" + strings.Replace(sent, `"flow":0`, `"seq":-1`, 1), 2, "packet.seq", nil},
		{"overflow prio", hdr + "\n" + strings.Replace(sent, `"flow":0`, `"prio":256`, 1), 2, "packet.prio", nil},
		{"bad hex", hdr + "\n" + strings.Replace(sent, `"flow":0`, `"hdr":"zz"`, 1), 2, "packet.hdr", nil},
		{"short hex", hdr + "\n" + strings.Replace(sent, `"flow":0`, `"hdr":"00ff"`, 1), 2, "packet.hdr", nil},
		{"missing t", hdr + "\n" + strings.Replace(sent, `"t":1,`, ``, 1), 2, "t", trace.ErrMissing},
		{"missing packet", hdr + "\n" + `{"t":1,"ev":"sent"}`, 2, "packet", trace.ErrMissing},
		{"unknown event", hdr + "\n" + `{"t":1,"ev":"sen"}`, 2, "ev", nil},
		{"event of another role", hdr + "\n" + `{"t":1,"ev":"enqueue","packet":{},"queue":{}}`, 2, "ev", nil},
		{"field of another kind", hdr + "\n" + `{"t":1,"ev":"timer","port":0}`, 2, "port", trace.ErrUnknownField},
		{"null", hdr + "\n" + `{"t":null,"ev":"timer"}`, 2, "t", nil},
		{"feedback kind", hdr + "\n" + `{"t":1,"ev":"feedback","feedback":{"kind":"ackk"}}`, 2, "feedback.kind", nil},
		{"telemetry hex", hdr + "\n" + `{"t":1,"ev":"feedback","feedback":{"kind":"ack","tel":"0g"}}`, 2, "feedback.tel", nil},
		{"telemetry too long", hdr + "\n" + `{"t":1,"ev":"feedback","feedback":{"kind":"ack","tel":"` + strings.Repeat("00", 129) + `"}}`, 2, "feedback.tel", nil},
		{"blank line", hdr + "\n" + sent + "\n\n" + sent, 3, "", nil},
		{"trailing garbage", hdr + "\n" + sent + "x", 2, "", nil},
	} {
		_, _, err := trace.ReadAll(strings.NewReader(c.text))
		require.Error(t, err, c.name)
		var te *trace.Error
		require.True(t, errors.As(err, &te), "%s: %T %v", c.name, err, err)
		require.Equal(t, c.line, te.Line, "%s: %v", c.name, err)
		require.Equal(t, c.field, te.Field, "%s: %v", c.name, err)
		if c.is != nil {
			require.ErrorIs(t, err, c.is, c.name)
		}
		require.Contains(t, err.Error(), "line ", c.name)
	}
}

// TestReplayHeaderErrors: a header naming no registered part, or the
// wrong role, or settings it refuses, is an error naming the field.
func TestReplayHeaderErrors(t *testing.T) {
	for _, c := range []struct{ hdr, field string }{
		{`{"hwcc_trace":2,"algorithm":"nope","part":"rp","role":"RP"}`, "algorithm"},
		{`{"hwcc_trace":2,"algorithm":"dcqcn","part":"zz","role":"RP"}`, "part"},
		{`{"hwcc_trace":2,"algorithm":"dcqcn","part":"rp","role":"CP"}`, "role"},
		{`{"hwcc_trace":2,"algorithm":"dcqcn","part":"rp","role":"RP","settings":{"nonsense":"1"}}`, "settings"},
	} {
		err := trace.Replay(strings.NewReader(c.hdr+"\n"), io.Discard)
		var te *trace.Error
		require.True(t, errors.As(err, &te), "%s: %v", c.hdr, err)
		require.Equal(t, 1, te.Line)
		require.Equal(t, c.field, te.Field, err.Error())
	}
}

// TestMalformedOutputs: Diff names the file, line and field of an outputs
// line it cannot read.
func TestMalformedOutputs(t *testing.T) {
	good := `{"n":1,"registers":[["rc",32,5]],"next_deadline":9}` + "\n"
	for _, c := range []struct{ text, field string }{
		{`{"n":1,"registers":[["rc",32]],"next_deadline":9}`, "registers.0"},
		{`{"n":1,"registers":[["rc",32,"5"]],"next_deadline":9}`, "registers.0.value"},
		{`{"n":1,"registers":[],"next_deadline":9,"extra":1}`, "extra"},
		{`{"n":1,"registers":[],"next_deadline":9,"actions":[{"kind":"feedback","to":"moon","feedback":{"kind":"cnp"}}]}`, "actions.0.to"},
		{`{"n":1,"registers":[]}`, "next_deadline"},
	} {
		_, err := trace.Diff(strings.NewReader(good), strings.NewReader(c.text+"\n"))
		var te *trace.Error
		require.True(t, errors.As(err, &te), "%s: %v", c.text, err)
		require.Equal(t, c.field, te.Field, err.Error())
		require.Contains(t, err.Error(), "want: ")
	}
}

// FuzzRead: the reader never panics, and every error it returns for
// content is a *trace.Error; neither do the outputs reader and Replay.
func FuzzRead(f *testing.F) {
	hdr := `{"hwcc_trace":2,"version":"devel","algorithm":"dcqcn","part":"rp","role":"RP","settings":{},"env":{"rate":100000000000}}` + "\n"
	f.Add(hdr + `{"t":1,"ev":"sent","packet":{"flow":0,"payload":1000,"size":1082}}`)
	f.Add(hdr + `{"t":1,"ev":"feedback","feedback":{"kind":"cnp","flow":0,"data":"00000000000000000000000000000000"}}`)
	f.Add(`{"hwcc_trace":2,"algorithm":"hpcc","part":"cp","role":"CP"}` + "\n" +
		`{"t":5,"ev":"dequeue","packet":{"tel":"10016000000100020003"},"queue":{"len":1}}`)
	f.Add(`{"n":1,"actions":[{"kind":"feedback","to":"source","feedback":{"kind":"cnp"}}],"registers":[["a",8,-1]],"next_deadline":0}`)
	f.Add("")
	f.Add("{}\n{}")
	f.Fuzz(func(t *testing.T, s string) {
		_, _, err := trace.ReadAll(strings.NewReader(s))
		var te *trace.Error
		if err != nil && !errors.As(err, &te) {
			t.Fatalf("%T %v", err, err)
		}
		if err := trace.Replay(strings.NewReader(s), io.Discard); err != nil && !errors.As(err, &te) {
			t.Fatalf("replay: %T %v", err, err)
		}
		r := trace.NewOutputReader(strings.NewReader(s))
		for {
			var o trace.Output
			err := r.Next(&o)
			if err == io.EOF {
				break
			}
			if err != nil {
				if !errors.As(err, &te) {
					t.Fatalf("outputs: %T %v", err, err)
				}
				break
			}
			var buf bytes.Buffer
			require.NoError(t, trace.NewOutputWriter(&buf).Write(&o))
		}
	})
}

// TestFormatByHand pins the wire format to lines written out by hand from
// the package doc (field names, order, units, left-out zeros), not from
// the Writer: events and outputs write as these lines and read back as
// the values they were written from.
func TestFormatByHand(t *testing.T) {
	const us = units.Microsecond // 10^6 ps
	h := trace.Header{Version: "v1", Algorithm: "dcqcn", Part: "rp", Role: cc.RoleRP,
		Settings: []cc.Setting{{Name: "preset", Value: "connectx"}},
		Env:      cc.Env{Rate: 100 * units.Gbps, BaseRTT: 8 * us}}
	sent := cc.Event{Kind: cc.EventSent, At: us, Packet: cc.Packet{Flow: 7, Seq: 1000, Payload: 1000, Size: 1082}}
	sent.Packet.Hdr[15] = 0xab
	ack := cc.Event{Kind: cc.EventFeedback, At: 12 * us, HasTel: true,
		Feedback: cc.Feedback{Kind: cc.FeedbackAck, Flow: 7, Seq: 2000, Acked: 1000}}
	// An INT header of one hop, by hand from its wire format: prefix
	// nHop<<12 | pathID = 1<<12 | 42 = 0x102a; the record B<<60 | TS<<36 |
	// txBytes<<16 | qLen with B 4, TS 10000 (0x2710), txBytes 0, qLen 2031
	// (0x7ef) = 0x40027100000007ef.
	ack.Tel.Set([]byte{0x10, 0x2a, 0x40, 0x02, 0x71, 0x00, 0x00, 0x00, 0x07, 0xef})
	timer := cc.Event{Kind: cc.EventTimer, At: 13 * us}
	evs := []cc.Event{sent, ack, timer}
	want := `{"hwcc_trace":2,"version":"v1","algorithm":"dcqcn","part":"rp","role":"RP","settings":{"preset":"connectx"},"env":{"rate":100000000000,"base_rtt":8000000}}
{"t":1000000,"ev":"sent","packet":{"flow":7,"seq":1000,"payload":1000,"size":1082,"hdr":"000000000000000000000000000000ab"}}
{"t":12000000,"ev":"feedback","feedback":{"kind":"ack","flow":7,"seq":2000,"acked":1000,"tel":"102a40027100000007ef"}}
{"t":13000000,"ev":"timer"}
`
	require.Equal(t, want, string(write(t, h, evs)))
	gotH, gotEvs, err := trace.ReadAll(strings.NewReader(want))
	require.NoError(t, err)
	require.Equal(t, h, gotH)
	require.Equal(t, evs, gotEvs)

	// A switch point's events name their port; Pause carries prio and
	// paused at the top level.
	sw := trace.Header{Version: "v1", Algorithm: "hiercc", Part: "sw", Role: cc.RoleSW}
	pause := cc.Event{Kind: cc.EventPause, At: 5, Port: 1, Paused: true}
	pause.Packet.Prio = 3
	line := `{"t":5,"ev":"pause","port":1,"prio":3,"paused":true}` + "\n"
	tr := string(write(t, sw, []cc.Event{pause}))
	require.Equal(t, line, tr[strings.IndexByte(tr, '\n')+1:])
	_, gotEvs, err = trace.ReadAll(strings.NewReader(tr))
	require.NoError(t, err)
	require.Equal(t, []cc.Event{pause}, gotEvs)

	// An outputs line: a signed register in decimal, sign-extended; no
	// deadline is 2^63-1.
	o := trace.Output{N: 3, Err: "x",
		Actions:      []cc.Action{{Kind: cc.ActionFeedback, To: cc.ToSource, Prio: 3, Feedback: cc.Feedback{Kind: cc.FeedbackCNP, Flow: 7}}},
		Registers:    []cc.Register{{Name: "rc", Width: 32, Value: 24000}, cc.SignedReg("d", 8, -1)},
		NextDeadline: units.MaxTime, Limits: &cc.Limits{Rate: units.Gbps}}
	outLine := `{"n":3,"err":"x","actions":[{"kind":"feedback","to":"source","prio":3,"feedback":{"kind":"cnp","flow":7}}],` +
		`"registers":[["rc",32,24000],["d",8,-1]],"next_deadline":9223372036854775807,"limits":{"rate":1000000000,"window":0,"credited":false,"credit":0}}` + "\n"
	var buf bytes.Buffer
	require.NoError(t, trace.NewOutputWriter(&buf).Write(&o))
	require.Equal(t, outLine, buf.String())
	var back trace.Output
	require.NoError(t, trace.NewOutputReader(strings.NewReader(outLine)).Next(&back))
	require.Equal(t, o, back)
	require.Equal(t, uint64(0xff), back.Registers[1].Value, "-1 in 8 bits")
}

// TestHeaderVersion: NewWriter records cc.Version when the header names
// none; a header without "version" (or with another release's) reads and
// replays the same events to the same outputs, since only hwcc_trace
// decides whether a trace can be read.
func TestHeaderVersion(t *testing.T) {
	h := trace.Header{Algorithm: "dcqcn", Part: "rp", Role: cc.RoleRP, Env: cc.Env{Rate: 100 * units.Gbps}}
	sent := cc.Event{Kind: cc.EventSent, At: units.Microsecond, Packet: cc.Packet{Flow: 0, Payload: 1000, Size: 1082}}
	tr := string(write(t, h, []cc.Event{sent}))
	require.True(t, strings.HasPrefix(tr, `{"hwcc_trace":2,"version":"`+cc.Version+`",`), tr)
	var want bytes.Buffer
	require.NoError(t, trace.Replay(strings.NewReader(tr), &want))

	for _, hdr := range []string{
		`{"hwcc_trace":2,"algorithm":"dcqcn","part":"rp","role":"RP","env":{"rate":100000000000}}`,
		`{"hwcc_trace":2,"version":"0.0.1","algorithm":"dcqcn","part":"rp","role":"RP","env":{"rate":100000000000}}`,
	} {
		other := hdr + tr[strings.IndexByte(tr, '\n'):]
		got, _, err := trace.ReadAll(strings.NewReader(other))
		require.NoError(t, err, hdr)
		require.NotEqual(t, cc.Version, got.Version, hdr)
		var out bytes.Buffer
		require.NoError(t, trace.Replay(strings.NewReader(other), &out), hdr)
		require.Equal(t, want.String(), out.String(), hdr)
	}

	// Another format version is refused, naming the field.
	_, _, err := trace.ReadAll(strings.NewReader(strings.Replace(tr, `"hwcc_trace":2`, `"hwcc_trace":3`, 1)))
	var te *trace.Error
	require.True(t, errors.As(err, &te), "%v", err)
	require.Equal(t, "hwcc_trace", te.Field)
}
