package cp

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/voq"
	"github.com/hwcc/hwcc/wire"
)

func hierccNewSender(t testing.TB) *hierccSender {
	s, err := newHierCCSender(hierccPaperSender(3, 16, hierccLine25, 1100))
	require.NoError(t, err)
	return s
}

// TestHierCCSenderBasics: a marked packet is answered with the VOQ's rate, a
// dequeue stamps F_ij and S_ij and spends credit, a credit adds to the
// balance and counts toward R_credit, the timer runs equation (1).
func TestHierCCSenderBasics(t *testing.T) {
	s := hierccNewSender(t)
	require.NoError(t, s.FlowStart(0, 5))
	require.NoError(t, s.FlowStart(0, 5))
	out := make([]wire.HierCCRatePacket, 0, s.MaxRatePackets())
	slot, out, err := s.Arrive(100, hierccArrival{Flow: 9, Dst: 5, Size: 1000, Mark: true}, out)
	require.NoError(t, err)
	require.Equal(t, []wire.HierCCRatePacket{{Flow: 9, Rate: 25_000_000, Dst: 5}}, out, "line rate at first")
	slot2, out, err := s.Arrive(200, hierccArrival{Flow: 9, Dst: 5, Size: 500}, out[:0])
	require.NoError(t, err)
	require.Equal(t, slot, slot2)
	require.Empty(t, out, "unmarked: no answer")

	next, ok := s.Next()
	require.True(t, ok)
	require.Equal(t, slot, next)
	h, out, err := s.Dequeue(300, slot, 1000, out)
	require.NoError(t, err)
	require.Empty(t, out)
	require.Equal(t, wire.HierCCHeader{ToR: 3, Dst: 5, Flows: 2, Sent: 1000}, h)
	h, _, err = s.Dequeue(400, slot, 500, out)
	require.NoError(t, err)
	require.Equal(t, uint32(1500), h.Sent)
	st, err := s.VOQs().State(slot)
	require.NoError(t, err)
	require.Equal(t, voq.PaperC0-1500, st.Credit)

	require.NoError(t, s.Credit(500, wire.HierCCCreditPacket{ToR: 3, Dst: 5, Amount: 1000, Total: 1000}))
	require.NoError(t, s.Credit(600, wire.HierCCCreditPacket{ToR: 3, Dst: 5, Amount: 1000, Total: 3000}))
	require.Equal(t, uint64(1000), s.CreditGap(), "total jumped one credit ahead: one lost")
	st, _ = s.VOQs().State(slot)
	require.Equal(t, voq.PaperC0+500, st.Credit)

	// The update at T = 10 µs: Q = 0 < q0 → line rate; the window's
	// counts are R_arrive = 1500 B/10 µs = 1.2 Gb/s, R_credit = 1.6 Gb/s.
	require.Equal(t, 10*units.Microsecond, s.NextDeadline())
	require.NoError(t, s.Timer(10*units.Microsecond))
	fh, ok := s.FirstHop(slot)
	require.True(t, ok)
	require.Equal(t, uint32(1_200_000), fh.RArrive)
	require.Equal(t, uint32(1_600_000), fh.RCredit)
	require.Equal(t, uint32(25_000_000), fh.Rate)
	require.Equal(t, 20*units.Microsecond, s.NextDeadline())
	require.NoError(t, s.FlowEnd(11*units.Microsecond, 5))
	regs := s.AppendSlotRegisters(nil, slot)
	require.NotEmpty(t, regs)
	for _, r := range append(regs, s.AppendRegisters(nil)...) {
		require.True(t, r.Fits(), r.Name)
	}
}

