package cp

import (
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/credit"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/voq"
	"github.com/hwcc/hwcc/wire"
)

// hierccReceiverConfig configures a receiver-side ToR.
type hierccReceiverConfig struct {
	// Ports is k, its output ports toward its hosts, 1..HierCCMaxPorts;
	// the caller numbers them 0..Ports−1.
	Ports int
	// ToRs is M, the sender-side ToRs whose VOQs may send to its hosts:
	// each port's WRR has an entry per ToR i in 0..ToRs−1
	// (1..HierCCMaxToRs).
	ToRs int
	// Rate is the ports' line rate (section 2.2: 25 Gb/s),
	// 1 b/s..wire.HierCCMaxRate.
	Rate units.Rate
	// Delta is Δ, the bytes one credit lets a VOQ send (section 3.2:
	// 1 KB), 1..wire.HierCCMaxCreditAmount.
	Delta units.Bytes
	// C0 is the VOQs' initial credit (section 5: 10 KB): the WRR starts a
	// VOQ's C_ij at S_ij − min(S_ij, C0) (credit.WRR).
	C0 units.Bytes
}

// hierccPaperReceiver returns the paper's receiver-side ToR (sections 2.2, 3.2
// and 5): ports host ports at rate line, tors sender-side ToRs, Δ = 1 KB,
// C0 = 10 KB.
func hierccPaperReceiver(ports, tors int, line units.Rate) hierccReceiverConfig {
	return hierccReceiverConfig{Ports: ports, ToRs: tors, Rate: line, Delta: voq.PaperDelta, C0: voq.PaperC0}
}

const hierccReceiverPart = "cp.HierCCReceiver"

// Validate reports the first field out of range as a *cc.ConfigError.
func (c hierccReceiverConfig) Validate() error {
	switch {
	case c.Ports < 1 || c.Ports > HierCCMaxPorts:
		return hierccCfgErr(hierccReceiverPart, "Ports", strconv.Itoa(c.Ports), "1.."+strconv.Itoa(HierCCMaxPorts))
	case c.ToRs < 1 || c.ToRs > HierCCMaxToRs:
		return hierccCfgErr(hierccReceiverPart, "ToRs", strconv.Itoa(c.ToRs), "1.."+strconv.Itoa(HierCCMaxToRs))
	case c.Rate < 1 || c.Rate > wire.HierCCMaxRate:
		return hierccCfgErr(hierccReceiverPart, "Rate", c.Rate.String(), "1bps.."+wire.HierCCMaxRate.String())
	case c.Delta < 1 || c.Delta > wire.HierCCMaxCreditAmount:
		return hierccCfgErr(hierccReceiverPart, "Delta", c.Delta.String(), "1B.."+units.Bytes(wire.HierCCMaxCreditAmount).String())
	}
	return c.wrr().Validate()
}

func (c hierccReceiverConfig) wrr() credit.WRRConfig {
	return credit.WRRConfig{Entries: c.ToRs, Credit: c.Delta, C0: c.C0}
}

// noHost marks a port that has learnt no host yet.
const hierccNoHost = ^uint64(0)

