package cp

import (
	"encoding/binary"
	"math/rand"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/voq"
	"github.com/hwcc/hwcc/wire"
)

// A rack of the tests: ToR torA (ID 1) with servers 10 and 11 on ports 0
// and 1 and uplinks on ports 2 and 3; ToR torB (ID 2) likewise with
// servers 20 and 21. The tests route by port 2.
const (
	hierccToRA, hierccToRB = 1, 2
	hierccUpPort           = 2
	hierccFrame            = units.Bytes(1082)
)

func hierccNewToR(t testing.TB, id uint16, hosts ...voq.Key) *HierCC {
	ports := []HierCCPort{{Edge: true, Host: hosts[0]}, {Edge: true, Host: hosts[1]}, {}, {}}
	tor, err := NewHierCC(HierCCPaper(id, ports, 64, 8, hierccLine25, 9236))
	require.NoError(t, err)
	return tor
}

// data is a packet as its host sends it: flags in the host's header.
func hierccData(flow cc.FlowID, src, dst cc.NodeID, f wire.HierCCFlags) *cc.Packet {
	return &cc.Packet{Flow: flow, Src: src, Dst: dst, Payload: 1000, Size: hierccFrame, Prio: 3, Hdr: wire.HierCCHostHeader(f)}
}

// actionsOf returns the actions of kind k.
func hierccActionsOf(act *cc.Actions, k cc.ActionKind) []cc.Action {
	var out []cc.Action
	for _, a := range act.All() {
		if a.Kind == k {
			out = append(out, a)
		}
	}
	return out
}