// TestHierCCSenderStopResume: past V_high every flow's next packet is answered
// with a stop, once; the dequeue that takes the VOQ below V_low sends each
// stopped flow the frozen rate.
func TestHierCCSenderStopResume(t *testing.T) {
	s := hierccNewSender(t)
	out := make([]wire.HierCCRatePacket, 0, s.MaxRatePackets())
	now := units.Time(0)
	var slot voq.Slot
	var err error
	// 71 packets of 1000 B from flow 1: the 71st takes it above 70 KB.
	for i := range 71 {
		now += 100
		slot, out, err = s.Arrive(now, hierccArrival{Flow: 1, Dst: 2, Size: 1000}, out[:0])
		require.NoError(t, err)
		if i < 70 {
			require.Empty(t, out)
		}
	}
	require.Equal(t, []wire.HierCCRatePacket{{Flow: 1, Stop: true, Dst: 2}}, out)
	require.Zero(t, s.Rate(slot))
	// Flow 1 again: already stopped, no answer; flow 2: stopped; a marked
	// packet of flow 1 is answered again.
	_, out, _ = s.Arrive(now+1, hierccArrival{Flow: 1, Dst: 2, Size: 1000}, out[:0])
	require.Empty(t, out)
	_, out, _ = s.Arrive(now+2, hierccArrival{Flow: 2, Dst: 2, Size: 1000}, out[:0])
	require.Equal(t, []wire.HierCCRatePacket{{Flow: 2, Stop: true, Dst: 2}}, out)
	_, out, _ = s.Arrive(now+3, hierccArrival{Flow: 1, Dst: 2, Size: 1000, Mark: true}, out[:0])
	require.Equal(t, []wire.HierCCRatePacket{{Flow: 1, Stop: true, Dst: 2}}, out)
	require.Equal(t, 2, s.StoppedFlows(slot))
	// Drain: 74 KB queued; credit to cover it; below 50 KB it resumes.
	for range 7 {
		require.NoError(t, s.Credit(now+4, wire.HierCCCreditPacket{ToR: 3, Dst: 2, Amount: 10_000}))
	}
	resumedAt := -1
	for i := range 74 {
		now += 100
		_, out, err = s.Dequeue(now, slot, 1000, out[:0])
		require.NoError(t, err)
		if len(out) > 0 {
			require.Equal(t, -1, resumedAt)
			resumedAt = i
			require.Equal(t, []wire.HierCCRatePacket{{Flow: 1, Rate: 25_000_000, Dst: 2}, {Flow: 2, Rate: 25_000_000, Dst: 2}}, out)
		}
	}
	require.Equal(t, 24, resumedAt, "74 KB − 25 packets = 49 KB < 50 KB")
	require.Equal(t, 0, s.StoppedFlows(slot))
	require.Equal(t, hierccLine25, s.Rate(slot))
}

// TestHierCCSenderStopOverflow: a flow that does not fit the stop table is not
// stopped (no answer), and counted.
func TestHierCCSenderStopOverflow(t *testing.T) {
	cfg := hierccPaperSender(0, 4, hierccLine25, 1000)
	cfg.StopFlows = 1
	s, err := newHierCCSender(cfg)
	require.NoError(t, err)
	var out []wire.HierCCRatePacket
	for i := range 71 {
		_, out, err = s.Arrive(units.Time(i), hierccArrival{Flow: 1, Dst: 0, Size: 1000}, out[:0])
		require.NoError(t, err)
	}
	require.Len(t, out, 1)
	_, out, err = s.Arrive(100, hierccArrival{Flow: 2, Dst: 0, Size: 1000, Mark: true}, out[:0])
	require.NoError(t, err)
	require.Empty(t, out)
	require.Equal(t, uint64(1), s.StopOverflow())
}

