package cctest

import (
	"encoding/binary"
	"math"
	"math/rand"

	"github.com/leanovate/gopter"

	"github.com/hwcc/hwcc/cc"
	inttel "github.com/hwcc/hwcc/int"
	"github.com/hwcc/hwcc/units"
)

// GenOptions shape the generated event sequences. The zero value of every
// field picks the default in parentheses.
type GenOptions struct {
	// Events is the length of a sequence (200).
	Events int
	// Flows is how many distinct flows a congestion point's queue or a
	// switch point's ports carry packets of (4); the suite also runs
	// sequences with 64 and with 2048.
	Flows int
	// Ports is a switch point's port count (4): its events name ports
	// 0..Ports−1, and the outputs rule expects the Port of an
	// ActionCredit, ActionPauseQueue or ActionResumeQueue below it. Set it to the Env.Ports the constructor builds with.
	Ports int
	// Rate is the port or line rate (100 Gb/s).
	Rate units.Rate
	// MaxGap is the longest time between two events (20 µs); a gap is 0
	// (simultaneous events) one time in eight.
	MaxGap units.Time
	// Payload is a full packet's payload (1000 B); Overhead what a queue
	// counts on top of it (82 B: RoCEv2 headers, preamble and gap).
	Payload, Overhead units.Bytes
	// INT: packets carry a telemetry stack in HPCC's INT format (package
	// inttel), and a reaction point's ACKs echo one from a modelled path
	// of Hops hops (3, at most 5) whose timestamps, transmit counters and
	// queues evolve with time.
	INT  bool
	Hops int
	// Messages are feedback messages a reaction point may receive besides
	// ACKs, NAKs and CNPs (an algorithm's rate messages, say). A sequence
	// takes the flow of one of them as its own and delivers them as they
	// are: those about other flows test that the part refuses or ignores
	// them. A notification point receives them now and then besides
	// credit requests, and a switch point as the control messages other
	// switches address to it (in their place, a FeedbackCredit from a
	// switch when there are none).
	Messages []cc.Feedback
	// Hdrs are header bytes a switch point's or a notification point's
	// data packets may arrive with (cc.Packet.Hdr, as the algorithm's
	// reaction points and switch points upstream write them): a packet
	// carries one of them one time in two, else none (all zero).
	Hdrs [][cc.PacketHdrLen]byte
	// SwitchPorts, if set, describes a switch point's ports as its Env
	// does (len Ports): a flow that comes in by an edge port has that
	// port's host as its source, one that leaves by an edge port has its
	// host as destination; the other flows come from and go to nodes
	// elsewhere. Without it every flow's ends are elsewhere.
	SwitchPorts []cc.SwitchPort
	// Credited: the reaction point sends on credit (cc.Limits.Credited,
	// ExpressPass): every Sent is preceded, at the same instant, by a
	// FeedbackCredit for the flow, numbered 1, 2, ..., as a well-behaved
	// source sends only what its credit allows. The suite sets it for a
	// reaction point whose fresh Limits are Credited.
	Credited bool
}

func (o GenOptions) withDefaults() GenOptions {
	if o.Events <= 0 {
		o.Events = 200
	}
	if o.Flows <= 0 {
		o.Flows = 4
	}
	if o.Ports <= 0 {
		o.Ports = 4
	}
	if o.Rate <= 0 {
		o.Rate = 100 * units.Gbps
	}
	if o.MaxGap <= 0 {
		o.MaxGap = 20 * units.Microsecond
	}
	if o.Payload <= 0 {
		o.Payload = 1000
	}
	if o.Overhead <= 0 {
		o.Overhead = 82
	}
	if o.Hops <= 0 {
		o.Hops = 3
	}
	o.Hops = min(o.Hops, 5)
	return o
}

// gap returns the time to the next event: 0 one time in eight, else
// uniform in [1 ns, MaxGap].
func gap(r *rand.Rand, o GenOptions) units.Time {
	if r.Intn(8) == 0 {
		return 0
	}
	return units.Nanosecond + units.Time(r.Int63n(int64(o.MaxGap)))
}

