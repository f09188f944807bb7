package harness

import (
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	_ "github.com/hwcc/hwcc/algos" // the baselines none and static, which most scenarios here run
	"github.com/hwcc/hwcc/cc"
	inttel "github.com/hwcc/hwcc/int"
	"github.com/hwcc/hwcc/units"
)

// testSpec is the configuration of a test part: one preset and no
// settings; mk builds the part for the environment it runs in.
func testSpec(mk func(env cc.Env) (cc.Part, error)) *cc.Spec[cc.Env] {
	return &cc.Spec[cc.Env]{
		Presets: []cc.Preset[cc.Env]{{Name: "only", Config: func(e cc.Env) cc.Env { return e }}},
		New:     mk,
	}
}

// probeLog collects what a probe algorithm's parts observed. Counters only:
// the probe must not allocate per event (the allocation test uses it).
type probeLog struct {
	cpEnq, cpDeq, cpTimers int
	feedback, badFrom      int
	cnps                   int
	acks, ece, naks        int
	intAcks                int
	maxHops                [16]int // ACKs by INT nHop
	pathIDs                map[cc.FlowID]uint16
	badSpeed               int
	maxQLen                uint16
	rttSamples             int
	minRTTSlack            units.Time // min over RTT samples of RTT − the base RTT the RP was told
	maxInflight            units.Bytes
	rpTimers               int
	pauseOn, pauseOff      int
	npData, npMarked       int
}

// reset empties the log before a run.
func (l *probeLog) reset() { *l = probeLog{pathIDs: map[cc.FlowID]uint16{}} }

// The probe algorithms exercise every event: the CP feeds back to the last
// flow it saw every 5 µs while its queue is not empty (and pushes an INT
// record when the frame carries a stack), the RP counts everything and
// keeps an optional window, the NP answers every CE mark with a CNP, the
// switch point follows PFC. test-probe runs them with the switches' ECN
// marker and HPCC's INT stack, test-window with a 20 KB window.
var (
	probeOnce sync.Once
	probeINT  = &probeLog{}
	probeWin  = &probeLog{}
)

type probeCP struct {
	log   *probeLog
	next  units.Time
	last  cc.FlowID
	seen  bool          // a data frame joined: last names its flow
	qlen  units.Bytes   // the queue at the latest Enqueue or Dequeue, what Timer reads
	codec *inttel.Codec // nil: the CP pushes no INT record
	swID  uint16
}

func (c *probeCP) Enqueue(_ units.Time, p *cc.Packet, q cc.Queue, _ *cc.Actions) error {
	c.log.cpEnq++
	c.last, c.seen, c.qlen = p.Flow, true, q.Len
	return nil
}

func (c *probeCP) Dequeue(now units.Time, p *cc.Packet, q cc.Queue, _ *cc.Actions) error {
	c.log.cpDeq++
	c.qlen = q.Len
	if c.codec != nil && p.Tel != nil {
		// A full stack (ErrPathFull) goes on with the records it has.
		_, _ = c.codec.Push(now, p.Tel, inttel.Port{SwitchID: c.swID, Rate: q.Rate, TxBytes: units.Bytes(q.TxBytes), QLen: q.Len})
	}
	return nil
}

func (c *probeCP) NextDeadline() units.Time { return c.next }

func (c *probeCP) Timer(now units.Time, act *cc.Actions) error {
	if now < c.next {
		return nil
	}
	if err := act.Reserve("probe cp", "Timer", 1); err != nil {
		return err
	}
	c.log.cpTimers++
	c.next = now + 5*units.Microsecond
	if c.qlen > 0 && c.seen {
		fb := cc.Feedback{Kind: cc.FeedbackRate, Flow: c.last}
		fb.Data[0] = 0xA5
		act.Send(cc.ToSource, cc.ControlPrio, fb)
	}
	return nil
}

func (c *probeCP) AppendRegisters(dst []cc.Register) []cc.Register {
	return append(dst, cc.TimeReg("next", c.next), cc.BytesReg("qlen", c.qlen))
}

// sendTimes is a FIFO of the new data frames a probe RP sent: each one's
// end (its last payload byte + 1) and send time, for RTT samples. Its
// storage is allocated once; when full it forgets the oldest frame.
type sendTimes struct {
	end     []uint64
	at      []units.Time
	head, n int
}

