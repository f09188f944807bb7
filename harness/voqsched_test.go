package harness_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/voq"
)

// Tests of the VOQ port schedulers (switch.scheduler voq and voq-credit),
// end to end on a leaf-spine with 2 leaves, 1 spine and 4 hosts per leaf:
// leaf0 holds h0..h3, leaf1 h4..h7, and leaf0's only uplink leaf0→spine0
// is the one contended port. Three senders on leaf0 run at the line rate
// (algorithm none, or the toy scheme below whose sender never paces):
// flows 0 and 1 (h0, h1) to h4, flow 2 (h2) to h5. Every link is 100 Gb/s.

// voqWire is a full data frame's wire bytes, from first principles and not
// from the package constants: 1000 B of payload, Ethernet 14 + IPv4 20 +
// UDP 8 + BTH 12 + ICRC 4 + FCS 4, and the 8-byte preamble/SFD and 12-byte
// inter-frame gap every frame costs on the wire.
const (
	voqPayload = 1000
	voqWire    = voqPayload + 14 + 20 + 8 + 12 + 4 + 4 + 8 + 12 // 1082
	voqLink    = 100 * units.Gbps
)

// voqScenario is the leaf-spine above with scheduler sched, running for
// dur and measuring from 200 µs; flows of size bytes (0: long-lived).
func voqScenario(algo, sched string, size units.Bytes, dur units.Time) *harness.Scenario {
	sc := harness.DefaultScenario()
	sc.Name = "voq-" + sched
	sc.Algorithm = algo
	sc.Topology = harness.TopologySpec{Kind: "leaf-spine", Leaves: 2, Spines: 1, HostsPerLeaf: 4}
	for _, f := range [][2]string{{"h0", "h4"}, {"h1", "h4"}, {"h2", "h5"}} {
		sc.Workload.Flows = append(sc.Workload.Flows, harness.FlowSpec{Src: f[0], Dst: f[1], Size: harness.Bytes(size)})
	}
	sc.Switch.Scheduler = sched
	sc.Duration = harness.Time(dur)
	sc.MeasureFrom = harness.Time(200 * units.Microsecond)
	if dur <= 200*units.Microsecond {
		sc.MeasureFrom = 0
	}
	return sc
}

func runVOQ(t *testing.T, sc *harness.Scenario) *harness.Result {
	t.Helper()
	r, err := harness.Run(sc, harness.Options{})
	require.NoError(t, err)
	require.Nil(t, r.Report.Errors, "no state machine refused anything")
	return r
}

// txOf returns the wire bytes the port of link name sent over the run.
func txOf(t *testing.T, r *harness.Result, link string) uint64 {
	t.Helper()
	for _, p := range r.Ports {
		if p.Link == link {
			return p.TxBytes
		}
	}
	t.Fatalf("no port %s", link)
	return 0
}

