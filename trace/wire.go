package trace

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// The JSON shapes the Writer emits. The Reader does not use them: it
// decodes each object field by field (obj), so that every error names
// its field and no unknown field passes.

type wPacket struct {
	Flow    cc.FlowID   `json:"flow"`
	Src     cc.NodeID   `json:"src,omitempty"`
	Dst     cc.NodeID   `json:"dst,omitempty"`
	Seq     uint64      `json:"seq,omitempty"`
	Payload units.Bytes `json:"payload,omitempty"`
	Size    units.Bytes `json:"size,omitempty"`
	Prio    uint8       `json:"prio,omitempty"`
	CE      bool        `json:"ce,omitempty"`
	Hdr     string      `json:"hdr,omitempty"`
	Tel     *string     `json:"tel,omitempty"`
}

type wQueue struct {
	Len     units.Bytes `json:"len"`
	Rate    units.Rate  `json:"rate"`
	TxBytes uint64      `json:"tx_bytes"`
	Paused  bool        `json:"paused"`
}

type wFeedback struct {
	Kind   string      `json:"kind"`
	Flow   cc.FlowID   `json:"flow"`
	From   uint64      `json:"from,omitempty"`
	Seq    uint64      `json:"seq,omitempty"`
	Acked  units.Bytes `json:"acked,omitempty"`
	SndNxt uint64      `json:"snd_nxt,omitempty"`
	ECE    bool        `json:"ece,omitempty"`
	Data   string      `json:"data,omitempty"`
	Tel    *string     `json:"tel,omitempty"`
}

type wEvent struct {
	T        units.Time `json:"t"`
	Ev       string     `json:"ev"`
	Packet   *wPacket   `json:"packet,omitempty"`
	Queue    *wQueue    `json:"queue,omitempty"`
	Feedback *wFeedback `json:"feedback,omitempty"`
	Port     *int       `json:"port,omitempty"`
	Prio     *uint8     `json:"prio,omitempty"`
	Paused   *bool      `json:"paused,omitempty"`
}

type wEnv struct {
	Rate        units.Rate    `json:"rate,omitempty"`
	Node        cc.NodeID     `json:"node,omitempty"`
	Port        uint16        `json:"port,omitempty"`
	SwitchID    uint16        `json:"switch_id,omitempty"`
	BaseRTT     units.Time    `json:"base_rtt,omitempty"`
	Bottleneck  units.Rate    `json:"bottleneck,omitempty"`
	Hops        int           `json:"hops,omitempty"`
	Payload     units.Bytes   `json:"payload,omitempty"`
	Size        units.Bytes   `json:"size,omitempty"`
	Ports       int           `json:"ports,omitempty"`
	SwitchPorts []wSwitchPort `json:"switch_ports,omitempty"`
	Index       int           `json:"index,omitempty"`
	Start       units.Time    `json:"start,omitempty"`
}

type wSwitchPort struct {
	Rate units.Rate `json:"rate"`
	Edge bool       `json:"edge,omitempty"`
	Host cc.NodeID  `json:"host,omitempty"`
}

type wLimits struct {
	Rate     units.Rate  `json:"rate"`
	Window   units.Bytes `json:"window"`
	Credited bool        `json:"credited"`
	Credit   units.Bytes `json:"credit"`
}

type wAction struct {
	Kind     string      `json:"kind"`
	To       string      `json:"to,omitempty"`
	Prio     uint8       `json:"prio,omitempty"`
	Switch   uint16      `json:"switch,omitempty"`
	Node     cc.NodeID   `json:"node,omitempty"`
	Port     uint16      `json:"port,omitempty"`
	Queue    uint16      `json:"queue,omitempty"`
	Bytes    units.Bytes `json:"bytes,omitempty"`
	Feedback *wFeedback  `json:"feedback,omitempty"`
}