// Events returns a well-formed sequence for a part of role: events a
// correct caller could make, in time order.
//
//   - Congestion point: packets of Flows flows join a FIFO queue and leave
//     it in order, with Queue.Len, TxBytes and Rate kept as a switch keeps
//     them; the queue moves between random targets up to 2.5 MB (frames of
//     1, 4 or 9 payloads, one size per sequence); now and then a Timer call
//     (possibly early: the part must then do nothing).
//   - Reaction point: the flow sends packets in sequence; ACKs acknowledge
//     what was sent (cumulative, sometimes duplicate, sometimes with ECE and
//     an INT header from the modelled path), NAKs send it back to resend,
//     CNPs and the Messages arrive now and then.
//   - Notification point: data packets of one flow arrive mostly in order,
//     some marked CE; now and then the source asks for credits (or stops).
//   - Switch point: data packets of Flows flows, each with its own
//     ingress and egress port of Ports (half the flows converge on one
//     hot egress port) and priority (3, or 1 for a quarter of the flows),
//     arrive (Arrive) and join their egress queue at the same instant
//     (Enqueue; one arrival in 32 is not followed by one, as a switch
//     whose buffer is full drops it); the queue of each port and priority
//     is a FIFO model whose packets leave in order (Dequeue), never while
//     the queue is paused, with Queue.Len, TxBytes (per port, over every
//     priority), Rate and Paused kept as a switch keeps them, and the
//     switch's bytes fill toward and drain from random targets as a
//     congestion point's queue does. PFC pauses and resumes of a port's
//     priority (0..6, mostly the data priorities) alternate per port and
//     priority; now and then one of the Messages arrives through a port,
//     and a Timer call comes.
func Events(r *rand.Rand, role cc.Role, o GenOptions) []cc.Event {
	evs := events(r, role, o)
	out := make([]cc.Event, len(evs))
	for i := range evs {
		out[i] = evs[i].Event
	}
	return out
}

// events is Events as the suite runs it, beside its chaos sequences.
func events(r *rand.Rand, role cc.Role, o GenOptions) []Event {
	o = o.withDefaults()
	switch role {
	case cc.RoleCP:
		return cpEvents(r, o)
	case cc.RoleRP:
		return rpEvents(r, o)
	case cc.RoleNP:
		return npEvents(r, o)
	case cc.RoleSW:
		return swEvents(r, o)
	}
	return nil
}

// queued is a packet in the congestion point model's FIFO.
type queued struct {
	flow   cc.FlowID
	size   units.Bytes
	hasTel bool
	tel    cc.Telemetry
}