// TestVOQRoundRobinOverDestinations: with scheduler voq the uplink
// alternates between the VOQ of h4 (flows 0 and 1) and that of h5 (flow
// 2), one frame per turn, and both are always backlogged (three line-rate
// senders into one line-rate uplink; PFC holds the senders back at leaf0's
// ingress ports and loses nothing). All frames are full, so h5's flow gets
// exactly half the uplink's frames, and flows 0 and 1, symmetric in every
// respect, a quarter each. Under strict priority (one FIFO) the uplink
// serves frames in arrival order and PFC pauses the three ingresses alike:
// a third each.
//
// Throughput is the wire bytes (preamble and gap included) delivered in
// order over the 800 µs window, so the three flows add up to the uplink's
// line rate. Tolerance 0.01 of the link: round robin is exact to one frame
// per window edge (1082 B of 10 MB, 10^-4), and the split of h4's VOQ
// between flows 0 and 1 follows PFC's pause cycles, a few frames per cycle;
// the two schedulers' expectations for flow 2 differ by 1/6, far outside.
func TestVOQRoundRobinOverDestinations(t *testing.T) {
	shares := func(sched string) [3]float64 {
		r := runVOQ(t, voqScenario("none", sched, 0, units.Millisecond))
		require.Zero(t, r.Report.Drops, "%s: PFC is lossless", sched)
		require.Zero(t, r.Counters.Drops)
		var s [3]float64
		for i, f := range r.Flows {
			s[i] = f.Throughput / float64(voqLink)
		}
		// The uplink is the bottleneck and stays busy: the shares add up
		// to the whole link (same tolerance).
		require.InDelta(t, 1, s[0]+s[1]+s[2], 0.01, "%s: %v", sched, s)
		return s
	}
	v := shares(harness.SchedulerVOQ)
	require.InDelta(t, 0.25, v[0], 0.01, "voq: h0→h4 %v", v)
	require.InDelta(t, 0.25, v[1], 0.01, "voq: h1→h4 %v", v)
	require.InDelta(t, 0.50, v[2], 0.01, "voq: h2→h5 %v", v)
	f := shares(harness.SchedulerStrict)
	for i := range f {
		require.InDelta(t, 1.0/3, f[i], 0.01, "strict: flow %d %v", i, f)
	}
	// The VOQ scheduler is not FIFO: flow 2's share differs by 1/6.
	require.Greater(t, v[2]-f[2], 0.15)
}

// TestVOQCreditStopsAtInitialCredit: under voq-credit with no module to
// add credit, every VOQ has only its initial balance C0 and is served
// while the balance is positive, each frame spending its wire bytes
// (voq.CreditPositive). With full frames of w = 1082 wire bytes a VOQ
// releases n = ceil(C0/w) frames: after k frames the balance is C0 − k·w,
// positive exactly while k < C0/w. The next ports of the path (spine0→leaf1,
// leaf1→h4 and leaf1→h5) have the same C0 for the same frames, so they pass
// all n; the ACKs travel at the control priority, ahead of the VOQs, and
// spend no credit. So each destination gets exactly n·1000 B of payload,
// shared by its flows, and the 100 KB flows never finish.
//
// C0 = 4328 = 4·w is the boundary case (the 4th frame brings the balance
// to 0, which is not positive: 4 frames, not 5); C0 = 10 KB (voq.PaperC0)
// gives ceil(9.24) = 10.
func TestVOQCreditStopsAtInitialCredit(t *testing.T) {
	for _, c0 := range []units.Bytes{4 * voqWire, 10 * units.KB} {
		n := (int64(c0) + voqWire - 1) / voqWire
		sc := voqScenario("none", harness.SchedulerVOQCredit, 100*units.KB, 100*units.Microsecond)
		c := harness.Bytes(c0)
		sc.Switch.VOQCredit = &c
		r := runVOQ(t, sc)
		h4 := r.Flows[0].Delivered + r.Flows[1].Delivered
		h5 := r.Flows[2].Delivered
		require.Equal(t, units.Bytes(n*voqPayload), h4, "C0 %v: payload to h4", c0)
		require.Equal(t, units.Bytes(n*voqPayload), h5, "C0 %v: payload to h5", c0)
		require.Equal(t, 2*n*voqPayload, r.Counters.DataRecvPayload, "C0 %v: nothing else arrived", c0)
		require.Equal(t, uint64(2*n*voqWire), txOf(t, r, "leaf0->spine0"), "C0 %v: the uplink sent n frames per VOQ", c0)
		for _, f := range r.Flows {
			require.Equal(t, units.Time(-1), f.Finish, "C0 %v: %s→%s finished", c0, f.Src, f.Dst)
		}
		require.Zero(t, r.Counters.FlowsFinished)
		// The gate, not the senders, stopped them: they sent far more.
		require.Greater(t, r.Counters.DataSentPayload, 10*r.Counters.DataRecvPayload)
		require.Zero(t, r.Counters.Drops)
	}
}

