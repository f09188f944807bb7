package credit

import (
	"errors"
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/units"
)

// WRR constants.
const (
	// WRRCounterBits is the width of S_ij and C_ij: 32-bit byte counters
	// that wrap, compared in serial-number order (RFC 1982), so S may run
	// at most 2^31 − 1 bytes ahead of C.
	WRRCounterBits = 32
	// WRRMaxEntries is the largest table: 65,536 entries, a 16-bit source
	// index.
	WRRMaxEntries = 1 << 16
	// WRRDefaultCredit is HierCC's credit, Δ = 1 KB (section 3.2; KB =
	// 1000 B as units.KB).
	WRRDefaultCredit = units.KB
	// WRRDefaultC0 is HierCC's initial VOQ credit, C0 = 10 KB (section 5).
	WRRDefaultC0 = 10 * units.KB
	// WRRMaxCredit is the largest Δ: 2^30 bytes, so that C + Δ stays
	// within the serial-number half period of the 32-bit counters.
	WRRMaxCredit units.Bytes = 1 << 30
)

// ErrNoEntry: a WRR event names a source index the table has no entry for
// (Remove of an empty slot) or no slot for (an index ≥ Entries).
var ErrNoEntry = errors.New("credit: no WRR table entry for that source")

// WRRConfig configures a WRR credit scheduler.
type WRRConfig struct {
	// Entries is the table size, 1..WRRMaxEntries: one slot per source
	// index (HierCC: per sender ToR i of the VOQs i.j sending to this
	// port).
	Entries int
	// Credit is Δ, the bytes one grant is worth, 1..WRRMaxCredit; HierCC:
	// 1 KB (WRRDefaultCredit).
	Credit units.Bytes
	// C0 is the VOQ's initial credit, 0..2^31 − 1 bytes (HierCC: 10 KB,
	// WRRDefaultC0). It only sets C when an entry is created (see WRR,
	// "Choices").
	C0 units.Bytes
}

// HierCCWRR returns HierCC's configuration for a port with entries
// sources: Δ = 1 KB, C0 = 10 KB.
func HierCCWRR(entries int) WRRConfig {
	return WRRConfig{Entries: entries, Credit: WRRDefaultCredit, C0: WRRDefaultC0}
}

// wrrPart names the scheduler in errors.
const wrrPart = "credit.WRR"

// Validate reports the first field out of range as a *cc.ConfigError.
func (c WRRConfig) Validate() error {
	switch {
	case c.Entries < 1 || c.Entries > WRRMaxEntries:
		return &cc.ConfigError{Part: wrrPart, Field: "Entries", Value: strconv.Itoa(c.Entries), Range: "1..65536"}
	case c.Credit < 1 || c.Credit > WRRMaxCredit:
		return &cc.ConfigError{Part: wrrPart, Field: "Credit", Value: c.Credit.String(), Range: "1B.." + WRRMaxCredit.String()}
	case c.C0 < 0 || c.C0 > 1<<31-1:
		return &cc.ConfigError{Part: wrrPart, Field: "C0", Value: c.C0.String(), Range: "0B.." + units.Bytes(1<<31-1).String()}
	}
	return nil
}

// WRREntry is a snapshot of one table entry.
type WRREntry struct {
	S uint32 // bytes the VOQ reports sent (32 bits, wraps)
	C uint32 // bytes of credit granted to it (32 bits, wraps)
	F uint16 // flows it reports: its weight (0 counts as 1)
	// Eligible: C < S in serial-number order, so Grant may pick it.
	Eligible bool
}

// wrrNil ends a list.
const wrrNil int32 = -1

// wrrSlot is one table entry. list is 0 (in no list) or 1 + the index of
// the physical list holding it (WRR.lists); which physical list is the
// active ring flips at each new round.
type wrrSlot struct {
	s, c       uint32 // S_ij, C_ij
	f          uint16 // F_ij as reported
	cnt        uint16 // grants in round stamp
	stamp      uint32 // the round cnt counts in
	prev, next int32  // links in its list
	used       bool
	list       uint8
}

