package algos

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/units"
)

// Parts as a run builds them.
//
// A run builds every part of its algorithm's deployment (cc.Deployment)
// with the settings DeploySettings gives its role (the deployment's
// Defaults, then the scenario's parameters), in the environment of where
// it runs: a congestion point in its port's (harness/scheme.go, cpEnv), a
// reaction or notification point in its flow's (scheme.env: the base RTT
// with the deployment's telemetry bytes, the network's largest under
// NetworkRTT). The tests that drive one part event by event build it the
// same way, from a testPort or a testFlow; TestTestEnvsAreARunsEnvs checks
// those environments against the ones a run gives its parts
// (Options.Wrap), and the tests that need the harness's own handling of a
// part (pacing, the reaction delay, the telemetry stack on the wire) run a
// scenario and keep or wrap its parts.

// ccAlgo returns the cc registration of algorithm name: its parts and the
// deployment a run reads.
func ccAlgo(t testing.TB, name string) cc.Algorithm {
	t.Helper()
	a, err := cc.Lookup(name)
	require.NoError(t, err)
	return a
}

// testPort is a switch egress data queue as a run describes it to its
// congestion point: ID is the queue's number in the run (Env.Index is
// ID + 1), Node the switch's node, Port its number on the switch.
type testPort struct {
	ID       harness.CPID
	Node     harness.NodeID
	Port     int
	SwitchID uint16
	Rate     units.Rate
}

// env is the port's environment (harness/scheme.go, cpEnv).
func (q testPort) env() *cc.Env {
	return &cc.Env{Rate: q.Rate, Node: cc.NodeID(q.Node), Port: uint16(q.Port), SwitchID: q.SwitchID, Index: int(q.ID) + 1}
}

// testFlow is a flow as a run describes it to its reaction and
// notification points: its sender's line rate, its path (the slowest
// link, the switches, the idle round trip of a full data frame and its
// ACK without telemetry), the network's largest round trip and longest
// path, the payload of a full packet, and its size (0: long-lived).
type testFlow struct {
	ID         harness.FlowID
	Src        harness.NodeID
	LineRate   units.Rate
	Bottleneck units.Rate
	BaseRTT    units.Time
	Hops       int
	MaxBaseRTT units.Time
	MaxHops    int
	Payload    units.Bytes
	Size       units.Bytes
}

// env is the flow's environment under deployment d (harness/scheme.go,
// scheme.env): the base RTT with the telemetry bytes d adds, and under
// NetworkRTT the network's largest (with the telemetry of its longest
// path) when it is larger.
func (f testFlow) env(d *cc.Deployment) *cc.Env {
	rtt := telemetryRTT(f.BaseRTT, f.Hops, f.Bottleneck, d.Telemetry)
	if d.NetworkRTT && f.MaxBaseRTT > 0 {
		rtt = max(rtt, telemetryRTT(f.MaxBaseRTT, f.MaxHops, f.Bottleneck, d.Telemetry))
	}
	return &cc.Env{Rate: f.LineRate, Node: cc.NodeID(f.Src), BaseRTT: rtt, Bottleneck: f.Bottleneck, Hops: f.Hops,
		Payload: f.Payload, Size: f.Size, Index: int(f.ID) + 1}
}

// telemetryRTT is a round trip of rtt over hops switches with a telemetry
// stack of format t, each link's stack serialised at the bottleneck: on
// forward link k (k = 0 the sender's) the data frame carries Init + k·Hop
// bytes, and the ACK echoes all hops' records on each of the hops + 1
// reverse links:
//
//	rtt + Σ_{k=0..hops} ser(Init + k·Hop) + (hops+1)·ser(Init + hops·Hop)
func telemetryRTT(rtt units.Time, hops int, bottleneck units.Rate, t cc.TelemetryFormat) units.Time {
	if t == (cc.TelemetryFormat{}) {
		return rtt
	}
	h := units.Bytes(hops)
	for k := units.Bytes(0); k <= h; k++ {
		rtt += units.SerializationTime(t.Init+k*t.Hop, bottleneck)
	}
	return rtt + units.Time(h+1)*units.SerializationTime(t.Init+h*t.Hop, bottleneck)
}