// voqTestModule is a switch point that feeds the VOQs of its switch with
// credit every voqTick (see voqTest for what each test asks of it). It
// credits with actions (cc.ActionCredit); it reads its switch's VOQs, and
// calls Switch.AddCredit with arguments an action cannot carry, through
// the switch's handle (sw).
type voqTestModule struct {
	name   string          // its switch, as the run built it (Options.Wrap)
	sw     *harness.Switch // its switch's handle, once the run is built
	next   units.Time
	dstOf  map[harness.FlowID]harness.NodeID // learned from arriving data
	srcOf  map[harness.FlowID]harness.NodeID
	pairs  [][2]int // (egress port, destination) that carried data
	seen   map[[2]int]bool
	added  map[harness.NodeID]units.Bytes // credit given at the uplink, by destination
	deq    map[harness.NodeID]units.Bytes // data wire bytes the uplink dequeued, by destination
	probes []error                        // probe: what AddCredit returned
	probed bool
	st     map[string]voq.State // probe: what VOQ returned
	stOK   map[string]bool
}

// voqTest says what the switch points of the next run do, and keeps the
// switch points and congestion points it built.
var voqTest struct {
	probe     bool        // call AddCredit and VOQ with bad arguments, once
	onEnqueue bool        // credit each data frame's wire bytes as it joins its VOQ, nothing else
	q         units.Bytes // credit per tick for h5 at leaf0's uplink (h4: 2q)
	sim       *harness.Sim
	mods      map[string]*voqTestModule
	cps       []*orderCP
}

const voqTick = units.Microsecond

// handle returns the module's switch.
func (m *voqTestModule) handle() *harness.Switch {
	if m.sw == nil {
		m.sw = voqTest.sim.SwitchNamed(m.name)
	}
	return m.sw
}

// uplink returns leaf0's port towards spine0, or −1 at other switches.
func (m *voqTestModule) uplink() int {
	sw := m.handle()
	if sw.Name() != "leaf0" {
		return -1
	}
	for p := range sw.Ports() {
		if sw.Peer(p) == "spine0" {
			return p
		}
	}
	return -1
}

func (m *voqTestModule) Arrive(_ units.Time, _ int, p *cc.Packet, _ *cc.Actions) error {
	m.dstOf[harness.FlowID(p.Flow)], m.srcOf[harness.FlowID(p.Flow)] = harness.NodeID(p.Dst), harness.NodeID(p.Src)
	return nil
}

func (m *voqTestModule) Enqueue(_ units.Time, out int, p *cc.Packet, _ cc.Queue, act *cc.Actions) error {
	if voqTest.onEnqueue {
		if err := act.Reserve("voq test", "Enqueue", 1); err != nil {
			return err
		}
		act.Credit(uint16(out), p.Dst, p.Size)
		return nil
	}
	if k := [2]int{out, int(p.Dst)}; !m.seen[k] {
		m.seen[k] = true
		m.pairs = append(m.pairs, k)
	}
	return nil
}

func (m *voqTestModule) Dequeue(_ units.Time, out int, p *cc.Packet, _ cc.Queue, _ *cc.Actions) error {
	if out == m.uplink() { // data frames only: a switch point sees no other
		m.deq[harness.NodeID(p.Dst)] += p.Size
	}
	return nil
}

func (m *voqTestModule) Pause(units.Time, int, uint8, bool, *cc.Actions) error    { return nil }
func (m *voqTestModule) Message(units.Time, int, *cc.Feedback, *cc.Actions) error { return nil }
func (m *voqTestModule) AppendRegisters(dst []cc.Register) []cc.Register          { return dst }

func (m *voqTestModule) NextDeadline() units.Time { return m.next }