// TestHierCCSenderRefusals: every refused event returns a typed error and
// changes no register.
func TestHierCCSenderRefusals(t *testing.T) {
	s := hierccNewSender(t)
	require.NoError(t, s.FlowStart(1000, 1))
	snap := func() []cc.Register {
		r := s.AppendRegisters(nil)
		for i := range 16 {
			r = s.AppendSlotRegisters(r, voq.Slot(i))
		}
		return r
	}
	before := snap()
	out := []wire.HierCCRatePacket{{Flow: 77}}
	for name, call := range map[string]func() error{
		"arrive too big": func() error {
			_, o, err := s.Arrive(2000, hierccArrival{Dst: 2, Size: 1101, Mark: true}, out)
			require.Equal(t, out, o)
			return err
		},
		"arrive zero":      func() error { _, _, err := s.Arrive(2000, hierccArrival{Dst: 2, Size: 0}, out); return err },
		"arrive bad dst":   func() error { _, _, err := s.Arrive(2000, hierccArrival{Dst: 16, Size: 10}, out); return err },
		"arrive back":      func() error { _, _, err := s.Arrive(999, hierccArrival{Dst: 1, Size: 10}, out); return err },
		"dequeue empty":    func() error { _, _, err := s.Dequeue(2000, 0, 10, out); return err },
		"dequeue not open": func() error { _, _, err := s.Dequeue(2000, 9, 10, out); return err },
		"credit other ToR": func() error { return s.Credit(2000, wire.HierCCCreditPacket{ToR: 4, Dst: 1, Amount: 1}) },
		"credit no VOQ":    func() error { return s.Credit(2000, wire.HierCCCreditPacket{ToR: 3, Dst: 2, Amount: 1}) },
		"credit overflow":  func() error { return s.Credit(2000, wire.HierCCCreditPacket{ToR: 3, Dst: 1, Amount: 1 << 31}) },
		"flow end no VOQ":  func() error { return s.FlowEnd(2000, 7) },
		"flow end no flows": func() error {
			require.NoError(t, s.FlowEnd(1000, 1))
			defer s.FlowStart(1000, 1)
			return s.FlowEnd(2000, 1)
		},
		"flow start bad": func() error { return s.FlowStart(2000, 99) },
		"timer back":     func() error { return s.Timer(1) },
	} {
		err := call()
		require.Error(t, err, name)
		require.True(t, cc.Typed(err), name)
		require.Equal(t, before, snap(), name)
	}
}

// hierccHostModel is the host of one flow as rp.HierCC runs it (section
// 4), reduced to what the closed loop needs: it marks its first packet
// and then one at least every 10 µs, paces at the rate of the latest rate
// packet (the line rate before the first) and sends nothing while
// stopped.
type hierccHostModel struct {
	rate     units.Rate
	stopped  bool
	marked   bool
	lastMark units.Time
}

// mark reports whether a packet sent at now is marked, and records it.
func (h *hierccHostModel) mark(now units.Time) bool {
	if h.marked && now-h.lastMark < 10*units.Microsecond {
		return false
	}
	h.marked, h.lastMark = true, now
	return true
}

// apply takes rate packet r: a stop gates the flow, a rate paces it.
func (h *hierccHostModel) apply(r wire.HierCCRatePacket) {
	h.stopped = r.Stop
	if !r.Stop {
		h.rate = units.Rate(r.Rate) * wire.HierCCRateUnit
	}
}

// closedLoop is a model of H hosts of F flows each, all to one
// destination behind another ToR, obeying the rate packets: each host's
// link (rate L) serialises its flows' packets, each flow paced by its
// host (hierccHostModel: gated while stopped); packets reach the sender ToR dUp
// after they leave, rate packets reach the hosts dDown after the ToR
// sends them (RTT_hop = dUp + dDown); the sender ToR's uplink is 100 Gb/s;
// headers reach the receiver ToR, and credits come back, dFab later; the
// receiver's port to the destination runs at L. Time advances in steps
// of 80 ns (a 1000 B packet at 100 Gb/s).
type hierccClosedLoop struct {
	t          *testing.T
	s          *hierccSender
	r          *hierccReceiver
	hosts      [][]*hierccHostModel
	next       [][]units.Time // per flow: when its pacing allows the next packet
	linkFree   []units.Time
	rr         []int
	toToR      []hierccPending[hierccArrival]
	toHost     []hierccPending[wire.HierCCRatePacket]
	toRecv     []hierccPending[wire.HierCCHeader]
	toSend     []hierccPending[wire.HierCCCreditPacket]
	fifo       []units.Bytes // the VOQ's packets
	upFree     units.Time
	maxQ       units.Bytes
	delivered  units.Bytes
	maxCOverS  int64
	rates      []wire.HierCCRatePacket
	credits    []wire.HierCCCreditPacket
	size       units.Bytes
	L          units.Rate
	dUp, dDown units.Time
	dFab       units.Time
}

type hierccPending[T any] struct {
	at units.Time
	v  T
}

