package rp

import (
	"math"
	"math/bits"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/units"
)

// TIMELYSegment is one ring entry: a segment of the flow whose completion will
// give an RTT sample.
type TIMELYSegment struct {
	// End is the byte offset that ends the segment (a multiple of
	// SegmentBytes): the ACK with Seq ≥ End completes it (64 bits).
	End uint64
	// First and Last are when the segment's first packet and its latest
	// new-data packet started (64-bit ps timestamps).
	First, Last units.Time
	// Bytes is the payload of the packets that carried the segment's new
	// bytes (a packet crossing into the next segment counts whole in both:
	// it started at its first byte), LastBytes the latest such packet's (32
	// bits, saturating).
	Bytes, LastBytes uint32
}

// TIMELYState is every register of an RP.
type TIMELYState struct {
	// Rate is R, kb/s (32 bits), in [MinRate, LineRate].
	Rate uint32
	// PrevRTT is prev_rtt, the latest RTT sample, ns (32 bits, at most
	// 2^31 − 1).
	PrevRTT uint32
	// RTTDiff is rtt_diff, the EWMA of successive RTT differences, ns
	// (signed 32 bits).
	RTTDiff int32
	// Gradient is the latest normalized_gradient = rtt_diff/minRTT,
	// Q16.16 (signed 32 bits, saturating at ±2^15).
	Gradient int32
	// Increases counts consecutive completion events that increased R,
	// the present one included (8 bits, saturating); a decrease clears it.
	Increases uint8
	// Started: a sample has been taken (PrevRTT holds one).
	Started bool
	// SndNxt is the byte offset after the highest byte sent (64 bits):
	// data below it is a retransmission.
	SndNxt uint64
	// SegEnd is the end of the newest segment (a multiple of
	// SegmentBytes, ≥ SndNxt): a new-data packet whose last byte is at or
	// after it opens the next segment (64 bits).
	SegEnd uint64
	// Recording: the newest segment has a ring entry (it did not find the
	// ring full, and no NAK discarded it).
	Recording bool
	// Head is the ring's oldest entry (4 bits), Len its occupancy (0..16,
	// 5 bits); Ring the entries, oldest at Head, ordered by End.
	Head, Len uint8
	Ring      [TIMELYRingSize]TIMELYSegment
	// Samples counts RTT samples taken, HAISteps the N·δ increases,
	// Decreases the decreases, Dropped the segments not recorded because
	// the ring was full, Discarded the entries a NAK discarded (64 bits,
	// wrapping).
	Samples, HAISteps, Decreases, Dropped, Discarded uint64
	// Unused counts the messages of kinds TIMELY does not use, all but
	// ACKs and NAKs (cc rule 8; the register cc.UnusedRegister).
	Unused cc.Unused
}