func cpEvents(r *rand.Rand, o GenOptions) []Event {
	evs := make([]Event, 0, o.Events)
	var (
		now  units.Time
		fifo []queued
		qlen units.Bytes
		tx   uint64
		seq  = make(map[cc.FlowID]uint64)
		// Each sequence has its own frame size (jumbo frames one time in
		// three) and moves its queue between random targets up to 2.5 MB,
		// so that thresholds anywhere in that range are crossed both ways.
		payload = o.Payload * units.Bytes([]int{1, 4, 9}[r.Intn(3)])
		top     = 2500 * units.KB
		target  = units.Bytes(r.Int63n(int64(top)))
		filling = true
	)
	for len(evs) < o.Events {
		now += gap(r, o)
		ev := Event{Event: cc.Event{At: now}}
		// Fill to the target, then drain to a new one below, then fill to
		// one above, and so on.
		switch {
		case filling && qlen >= target:
			filling, target = false, units.Bytes(r.Int63n(int64(qlen)+1))
		case !filling && qlen <= target:
			filling, target = true, qlen+units.Bytes(r.Int63n(int64(top-min(qlen, top))+1))
		}
		fill := filling
		if r.Intn(8) == 0 {
			fill = !fill
		}
		switch {
		case r.Intn(16) == 0:
			ev.Kind = cc.EventTimer
		case len(fifo) > 0 && !fill:
			q := fifo[0]
			fifo = fifo[1:]
			qlen -= q.size
			ev.Kind = cc.EventDequeue
			ev.Packet = cc.Packet{Flow: q.flow, Size: q.size, Payload: q.size - o.Overhead}
			ev.HasTel, ev.Tel = q.hasTel, q.tel
		default:
			f := cc.FlowID(r.Intn(o.Flows))
			pay := payload
			if r.Intn(4) == 0 {
				pay = 1 + units.Bytes(r.Int63n(int64(payload)))
			}
			size := pay + o.Overhead
			q := queued{flow: f, size: size}
			if o.INT {
				// Earlier hops' records, with room for this one.
				q.hasTel, q.tel = true, intTel(&inttel.Header{NHop: uint8(r.Intn(o.Hops)), PathID: uint16(r.Intn(1 << 12))})
			}
			fifo = append(fifo, q)
			qlen += size
			ev.Kind = cc.EventEnqueue
			ev.Packet = cc.Packet{Flow: f, Seq: seq[f], Size: size, Payload: pay, Prio: 3}
			seq[f] += uint64(pay)
			ev.HasTel, ev.Tel = q.hasTel, q.tel
		}
		// TxBytes on a dequeue counts the bytes sent before the departing
		// packet (cc.Queue).
		ev.Queue = cc.Queue{Len: qlen, Rate: o.Rate, TxBytes: tx}
		if ev.Kind == cc.EventDequeue {
			tx += uint64(ev.Packet.Size)
		}
		evs = append(evs, ev)
	}
	return evs
}

// path models the hops an RP's ACKs report: per hop a speed code, a
// transmit counter growing at a random utilisation and a random queue.
type path struct {
	id    uint16
	hops  []inttel.Hop
	tx    []uint64 // bytes sent by each hop
	speed []units.Rate
}

func newPath(r *rand.Rand, o GenOptions) *path {
	codes := inttel.DefaultSpeedCodes()
	p := &path{id: uint16(r.Intn(1 << 12))}
	for range o.Hops {
		c := codes[r.Intn(len(codes))]
		p.hops = append(p.hops, inttel.Hop{Speed: c.Code})
		p.tx = append(p.tx, 0)
		p.speed = append(p.speed, c.Rate)
	}
	return p
}

// header returns the path's INT stack at time now, dt after the previous
// one: each hop's counter advanced by a random share of its rate over dt.
func (p *path) header(r *rand.Rand, now, dt units.Time) cc.Telemetry {
	h := inttel.Header{NHop: uint8(len(p.hops)), PathID: p.id}
	for i := range p.hops {
		util := 0.3 + 0.8*r.Float64()
		p.tx[i] += uint64(float64(units.BytesIn(p.speed[i], dt)) * util)
		p.hops[i].TS = uint32(now/units.Nanosecond) & (1<<24 - 1)
		p.hops[i].TxBytes = uint32(p.tx[i]/uint64(inttel.HPCCTxBytesUnit)) & (1<<20 - 1)
		p.hops[i].QLen = uint16(r.Intn(2000))
		h.Hops[i] = p.hops[i]
	}
	return intTel(&h)
}

// intCodec writes the INT stacks of well-formed sequences: HPCC's units
// and speed codes, and room for every hop the 4-bit nHop counts.
var intCodec = func() *inttel.Codec {
	cfg := inttel.DefaultConfig()
	cfg.MaxHops = inttel.HopsLimit
	c, err := inttel.NewCodec(cfg)
	if err != nil {
		panic(err) // a fixed, valid configuration
	}
	return c
}()

// intTel returns h's wire form as a telemetry stack. The generators build
// only headers whose fields fit.
func intTel(h *inttel.Header) cc.Telemetry {
	var t cc.Telemetry
	if err := intCodec.Put(&t, h); err != nil {
		panic(err)
	}
	return t
}

