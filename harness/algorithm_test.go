package harness

import (
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	inttel "github.com/hwcc/hwcc/int"
	"github.com/hwcc/hwcc/units"
)

// probeLog collects what a probe algorithm's parts observed. Counters only:
// the probe must not allocate per event (the allocation test uses it).
type probeLog struct {
	cpEnq, cpDeq, cpTimers int
	feedback, badFrom      int
	cnps                   int
	acks, ece, naks        int
	intAcks                int
	maxHops                [16]int // ACKs by INT nHop
	pathIDs                map[FlowID]uint16
	badSpeed               int
	maxQLen                uint16
	minRTTSlack            units.Time // min over ACKs of RTT − BaseRTT
	maxInflight            units.Bytes
	rpTimers               int
	pauseOn, pauseOff      int
	npData, npMarked       int
	done                   int
}

// probeAlgo exercises every hook: its CP feeds back to the last flow it
// saw every 5 µs while the queue is not empty, its RP counts everything and
// keeps an optional window, its NP answers every CE mark with a CNP.
type probeAlgo struct {
	name   string
	feat   Features
	window units.Bytes
	log    *probeLog
	codec  *inttel.Codec
}

func (a *probeAlgo) Name() string       { return a.name }
func (a *probeAlgo) Features() Features { return a.feat }
func (a *probeAlgo) NewCP(info CPInfo) (CP, error) {
	c := &probeCP{log: a.log, next: 5 * units.Microsecond, last: -1, swID: info.SwitchID}
	if a.feat.INT {
		c.codec = a.codec
	}
	return c, nil
}
func (a *probeAlgo) NewRP(f FlowInfo) (RP, error) {
	return &probeRP{a: a, info: f, next: 20 * units.Microsecond}, nil
}
func (a *probeAlgo) NewNP(f FlowInfo) (NP, error) { return &probeNP{log: a.log}, nil }

type probeCP struct {
	log   *probeLog
	next  units.Time
	last  FlowID
	codec *inttel.Codec // INT: the CP stamps (the harness carries the header)
	swID  uint16
}

func (c *probeCP) OnEnqueue(now units.Time, q *Queue, p *Packet) {
	c.log.cpEnq++
	c.last = p.Flow
}
func (c *probeCP) OnDequeue(now units.Time, q *Queue, p *Packet) {
	c.log.cpDeq++
	if c.codec != nil && p.HasINT {
		port := inttel.Port{SwitchID: c.swID, Rate: q.Rate(), TxBytes: units.Bytes(q.TxBytes()), QLen: q.Len()}
		if _, err := c.codec.Stamp(now, &p.INT, port); err == nil {
			p.Size += INTHopBytes
		}
	}
}
func (c *probeCP) OnPause(now units.Time, q *Queue, paused bool) {
	if paused != q.Paused() {
		c.log.badFrom++
	}
	if paused {
		c.log.pauseOn++
	} else {
		c.log.pauseOff++
	}
}
func (c *probeCP) NextDeadline() units.Time { return c.next }
func (c *probeCP) OnTimer(now units.Time, q *Queue) {
	c.log.cpTimers++
	c.next = now + 5*units.Microsecond
	if q.Len() > 0 && c.last >= 0 {
		var fb Feedback
		fb.Data[0] = 0xA5
		q.SendFeedback(c.last, fb)
	}
}

type probeRP struct {
	a    *probeAlgo
	info FlowInfo
	next units.Time
	sent uint64 // highest byte sent + 1
	una  uint64
}