// TIMELY is TIMELY's reaction point for one flow (Mittal et al., "TIMELY:
// RTT-based Congestion Control for the Datacenter", SIGCOMM 2015): the
// RTT measurement engine (section 3.1) and the rate computation engine
// (section 4.3, Algorithm 1) in integer registers. It implements
// cc.ReactionPoint.
//
// # RTT measurement
//
// The NIC measures one RTT per completed segment. Sent cuts the flow's new
// data into segments of SegmentBytes (segment k is bytes [k·S, (k+1)·S)):
// the packet that carries a segment's first byte opens it, recording its
// end and the packet's send time in a ring of TIMELYRingSize entries; every
// packet that carries new bytes of the newest segment updates its
// last-packet time and byte count. A packet that crosses a boundary is
// the last packet of one segment and the first of the next; one that
// covers whole segments merges them into the segment of its last byte.
// Retransmitted data (below SndNxt) and empty packets change nothing but
// the time. When the ring is full a new segment is not recorded
// (Dropped): the ring keeps the oldest outstanding segments, so that with
// more than TIMELYRingSize segments in flight samples still come, at least
// TIMELYRingSize per RTT.
//
// A cc.FeedbackAck whose Seq reaches a recorded segment's End completes it:
// the entries it completes leave the ring and the newest of them gives the
// one sample of this completion event (a cumulative ACK over several
// segments is one event; older entries' samples would be stale):
//
//	rtt = now − t_send − serialisation     (section 3.1's equation)
//
// t_send and the serialisation by TIMELYConfig.Sample: the first packet's start
// and the segment's payload at line rate (TIMELYSampleFirst), or the last
// packet's start and its payload (TIMELYSampleLast); without
// SubtractSerialization the serialisation is 0. The sample is taken in ns,
// floored, at least 0 and saturating at TIMELYMaxRTT. The serialisation is
// payload·q >> 16 ns with q = round(8·10^9·2^16/LineRate) fixed at NewTIMELY (no
// division), within 1 ns + payload·2^−17 ns of the exact value (1.125 ns
// for 16 KiB).
//
// An ACK of data never sent (Seq > SndNxt) is refused (*cc.EventError).
// A cc.FeedbackNak discards the whole ring (Karn's rule: the segments
// beyond its Seq will be resent, so their send times no longer date their
// completion, and those below it are acknowledged by a NAK, which is not
// a completion event); a NAK beyond SndNxt is refused. Every other kind
// changes nothing but the time. The last segment of a flow whose length
// is not a multiple of SegmentBytes never completes and gives no sample.
//
// # Rate computation (Algorithm 1), per sample
//
//	new_rtt_diff = new_rtt − prev_rtt; prev_rtt = new_rtt
//	rtt_diff ← (1 − α)·rtt_diff + α·new_rtt_diff
//	normalized_gradient = rtt_diff/minRTT
//	if new_rtt < Tlow:  R ← R + δ
//	elif new_rtt > Thigh: R ← R·(1 − β·(1 − Thigh/new_rtt))
//	elif gradient ≤ 0:  R ← R + N·δ  (N = HAIFactor in HAI mode, else 1)
//	else:               R ← R·(1 − β·normalized_gradient)
//	R clamped to [MinRate, LineRate]
//
// The first sample has no predecessor: prev_rtt takes its value first, so
// that new_rtt_diff is 0 (the authors' published code does the same).
//
// Integer form. α weighs the new sample, as Algorithm 1 writes it, so the
// EWMA is rtt_diff ← rtt_diff + ((new_rtt_diff − rtt_diff)·αQ) >> 16
// (αQ = round(α·2^16); with α = 0.875, αQ = 2^16 − 2^13, a shift and a
// subtraction in hardware: floor(7·d/8)); the >> is arithmetic (floor).
// rtt_diff stays in int32: it moves from its old value toward
// new_rtt_diff, both within ±(2^31 − 1), and the floor takes it at most 1
// below. The gradient is g = (rtt_diff·ρ) >> 24 in Q16.16, ρ =
// round(2^40/minRTT) fixed at NewTIMELY (|rtt_diff·ρ| < 2^62), saturating at
// ±2^31 − 1. The branch "gradient ≤ 0" reads the sign of rtt_diff, which
// is the gradient's sign exactly (the floor could make a tiny positive
// gradient 0). A decrease R ← R·(1 − β·f), f ≥ 0 with 16 fraction bits,
// is R ← R − (R·m) >> 16 with m = (βQ·f) >> 16, β·f in Q0.16 (both
// products floored, so the decrement errs low and R high; m ≥ 2^16, β·f ≥
// 1, takes R to 0, then MinRate): f = g for the gradient, f = ((rtt −
// Thigh) << 16)/rtt (< 2^16) for Thigh — one 48-by-32-bit division per
// sample, which a NIC's serial divider finishes in ~48 cycles, well inside
// the ≥ 13 µs between two 16 KiB completions at 10 Gb/s (a reciprocal table
// of rtt would do, at the cost of its error). Increases saturate at
// LineRate. The tests derive the distance to a float model from these
// truncations.
//
// HAI. Increases counts consecutive increases, of either kind (below Tlow,
// or gradient ≤ 0), this one included; any decrease clears it. An increase
// in the gradient region adds N·δ when Increases reaches HAIThreshold: with
// the paper's 5, the fifth increase in a row is the first hyperactive one
// ("gradient < 0 for five completion events", Algorithm 1; the authors'
// code counts the present sample too). Below Tlow the step is δ.
//
// # The contract
//
//   - Sent(p): the segment bookkeeping above. A nil packet, a negative
//     size or payload or an offset beyond TIMELYMaxSeq is refused.
//   - Feedback: ACKs and NAKs as above; every other kind is counted in
//     unused_feedback (cc rule 8) and changes nothing else but the time.
//   - Limits: {Rate: R} with no window.
//   - No timer: NextDeadline is units.MaxTime; Timer records now. No
//     actions: every event takes a nil act.
//
// Registers (AppendRegisters), in order: now (64); rate (32, kb/s);
// prev_rtt (32, ns); rtt_diff (32, signed, ns); gradient (32, signed,
// Q16.16); increases (8); started (1); snd_nxt, seg_end (64); recording
// (1); ring_head (4), ring_len (5), ring_oldest_end, ring_newest_end (64,
// 0 when empty: the ring is summarised, not dumped); samples, hai_steps,
// decreases, dropped, discarded, unused_feedback (64).
//
// It is not safe for concurrent use. The zero value is not usable; build
// one with NewTIMELY.
type TIMELY struct {
	cfg TIMELYConfig
	// Constants fixed at NewTIMELY.
	line, floor   uint32 // kb/s
	delta, hai    uint64 // δ and N·δ, kb/s
	tlow, thigh   uint32 // ns
	alphaQ, betaQ int64  // Q0.16
	rho           int64  // round(2^40/minRTT_ns)
	serQ          uint64 // round(8e9·2^16/LineRate): ns per byte, Q.16
	seg           uint64
	haiAt         uint8
	clock         cc.Monotonic
	st            TIMELYState
}