func newSendTimes(n int) sendTimes {
	return sendTimes{end: make([]uint64, n), at: make([]units.Time, n)}
}

func (s *sendTimes) push(end uint64, at units.Time) {
	if s.n == len(s.end) {
		s.head = (s.head + 1) % len(s.end)
		s.n--
	}
	i := (s.head + s.n) % len(s.end)
	s.end[i], s.at[i] = end, at
	s.n++
}

// ack forgets every frame a cumulative ACK of seq covers and returns the
// send time of the frame that ends at seq, the one whose arrival sent it.
func (s *sendTimes) ack(seq uint64) (at units.Time, ok bool) {
	for s.n > 0 && s.end[s.head] <= seq {
		if s.end[s.head] == seq {
			at, ok = s.at[s.head], true
		}
		s.head = (s.head + 1) % len(s.end)
		s.n--
	}
	return at, ok
}

type probeRP struct {
	log     *probeLog
	codec   *inttel.Codec
	limits  cc.Limits
	baseRTT units.Time
	next    units.Time
	sent    uint64 // highest byte sent + 1
	una     uint64
	times   sendTimes
	hdr     inttel.Header // the INT header an ACK echoes, decoded
}

func (r *probeRP) Limits() cc.Limits { return r.limits }

func (r *probeRP) Sent(now units.Time, p *cc.Packet, _ *cc.Actions) error {
	if end := p.Seq + uint64(p.Payload); end > r.sent {
		r.sent = end
		r.times.push(end, now)
	}
	if in := units.Bytes(r.sent - r.una); in > r.log.maxInflight {
		r.log.maxInflight = in
	}
	return nil
}

func (r *probeRP) Feedback(now units.Time, f *cc.Feedback, _ *cc.Actions) error {
	l := r.log
	switch f.Kind {
	case cc.FeedbackAck, cc.FeedbackNak:
		l.acks++
		if f.Seq > r.una {
			r.una = f.Seq
		}
		if f.ECE {
			l.ece++
		}
		if f.Kind == cc.FeedbackNak {
			l.naks++
		} else if at, ok := r.times.ack(f.Seq); ok {
			if slack := now - at - r.baseRTT; l.rttSamples == 0 || slack < l.minRTTSlack {
				l.minRTTSlack = slack
			}
			l.rttSamples++
		}
		if f.Tel != nil && r.codec.Get(f.Tel, &r.hdr) == nil {
			l.intAcks++
			l.maxHops[r.hdr.NHop]++
			l.pathIDs[f.Flow] = r.hdr.PathID
			for _, h := range r.hdr.Path() {
				if rate, ok := r.codec.Rate(h.Speed); !ok || rate != 100*units.Gbps {
					l.badSpeed++
				}
				l.maxQLen = max(l.maxQLen, h.QLen)
			}
		}
	case cc.FeedbackCNP:
		l.cnps++
	case cc.FeedbackRate:
		l.feedback++
		if f.Data[0] != 0xA5 {
			l.badFrom++
		}
	}
	return nil
}

func (r *probeRP) NextDeadline() units.Time { return r.next }

func (r *probeRP) Timer(now units.Time, _ *cc.Actions) error {
	if now < r.next {
		return nil
	}
	r.log.rpTimers++
	r.next = now + 20*units.Microsecond
	return nil
}

func (r *probeRP) AppendRegisters(dst []cc.Register) []cc.Register {
	return append(dst, cc.TimeReg("next", r.next), cc.Reg("sent", 64, r.sent), cc.Reg("una", 64, r.una))
}

type probeNP struct{ log *probeLog }

func (n *probeNP) Receive(_ units.Time, p *cc.Packet, act *cc.Actions) error {
	if p.CE {
		if err := act.Reserve("probe np", "Receive", 1); err != nil {
			return err
		}
		n.log.npMarked++
		act.Send(cc.ToSource, cc.ControlPrio, cc.Feedback{Kind: cc.FeedbackCNP, Flow: p.Flow})
	}
	n.log.npData++
	return nil
}