type wrrList struct {
	head, tail int32
	n          int32
}

// WRR is HierCC's credit scheduler for one output port of the
// receiver-side ToR ([HierCC] §3.2, "WRR credit scheduler at
// receiver-side ToRs"): a table of the VOQs i.j that
// send to the port, each with the bytes sent S_ij and the flow count F_ij
// its packets carry, and the credit C_ij granted to it so far. Each
// decision (Grant) sends one credit of Δ bytes to one VOQ by weighted
// round robin with weight F_ij / Σ_i F_ij, and only to a VOQ with
// C_ij < S_ij: one whose credits have caught up with its bytes is skipped
// "until C_ij < S_ij" again.
//
// # Algorithm: interleaved weighted round robin in O(1)
//
// The decisions run in rounds. In a round each eligible entry k receives
// w_k = max(F_k, 1) grants, one per visit, the entries taking turns (for
// weights 3, 2, 1: A B C A B A); this is the interleaved WRR of switch
// schedulers (Katevenis, Sidiropoulos, Courcoubetis, "Weighted round-robin
// cell multiplexing in a general-purpose ATM switch chip", IEEE JSAC 9(8),
// 1991), which serves an entry in w_k separate turns rather than in one
// burst of w_k. The weight F_k / ΣF needs no division: a round is ΣF long
// and holds F_k grants of k.
//
// Two linked lists over the table make every operation constant time: the
// active ring (eligible entries with turns left in this round) and the done
// list (eligible entries that used their w_k). Grant takes the head of the
// active ring, grants it, and moves it to the tail of the active ring, or
// to the done list once it has had w_k grants this round, or out of both
// lists once C ≥ S. When the active ring is empty, the done list becomes
// the active ring and a new round starts. An entry's per-round count is
// reset lazily: it is stamped with the round it counts in, and a stale
// stamp reads as 0. Observe moves an entry between the lists when its
// eligibility or weight changes: a newly eligible entry joins the tail of
// the active ring if it has turns left this round, else the done list.
//
// # Bound
//
// Over any window of W consecutive grants during which the eligible set E
// and its weights do not change (no entry's C reaches its S, no Observe or
// Remove changes eligibility or F), with F = Σ_{i∈E} w_i, each k ∈ E
// receives g_k grants with
//
//	|g_k − W·w_k/F| ≤ 2·w_k·(F − w_k)/F  (< 2·w_k)
//
// Proof: every round that starts inside the window is complete and holds
// exactly w_i grants of each i (its length is F), so those rounds deviate
// by 0. The window's two partial rounds are contiguous pieces of length p
// of a round in which k has r_k ≤ w_k grants left and the others at most
// F − w_k; such a piece holds between max(0, p − (F − w_k)) and min(p, w_k)
// grants of k, which differ from p·w_k/F by at most w_k(F − w_k)/F. (A
// window within one round has one piece and half the bound.) The tests
// check the bound over random weights and windows, and check the schedule
// decision by decision against a reference model written with slices.
//
// # Registers, units and overflow policy
//
//	register       width    unit     policy
//	S_ij           32 bits  bytes    wraps; a report older in serial-number
//	                                 order than the stored S is ignored
//	C_ij           32 bits  bytes    wraps; + Δ per grant
//	F_ij           16 bits  flows    as reported; weight max(F, 1)
//	cnt            16 bits  grants   grants this round, 0..w
//	stamp          32 bits  rounds   round cnt counts in (wraps; see below)
//	round          32 bits  rounds   current round (wraps)
//	grants         64 bits  credits  model counter: grants made, wraps
//	ignored        32 bits  reports  stale S reports ignored, wraps
//	now            64 bits  ps       latest accepted time (cc.Monotonic)
//
// AppendRegisters summarises the table (occupancy, eligible entries, the
// list lengths) rather than dumping it; Entry reads one entry.
//
// # Choices the paper leaves open
//
//   - C_ij does not count C0: the paper's test is C_ij < S_ij with C_ij
//     the credits sent, so the receiver replaces every byte the VOQ sends
//     and the VOQ's balance C0 + C − S stays within [C0 − (S − C), C0 + Δ).
//   - A new entry starts at C = S − min(S, C0): for a VOQ whose first
//     packet arrives with S ≤ C0 (it cannot send more before its first
//     credit) this is C = 0, the paper's rule; for a VOQ re-learnt after
//     Remove it returns at most C0 bytes of credit, never its whole
//     history.
//   - S is kept monotone: a report whose S is older than the stored one (a
//     packet reordered on another path) is ignored whole, F included,
//     since that F is older too; the ignored register counts it. So is a
//     report whose S is so far ahead of C (2^31 bytes or more, less Δ)
//     that C would read as more than Δ − 1 past it in serial order: a
//     lap of the 32-bit counters, which a VOQ sending C0 + C at most
//     cannot make; the bound C ≤ S + Δ − 1 holds for any reports (the
//     fuzz target checks it). So the VOQ must report at least every 2 GiB
//     of traffic.
//   - F = 0 weighs 1: a VOQ whose last packet reported no flows still gets
//     the credit for bytes it sent.
//   - The table is indexed by source (the sender ToR i, 0..Entries−1), as
//     a switch's per-port table indexed by source ToR would be; it never
//     fills. An index ≥ Entries is refused (ErrNoEntry). Remove frees a
//     slot (the VOQ went idle or its sender left).
//   - A 32-bit round stamp aliases after 2^32 rounds: an entry absent
//     (ineligible) for a multiple of 2^32 rounds returns with a stale
//     count and gets fewer turns in one round; nothing else.
//   - Δ > S − C: a grant may overshoot S by up to Δ − 1 bytes (the paper
//     sends whole credits).
//
// A WRR is not safe for concurrent use. The zero value is not usable;
// build one with NewWRR. Nothing in it allocates after NewWRR, except the
// error of a refused event.
type WRR struct {
	cfg     WRRConfig
	clock   cc.Monotonic
	t       []wrrSlot
	lists   [2]wrrList // lists[act] is the active ring, the other the done list
	act     uint8
	nUsed   int32
	round   uint32
	grants  uint64
	ignored uint32
}