func (r *probeRP) Rate() units.Rate    { return r.info.LineRate }
func (r *probeRP) Window() units.Bytes { return r.a.window }
func (r *probeRP) OnSend(now units.Time, seq uint64, n units.Bytes) {
	if end := seq + uint64(n); end > r.sent {
		r.sent = end
	}
	if in := units.Bytes(r.sent - r.una); in > r.a.log.maxInflight {
		r.a.log.maxInflight = in
	}
}
func (r *probeRP) OnAck(now units.Time, a *Ack) {
	l := r.a.log
	l.acks++
	if a.Seq > r.una {
		r.una = a.Seq
	}
	if a.ECE {
		l.ece++
	}
	if a.NAK {
		l.naks++
	}
	if a.Done {
		l.done++
	}
	if slack := a.RTT - r.info.BaseRTT; l.acks == 1 || slack < l.minRTTSlack {
		l.minRTTSlack = slack
	}
	if a.HasINT {
		l.intAcks++
		l.maxHops[a.INT.NHop]++
		l.pathIDs[a.Flow] = a.INT.PathID
		for _, h := range a.INT.Path() {
			if rate, ok := r.a.codec.Rate(h.Speed); !ok || rate != 100*units.Gbps {
				l.badSpeed++
			}
			l.maxQLen = max(l.maxQLen, h.QLen)
		}
	}
}
func (r *probeRP) OnCNP(now units.Time) { r.a.log.cnps++ }
func (r *probeRP) OnFeedback(now units.Time, fb *Feedback) {
	r.a.log.feedback++
	if fb.Data[0] != 0xA5 {
		r.a.log.badFrom++
	}
}
func (r *probeRP) NextDeadline() units.Time { return r.next }
func (r *probeRP) OnTimer(now units.Time) {
	r.a.log.rpTimers++
	r.next = now + 20*units.Microsecond
}

type probeNP struct {
	BaseNP
	log *probeLog
}

func (n *probeNP) OnData(now units.Time, p *Packet) bool {
	n.log.npData++
	if p.CE {
		n.log.npMarked++
	}
	return p.CE
}

var _ PauseObserver = (*probeCP)(nil)

var (
	probeOnce sync.Once
	probe     = &probeAlgo{name: "test-probe", feat: Features{ECN: true, INT: true}}
	probeWin  = &probeAlgo{name: "test-window", window: 20 * units.KB}
)

// registerProbes registers the probe algorithms once per test binary.
func registerProbes(t testing.TB) {
	probeOnce.Do(func() {
		c, err := inttel.NewCodec(inttel.DefaultConfig())
		require.NoError(t, err)
		for _, a := range []*probeAlgo{probe, probeWin} {
			a.codec = c
			a.log = &probeLog{pathIDs: map[FlowID]uint16{}}
			require.NoError(t, Register(a))
		}
	})
}

func TestAlgorithmHooksINTFeedbackCNP(t *testing.T) {
	registerProbes(t)
	*probe.log = probeLog{pathIDs: map[FlowID]uint16{}}
	sc := DefaultScenario()
	sc.Algorithm = "test-probe"
	sc.Topology = TopologySpec{Kind: "chain", Switches: 3}
	sc.Workload.Flows = []FlowSpec{
		{Src: "h0_0", Dst: "h2_0"}, // three switches
		{Src: "h1_0", Dst: "h2_0"}, // two switches; both share s2->h2_0
	}
	sc.Switch.ECN = Bytes(5 * units.KB)
	sc.Duration = Time(200 * units.Microsecond)
	s, err := New(sc, Options{})
	require.NoError(t, err)
	r, err := s.Run()
	require.NoError(t, err)
	l := probe.log

	// INT: one record per switch on the path, echoed in every ACK and
	// decoded by the sender; the path ID is the XOR of the switch IDs.
	require.Equal(t, l.acks, l.intAcks)
	require.Zero(t, l.maxHops[0]+l.maxHops[1]+l.maxHops[4])
	require.Positive(t, l.maxHops[3])
	require.Positive(t, l.maxHops[2])
	id := func(name string) uint16 { return s.byName[name].swID }
	require.Equal(t, id("s0")^id("s1")^id("s2"), l.pathIDs[0])
	require.Equal(t, id("s1")^id("s2"), l.pathIDs[1])
	require.Zero(t, l.badSpeed)
	require.Positive(t, l.maxQLen, "the shared egress queues, so some record shows a queue")

	// ECN: the default marker marks above 5 KB, the NP turns marks into
	// CNPs, each reaches the RP; the ACKs echo the marks.
	require.Positive(t, l.npMarked)
	require.Equal(t, int64(l.npMarked), r.Counters.CNPs)
	require.LessOrEqual(t, l.cnps, l.npMarked)
	require.Greater(t, l.cnps, l.npMarked*9/10, "nearly all CNPs arrive before the end")
	require.Positive(t, l.ece)

	// Feedback from the CP timers reaches the sources with its payload.
	require.Positive(t, l.cpTimers)
	require.Positive(t, l.feedback)
	require.Zero(t, l.badFrom)
	require.Equal(t, r.Counters.FeedbackReceived, int64(l.feedback))
	require.LessOrEqual(t, r.Counters.FeedbackReceived, r.Counters.FeedbackSent)

	// PFC transitions reach the CPs of the paused switch egresses.
	var swPauses int64
	for _, p := range r.Ports {
		if p.IsSwitch {
			swPauses += p.Pauses
		}
	}
	require.Positive(t, swPauses)
	require.Equal(t, swPauses, int64(l.pauseOn))
	require.LessOrEqual(t, l.pauseOn-l.pauseOff, 4)

	// Timers, hooks, RTT samples.
	require.Positive(t, l.rpTimers)
	require.Positive(t, l.cpEnq)
	queued := 0
	for _, pt := range s.ports {
		if !pt.node.isHost {
			queued += pt.q[DataPrio].n
		}
	}
	require.Equal(t, l.cpEnq-l.cpDeq, queued, "enqueues minus dequeues is what is still queued")
	require.GreaterOrEqual(t, l.minRTTSlack, units.Time(0), "no RTT below the base RTT")
	require.Equal(t, l.npData, int(r.Counters.DataRecvPackets))
}

