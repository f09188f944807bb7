package np

import (
	"math"
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// RCCC's receiver: the bounds of RCCCConfig's fields, which Validate
// checks and package algos's registration reads.
const (
	// RCCCMinLink and RCCCMaxLink bound the receiver's line rate.
	RCCCMinLink = units.Mbps
	RCCCMaxLink = 10 * units.Tbps
	// RCCCMaxSenders bounds the sender table: 2^16 contexts.
	RCCCMaxSenders = 1 << 16
	// RCCCMaxPull bounds CreditPerPull and MaxCredit: 2^31 − 1 bytes, the
	// pull numbers' serial range.
	RCCCMaxPull = units.Bytes(math.MaxInt32)
	// RCCCMinRTT and RCCCMaxRTT bound BaseRTT, the oversubscription
	// period's scale.
	RCCCMinRTT = 100 * units.Nanosecond
	RCCCMaxRTT = 10 * units.Millisecond
)

const (
	rcccPart = "np.RCCC"
	// rcccQ is the fraction width of the rate, g and the gains: Q16.
	rcccQ   = 16
	rcccOne = 1 << rcccQ
	// rcccIdleQuanta is the pacing after a pull that granted nothing:
	// 1024 B ([uet-htsim] UecPullPacer::doNextEvent).
	rcccIdleQuanta = 1024 >> wire.UECPullQuantumShift
	// rcccMaxIncShift caps the exponential increase's shift (Ai·2^k).
	rcccMaxIncShift = 16
	// rcccNone marks "no slot" in the lists.
	rcccNone = -1
)

// Where a sender's context is.
const (
	rcccOut    uint8 = iota // in no list: no pulls owed
	rcccActive              // owed pulls up to its pull target
	rcccIdle                // demand met, taking slow pulls
)

// RCCCConfig configures RCCC's receiver: the pull pacer of one receiving
// host ([uet-htsim] UecPullPacer, UecSink) and, as an option, its rate
// adaptation for oversubscribed fabrics ([uet-htsim] OversubscribedCC).
// Every default is the consortium model's; the registration in package
// algos cites each.
type RCCCConfig struct {
	// Link is the receiver's line rate (RCCCMinLink..RCCCMaxLink).
	Link units.Rate
	// RateModifier is ρ: pulls are paced at ρ·Link (0.99), in (0, 1].
	RateModifier float64
	// CreditPerPull is the credit one pull grants, rounded down to 256-byte
	// quanta (4·MSS: "4 packets of credit per pull, as per default in UEC
	// spec"); one quantum..RCCCMaxPull.
	CreditPerPull units.Bytes
	// MaxCredit bounds the slow credit an idle sender receives (the
	// model's configured maxwnd, 1.5 BDP); 0..RCCCMaxPull (0: no slow
	// pulls).
	MaxCredit units.Bytes
	// Senders is the size of the sender table (1024), 1..RCCCMaxSenders.
	Senders int
	// Oversubscribed turns the receiver's rate adaptation on (off).
	Oversubscribed bool
	// BaseRTT scales its period, 1.5·BaseRTT·(0.75 + U/2)
	// (RCCCMinRTT..RCCCMaxRTT; the network's RTT).
	BaseRTT units.Time
	// Target (0.3), Ai (0.01), Md (0.5), Alpha (0.5) and MinRate (0.01):
	// the marked fraction aimed at, the additive increase, the
	// multiplicative decrease's gain, the marked fraction's EWMA gain and
	// the least rate, as fractions of the line rate; each in [0, 1],
	// MinRate and Alpha above 0.
	Target, Ai, Md, Alpha, MinRate float64
	// Seed seeds the period's jitter (an LFSR32), at least 1.
	Seed uint32
}

// RCCCDefault returns the consortium model's receiver on a link of rate
// link, with packets of mss payload bytes and a network RTT of rtt (the
// slow-credit cap is 1.5·link·rtt), without oversubscription.
func RCCCDefault(link units.Rate, mss units.Bytes, rtt units.Time) RCCCConfig {
	bdp := units.BytesIn(link, rtt)
	return RCCCConfig{
		Link: link, RateModifier: 0.99, CreditPerPull: 4 * mss, MaxCredit: bdp + bdp/2,
		Senders: 1024, BaseRTT: rtt,
		Target: 0.3, Ai: 0.01, Md: 0.5, Alpha: 0.5, MinRate: 0.01, Seed: 1,
	}
}

func rcccBad(field, value, want string) error {
	return &cc.ConfigError{Part: rcccPart, Field: field, Value: value, Range: want}
}

// Validate checks every field and returns a *cc.ConfigError naming the
// first one out of range.
func (c RCCCConfig) Validate() error {
	q := units.Bytes(1) << wire.UECPullQuantumShift
	switch {
	case c.Link < RCCCMinLink || c.Link > RCCCMaxLink:
		return rcccBad("Link", c.Link.String(), RCCCMinLink.String()+".."+RCCCMaxLink.String())
	case !(c.RateModifier > 0 && c.RateModifier <= 1):
		return rcccBad("RateModifier", fmtFloat(c.RateModifier), "(0, 1]")
	case c.CreditPerPull < q || c.CreditPerPull > RCCCMaxPull:
		return rcccBad("CreditPerPull", c.CreditPerPull.String(), q.String()+".."+RCCCMaxPull.String())
	case c.MaxCredit < 0 || c.MaxCredit > RCCCMaxPull:
		return rcccBad("MaxCredit", c.MaxCredit.String(), "0.."+RCCCMaxPull.String())
	case c.Senders < 1 || c.Senders > RCCCMaxSenders:
		return rcccBad("Senders", strconv.Itoa(c.Senders), "1.."+strconv.Itoa(RCCCMaxSenders))
	case c.BaseRTT < RCCCMinRTT || c.BaseRTT > RCCCMaxRTT:
		return rcccBad("BaseRTT", c.BaseRTT.String(), RCCCMinRTT.String()+".."+RCCCMaxRTT.String())
	case c.Seed < fixedpoint.LFSR32SeedMin:
		return rcccBad("Seed", strconv.FormatUint(uint64(c.Seed), 10), fixedpoint.LFSR32SeedRange())
	}
	for _, f := range []struct {
		name    string
		v       float64
		nonZero bool
	}{{"Target", c.Target, false}, {"Ai", c.Ai, false}, {"Md", c.Md, false}, {"Alpha", c.Alpha, true}, {"MinRate", c.MinRate, true}} {
		if !(f.v >= 0 && f.v <= 1) || f.nonZero && f.v < 1.0/rcccOne {
			w := "0..1"
			if f.nonZero {
				w = "2^-16..1"
			}
			return rcccBad(f.name, fmtFloat(f.v), w)
		}
	}
	return nil
}

// RCCCPacer is the pacer's scalar registers (the sender table's are
// summarised in RCCCState).
type RCCCPacer struct {
	// Next is the next pull's time (units.MaxTime: the pacer is idle);
	// OSNext the next oversubscription update (units.MaxTime: off).
	Next, OSNext units.Time
	// Tau is the pacing time of one quantum, ps in Q16, at the current
	// rate: τ/rate.
	Tau uint64
	// Rate and G are the oversubscription rate and marked-fraction
	// average, Q16 (1.0 = 65536); IncCount the consecutive increases
	// (saturating at 255).
	Rate, G  uint32
	IncCount uint8
	// Received, ECN, TrimLast and TrimOther count the packets of the
	// current oversubscription period (32 bits, saturating).
	Received, ECN, TrimLast, TrimOther uint32
	// LFSR is the period jitter's generator state.
	LFSR uint32
}

// RCCCState is every register of RCCC's receiver.
type RCCCState struct {
	Pacer RCCCPacer
	// Senders is the contexts in use; Active and Idle the lengths of the
	// pacer's two round-robin lists.
	Senders, Active, Idle uint32
	// HighestSum and LatestSum are the sums, mod 2^64, of every context's
	// highest pull target and latest pull (a digest of the table).
	HighestSum, LatestSum uint64
	// Pulls and SlowPulls count the pulls sent; Granted the quanta they
	// granted; Full the packets of senders the table had no room for;
	// Trims the trimmed headers received (64 bits, wrapping).
	Pulls, SlowPulls, Granted, Full, Trims uint64
	// Time is the latest accepted event's time.
	Time cc.Monotonic
	// Unused counts messages of kinds RCCC does not use (cc rule 8).
	Unused cc.Unused
}

// rcccList is a FIFO of sender slots, linked through the table.
type rcccList struct {
	head, tail int32
	n          uint32
}

// rcccSaved is one list member's state, as a catch-up saves it.
type rcccSaved struct {
	slot       int32
	latest     uint32
	prev, next int32
	where      uint8
}

// RCCC is the receiver of [UEC]'s receiver credit-based congestion
// control ([uet-htsim] UecPullPacer and UecSink; docs/derivations.md,
// "Ultra Ethernet: NSCC and RCCC"): one pull pacer for every flow into a
// receiving host. Unlike the other notification points, one RCCC serves
// all the flows into its host (the harness's nic.np_scope host), as the
// model runs one pacer per NIC: its round robin is over the senders.
//
// Each data packet and trimmed header carries its sender's pull target
// (wire.UECData): the sender's cumulative pulls plus the credit it still
// needs, in 256-byte quanta. A target beyond the highest seen puts the
// sender on the active list, as does a trimmed header (its payload must be
// resent). The pacer, running while either list holds a sender, sends one
// pull per tick to a source (cc.FeedbackCredit carrying wire.UECPull,
// the sender's cumulative pull number):
//
//	active list: the head sender gets min(CreditPerPull, target − latest)
//	             quanta; it goes back to the tail while it is owed more,
//	             else to the idle list
//	idle list:   (only when no sender is active) the head gets a slow pull
//	             of CreditPerPull beyond its target; it stays idle while
//	             its slow credit is below MaxCredit, and a sender whose
//	             demand is met joins it only then (the model joins it
//	             regardless, so that each trimmed header of a sender past
//	             the cap draws one more slow pull; hwcc's bound is strict:
//	             no sender is granted more than MaxCredit + CreditPerPull
//	             beyond its highest target)
//	next tick:   τ per quantum granted, τ·4 after a pull of nothing, with
//	             τ = 8·256 B/(ρ·Link) (at 100 Gb/s and ρ = 0.99, 20.69 ns)
//
// so that the pulls, which each let a sender send their bytes, arrive at
// just under the receiver's line rate, shared round robin. A sender starts
// with speculative credit of its own (rp.RCCC); the first pulls replace it.
//
// Oversubscribed (an option): every 1.5·BaseRTT·(0.75 + U/2), U uniform in
// [0, 1) from an LFSR, the receiver adapts its pull rate to the marks and
// trims of the period (docs/derivations.md gives the equations): the
// marked fraction's average g against Target, trims elsewhere than the
// last hop, Ai·2^k increases; τ becomes τ/rate. A period in which no
// packet came, with the rate at the line rate and g at 0, stops the
// updates until the next packet, which starts a period (the model's timer
// runs for ever; the updates it makes meanwhile change nothing but the
// jitter's phase, and a stopped timer lets an event after a long silence
// catch up in one step).
//
// # Events
//
//   - Receive(p): p.Flow's context (made on its first packet; a full table
//     counts the packet in Full and ignores it); p.Hdr a wire.UECData (no
//     header: only counted); the pull target and trimmed mark as above;
//     CE and the trimmed marks counted for the option. If the pacer was
//     idle and now has a sender, it pulls at once (one action). A header
//     that does not decode is refused.
//   - Timer: every tick due, in time order with the option's updates, each
//     at its own deadline (cc rule 4).
//   - Feedback: none used (cc rule 8).
//
// Every event may pull (a catch-up's pulls at least), so each refuses a
// nil *cc.Actions (cc rule 3). An event whose
// pulls do not fit the caller's Actions changes nothing and names how
// many it needs.
//
// # Integers
//
// Pull numbers and targets are 32-bit quanta compared by serial-number
// arithmetic ([RFC1982]): a sender's target and pulls stay within 2^31
// quanta of each other. τ is ps in Q16, rounded to nearest when built;
// rate, g and the gains are Q16; the two divisions of an oversubscription
// update (the marked fraction, τ/rate) run once per period. The sender
// table is a fixed array found by an open-addressed hash of the flow
// (made when built; nothing allocates per event).
//
// Registers (AppendRegisters), in order: now; next, os_next (64, ps); tau
// (64, Q16 ps); rate, g (17, Q16); inc_count (8); received, ecn,
// trim_last, trim_other (32); lfsr (32); senders, active, idle (32);
// highest_sum, latest_sum (64); pulls, slow_pulls, granted, full, trims
// (64); unused_feedback (64).
//
// It is not safe for concurrent use. Build one with NewRCCC.
type RCCC struct {
	cfg                 RCCCConfig
	cpp, maxQ           uint32 // quanta
	tau0                uint64 // τ at rate 1, Q16 ps
	target, ai, md, alp uint64 // Q16
	minRate             uint32
	period              units.Time // 1.5·BaseRTT
	// The sender table.
	flow         []cc.FlowID
	highest      []uint32
	latest       []uint32
	where        []uint8
	prev, next   []int32
	index        []int32 // open-addressed: slot + 1, 0 empty
	mask         uint32
	active, idle rcccList
	lfsr         fixedpoint.LFSR32
	s            RCCCState
	// What a catch-up saves (save, restore).
	saved          []rcccSaved
	nSaved         int
	savedPacer     RCCCState
	savedA, savedI rcccList
	savedLFSR      fixedpoint.LFSR32
}

var _ cc.NotificationPoint = (*RCCC)(nil)

func rcccRound(f float64, q uint) uint64 { return uint64(math.Round(math.Ldexp(f, int(q)))) }

// NewRCCC validates cfg and returns a receiver with no sender.
func NewRCCC(cfg RCCCConfig) (*RCCC, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	n := cfg.Senders
	r := &RCCC{
		cfg:     cfg,
		cpp:     uint32(cfg.CreditPerPull >> wire.UECPullQuantumShift),
		maxQ:    uint32(cfg.MaxCredit >> wire.UECPullQuantumShift),
		target:  rcccRound(cfg.Target, rcccQ),
		ai:      rcccRound(cfg.Ai, rcccQ),
		md:      rcccRound(cfg.Md, rcccQ),
		alp:     rcccRound(cfg.Alpha, rcccQ),
		minRate: uint32(max(rcccRound(cfg.MinRate, rcccQ), 1)),
		period:  cfg.BaseRTT * 3 / 2,
		flow:    make([]cc.FlowID, n),
		highest: make([]uint32, n),
		latest:  make([]uint32, n),
		where:   make([]uint8, n),
		prev:    make([]int32, n),
		next:    make([]int32, n),
		saved:   make([]rcccSaved, n),
	}
	size := 2
	for size < 2*n {
		size <<= 1
	}
	r.index = make([]int32, size)
	r.mask = uint32(size - 1)
	// τ = 8·256 B / (ρ·Link) s, in ps, Q16: configuration time.
	r.tau0 = rcccRound(8*float64(1<<wire.UECPullQuantumShift)*1e12/(cfg.RateModifier*float64(cfg.Link)), rcccQ)
	r.active = rcccList{head: rcccNone, tail: rcccNone}
	r.idle = r.active
	r.lfsr, _ = fixedpoint.NewLFSR32(cfg.Seed) // Validate checked the seed
	p := &r.s.Pacer
	p.Next, p.OSNext = units.MaxTime, units.MaxTime
	p.Tau, p.Rate = r.tau0, rcccOne
	p.LFSR = r.lfsr.State()
	if cfg.Oversubscribed {
		p.OSNext = r.osPeriod()
	}
	return r, nil
}

// Config returns the configuration r was built with.
func (r *RCCC) Config() RCCCConfig { return r.cfg }

// State returns every register.
func (r *RCCC) State() RCCCState {
	s := r.s
	s.Active, s.Idle = r.active.n, r.idle.n
	return s
}

// Sender returns flow's highest pull target and latest pull (quanta) and
// whether the table holds a context for it.
func (r *RCCC) Sender(flow cc.FlowID) (highest, latest uint32, ok bool) {
	i := r.lookup(flow)
	if i < 0 {
		return 0, 0, false
	}
	return r.highest[i], r.latest[i], true
}

// osPeriod draws the next oversubscription period: 1.5·BaseRTT·(0.75 +
// U/2), U = lfsr/2^32.
func (r *RCCC) osPeriod() units.Time {
	u := uint64(r.lfsr.Next()) // U·2^32
	p := uint64(r.period)
	// p·(0.75 + U/2) = p·3/4 + p·U/2; p < 2^34 ps, so p·u < 2^66: split.
	return units.Time(p*3/4 + (p>>1)*(u>>16)>>16)
}

// hash is the table's index of flow (Fibonacci hashing).
func (r *RCCC) hash(flow cc.FlowID) uint32 { return (uint32(flow) * 0x9E3779B1) & r.mask }

// lookup returns flow's slot, or −1.
func (r *RCCC) lookup(flow cc.FlowID) int32 {
	for h := r.hash(flow); ; h = (h + 1) & r.mask {
		e := r.index[h]
		if e == 0 {
			return rcccNone
		}
		if r.flow[e-1] == flow {
			return e - 1
		}
	}
}

// insert makes flow's slot (the table has room and no slot for it).
func (r *RCCC) insert(flow cc.FlowID) int32 {
	i := int32(r.s.Senders)
	r.s.Senders++
	r.flow[i] = flow
	r.prev[i], r.next[i] = rcccNone, rcccNone
	h := r.hash(flow)
	for r.index[h] != 0 {
		h = (h + 1) & r.mask
	}
	r.index[h] = i + 1
	return i
}

// push appends slot i to l.
func (r *RCCC) push(l *rcccList, i int32, where uint8) {
	r.where[i] = where
	r.prev[i], r.next[i] = l.tail, rcccNone
	if l.tail == rcccNone {
		l.head = i
	} else {
		r.next[l.tail] = i
	}
	l.tail = i
	l.n++
}

// unlink takes slot i out of l.
func (r *RCCC) unlink(l *rcccList, i int32) {
	p, n := r.prev[i], r.next[i]
	if p == rcccNone {
		l.head = n
	} else {
		r.next[p] = n
	}
	if n == rcccNone {
		l.tail = p
	} else {
		r.prev[n] = p
	}
	r.prev[i], r.next[i] = rcccNone, rcccNone
	r.where[i] = rcccOut
	l.n--
}

// toActive puts slot i on the active list (from the idle list or none).
func (r *RCCC) toActive(i int32) {
	switch r.where[i] {
	case rcccActive:
		return
	case rcccIdle:
		r.unlink(&r.idle, i)
	}
	r.push(&r.active, i, rcccActive)
}

// setLatest sets slot i's latest pull, keeping the digest.
func (r *RCCC) setLatest(i int32, v uint32) {
	r.s.LatestSum += uint64(v) - uint64(r.latest[i])
	r.latest[i] = v
}

// serialAfter reports a after b in 32-bit serial arithmetic.
func serialAfter(a, b uint32) bool { return int32(a-b) > 0 }

// tick is one pull at its deadline at (see RCCC): it appends the pull to
// act when emit is set (else only counts it) and sets the next deadline.
// It reports whether it pulled.
func (r *RCCC) tick(at units.Time, act *cc.Actions, emit bool) bool {
	p := &r.s.Pacer
	var i int32
	var quanta uint32
	slow := false
	switch {
	case r.active.n > 0:
		i = r.active.head
		r.unlink(&r.active, i)
		// Grant what is owed, at most a pull's worth.
		if d := int32(r.highest[i] - r.latest[i]); d > 0 {
			quanta = min(uint32(d), r.cpp)
		}
		r.setLatest(i, r.latest[i]+quanta)
		if serialAfter(r.highest[i], r.latest[i]) {
			r.push(&r.active, i, rcccActive)
		} else if r.latest[i]-r.highest[i] < r.maxQ {
			// Idle, for slow pulls, while its slow credit is below the
			// cap (the test the model applies to an idle sender's turn).
			r.push(&r.idle, i, rcccIdle)
		}
	case r.idle.n > 0:
		i = r.idle.head
		r.unlink(&r.idle, i)
		quanta, slow = r.cpp, true
		r.setLatest(i, r.latest[i]+quanta)
		// Stays idle while it has no backlog and its slow credit is below
		// MaxCredit.
		if sc := r.latest[i] - r.highest[i]; !serialAfter(r.highest[i], r.latest[i]) && sc < r.maxQ {
			r.push(&r.idle, i, rcccIdle)
		}
	default:
		p.Next = units.MaxTime
		return false
	}
	if emit {
		act.Add(cc.Action{Kind: cc.ActionFeedback, To: cc.ToSource, Prio: cc.ControlPrio,
			Feedback: wire.UECPull{Pull: r.latest[i], Slow: slow}.Feedback(r.flow[i])})
	}
	r.s.Pulls++
	if slow {
		r.s.SlowPulls++
	}
	r.s.Granted += uint64(quanta)
	if quanta == 0 {
		quanta = rcccIdleQuanta
	}
	// The pacing gap: τ per quantum (the product in 128 bits, saturating).
	gap := units.Time(min(fixedpoint.MulDivSat(p.Tau, uint64(quanta), rcccOne), uint64(units.MaxTime/2)))
	p.Next = fixedpoint.SatAddNonNeg(at, max(gap, 1))
	return true
}

// osUpdate is the oversubscription update at its deadline at (see RCCC).
func (r *RCCC) osUpdate(at units.Time) {
	p := &r.s.Pacer
	total := uint64(p.Received)
	trims := uint64(p.TrimLast) + uint64(p.TrimOther)
	rate := int64(p.Rate)
	decrease := false
	var frac uint64
	if total > trims {
		// F = ecn/(total − trims), Q16: one division per period.
		frac = min(uint64(p.ECN)<<rcccQ/(total-trims), rcccOne)
	}
	if p.TrimOther > 0 {
		rate -= int64(uint64(p.TrimOther) << rcccQ / total)
		decrease = true
	}
	// g ← (1 − α)·g + α·F
	g := int64(p.G) + (int64(r.alp)*(int64(frac)-int64(p.G)))>>rcccQ
	p.G = uint32(g)
	if uint64(g) > r.target && r.md > 0 {
		// rate ← rate·(1 − (g − target)·Md)
		f := int64(rcccOne) - int64((uint64(g)-r.target)*r.md>>rcccQ)
		rate = rate * f >> rcccQ
		decrease = true
	}
	if !decrease {
		inc := int64(r.ai)
		if p.ECN == 0 {
			inc <<= min(p.IncCount, rcccMaxIncShift)
		}
		rate += inc
		p.IncCount = min(p.IncCount+1, math.MaxUint8)
	} else {
		p.IncCount = 0
	}
	p.Rate = uint32(min(max(rate, int64(r.minRate)), rcccOne))
	// τ_actual = τ/rate: the other division of the period.
	p.Tau = fixedpoint.MulDivSat(r.tau0, rcccOne, uint64(p.Rate))
	quiet := p.Received == 0 && p.Rate == rcccOne && p.G == 0
	p.Received, p.ECN, p.TrimLast, p.TrimOther = 0, 0, 0, 0
	p.OSNext = units.MaxTime
	if !quiet {
		p.OSNext = fixedpoint.SatAddNonNeg(at, r.osPeriod())
		p.LFSR = r.lfsr.State()
	}
}

// due reports whether an expiry is due at or before now.
func (r *RCCC) due(now units.Time) bool {
	return r.s.Pacer.Next <= now || r.s.Pacer.OSNext <= now
}

// save records what the expiries of a catch-up may change: the scalars,
// the lists and their members (a tick touches only list members).
func (r *RCCC) save() {
	r.savedPacer, r.savedA, r.savedI, r.savedLFSR = r.s, r.active, r.idle, r.lfsr
	r.nSaved = 0
	for _, l := range [...]*rcccList{&r.active, &r.idle} {
		for i := l.head; i != rcccNone; i = r.next[i] {
			r.saved[r.nSaved] = rcccSaved{slot: i, latest: r.latest[i], prev: r.prev[i], next: r.next[i], where: r.where[i]}
			r.nSaved++
		}
	}
}

// restore undoes what happened since save.
func (r *RCCC) restore() {
	r.s, r.active, r.idle, r.lfsr = r.savedPacer, r.savedA, r.savedI, r.savedLFSR
	for _, x := range r.saved[:r.nSaved] {
		r.latest[x.slot], r.prev[x.slot], r.next[x.slot], r.where[x.slot] = x.latest, x.prev, x.next, x.where
	}
}

// catchUp runs every expiry due at or before now, in time order (cc rule
// 4), appending the pulls to act while there is room and counting the
// rest; it returns how many did not fit (the caller then restores).
func (r *RCCC) catchUp(now units.Time, act *cc.Actions) (missing int) {
	p := &r.s.Pacer
	for {
		at := min(p.Next, p.OSNext)
		if at > now {
			return missing
		}
		if p.OSNext == at && p.OSNext < p.Next {
			r.osUpdate(at)
			continue
		}
		room := act.Free() > 0
		if r.tick(at, act, room) && !room {
			missing++
		}
		if p.OSNext == at {
			r.osUpdate(at)
		}
	}
}

// run is an event at now that may add own pulls of its own after the
// expiries due: it runs them, and if the expiries' pulls and own do not
// fit act, it restores the state, takes back what it appended and
// returns the *cc.ActionsFullError naming how many the event needs. own
// is evaluated after the expiries.
func (r *RCCC) run(now units.Time, act *cc.Actions, event string, own func() int) error {
	due := r.due(now)
	if due {
		r.save()
	}
	mark, free := act.Len(), act.Free()
	missing := r.catchUp(now, act)
	mine := own()
	if missing == 0 && mine <= act.Free() {
		return nil
	}
	need := act.Len() - mark + missing + mine
	if due {
		r.restore()
	}
	act.Truncate(mark)
	return &cc.ActionsFullError{Part: rcccPart, Event: event, Need: need, Free: free}
}

// Receive implements cc.NotificationPoint (see RCCC). Errors, after which
// nothing changed: a now before the latest event's (*cc.TimeOrderError);
// a nil act (cc.NoActions); a nil p or a header that does not decode
// (*cc.EventError); pulls that do not fit act (*cc.ActionsFullError).
func (r *RCCC) Receive(now units.Time, p *cc.Packet, act *cc.Actions) error {
	const event = "Receive"
	if err := r.s.Time.Check(rcccPart, event, now); err != nil {
		return err
	}
	if act == nil {
		return cc.NoActions(rcccPart, event)
	}
	if p == nil {
		return &cc.EventError{Part: rcccPart, Event: event, Reason: "nil packet"}
	}
	h, err := wire.DecodeUECData(p.Hdr[:])
	if err != nil {
		return &cc.EventError{Part: rcccPart, Event: event, Reason: "the header does not decode", Err: err}
	}
	if err := r.run(now, act, event, func() int {
		if r.wouldStart(p.Flow, h) {
			return 1
		}
		return 0
	}); err != nil {
		return err
	}
	r.s.Time.Advance(now)
	pc := &r.s.Pacer
	if r.cfg.Oversubscribed && pc.OSNext == units.MaxTime {
		// The adaptation stopped in a quiet period: it resumes.
		pc.OSNext = fixedpoint.SatAddNonNeg(now, r.osPeriod())
		pc.LFSR = r.lfsr.State()
	}
	pc.Received = satInc32(pc.Received)
	switch {
	case h.Trimmed && h.LastHop:
		pc.TrimLast = satInc32(pc.TrimLast)
	case h.Trimmed:
		pc.TrimOther = satInc32(pc.TrimOther)
	case p.CE:
		pc.ECN = satInc32(pc.ECN)
	}
	if h.Trimmed {
		r.s.Trims++
	}
	if !h.Valid || !h.HasPull && !h.Trimmed {
		return nil
	}
	i := r.lookup(p.Flow)
	if i < 0 {
		if int(r.s.Senders) == r.cfg.Senders {
			r.s.Full++
			return nil
		}
		i = r.insert(p.Flow)
	}
	if h.HasPull && serialAfter(h.PullTarget, r.highest[i]) {
		r.s.HighestSum += uint64(h.PullTarget) - uint64(r.highest[i])
		r.highest[i] = h.PullTarget
		if serialAfter(r.highest[i], r.latest[i]) {
			r.toActive(i)
		}
	}
	if h.Trimmed {
		r.toActive(i) // the source must resend: it needs pulls
	}
	if pc.Next == units.MaxTime && r.active.n+r.idle.n > 0 {
		r.tick(now, act, true)
	}
	return nil
}

// wouldStart reports whether a packet of flow with header h would start
// the idle pacer (and so pull at once), without changing anything.
func (r *RCCC) wouldStart(flow cc.FlowID, h wire.UECData) bool {
	if r.s.Pacer.Next != units.MaxTime || !h.Valid {
		return false // running (or nothing to start it)
	}
	i := r.lookup(flow)
	if i < 0 && int(r.s.Senders) == r.cfg.Senders {
		return false // no room: the packet is ignored
	}
	if h.Trimmed {
		return true
	}
	if !h.HasPull {
		return false
	}
	var highest, latest uint32
	if i >= 0 {
		highest, latest = r.highest[i], r.latest[i]
	}
	return serialAfter(h.PullTarget, highest) && serialAfter(h.PullTarget, latest)
}

func satInc32(v uint32) uint32 {
	if v == math.MaxUint32 {
		return v
	}
	return v + 1
}

// Feedback implements cc.NotificationPoint: RCCC's receiver takes no
// message from a source (its pull targets ride in the data): every kind
// is counted as unused (cc rule 8), after the expiries due.
func (r *RCCC) Feedback(now units.Time, f *cc.Feedback, act *cc.Actions) error {
	if err := r.s.Time.Check(rcccPart, "Feedback", now); err != nil {
		return err
	}
	if act == nil {
		return cc.NoActions(rcccPart, "Feedback")
	}
	if f == nil {
		return &cc.EventError{Part: rcccPart, Event: "Feedback", Reason: "nil feedback"}
	}
	if err := r.run(now, act, "Feedback", func() int { return 0 }); err != nil {
		return err
	}
	r.s.Unused.Count()
	r.s.Time.Advance(now)
	return nil
}

// NextDeadline implements cc.Clock: the next pull or oversubscription
// update.
func (r *RCCC) NextDeadline() units.Time { return min(r.s.Pacer.Next, r.s.Pacer.OSNext) }

// Timer implements cc.Clock: every expiry due (see RCCC).
func (r *RCCC) Timer(now units.Time, act *cc.Actions) error {
	if err := r.s.Time.Check(rcccPart, "Timer", now); err != nil {
		return err
	}
	if act == nil {
		return cc.NoActions(rcccPart, "Timer")
	}
	if err := r.run(now, act, "Timer", func() int { return 0 }); err != nil {
		return err
	}
	r.s.Time.Advance(now)
	return nil
}

// AppendRegisters implements cc.Part: the registers listed in RCCC's doc.
func (r *RCCC) AppendRegisters(dst []cc.Register) []cc.Register {
	s, p := &r.s, &r.s.Pacer
	return append(dst,
		s.Time.Register(),
		cc.TimeReg("next", p.Next),
		cc.TimeReg("os_next", p.OSNext),
		cc.Reg("tau", 64, p.Tau),
		cc.Reg("rate", rcccQ+1, uint64(p.Rate)),
		cc.Reg("g", rcccQ+1, uint64(p.G)),
		cc.Reg("inc_count", 8, uint64(p.IncCount)),
		cc.Reg("received", 32, uint64(p.Received)),
		cc.Reg("ecn", 32, uint64(p.ECN)),
		cc.Reg("trim_last", 32, uint64(p.TrimLast)),
		cc.Reg("trim_other", 32, uint64(p.TrimOther)),
		cc.Reg("lfsr", 32, uint64(p.LFSR)),
		cc.Reg("senders", 32, uint64(s.Senders)),
		cc.Reg("active", 32, uint64(r.active.n)),
		cc.Reg("idle", 32, uint64(r.idle.n)),
		cc.Reg("highest_sum", 64, s.HighestSum),
		cc.Reg("latest_sum", 64, s.LatestSum),
		cc.Reg("pulls", 64, s.Pulls),
		cc.Reg("slow_pulls", 64, s.SlowPulls),
		cc.Reg("granted", 64, s.Granted),
		cc.Reg("full", 64, s.Full),
		cc.Reg("trims", 64, s.Trims),
		s.Unused.Register(),
	)
}