// TestHierCCLoop: one inter-rack flow through two ToRs, event by event, with
// every message checked against the paper's mechanism (sections 3.1–3.3):
// the VOQ's first packet grants C0 and is answered with the line rate;
// its header carries this ToR, the destination, F_ij = 1 and S_ij; the
// receiver side credits Δ = 1 KB to ToR A's VOQ once it has seen S_ij
// beyond C_ij = S_ij − C0 (credit.WRR's start); the credit comes back as
// an ActionCredit of Δ at the uplink the VOQ leaves by; the last packet
// ends the flow (F_ij back to 0).
func TestHierCCLoop(t *testing.T) {
	a, b := hierccNewToR(t, hierccToRA, 10, 11), hierccNewToR(t, hierccToRB, 20, 21)
	act := cc.NewActions(256)
	us := units.Microsecond

	// Server 10 → server 20: first packet (marked, first).
	p := hierccData(7, 10, 20, wire.HierCCFlagMark|wire.HierCCFlagFirst)
	require.NoError(t, a.Enqueue(us, hierccUpPort, p, cc.Queue{}, act))
	cr := hierccActionsOf(act, cc.ActionCredit)
	require.Len(t, cr, 1)
	require.Equal(t, cc.Action{Kind: cc.ActionCredit, Port: hierccUpPort, Node: 20, Bytes: voq.PaperC0}, cr[0], "C0 granted when the VOQ opens")
	fb := hierccActionsOf(act, cc.ActionFeedback)
	require.Len(t, fb, 1)
	require.Equal(t, cc.ToSource, fb[0].To)
	rp, err := wire.DecodeHierCCRatePacket(fb[0].Feedback.Data[:])
	require.NoError(t, err)
	require.Equal(t, wire.HierCCRatePacket{Flow: 7, Rate: uint32(hierccLine25 / wire.HierCCRateUnit), Dst: 20}, rp, "a marked packet is answered with R = R_line at first")

	act.Reset()
	require.NoError(t, a.Dequeue(2*us, hierccUpPort, p, cc.Queue{}, act))
	h, err := wire.DecodeHierCCHeader(p.Hdr[:])
	require.NoError(t, err)
	require.Equal(t, wire.HierCCHeader{Mark: true, ToR: hierccToRA, Dst: 20, Flows: 1, Sent: uint32(hierccFrame)}, h)

	// At ToR B the packet joins the port of server 20.
	act.Reset()
	require.NoError(t, b.Enqueue(3*us, 0, p, cc.Queue{}, act))
	e, ok := b.r.Entry(0, hierccToRA)
	require.True(t, ok)
	require.Equal(t, uint32(hierccFrame), e.S)
	require.Equal(t, uint16(1), e.F)
	// The port wakes: its credit is due at once, so the Enqueue sends it
	// itself, and the next tick is an interval (320 ns) later.
	require.Equal(t, 3*us+320*units.Nanosecond, b.NextDeadline())
	fb = hierccActionsOf(act, cc.ActionFeedback)
	require.Len(t, fb, 1, "one credit: C_ij = 0 < S_ij = 1082, then 1000 < 1082, then 2000 ≥ 1082 — one Δ per tick")
	require.Equal(t, cc.ToSwitch, fb[0].To)
	require.Equal(t, uint16(hierccToRA), fb[0].Switch)
	c, err := wire.DecodeHierCCCreditPacket(fb[0].Feedback.Data[:])
	require.NoError(t, err)
	require.Equal(t, wire.HierCCCreditPacket{ToR: hierccToRA, Dst: 20, Amount: 1000, Total: 1000}, c)

	// Back at ToR A: the credit becomes an ActionCredit at the uplink.
	act.Reset()
	require.NoError(t, a.Message(6*us, hierccUpPort, &fb[0].Feedback, act))
	require.Equal(t, []cc.Action{{Kind: cc.ActionCredit, Port: hierccUpPort, Node: 20, Bytes: 1000}}, act.All())
	sl, _ := a.s.Lookup(20)
	st, _ := a.s.VOQs().State(sl)
	require.Equal(t, voq.PaperC0+1000-hierccFrame, st.Credit, "C0 + Δ − the frame sent")

	// The last packet ends the flow.
	last := hierccData(7, 10, 20, wire.HierCCFlagLast)
	act.Reset()
	require.NoError(t, a.Enqueue(7*us, hierccUpPort, last, cc.Queue{}, act))
	require.Empty(t, hierccActionsOf(act, cc.ActionCredit), "no C0 for a VOQ already open")
	require.NoError(t, a.Dequeue(8*us, hierccUpPort, last, cc.Queue{}, act))
	h, _ = wire.DecodeHierCCHeader(last.Hdr[:])
	require.Equal(t, uint16(1), h.Flows, "the last packet still counts its flow")
	st, _ = a.s.VOQs().State(sl)
	require.Zero(t, st.Flows, "F_ij back to 0 after the last packet")
}

// TestHierCCLocalVOQ: a flow between two servers of one rack goes through
// VOQ i.j too (section 3.1: ToR 1 has VOQ1.1–VOQ1.8, its own servers'
// included), leaves by the destination's edge port, and is credited by
// the same ToR's receiver side with no credit packet: an ActionCredit at
// that edge port.
func TestHierCCLocalVOQ(t *testing.T) {
	a := hierccNewToR(t, hierccToRA, 10, 11)
	act := cc.NewActions(256)
	us := units.Microsecond
	p := hierccData(3, 10, 11, wire.HierCCFlagFirst)
	require.NoError(t, a.Enqueue(us, 1, p, cc.Queue{}, act))
	require.Equal(t, []cc.Action{{Kind: cc.ActionCredit, Port: 1, Node: 11, Bytes: voq.PaperC0}}, act.All())
	act.Reset()
	require.NoError(t, a.Dequeue(2*us, 1, p, cc.Queue{}, act))
	e, ok := a.r.Entry(1, hierccToRA)
	require.True(t, ok, "the receiver side of port 1 took the header at once")
	require.Equal(t, uint32(hierccFrame), e.S)
	// The header woke port 1: its credit is due at once, and the Dequeue
	// grants it itself, after its own decisions.
	require.Equal(t, []cc.Action{{Kind: cc.ActionCredit, Port: 1, Node: 11, Bytes: 1000}}, act.All(), "its own credit, no packet")
	require.Zero(t, a.CreditsRefused())
}

