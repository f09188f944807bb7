package window

import (
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/units"
)

// Window is one flow's HPCC window: the sending window W, the reference
// window Wc committed once per round trip, the limiter and the pacing rate
// (Algorithm 1, procedure NewAck, lines 21–27, with ComputeWind from Law).
// The caller measures U (rp.HPCC does it from INT) and reports each ACK.
//
// Single-rate (Algorithm 1): Update with one U. Multi-rate (the authors'
// MULTI_RATE option, Appendix A.3's per-resource registers): UpdateHops with
// one U per hop; each hop has its own Reference and W is the smallest
// per-hop window.
//
// A Window holds its Law by pointer: a Law is immutable, so the Windows
// built from one Law (Law.NewWindow, Law.InitWindow) share it.
//
// A Window is not safe for concurrent use (Windows sharing a Law may run
// concurrently). The zero Window is not usable; build one with New,
// Law.NewWindow or Law.InitWindow. Nothing in it allocates after that.
type Window struct {
	// The multi-rate references come first and the registers every update
	// reads and writes last, together, so that a struct embedding a
	// Window can put its own per-ACK fields right after them (rp.HPCC
	// does: one run of cache lines per ACK).
	hops [MaxHops]Reference // multi-rate: one reference per hop
	law  *Law               // shared, immutable
	ref  Reference          // single-rate Wc and incStage
	w    units.Bytes        // W, bytes, 32-bit register in [Min, Max]
	rate units.Rate         // R = W/T, bit/s, recomputed whenever W changes
	// lastUpdateSeq is the first byte sent after the last commit (line 24):
	// 64-bit byte sequence, assigned, never incremented.
	lastUpdateSeq uint64
	commits       uint64 // updates that committed Wc, 64-bit, wraps
}

// State is every register of a Window, for traces and golden comparison.
type State struct {
	W             units.Bytes        // sending window, bytes
	Wc            units.Bytes        // single-rate reference window, bytes
	IncStage      uint8              // single-rate AI steps since the last MI step
	LastUpdateSeq uint64             // first byte sent after the last commit
	Rate          units.Rate         // pacing rate R = W/T, bit/s
	Commits       uint64             // updates that committed (line 22 true)
	Hops          [MaxHops]Reference // multi-rate per-hop references (Init until used)
}

// New validates cfg and returns a Window at W = Wc = W_init, incStage = 0,
// lastUpdateSeq = 0, with a Law of its own: NewLaw(cfg), then
// Law.NewWindow.
func New(cfg Config) (*Window, error) {
	l, err := NewLaw(cfg)
	if err != nil {
		return nil, err
	}
	return l.NewWindow(), nil
}

// NewWindow returns a Window at W = Wc = W_init, incStage = 0,
// lastUpdateSeq = 0, that runs the law l and shares it with every other
// Window built from l (l must not be nil).
func (l *Law) NewWindow() *Window {
	w := new(Window)
	l.InitWindow(w)
	return w
}

// InitWindow sets *w to what NewWindow returns, in place: for a Window
// held inside another struct, without allocating one (l must not be nil).
func (l *Law) InitWindow(w *Window) {
	*w = Window{law: l}
	w.Reset()
}

// Reset returns the window to its initial state (a new flow): W = Wc =
// W_init on the single reference and on every hop, incStage = 0,
// lastUpdateSeq = 0, the commit count 0.
func (w *Window) Reset() {
	ref := w.law.InitialReference()
	w.ref = ref
	for i := range w.hops {
		w.hops[i] = ref
	}
	w.lastUpdateSeq = 0
	w.commits = 0
	w.set(ref.Wc)
}

// Law returns the window law (shared, immutable).
func (w *Window) Law() *Law { return w.law }

// Due is line 22 of Algorithm 1: whether an ACK for ackSeq acknowledges
// data sent after the last commit, ack.seq > lastUpdateSeq, so that the
// update it triggers may commit Wc.
func (w *Window) Due(ackSeq uint64) bool { return ackSeq > w.lastUpdateSeq }

