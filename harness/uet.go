package harness

import (
	"fmt"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// Ultra Ethernet's lossy fabric, as plug-ins beside PFC and CBFC: packet
// trimming at the switches (switch.flow_control trim), the selective
// transport at the NICs (nic.transport sack: per-packet ACKs that echo the
// data's header, NACKs of trimmed packets, selective retransmission), and
// one notification point per receiving host (nic.np_scope host, for a
// receiver's pull pacer). The package doc's sections Switch model and NIC
// model describe them; this file holds them, the switch and NIC models
// call in at a few hooks.

// Link-level flow control and NIC modes of the lossy fabric.
const (
	// FlowTrim is packet trimming ([NDP]; [UEC]): no link-level flow
	// control, and a data frame that finds its egress data queue above
	// switch.trim keeps only its header (switch.trim_bytes), which goes
	// on at the control priority.
	FlowTrim = "trim"
	// TransportGBN is the default NIC transport: go-back-N, as RoCE NICs.
	TransportGBN = "gbn"
	// TransportSACK is the selective transport ([UEC]'s packet delivery
	// sublayer, as [uet-htsim] models it): the receiver takes segments in
	// any order, ACKs each data packet (echoing its header), NACKs each
	// trimmed one; the sender resends exactly the NACKed segments, and on
	// a timeout those outstanding.
	TransportSACK = "sack"
	// NPScopeFlow and NPScopeHost: one notification point per receiving
	// flow (the default) or per receiving host (a pull pacer that serves
	// every flow into its host).
	NPScopeFlow = "flow"
	NPScopeHost = "host"
	// DefaultTrimBytes is a trimmed frame's size before the preamble and
	// gap: 64 B ([uet-htsim] main_uec.cpp, trimsize 64; the ACK size of
	// its UEC packets).
	DefaultTrimBytes = 64 * units.Byte
	// sackMaxRing bounds a flow's window of segments the selective
	// transport tracks: 2^14 (a sender never has more in flight).
	sackMaxRing = 1 << 14
)

// Segment states of the selective transport's sender.
const (
	segFree   uint8 = iota // not sent, or acknowledged cumulatively
	segOut                 // sent, neither acknowledged nor NACKed
	segAcked               // acknowledged selectively
	segQueued              // NACKed or timed out: waiting to be resent
)

// uetParams are the scenario keys of the lossy fabric (Scenario.Set).
var uetParams = []Param{
	{Name: "transport", Help: "NIC transport: gbn (go-back-N, the default) or sack (selective: per-packet ACKs, NACKs of trimmed packets, selective retransmission)", Set: setOneOf(func(s *Scenario) *string { return &s.NIC.Transport }, TransportGBN, TransportSACK)},
	{Name: "np_scope", Help: "notification points: one per receiving flow (flow, the default) or one per receiving host (host)", Set: setOneOf(func(s *Scenario) *string { return &s.NIC.NPScope }, NPScopeFlow, NPScopeHost)},
	{Name: "trim", Help: "trimming threshold of an egress data queue (flow_control trim; 0: one BDP of the network's largest RTT at the port's rate)", Set: setBytes(func(s *Scenario) *Bytes { return &s.Switch.Trim })},
	{Name: "trim_bytes", Help: "size of a trimmed frame, its header (0: 64 B)", Set: setBytes(func(s *Scenario) *Bytes { return &s.Switch.TrimBytes })},
}

func init() { commonParams = append(commonParams, uetParams...) }

// uetCheck returns the lossy fabric's settings errors of sc.
func uetCheck(sc *Scenario) error {
	sw, nic := &sc.Switch, &sc.NIC
	switch {
	case nic.Transport != "" && nic.Transport != TransportGBN && nic.Transport != TransportSACK:
		return fmt.Errorf("nic.transport = %q: want gbn or sack", nic.Transport)
	case nic.NPScope != "" && nic.NPScope != NPScopeFlow && nic.NPScope != NPScopeHost:
		return fmt.Errorf("nic.np_scope = %q: want flow or host", nic.NPScope)
	case sw.Trim < 0 || sw.Trim > MaxBuffer:
		return fmt.Errorf("switch.trim = %v: want 0 (one BDP) .. %v", units.Bytes(sw.Trim), units.Bytes(MaxBuffer))
	case sw.TrimBytes != 0 && (sw.TrimBytes < Bytes(MinFrameBytes) || sw.TrimBytes > Bytes(DataOverheadBytes+9000)):
		return fmt.Errorf("switch.trim_bytes = %v: want 0 (64 B) or %v..%v", units.Bytes(sw.TrimBytes), MinFrameBytes, DataOverheadBytes+9000)
	case sw.flowControl() == FlowTrim && nic.Transport != TransportSACK:
		return fmt.Errorf("switch.flow_control trim needs nic.transport sack (a go-back-N receiver cannot ask for a trimmed packet alone)")
	}
	return nil
}

// uetFabric is the lossy fabric of a run: its settings and counters.
type uetFabric struct {
	trim      bool        // switch.flow_control trim
	trimK     units.Bytes // switch.trim (0: one BDP per port)
	trimSize  units.Bytes // a trimmed frame's wire bytes
	sack      bool        // nic.transport sack
	hostScope bool        // nic.np_scope host
	hostNPs   []*schemeNP // by node ID (host scope)

	// Counters (Counters, Report).
	trims, trimmedPayload int64 // frames trimmed, their payload
	nacks                 int64 // NACKs the receivers sent
	rtxPayload            int64 // payload the senders resent
	dupPayload            int64 // payload received twice (a resend after a timeout)
}

// newUETFabric returns the fabric of sc, or nil when it uses none of it.
func newUETFabric(sc *Scenario, preamble units.Bytes) *uetFabric {
	u := &uetFabric{
		trim:      sc.Switch.flowControl() == FlowTrim,
		trimK:     units.Bytes(sc.Switch.Trim),
		trimSize:  orDefault(units.Bytes(sc.Switch.TrimBytes), DefaultTrimBytes) + preamble,
		sack:      sc.NIC.Transport == TransportSACK,
		hostScope: sc.NIC.NPScope == NPScopeHost,
	}
	if !u.trim && !u.sack && !u.hostScope {
		return nil
	}
	return u
}

// trimmed is the switch's trimming hook (enqueue): data frame p, about to
// join egress port out, is trimmed when its data queue with p would exceed
// the threshold ([uet-htsim]'s queues trim a packet that does not fit
// below their limit): it becomes a header of the trim size (KindTrim) at
// the control priority, carrying the payload it stood for in Payload, its
// header marked trimmed, and at the last hop when out faces its
// destination.
func (u *uetFabric) trimmed(s *Sim, out *port, p *Packet) {
	if !u.trim || p.Kind != KindData {
		return
	}
	k := u.trimK
	if k == 0 {
		k = units.BytesIn(out.rate, s.maxRTT)
	}
	if out.qbytes[p.Prio]+p.Size <= k {
		return
	}
	u.trims++
	u.trimmedPayload += int64(p.Payload)
	p.Kind, p.Prio, p.Size = KindTrim, ControlPrio, u.trimSize
	p.HasTel = false
	wire.MarkUECTrimmed(&p.Hdr, out.peer.node.isHost && out.peer.node.id == p.Dst)
}

// sackFlow is one flow's selective transport: the sender's segment states
// and resend queue, the receiver's bitmap of segments above rcvNxt, over a
// ring of mask + 1 segments, a power of two (segment k is bytes
// [k·payload, (k+1)·payload)).
type sackFlow struct {
	mask      uint64   // ring size − 1
	seg       []uint8  // sender: state of segment k at k & mask
	rtx       []uint64 // sender: FIFO of segments to resend
	head, n   int
	out       units.Bytes // sender: payload outstanding
	got       []uint64    // receiver: bitmap of segments received
	pay, size uint64
}

// newSackFlow sizes f's ring: the flow's segments, at most sackMaxRing.
func (s *Sim) newSackFlow(f *flow) *sackFlow {
	segs := uint64(sackMaxRing)
	if f.info.Size > 0 {
		segs = min(segs, (uint64(f.info.Size)+uint64(s.payload)-1)/uint64(s.payload))
	}
	w := uint64(64)
	for w < segs {
		w <<= 1
	}
	return &sackFlow{mask: w - 1, seg: make([]uint8, w), rtx: make([]uint64, w), got: make([]uint64, w/64),
		pay: uint64(s.payload), size: uint64(f.info.Size)}
}

// segPay is segment k's payload.
func (q *sackFlow) segPay(k uint64) units.Bytes {
	if q.size > 0 && (k+1)*q.pay > q.size {
		return units.Bytes(q.size - k*q.pay)
	}
	return units.Bytes(q.pay)
}

// nextRtx returns the next segment to resend (dropping stale entries:
// segments acknowledged since they were queued, selectively or below
// snd_una, segment una), or false.
func (q *sackFlow) nextRtx(una uint64) (uint64, bool) {
	for q.n > 0 {
		k := q.rtx[q.head]
		if k >= una && q.seg[k&q.mask] == segQueued {
			return k, true
		}
		q.head = (q.head + 1) % len(q.rtx)
		q.n--
	}
	return 0, false
}

// queue puts segment k (outstanding) on the resend queue. A queue full of
// entries, some stale, is compacted first: it holds at most one live
// entry per segment of the ring, so there is then room.
func (q *sackFlow) queue(k, una uint64) {
	if q.n == len(q.rtx) {
		live := 0
		for i := range q.n {
			e := q.rtx[(q.head+i)%len(q.rtx)]
			if e >= una && q.seg[e&q.mask] == segQueued {
				q.rtx[(q.head+live)%len(q.rtx)] = e
				live++
			}
		}
		q.n = live
	}
	q.seg[k&q.mask] = segQueued
	q.out -= q.segPay(k)
	q.rtx[(q.head+q.n)%len(q.rtx)] = k
	q.n++
}

// inflight is the payload f has in flight: outstanding segments under the
// selective transport, else snd_nxt − snd_una.
func (f *flow) inflight() units.Bytes {
	if f.sack != nil {
		return f.sack.out
	}
	return units.Bytes(f.sndNxt - f.sndUna)
}

// sackHasData reports whether f (selective) has a segment to send: one to
// resend, or new data within its ring.
func (f *flow) sackHasData() bool {
	q := f.sack
	if _, ok := q.nextRtx(f.sndUna / q.pay); ok {
		return true
	}
	if f.info.Size > 0 && f.sndNxt >= uint64(f.info.Size) {
		return false
	}
	return f.sndNxt/q.pay-f.sndUna/q.pay <= q.mask
}

// sackNextPay is the payload of f's next frame (selective).
func (f *flow) sackNextPay() units.Bytes {
	q := f.sack
	if k, ok := q.nextRtx(f.sndUna / q.pay); ok {
		return q.segPay(k)
	}
	return q.segPay(f.sndNxt / q.pay)
}

// sackMake fills p with f's next segment (selective): a resend first, else
// new data; it returns the payload. f.sndNxt advances for new data only.
func (s *Sim) sackMake(f *flow, p *Packet) units.Bytes {
	q := f.sack
	if k, ok := q.nextRtx(f.sndUna / q.pay); ok {
		q.head = (q.head + 1) % len(q.rtx)
		q.n--
		pay := q.segPay(k)
		q.seg[k&q.mask] = segOut
		q.out += pay
		p.Seq = k * q.pay
		f.retransmits++
		s.uet.rtxPayload += int64(pay)
		return pay
	}
	k := f.sndNxt / q.pay
	pay := q.segPay(k)
	q.seg[k&q.mask] = segOut
	q.out += pay
	p.Seq = f.sndNxt
	f.sndNxt += uint64(pay)
	return pay
}

// sackReceive is the selective receiver's data path: a segment not yet
// received is delivered (in any order) and ACKed; a duplicate is counted
// and ACKed, not delivered again.
func (s *Sim) sackReceive(f *flow, p *Packet) {
	q := f.sack
	k := p.Seq / q.pay
	base := f.rcvNxt / q.pay
	if k < base || k-base > q.mask || q.got[(k&q.mask)/64]&(1<<(k&63)) != 0 {
		s.uet.dupPayload += int64(p.Payload)
		s.sackAck(f, p, KindAck)
		return
	}
	q.got[(k&q.mask)/64] |= 1 << (k & 63)
	f.rxBytes += p.Payload
	f.rxWire += p.Size
	if f.firstRx < 0 {
		f.firstRx = s.now
	}
	f.lastRx = s.now
	for {
		b := f.rcvNxt / q.pay
		i := b & q.mask
		if q.got[i/64]&(1<<(b&63)) == 0 || (f.info.Size > 0 && f.rcvNxt >= uint64(f.info.Size)) {
			break
		}
		q.got[i/64] &^= 1 << (b & 63)
		f.rcvNxt += uint64(q.segPay(b))
	}
	s.sackAck(f, p, KindAck)
}

// sackTrimmed is the selective receiver's trimmed header: the notification
// point sees it (with no payload), and the source gets a NACK of its
// segment, unless it has arrived already (then an ACK, as the model's
// receiver answers a trimmed copy of a packet it holds).
func (s *Sim) sackTrimmed(f *flow, p *Packet) {
	if f.np != nil {
		if f.np.onTrimmed(s.now, p) {
			s.sendCNP(f)
		}
		s.armNP(f)
	}
	q := f.sack
	if q == nil {
		return
	}
	k := p.Seq / q.pay
	base := f.rcvNxt / q.pay
	if k < base || (k-base <= q.mask && q.got[(k&q.mask)/64]&(1<<(k&63)) != 0) {
		s.sackAck(f, p, KindAck)
		return
	}
	s.uet.nacks++
	s.sackAck(f, p, KindNak)
}

// sackAck sends the ACK or NACK of data packet or trimmed header d: the
// cumulative rcvNxt in Seq, the segment in sackSeq, d's ECN mark, and d's
// header echoed (its send time, the trimmed mark).
func (s *Sim) sackAck(f *flow, d *Packet, kind Kind) {
	a := s.newAck(f, d, kind)
	a.sackSeq = d.Seq
	a.ECE = d.CE
	a.Hdr = d.Hdr
	a.ackPkts = 1
	if d.CE {
		a.ackMarked = 1
	}
	a.Size = AckFrameBytes + s.preamble
	s.hostQueueControl(f.dst, a)
}

// sackAckArrived is the selective sender's ACK and NACK processing: the
// cumulative part frees the segments below it, the selective part
// acknowledges its segment (ACK) or queues it for resending (NACK); the
// reaction point sees an ACK of the bytes newly acknowledged, or the NACK
// of an outstanding segment, with the echoed header in its Data.
func (s *Sim) sackAckArrived(f *flow, p *Packet) {
	q := f.sack
	var newly units.Bytes
	cum := min(p.Seq, f.sndNxt)
	for k := f.sndUna / q.pay; k*q.pay < cum; k++ {
		switch q.seg[k&q.mask] {
		case segOut:
			pay := q.segPay(k)
			q.out -= pay
			newly += pay
		}
		q.seg[k&q.mask] = segFree
	}
	if cum > f.sndUna {
		f.sndUna = cum
	}
	k := p.sackSeq / q.pay
	nack := false
	if p.sackSeq >= f.sndUna && p.sackSeq < f.sndNxt {
		i := k & q.mask
		switch {
		case p.Kind == KindNak && q.seg[i] == segOut:
			q.queue(k, f.sndUna/q.pay)
			nack = true
			s.kick(f.src.ports[0])
		case p.Kind == KindAck && q.seg[i] == segOut:
			pay := q.segPay(k)
			q.out -= pay
			newly += pay
			q.seg[i] = segAcked
		case p.Kind == KindAck && q.seg[i] == segQueued:
			q.seg[i] = segAcked // stale in the resend queue
		}
	}
	if s.rto > 0 {
		switch {
		case q.out == 0 && q.n == 0:
			f.rtoAt = units.MaxTime
		case newly > 0 || nack:
			f.rtoAt = s.now + s.rto
			s.armRTO(f)
		}
	}
	done := f.info.Size > 0 && f.sndUna >= uint64(f.info.Size)
	if !nack && newly == 0 && !done {
		return // stale: the model's sender ignores it
	}
	a := &s.ack
	*a = ackInfo{
		Flow: f.id, Seq: f.sndUna, Newly: newly, SndNxt: f.sndNxt, Inflight: q.out,
		ECE: p.ECE, Marked: int(p.ackMarked), Packets: int(p.ackPkts), RTT: s.now - p.SentAt, Done: done,
		Data: p.Hdr,
	}
	if nack {
		a.NAK, a.Seq = true, p.sackSeq
	}
	f.rp.OnAck(s.now, a)
	if done {
		s.finish(f)
		return
	}
	s.applyRP(f)
	if newly > 0 {
		s.kick(f.src.ports[0])
	}
}

// sackTimeout is the selective sender's retransmission timeout: every
// outstanding segment is queued for resending.
func (s *Sim) sackTimeout(f *flow) {
	q := f.sack
	any := false
	for k := f.sndUna / q.pay; k*q.pay < f.sndNxt; k++ {
		if q.seg[k&q.mask] == segOut {
			q.queue(k, f.sndUna/q.pay)
			any = true
		}
	}
	if any {
		s.st.timeouts++
		s.kick(f.src.ports[0])
	}
}

// hostNP returns the notification point of f's destination host (host
// scope), building it for f's environment on the host's first flow: its
// timer runs as that flow's, and its messages go to the source of the
// flow they name.
func (s *Sim) hostNP(f *flow) (*schemeNP, error) {
	u := s.uet
	if u.hostNPs == nil {
		u.hostNPs = make([]*schemeNP, len(s.nodes))
	}
	if w := u.hostNPs[f.dst.id]; w != nil {
		return w, nil
	}
	info := f.info
	info.Src, info.SrcName = f.dst.id, f.dst.name
	info.ID = FlowID(f.dst.id)
	w, err := s.algo.newNP(info)
	if err != nil || w == nil {
		return w, err
	}
	dst := f.dst
	w.owner = f
	w.send = func(fb cc.Feedback) bool {
		id := FlowID(fb.Flow)
		if id < 0 || int(id) >= len(s.flows) || s.flows[id].dst != dst {
			w.errs.Add(s.now, -1, fmt.Errorf("harness: host %s's notification point sent %v about flow %d, which does not end there", dst.name, fb.Kind, fb.Flow))
			return false
		}
		return s.sendToSource(s.flows[id], fb)
	}
	u.hostNPs[f.dst.id] = w
	return w, nil
}

// onTrimmed hands the notification point a trimmed header: the packet
// as it arrived, with no payload (its bytes were cut; Seq says which).
func (w *schemeNP) onTrimmed(now units.Time, p *Packet) bool {
	return w.receive(now, p, 0)
}