var _ cc.ReactionPoint = (*TIMELY)(nil)

// The widths of the ring's index registers: the head 0..TIMELYRingSize−1
// (4 bits), the length 0..TIMELYRingSize (5 bits).
var (
	timelyHeadBits = uint8(bits.Len(TIMELYRingSize - 1))
	timelyLenBits  = uint8(bits.Len(TIMELYRingSize))
)

// Fixed-point scales.
const (
	timelyQShift   = 16 // Q0.16 and Q16.16
	timelyRhoShift = 40 // ρ = 2^40/minRTT
	// gShift takes rtt_diff·ρ (Q.40 of rtt_diff/minRTT) to Q16.16.
	timelyGShift   = timelyRhoShift - timelyQShift
	timelyMaxRTTNs = math.MaxInt32 // ns
)

// NewTIMELY validates cfg and returns a flow at InitialRate with nothing sent.
func NewTIMELY(cfg TIMELYConfig) (*TIMELY, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	r := &TIMELY{
		cfg:    cfg,
		line:   uint32(cfg.LineRate / TIMELYRateUnit),
		floor:  uint32(cfg.MinRate / TIMELYRateUnit),
		delta:  uint64(cfg.Delta / TIMELYRateUnit),
		tlow:   uint32(cfg.Tlow / units.Nanosecond),
		thigh:  uint32(cfg.Thigh / units.Nanosecond),
		alphaQ: int64(math.Round(cfg.Alpha * TIMELYQOne)),
		betaQ:  int64(math.Round(cfg.Beta * TIMELYQOne)),
		rho:    int64(math.Round(math.Ldexp(1, timelyRhoShift) / float64(cfg.MinRTT/units.Nanosecond))),
		serQ:   uint64(math.Round(8e9 * TIMELYQOne / float64(cfg.LineRate))),
		seg:    uint64(cfg.SegmentBytes),
		haiAt:  uint8(cfg.HAIThreshold),
	}
	r.hai = r.delta * uint64(cfg.HAIFactor)
	r.st.Rate = uint32(cfg.InitialRate / TIMELYRateUnit)
	return r, nil
}

// Config returns the configuration.
func (r *TIMELY) Config() TIMELYConfig { return r.cfg }

// State returns every register, each in its snapshot's unit (Rate in
// TIMELYRateUnit, RTTs in ns, the gradient in Q16.16).
func (r *TIMELY) State() TIMELYState { return r.st }

// Rate returns the rate R as a units.Rate: the register rate
// (State().Rate, in TIMELYRateUnit) times TIMELYRateUnit.
func (r *TIMELY) Rate() units.Rate { return units.Rate(r.st.Rate) * TIMELYRateUnit }

// Limits is {Rate: R}: TIMELY is rate-based and has no window.
func (r *TIMELY) Limits() cc.Limits { return cc.Limits{Rate: r.Rate()} }

// NextDeadline: TIMELY has no timer.
func (r *TIMELY) NextDeadline() units.Time { return units.MaxTime }

// Timer only records now.
func (r *TIMELY) Timer(now units.Time, _ *cc.Actions) error {
	return r.clock.Accept(timelyPart, "Timer", now)
}