func rpEvents(r *rand.Rand, o GenOptions) []Event {
	evs := make([]Event, 0, o.Events)
	var (
		now, lastAck   units.Time
		sndNxt, sndUna uint64
		pth            = newPath(r, o)
		flow           = cc.FlowID(r.Intn(1 << 16))
	)
	if len(o.Messages) > 0 {
		// The flow the messages are about: a message may name its flow in
		// its payload too (RoCC's CNP does), so it is delivered unchanged.
		flow = o.Messages[r.Intn(len(o.Messages))].Flow
	}
	var credits uint64
	for len(evs) < o.Events {
		dt := gap(r, o)
		now += dt
		ev := Event{Event: cc.Event{At: now}}
		switch x := r.Intn(32); {
		case x == 0:
			ev.Kind = cc.EventTimer
		case x < 3:
			ev.Kind = cc.EventFeedback
			ev.Feedback = cc.Feedback{Kind: cc.FeedbackCNP, Flow: flow}
		case x < 5 && len(o.Messages) > 0:
			ev.Kind = cc.EventFeedback
			ev.Feedback = o.Messages[r.Intn(len(o.Messages))]
		case x == 5 && sndUna < sndNxt:
			ev.Kind = cc.EventFeedback
			ev.Feedback = cc.Feedback{Kind: cc.FeedbackNak, Flow: flow, Seq: sndUna, SndNxt: sndNxt}
			sndNxt = sndUna // go back N: resend from the NAK
			if o.INT {      // a NAK echoes INT as an ACK does
				ev.HasTel = true
				ev.Tel = pth.header(r, now, now-lastAck)
				lastAck = now
			}
		case x < 18 || sndUna == sndNxt:
			pay := o.Payload
			if r.Intn(8) == 0 {
				pay = 1 + units.Bytes(r.Int63n(int64(o.Payload)))
			}
			if o.Credited {
				credits++
				evs = append(evs, Event{Event: cc.Event{At: now, Kind: cc.EventFeedback, Feedback: cc.Feedback{Kind: cc.FeedbackCredit, Flow: flow, Seq: credits}}})
			}
			ev.Kind = cc.EventSent
			ev.Packet = cc.Packet{Flow: flow, Seq: sndNxt, Payload: pay, Size: pay + o.Overhead, Prio: 3}
			sndNxt += uint64(pay)
		default:
			ack := sndUna
			if r.Intn(6) != 0 { // else a duplicate
				ack += uint64(r.Int63n(int64(sndNxt-sndUna))) + 1
			}
			ev.Kind = cc.EventFeedback
			ev.Feedback = cc.Feedback{
				Kind: cc.FeedbackAck, Flow: flow, Seq: ack, Acked: units.Bytes(ack - sndUna),
				SndNxt: sndNxt, ECE: r.Intn(4) == 0,
			}
			sndUna = ack
			if o.INT {
				ev.HasTel = true
				ev.Tel = pth.header(r, now, now-lastAck)
				lastAck = now
			}
		}
		evs = append(evs, ev)
	}
	return evs
}

func npEvents(r *rand.Rand, o GenOptions) []Event {
	evs := make([]Event, 0, o.Events)
	var (
		now  units.Time
		seq  uint64
		flow = cc.FlowID(r.Intn(1 << 16))
	)
	for len(evs) < o.Events {
		now += gap(r, o)
		ev := Event{Event: cc.Event{At: now}}
		switch x := r.Intn(24); {
		case x < 2:
			ev.Kind = cc.EventTimer
		case x == 2:
			// The source's start (or stop) of a credit-driven transfer,
			// or one of the Messages.
			ev.Kind = cc.EventFeedback
			ev.Feedback = cc.Feedback{Kind: cc.FeedbackCreditRequest, Flow: flow}
			if r.Intn(4) == 0 {
				ev.Feedback.Kind = cc.FeedbackCreditStop
			}
			if len(o.Messages) > 0 && r.Intn(2) == 0 {
				ev.Feedback = o.Messages[r.Intn(len(o.Messages))]
			}
		default:
			s := seq
			if r.Intn(16) == 0 && seq > uint64(o.Payload) { // a late or duplicate packet
				s -= uint64(o.Payload)
			} else {
				seq += uint64(o.Payload)
			}
			ev.Kind = cc.EventReceive
			ev.Packet = cc.Packet{Flow: flow, Seq: s, Payload: o.Payload, Size: o.Payload + o.Overhead, Prio: 3, CE: r.Intn(3) == 0}
			if len(o.Hdrs) > 0 && r.Intn(2) == 0 {
				ev.Packet.Hdr = o.Hdrs[r.Intn(len(o.Hdrs))]
			}
		}
		evs = append(evs, ev)
	}
	return evs
}