// OnAck is procedure NewAck (lines 21–27) for a measured U: it commits when
// Due(ackSeq), and returns the new W. Shorthand for
// Update(u, Due(ackSeq), sndNxt).
func (w *Window) OnAck(u fixedpoint.UQ32_32, ackSeq, sndNxt uint64) units.Bytes {
	return w.Update(u, w.Due(ackSeq), sndNxt)
}

// Update runs lines 23–27 with the single reference: W = ComputeWind(U,
// commit); on a commit lastUpdateSeq = sndNxt; R = W/T. It returns W.
//
// It is ComputeWind and Rate written out in one function (the per-ACK path
// of rp.HPCC): the reference is the window's own, which only Reset (Wc =
// W_init) and the law's commits (Wc clamped to [Min, Max]) write, so
// ComputeWind's guard of a hand-filled Wc is skipped; the MI step's
// division is Divider.Quo's, inline. TestUpdateMatchesComputeWind checks it
// against ComputeWind and Rate.
func (w *Window) Update(u fixedpoint.UQ32_32, commit bool, sndNxt uint64) units.Bytes {
	l, ref := w.law, &w.ref
	// 23/26: W = ComputeWind(MeasureInflight(ack), True/False)
	wc, uu := uint64(ref.Wc), uint64(u)
	var nw uint64
	// 12: if U >= η or incStage >= maxStage then
	if uu >= l.eta || ref.IncStage >= l.maxStage {
		// 13: W = Wc/(U/η) + W_AI (Law.mi: U = 0 gives W_max)
		q := l.max
		if uu != 0 {
			// Divider.Quo(Wc·η_raw, U_raw) for U ≠ 0, written out so that
			// the table's lookup is inlined here
			a := wc * l.eta
			if l.div.native {
				q = a / uu
			} else {
				n, s := normDivisor(uu)
				q = l.div.table.DivFast(a, n) >> s
			}
		}
		nw = l.clamp(fixedpoint.SatAdd(q, l.ai))
		// 14: if updateWc then  15: incStage = 0; Wc = W
		if commit {
			ref.IncStage, ref.Wc = 0, units.Bytes(nw)
		}
	} else {
		// 17: W = Wc + W_AI  (both < 2^32)
		nw = l.clamp(wc + l.ai)
		// 18: if updateWc then  19: incStage++; Wc = W  (incStage <
		// maxStage ≤ 255 here)
		if commit {
			ref.IncStage, ref.Wc = ref.IncStage+1, units.Bytes(nw)
		}
	}
	if commit {
		// 24: lastUpdateSeq = snd_nxt
		w.lastUpdateSeq = sndNxt
		w.commits++
	}
	// 27: R = W/T
	w.set(units.Bytes(nw))
	return units.Bytes(nw)
}

// UpdateHops is Update in the multi-rate mode: for each hop i < len(u)
// whose bit is set in sampled, W_i = ComputeWind(U_i, commit) on hop i's
// reference; a hop without a sample contributes its Wc unchanged. W is the
// smallest W_i (the authors' "min over hops", Appendix A.3's α → ∞). Hops
// beyond MaxHops are ignored. With no hop (len(u) = 0) W is unchanged, but a
// commit still moves lastUpdateSeq.
func (w *Window) UpdateHops(u []fixedpoint.UQ32_32, sampled uint16, commit bool, sndNxt uint64) units.Bytes {
	n := min(len(u), MaxHops)
	nw := w.w
	for i := range n {
		wi := w.hops[i].Wc
		if sampled&(1<<i) != 0 {
			// 23/26: W_i = ComputeWind(U_i, True/False) on hop i's reference
			wi = w.law.ComputeWind(&w.hops[i], u[i], commit)
		}
		if i == 0 || wi < nw {
			nw = wi
		}
	}
	if commit {
		// 24: lastUpdateSeq = snd_nxt
		w.lastUpdateSeq = sndNxt
		w.commits++
	}
	// 27: R = W/T  (W already in [Min, Max]: every W_i and Wc_i is)
	w.set(nw)
	return nw
}