func (m *hierccClosedLoop) step(now units.Time) {
	t := m.t
	// Hosts send.
	for h := range m.hosts {
		if m.linkFree[h] > now {
			continue
		}
		for k := range m.hosts[h] {
			f := (m.rr[h] + k) % len(m.hosts[h])
			host := m.hosts[h][f]
			if host.stopped || m.next[h][f] > now {
				continue
			}
			mark := host.mark(now)
			ser := units.SerializationTime(m.size, m.L)
			m.linkFree[h] = now + ser
			m.next[h][f] = now + units.SerializationTime(m.size, host.rate)
			m.rr[h] = f + 1
			flow := cc.FlowID(h*100 + f)
			m.toToR = append(m.toToR, hierccPending[hierccArrival]{now + ser + m.dUp, hierccArrival{Flow: flow, Dst: 0, Size: m.size, Mark: mark}})
			break
		}
	}
	// Packets reach the ToR.
	for len(m.toToR) > 0 && m.toToR[0].at <= now {
		var err error
		_, m.rates, err = m.s.Arrive(now, m.toToR[0].v, m.rates[:0])
		require.NoError(t, err)
		m.fifo = append(m.fifo, m.toToR[0].v.Size)
		for _, r := range m.rates {
			m.toHost = append(m.toHost, hierccPending[wire.HierCCRatePacket]{now + m.dDown, r})
		}
		m.toToR = m.toToR[1:]
	}
	st, _ := m.s.VOQs().State(0)
	m.maxQ = max(m.maxQ, st.Queued)
	// Rate packets reach the hosts.
	for len(m.toHost) > 0 && m.toHost[0].at <= now {
		r := m.toHost[0].v
		require.NoError(t, r.Validate())
		h, fl := int(r.Flow)/100, int(r.Flow)%100
		m.hosts[h][fl].apply(r)
		m.toHost = m.toHost[1:]
	}
	// The uplink serves the VOQ.
	if slot, ok := m.s.Next(); ok && m.upFree <= now {
		var h wire.HierCCHeader
		var err error
		h, m.rates, err = m.s.Dequeue(now, slot, m.fifo[0], m.rates[:0])
		require.NoError(t, err)
		for _, r := range m.rates {
			m.toHost = append(m.toHost, hierccPending[wire.HierCCRatePacket]{now + m.dDown, r})
		}
		m.upFree = now + units.SerializationTime(m.fifo[0], 100*units.Gbps)
		m.fifo = m.fifo[1:]
		m.toRecv = append(m.toRecv, hierccPending[wire.HierCCHeader]{now + m.dFab, h})
	}
	// The receiver's credits due by now go before the headers arriving now
	// (as cp.HierCC runs them), then the headers, then any tick they woke.
	for range 2 {
		if m.r.NextDeadline() <= now {
			var err error
			m.credits, err = m.r.Timer(now, m.credits[:0])
			require.NoError(t, err)
			for _, c := range m.credits {
				m.toSend = append(m.toSend, hierccPending[wire.HierCCCreditPacket]{now + m.dFab, c})
			}
		}
		for len(m.toRecv) > 0 && m.toRecv[0].at <= now {
			_, err := m.r.Arrive(now, 0, m.toRecv[0].v)
			require.NoError(t, err)
			m.delivered += m.size
			m.toRecv = m.toRecv[1:]
		}
	}
	if e, ok := m.r.Entry(0, 3); ok {
		// C − S in serial order, bytes: never above Δ − 1.
		m.maxCOverS = max(m.maxCOverS, int64(int32(e.C-e.S)))
	}
	for len(m.toSend) > 0 && m.toSend[0].at <= now {
		require.NoError(t, m.s.Credit(now, m.toSend[0].v))
		m.toSend = m.toSend[1:]
	}
	if m.s.NextDeadline() <= now {
		require.NoError(t, m.s.Timer(now))
	}
}