//go:noinline
func timelyEventErr(event, reason string) error {
	return &cc.EventError{Part: timelyPart, Event: event, Reason: reason}
}

// Sent records p's send time if it opens or continues a segment of new
// data (see TIMELY).
func (r *TIMELY) Sent(now units.Time, p *cc.Packet, _ *cc.Actions) error {
	if !r.clock.InOrder(now) {
		return r.clock.Check(timelyPart, "Sent", now)
	}
	if cc.BadPacket(p) {
		return cc.PacketError(timelyPart, "Sent", p)
	}
	if p.Seq > TIMELYMaxSeq || uint64(p.Payload) > TIMELYMaxSeq-p.Seq {
		return timelyEventErr("Sent", "byte offset beyond 2^62")
	}
	r.clock.Advance(now)
	n := uint64(p.Payload)
	hi := p.Seq + n
	if n == 0 || hi <= r.st.SndNxt {
		return nil // no new data
	}
	s := &r.st
	nb := fixedpoint.SatConv[uint32](n)
	// The newest segment's bytes in this packet (new data below its End):
	// the packet is the latest to carry the segment.
	if s.Recording {
		e := &s.Ring[(s.Head+s.Len-1)%TIMELYRingSize]
		if max(p.Seq, s.SndNxt) < e.End {
			e.Last, e.LastBytes = now, nb
			e.Bytes = fixedpoint.SatAdd(e.Bytes, nb)
		}
	}
	// Its last byte beyond the newest segment: it is the first packet of
	// the segment holding that byte (segments it covers whole merge into
	// that one).
	if hi > s.SegEnd {
		// SegEnd = ⌈hi/S⌉·S: one division by the configured S per segment
		// opened, not per packet (a shift and a mask for a power of two
		// such as the paper's 16 KiB; hi ≤ 2^62 and S ≤ 2^24, so hi + S −
		// 1 does not overflow).
		s.SegEnd = (hi + r.seg - 1) / r.seg * r.seg
		if s.Len == TIMELYRingSize {
			s.Recording = false
			s.Dropped++
		} else {
			s.Recording = true
			s.Ring[(s.Head+s.Len)%TIMELYRingSize] = TIMELYSegment{End: s.SegEnd, First: now, Last: now, Bytes: nb, LastBytes: nb}
			s.Len++
		}
	}
	s.SndNxt = hi
	return nil
}

// Feedback takes an ACK (a completion, perhaps a sample) or a NAK (the
// ring discarded); other kinds are counted in unused_feedback.
func (r *TIMELY) Feedback(now units.Time, f *cc.Feedback, _ *cc.Actions) error {
	if !r.clock.InOrder(now) {
		return r.clock.Check(timelyPart, "Feedback", now)
	}
	if f == nil {
		return timelyEventErr("Feedback", "nil feedback")
	}
	switch f.Kind {
	case cc.FeedbackAck, cc.FeedbackNak:
		if f.Seq > r.st.SndNxt {
			return timelyEventErr("Feedback", "acknowledges data never sent")
		}
	default:
		r.clock.Advance(now)
		r.st.Unused.Count()
		return nil
	}
	r.clock.Advance(now)
	s := &r.st
	if f.Kind == cc.FeedbackNak {
		s.Discarded += uint64(s.Len)
		s.Head, s.Len, s.Recording = 0, 0, false
		return nil
	}
	var done TIMELYSegment
	completed := false
	for s.Len > 0 && s.Ring[s.Head].End <= f.Seq {
		done, completed = s.Ring[s.Head], true
		s.Head = (s.Head + 1) % TIMELYRingSize
		s.Len--
	}
	if !completed {
		return nil
	}
	if s.Len == 0 {
		// The newest segment completed: its data is all sent (End ≤ Seq ≤
		// SndNxt ≤ SegEnd = End), the next new data opens another.
		s.Recording = false
	}
	r.update(r.sample(now, &done))
	return nil
}

// sample is a completed segment's RTT in ns (see TIMELY).
func (r *TIMELY) sample(now units.Time, e *TIMELYSegment) uint32 {
	t, bytes := e.First, e.Bytes
	if r.cfg.Sample == TIMELYSampleLast {
		t, bytes = e.Last, e.LastBytes
	}
	ns := uint64(now-t) / uint64(units.Nanosecond)
	if r.cfg.SubtractSerialization {
		ser := uint64(bytes) * r.serQ >> timelyQShift
		ns -= min(ser, ns)
	}
	return uint32(min(ns, timelyMaxRTTNs))
}