// NewWRR validates cfg and returns an empty scheduler.
func NewWRR(cfg WRRConfig) (*WRR, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	w := &WRR{cfg: cfg, t: make([]wrrSlot, cfg.Entries)}
	w.Reset()
	return w, nil
}

// Reset empties the table and zeroes the counters; the time register keeps
// its value.
func (w *WRR) Reset() {
	clear(w.t)
	w.lists = [2]wrrList{{wrrNil, wrrNil, 0}, {wrrNil, wrrNil, 0}}
	w.act, w.nUsed = 0, 0
	w.round, w.grants, w.ignored = 0, 0, 0
}

// Config returns the configuration.
func (w *WRR) Config() WRRConfig { return w.cfg }

// eligible reports C < S in 32-bit serial-number order.
func (e *wrrSlot) eligible() bool { return fixedpoint.WrapBefore(e.c, e.s, WRRCounterBits) }

// weight is max(F, 1).
func (e *wrrSlot) weight() uint16 { return max(e.f, 1) }

// count is the grants e had in the current round.
func (w *WRR) count(e *wrrSlot) uint16 {
	if e.stamp != w.round {
		return 0
	}
	return e.cnt
}

// Observe records the header of a packet from source src that arrived at
// now: its VOQ reports s bytes sent (S_ij, 32-bit, wrapping) and f flows
// (F_ij). The first report from src creates its entry (C = S − min(S,
// C0)); a report whose s is older than the entry's S in serial-number
// order, or a lap of the counters ahead of its C (see the type's
// choices), is ignored (false, nil; counted). It refuses, changing nothing,
// src ≥ Entries (ErrNoEntry) and an event out of time order.
func (w *WRR) Observe(now units.Time, src int, s uint32, f uint16) (taken bool, err error) {
	if !w.clock.InOrder(now) {
		return false, w.clock.Check(wrrPart, "Observe", now)
	}
	if src < 0 || src >= len(w.t) {
		return false, w.noSlot("Observe", src)
	}
	w.clock.Advance(now)
	e := &w.t[src]
	if !e.used {
		c0 := uint32(w.cfg.C0)
		*e = wrrSlot{s: s, c: s - min(s, c0), f: f, prev: wrrNil, next: wrrNil, used: true}
		w.nUsed++
	} else {
		if fixedpoint.WrapBefore(s, e.s, WRRCounterBits) || int32(e.c-s) > int32(w.cfg.Credit)-1 {
			// Older than the stored S, or so far ahead that C would read
			// as more than a credit past it (a lap of the 32-bit counter).
			w.ignored++
			return false, nil
		}
		e.s, e.f = s, f
	}
	w.place(int32(src))
	return true, nil
}