func (m *voqTestModule) Timer(now units.Time, act *cc.Actions) error {
	if now < m.next {
		return nil
	}
	if voqTest.onEnqueue {
		m.next = units.MaxTime
		return nil
	}
	if voqTest.probe {
		m.next = now + voqTick
		m.probe()
		return nil
	}
	if err := act.Reserve("voq test", "Timer", 2+len(m.pairs)); err != nil {
		return err
	}
	m.next = now + voqTick
	up := m.uplink()
	// The uplink: 2q for flow 0's destination (h4), q for flow 2's (h5),
	// once the first frames (sent on C0) told the module who they are.
	for _, g := range []struct {
		flow  harness.FlowID
		share units.Bytes
	}{{0, 2}, {2, 1}} {
		if d, ok := m.dstOf[g.flow]; ok && up >= 0 {
			act.Credit(uint16(up), cc.NodeID(d), g.share*voqTest.q)
			m.added[d] += g.share * voqTest.q
		}
	}
	// Every other port that carries data: the line rate's worth per tick,
	// so that only the uplink's credit limits anything.
	for _, k := range m.pairs {
		if k[0] == up {
			continue
		}
		act.Credit(uint16(k[0]), cc.NodeID(k[1]), units.BytesIn(m.handle().PortRate(k[0]), voqTick))
	}
	return nil
}

// probe, once flows 0 and 2 are known at leaf0, calls AddCredit and VOQ
// with bad arguments, and opens h0's VOQ at the uplink (no data goes to
// h0: its ACKs are control frames) with one credit.
func (m *voqTestModule) probe() {
	sw, up := m.handle(), m.uplink()
	h0, ok0 := m.srcOf[0]
	h4, ok4 := m.dstOf[0]
	if up < 0 || m.probed || !ok0 || !ok4 {
		return
	}
	m.probed = true
	read := func(name string, port int, dst harness.NodeID) {
		m.st[name], m.stOK[name] = sw.VOQ(port, dst)
	}
	read("h0 before", up, h0)
	read("h4", up, h4)
	read("bad port", sw.Ports(), h4)
	read("negative port", -1, h4)
	read("negative dst", up, -1)
	read("huge dst", up, 1<<30)
	m.probes = []error{
		sw.AddCredit(up, sw.ID(), 1000),          // 0: a switch, not a host
		sw.AddCredit(up, -1, 1000),               // 1
		sw.AddCredit(up, 1<<20, 1000),            // 2: no such node
		sw.AddCredit(sw.Ports(), h4, 1000),       // 3: no such port
		sw.AddCredit(-1, h4, 1000),               // 4
		sw.AddCredit(up, h4, 0),                  // 5: not a credit
		sw.AddCredit(up, h4, voq.MaxCreditLimit), // 6: past the register
		sw.AddCredit(up, h0, 1000),               // 7: fine, opens h0's VOQ
	}
	read("h0 after", up, h0)
}

var voqOnce sync.Once

// orderCP is a congestion point that checks the order of the events the
// harness gives it: a frame leaves its queue only after it joined it. It
// keeps the frames (flow, sequence number; a multiset, in case of
// retransmissions) that joined and have not left.
type orderCP struct {
	in  map[[2]uint64]int
	bad int // Dequeues of a frame not in the queue
}

func (*orderCP) NextDeadline() units.Time                        { return units.MaxTime }
func (*orderCP) Timer(units.Time, *cc.Actions) error             { return nil }
func (*orderCP) AppendRegisters(dst []cc.Register) []cc.Register { return dst }
func (c *orderCP) Enqueue(_ units.Time, p *cc.Packet, _ cc.Queue, _ *cc.Actions) error {
	c.in[[2]uint64{uint64(p.Flow), p.Seq}]++
	return nil
}
func (c *orderCP) Dequeue(_ units.Time, p *cc.Packet, _ cc.Queue, _ *cc.Actions) error {
	k := [2]uint64{uint64(p.Flow), p.Seq}
	if c.in[k] == 0 {
		c.bad++
		return nil
	}
	c.in[k]--
	return nil
}

// lineRateRP is a sender that paces nothing (the flow runs at the line
// rate) and takes every event.
type lineRateRP struct{}

func (lineRateRP) NextDeadline() units.Time                             { return units.MaxTime }
func (lineRateRP) Timer(units.Time, *cc.Actions) error                  { return nil }
func (lineRateRP) AppendRegisters(dst []cc.Register) []cc.Register      { return dst }
func (lineRateRP) Sent(units.Time, *cc.Packet, *cc.Actions) error       { return nil }
func (lineRateRP) Feedback(units.Time, *cc.Feedback, *cc.Actions) error { return nil }
func (lineRateRP) Limits() cc.Limits                                    { return cc.Limits{} }