// swQueue is one egress queue (a port's priority) of the switch point
// model.
type swQueue struct {
	fifo   []Event // the Enqueue events of the packets queued, in order
	len    units.Bytes
	paused bool
}

// swFlow is a flow through the switch point model.
type swFlow struct {
	in, out  int
	prio     uint8
	src, dst cc.NodeID
	seq      uint64
}

func swEvents(r *rand.Rand, o GenOptions) []Event {
	evs := make([]Event, 0, o.Events)
	var (
		now     units.Time
		queues  = make([][8]swQueue, o.Ports)
		tx      = make([]uint64, o.Ports)
		flows   = make(map[cc.FlowID]*swFlow)
		hot     = r.Intn(o.Ports)
		payload = o.Payload * units.Bytes([]int{1, 4, 9}[r.Intn(3)])
		total   units.Bytes // bytes in every queue
		queued  int         // packets in every queue
		top     = 2500 * units.KB
		target  = units.Bytes(r.Int63n(int64(top)))
		filling = true
		msgSeq  uint64
	)
	flowOf := func(id cc.FlowID) *swFlow {
		f := flows[id]
		if f == nil {
			f = &swFlow{in: r.Intn(o.Ports), out: r.Intn(o.Ports), prio: 3,
				src: cc.NodeID(1<<12 + uint32(id)), dst: cc.NodeID(64 + uint32(id)%64)}
			if r.Intn(2) == 0 {
				f.out = hot
			}
			if o.Ports > 1 && f.in == f.out { // a frame does not leave through the port it came in by
				f.in = (f.out + 1 + r.Intn(o.Ports-1)) % o.Ports
			}
			if len(o.SwitchPorts) == o.Ports {
				if pi := o.SwitchPorts[f.in]; pi.Edge {
					f.src = pi.Host
				}
				if po := o.SwitchPorts[f.out]; po.Edge {
					f.dst = po.Host
				}
			}
			if r.Intn(4) == 0 {
				f.prio = 1
			}
			flows[id] = f
		}
		return f
	}
	// ready returns a random queue that is not empty and not paused.
	ready := func() (port int, prio uint8, ok bool) {
		if queued == 0 {
			return 0, 0, false
		}
		start := r.Intn(o.Ports * 8)
		for i := range o.Ports * 8 {
			k := (start + i) % (o.Ports * 8)
			if q := &queues[k/8][k%8]; len(q.fifo) > 0 && !q.paused {
				return k / 8, uint8(k % 8), true
			}
		}
		return 0, 0, false
	}
	for len(evs) < o.Events {
		now += gap(r, o)
		switch {
		case filling && total >= target:
			filling, target = false, units.Bytes(r.Int63n(int64(total)+1))
		case !filling && total <= target:
			filling, target = true, total+units.Bytes(r.Int63n(int64(top-min(total, top))+1))
		}
		fill := filling
		if r.Intn(8) == 0 {
			fill = !fill
		}
		port, prio, canSend := ready()
		switch x := r.Intn(32); {
		case x < 2:
			evs = append(evs, Event{Event: cc.Event{Kind: cc.EventTimer, At: now}})
		case x < 4:
			// A PFC pause or resume: it changes the queue's state, as a
			// switch reports only changes.
			port, prio := r.Intn(o.Ports), uint8(3)
			switch r.Intn(4) {
			case 0:
				prio = uint8(r.Intn(int(cc.ControlPrio))) // never the control class
			case 1:
				prio = 1
			}
			q := &queues[port][prio]
			q.paused = !q.paused
			ev := Event{Event: cc.Event{Kind: cc.EventPause, At: now, Port: port, Paused: q.paused}}
			ev.Packet.Prio = prio
			evs = append(evs, ev)
		case x < 6:
			ev := Event{Event: cc.Event{Kind: cc.EventMessage, At: now, Port: r.Intn(o.Ports)}}
			if len(o.Messages) > 0 {
				ev.Feedback = o.Messages[r.Intn(len(o.Messages))]
			} else {
				msgSeq++
				ev.Feedback = cc.Feedback{Kind: cc.FeedbackCredit, Flow: cc.FlowID(r.Intn(o.Flows)),
					From: uint64(3<<16 + r.Intn(16)), Seq: msgSeq}
				binary.BigEndian.PutUint64(ev.Feedback.Data[:8], uint64(payload+o.Overhead))
			}
			evs = append(evs, ev)
		case canSend && (!fill || x < 12):
			q := &queues[port][prio]
			ev := q.fifo[0]
			q.fifo = q.fifo[1:]
			q.len -= ev.Packet.Size
			total -= ev.Packet.Size
			queued--
			ev.Kind, ev.At = cc.EventDequeue, now
			// TxBytes on a dequeue counts the bytes the port sent before
			// the departing packet (cc.Queue).
			ev.Queue = cc.Queue{Len: q.len, Rate: o.Rate, TxBytes: tx[port]}
			tx[port] += uint64(ev.Packet.Size)
			evs = append(evs, ev)
		default:
			id := cc.FlowID(r.Intn(o.Flows))
			f := flowOf(id)
			pay := payload
			if r.Intn(4) == 0 {
				pay = 1 + units.Bytes(r.Int63n(int64(payload)))
			}
			ev := Event{Event: cc.Event{Kind: cc.EventArrive, At: now, Port: f.in}}
			ev.Packet = cc.Packet{Flow: id, Src: f.src, Dst: f.dst, Seq: f.seq, Payload: pay, Size: pay + o.Overhead, Prio: f.prio}
			f.seq += uint64(pay)
			if len(o.Hdrs) > 0 && r.Intn(2) == 0 {
				ev.Packet.Hdr = o.Hdrs[r.Intn(len(o.Hdrs))]
			}
			if o.INT {
				// Earlier hops' records, with room for this one.
				ev.HasTel, ev.Tel = true, intTel(&inttel.Header{NHop: uint8(r.Intn(o.Hops)), PathID: uint16(r.Intn(1 << 12))})
			}
			evs = append(evs, ev)
			if len(evs) == o.Events || r.Intn(32) == 0 {
				break // dropped on arrival: it joins no queue
			}
			q := &queues[f.out][f.prio]
			q.len += ev.Packet.Size
			total += ev.Packet.Size
			queued++
			ev.Kind, ev.Port = cc.EventEnqueue, f.out
			ev.Queue = cc.Queue{Len: q.len, Rate: o.Rate, TxBytes: tx[f.out], Paused: q.paused}
			q.fifo = append(q.fifo, ev)
			evs = append(evs, ev)
		}
	}
	return evs
}

