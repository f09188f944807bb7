package harness

import (
	"fmt"

	"github.com/hwcc/hwcc/credit"
	"github.com/hwcc/hwcc/units"
)

// Link-level flow control modes (SwitchSpec.FlowControl).
const (
	FlowPFC  = "pfc"  // 802.1Qbb priority flow control (PAUSE/RESUME at Xoff/Xon)
	FlowCBFC = "cbfc" // InfiniBand credit-based flow control (package credit)
	FlowNone = "none" // none: tail drop when the buffer is full
)

// Defaults of the CBFC mode.
const (
	// DefaultCBFCBuffer is the receive buffer of one ingress port for one
	// data priority: 2048 blocks of 64 bytes, the most credit a 12-bit
	// CBFC window can advertise (credit.MaxAdvance), so that a larger
	// buffer would sit unused.
	DefaultCBFCBuffer = 128 * units.KiB
	// cbfcGapDivisor: with switch.cbfc_gap 0, the shortest spacing of the
	// flow-control packets a credit change sends is the period / 8.
	cbfcGapDivisor = 8
)

// FCFrameBytes is the wire frame of a CBFC flow-control packet in the
// harness: its 6 bytes (credit.FCPacket) padded to a minimum Ethernet
// frame, as a PFC frame is (IBA sends them on the link with their own
// framing; the harness's links are Ethernet-like, so it costs the link
// what a PFC frame does).
const FCFrameBytes = MinFrameBytes

// cbfcControl is InfiniBand-style credit-based flow control on every link
// into a switch (IBA Vol. 1 section 7.9; survey section 3.1), one
// credit.CBFCSender per data priority (virtual lane) at the upstream
// egress and one credit.CBFCReceiver per data priority at the switch's
// ingress:
//
//   - An egress sends a data-priority frame only while its sender's credit
//     covers the frame's blocks (the frame's wire bytes without preamble
//     and gap, plus the INT record the port may stamp, in 64-byte blocks):
//     a switch's scheduler passes over a priority short of credit as over a
//     paused one, a NIC its flows. Control frames (ControlPrio, IBA's VL15
//     analogue) and link frames are not flow controlled and take no buffer.
//   - The switch counts each admitted frame into its ingress's receiver
//     (ABR, free blocks) and drains it when the frame leaves; the receiver
//     sends a flow-control packet (FCFrameBytes, before any other frame of
//     the port, as PFC frames go) every switch.cbfc_period and when its
//     credit limit changes (no sooner than switch.cbfc_gap after the last);
//     the packet carries FCCL for the lane and the port's own FCTBS for
//     the reverse direction, which the peer's receiver resynchronises to.
//   - Links come up before time 0: every sender starts with the credit of
//     its receiver's first flow-control packet (min(buffer, 2048 blocks)),
//     and the periodic packets start one period later.
//   - Links into hosts are not flow controlled: a NIC takes what arrives at
//     line rate (as with PFC, where hosts never pause).
//
// A frame the receiver refuses (the sender broke its credit: cannot happen
// unless the harness is wrong) is dropped and reported as an error, so a
// run that shows none has kept the rule: no switch ever held more than it
// advertised. CBFC runs on the lanes the run uses (cbfcLanes: DataPrio,
// the flows' priorities, the scheme's control kinds'), as an IBA port
// runs it on the data VLs it is configured with. Every switch's buffer
// must hold its ports' receive buffers (ports × lanes ×
// switch.cbfc_buffer), so that no frame that kept the credit rule is
// dropped for want of buffer.
type cbfcControl struct{}

func (cbfcControl) admit(s *Sim, _ *node, in *port, p *Packet) bool {
	if in == nil {
		return true
	}
	if rx := in.cbfcRx; rx != nil && rx[p.Prio] != nil {
		if err := rx[p.Prio].Absorb(s.now, s.cbfcBlocks(p.Size)); err != nil {
			s.cbfcErr(in, err)
			return false
		}
		s.armFC(in)
	}
	ingressAdd(in, p)
	return true
}

func (cbfcControl) release(s *Sim, _ *node, in *port, p *Packet) {
	in.ing[p.Prio] -= p.inSize
	if rx := in.cbfcRx; rx != nil && rx[p.Prio] != nil {
		if err := rx[p.Prio].Drain(s.now, s.cbfcBlocks(p.inSize)); err != nil {
			s.cbfcErr(in, err)
		}
		s.armFC(in)
	}
}