// TestHierCCRefusals: each refused event changes no register and decides
// nothing.
func TestHierCCRefusals(t *testing.T) {
	a := hierccNewToR(t, hierccToRA, 10, 11)
	act := cc.NewActions(256)
	us := units.Microsecond
	require.NoError(t, a.Enqueue(us, hierccUpPort, hierccData(1, 10, 20, 0), cc.Queue{}, act))
	badHdr := hierccData(2, 20, 10, 0)
	badHdr.Hdr[0] = wire.HierCCVersion
	badHdr.Hdr[1] = 0x80 // a reserved flag
	other := hierccData(4, 30, 10, 0)
	require.NoError(t, wire.HierCCHeader{ToR: hierccToRB, Dst: 11, Sent: 1}.Put(&other.Hdr))
	badFlags := hierccData(1, 10, 20, wire.HierCCFlagMark)
	badFlags.Hdr[1] |= 0x08 // a reserved flag of the host's header
	badHost := hierccData(2, 20, 10, wire.HierCCFlagFirst)
	badHost.Hdr[9] = 1 // a reserved byte of the host's header
	for _, c := range []struct {
		name string
		ev   func() error
		is   error
	}{
		{"a VOQ split over two ports", func() error { return a.Enqueue(2*us, 3, hierccData(1, 10, 20, 0), cc.Queue{}, act) }, ErrHierCCSplitVOQ},
		{"a local packet to the wrong server port", func() error { return a.Enqueue(2*us, 0, hierccData(1, 10, 11, 0), cc.Queue{}, act) }, ErrHierCCPort},
		{"a malformed header", func() error { return a.Enqueue(2*us, 0, badHdr, cc.Queue{}, act) }, ErrHierCCHeader},
		{"a malformed host header toward a server", func() error { return a.Enqueue(2*us, 0, badHost, cc.Queue{}, act) }, ErrHierCCHeader},
		{"a malformed host header from a server", func() error { return a.Enqueue(2*us, hierccUpPort, badFlags, cc.Queue{}, act) }, ErrHierCCHeader},
		{"a malformed host header leaving", func() error { return a.Dequeue(2*us, hierccUpPort, badFlags, cc.Queue{}, act) }, ErrHierCCHeader},
		{"a header for another server", func() error { return a.Enqueue(2*us, 0, other, cc.Queue{}, act) }, ErrHierCCPort},
		{"a port out of range", func() error { return a.Dequeue(2*us, 4, hierccData(1, 10, 20, 0), cc.Queue{}, act) }, ErrHierCCPort},
		{"time going back", func() error { return a.Timer(0, act) }, cc.ErrTimeOrder},
		{"a credit for another ToR", func() error {
			f, _ := wire.HierCCCreditPacket{ToR: hierccToRB, Dst: 20, Amount: 1000}.Feedback()
			return a.Message(2*us, hierccUpPort, &f, act)
		}, ErrHierCCWrongToR},
		{"a credit for a VOQ not open", func() error {
			f, _ := wire.HierCCCreditPacket{ToR: hierccToRA, Dst: 21, Amount: 1000}.Feedback()
			return a.Message(2*us, hierccUpPort, &f, act)
		}, ErrHierCCNoVOQ},
	} {
		act.Reset()
		before := a.AppendRegisters(nil)
		err := c.ev()
		require.ErrorIs(t, err, c.is, c.name)
		require.True(t, cc.Typed(err), c.name)
		require.Equal(t, before, a.AppendRegisters(nil), "%s changed a register", c.name)
		require.Zero(t, act.Len(), c.name)
	}
	// A switch with no server port is no ToR: it takes everything and
	// decides nothing, but refuses a credit packet.
	agg, err := NewHierCC(HierCCPaper(5, make([]HierCCPort, 4), 64, 8, hierccLine25, 9236))
	require.NoError(t, err)
	require.NoError(t, agg.Enqueue(us, 1, hierccData(1, 10, 20, wire.HierCCFlagMark), cc.Queue{}, act))
	require.Equal(t, units.MaxTime, agg.NextDeadline())
	f, _ := wire.HierCCCreditPacket{ToR: 5, Dst: 20, Amount: 1000}.Feedback()
	require.ErrorIs(t, agg.Message(2*us, 0, &f, act), ErrHierCCNotToR)
	require.Zero(t, act.Len())
}