// Chaos returns an arbitrary sequence for a part of role: every event
// method of the role and Timer, with times that mostly advance but
// sometimes go back (or below 0), sizes and sequence numbers anywhere in
// their types (negative, zero, huge), unknown feedback kinds, random
// payload bytes, telemetry stacks of random bytes and lengths (nHop beyond the
// array included), and now and then a nil packet, feedback or actions. A
// switch point's events also name ports anywhere (mostly 0..Ports−1, else
// −1, Ports, or any int), pause priorities anywhere in 0..255, pauses and
// resumes that do not alternate, and random header bytes. A part must
// take every one without panicking.
func Chaos(r *rand.Rand, role cc.Role, o GenOptions) []Event {
	o = o.withDefaults()
	kinds := role.Events()
	if kinds == nil {
		kinds = []cc.EventKind{cc.EventTimer}
	}
	evs := make([]Event, 0, o.Events)
	var now units.Time
	for len(evs) < o.Events {
		switch r.Intn(16) {
		case 0:
			now -= units.Time(r.Int63n(int64(o.MaxGap) + 1))
		case 1:
			now = units.Time(wild(r))
		default:
			now += gap(r, o)
		}
		ev := Event{Event: cc.Event{Kind: kinds[r.Intn(len(kinds))], At: now}}
		ev.Packet = cc.Packet{
			Flow: cc.FlowID(r.Uint32() % uint32(o.Flows*2)), Src: cc.NodeID(r.Uint32()), Dst: cc.NodeID(r.Uint32()),
			Seq: r.Uint64(), Payload: units.Bytes(wild(r)), Size: units.Bytes(wild(r)),
			Prio: uint8(r.Intn(256)), CE: r.Intn(2) == 0,
		}
		ev.Queue = cc.Queue{Len: units.Bytes(wild(r)), Rate: units.Rate(wild(r)), TxBytes: r.Uint64(), Paused: r.Intn(4) == 0}
		ev.Feedback = cc.Feedback{
			Kind: cc.FeedbackKind(r.Intn(256)), Flow: ev.Packet.Flow, From: r.Uint64(), Seq: r.Uint64(),
			Acked: units.Bytes(wild(r)), SndNxt: r.Uint64(), ECE: r.Intn(2) == 0,
		}
		if r.Intn(2) == 0 {
			ev.Feedback.Kind = cc.FeedbackKind(r.Intn(int(cc.FeedbackCreditStop) + 1))
		}
		r.Read(ev.Feedback.Data[:])
		if role == cc.RoleSW {
			ev.Port = wildPort(r, o.Ports)
			ev.Paused = r.Intn(2) == 0
			if r.Intn(2) == 0 {
				r.Read(ev.Packet.Hdr[:])
			}
			if r.Intn(4) != 0 { // mostly a priority PFC has
				ev.Packet.Prio %= 8
			}
		}
		ev.NilArg = r.Intn(16) == 0
		ev.NilActions = r.Intn(16) == 0
		if r.Intn(2) == 0 {
			// A stack of random bytes and length: mostly one of INT's
			// lengths (2 + 8·nHop) with random records, sometimes any.
			ev.HasTel = true
			ev.Tel.Len = uint8(inttel.HeaderLen(r.Intn(inttel.HopsLimit + 1)))
			if r.Intn(4) == 0 {
				ev.Tel.Len = uint8(r.Intn(256))
			}
			r.Read(ev.Tel.Data[:])
		}
		evs = append(evs, ev)
	}
	return evs
}