// Tags of the lists for wrrSlot.list: none, the active ring, the done
// list.
func (w *WRR) activeTag() uint8 { return 1 + w.act }
func (w *WRR) doneTag() uint8   { return 2 - w.act }

// place puts entry i in the list its state calls for.
func (w *WRR) place(i int32) {
	e := &w.t[i]
	var want uint8
	if e.eligible() {
		want = w.activeTag()
		if w.count(e) >= e.weight() {
			want = w.doneTag()
		}
	}
	if e.list == want {
		return
	}
	w.unlink(i)
	w.push(i, want)
}

// Remove forgets the entry of src at now (its VOQ went idle or away). It
// refuses, changing nothing, a src with no entry (ErrNoEntry) and an event
// out of time order.
func (w *WRR) Remove(now units.Time, src int) error {
	if !w.clock.InOrder(now) {
		return w.clock.Check(wrrPart, "Remove", now)
	}
	if src < 0 || src >= len(w.t) || !w.t[src].used {
		return w.noSlot("Remove", src)
	}
	w.clock.Advance(now)
	w.unlink(int32(src))
	w.t[src] = wrrSlot{}
	w.nUsed--
	return nil
}

//go:noinline
func (w *WRR) noSlot(event string, src int) error {
	reason := "source " + strconv.Itoa(src) + " has no entry"
	if src < 0 || src >= len(w.t) {
		reason = "source " + strconv.Itoa(src) + " outside the table (0.." + strconv.Itoa(len(w.t)-1) + ")"
	}
	return &cc.EventError{Part: wrrPart, Event: event, Reason: reason, Err: ErrNoEntry}
}

// Grant makes one decision at now: it picks the next eligible entry by
// interleaved WRR, adds Δ to its C, and returns its source index; the
// caller sends that VOQ a credit of Δ bytes. With no eligible entry it
// returns ok = false and changes nothing but the time register. It refuses
// an event out of time order. Constant time.
func (w *WRR) Grant(now units.Time) (src int, ok bool, err error) {
	if !w.clock.InOrder(now) {
		return 0, false, w.clock.Check(wrrPart, "Grant", now)
	}
	w.clock.Advance(now)
	if w.lists[w.act].head == wrrNil {
		if w.lists[w.act^1].head == wrrNil {
			return 0, false, nil
		}
		// A new round: the done list becomes the active ring (its
		// members keep their tag, which now names the active ring) and
		// the stale stamps make every count read 0.
		w.act ^= 1
		w.round++
	}
	i := w.lists[w.act].head
	e := &w.t[i]
	w.unlink(i)
	if e.stamp != w.round {
		e.stamp, e.cnt = w.round, 0
	}
	e.cnt++
	e.c += uint32(w.cfg.Credit)
	w.grants++
	switch {
	case !e.eligible():
		// C reached S: skipped until S grows.
	case e.cnt >= e.weight():
		w.push(i, w.doneTag())
	default:
		w.push(i, w.activeTag())
	}
	return int(i), true, nil
}

// unlink takes entry i out of whichever list holds it.
func (w *WRR) unlink(i int32) {
	e := &w.t[i]
	if e.list == 0 {
		return
	}
	l := &w.lists[e.list-1]
	if e.prev == wrrNil {
		l.head = e.next
	} else {
		w.t[e.prev].next = e.next
	}
	if e.next == wrrNil {
		l.tail = e.prev
	} else {
		w.t[e.next].prev = e.prev
	}
	l.n--
	e.prev, e.next, e.list = wrrNil, wrrNil, 0
}