// runVOQModule runs sc under the toy algorithm test-voq, whose switch
// point is a voqTestModule in every switch.
func runVOQModule(t *testing.T, sc *harness.Scenario) *harness.Result {
	t.Helper()
	voqOnce.Do(func() {
		cc.MustRegisterAlgorithm(cc.Algorithm{
			Name: "test-voq", Title: "voq credit", Paper: "none", Doc: "a switch point that credits VOQs",
			Parts: []cc.PartSpec{
				{Name: "rp", Role: cc.RoleRP, Doc: "line rate", Config: toySpec(func() lineRateRP { return lineRateRP{} })},
				{Name: "cp", Role: cc.RoleCP, Doc: "checks the event order", Config: toySpec(func() *orderCP {
					c := &orderCP{in: map[[2]uint64]int{}}
					voqTest.cps = append(voqTest.cps, c)
					return c
				})},
				{Name: "sw", Role: cc.RoleSW, Doc: "credits VOQs", Config: toySpec(func() *voqTestModule {
					return &voqTestModule{
						dstOf: map[harness.FlowID]harness.NodeID{}, srcOf: map[harness.FlowID]harness.NodeID{},
						seen: map[[2]int]bool{}, added: map[harness.NodeID]units.Bytes{}, deq: map[harness.NodeID]units.Bytes{},
						st: map[string]voq.State{}, stOK: map[string]bool{},
					}
				})},
			},
		})
	})
	voqTest.mods, voqTest.cps = map[string]*voqTestModule{}, nil
	sc.Algorithm = "test-voq"
	s, err := harness.New(sc, harness.Options{Wrap: func(at harness.Place, p cc.Part) cc.Part {
		if m, ok := p.(*voqTestModule); ok {
			m.name = at.Node
			voqTest.mods[at.Node] = m
		}
		return p
	}})
	require.NoError(t, err)
	voqTest.sim = s
	r, err := s.Run()
	require.NoError(t, err)
	require.Nil(t, r.Report.Errors, "no state machine refused anything, no credit action refused")
	require.NotEmpty(t, voqTest.cps)
	for i, c := range voqTest.cps {
		require.Zero(t, c.bad, "congestion point %d: frames left its queue before they joined it", i)
	}
	return r
}

// TestVOQCreditFromTheEnqueueHook: a module that adds, as each data frame
// joins its VOQ, the frame's wire bytes of credit to that VOQ (so that
// credit never limits: every VOQ keeps its C0 in hand). The harness must
// still tell the congestion point that the frame joined before it tells it
// the frame left, even though the credit (an ActionCredit of the switch
// point's Enqueue, carried out by Switch.AddCredit) makes an idle port's
// VOQ eligible inside the Enqueue hook (runVOQModule checks the order at
// every egress queue). The flows then share the uplink as under voq, with
// nothing refused (runVOQModule: no error reported): flow 2 gets half the
// uplink (tolerance as in TestVOQRoundRobinOverDestinations).
func TestVOQCreditFromTheEnqueueHook(t *testing.T) {
	voqTest.probe, voqTest.onEnqueue = false, true
	defer func() { voqTest.onEnqueue = false }()
	r := runVOQModule(t, voqScenario("", harness.SchedulerVOQCredit, 0, 400*units.Microsecond))
	require.Zero(t, r.Counters.Drops)
	require.InDelta(t, 0.5, r.Flows[2].Throughput/float64(voqLink), 0.01)
	require.InDelta(t, 0.5, (r.Flows[0].Throughput+r.Flows[1].Throughput)/float64(voqLink), 0.01)
}