// deployedPart builds the part algorithm name's deployment runs in role r,
// in env, with a scenario's parameters params, as a run builds it: nil,
// nil when the deployment runs none in r.
func deployedPart(name string, r cc.Role, env *cc.Env, params map[string]string) (cc.Part, error) {
	a, err := cc.Lookup(name)
	if err != nil {
		return nil, err
	}
	pn := a.Deployed(r)
	if pn == "" {
		return nil, nil
	}
	st, err := a.DeploySettings(r, params)
	if err != nil {
		return nil, err
	}
	return cc.NewIn(env, name, pn, st)
}

// portCP builds the congestion point algorithm name runs at port q.
func portCP(name string, q testPort, params map[string]string) (cc.CongestionPoint, error) {
	p, err := deployedPart(name, cc.RoleCP, q.env(), params)
	if p == nil {
		return nil, err
	}
	return p.(cc.CongestionPoint), err
}

// flowRP builds the reaction point algorithm name runs at f's sender.
func flowRP(name string, f testFlow, params map[string]string) (cc.ReactionPoint, error) {
	a, err := cc.Lookup(name)
	if err != nil {
		return nil, err
	}
	p, err := deployedPart(name, cc.RoleRP, f.env(&a.Deploy), params)
	if p == nil {
		return nil, err
	}
	return p.(cc.ReactionPoint), err
}

// flowNP builds the notification point algorithm name runs at f's
// receiver (nil, nil: none).
func flowNP(name string, f testFlow, params map[string]string) (cc.NotificationPoint, error) {
	a, err := cc.Lookup(name)
	if err != nil {
		return nil, err
	}
	p, err := deployedPart(name, cc.RoleNP, f.env(&a.Deploy), params)
	if p == nil {
		return nil, err
	}
	return p.(cc.NotificationPoint), err
}

// sendRate is the rate a reaction point's limits let its flow send at on
// a NIC of line rate line: the line rate when the part does not pace
// (cc.NoRate), else the part's rate. The harness also caps it at the
// line and offered rates (TestOfferedRateCapsThePart); this does not, so
// that a part's rate above its line shows.
func sendRate(l cc.Limits, line units.Rate) units.Rate {
	if l.Rate == cc.NoRate {
		return line
	}
	return l.Rate
}

// testSender drives a flow's reaction point event by event through the
// contract, as a sender's NIC does: each verb is one event and returns
// the part's error. It reuses one packet and one message, so that its
// verbs allocate nothing.
type testSender struct {
	r    cc.ReactionPoint
	flow cc.FlowID
	act  *cc.Actions
	pkt  cc.Packet
	fb   cc.Feedback
}

func newTestSender(r cc.ReactionPoint, flow harness.FlowID) *testSender {
	return &testSender{r: r, flow: cc.FlowID(flow), act: cc.NewActions(8)}
}

// sent reports a data packet of payload n at sequence seq.
func (s *testSender) sent(now units.Time, seq uint64, n units.Bytes) error {
	s.act.Reset()
	s.pkt = cc.Packet{Flow: s.flow, Seq: seq, Payload: n}
	return s.r.Sent(now, &s.pkt, s.act)
}

// ack reports an ACK of every byte below seq, newly acknowledging newly
// bytes, with the ECN echo ece.
func (s *testSender) ack(now units.Time, seq uint64, newly units.Bytes, ece bool) error {
	s.fb = cc.Feedback{Kind: cc.FeedbackAck, Flow: s.flow, Seq: seq, Acked: newly, ECE: ece}
	return s.feedback(now, &s.fb)
}

// cnp reports a CNP from the flow's notification point.
func (s *testSender) cnp(now units.Time) error {
	s.fb = cc.Feedback{Kind: cc.FeedbackCNP, Flow: s.flow}
	return s.feedback(now, &s.fb)
}

// feedback reports message f.
func (s *testSender) feedback(now units.Time, f *cc.Feedback) error {
	s.act.Reset()
	return s.r.Feedback(now, f, s.act)
}

// timer runs the part's timer at now.
func (s *testSender) timer(now units.Time) error {
	s.act.Reset()
	return s.r.Timer(now, s.act)
}