// Names of kinds, both ways. Kinds without a name are written as their
// String ("kind 200", "action 9"), which reads back.
var (
	feedbackKinds = map[string]cc.FeedbackKind{}
	actionKinds   = map[string]cc.ActionKind{}
)

func init() {
	for k := range 256 {
		feedbackKinds[cc.FeedbackKind(k).String()] = cc.FeedbackKind(k)
		actionKinds[cc.ActionKind(k).String()] = cc.ActionKind(k)
	}
	actionKinds["action 0"] = 0
}

// destName is a Dest's name: "source", "destination", "switch", or
// "dest N" for a value the contract does not define.
func destName(d cc.Dest) string {
	if d <= cc.ToSwitch {
		return d.String()
	}
	return "dest " + strconv.Itoa(int(d))
}

func parseDest(s string) (cc.Dest, error) {
	switch s {
	case "source":
		return cc.ToSource, nil
	case "destination":
		return cc.ToDestination, nil
	case "switch":
		return cc.ToSwitch, nil
	}
	if n, ok := strings.CutPrefix(s, "dest "); ok {
		if v, err := strconv.ParseUint(n, 10, 8); err == nil {
			return cc.Dest(v), nil
		}
	}
	return 0, fmt.Errorf("%q is not source, destination or switch", s)
}

func hexOf(b []byte) string {
	for _, x := range b {
		if x != 0 {
			return hex.EncodeToString(b)
		}
	}
	return ""
}

// telOf is a telemetry stack's hex, every byte of it (an empty stack is
// ""), or nil for none.
func telOf(t *cc.Telemetry) *string {
	if t == nil {
		return nil
	}
	s := hex.EncodeToString(t.Bytes())
	return &s
}

// packetOf and feedbackOf encode p and f with the telemetry stack t (nil:
// none).
func packetOf(p *cc.Packet, t *cc.Telemetry) *wPacket {
	return &wPacket{Flow: p.Flow, Src: p.Src, Dst: p.Dst, Seq: p.Seq, Payload: p.Payload, Size: p.Size,
		Prio: p.Prio, CE: p.CE, Hdr: hexOf(p.Hdr[:]), Tel: telOf(t)}
}

func feedbackOf(f *cc.Feedback, t *cc.Telemetry) *wFeedback {
	return &wFeedback{Kind: f.Kind.String(), Flow: f.Flow, From: f.From, Seq: f.Seq, Acked: f.Acked,
		SndNxt: f.SndNxt, ECE: f.ECE, Data: hexOf(f.Data[:]), Tel: telOf(t)}
}

// readTel decodes a telemetry stack's hex into t, if the object has one.
func readTel(o *obj, t *cc.Telemetry) (has bool) {
	var s string
	if !o.get("tel", &s, false) {
		return false
	}
	b, err := hex.DecodeString(s)
	switch {
	case err != nil:
		o.fail("tel", fmt.Errorf("bad hex: %v", err))
	case !t.Set(b):
		o.fail("tel", fmt.Errorf("%d bytes, at most %d", len(b), cc.TelemetryCap))
	}
	return true
}

// readPacket decodes a packet object into p (its telemetry into t, has).
func readPacket(o *obj, p *cc.Packet, t *cc.Telemetry) (has bool) {
	*p = cc.Packet{}
	o.get("flow", &p.Flow, false)
	o.get("src", &p.Src, false)
	o.get("dst", &p.Dst, false)
	o.get("seq", &p.Seq, false)
	o.get("payload", &p.Payload, false)
	o.get("size", &p.Size, false)
	o.get("prio", &p.Prio, false)
	o.get("ce", &p.CE, false)
	o.hex16("hdr", &p.Hdr)
	return readTel(o, t)
}

func readQueue(o *obj, q *cc.Queue) {
	*q = cc.Queue{}
	o.get("len", &q.Len, false)
	o.get("rate", &q.Rate, false)
	o.get("tx_bytes", &q.TxBytes, false)
	o.get("paused", &q.Paused, false)
}