// wild returns an int64 from anywhere: small, negative, near the limits.
func wild(r *rand.Rand) int64 {
	switch r.Intn(8) {
	case 0:
		return 0
	case 1:
		return -r.Int63n(1 << 20)
	case 2:
		return math.MaxInt64 - r.Int63n(1<<10)
	case 3:
		return math.MinInt64 + r.Int63n(1<<10)
	case 4:
		return int64(r.Uint64())
	}
	return r.Int63n(1 << 24)
}

// wildPort returns a port number that is mostly in 0..ports−1.
func wildPort(r *rand.Rand, ports int) int {
	switch r.Intn(8) {
	case 0:
		return -1
	case 1:
		return ports + r.Intn(4)
	case 2:
		return int(wild(r))
	}
	return r.Intn(ports)
}

// GenEvents is Events as a gopter generator. A failing sequence shrinks to
// its shorter prefixes, each still well formed (a prefix of a well-formed
// sequence is one), so that gopter reports the shortest failing prefix.
func GenEvents(role cc.Role, o GenOptions) gopter.Gen {
	return func(p *gopter.GenParameters) *gopter.GenResult {
		return gopter.NewGenResult(Events(p.Rng, role, o), shrinkPrefix[cc.Event])
	}
}

// GenChaos is Chaos as a gopter generator; a failing sequence shrinks to
// its shorter prefixes.
func GenChaos(role cc.Role, o GenOptions) gopter.Gen {
	return func(p *gopter.GenParameters) *gopter.GenResult {
		return gopter.NewGenResult(Chaos(p.Rng, role, o), shrinkPrefix[Event])
	}
}