func (n *probeNP) Feedback(units.Time, *cc.Feedback, *cc.Actions) error { return nil }
func (n *probeNP) NextDeadline() units.Time                             { return units.MaxTime }
func (n *probeNP) Timer(units.Time, *cc.Actions) error                  { return nil }
func (n *probeNP) AppendRegisters(dst []cc.Register) []cc.Register      { return dst }

// probeSW follows the PFC state of its switch's egress ports from the Pause
// events, and checks it against the queue state of every frame that joins
// or leaves a queue.
type probeSW struct {
	log    *probeLog
	paused [][8]bool // by egress port and priority
}

func (w *probeSW) check(out int, p *cc.Packet, q cc.Queue) {
	if w.paused[out][p.Prio&7] != q.Paused {
		w.log.badFrom++
	}
}

func (w *probeSW) Arrive(units.Time, int, *cc.Packet, *cc.Actions) error { return nil }
func (w *probeSW) Enqueue(_ units.Time, out int, p *cc.Packet, q cc.Queue, _ *cc.Actions) error {
	w.check(out, p, q)
	return nil
}
func (w *probeSW) Dequeue(_ units.Time, out int, p *cc.Packet, q cc.Queue, _ *cc.Actions) error {
	w.check(out, p, q)
	return nil
}
func (w *probeSW) Pause(_ units.Time, out int, prio uint8, paused bool, _ *cc.Actions) error {
	if w.paused[out][prio&7] == paused {
		w.log.badFrom++ // a PFC frame that changes nothing is not an event
	}
	w.paused[out][prio&7] = paused
	if paused {
		w.log.pauseOn++
	} else {
		w.log.pauseOff++
	}
	return nil
}
func (w *probeSW) Message(units.Time, int, *cc.Feedback, *cc.Actions) error { return nil }
func (w *probeSW) NextDeadline() units.Time                                 { return units.MaxTime }
func (w *probeSW) Timer(units.Time, *cc.Actions) error                      { return nil }
func (w *probeSW) AppendRegisters(dst []cc.Register) []cc.Register          { return dst }

// probeAlgorithm is a probe algorithm logging to log: with INT when codec
// is set (the CP pushes records, the RP decodes them), an RP window of
// window bytes (0: none).
func probeAlgorithm(name string, log *probeLog, codec *inttel.Codec, window units.Bytes, d cc.Deployment) cc.Algorithm {
	return cc.Algorithm{
		Name: name, Title: name, Paper: "none", Doc: "counts every event of every role",
		Parts: []cc.PartSpec{
			{Name: "cp", Role: cc.RoleCP, Doc: "feeds back every 5 µs", Config: testSpec(func(e cc.Env) (cc.Part, error) {
				return &probeCP{log: log, next: 5 * units.Microsecond, codec: codec, swID: e.SwitchID}, nil
			})},
			{Name: "rp", Role: cc.RoleRP, Doc: "counts", Config: testSpec(func(e cc.Env) (cc.Part, error) {
				return &probeRP{log: log, codec: codec, limits: cc.Limits{Rate: e.Rate, Window: window}, baseRTT: e.BaseRTT,
					next: 20 * units.Microsecond, times: newSendTimes(1 << 16)}, nil
			})},
			{Name: "np", Role: cc.RoleNP, Doc: "a CNP per CE mark", Config: testSpec(func(cc.Env) (cc.Part, error) {
				return &probeNP{log: log}, nil
			})},
			{Name: "sw", Role: cc.RoleSW, Doc: "follows PFC", Config: testSpec(func(e cc.Env) (cc.Part, error) {
				return &probeSW{log: log, paused: make([][8]bool, e.Ports)}, nil
			})},
		},
		Deploy: d,
	}
}

// registerProbes registers the probe algorithms once per test binary.
func registerProbes(t testing.TB) {
	probeOnce.Do(func() {
		c, err := inttel.NewCodec(inttel.DefaultConfig())
		require.NoError(t, err)
		cc.MustRegisterAlgorithm(probeAlgorithm("test-probe", probeINT, c, 0,
			cc.Deployment{ECN: true, Telemetry: cc.TelemetryFormat{Init: inttel.PrefixLen, Hop: inttel.HopLen}}))
		cc.MustRegisterAlgorithm(probeAlgorithm("test-window", probeWin, nil, 20*units.KB, cc.Deployment{}))
	})
}