// push appends entry i to the tail of the list tagged tag (0: none).
func (w *WRR) push(i int32, tag uint8) {
	if tag == 0 {
		return
	}
	l := &w.lists[tag-1]
	e := &w.t[i]
	e.list, e.prev, e.next = tag, l.tail, wrrNil
	if l.tail == wrrNil {
		l.head = i
	} else {
		w.t[l.tail].next = i
	}
	l.tail = i
	l.n++
}

// Owed returns how many grants the table can still make before no entry
// is eligible, if nothing is observed meanwhile: the sum over the
// eligible entries of ⌈(S − C)/Δ⌉ (S − C in serial-number order, below
// 2^31). A caller that is owed several grants at once (a credit pacer
// catching up missed ticks) sends min(ticks, Owed) credits. Linear in the
// eligible entries; it changes nothing.
func (w *WRR) Owed() uint64 {
	var n uint64
	d := uint64(w.cfg.Credit)
	for l := range w.lists {
		for i := w.lists[l].head; i != wrrNil; i = w.t[i].next {
			e := &w.t[i]
			n += (uint64(e.s-e.c) + d - 1) / d
		}
	}
	return n
}

// CopyFrom makes w a copy of src, a scheduler of the same table size, in
// place (no allocation): what a caller runs ahead on a scratch copy to
// learn which entries the next grants go to without changing src. It
// refuses, changing nothing, a src of another table size.
func (w *WRR) CopyFrom(src *WRR) error {
	if len(w.t) != len(src.t) {
		return &cc.EventError{Part: wrrPart, Event: "CopyFrom", Reason: "a table of " + strconv.Itoa(len(src.t)) + " entries into one of " + strconv.Itoa(len(w.t))}
	}
	t := w.t
	copy(t, src.t)
	*w = *src
	w.t = t
	return nil
}

// Entry returns the entry of src and whether it exists.
func (w *WRR) Entry(src int) (WRREntry, bool) {
	if src < 0 || src >= len(w.t) || !w.t[src].used {
		return WRREntry{}, false
	}
	e := &w.t[src]
	return WRREntry{S: e.s, C: e.c, F: e.f, Eligible: e.eligible()}, true
}

// Len returns the number of entries in use.
func (w *WRR) Len() int { return int(w.nUsed) }

// Eligible returns the number of entries with C < S.
func (w *WRR) Eligible() int { return int(w.lists[0].n + w.lists[1].n) }

// Round returns the 32-bit round counter.
func (w *WRR) Round() uint32 { return w.round }

// Grants returns the grants made (64-bit model counter, wraps).
func (w *WRR) Grants() uint64 { return w.grants }

// Ignored returns the stale S reports ignored (32 bits, wraps).
func (w *WRR) Ignored() uint32 { return w.ignored }

// AppendRegisters appends the scheduler's registers to dst, in this order,
// and returns the extended slice; it allocates only when dst must grow:
//
//	entries   17 bits  entries in use, 0..65536
//	active    17 bits  entries in the active ring
//	done      17 bits  entries in the done list
//	round     32 bits  round counter (wraps)
//	grants    64 bits  grants made (model counter, wraps)
//	ignored   32 bits  stale S reports ignored (wraps)
//	now       64 bits  latest accepted time, ps (signed)
func (w *WRR) AppendRegisters(dst []cc.Register) []cc.Register {
	return append(dst,
		cc.Reg("entries", 17, uint64(w.nUsed)),
		cc.Reg("active", 17, uint64(w.lists[w.act].n)),
		cc.Reg("done", 17, uint64(w.lists[w.act^1].n)),
		cc.Reg("round", 32, uint64(w.round)),
		cc.Reg("grants", 64, w.grants),
		cc.Reg("ignored", 32, uint64(w.ignored)),
		w.clock.Register(),
	)
}