// TestHierCCHostHeaderForms: a host's header at an edge port on a packet no
// ToR stamped is no ToR's header and changes nothing; a packet from a
// server here whose Hdr has a version (another switch's header, not the
// host's) is taken as flagging nothing (no rate packet, no flow counted,
// M clear), and its Hdr is replaced by the ToR's on Dequeue, as for the
// same packet with an all-zero Hdr.
func TestHierCCHostHeaderForms(t *testing.T) {
	a := hierccNewToR(t, hierccToRA, 10, 11)
	act := cc.NewActions(256)
	us := units.Microsecond
	before := a.AppendRegisters(nil)
	require.NoError(t, a.Enqueue(us, 0, hierccData(5, 20, 10, wire.HierCCFlagMark|wire.HierCCFlagFirst|wire.HierCCFlagLast), cc.Queue{}, act))
	require.Zero(t, act.Len())
	require.Equal(t, before[1:], a.AppendRegisters(nil)[1:], "only the time moved")
	_, ok := a.r.Entry(0, 0)
	require.False(t, ok)

	run := func(p *cc.Packet) (wire.HierCCHeader, []cc.Action, uint16) {
		t.Helper()
		x := hierccNewToR(t, hierccToRA, 10, 11)
		act := cc.NewActions(256)
		require.NoError(t, x.Enqueue(us, hierccUpPort, p, cc.Queue{}, act))
		enq := append([]cc.Action(nil), act.All()...)
		sl, _ := x.s.Lookup(20)
		st, _ := x.s.VOQs().State(sl)
		act.Reset()
		require.NoError(t, x.Dequeue(2*us, hierccUpPort, p, cc.Queue{}, act))
		h, err := wire.DecodeHierCCHeader(p.Hdr[:])
		require.NoError(t, err)
		return h, enq, st.Flows
	}
	stamped := hierccData(7, 10, 20, 0)
	require.NoError(t, wire.HierCCHeader{Mark: true, ToR: hierccToRB, Dst: 20, Flows: 9, Sent: 5}.Put(&stamped.Hdr))
	hs, enqS, flowsS := run(stamped)
	hz, enqZ, flowsZ := run(hierccData(7, 10, 20, 0))
	require.Equal(t, wire.HierCCHeader{ToR: hierccToRA, Dst: 20, Sent: uint32(hierccFrame)}, hs, "the ToR's own header, M clear")
	require.Equal(t, hz, hs)
	require.Equal(t, enqZ, enqS)
	require.Equal(t, []cc.Action{{Kind: cc.ActionCredit, Port: hierccUpPort, Node: 20, Bytes: voq.PaperC0}}, enqS, "C0, no rate packet")
	require.Zero(t, flowsS)
	require.Equal(t, flowsZ, flowsS)
	hm, enqM, flowsM := run(hierccData(7, 10, 20, wire.HierCCFlagMark|wire.HierCCFlagFirst))
	require.True(t, hm.Mark)
	require.Len(t, enqM, 2, "C0 and a rate packet")
	require.Equal(t, uint16(1), flowsM)
}

// TestHierCCConfig: the ports' hosts must be below Dests, the ToR below ToRs.
func TestHierCCConfig(t *testing.T) {
	ports := []HierCCPort{{Edge: true, Host: 70}, {}}
	_, err := NewHierCC(HierCCPaper(1, ports, 64, 8, hierccLine25, 9236))
	require.ErrorIs(t, err, cc.ErrConfig)
	require.ErrorContains(t, err, "Ports[0].Host")
	ports[0].Host = 3
	_, err = NewHierCC(HierCCPaper(9, ports, 64, 8, hierccLine25, 9236))
	require.ErrorContains(t, err, "ToR")
}