// Hold sets lastUpdateSeq = sndNxt without an update: the next commit waits
// for an ACK of data sent from now on. rp.HPCC calls it on a flow's first
// ACK, which carries no delta to measure (as the authors' code does).
func (w *Window) Hold(sndNxt uint64) { w.lastUpdateSeq = sndNxt }

// ResetHops restarts every per-hop reference at the current window,
// {Wc: W, incStage: 0}: after a path change the old hops' references
// describe links the flow no longer crosses. The single reference is kept.
func (w *Window) ResetHops() {
	for i := range w.hops {
		w.hops[i] = Reference{Wc: w.w}
	}
}

// CanSend is the inflight limiter (section 3.2, "senders limit inflight
// bytes with sending windows"): a packet may leave while the unacknowledged
// bytes are below W. The packet may take inflight past W by less than its
// own size, as in the authors' NIC model; a negative inflight counts as 0.
func (w *Window) CanSend(inflight units.Bytes) bool { return inflight < w.w }

// Window returns W, bytes.
func (w *Window) Window() units.Bytes { return w.w }

// Rate returns the pacing rate R = W/T, bit/s (computed when W changed).
func (w *Window) Rate() units.Rate { return w.rate }

// State returns every register.
func (w *Window) State() State {
	return State{
		W:             w.w,
		Wc:            w.ref.Wc,
		IncStage:      w.ref.IncStage,
		LastUpdateSeq: w.lastUpdateSeq,
		Rate:          w.rate,
		Commits:       w.commits,
		Hops:          w.hops,
	}
}

// AppendRegisters appends the window's registers to dst, in this order,
// and returns the extended slice; it allocates only when dst must grow:
//
//	w                 32 bits  W, bytes
//	wc                32 bits  single-rate Wc, bytes
//	inc_stage          8 bits  single-rate incStage
//	last_update_seq   64 bits  lastUpdateSeq, byte sequence
//	rate              64 bits  R = W/T, bit/s (signed, as cc.RateReg)
//	commits           64 bits  updates that committed (model counter, wraps)
//	hopI.wc, hopI.inc_stage   32 and 8 bits, for each hop I < hops
//
// hops (clamped to 0..MaxHops) is how many multi-rate references to list:
// rp.HPCC lists its Codec's MaxHops, the most a header can use.
func (w *Window) AppendRegisters(dst []cc.Register, hops int) []cc.Register {
	dst = append(dst,
		cc.Reg("w", WindowBits, uint64(w.w)),
		cc.Reg("wc", WindowBits, uint64(w.ref.Wc)),
		cc.Reg("inc_stage", 8, uint64(w.ref.IncStage)),
		cc.Reg("last_update_seq", 64, w.lastUpdateSeq),
		cc.RateReg("rate", w.rate),
		cc.Reg("commits", 64, w.commits),
	)
	for i := range min(max(hops, 0), MaxHops) {
		dst = append(dst,
			cc.Reg(hopRegNames[i][0], WindowBits, uint64(w.hops[i].Wc)),
			cc.Reg(hopRegNames[i][1], 8, uint64(w.hops[i].IncStage)))
	}
	return dst
}

// hopRegNames are the per-hop register names, "hop0.wc", "hop0.inc_stage",
// ..., made once so that AppendRegisters does not build strings.
var hopRegNames = func() (n [MaxHops][2]string) {
	for i := range n {
		p := "hop" + strconv.Itoa(i) + "."
		n[i] = [2]string{p + "wc", p + "inc_stage"}
	}
	return n
}()

// set writes W and its pacing rate.
func (w *Window) set(nw units.Bytes) {
	w.w = nw
	w.rate = w.law.Rate(nw)
}