// hierccReceiver is one receiver-side ToR of HierCC ([HierCC]
// §3.1 and §3.2, "WRR credit scheduler at receiver-side ToRs"):
// per output port toward a host j, a credit.WRR over the VOQs i.j that
// send to j, learnt from the headers of the packets that arrive (S_ij,
// F_ij), and a credit generator that sends one credit of Δ bytes per Δ
// bytes of the port's time, each to the VOQ the WRR picks (weight
// F_ij/Σ_i F_ij, only while C_ij < S_ij).
//
// # Events
//
//	Arrive  a data packet from the fabric, to go out of port p: its
//	        Header's S_ij and F_ij update the entry of ToR i in p's WRR
//	        (credit.WRR.Observe); the first header at p sets p's host j
//	expire  at NextDeadline: each port whose tick is due and that has an
//	        eligible VOQ grants (credit.WRR.Grant) and appends a
//	        wire.HierCCCreditPacket (ToR i, host j, Δ, C_ij) to the
//	        caller's slice; Timer runs every expiry due by its now, in
//	        time order (ports in index order at equal times)
//
// # Pacing
//
// Each port ticks every SerializationTime(Δ, Rate) (320 ns for 1 KB at
// 25 Gb/s): one Δ per Δ bytes of port time, so the credits granted add up
// to the port's line rate in the bytes the sender's VOQ spends (the
// harness's wire bytes). A tick with no eligible VOQ is not kept; a port
// with none stops ticking (NextDeadline skips it) and, when an arrival
// makes a VOQ eligible again, its next tick is at once if a tick interval
// has passed since its last credit. Every tick of a port with an eligible
// VOQ sends its credit, however late the caller (as cp.HierCC's rule-4
// catch-up needs); their number is bounded by what the WRR owes
// (credit.WRR.Owed). The paper does not
// say how credits are paced; it also does not say whether traffic that
// bypasses the VOQs (intra-rack, control) takes from the credited rate:
// here it does not.
//
// # Bound
//
// The WRR grants to a VOQ only while C_ij < S_ij and adds Δ per grant;
// an entry starts at C_ij = S_ij − min(S_ij, C0) ≤ S_ij. So at every
// instant, in 32-bit serial-number order, C_ij ≤ S_ij + Δ − 1 for the
// largest S_ij the ToR has seen (the test and the fuzz target check it),
// and the VOQ's balance C0 + C_ij − S_ij stays below C0 + Δ.
//
// Refused events change nothing: *cc.EventError (ErrHierCCPort, credit's
// ErrNoEntry for a ToR ≥ ToRs) or *cc.TimeOrderError. Not safe for
// concurrent use; nothing allocates after newHierCCReceiver except errors and
// a caller's slice that must grow.
type hierccReceiver struct {
	cfg      hierccReceiverConfig
	clock    cc.Monotonic
	wrr      []*credit.WRR
	host     []uint64     // learnt host j per port, noHost: none
	tick     []units.Time // next credit tick per port
	interval units.Time
	next     units.Time // min tick over ports with an eligible VOQ
	credits  uint64
	// scratch is a WRR of the ports' size that grantsTo runs ahead on.
	scratch *credit.WRR
}

// newHierCCReceiver validates cfg and returns a ToR with empty tables.
func newHierCCReceiver(cfg hierccReceiverConfig) (*hierccReceiver, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	r := &hierccReceiver{
		cfg:      cfg,
		wrr:      make([]*credit.WRR, cfg.Ports),
		host:     make([]uint64, cfg.Ports),
		tick:     make([]units.Time, cfg.Ports),
		interval: max(units.SerializationTime(cfg.Delta, cfg.Rate), 1),
		next:     units.MaxTime,
	}
	for p := range r.wrr {
		w, err := credit.NewWRR(cfg.wrr())
		if err != nil {
			return nil, err
		}
		r.wrr[p] = w
		r.host[p] = hierccNoHost
	}
	var err error
	if r.scratch, err = credit.NewWRR(cfg.wrr()); err != nil {
		return nil, err
	}
	return r, nil
}

// Config returns the configuration.
func (r *hierccReceiver) Config() hierccReceiverConfig { return r.cfg }

// Interval is the time between two credits of one port.
func (r *hierccReceiver) Interval() units.Time { return r.interval }

// MaxCreditPackets is the most credit packets one expiry appends: one per
// port.
func (r *hierccReceiver) MaxCreditPackets() int { return r.cfg.Ports }

// Entry returns the WRR entry of ToR tor at port (S_ij, C_ij, F_ij).
func (r *hierccReceiver) Entry(port, tor int) (credit.WRREntry, bool) {
	if port < 0 || port >= len(r.wrr) {
		return credit.WRREntry{}, false
	}
	return r.wrr[port].Entry(tor)
}