// TestVOQCreditFollowsTheModulesCredit: a module adds, every 1 µs, 2q =
// 5000 B of credit to h4's VOQ at leaf0's uplink and q = 2500 B to h5's
// (and the line rate's worth to every other VOQ that carries data, so
// that nothing else limits). Both VOQs stay backlogged (line-rate senders
// held back by PFC), so each sends exactly the credit it gets (deficit
// style: the balance stays within one frame of overdraft and one tick of
// credit of zero): h4 2q per µs = 40 Gb/s, h5 q per µs = 20 Gb/s of wire
// bytes, 0.4 and 0.2 of the link, with the uplink only 60 % busy. Over the
// 800 µs window that is exact to 2q + 2 frames at each edge (about 7 KB
// of 4 MB, 0.2 %); tolerance 1 % of the expected rate.
//
// At the end, leaf0's registers for the two VOQs must agree with what the
// module saw leave the uplink: S_ij equals the wire bytes of the frames
// the module saw dequeued for j, the two add up to the uplink's TxBytes
// (it carries nothing else), and the balance is C0 + credit added − S_ij.
func TestVOQCreditFollowsTheModulesCredit(t *testing.T) {
	voqTest.probe, voqTest.q = false, 2500
	sc := voqScenario("", harness.SchedulerVOQCredit, 0, units.Millisecond)
	r := runVOQModule(t, sc)
	require.Zero(t, r.Counters.Drops)
	tick := voqTick.Seconds()
	want4 := float64(2*voqTest.q) * 8 / tick
	want5 := float64(voqTest.q) * 8 / tick
	got4 := r.Flows[0].Throughput + r.Flows[1].Throughput
	got5 := r.Flows[2].Throughput
	require.InEpsilon(t, want4, got4, 0.01, "h4: %.4g b/s", got4)
	require.InEpsilon(t, want5, got5, 0.01, "h5: %.4g b/s", got5)
	require.InEpsilon(t, 2.0, got4/got5, 0.02, "2:1")

	leaf0 := voqTest.mods["leaf0"]
	require.NotNil(t, leaf0.handle())
	up := leaf0.uplink()
	require.GreaterOrEqual(t, up, 0)
	var sent uint64
	for _, flow := range []harness.FlowID{0, 2} {
		d := leaf0.dstOf[flow]
		st, ok := leaf0.sw.VOQ(up, d)
		require.True(t, ok, "flow %d's VOQ is open", flow)
		require.Equal(t, voq.Key(d), st.Key)
		require.Positive(t, leaf0.deq[d])
		require.Equal(t, uint32(leaf0.deq[d]), st.Sent, "flow %d: S_ij = wire bytes dequeued", flow)
		require.Equal(t, voq.PaperC0+leaf0.added[d]-leaf0.deq[d], st.Credit, "flow %d: balance", flow)
		require.Greater(t, st.Credit, units.Bytes(-voqWire), "overdraft under one frame")
		sent += uint64(st.Sent)
	}
	require.Equal(t, txOf(t, r, "leaf0->spine0"), sent, "the uplink sent what its VOQs released")
	// h4's receivers got every byte but those still between the uplink
	// and h4: at most what three 1 µs hops at 100 Gb/s hold, plus a frame
	// being serialised at each (3·(12 500 + 1082) B).
	wire4 := uint64(r.Flows[0].Wire + r.Flows[1].Wire)
	s4 := uint64(leaf0.deq[leaf0.dstOf[0]])
	require.LessOrEqual(t, wire4, s4)
	require.LessOrEqual(t, s4-wire4, uint64(3*(12500+voqWire)))
}