// readFeedback decodes a feedback object into f (its telemetry into t,
// has).
func readFeedback(o *obj, f *cc.Feedback, t *cc.Telemetry) (has bool) {
	*f = cc.Feedback{}
	var kind string
	if o.get("kind", &kind, true) {
		k, ok := feedbackKinds[kind]
		if !ok {
			o.fail("kind", fmt.Errorf("%q is not a feedback kind (ack, nak, cnp, rate, credit, credit-request, credit-stop, or \"kind N\")", kind))
		}
		f.Kind = k
	}
	o.get("flow", &f.Flow, false)
	o.get("from", &f.From, false)
	o.get("seq", &f.Seq, false)
	o.get("acked", &f.Acked, false)
	o.get("snd_nxt", &f.SndNxt, false)
	o.get("ece", &f.ECE, false)
	o.hex16("data", &f.Data)
	return readTel(o, t)
}

func envOf(e *cc.Env) *wEnv {
	w := &wEnv{Rate: e.Rate, Node: e.Node, Port: e.Port, SwitchID: e.SwitchID, BaseRTT: e.BaseRTT,
		Bottleneck: e.Bottleneck, Hops: e.Hops, Payload: e.Payload, Size: e.Size, Ports: e.Ports, Index: e.Index, Start: e.Start}
	for _, sp := range e.SwitchPorts {
		w.SwitchPorts = append(w.SwitchPorts, wSwitchPort(sp))
	}
	return w
}

func readEnv(o *obj, e *cc.Env) {
	*e = cc.Env{}
	o.get("rate", &e.Rate, false)
	o.get("node", &e.Node, false)
	o.get("port", &e.Port, false)
	o.get("switch_id", &e.SwitchID, false)
	o.get("base_rtt", &e.BaseRTT, false)
	o.get("bottleneck", &e.Bottleneck, false)
	o.get("hops", &e.Hops, false)
	o.get("payload", &e.Payload, false)
	o.get("size", &e.Size, false)
	o.get("ports", &e.Ports, false)
	o.get("index", &e.Index, false)
	o.get("start", &e.Start, false)
	for i, raw := range o.array("switch_ports", false) {
		if o.err != nil {
			return
		}
		sp, err := parseObj(o.line, o.index("switch_ports", i), raw)
		if err != nil {
			o.err = err
			return
		}
		var p cc.SwitchPort
		sp.get("rate", &p.Rate, false)
		sp.get("edge", &p.Edge, false)
		sp.get("host", &p.Host, false)
		if p.Rate < 0 {
			sp.fail("rate", fmt.Errorf("%v: want a rate >= 0", p.Rate))
		}
		o.child(sp)
		e.SwitchPorts = append(e.SwitchPorts, p)
	}
	// A rate the header gives is > 0 and a time, count or size >= 0: the
	// writer leaves unknown (zero) fields out, and a part built from a
	// negative one would run with a value no caller can give it.
	for _, f := range []struct {
		key      string
		v        int64
		positive bool
	}{
		{"rate", int64(e.Rate), true}, {"bottleneck", int64(e.Bottleneck), true},
		{"base_rtt", int64(e.BaseRTT), false}, {"hops", int64(e.Hops), false},
		{"payload", int64(e.Payload), false}, {"size", int64(e.Size), false},
		{"ports", int64(e.Ports), false}, {"index", int64(e.Index), false},
		{"start", int64(e.Start), false},
	} {
		switch {
		case !o.has(f.key) || o.err != nil:
		case f.positive && f.v <= 0:
			o.fail(f.key, fmt.Errorf("%d: want > 0 (leave the field out when it is unknown)", f.v))
		case f.v < 0:
			o.fail(f.key, fmt.Errorf("%d: want >= 0", f.v))
		}
	}
}

// marshalLine encodes v as one line.
func marshalLine(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