// torSnap is every register of a ToR.
func hierccToRSnap(t *HierCC) []cc.Register { return t.AppendRegisters(nil) }

// FuzzHierCC drives two ToRs, A (servers 10, 11) and B (20, 21), through the
// contract with events read from the input, 8 bytes each: packets between
// the four servers (their host headers now and then not as a host writes
// them) enqueued and dequeued at the ports the ToRs route them
// by, B's credits delivered to A, timers, times mostly forward. No panic;
// every error is typed; a refused event changes no register and decides
// nothing; every ActionCredit is at a port of the switch and for a VOQ the
// ToR has open; every rate packet decodes with a rate in [0, line rate].
func FuzzHierCC(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 4, 0, 0, 0, 0, 0, 1, 0})
	f.Add(make([]byte, 64))
	f.Fuzz(func(t *testing.T, in []byte) {
		tors := []*HierCC{hierccNewToR(t, hierccToRA, 10, 11), hierccNewToR(t, hierccToRB, 20, 21)}
		hosts := []cc.NodeID{10, 11, 20, 21}
		act := cc.NewActions(512)
		var pending []cc.Feedback // B's credits on their way to A
		var queued [2][]*cc.Packet
		now := units.Time(0)
		for len(in) >= 8 {
			ev := in[:8]
			in = in[8:]
			step := units.Time(binary.BigEndian.Uint16(ev[6:])) * units.Nanosecond
			if ev[0]&0x80 != 0 {
				step = -step
			}
			at := now + step
			x := int(ev[1] & 1)
			tor := tors[x]
			before := hierccToRSnap(tor)
			act.Reset()
			var err error
			switch ev[0] & 7 {
			case 0, 1: // a packet from a server of tor x joins the port toward its destination
				src := hosts[2*x+int(ev[2]&1)]
				dst := hosts[int(ev[3]%4)]
				if dst == src {
					dst = hosts[(int(ev[3])+1)%4]
				}
				out := hierccUpPort
				if int(dst-10)/10 == x {
					out = int(dst % 10)
				}
				p := hierccData(cc.FlowID(ev[4]%8), src, dst, wire.HierCCFlags(ev[5]&7))
				if ev[5]&0x80 != 0 { // not as a host writes it: one byte flipped
					p.Hdr[ev[5]>>3&15] ^= ev[5]
				}
				if err = tor.Enqueue(at, out, p, cc.Queue{}, act); err == nil {
					queued[x] = append(queued[x], p)
				}
			case 2: // the oldest packet tor x holds leaves
				if len(queued[x]) == 0 {
					err = tor.Timer(at, act)
					break
				}
				p := queued[x][0]
				out := hierccUpPort
				if int(p.Dst-10)/10 == x {
					out = int(p.Dst % 10)
				}
				if err = tor.Dequeue(at, out, p, cc.Queue{}, act); err == nil {
					queued[x] = queued[x][1:]
					if out == hierccUpPort { // it reaches the other ToR's server port
						y := 1 - x
						_ = tors[y].Enqueue(at, int(p.Dst%10), p, cc.Queue{}, cc.NewActions(0))
					}
				}
			case 3: // a credit reaches its ToR
				if len(pending) == 0 {
					err = tor.Timer(at, act)
					break
				}
				fb := pending[0]
				c, _ := wire.DecodeHierCCCreditPacket(fb.Data[:])
				tor = tors[c.ToR-hierccToRA]
				before = hierccToRSnap(tor)
				if err = tor.Message(at, hierccUpPort, &fb, act); err == nil {
					pending = pending[1:]
				}
			default:
				err = tor.Timer(at, act)
			}
			if err != nil {
				if !cc.Typed(err) {
					t.Fatalf("untyped error %v", err)
				}
				if !slices.Equal(before, hierccToRSnap(tor)) {
					t.Fatalf("refused event %v changed the registers", ev)
				}
				if act.Len() != 0 {
					t.Fatalf("refused event decided %v", act.All())
				}
				continue
			}
			now = max(now, at)
			for _, a := range act.All() {
				switch {
				case a.Kind == cc.ActionCredit:
					if int(a.Port) > 3 || a.Bytes <= 0 {
						t.Fatalf("credit %+v", a)
					}
					if _, ok := tor.s.Lookup(voq.Key(a.Node)); !ok {
						t.Fatalf("credit for VOQ %d, not open", a.Node)
					}
				case a.Kind == cc.ActionFeedback && a.To == cc.ToSwitch:
					pending = append(pending, a.Feedback)
				case a.Kind == cc.ActionFeedback && a.To == cc.ToSource:
					r, err := wire.DecodeHierCCRatePacket(a.Feedback.Data[:])
					if err != nil || units.Rate(r.Rate)*wire.HierCCRateUnit > hierccLine25 {
						t.Fatalf("rate packet %+v: %v", r, err)
					}
				default:
					t.Fatalf("unexpected action %+v", a)
				}
			}
		}
	})
}