// TestVOQSettingsAndRefusals: the errors of the VOQ settings and of
// Switch.AddCredit / Switch.VOQ.
func TestVOQSettingsAndRefusals(t *testing.T) {
	sc := harness.DefaultScenario()
	require.ErrorContains(t, sc.Set("scheduler", "wfq"), "strict, dwrr, voq, voq-credit")
	for _, s := range []string{harness.SchedulerVOQ, harness.SchedulerVOQCredit} {
		sc := voqScenario("none", "", 0, units.Millisecond)
		require.NoError(t, sc.Set("scheduler", s))
		require.NoError(t, sc.Validate())
		sc.Switch.Weights = []int{1, 2}
		require.ErrorContains(t, sc.Validate(), `switch.weights are for switch.scheduler "dwrr"`, s)
	}
	// C0 must fit the VOQ's signed 32-bit balance register.
	for _, c0 := range []harness.Bytes{-1, harness.Bytes(voq.MaxCreditLimit) + 1} {
		sc := voqScenario("none", harness.SchedulerVOQCredit, 0, units.Millisecond)
		sc.Switch.VOQCredit = &c0
		require.ErrorContains(t, sc.Validate(), "switch.voq_credit", "C0 %d", c0)
	}

	// voq_credit 0 is no credit, unset the paper's C0.
	zero := voqScenario("none", harness.SchedulerVOQCredit, 0, units.Millisecond)
	require.NoError(t, zero.Set("voq_credit", "0B"))
	require.NotNil(t, zero.Switch.VOQCredit)
	require.Equal(t, harness.Bytes(0), *zero.Switch.VOQCredit)
	require.NoError(t, zero.Validate())

	// Under voq-credit: bad ports and destinations are refused.
	voqTest.probe = true
	r := runVOQModule(t, voqScenario("", harness.SchedulerVOQCredit, 0, 50*units.Microsecond))
	require.Zero(t, r.Counters.Drops)
	m := voqTest.mods["leaf0"]
	require.True(t, m.probed)
	require.Len(t, m.probes, 8)
	for i, err := range m.probes[:7] {
		require.Error(t, err, "probe %d", i)
	}
	require.ErrorContains(t, m.probes[0], "is not a host")
	require.ErrorContains(t, m.probes[1], "is not a host")
	require.ErrorContains(t, m.probes[2], "is not a host")
	require.ErrorContains(t, m.probes[3], "has no port")
	require.ErrorContains(t, m.probes[4], "has no port")
	require.ErrorIs(t, m.probes[5], voq.ErrSize)
	require.ErrorIs(t, m.probes[6], voq.ErrCreditOverflow)
	require.NoError(t, m.probes[7])
	for _, name := range []string{"h0 before", "bad port", "negative port", "negative dst", "huge dst"} {
		require.False(t, m.stOK[name], name)
	}
	require.True(t, m.stOK["h4"], "h4's VOQ carries data")
	// h0's VOQ, opened by AddCredit: C0 plus the credit, nothing sent.
	require.True(t, m.stOK["h0 after"])
	h0 := m.st["h0 after"]
	require.Equal(t, voq.PaperC0+1000, h0.Credit)
	require.Zero(t, h0.Sent)
	require.Zero(t, h0.Queued)

	// Under strict priority no port keeps VOQs.
	voqTest.probe = true
	r = runVOQModule(t, voqScenario("", harness.SchedulerStrict, 0, 50*units.Microsecond))
	m = voqTest.mods["leaf0"]
	require.True(t, m.probed)
	require.Nil(t, r.Report.Errors)
	for i, want := range []string{"keeps no VOQs", "keeps no VOQs", "keeps no VOQs", "has no port", "has no port",
		"keeps no VOQs", "keeps no VOQs", "keeps no VOQs"} {
		require.ErrorContains(t, m.probes[i], want, "probe %d", i)
	}
	for name, ok := range m.stOK {
		require.False(t, ok, "%s: no VOQ to read", name)
	}
}