// Host returns the host port has learnt.
func (r *hierccReceiver) Host(port int) (voq.Key, bool) {
	if port < 0 || port >= len(r.host) || r.host[port] == hierccNoHost {
		return 0, false
	}
	return voq.Key(r.host[port]), true
}

// Credits returns the credits sent (64 bits, wrapping).
func (r *hierccReceiver) Credits() uint64 { return r.credits }

// NextDeadline is the earliest tick of a port with an eligible VOQ.
func (r *hierccReceiver) NextDeadline() units.Time { return r.next }

//go:noinline
func hierccPortErr(event string, port int, reason string) error {
	return &cc.EventError{Part: hierccReceiverPart, Event: event, Reason: "port " + strconv.Itoa(port) + reason, Err: ErrHierCCPort}
}

//go:noinline
func hierccToRErr(event string, tor uint16, tors int) error {
	return &cc.EventError{Part: hierccReceiverPart, Event: event, Reason: "ToR " + strconv.Itoa(int(tor)) + ", want 0.." + strconv.Itoa(tors-1), Err: credit.ErrNoEntry}
}

// Arrive takes the header of a data packet that arrived from the fabric
// for output port port: VOQ h.ToR.h.Dst reports S_ij = h.Sent and F_ij =
// h.Flows (credit.WRR.Observe; a report older than the entry's S, a
// reordered packet, is ignored: taken false). The first header at a port
// sets its host j. The caller runs the expiries due at or before now
// first (Timer), as cp.HierCC does: a credit tick is never granted after a
// header that arrived later. Refused (nothing changes): a port outside
// 0..Ports−1 or whose host is not h.Dst (ErrHierCCPort), h.ToR ≥ ToRs
// (credit.ErrNoEntry), time going back.
func (r *hierccReceiver) Arrive(now units.Time, port int, h wire.HierCCHeader) (taken bool, err error) {
	if !r.clock.InOrder(now) {
		return false, r.clock.Check(hierccReceiverPart, "Arrive", now)
	}
	if err := r.checkArrive(port, h); err != nil {
		return false, err
	}
	w := r.wrr[port]
	was := w.Eligible() > 0
	taken, err = w.Observe(now, int(h.ToR), h.Sent, h.Flows)
	if err != nil {
		return false, err // not reached: time and index checked above
	}
	r.clock.Advance(now)
	r.host[port] = uint64(h.Dst)
	if !was && w.Eligible() > 0 {
		// The port wakes: its next tick no earlier than now, nor than one
		// interval after its last credit.
		r.tick[port] = max(r.tick[port], now)
		r.next = min(r.next, r.tick[port])
	}
	return taken, nil
}

// checkArrive returns Arrive's refusal of header h at port, other than
// time going back: a port outside 0..Ports−1 or whose host is not h.Dst
// (ErrHierCCPort), h.ToR ≥ ToRs (credit.ErrNoEntry).
func (r *hierccReceiver) checkArrive(port int, h wire.HierCCHeader) error {
	if port < 0 || port >= len(r.wrr) {
		return hierccPortErr("Arrive", port, " outside 0.."+strconv.Itoa(len(r.wrr)-1))
	}
	if r.host[port] != hierccNoHost && r.host[port] != uint64(h.Dst) {
		return hierccPortErr("Arrive", port, " leads to host "+strconv.FormatUint(r.host[port], 10)+", not "+strconv.FormatUint(uint64(h.Dst), 10))
	}
	if int(h.ToR) >= r.cfg.ToRs {
		return hierccToRErr("Arrive", h.ToR, r.cfg.ToRs)
	}
	return nil
}