// hierccEvent is one event of the late-timer test's sequence.
type hierccEvent struct {
	at   units.Time
	kind cc.EventKind
	port int
	p    cc.Packet
	f    cc.Feedback
}

// TestHierCCLateTimer: a ToR whose timer is left to the next event ends
// equal to one whose timer is called at every deadline, registers and
// decisions, event by event (the contract's rule 4). ToR A carries a
// flow between its own two servers (a VOQ credited by its own receiver
// side), a flow to another rack (credited by ToR B's credit packets,
// which come back as messages), and headers from ToR B toward one of its
// servers (credited back to B): updates of equation (1) every 10 µs and
// credit ticks every 320 ns fall due between events 0.7 to 25 µs apart.
// A local packet leaves only when the VOQ has credit on the part called
// on time; the late part's own catch-up must find the same credit (one
// VOQ runs on nothing but credits its catch-up grants it).
func TestHierCCLateTimer(t *testing.T) {
	onTime, late := hierccNewToR(t, hierccToRA, 10, 11), hierccNewToR(t, hierccToRA, 10, 11)
	rng := rand.New(rand.NewSource(9))
	var made, lateMade []cc.Action
	act := cc.NewActions(1 << 12)
	apply := func(x *HierCC, e hierccEvent, act *cc.Actions) error {
		p := e.p
		switch e.kind {
		case cc.EventEnqueue:
			return x.Enqueue(e.at, e.port, &p, cc.Queue{}, act)
		case cc.EventDequeue:
			return x.Dequeue(e.at, e.port, &p, cc.Queue{}, act)
		}
		return x.Message(e.at, e.port, &e.f, act)
	}
	now := units.Time(0)
	var localQ, remoteQ []cc.Packet
	sentB := uint32(0)
	var credits []cc.Feedback // credit packets from B for A's remote VOQ
	totalB := uint32(0)
	accepted, overdue, creditedLate := 0, 0, 0
	burst := 0 // local packets left to send back to back, 100 ns apart
	for i := range 900 {
		if burst > 0 || i < 30 {
			now += 100 * units.Nanosecond
		} else if rng.Intn(10) == 0 {
			now += units.Time(5+rng.Intn(20)) * units.Microsecond
		} else {
			now += units.Time(700+rng.Intn(900)) * units.Nanosecond
		}
		var e hierccEvent
		x := rng.Intn(6)
		switch {
		case i < 30:
			x = 0 // a backlog of local packets first
		case burst > 0:
			x, burst = 1, burst-1
		case x == 1:
			burst = 10 + rng.Intn(30) // drains the VOQ's C0, then lives on credits
		}
		switch {
		case x == 0 && len(localQ) < 60:
			p := *hierccData(cc.FlowID(1), 10, 11, wire.HierCCFlags(rng.Intn(2))*wire.HierCCFlagMark)
			e = hierccEvent{at: now, kind: cc.EventEnqueue, port: 1, p: p}
			localQ = append(localQ, p)
		case x == 1 && len(localQ) > 0:
			// Leaves only with credit on the part called on time.
			for onTime.NextDeadline() <= now {
				act.Reset()
				require.NoError(t, onTime.Timer(onTime.NextDeadline(), act))
				made = append(made, act.All()...)
			}
			sl, _ := onTime.s.Lookup(11)
			if !onTime.s.Eligible(sl) {
				continue
			}
			e = hierccEvent{at: now, kind: cc.EventDequeue, port: 1, p: localQ[0]}
			localQ = localQ[1:]
		case x == 2 && len(remoteQ) < 30:
			p := *hierccData(cc.FlowID(2), 10, 20, 0)
			e = hierccEvent{at: now, kind: cc.EventEnqueue, port: hierccUpPort, p: p}
			remoteQ = append(remoteQ, p)
		case x == 3 && len(remoteQ) > 0:
			sl, _ := onTime.s.Lookup(20)
			for onTime.NextDeadline() <= now {
				act.Reset()
				require.NoError(t, onTime.Timer(onTime.NextDeadline(), act))
				made = append(made, act.All()...)
			}
			if !onTime.s.Eligible(sl) {
				continue
			}
			e = hierccEvent{at: now, kind: cc.EventDequeue, port: hierccUpPort, p: remoteQ[0]}
			remoteQ = remoteQ[1:]
			totalB += 1000
			f, err := wire.HierCCCreditPacket{ToR: hierccToRA, Dst: 20, Amount: 1000, Total: totalB}.Feedback()
			require.NoError(t, err)
			credits = append(credits, f)
		case x == 4 && len(credits) > 0:
			e = hierccEvent{at: now, kind: cc.EventMessage, port: hierccUpPort, f: credits[0]}
			credits = credits[1:]
		default: // a packet from ToR B to server 10
			sentB += 1082
			p := *hierccData(cc.FlowID(3), 20, 10, 0)
			require.NoError(t, wire.HierCCHeader{ToR: hierccToRB, Dst: 10, Flows: 1, Sent: sentB}.Put(&p.Hdr))
			e = hierccEvent{at: now, kind: cc.EventEnqueue, port: 0, p: p}
		}
		for onTime.NextDeadline() <= now {
			act.Reset()
			require.NoError(t, onTime.Timer(onTime.NextDeadline(), act))
			made = append(made, act.All()...)
		}
		act.Reset()
		require.NoError(t, apply(onTime, e, act), "event %d on time", i)
		made = append(made, act.All()...)
		if late.NextDeadline() <= now {
			overdue++
		}
		if e.kind == cc.EventDequeue && e.port == 1 {
			if sl, _ := late.s.Lookup(11); late.s.VOQs() != nil {
				if st, _ := late.s.VOQs().State(sl); st.Credit <= 0 {
					creditedLate++ // eligible only by the credits its catch-up grants
				}
			}
		}
		act.Reset()
		require.NoError(t, apply(late, e, act), "event %d late", i)
		lateMade = append(lateMade, act.All()...)
		require.Equal(t, onTime.AppendRegisters(nil), late.AppendRegisters(nil), "event %d", i)
		require.Equal(t, made, lateMade, "event %d", i)
		require.Greater(t, late.NextDeadline(), now, "after an event its deadline is later than its now")
		accepted++
	}
	require.Greater(t, accepted, 400)
	require.Greater(t, overdue, 100, "the late part's timer is overdue at many events")
	require.Positive(t, creditedLate)
	var local, sent int
	for _, a := range made {
		switch {
		case a.Kind == cc.ActionCredit && a.Port == 1 && a.Bytes == 1000:
			local++ // the own receiver side's credits to the local VOQ
		case a.Kind == cc.ActionFeedback && a.To == cc.ToSwitch:
			sent++ // credits to ToR B
		}
	}
	require.Positive(t, local)
	require.Positive(t, sent)
	require.Positive(t, late.s.fh[0].st.Updates)

	// Room for all but one of the decisions a late event makes refuses it
	// whole; a nil Actions is refused by every event (rule 3).
	x := hierccNewToR(t, hierccToRA, 10, 11)
	act.Reset()
	require.NoError(t, x.Enqueue(units.Microsecond, 1, hierccData(1, 10, 11, 0), cc.Queue{}, act))
	p := *hierccData(1, 10, 11, 0)
	require.NoError(t, x.Dequeue(2*units.Microsecond, 1, &p, cc.Queue{}, act)) // wakes port 1: ticks every 320 ns
	at := 4 * units.Microsecond
	twin := hierccNewToR(t, hierccToRA, 10, 11)
	act.Reset()
	require.NoError(t, twin.Enqueue(units.Microsecond, 1, hierccData(1, 10, 11, 0), cc.Queue{}, act))
	p = *hierccData(1, 10, 11, 0)
	require.NoError(t, twin.Dequeue(2*units.Microsecond, 1, &p, cc.Queue{}, act))
	act.Reset()
	require.NoError(t, twin.Timer(at, act))
	need := act.Len()
	before := x.AppendRegisters(nil)
	q := *hierccData(1, 10, 11, 0)
	err := x.Enqueue(at, 1, &q, cc.Queue{}, cc.NewActions(need-1))
	require.ErrorIs(t, err, cc.ErrActionsFull)
	require.Equal(t, before, x.AppendRegisters(nil))
	nilActs := []func() error{
		func() error { return x.Enqueue(at, 1, &q, cc.Queue{}, nil) },
		func() error { return x.Dequeue(at, 1, &q, cc.Queue{}, nil) },
		func() error { return x.Arrive(at, 1, &q, nil) },
		func() error { return x.Pause(at, 1, 3, true, nil) },
		func() error { return x.Message(at, 1, &cc.Feedback{Kind: cc.FeedbackAck}, nil) },
		func() error { return x.Timer(at, nil) },
	}
	for i, ev := range nilActs {
		require.ErrorIs(t, ev(), cc.ErrNoActions, "event %d", i)
		require.Equal(t, before, x.AppendRegisters(nil))
	}
}