// cbfcBlocks is the credit a frame of wire size size costs: its bytes
// without preamble and gap, in 64-byte blocks.
func (s *Sim) cbfcBlocks(size units.Bytes) credit.Blocks {
	return credit.BlocksOf(size - s.preamble)
}

// cbfcErr reports a CBFC refusal at port pt.
func (s *Sim) cbfcErr(pt *port, err error) {
	ErrorSink{log: &s.errs, where: pt.name + " cbfc"}.Add(s.now, -1, err)
}

// creditFor reports whether pt may send a frame of wire size size at
// priority prio: always without CBFC, else when its sender's credit covers
// the frame and the INT record the port may add to it (cbfcAdj).
func (pt *port) creditFor(prio int, size units.Bytes) bool {
	if pt.cbfcTx == nil || prio >= ControlPrio || pt.cbfcTx[prio] == nil {
		return true
	}
	return pt.cbfcTx[prio].CanSend(credit.BlocksOf(size + pt.cbfcAdj))
}

// cbfcSent spends the credit of frame p, which pt starts sending now.
func (s *Sim) cbfcSent(pt *port, p *Packet) {
	if pt.cbfcTx == nil || p.Prio >= ControlPrio || pt.cbfcTx[p.Prio] == nil || p.Kind == KindPFC || p.Kind == KindFC {
		return
	}
	if err := pt.cbfcTx[p.Prio].Send(s.now, s.cbfcBlocks(p.Size)); err != nil {
		s.cbfcErr(pt, err)
	}
}

// armFC schedules the flow-control timer of switch port pt at the
// earliest deadline of its receivers whose packet is not already waiting
// for the port (fcDue).
func (s *Sim) armFC(pt *port) {
	d := units.MaxTime
	for vl, rx := range pt.cbfcRx {
		if rx != nil && pt.fcDue&(1<<vl) == 0 {
			d = min(d, rx.NextDeadline())
		}
	}
	d = max(d, s.now)
	if pt.fcWake.want(d) {
		s.evq.push(event{at: d, kind: evFCTimer, idx: pt.gid})
	}
}

// onFCTimer marks the lanes of pt whose flow-control packet is due and
// starts sending them.
func (s *Sim) onFCTimer(pt *port) {
	pt.fcWake.fired(s.now)
	for vl, rx := range pt.cbfcRx {
		if rx != nil && rx.NextDeadline() <= s.now {
			pt.fcDue |= 1 << vl
		}
	}
	if pt.fcDue != 0 {
		s.kick(pt)
	}
	s.armFC(pt)
}

// nextFC returns a flow-control packet port pt owes its peer, or nil:
// the receiver's Advertise runs when the frame starts, so the packet carries
// the credit limit of that moment.
func (s *Sim) nextFC(pt *port) *Packet {
	for pt.fcDue != 0 {
		vl := uint8(0)
		for pt.fcDue&(1<<vl) == 0 {
			vl++
		}
		pt.fcDue &^= 1 << vl
		fc, ok, err := pt.cbfcRx[vl].Advertise(s.now)
		if err != nil {
			s.cbfcErr(pt, err)
			continue
		}
		if !ok {
			continue
		}
		if pt.cbfcTx != nil && pt.cbfcTx[vl] != nil {
			fc.FCTBS = pt.cbfcTx[vl].FCTBS()
		}
		p := s.pool.get()
		p.Kind = KindFC
		p.Prio = vl
		p.Src = pt.node.id
		p.Dst = pt.peer.node.id
		p.Size = FCFrameBytes + s.preamble
		if _, err := fc.AppendTo(p.Feedback.Data[:0]); err != nil { // 6 bytes, within the array: no allocation
			s.cbfcErr(pt, err)
			s.free(p)
			continue
		}
		s.st.fcSent++
		s.armFC(pt)
		return p
	}
	return nil
}