func TestWindowLimitsInflight(t *testing.T) {
	registerProbes(t)
	*probeWin.log = probeLog{pathIDs: map[FlowID]uint16{}}
	sc := DefaultScenario()
	sc.Algorithm = "test-window"
	sc.Workload.Flows = []FlowSpec{{Src: "h1", Dst: "h0"}}
	sc.Duration = Time(200 * units.Microsecond)
	sc.MeasureFrom = Time(50 * units.Microsecond)
	r := runScenario(t, sc)
	// The NIC sends while inflight < window, so inflight never exceeds the
	// window by more than one packet.
	require.LessOrEqual(t, probeWin.log.maxInflight, 20*units.KB+testPayload)
	require.Greater(t, probeWin.log.maxInflight, 19*units.KB)
	// ACK-clocked with 20 packets in flight and no queue: 20 frames of
	// 1082 wire bytes per base RTT (4 hops of 1 µs, 1082 B out and 86 B
	// back at 100 Gb/s on both links: 4 µs + 2·86.56 ns + 2·6.88 ns).
	rtt := 4e-6 + 2*1082*8/100e9 + 2*86*8/100e9
	want := 20 * 1082 * 8 / rtt
	require.InEpsilon(t, want, r.Report.Flows[0].ThroughputBps, 0.01)
}

func TestRegistry(t *testing.T) {
	require.ErrorIs(t, Register(noneAlgo{}), ErrDuplicate)
	require.Error(t, Register(nil))
	require.Error(t, Register(&probeAlgo{name: "Has Space"}))
	_, err := Lookup("no-such-algorithm")
	require.ErrorIs(t, err, ErrUnknown)
	require.Contains(t, err.Error(), "none")
	require.Contains(t, err.Error(), "static")
	names := Names()
	require.IsNonDecreasing(t, names)
	require.Contains(t, names, "none")
	a, err := Lookup("static")
	require.NoError(t, err)
	require.Equal(t, "static", a.Name())
}

// failingAlgo returns errors from its factories.
type failingAlgo struct{ noneAlgo }

func (failingAlgo) Name() string { return "test-failing" }
func (failingAlgo) NewRP(FlowInfo) (RP, error) {
	return nil, errors.New("rp refused")
}

func TestFactoryErrorStopsRun(t *testing.T) {
	_ = Register(failingAlgo{})
	sc, err := Builtin("single-flow")
	require.NoError(t, err)
	require.NoError(t, sc.Set("algorithm", "test-failing"))
	_, err = Run(sc, Options{})
	require.ErrorContains(t, err, "rp refused")
}