// TestHierCCUnused: a message of another kind than a credit is taken,
// decides nothing and changes no register but the time and
// unused_feedback (the contract's rule 8), at a ToR and at a switch with
// no server port alike.
func TestHierCCUnused(t *testing.T) {
	a := hierccNewToR(t, hierccToRA, 10, 11)
	agg, err := NewHierCC(HierCCPaper(5, make([]HierCCPort, 4), 64, 8, hierccLine25, 9236))
	require.NoError(t, err)
	act := cc.NewActions(8)
	for _, x := range []*HierCC{a, agg} {
		for i, k := range []cc.FeedbackKind{cc.FeedbackAck, cc.FeedbackCNP, wire.FeedbackHierCCRate, 255} {
			before := x.AppendRegisters(nil)
			act.Reset()
			require.NoError(t, x.Message(units.Time(i+1)*units.Microsecond, -1, &cc.Feedback{Kind: k}, act))
			require.Zero(t, act.Len())
			after := x.AppendRegisters(nil)
			require.Equal(t, before[0].Value+uint64(units.Microsecond), after[0].Value, "now")
			require.Equal(t, cc.UnusedRegister, after[3].Name)
			require.Equal(t, before[3].Value+1, after[3].Value)
			require.Equal(t, before[4:], after[4:])
			require.Equal(t, before[1:3], after[1:3])
		}
		require.Equal(t, uint64(4), x.unused.N())
	}
}