// expire runs the expiry at d = NextDeadline: every port whose tick is d
// and that has an eligible VOQ grants one credit at d, appended to out as
// a wire.HierCCCreditPacket (to ToR i's VOQ toward the port's host: Δ
// bytes and C_ij after the grant), and ticks again an interval later; a
// port left with no eligible VOQ stops ticking. The caller checked d.
func (r *hierccReceiver) expire(d units.Time, out []wire.HierCCCreditPacket) []wire.HierCCCreditPacket {
	next := units.MaxTime
	for p, w := range r.wrr {
		if w.Eligible() == 0 {
			continue
		}
		if r.tick[p] <= d {
			// Eligible, and in order: the caller ran the expiries before
			// each Arrive.
			if src, ok, err := w.Grant(d); ok && err == nil {
				e, _ := w.Entry(src)
				out = append(out, wire.HierCCCreditPacket{ToR: uint16(src), Dst: voq.Key(r.host[p]), Amount: uint32(r.cfg.Delta), Total: e.C})
				r.credits++
			}
			r.tick[p] = fixedpoint.SatAdd(r.tick[p], r.interval)
		}
		if w.Eligible() > 0 {
			next = min(next, r.tick[p])
		}
	}
	r.next = next
	return out
}

// due returns how many credits the expiries due at or before now send:
// per port with an eligible VOQ whose tick is due, one per tick due, up
// to what its WRR owes (credit.WRR.Owed, read only when more than one
// tick is due).
func (r *hierccReceiver) due(now units.Time) int {
	if now = hierccHorizon(now); r.next > now {
		return 0
	}
	n := uint64(0)
	for p, w := range r.wrr {
		if w.Eligible() == 0 || r.tick[p] > now {
			continue
		}
		ticks := uint64(now-r.tick[p])/uint64(r.interval) + 1
		if ticks > 1 {
			ticks = min(ticks, w.Owed())
		}
		n += ticks
	}
	return int(min(n, hierccMaxCatchUp))
}

// grantsTo returns how many of the credits port's expiries due at or
// before now send go to ToR src, running them ahead on a scratch copy of
// the port's WRR: it changes nothing.
func (r *hierccReceiver) grantsTo(port, src int, now units.Time) int {
	w := r.wrr[port]
	if now = hierccHorizon(now); w.Eligible() == 0 || r.tick[port] > now {
		return 0
	}
	_ = r.scratch.CopyFrom(w) // same size: built from the same config
	n := 0
	for t := r.tick[port]; t <= now; t = fixedpoint.SatAdd(t, r.interval) {
		got, ok, _ := r.scratch.Grant(t)
		if !ok {
			break
		}
		if got == src {
			n++
		}
	}
	return n
}

// Timer sends every credit due at or before now, each as at its own tick,
// in time order (ports in index order at equal times), appending them to
// out; before the deadline it only records now.
func (r *hierccReceiver) Timer(now units.Time, out []wire.HierCCCreditPacket) ([]wire.HierCCCreditPacket, error) {
	if !r.clock.InOrder(now) {
		return out, r.clock.Check(hierccReceiverPart, "Timer", now)
	}
	r.clock.Advance(now)
	for now = hierccHorizon(now); r.next <= now; {
		out = r.expire(r.next, out)
	}
	return out, nil
}

// hierccReceiverSummary is the receiver side's registers before its
// per-port blocks, without its now: next and credits.
const hierccReceiverSummary = 2

// AppendRegisters appends the ToR's registers, in this order: now (64),
// next (64, ps), credits (64), then per port: host (32;
// 2^32−1: none learnt), tick (64, ps) and the port's WRR summary
// (credit.WRR.AppendRegisters without its now).
func (r *hierccReceiver) AppendRegisters(dst []cc.Register) []cc.Register {
	// now, next and credits: hierccReceiverSummary + 1.
	dst = append(dst, r.clock.Register(), cc.TimeReg("next", r.next),
		cc.Reg("credits", 64, r.credits))
	for p, w := range r.wrr {
		h := uint64(1<<32 - 1)
		if r.host[p] != hierccNoHost {
			h = r.host[p]
		}
		dst = append(dst, cc.Reg("host", 32, h), cc.TimeReg("tick", r.tick[p]))
		dst = w.AppendRegisters(dst)
		dst = dst[:len(dst)-1] // the WRR's own now
	}
	return dst
}