// update is Algorithm 1 on one sample rtt (ns, ≤ 2^31 − 1).
func (r *TIMELY) update(rtt uint32) {
	s := &r.st
	s.Samples++
	if !s.Started {
		s.PrevRTT, s.Started = rtt, true
	}
	// new_rtt_diff = new_rtt − prev_rtt; prev_rtt = new_rtt
	newDiff := int64(rtt) - int64(s.PrevRTT)
	s.PrevRTT = rtt
	// rtt_diff ← (1 − α)·rtt_diff + α·new_rtt_diff
	//          = rtt_diff + α·(new_rtt_diff − rtt_diff)
	diff := int64(s.RTTDiff)
	diff += (newDiff - diff) * r.alphaQ >> timelyQShift
	s.RTTDiff = int32(diff)
	// normalized_gradient = rtt_diff/minRTT, Q16.16
	g := diff * r.rho >> timelyGShift
	s.Gradient = int32(max(min(g, math.MaxInt32), -math.MaxInt32))

	rate := uint64(s.Rate)
	switch {
	case rtt < r.tlow:
		// R ← R + δ
		rate += r.delta
		r.increased()
	case rtt > r.thigh:
		// R ← R·(1 − β·(1 − Thigh/new_rtt))
		f := uint64(rtt-r.thigh) << timelyQShift / uint64(rtt)
		rate = r.cut(rate, f)
	case s.RTTDiff <= 0:
		// R ← R + N·δ, N = HAIFactor after HAIThreshold increases in a row
		r.increased()
		if s.Increases >= r.haiAt {
			rate += r.hai
			s.HAISteps++
		} else {
			rate += r.delta
		}
	default:
		// R ← R·(1 − β·normalized_gradient)
		rate = r.cut(rate, uint64(s.Gradient))
	}
	s.Rate = uint32(max(min(rate, uint64(r.line)), uint64(r.floor)))
}

func (r *TIMELY) increased() {
	if r.st.Increases < math.MaxUint8 {
		r.st.Increases++
	}
}

// cut returns rate·(1 − β·f) for f in Q16.16 (f ≥ 0), rounding the
// decrement down, and records a decrease.
func (r *TIMELY) cut(rate, f uint64) uint64 {
	r.st.Increases = 0
	r.st.Decreases++
	m := uint64(r.betaQ) * f >> timelyQShift // β·f, Q0.16; f < 2^31 so < 2^47
	if m >= TIMELYQOne {
		return 0
	}
	return rate - rate*m>>timelyQShift
}

// AppendRegisters appends the registers in the order TIMELY's doc lists.
func (r *TIMELY) AppendRegisters(dst []cc.Register) []cc.Register {
	s := &r.st
	var oldest, newest uint64
	if s.Len > 0 {
		oldest = s.Ring[s.Head].End
		newest = s.Ring[(s.Head+s.Len-1)%TIMELYRingSize].End
	}
	return append(dst,
		r.clock.Register(),
		cc.Reg("rate", 32, uint64(s.Rate)),
		cc.Reg("prev_rtt", 32, uint64(s.PrevRTT)),
		cc.SignedReg("rtt_diff", 32, int64(s.RTTDiff)),
		cc.SignedReg("gradient", 32, int64(s.Gradient)),
		cc.Reg("increases", 8, uint64(s.Increases)),
		cc.BoolReg("started", s.Started),
		cc.Reg("snd_nxt", 64, s.SndNxt),
		cc.Reg("seg_end", 64, s.SegEnd),
		cc.BoolReg("recording", s.Recording),
		cc.Reg("ring_head", timelyHeadBits, uint64(s.Head)),
		cc.Reg("ring_len", timelyLenBits, uint64(s.Len)),
		cc.Reg("ring_oldest_end", 64, oldest),
		cc.Reg("ring_newest_end", 64, newest),
		cc.Reg("samples", 64, s.Samples),
		cc.Reg("hai_steps", 64, s.HAISteps),
		cc.Reg("decreases", 64, s.Decreases),
		cc.Reg("dropped", 64, s.Dropped),
		cc.Reg("discarded", 64, s.Discarded),
		s.Unused.Register(),
	)
}