// runLoop runs the closed loop of H hosts × F flows at 25 Gb/s into one
// 25 Gb/s destination (offered 8× its rate) for 2 ms.
func hierccRunLoop(t *testing.T, H, F int, dFab units.Time) (*hierccClosedLoop, units.Time) {
	s, err := newHierCCSender(hierccPaperSender(3, 4, hierccLine25, 1000))
	require.NoError(t, err)
	r, err := newHierCCReceiver(hierccPaperReceiver(1, 8, hierccLine25))
	require.NoError(t, err)
	m := &hierccClosedLoop{t: t, s: s, r: r, size: 1000, L: hierccLine25, dUp: units.Microsecond, dDown: units.Microsecond, dFab: dFab,
		linkFree: make([]units.Time, H), rr: make([]int, H)}
	for h := range H {
		m.hosts = append(m.hosts, nil)
		m.next = append(m.next, make([]units.Time, F))
		for range F {
			m.hosts[h] = append(m.hosts[h], &hierccHostModel{rate: hierccLine25})
			require.NoError(t, s.FlowStart(0, 0))
		}
	}
	end := 2 * units.Millisecond
	for now := units.Time(0); now < end; now += hierccLoopStep {
		m.step(now)
	}
	return m, end
}

const hierccLoopStep = 80 * units.Nanosecond

// TestHierCCSenderVOQBound: in the closed loop of 8 hosts × 2 flows, the VOQ
// never holds more than V_high + H·L·RTT_hop + (n + H)·MTU (SenderToR,
// "Bound"; n = 16 flows) plus what the model's 80 ns steps add (each
// host's packets and stops wait up to a step at each end: H·L·2·step =
// 4 KB); the receiver's C_ij never passes S_ij + Δ − 1; and with a 1 µs
// fabric (the credit window C0 + Δ covers the ToR-to-ToR round trip) the
// destination's port is mostly busy. Measured: 17.8 Gb/s of 25 (71 %).
// The loss is the first hop's dynamics, not the credits: with β = 0.2 and
// RTT_hop = 2 µs the drain term corrects the whole excess in one period,
// so Q above q0 + R_credit·T (51 KB) gives MinRate and Q below q0 gives
// line rate; the hosts hear the rate only at their marks (every 10 µs) a
// period late, and the VOQ swings between stop and empty (stopped 57 %
// of the time, empty 29 %). The floor is set below the measurement so
// that a change of the model shows.
func TestHierCCSenderVOQBound(t *testing.T) {
	const H, F = 8, 2
	m, end := hierccRunLoop(t, H, F, units.Microsecond)
	rtt := m.dUp + m.dDown
	bound := HierCCPaperVHigh + H*units.BytesIn(hierccLine25, rtt+2*hierccLoopStep) + (H*F+H)*1000
	gbps := float64(m.delivered) * 8 / end.Seconds() / 1e9
	t.Logf("VOQ max %v (V_high %v, bound %v); delivered %.1f Gb/s of 25; C − S max %d B; rate packets %d",
		m.maxQ, HierCCPaperVHigh, bound, gbps, m.maxCOverS, m.s.RatePackets())
	require.LessOrEqual(t, m.maxQ, bound)
	require.Less(t, m.maxCOverS, int64(1000), "C_ij ≤ S_ij + Δ − 1")
	require.Greater(t, gbps, 0.65*25)
	require.Zero(t, m.s.StopOverflow())
}

// TestHierCCSenderCreditWindow: the receiver credits only bytes sent (C_ij <
// S_ij), so a VOQ has at most C0 + Δ bytes unreturned: its rate is at most
// (C0 + Δ)/RTT between the ToRs. With the paper's 4 µs between ToRs
// (section 2.2: four 1 µs links), 11 KB per 8 µs is 11 Gb/s, under the
// destination's 25 Gb/s. The bound on the VOQ holds all the same.
func TestHierCCSenderCreditWindow(t *testing.T) {
	m, end := hierccRunLoop(t, 8, 2, 4*units.Microsecond)
	gbps := float64(m.delivered) * 8 / end.Seconds() / 1e9
	t.Logf("4 µs fabric: delivered %.1f Gb/s, VOQ max %v", gbps, m.maxQ)
	require.LessOrEqual(t, gbps, float64(voq.PaperC0+voq.PaperDelta)*8/(8e-6)/1e9)
	require.LessOrEqual(t, m.maxQ, HierCCPaperVHigh+8*units.BytesIn(hierccLine25, 2*units.Microsecond+2*hierccLoopStep)+24*1000)
}