// shrinkPrefix is the shrinker of a sequence: its prefixes of half its
// length, a quarter, ... down to one event, then the one without its last
// event.
func shrinkPrefix[T any](v any) gopter.Shrink {
	evs, _ := v.([]T)
	var lens []int
	for n := len(evs) / 2; n >= 1; n /= 2 {
		lens = append(lens, n)
	}
	if n := len(evs) - 1; n > len(evs)/2 {
		lens = append(lens, n)
	}
	i := 0
	return func() (any, bool) {
		if i == len(lens) {
			return nil, false
		}
		i++
		return evs[:lens[i-1]:lens[i-1]], true
	}
}

// FromBytes decodes arbitrary bytes (a fuzzer's input) into a chaos
// sequence for role: every 16 bytes are one event. It never fails; the
// same bytes give the same events. A switch point's events take their
// port from byte 13 (−1..6: ports 4, 5 and 6 and −1 are out of range of
// the default 4 ports), a pause its state from the flag that sets
// Queue.Paused, its packets carry the 16 bytes as header, go between
// nodes 0..3 (bytes 14 and 15), and its messages are of a kind from
// cc.FeedbackUser up when byte 12's top bit is set. An event carries a
// telemetry stack when bit 3 of byte 1 is set.
func FromBytes(data []byte, role cc.Role) []Event {
	kinds := role.Events()
	if kinds == nil {
		kinds = []cc.EventKind{cc.EventTimer}
	}
	var evs []Event
	var now units.Time
	for len(data) >= 16 {
		b := data[:16]
		data = data[16:]
		u16 := func(i int) uint64 { return uint64(b[i]) | uint64(b[i+1])<<8 }
		ev := Event{Event: cc.Event{Kind: kinds[int(b[0])%len(kinds)]}}
		// Time: mostly forward by up to 65 µs, backwards when bit 7 of b[1] is set.
		d := units.Time(u16(2)) * units.Nanosecond
		if b[1]&0x80 != 0 {
			d = -d
		}
		now += d
		ev.At = now
		size := units.Bytes(u16(4))
		if b[1]&0x40 != 0 {
			size = -size
		}
		ev.Packet = cc.Packet{Flow: cc.FlowID(b[6] % 8), Seq: u16(7) * 1000, Payload: size, Size: size + 82, CE: b[1]&1 != 0, Prio: b[9]}
		ev.Queue = cc.Queue{Len: units.Bytes(u16(10)) * 64, Rate: 100 * units.Gbps, Paused: b[1]&2 != 0}
		ev.Feedback = cc.Feedback{Kind: cc.FeedbackKind(b[12] % 8), Flow: ev.Packet.Flow, Seq: u16(7) * 1000, Acked: size, SndNxt: u16(13) * 1000, ECE: b[1]&4 != 0}
		copy(ev.Feedback.Data[:], b)
		if role == cc.RoleSW {
			ev.Port = int(b[13]%8) - 1
			ev.Paused = ev.Queue.Paused
			copy(ev.Packet.Hdr[:], b)
			ev.Packet.Src, ev.Packet.Dst = cc.NodeID(b[14]%4), cc.NodeID(b[15]%4)
			if b[12]&0x80 != 0 {
				ev.Feedback.Kind = cc.FeedbackUser + cc.FeedbackKind(b[12]&31)
			}
		}
		if b[1]&8 != 0 {
			// A stack of 2 + 8·(b[15] mod 20) bytes (beyond the cap from
			// 16 hops on), filled with the event's bytes from b[3] on.
			ev.HasTel = true
			ev.Tel.Len = uint8(inttel.HeaderLen(int(b[15] % 20)))
			for i := range ev.Tel.Data {
				ev.Tel.Data[i] = b[(i+3)%16]
			}
		}
		evs = append(evs, ev)
	}
	return evs
}