func TestAlgorithmHooksINTFeedbackCNP(t *testing.T) {
	registerProbes(t)
	probeINT.reset()
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
	require.Nil(t, r.Report.Errors)
	l := probeINT

	// INT: one record per switch on the path, echoed in every ACK and
	// decoded by the sender; the path ID is the XOR of the switch IDs.
	require.Positive(t, l.acks)
	require.Equal(t, l.acks, l.intAcks)
	require.Zero(t, l.maxHops[0]+l.maxHops[1]+l.maxHops[4])
	require.Positive(t, l.maxHops[3])
	require.Positive(t, l.maxHops[2])
	id := func(name string) uint16 { return s.byName[name].swID }
	require.Equal(t, id("s0")^id("s1")^id("s2"), l.pathIDs[0])
	require.Equal(t, id("s1")^id("s2"), l.pathIDs[1])
	require.Zero(t, l.badSpeed)
	require.Positive(t, l.maxQLen, "the shared egress queues, so some record shows a queue")
	require.Zero(t, r.Counters.INTPathFull)

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

	// PFC transitions reach the switch points of the paused switch
	// egresses, and agree with the queue state their frames see.
	var swPauses int64
	for _, p := range r.Ports {
		if p.IsSwitch {
			swPauses += p.Pauses
		}
	}
	require.Positive(t, swPauses)
	require.Equal(t, swPauses, int64(l.pauseOn))
	require.LessOrEqual(t, l.pauseOn-l.pauseOff, 4)

	// Timers, events, RTT samples.
	require.Positive(t, l.rpTimers)
	require.Positive(t, l.cpEnq)
	queued := 0
	for _, pt := range s.ports {
		if !pt.node.isHost {
			queued += pt.q[DataPrio].n
		}
	}
	require.Equal(t, l.cpEnq-l.cpDeq, queued, "enqueues minus dequeues is what is still queued")
	require.Positive(t, l.rttSamples)
	require.GreaterOrEqual(t, l.minRTTSlack, units.Time(0), "no RTT below the base RTT the RP is told")
	require.Equal(t, l.npData, int(r.Counters.DataRecvPackets))
}

func TestWindowLimitsInflight(t *testing.T) {
	registerProbes(t)
	probeWin.reset()
	sc := DefaultScenario()
	sc.Algorithm = "test-window"
	sc.Workload.Flows = []FlowSpec{{Src: "h1", Dst: "h0"}}
	sc.Duration = Time(200 * units.Microsecond)
	sc.MeasureFrom = Time(50 * units.Microsecond)
	r := runScenario(t, sc)
	// The NIC sends while inflight < window, so inflight never exceeds the
	// window by more than one packet.
	require.LessOrEqual(t, probeWin.maxInflight, 20*units.KB+testPayload)
	require.Greater(t, probeWin.maxInflight, 19*units.KB)
	// ACK-clocked with 20 packets in flight and no queue: 20 frames of
	// 1082 wire bytes per base RTT (4 hops of 1 µs, 1082 B out and 86 B
	// back at 100 Gb/s on both links: 4 µs + 2·86.56 ns + 2·6.88 ns).
	rtt := 4e-6 + 2*1082*8/100e9 + 2*86*8/100e9
	want := 20 * 1082 * 8 / rtt
	require.InEpsilon(t, want, r.Report.Flows[0].ThroughputBps, 0.01)
}

var failingOnce sync.Once

// TestFactoryErrorStopsRun: a part that cannot be built stops the run with
// its error.
func TestFactoryErrorStopsRun(t *testing.T) {
	failingOnce.Do(func() {
		cc.MustRegisterAlgorithm(cc.Algorithm{
			Name: "test-failing", Title: "failing", Paper: "none", Doc: "a reaction point that cannot be built",
			Parts: []cc.PartSpec{{Name: "rp", Role: cc.RoleRP, Doc: "refuses", Config: testSpec(func(cc.Env) (cc.Part, error) {
				return nil, errors.New("rp refused")
			})}},
		})
	})
	sc, err := Builtin("single-flow")
	require.NoError(t, err)
	require.NoError(t, sc.Set("algorithm", "test-failing"))
	_, err = Run(sc, Options{})
	require.ErrorContains(t, err, "rp refused")
}