// receiveCNP hands notification point n data packet p and reports whether
// it asked for a CNP to the flow's source (what a receiver's NIC sends).
func receiveCNP(t testing.TB, n cc.NotificationPoint, now units.Time, p *cc.Packet) bool {
	t.Helper()
	act := cc.NewActions(4)
	require.NoError(t, n.Receive(now, p, act))
	cnp := false
	for _, a := range act.All() {
		require.Equal(t, cc.ActionFeedback, a.Kind)
		require.Equal(t, cc.ToSource, a.To)
		require.Equal(t, cc.FeedbackCNP, a.Feedback.Kind)
		cnp = true
	}
	return cnp
}

// builtPart is a part a run built, and where.
type builtPart struct {
	at   harness.Place
	part cc.Part
}

// runKeepingParts runs sc with opts, keeping every part the run builds
// (Options.Wrap returning each as it is), in the order it built them.
func runKeepingParts(t testing.TB, sc *harness.Scenario, opts harness.Options) (*harness.Result, []builtPart) {
	t.Helper()
	var parts []builtPart
	opts.Wrap = func(at harness.Place, p cc.Part) cc.Part {
		parts = append(parts, builtPart{at, p})
		return p
	}
	res, err := harness.Run(sc, opts)
	require.NoError(t, err)
	return res, parts
}

// TestTestEnvsAreARunsEnvs: the environments testPort and testFlow give
// are the ones a run gives its parts. A star under dcqcn (one switch, no
// telemetry) and a chain of three switches under hpcc (telemetry, the
// network's largest RTT): every congestion point's environment is its
// port's (its rate, switch ID, port number, the queue's index), every
// flow's is its own (line rate, bottleneck, switches crossed, payload,
// size, base RTT with the telemetry bytes), the base RTT of the run's
// report with the bytes of the deployment's stack, and under hpcc the
// network's largest: that of the flow over the three switches, on the
// longest path. Each part of a role has its own index.
func TestTestEnvsAreARunsEnvs(t *testing.T) {
	link := 25 * units.Gbps
	star := harness.DefaultScenario()
	star.Algorithm = dcqcnName
	star.Workload.Flows = []harness.FlowSpec{{Src: "h1", Dst: "h0", Size: harness.Bytes(50 * units.KB)}, {Src: "h2", Dst: "h0"}}
	star.Topology.Hosts, star.Topology.Link = 3, harness.Rate(link)
	star.Duration = harness.Time(30 * units.Microsecond)
	chain := harness.DefaultScenario()
	chain.Algorithm = hpccName
	chain.Topology = harness.TopologySpec{Kind: "chain", Switches: 3, HostsPerSwitch: 2, Link: harness.Rate(link)}
	chain.Workload.Flows = []harness.FlowSpec{{Src: "h0_0", Dst: "h2_1"}, {Src: "h1_0", Dst: "h1_1"}}
	chain.Duration = harness.Time(30 * units.Microsecond)
	for _, c := range []struct {
		sc      *harness.Scenario
		hops    []int // by flow
		maxHops int
	}{{star, []int{1, 1}, 1}, {chain, []int{3, 1}, 3}} {
		t.Run(c.sc.Algorithm, func(t *testing.T) {
			res, parts := runKeepingParts(t, c.sc, harness.Options{NoSeries: true})
			d := ccAlgo(t, c.sc.Algorithm).Deploy
			type portKey struct {
				node string
				port int
			}
			rates := map[portKey]units.Rate{}
			for _, p := range res.Ports {
				rates[portKey{p.Node, p.Port}] = p.Rate
			}
			// The flow over every switch has the largest base RTT.
			maxRTT := res.Flows[0].BaseRTT
			for _, f := range res.Flows {
				maxRTT = max(maxRTT, f.BaseRTT)
			}
			seen := map[cc.Role]map[int]bool{}
			counts := map[cc.Role]int{}
			for _, b := range parts {
				at := b.at
				if seen[at.Role] == nil {
					seen[at.Role] = map[int]bool{}
				}
				require.False(t, seen[at.Role][at.Env.Index], "%v index %d twice", at.Role, at.Env.Index)
				seen[at.Role][at.Env.Index] = true
				counts[at.Role]++
				switch at.Role {
				case cc.RoleCP:
					q := testPort{ID: harness.CPID(at.Env.Index - 1), Node: harness.NodeID(at.Env.Node), Port: at.Port,
						SwitchID: at.Env.SwitchID, Rate: rates[portKey{at.Node, at.Port}]}
					require.Equal(t, *q.env(), at.Env, "%s port %d", at.Node, at.Port)
					require.Positive(t, at.Env.Index)
					require.NotZero(t, at.Env.SwitchID)
				case cc.RoleRP, cc.RoleNP:
					fr := res.Flows[at.Flow]
					f := testFlow{ID: at.Flow, Src: harness.NodeID(at.Env.Node), LineRate: link, Bottleneck: link,
						BaseRTT: fr.BaseRTT, Hops: c.hops[at.Flow], MaxBaseRTT: maxRTT, MaxHops: c.maxHops,
						Payload: harness.DefaultPayload, Size: fr.Size}
					require.Equal(t, *f.env(&d), at.Env, "flow %d %v", at.Flow, at.Role)
					if at.Role == cc.RoleRP {
						require.Equal(t, fr.Src, at.Node, "a reaction point runs at its flow's source")
					} else {
						require.Equal(t, fr.Dst, at.Node, "a notification point runs at its flow's destination")
					}
				default:
					t.Fatalf("a %v under %s", at.Role, c.sc.Algorithm)
				}
			}
			require.Equal(t, len(res.Flows), counts[cc.RoleRP])
			if d.NetworkRTT {
				// One T for every flow: both see the 3-switch path's RTT.
				var rtts []units.Time
				for _, b := range parts {
					if b.at.Role == cc.RoleRP {
						rtts = append(rtts, b.at.Env.BaseRTT)
					}
				}
				require.Equal(t, rtts[0], rtts[1])
				require.Equal(t, telemetryRTT(maxRTT, 3, link, d.Telemetry), rtts[0])
			}
		})
	}
}