// TestVOQConservation: data payload sent = delivered + dropped + in flight
// at the end of runs that stop mid-transfer (10 MB flows, 150 µs), under
// both VOQ schedulers, lossless and lossy (a 200 KB buffer, PFC off: leaf0
// drops at the uplink). In flight counts the frames held in the VOQs:
// under voq-credit almost everything sent is there.
func TestVOQConservation(t *testing.T) {
	for _, sched := range []string{harness.SchedulerVOQ, harness.SchedulerVOQCredit} {
		for _, pfc := range []bool{true, false} {
			sc := voqScenario("none", sched, 10*units.MB, 150*units.Microsecond)
			sc.Switch.PFC = pfc
			sc.Switch.Buffer = harness.Bytes(200 * units.KB)
			r := runVOQ(t, sc)
			c := r.Counters
			require.Equal(t, c.DataSentPayload, c.DataRecvPayload+c.DroppedDataPayload+c.InFlightDataPayload, "%s pfc %v", sched, pfc)
			require.Positive(t, c.InFlightDataPayload, "%s pfc %v", sched, pfc)
			require.Zero(t, c.FlowsFinished)
			if pfc {
				require.Zero(t, c.Drops, "%s: PFC is lossless", sched)
			} else {
				require.Positive(t, c.Drops, "%s: the lossy run drops", sched)
			}
			if sched == harness.SchedulerVOQCredit {
				// C0 = 10 KB lets 10 frames per destination through.
				require.Equal(t, int64(2*10*voqPayload), c.DataRecvPayload, "%s pfc %v", sched, pfc)
			}
		}
	}
}

// TestVOQGateLocal: under voq-credit with switch.voq_gate local and no
// module to add credit, only the frames of a switch's own hosts wait for
// credit, at every port of that switch; frames from the fabric do not. On
// a leaf-spine of 3 leaves, h4 (leaf1) receives from h0 (leaf0), h8
// (leaf2) and h5 (leaf1): each flow's first switch lets n = ⌈C0/w⌉ frames
// go (C0 = 10 KB: 10 frames), and the remote ones pass leaf1's port toward
// h4 freely, so h4 gets 3n frames. With voq_gate all the same port's one
// VOQ toward h4 lets only n through, whoever sent them.
func TestVOQGateLocal(t *testing.T) {
	const n = (10_000 + voqWire - 1) / voqWire
	run := func(gate string) units.Bytes {
		sc := harness.DefaultScenario()
		sc.Name = "voq-gate-" + gate
		sc.Algorithm = "none"
		sc.Topology = harness.TopologySpec{Kind: "leaf-spine", Leaves: 3, Spines: 1, HostsPerLeaf: 4}
		for _, src := range []string{"h0", "h8", "h5"} {
			sc.Workload.Flows = append(sc.Workload.Flows, harness.FlowSpec{Src: src, Dst: "h4", Size: harness.Bytes(100 * units.KB)})
		}
		require.NoError(t, sc.SetAll([]string{"scheduler=voq-credit", "voq_gate=" + gate, "duration=100us"}))
		r := runVOQ(t, sc)
		return units.Bytes(r.Counters.DataRecvPayload)
	}
	require.Equal(t, units.Bytes(3*n*voqPayload), run(harness.VOQGateLocal), "local: n frames from each first switch, the fabric's free")
	require.Equal(t, units.Bytes(n*voqPayload), run(harness.VOQGateAll), "all: n frames through the last port's VOQ")
}

// TestECMPByDestination: with switch.ecmp destination everything a switch
// sends toward one host leaves by one port: four flows from leaf0's hosts
// to h4 use one of leaf0's two uplinks; hashed by flow (the default) they
// use both (for this seed).
func TestECMPByDestination(t *testing.T) {
	uplinks := func(ecmp string) (used int) {
		sc := harness.DefaultScenario()
		sc.Name = "ecmp-" + ecmp
		sc.Algorithm = "none"
		sc.Topology = harness.TopologySpec{Kind: "leaf-spine", Leaves: 2, Spines: 2, HostsPerLeaf: 4}
		for _, src := range []string{"h0", "h1", "h2", "h3"} {
			sc.Workload.Flows = append(sc.Workload.Flows, harness.FlowSpec{Src: src, Dst: "h4", Size: harness.Bytes(50 * units.KB)})
		}
		require.NoError(t, sc.SetAll([]string{"ecmp=" + ecmp, "duration=200us"}))
		r := runVOQ(t, sc)
		for _, l := range []string{"leaf0->spine0", "leaf0->spine1"} {
			if txOf(t, r, l) > 0 {
				used++
			}
		}
		return used
	}
	require.Equal(t, 1, uplinks(harness.ECMPDestination))
	require.Equal(t, 2, uplinks(harness.ECMPFlow))
}
