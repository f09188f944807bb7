package cp

import (
	"errors"
	"hash/crc32"
	"math"
	"slices"
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/hwtables"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// Limits of a Mercury switch's configuration (MercuryConfig), stated
// once: Validate, the registry (package algos) and the docs read them from
// here.
const (
	// MercuryMaxPorts is the most ports a Mercury switch has.
	MercuryMaxPorts = 1024
	// MercuryMinTableBits and MercuryMaxTableBits bound a port's flow
	// table: 2^bits entries.
	MercuryMinTableBits, MercuryMaxTableBits = 1, 16
	// MercuryCellBytes is the unit of the window division's divisor:
	// Σdata is counted in 64-byte cells (rounded up) for the reciprocal
	// table, whose divisors reach hwtables.MaxN = 2^22 cells, 256 MiB of
	// queue.
	MercuryCellBytes = 64
	// MercuryMaxRate is the fastest port, 10 Tb/s: a configured rate
	// (Rates) or a queue's reported one (cc.Queue.Rate) above it is
	// refused, so that C·baseRTT, checked by Validate at MercuryMaxRate,
	// stays below 2^32 bytes.
	MercuryMaxRate = 10 * units.Tbps
	// MercuryMaxPrio is the highest data priority (802.1p: 0..7).
	MercuryMaxPrio = 7
	// MercuryMaxThreshold is the largest congestion threshold: Q_Length
	// is compared as a 31-bit quantity.
	MercuryMaxThreshold units.Bytes = math.MaxInt32
	// MercuryMinTime and MercuryMaxTime bound Period and BaseRTT (and,
	// from 0, CNPInterval).
	MercuryMinTime, MercuryMaxTime = units.Nanosecond, units.Second
)

// The paper's constants ([Mercury] §"Parameter settings").
const (
	// MercuryPaperPeriod is T, the period of the Undetermined ports'
	// check.
	MercuryPaperPeriod = 10 * units.Microsecond
)

// MercuryPortState is an egress port's state ([Mercury] §"States of
// egress ports", Figure 6).
type MercuryPortState uint8

const (
	// MercuryDetermined: the relation between the port's arrivals and its link
	// capacity is known; a queue above the threshold is congestion.
	MercuryDetermined MercuryPortState = iota
	// MercuryUndetermined: PFC paused the port, and its queue may be PFC's doing:
	// its flows get no window (they may be victims).
	MercuryUndetermined
)

// String names the state.
func (s MercuryPortState) String() string {
	if s == MercuryUndetermined {
		return "undetermined"
	}
	return "determined"
}

// MercuryConfig configures Mercury's switch-resident CP and NP of one
// switch (Mercury).
type MercuryConfig struct {
	// Ports is the switch's port count, 1..MercuryMaxPorts.
	Ports int
	// Rates is each port's line rate C (len Ports, 1 bit/s..MercuryMaxRate); nil
	// takes the rate of the queue each event reports (cc.Queue.Rate).
	Rates []units.Rate
	// Prio is the data priority whose queues the state machines follow
	// (0..MercuryMaxPrio); packets and pauses of other priorities change
	// nothing.
	Prio uint8
	// Threshold is the congestion threshold on Q_Length, 1
	// B..MercuryMaxThreshold (2^31 − 1 B). The paper names one and gives
	// no value.
	Threshold units.Bytes
	// Period is T, MercuryMinTime..MercuryMaxTime (1 ns..1 s; the paper:
	// 10 µs).
	Period units.Time
	// BaseRTT is the one base RTT every window is computed with (the
	// network's largest; section "Discussions": "baseRTT can be
	// pre-configured"), MercuryMinTime..MercuryMaxTime and
	// MercuryMaxRate·BaseRTT below 2^32 B (so at most 3.43 ms).
	BaseRTT units.Time
	// TableBits sizes each port's flow table, 2^TableBits entries indexed
	// by the hash of (source, destination),
	// MercuryMinTableBits..MercuryMaxTableBits.
	TableBits int
	// CNPInterval is the least time between two CNPs to one flow entry,
	// 0..MercuryMaxTime (0: a CNP for every packet of a congested flow). The paper
	// sends CNPs "immediately when congestion occurs" and no pacing.
	CNPInterval units.Time
	// Window is where the window goes in the CNP.
	Window wire.MercuryWindow
}

// MercuryPaper returns Mercury's switch for ports ports at rate line, one
// base RTT for all flows: T = 10 µs (the paper's) and hwcc's choices where
// the paper gives none: the data priority 3, a congestion threshold of
// C·baseRTT/2 (at least 10 KB), a flow table of 1024 entries per port, at
// most one CNP per flow entry every 50 µs (DCQCN's NP interval, so that
// the sender's DCQCN is cut no faster than with DCQCN's own CNPs), and the
// window big-endian in the first 4 reserved bytes.
func MercuryPaper(ports int, line units.Rate, baseRTT units.Time) MercuryConfig {
	return MercuryConfig{
		Ports: ports, Rates: slices.Repeat([]units.Rate{line}, ports), Prio: 3,
		Threshold:   max(units.BytesIn(line, baseRTT)/2, 10*units.KB),
		Period:      MercuryPaperPeriod,
		BaseRTT:     baseRTT,
		TableBits:   10,
		CNPInterval: 50 * units.Microsecond,
	}
}

// mercuryPart names the Mercury switch in errors.
const mercuryPart = "cp.Mercury"

func mercuryCfgErr(part, field, value, want string) error {
	return &cc.ConfigError{Part: part, Field: field, Value: value, Range: want}
}

// mercuryTimeRange is the range lo..MercuryMaxTime as errors state it.
func mercuryTimeRange(lo units.Time) string { return lo.String() + ".." + MercuryMaxTime.String() }

// Validate reports the first field out of range as a *cc.ConfigError.
func (c MercuryConfig) Validate() error {
	switch {
	case c.Ports < 1 || c.Ports > MercuryMaxPorts:
		return mercuryCfgErr(mercuryPart, "Ports", strconv.Itoa(c.Ports), "1.."+strconv.Itoa(MercuryMaxPorts))
	case c.Rates != nil && len(c.Rates) != c.Ports:
		return mercuryCfgErr(mercuryPart, "Rates", strconv.Itoa(len(c.Rates))+" rates", "one per port, or none")
	case c.Prio > MercuryMaxPrio:
		return mercuryCfgErr(mercuryPart, "Prio", strconv.Itoa(int(c.Prio)), "0.."+strconv.Itoa(MercuryMaxPrio))
	case c.Threshold < 1 || c.Threshold > MercuryMaxThreshold:
		return mercuryCfgErr(mercuryPart, "Threshold", c.Threshold.String(), "1B.."+MercuryMaxThreshold.String())
	case c.Period < MercuryMinTime || c.Period > MercuryMaxTime:
		return mercuryCfgErr(mercuryPart, "Period", c.Period.String(), mercuryTimeRange(MercuryMinTime))
	case c.BaseRTT < MercuryMinTime || c.BaseRTT > MercuryMaxTime:
		return mercuryCfgErr(mercuryPart, "BaseRTT", c.BaseRTT.String(), mercuryTimeRange(MercuryMinTime))
	case c.TableBits < MercuryMinTableBits || c.TableBits > MercuryMaxTableBits:
		return mercuryCfgErr(mercuryPart, "TableBits", strconv.Itoa(c.TableBits), strconv.Itoa(MercuryMinTableBits)+".."+strconv.Itoa(MercuryMaxTableBits))
	case c.CNPInterval < 0 || c.CNPInterval > MercuryMaxTime:
		return mercuryCfgErr(mercuryPart, "CNPInterval", c.CNPInterval.String(), mercuryTimeRange(0))
	}
	for i, r := range c.Rates {
		if r < 1 || r > MercuryMaxRate {
			return mercuryCfgErr(mercuryPart, "Rates["+strconv.Itoa(i)+"]", r.String(), units.Rate(1).String()+".."+MercuryMaxRate.String())
		}
	}
	if w := c.BDP(MercuryMaxRate); w > math.MaxUint32 {
		return mercuryCfgErr(mercuryPart, "BaseRTT", c.BaseRTT.String(), "C·baseRTT below 4 GB at every port")
	}
	return c.Window.Validate(mercuryPart)
}

// BDP is C·baseRTT in bytes at rate c: the initial window and the
// largest.
func (c MercuryConfig) BDP(rate units.Rate) units.Bytes { return units.BytesIn(rate, c.BaseRTT) }

// MercuryPort is every register of one egress port of a Mercury switch
// (Algorithm 1).
type MercuryPort struct {
	State MercuryPortState
	// Paused: a PFC PAUSE of the data priority is in force; PauseStart
	// is when it came.
	Paused     bool
	PauseStart units.Time
	// RxBytes is rxByte: the bytes that joined the queue while paused (32
	// bits, saturating).
	RxBytes uint32
	// TPause is the last pause's duration, recorded at its RESUME.
	TPause units.Time
	// QLen is Q_Length, the queue of the data priority at the latest
	// Enqueue or Dequeue (32 bits).
	QLen uint32
	// CheckAt is when T next expires for an Undetermined port; QAtCheck
	// the queue when it was armed.
	CheckAt  units.Time
	QAtCheck uint32
	// Sum is Σdata, the bytes of the port's flow table (32 bits): equal to
	// QLen while the caller reports every data packet.
	Sum uint32
}

// Sentinels of a Mercury switch's refusals, each wrapped in a *cc.EventError.
var (
	// ErrMercuryPort: a port outside 0..Ports−1.
	ErrMercuryPort = errors.New("mercury: no such port")
	// ErrMercuryTable: a packet leaves a flow entry holding fewer bytes than it
	// (the caller reported a departure without its arrival).
	ErrMercuryTable = errors.New("mercury: flow table underflow")
)

// Mercury is the switch side of Mercury, its congestion point and
// notification point moved into the switch ([Mercury] §"Mercury design",
// Algorithms 1 and 2, as docs/derivations.md reconstructs them: the
// paper's listings were lost), a cc.SwitchPoint: per egress port, the state machine that tells a queue built by
// congestion (Determined) from one built by PFC pauses from downstream
// (Undetermined), and the flow table that gives each congested flow its
// window, sent to its source in a CNP. The sender, rp.Mercury, runs DCQCN
// unchanged and keeps its unacknowledged bytes below that window; the
// window's place in the CNP is wire.MercuryWindow.
//
// # Algorithm 1, by event (data priority Prio only)
//
//	Pause (PAUSE)   PauseStart ← now, rxByte ← 0, state ← Undetermined
//	Enqueue         flow table += size; while paused rxByte += size;
//	                Q_Length ← q.Len; a port Determined with Q_Length >
//	                threshold: the packet's flow is congested, and gets
//	                a CNP with its window (Algorithm 2)
//	Pause (RESUME)  Tpause ← now − PauseStart; if Q_Length > threshold:
//	                rxByte ≤ C·Tpause → Undetermined (PFC's backlog,
//	                which drains), else Determined (congested); else
//	                Determined
//	Dequeue         flow table −= size (an entry at 0 is free);
//	                Q_Length ← q.Len; an Undetermined port whose T has
//	                expired stays Undetermined if Q_Length > threshold and
//	                the queue shrank during T, else becomes Determined
//
// T is armed (now + T, with the queue then) whenever the port enters
// Undetermined and at each check.
//
// # Algorithm 2: the window
//
//	Win = C·baseRTT · data_f / Σdata
//
// (Rate = C·data_f/Σdata, Win = Rate·baseRTT). The division is the
// reciprocal table of HPCC's NIC (hwtables.DefaultReciprocal: one
// lookup, one multiply, one shift; the quotient is at most 0.79 % above
// and 0.10 % below the exact one), with Σdata in 64-byte cells rounded up
// and data_f in bytes. The result is clamped to [MercuryCellBytes, C·baseRTT]:
// never above the initial window (the table's error could pass it) and
// never zero for a flow with bytes queued (a window below one packet
// still lets one packet be in flight).
//
// # The flow table
//
// 2^TableBits 32-bit byte counters per port, indexed by the low bits of
// CRC-32C(source ‖ destination, 8 bytes big-endian): the entry is the
// paper's (egress port, hash of FID), the FID its (source, destination).
// Two flows that hash alike share an entry, their bytes and their CNP
// pacing (each gets the window of their sum): the table never overflows
// and never disagrees with the queue. An entry at 0 is free ("deleted").
// A departure larger than its entry is refused (ErrMercuryTable), changing
// nothing.
//
// # Choices the paper leaves open
//
//   - The threshold (Threshold; MercuryPaper: C·baseRTT/2, at least 10 KB).
//   - CNP pacing: at most one CNP per flow entry per CNPInterval
//     (MercuryPaper: 50 µs), sent on the Enqueue that finds the flow
//     congested.
//   - The window's place in the CNP (Window: offset and byte order).
//   - One set of port registers for the data priority Prio; the other
//     priorities are not followed.
//
// Refused events change nothing. Not safe for concurrent use; nothing
// allocates after NewMercury except errors.
type Mercury struct {
	cfg   MercuryConfig
	clock cc.Monotonic
	ports []MercuryPort
	// lastRate is each port's rate as its latest queue reported it (C
	// where Rates is nil).
	lastRate []units.Rate
	bytes    []uint32     // flow table, port-major
	last     []units.Time // per entry: its last CNP (MinTime: none)
	mask     uint32
	recip    *hwtables.Table
	// Counters (64 bits, wrapping).
	cnps, pauses uint64
	// unused counts the messages given to Message: Mercury's switches
	// exchange none, so every kind is one it does not use (cc's rule 8).
	unused cc.Unused
	regs   regMap // the names of AppendRegisters' registers
}

var _ cc.SwitchPoint = (*Mercury)(nil)

// mercuryNoCNP marks a flow entry that has had no CNP.
const mercuryNoCNP = units.Time(math.MinInt64)

// mercuryCastagnoli is the CRC-32C table of the flow hash.
var mercuryCastagnoli = crc32.MakeTable(crc32.Castagnoli)

// NewMercury validates cfg and returns a Mercury switch with every port
// Determined, not paused, and empty flow tables.
func NewMercury(cfg MercuryConfig) (*Mercury, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Rates != nil {
		cfg.Rates = append([]units.Rate(nil), cfg.Rates...)
	}
	n := cfg.Ports << cfg.TableBits
	s := &Mercury{
		cfg: cfg, ports: make([]MercuryPort, cfg.Ports), lastRate: make([]units.Rate, cfg.Ports),
		bytes: make([]uint32, n), last: make([]units.Time, n),
		mask: 1<<cfg.TableBits - 1, recip: hwtables.DefaultReciprocal(),
	}
	for i := range s.last {
		s.last[i] = mercuryNoCNP
	}
	rs := s.appendRegisters(nil)
	s.regs = s.regs.add("", rs[:mercurySummary])
	per := (len(rs) - mercurySummary) / len(s.ports)
	for i := range s.ports {
		at := mercurySummary + i*per
		s.regs = s.regs.add(portPrefix(i), rs[at:at+per])
	}
	return s, nil
}

// Config returns the configuration.
func (s *Mercury) Config() MercuryConfig { return s.cfg }

// Port returns port out's registers.
func (s *Mercury) Port(out int) (MercuryPort, bool) {
	if out < 0 || out >= len(s.ports) {
		return MercuryPort{}, false
	}
	return s.ports[out], true
}

// Entry returns the bytes port out's flow table holds for (src, dst).
func (s *Mercury) Entry(out int, src, dst cc.NodeID) uint32 {
	if out < 0 || out >= len(s.ports) {
		return 0
	}
	return s.bytes[s.index(out, src, dst)]
}

// CNPs counts the CNPs sent.
func (s *Mercury) CNPs() uint64 { return s.cnps }

// Pauses counts the PAUSEs taken.
func (s *Mercury) Pauses() uint64 { return s.pauses }

// Unused counts the messages given to Message, of kinds Mercury does not
// use (every kind: the register unused_feedback).
func (s *Mercury) Unused() uint64 { return s.unused.N() }

// NextDeadline: the switch has no timer (T is checked on Dequeue).
func (s *Mercury) NextDeadline() units.Time { return units.MaxTime }

// Timer only records now.
func (s *Mercury) Timer(now units.Time, _ *cc.Actions) error {
	return s.clock.Accept(mercuryPart, "Timer", now)
}

// index is the flow-table slot of (src, dst) at port out.
func (s *Mercury) index(out int, src, dst cc.NodeID) int {
	return out<<s.cfg.TableBits | int(mercuryFlowHash(src, dst)&s.mask)
}

// mercuryFlowHash is CRC-32C (Castagnoli, reflected, as crc32.Checksum computes
// it) of src ‖ dst, 8 bytes big-endian, one table lookup per byte as a
// switch's hash unit does; written out so that nothing escapes.
func mercuryFlowHash(src, dst cc.NodeID) uint32 {
	k := uint64(src)<<32 | uint64(dst)
	crc := ^uint32(0)
	for i := 56; i >= 0; i -= 8 {
		crc = mercuryCastagnoli[byte(crc)^byte(k>>uint(i))] ^ crc>>8
	}
	return ^crc
}

//go:noinline
func mercuryErr(event, reason string, err error) error {
	return &cc.EventError{Part: mercuryPart, Event: event, Reason: reason, Err: err}
}

// check refuses an event out of time order, on a port outside the switch,
// or with a nil packet when p is needed.
func (s *Mercury) check(event string, now units.Time, port int, p *cc.Packet, need bool) error {
	if !s.clock.InOrder(now) {
		return s.clock.Check(mercuryPart, event, now)
	}
	if port < 0 || port >= len(s.ports) {
		return mercuryErr(event, "port "+strconv.Itoa(port)+" outside 0.."+strconv.Itoa(len(s.ports)-1), ErrMercuryPort)
	}
	if need && p == nil {
		return mercuryErr(event, "nil packet", nil)
	}
	return nil
}

// mercurySizeOK refuses a packet size outside 1..2^31, a queue outside
// 0..2^32−1 and a queue rate outside 0..MaxRate (the window's C·baseRTT
// would pass 32 bits and wrap).
func mercurySizeOK(event string, p *cc.Packet, q cc.Queue) error {
	if p.Size < 1 || p.Size > math.MaxInt32 {
		return mercuryErr(event, "packet of "+p.Size.String()+", want 1B..2147483647B", nil)
	}
	if q.Len < 0 || q.Len > math.MaxUint32 {
		return mercuryErr(event, "queue of "+q.Len.String()+", want 0B..4294967295B", nil)
	}
	if q.Rate < 0 || q.Rate > MercuryMaxRate {
		return mercuryErr(event, "queue rate "+q.Rate.String()+", want 0bps..10Tbps", nil)
	}
	return nil
}

// rate is port out's C: its configured rate, else reported (the queue's
// rate, at most MercuryMaxRate).
func (s *Mercury) rate(out int, reported units.Rate) units.Rate {
	if s.cfg.Rates != nil {
		return s.cfg.Rates[out]
	}
	return reported
}

// Arrive records the time: Mercury acts when the packet joins a queue.
func (s *Mercury) Arrive(now units.Time, in int, p *cc.Packet, _ *cc.Actions) error {
	if err := s.check("Arrive", now, in, p, true); err != nil {
		return err
	}
	s.clock.Advance(now)
	return nil
}

// undetermined puts port pt in the Undetermined state and arms T.
func (s *Mercury) undetermined(now units.Time, pt *MercuryPort) {
	pt.State = MercuryUndetermined
	pt.CheckAt = fixedpoint.SatAdd(now, s.cfg.Period)
	pt.QAtCheck = pt.QLen
}

// Pause takes a PFC PAUSE (paused) or RESUME of priority prio at egress
// port out (Algorithm 1, lines 1–3 and 6–14).
func (s *Mercury) Pause(now units.Time, out int, prio uint8, paused bool, _ *cc.Actions) error {
	if err := s.check("Pause", now, out, nil, false); err != nil {
		return err
	}
	if prio > 7 {
		return mercuryErr("Pause", "priority "+strconv.Itoa(int(prio))+" outside 0..7", nil)
	}
	s.clock.Advance(now)
	pt := &s.ports[out]
	if prio != s.cfg.Prio || paused == pt.Paused {
		return nil
	}
	pt.Paused = paused
	if paused {
		s.pauses++
		pt.PauseStart, pt.RxBytes = now, 0
		s.undetermined(now, pt)
		return nil
	}
	pt.TPause = now - pt.PauseStart
	if int64(pt.QLen) <= int64(s.cfg.Threshold) {
		pt.State = MercuryDetermined // not congested
		return nil
	}
	// rxRate = rxByte/Tpause ≤ C, in bytes: rxByte ≤ C·Tpause.
	drain := units.BytesIn(s.rate(out, s.lastRate[out]), pt.TPause)
	if int64(pt.RxBytes) <= int64(drain) {
		s.undetermined(now, pt) // the backlog is PFC's, and drains
	} else {
		pt.State = MercuryDetermined // congested
	}
	return nil
}

// mercuryNoActions is Enqueue's error for a nil Actions (cc.NoActions,
// kept out of line).
//
//go:noinline
func mercuryNoActions() error { return cc.NoActions(mercuryPart, "Enqueue") }

// Enqueue takes a packet joining egress port out (Algorithm 1, lines 4–5;
// Algorithm 2, lines 1–3 and 10–13). It may send a CNP, so it refuses a
// nil act with cc.NoActions's error (cc's rule 3), whatever the packet;
// the switch's other events never decide and take nil.
func (s *Mercury) Enqueue(now units.Time, out int, p *cc.Packet, q cc.Queue, act *cc.Actions) error {
	if err := s.check("Enqueue", now, out, p, true); err != nil {
		return err
	}
	if act == nil {
		return mercuryNoActions()
	}
	if p.Prio != s.cfg.Prio {
		s.clock.Advance(now)
		return nil
	}
	if err := mercurySizeOK("Enqueue", p, q); err != nil {
		return err
	}
	pt := &s.ports[out]
	i := s.index(out, p.Src, p.Dst)
	n := uint32(p.Size)
	if s.bytes[i] > math.MaxUint32-n || pt.Sum > math.MaxUint32-n {
		return mercuryErr("Enqueue", "the flow table's 32-bit counters would wrap", ErrMercuryTable)
	}
	congested := pt.State == MercuryDetermined && q.Len > s.cfg.Threshold
	send := congested && (s.last[i] == mercuryNoCNP || now-s.last[i] >= s.cfg.CNPInterval)
	if send {
		if err := act.Reserve(mercuryPart, "Enqueue", 1); err != nil {
			return err
		}
	}
	s.clock.Advance(now)
	s.lastRate[out] = q.Rate
	s.bytes[i] += n
	pt.Sum += n
	pt.QLen = uint32(q.Len)
	if pt.Paused {
		pt.RxBytes = fixedpoint.SatAdd(pt.RxBytes, n)
	}
	if send {
		s.last[i] = now
		s.cnps++
		f := cc.Feedback{Kind: cc.FeedbackCNP, Flow: p.Flow}
		s.cfg.Window.Put(&f.Data, s.window(out, q.Rate, s.bytes[i], pt.Sum))
		act.Send(cc.ToSource, cc.ControlPrio, f)
	}
	return nil
}

// window is Algorithm 2's Win = C·baseRTT·data_f/Σdata for a flow of
// data bytes at port out, whose table holds sum (≥ data > 0) bytes.
func (s *Mercury) window(out int, reported units.Rate, data, sum uint32) uint32 {
	bdp := uint64(s.cfg.BDP(s.rate(out, reported)))
	cells := min((uint64(sum)+MercuryCellBytes-1)/MercuryCellBytes, hwtables.MaxN)
	// bdp < 2^32 (Validate, at every rate up to MercuryMaxRate; mercurySizeOK refuses
	// a faster queue), data < 2^32: the product fits 64 bits.
	w := s.recip.DivFast(bdp*uint64(data), cells) / MercuryCellBytes
	return uint32(fixedpoint.Clamp(w, MercuryCellBytes, max(bdp, MercuryCellBytes)))
}

// Dequeue takes a packet leaving egress port out (Algorithm 2, lines 4–8;
// Algorithm 1, lines 15–20).
func (s *Mercury) Dequeue(now units.Time, out int, p *cc.Packet, q cc.Queue, _ *cc.Actions) error {
	if err := s.check("Dequeue", now, out, p, true); err != nil {
		return err
	}
	if p.Prio != s.cfg.Prio {
		s.clock.Advance(now)
		return nil
	}
	if err := mercurySizeOK("Dequeue", p, q); err != nil {
		return err
	}
	pt := &s.ports[out]
	i := s.index(out, p.Src, p.Dst)
	n := uint32(p.Size)
	if s.bytes[i] < n || pt.Sum < n {
		return mercuryErr("Dequeue", "a packet of "+p.Size.String()+" leaves a flow entry of "+strconv.FormatUint(uint64(s.bytes[i]), 10)+" B", ErrMercuryTable)
	}
	s.clock.Advance(now)
	s.lastRate[out] = q.Rate
	s.bytes[i] -= n // at 0 the entry is free
	pt.Sum -= n
	pt.QLen = uint32(q.Len)
	if pt.State == MercuryUndetermined && now >= pt.CheckAt {
		// Still PFC's while above the threshold and draining.
		if !(pt.QLen > uint32(s.cfg.Threshold) && pt.QLen < pt.QAtCheck) {
			pt.State = MercuryDetermined
		}
		pt.CheckAt = fixedpoint.SatAdd(now, s.cfg.Period)
		pt.QAtCheck = pt.QLen
	}
	return nil
}

// Message takes nothing: Mercury's switches exchange no messages, so a
// message of any kind is one it does not use (cc's rule 8): it records the
// time and counts the message (Unused, the register unused_feedback).
func (s *Mercury) Message(now units.Time, in int, f *cc.Feedback, _ *cc.Actions) error {
	if !s.clock.InOrder(now) {
		return s.clock.Check(mercuryPart, "Message", now)
	}
	if in < -1 || in >= len(s.ports) {
		return mercuryErr("Message", "port "+strconv.Itoa(in)+" outside −1.."+strconv.Itoa(len(s.ports)-1), ErrMercuryPort)
	}
	if f == nil {
		return mercuryErr("Message", "nil feedback", nil)
	}
	s.clock.Advance(now)
	s.unused.Count()
	return nil
}

// AppendRegisters appends now (64), cnps (64), pauses (64), table (64:
// a digest, FNV-1a, of every flow entry's bytes and last CNP time, so
// that a trace sees the table change; Entry reads one entry; it reads the
// whole table, 2^TableBits entries per port, so a snapshot costs that),
// unused_feedback (64, cc.UnusedRegister), then per port i, named after
// "port<i>.": undetermined (1), paused (1), pause_start (64, ps),
// rx_bytes (32), t_pause (64, ps), q_len (32), check_at (64, ps),
// q_at_check (32), sum (32), last_rate (64, bit/s: the rate the port's
// latest queue reported, C of the resume test where Rates is nil).
func (s *Mercury) AppendRegisters(dst []cc.Register) []cc.Register {
	n := len(dst)
	dst = s.appendRegisters(dst)
	s.regs.apply(dst[n:])
	return dst
}

// mercurySummary is the count of the switch's registers before its
// per-port blocks.
const mercurySummary = 5

// appendRegisters appends the registers under their names within a block.
func (s *Mercury) appendRegisters(dst []cc.Register) []cc.Register {
	h := newTableDigest()
	for i, b := range s.bytes {
		h.mix(uint64(b))
		h.mix(uint64(s.last[i]))
	}
	dst = append(dst, s.clock.Register(), cc.Reg("cnps", 64, s.cnps), cc.Reg("pauses", 64, s.pauses), cc.Reg("table", 64, uint64(h)), s.unused.Register())
	for i := range s.ports {
		pt := &s.ports[i]
		dst = append(dst,
			cc.BoolReg("undetermined", pt.State == MercuryUndetermined),
			cc.BoolReg("paused", pt.Paused),
			cc.TimeReg("pause_start", pt.PauseStart),
			cc.Reg("rx_bytes", 32, uint64(pt.RxBytes)),
			cc.TimeReg("t_pause", pt.TPause),
			cc.Reg("q_len", 32, uint64(pt.QLen)),
			cc.TimeReg("check_at", pt.CheckAt),
			cc.Reg("q_at_check", 32, uint64(pt.QAtCheck)),
			cc.Reg("sum", 32, uint64(pt.Sum)),
			cc.RateReg("last_rate", s.lastRate[i]),
		)
	}
	return dst
}