// TestOfferedRateCapsThePart: the NIC paces a flow at min(offered rate,
// line rate, the reaction point's rate). A dcqcn flow offered 20 Gb/s on a
// 25 Gb/s NIC and a rocc flow offered 3 Gb/s on a 40 Gb/s NIC, each alone
// across one switch, whose parts allow their line rates throughout (no
// queue, no CNP): each sends at its offered rate. Over the 200 µs window
// (after the first 50 µs) the wire throughput is within 2 % of it: the
// window holds whole frames only, one 1082-byte frame in 69 at 3 Gb/s
// (2.9 µs each) is 1.4 %.
func TestOfferedRateCapsThePart(t *testing.T) {
	for _, c := range []struct {
		algo          string
		line, offered units.Rate
	}{{dcqcnName, 25 * units.Gbps, 20 * units.Gbps}, {roccName, 40 * units.Gbps, 3 * units.Gbps}} {
		sc := harness.DefaultScenario()
		sc.Algorithm = c.algo
		sc.Topology.Hosts, sc.Topology.Link = 2, harness.Rate(c.line)
		sc.Workload.Flows = []harness.FlowSpec{{Src: "h1", Dst: "h0", Rate: harness.Rate(c.offered)}}
		sc.MeasureFrom, sc.Duration = harness.Time(50*units.Microsecond), harness.Time(250*units.Microsecond)
		res, parts := runKeepingParts(t, sc, harness.Options{NoSeries: true})
		require.Nil(t, res.Report.Errors)
		var r cc.ReactionPoint
		for _, b := range parts {
			if b.at.Role == cc.RoleRP {
				r = b.part.(cc.ReactionPoint)
			}
		}
		require.NotNil(t, r)
		require.Equal(t, c.line, sendRate(r.Limits(), c.line), "%s: the part allows its line rate", c.algo)
		require.InEpsilon(t, float64(c.offered), res.Flows[0].Throughput, 0.02, "%s: %.3f Gb/s", c.algo, res.Flows[0].Throughput/1e9)
	}
}