// onFC applies a flow-control packet that arrived through port pt: the
// credit limit to pt's sender of that lane, and the peer's FCTBS to pt's
// receiver (a switch port that also receives credit-controlled data).
func (s *Sim) onFC(pt *port, p *Packet) {
	fc, err := credit.DecodeFCPacket(p.Feedback.Data[:credit.FCPacketSize])
	if err != nil {
		s.cbfcErr(pt, err)
		return
	}
	if pt.cbfcTx != nil && int(fc.VL) < len(pt.cbfcTx) && pt.cbfcTx[fc.VL] != nil {
		if _, err := pt.cbfcTx[fc.VL].UpdateFC(s.now, fc); err != nil {
			s.cbfcErr(pt, err)
		}
		s.kick(pt)
	}
	if pt.cbfcRx != nil && int(fc.VL) < len(pt.cbfcRx) && pt.cbfcRx[fc.VL] != nil {
		if err := pt.cbfcRx[fc.VL].ResyncFC(s.now, fc); err != nil {
			s.cbfcErr(pt, err)
		}
		s.armFC(pt)
	}
}

// cbfcLanes returns the data priorities the run can send frames on, as a
// bit mask and a count: DataPrio, the priorities of the workload's flows,
// and those of the scheme's control kinds below ControlPrio. CBFC runs on
// these lanes only (a lane with no traffic would only add its periodic
// flow-control packets to the links).
func (s *Sim) cbfcLanes() (mask uint8, n int) {
	mask = 1 << DataPrio
	for _, fs := range s.sc.Workload.Flows {
		if fs.Prio != nil && *fs.Prio >= 0 && *fs.Prio < ControlPrio {
			mask |= 1 << *fs.Prio
		}
	}
	for _, k := range s.kinds {
		if k.Prio < ControlPrio {
			mask |= 1 << k.Prio
		}
	}
	for m := mask; m != 0; m &= m - 1 {
		n++
	}
	return mask, n
}

// buildCBFC gives every link into a switch its CBFC pairs, brings them up
// (each sender holds its receiver's first advertisement) and arms the
// receivers' periodic flow-control packets.
func (s *Sim) buildCBFC(sw *SwitchSpec) error {
	capacity := credit.BlocksOf(units.Bytes(orDefault(sw.CBFCBuffer, Bytes(DefaultCBFCBuffer))))
	used, lanes := s.cbfcLanes()
	if need := s.cbfcBlocks(s.maxFrame()); need > min(capacity, credit.MaxAdvance) {
		return fmt.Errorf("switch.cbfc_buffer = %v: smaller than one full data frame (%v)", capacity.Bytes(), need.Bytes())
	}
	for _, n := range s.nodes {
		if n.isHost {
			continue
		}
		if need := units.Bytes(len(n.ports)*lanes) * capacity.Bytes(); need > n.buffer {
			return fmt.Errorf("switch %s: buffer %v cannot hold the CBFC receive buffers of its %d ports (%d lanes × %v = %v); lower switch.cbfc_buffer or raise switch.buffer",
				n.name, n.buffer, len(n.ports), lanes, capacity.Bytes(), need)
		}
		for _, in := range n.ports {
			period := units.Time(sw.CBFCPeriod)
			if period == 0 {
				period = credit.IBAUpdatePeriod(units.SerializationTime(1, in.rate))
			}
			gap := units.Time(sw.CBFCGap)
			if gap == 0 {
				gap = period / cbfcGapDivisor
			}
			up := in.peer
			in.fcWake.at = units.MaxTime
			up.cbfcAdj = -s.preamble
			if s.feat.telemetry() && !up.node.isHost {
				up.cbfcAdj += s.feat.tel.Hop // the record this port may push at dequeue
			}
			in.cbfcRx = make([]*credit.CBFCReceiver, ControlPrio)
			up.cbfcTx = make([]*credit.CBFCSender, ControlPrio)
			for vl := range ControlPrio {
				if used&(1<<vl) == 0 {
					continue
				}
				rx, err := credit.NewCBFCReceiver(credit.CBFCReceiverConfig{VL: uint8(vl), Capacity: capacity, Period: period, MinGap: min(gap, period)})
				if err != nil {
					return fmt.Errorf("switch.cbfc: %w", err)
				}
				tx, err := credit.NewCBFCSender(uint8(vl))
				if err != nil {
					return fmt.Errorf("switch.cbfc: %w", err)
				}
				first, _, err := rx.Advertise(0)
				if err != nil {
					return err
				}
				if _, err := tx.Update(0, first.FCCL); err != nil {
					return err
				}
				in.cbfcRx[vl], up.cbfcTx[vl] = rx, tx
			}
		}
	}
	for _, n := range s.nodes {
		if !n.isHost {
			for _, in := range n.ports {
				s.armFC(in)
			}
		}
	}
	return nil
}
