package rp

import (
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/units"
)

// DCTCP's limits and widths: each is declared here once, and Validate,
// AppendRegisters and the registration in package algos read it.
const (
	// DCTCPMaxCwnd is the largest cwnd accepted: 1 GiB, far below the
	// 2^31 bytes a 32-bit sequence space allows in flight.
	DCTCPMaxCwnd = units.GiB
	// DCTCPMaxSegment is the largest payload Sent takes: 64 KiB (a TSO
	// segment). Feedback takes larger ACKs and splits them into pieces of
	// at most this size.
	DCTCPMaxSegment = 64 * units.KiB
	// DCTCPMaxShiftG is the largest DCTCPConfig.ShiftG, dctcp_shift_g:
	// Linux accepts 0..10 ([Linux-DCTCP], param_set_uint_minmax).
	DCTCPMaxShiftG = 10
	// DCTCPAlphaBits is the width of the α register: Q10 with one integer
	// bit (fixedpoint.UQ1_10), 0..1024 in 11 bits.
	DCTCPAlphaBits = fixedpoint.UQ1_10Frac + 1
)

const (
	// dctcpCutShift: cwnd·α >> 11 is cwnd·(α/1024)/2.
	dctcpCutShift = fixedpoint.UQ1_10Frac + 1
	// dctcpCounterMax is where the window byte counters saturate.
	dctcpCounterMax = uint64(1) << 53
	// dctcpMinCwndSegs is the floor of a cut, in MSS.
	dctcpMinCwndSegs = 2
	// dctcpSeqBits is the width of the sequence numbers; dctcpSeqHalf half
	// their period, the most bytes that may be in flight plus one.
	dctcpSeqBits = 32
	dctcpSeqHalf = uint64(1) << (dctcpSeqBits - 1)
	// dctcpWindowBits is the width of the byte registers cwnd, ssthresh,
	// max_inflight and cwnd_cnt (below cwnd).
	dctcpWindowBits = 32
	// dctcpPart names the reaction point in errors.
	dctcpPart = "rp.DCTCP"
)

// DCTCPConfig configures a DCTCP reaction point.
type DCTCPConfig struct {
	// MSS is the sender's maximum segment size: the additive-increase step
	// and the unit of the 2-segment floor. Range: 1..DCTCPMaxSegment.
	MSS units.Bytes
	// InitialCwnd is the window at start (a 32-bit byte register). Range:
	// 2·MSS..MaxCwnd.
	InitialCwnd units.Bytes
	// MaxCwnd caps cwnd (saturating). Range: 2·MSS..DCTCPMaxCwnd.
	MaxCwnd units.Bytes
	// ShiftG is dctcp_shift_g: g = 2^−ShiftG (Linux default 4, g = 1/16).
	// Range: 0..DCTCPMaxShiftG.
	ShiftG uint8
	// InitialAlpha is dctcp_alpha_on_init, α at start in Q10 (Linux
	// default 1024 = 1.0). Range: 0..fixedpoint.UQ1_10One.
	InitialAlpha fixedpoint.UQ1_10
	// SlowStart turns slow start on (off in the presets; see DCTCP).
	SlowStart bool
	// InitialSeq is the first sequence number (32 bits): snd_una = snd_nxt
	// = it at start. The contract's byte offsets (cc.Packet.Seq,
	// cc.Feedback.Seq, counted from 0) are taken modulo 2^32 and added to
	// it.
	InitialSeq uint32
}

// DCTCPDefault returns Linux tcp_dctcp.c's defaults (dctcp_shift_g = 4,
// dctcp_alpha_on_init = 1024) with an MSS of mss, an initial window of 10
// segments (Linux's IW10), cwnd capped at DCTCPMaxCwnd, and slow start off
// (set SlowStart for Linux's behaviour).
func DCTCPDefault(mss units.Bytes) DCTCPConfig {
	return DCTCPConfig{
		MSS:          mss,
		InitialCwnd:  10 * mss,
		MaxCwnd:      DCTCPMaxCwnd,
		ShiftG:       4,
		InitialAlpha: fixedpoint.UQ1_10One,
	}
}

// DCTCPHPCCSim returns the DCTCP sender of the HPCC paper's simulations
// ([HPCC] §5.1: slow start removed; the authors' ns-3 run
// script: g = 0.0625 = 2^−4, 1000-byte payloads): MSS 1000 B, the window
// starting at and capped by the bandwidth-delay product link·rtt (at least 2
// segments; the simulator starts every flow at line rate and never exceeds
// it), α starting at 1.0.
func DCTCPHPCCSim(link units.Rate, rtt units.Time) DCTCPConfig {
	const mss = 1000 * units.Byte
	bdp := max(units.BytesIn(link, rtt), dctcpMinCwndSegs*mss)
	return DCTCPConfig{
		MSS:          mss,
		InitialCwnd:  bdp,
		MaxCwnd:      bdp,
		ShiftG:       4,
		InitialAlpha: fixedpoint.UQ1_10One,
	}
}

// Validate checks every field's range and returns a *cc.ConfigError naming
// the first field out of range and the allowed range.
func (c DCTCPConfig) Validate() error {
	bad := func(field, value, want string) error {
		return &cc.ConfigError{Part: dctcpPart, Field: field, Value: value, Range: want}
	}
	if c.MSS < 1 || c.MSS > DCTCPMaxSegment {
		return bad("MSS", c.MSS.String(), "1B.."+DCTCPMaxSegment.String())
	}
	floor := dctcpMinCwndSegs * c.MSS
	if c.MaxCwnd < floor || c.MaxCwnd > DCTCPMaxCwnd {
		return bad("MaxCwnd", c.MaxCwnd.String(), "2·MSS ("+floor.String()+").."+DCTCPMaxCwnd.String())
	}
	if c.InitialCwnd < floor || c.InitialCwnd > c.MaxCwnd {
		return bad("InitialCwnd", c.InitialCwnd.String(), "2·MSS ("+floor.String()+")..MaxCwnd ("+c.MaxCwnd.String()+")")
	}
	if c.ShiftG > DCTCPMaxShiftG {
		return bad("ShiftG", strconv.Itoa(int(c.ShiftG)), "0.."+strconv.Itoa(DCTCPMaxShiftG))
	}
	if c.InitialAlpha > fixedpoint.UQ1_10One {
		one := strconv.Itoa(int(fixedpoint.UQ1_10One))
		return bad("InitialAlpha", strconv.Itoa(int(c.InitialAlpha)), "0.."+one+" (Q10, "+one+" = 1.0)")
	}
	return nil
}

// DCTCPState is every register of a DCTCP reaction point, each in the unit
// of its snapshot (AppendRegisters lists them in DCTCP's doc).
type DCTCPState struct {
	// Cwnd and Ssthresh are in bytes (32-bit).
	Cwnd, Ssthresh uint32
	// Alpha is α, Q10 (1024 = 1.0), 0..1024 in DCTCPAlphaBits bits.
	Alpha fixedpoint.UQ1_10
	// SndUna is the highest cumulative ACK, SndNxt the sequence after the
	// highest byte sent (32-bit, wrapping).
	SndUna, SndNxt uint32
	// NextSeq ends the α observation window (Linux's next_seq).
	NextSeq uint32
	// InCWR is true during a reduction, which ends when SndUna reaches
	// CWREnd.
	InCWR  bool
	CWREnd uint32
	// Delivered and Marked count the bytes acknowledged in the current
	// observation window, and those of them echoed with ECN (64-bit,
	// saturating at 2^53).
	Delivered, Marked uint64
	// CwndCnt is the bytes acknowledged toward the next +MSS (< Cwnd, so
	// 32 bits hold it; Linux's snd_cwnd_cnt counts packets).
	CwndCnt uint64
	// CwndLimited is Linux's is_cwnd_limited: some send since the window
	// ending at CwndUsageSeq began left less than one MSS of room in cwnd.
	// MaxInflight is Linux's max_packets_out in bytes: the most bytes in
	// flight after a send of that window (32-bit, below 2^31).
	// CwndUsageSeq is Linux's cwnd_usage_seq: SndNxt at the latest update
	// of the two (32-bit, wrapping). See DCTCP.
	CwndLimited  bool
	MaxInflight  uint32
	CwndUsageSeq uint32
	// Time is the latest time an event was accepted at (earlier times are
	// refused).
	Time cc.Monotonic
	// Acks, Windows and Cuts count ACKs (pieces of a split ACK each count),
	// observation windows ended and window cuts. 64-bit, wrapping.
	Acks, Windows, Cuts uint64
	// Unused counts the messages of kinds DCTCP does not use, neither an
	// ACK nor a NAK (register unused_feedback, cc rule 8).
	Unused cc.Unused
}

// DCTCP is the reaction point of DCTCP: the window-based sender ([DCTCP]
// §3.1; [RFC8257] §3.3) of one flow, in the integer form of Linux
// net/ipv4/tcp_dctcp.c ([Linux-DCTCP]), the reference implementation:
//
//	α ← (1 − g)·α + g·F, once per window of data, F = marked/delivered:
//	    α ← α − min_not_zero(α, α >> g) + ((marked << (10 − g)) / max(1, delivered)),
//	    capped at 1024 (α in Q10, fixedpoint.UQ1_10; g = 2^−dctcp_shift_g)
//	cwnd ← cwnd·(1 − α/2), once per window with marks:
//	    cwnd ← max(cwnd − (cwnd·α >> 11), 2·MSS)
//	cwnd ← cwnd + MSS per cwnd bytes acknowledged (congestion avoidance)
//
// min_not_zero(α, α >> g) is Linux's decay rule: while α >> g is non-zero it
// is subtracted, and once α < 2^g the whole of α is, so α decays to exactly 0
// after enough unmarked windows (never sticking at a small positive value).
//
// Windows. The α observation window, like Linux's next_seq, ends with the
// first ACK whose cumulative sequence reaches the snd_nxt recorded when the
// previous window ended; the ACK's own bytes count in the window that ends.
// The cut follows Linux's CWR state: the first ECN-echo ACK outside a
// reduction cuts the window (with α as it stands after this ACK's α update)
// and starts a reduction that lasts until the cumulative ACK reaches the
// snd_nxt of the cut; no further cut and no increase happen in between. So
// there is at most one cut per window of data. The cut is applied at once
// (Linux reaches the same ssthresh gradually, by proportional rate reduction).
//
// Registers: cwnd and ssthresh are 32-bit byte registers (at most
// DCTCPMaxCwnd); the sequence numbers are 32-bit and wrap, compared as TCP
// does (Linux's before(a, b) ⇔ int32(a − b) < 0; here "b reached a" ⇔ a = b
// or fixedpoint.WrapBefore(a, b, 32), its negation); α is Q10, 0..1024; the
// window's delivered and marked byte counts are 64-bit, saturating at 2^53
// (Linux counts packets; with equal-sized packets the fraction is the same,
// and older kernels counted bytes too). cwnd·α < 2^41 and marked << 10 <
// 2^63: no overflow.
//
// Slow start is optional and off by default (the HPCC paper removes it from
// DCTCP "for fair comparisons", [HPCC] §5.1). When on, while
// cwnd < ssthresh every acknowledged byte adds a byte (Linux tcp_slow_start),
// and a cut sets ssthresh to the new cwnd (Linux dctcp_ssthresh).
//
// Growth only while the window is used. Like Linux, whose DCTCP grows cwnd
// in tcp_reno_cong_avoid, which returns at once unless
// tcp_is_cwnd_limited(), cwnd grows (slow start or congestion avoidance)
// only on an ACK that finds the sender cwnd-limited:
//
//	cwnd-limited ⇔ CwndLimited, or (in slow start) cwnd < 2·MaxInflight
//
// (include/net/tcp.h tcp_is_cwnd_limited, as of the 2022 fix "tcp: fix
// tcp_cwnd_validate() to not forget is_cwnd_limited"). A sender
// held back by something else (pacing, the NIC, the application) keeps its
// window. The two registers are kept at send time as Linux's
// tcp_cwnd_validate (net/ipv4/tcp_output.c) keeps is_cwnd_limited and
// max_packets_out, in bytes instead of packets. After each Sent, with
// inflight = SndNxt − SndUna:
//
//	limited := cwnd − inflight < MSS        (no room for one more full segment)
//	if SndUna has reached CwndUsageSeq      (the tracked window is acknowledged)
//	   or limited
//	   or (!CwndLimited and inflight > MaxInflight) {
//		CwndLimited, MaxInflight, CwndUsageSeq = limited, inflight, SndNxt
//	}
//
// Linux sets is_cwnd_limited when tcp_packets_in_flight ≥ snd_cwnd after a
// transmit, i.e. when not one more packet fits. In bytes the same test is
// that the room left, cwnd − inflight, is below one MSS: a sender whose
// window is not a whole number of segments (after a cut) is blocked with up
// to MSS − 1 bytes of room, and one that may overshoot its window (sending
// while inflight < cwnd, as the harness NIC does) ends above it. So the
// flag says "blocked by cwnd at some send of the current window": set by
// any such send, cleared by the first send after the window it was set in
// has been acknowledged, unless that send is blocked too. A window with no
// send keeps the flag (and Linux's too: only a transmit attempt re-evaluates
// it). Linux also runs the update when it tried to send and cwnd allowed
// nothing; here the send that filled the window has already set the flag.
//
// No loss recovery, no RTO: the harness's lossless fabric needs none; the
// machine has no timer.
//
// # Events
//
// DCTCP has the events of a cc.ReactionPoint only:
//
//   - Sent(p) records the segment [InitialSeq + p.Seq, + p.Payload) mod
//     2^32.
//   - Feedback of a cc.FeedbackAck acknowledges every byte below
//     InitialSeq + f.Seq mod 2^32, f.Acked of them newly, with ECN echo
//     f.ECE: an ACK of any size, split into pieces of at most
//     DCTCPMaxSegment. A cc.FeedbackNak is taken the same way: a go-back-N
//     NAK acknowledges every byte below its Seq, as a RoCE NAK does, and
//     its newly acknowledged bytes and ECN echo count as an ACK's (the
//     retransmission is the NIC's; this machine has no loss recovery, and
//     the harness has always passed NAKs to it as ACKs). Any other kind (a
//     CNP, a rate message) changes nothing but the time and the count of
//     unused messages (cc rule 8): DCTCP uses none, and the contract's set
//     of kinds is open.
//   - Limits is {Window: cwnd} with no rate: DCTCP is window-based (the
//     caller paces at its line rate or the flow's offered rate).
//   - NextDeadline is units.MaxTime (no deadline is ever late); Timer only
//     records now.
//
// No event decides anything, so every event takes a nil *cc.Actions.
//
// Registers (AppendRegisters), in order: now; cwnd, ssthresh (32); alpha
// (DCTCPAlphaBits, Q10); snd_una, snd_nxt, next_seq (32); in_cwr (1),
// cwr_end (32); delivered, marked (64); cwnd_cnt (32); cwnd_limited (1),
// max_inflight, cwnd_usage_seq (32); acks, windows, cuts (64);
// unused_feedback (64).
//
// It is not safe for concurrent use. The zero value is not usable; build
// one with NewDCTCP.
type DCTCP struct {
	cfg      DCTCPConfig
	mss, max uint64
	s        DCTCPState
}

var _ cc.ReactionPoint = (*DCTCP)(nil)

// NewDCTCP validates cfg and returns a sender with nothing sent.
func NewDCTCP(cfg DCTCPConfig) (*DCTCP, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	d := &DCTCP{cfg: cfg, mss: uint64(cfg.MSS), max: uint64(cfg.MaxCwnd)}
	d.s.Cwnd = uint32(cfg.InitialCwnd)
	d.s.Ssthresh = uint32(cfg.MaxCwnd)
	d.s.Alpha = cfg.InitialAlpha
	isn := cfg.InitialSeq
	d.s.SndUna, d.s.SndNxt, d.s.NextSeq, d.s.CWREnd, d.s.CwndUsageSeq = isn, isn, isn, isn, isn
	return d, nil
}

// Config returns the configuration d was built with.
func (d *DCTCP) Config() DCTCPConfig { return d.cfg }

// State returns every register, each in the unit of its snapshot.
func (d *DCTCP) State() DCTCPState { return d.s }

// Window returns cwnd in bytes, the value of register cwnd.
func (d *DCTCP) Window() units.Bytes { return units.Bytes(d.s.Cwnd) }

// Alpha returns α in Q10 (1024 = 1.0), the raw value of register alpha.
func (d *DCTCP) Alpha() fixedpoint.UQ1_10 { return d.s.Alpha }

// Inflight returns SndNxt − SndUna modulo 2^32, the bytes sent and not yet
// acknowledged (registers snd_nxt and snd_una, bytes).
func (d *DCTCP) Inflight() units.Bytes { return units.Bytes(d.s.SndNxt - d.s.SndUna) }

// dctcpReached reports whether sequence a has reached b: a is b or comes
// after it in TCP's serial-number order. It is Linux's !before(a, b), i.e.
// int32(a − b) ≥ 0, valid while a and b are less than 2^31 apart.
func dctcpReached(a, b uint32) bool {
	return a == b || fixedpoint.WrapBefore(b, a, dctcpSeqBits)
}

// dctcpRefuse returns the *cc.EventError of event.
func dctcpRefuse(event, reason string) error {
	return &cc.EventError{Part: dctcpPart, Event: event, Reason: reason}
}

// dctcpSent and dctcpFeedback name the events in errors.
const (
	dctcpSent     = "Sent"
	dctcpFeedback = "Feedback"
)

// send records a segment [seq, seq+n) sent at now, Sent's fast path:
// snd_nxt moves to its end if that is later (a retransmission moves
// nothing), and the window's use is tracked (CwndLimited, MaxInflight; see
// DCTCP). The segment must end within 2^31 − 1 bytes of SndUna; n in
// 0..DCTCPMaxSegment. Bad input (*cc.EventError), or a now before the
// latest event's (*cc.TimeOrderError), is an error that changes nothing.
func (d *DCTCP) send(now units.Time, seq uint32, n units.Bytes) error {
	s := &d.s
	end := seq + uint32(n)
	ahead := !dctcpReached(s.SndNxt, end) // the segment ends past snd_nxt
	// A new segment must end less than 2^31 bytes past snd_una.
	if !s.Time.InOrder(now) || n < 0 || n > DCTCPMaxSegment || (ahead && uint64(end-s.SndUna) >= dctcpSeqHalf) {
		return d.refuseSend(now, n, end)
	}
	s.Time.Advance(now)
	if ahead {
		s.SndNxt = end
	}
	d.trackUse()
	return nil
}

// refuseSend returns the error of a send that send refuses.
func (d *DCTCP) refuseSend(now units.Time, n units.Bytes, end uint32) error {
	const event = dctcpSent
	if err := d.s.Time.Check(dctcpPart, event, now); err != nil {
		return err
	}
	if n < 0 || n > DCTCPMaxSegment {
		return dctcpRefuse(event, "payload "+n.String()+" is outside 0.."+DCTCPMaxSegment.String())
	}
	return dctcpRefuse(event, "segment end "+strconv.FormatUint(uint64(end), 10)+" is 2^31 or more past snd_una "+strconv.FormatUint(uint64(d.s.SndUna), 10))
}

// trackUse is Linux's tcp_cwnd_validate bookkeeping after a send (see
// DCTCP).
func (d *DCTCP) trackUse() {
	s := &d.s
	inflight := s.SndNxt - s.SndUna // < 2^31: send's and ack's checks
	// Blocked by cwnd: less than one MSS of room, cwnd − inflight < MSS
	// (Linux, in packets: packets in flight ≥ cwnd).
	limited := uint64(inflight)+d.mss > uint64(s.Cwnd)
	if dctcpReached(s.SndUna, s.CwndUsageSeq) || limited || (!s.CwndLimited && inflight > s.MaxInflight) {
		s.CwndLimited, s.MaxInflight, s.CwndUsageSeq = limited, inflight, s.SndNxt
	}
}

// cwndLimited is Linux's tcp_is_cwnd_limited: the flag, or, in slow start,
// cwnd below twice the window's largest flight.
func (d *DCTCP) cwndLimited() bool {
	s := &d.s
	if s.CwndLimited {
		return true
	}
	return d.cfg.SlowStart && s.Cwnd < s.Ssthresh && uint64(s.Cwnd) < 2*uint64(s.MaxInflight)
}

// ack handles an ACK arriving at now with cumulative sequence seq that
// newly acknowledges acked bytes and echoes ECN if ecnEcho: each piece of
// ackSplit. It ends the α observation window when seq reaches NextSeq,
// cuts the window on the first ECN echo outside a reduction, and otherwise
// grows cwnd if the sender is cwnd-limited (see DCTCP). seq must not pass
// SndNxt; acked in 0..DCTCPMaxSegment (ackSplit takes more). Bad input
// (*cc.EventError), or a now before the latest event's
// (*cc.TimeOrderError), is an error that changes nothing.
func (d *DCTCP) ack(now units.Time, seq uint32, acked units.Bytes, ecnEcho bool) error {
	s := &d.s
	if !s.Time.InOrder(now) || acked < 0 || acked > DCTCPMaxSegment || !dctcpReached(s.SndNxt, seq) {
		return d.refuseAck(now, seq, acked)
	}
	s.Time.Advance(now)
	s.Acks++
	if !dctcpReached(s.SndUna, seq) {
		s.SndUna = seq
	}
	a := uint64(acked)
	// Saturating counters: Delivered ≤ 2^53, a ≤ 2^16, so the sum cannot
	// wrap before the clamp; Marked never exceeds Delivered.
	s.Delivered = fixedpoint.Clamp(s.Delivered+a, 0, dctcpCounterMax)
	if ecnEcho {
		s.Marked = fixedpoint.Clamp(s.Marked+a, 0, s.Delivered)
	}
	if dctcpReached(s.SndUna, s.NextSeq) {
		d.endWindow()
	}
	if s.InCWR && dctcpReached(s.SndUna, s.CWREnd) {
		s.InCWR = false
	}
	switch {
	case ecnEcho && !s.InCWR:
		d.cut()
	case !s.InCWR && d.cwndLimited():
		d.grow(a)
	}
	return nil
}

// refuseAck returns the error of an ACK (piece) that ack refuses.
func (d *DCTCP) refuseAck(now units.Time, seq uint32, acked units.Bytes) error {
	const event = dctcpFeedback
	if err := d.s.Time.Check(dctcpPart, event, now); err != nil {
		return err
	}
	if acked < 0 || acked > DCTCPMaxSegment {
		return dctcpRefuse(event, "acked "+acked.String()+" is outside 0.."+DCTCPMaxSegment.String())
	}
	return dctcpRefuse(event, "seq "+strconv.FormatUint(uint64(seq), 10)+" acknowledges data not sent (snd_nxt "+strconv.FormatUint(uint64(d.s.SndNxt), 10)+")")
}

// ackSplit is ack for an ACK of any size, Feedback's fast path for ACKs
// and NAKs: acked bytes, up to seq, are passed as consecutive pieces of
// DCTCPMaxSegment and a last piece of the rest (at most DCTCPMaxSegment),
// each with its own cumulative sequence (the previous cumulative ACK,
// seq − acked, plus the bytes so far; the last piece's is seq) and the
// ACK's ECN echo: every piece counts as marked when ece is set, since the
// ACK carries one ECE bit, as TCP's does. An ACK of at most
// DCTCPMaxSegment is one piece, exactly ack.
//
// Every piece is checked before any is applied: an ACK one of whose pieces
// would be refused (its sequence 2^31 or more behind snd_nxt, wrap-aware
// "after" it) is refused whole and changes nothing.
func (d *DCTCP) ackSplit(now units.Time, seq uint32, acked units.Bytes, ece bool) error {
	if acked <= DCTCPMaxSegment {
		return d.ack(now, seq, acked, ece)
	}
	// Check every piece. Piece i < last ends at e = seq − r, r = acked −
	// i·DCTCPMaxSegment ∈ (0, acked), and ack accepts it iff snd_nxt has
	// reached e: (snd_nxt − seq) + r < 2^31, given that snd_nxt has reached
	// seq (the last piece). The first piece's r is the largest, so it
	// decides for all. It also bounds acked below 2^31 + DCTCPMaxSegment:
	// the loop below runs at most 2^15 + 1 times. The pieces' time and
	// sizes pass ack's other checks, and ack changes no snd_nxt.
	s := &d.s
	if !s.Time.InOrder(now) || !dctcpReached(s.SndNxt, seq) {
		return d.refuseAck(now, seq, 0)
	}
	if uint64(s.SndNxt-seq)+uint64(acked-DCTCPMaxSegment) >= dctcpSeqHalf {
		return dctcpRefuse(dctcpFeedback, "acked "+acked.String()+" reaches 2^31 or more behind snd_nxt "+strconv.FormatUint(uint64(s.SndNxt), 10))
	}
	at := seq - uint32(acked) // the previous cumulative ACK (acked < 2^32)
	for acked > DCTCPMaxSegment {
		at += uint32(DCTCPMaxSegment)
		acked -= DCTCPMaxSegment
		_ = d.ack(now, at, DCTCPMaxSegment, ece) // checked above: nil
	}
	return d.ack(now, seq, acked, ece)
}

// endWindow updates α from the window that ends and starts the next.
func (d *DCTCP) endWindow() {
	s := &d.s
	g := uint(d.cfg.ShiftG)
	alpha := uint64(s.Alpha)
	// α ← (1 − g)·α: subtract α >> g, or all of α once that is 0.
	dec := alpha >> g
	if dec == 0 {
		dec = alpha
	}
	alpha -= dec
	if s.Marked > 0 {
		// + g·F = (marked << (10 − g)) / delivered, saturating at 1.0. One
		// division per window of data, as in Linux.
		alpha = fixedpoint.Clamp(alpha+(s.Marked<<(fixedpoint.UQ1_10Frac-g))/max(1, s.Delivered), 0, uint64(fixedpoint.UQ1_10One))
	}
	s.Alpha = fixedpoint.UQ1_10(alpha)
	s.NextSeq = s.SndNxt
	s.Delivered, s.Marked = 0, 0
	s.Windows++
}

// cut reduces cwnd once for this window of data.
func (d *DCTCP) cut() {
	s := &d.s
	w := uint64(s.Cwnd)
	// cwnd ← cwnd·(1 − α/2), at least 2 segments.
	w = max(w-(w*uint64(s.Alpha)>>dctcpCutShift), dctcpMinCwndSegs*d.mss)
	s.Cwnd, s.Ssthresh = uint32(w), uint32(w)
	s.CwndCnt = 0
	s.InCWR, s.CWREnd = true, s.SndNxt
	s.Cuts++
}

// grow applies slow start (if on) and congestion avoidance for a acked
// bytes. Only while cwnd-limited: otherwise the acknowledged bytes count
// toward nothing (Linux returns before tcp_cong_avoid_ai's counter).
func (d *DCTCP) grow(a uint64) {
	s := &d.s
	w := uint64(s.Cwnd)
	if d.cfg.SlowStart && w < uint64(s.Ssthresh) {
		inc := min(a, uint64(s.Ssthresh)-w)
		w += inc
		a -= inc
	}
	// +MSS per cwnd bytes acknowledged: count bytes, and when a window's
	// worth is in, add MSS per window (the division runs once per window).
	// cwnd saturates at MaxCwnd.
	s.CwndCnt += a
	if s.CwndCnt >= w {
		k := s.CwndCnt / w
		s.CwndCnt -= k * w
		w = fixedpoint.Clamp(w+k*d.mss, 0, d.max)
	}
	s.Cwnd = uint32(w)
}

// Sent implements cc.ReactionPoint: it records p's payload sent at
// sequence InitialSeq + p.Seq mod 2^32 (the harness numbers a flow's bytes
// from 0 in 64 bits; TCP's sequence space is 32 bits, and the comparisons
// are wrap-aware, exact while less than 2^31 bytes are in flight): see
// DCTCP. Errors, after which nothing changed: a now before the latest
// event's (*cc.TimeOrderError); a nil p (every send has a frame), a
// payload outside 0..DCTCPMaxSegment, or a segment ending 2^31 bytes or
// more past snd_una (*cc.EventError). It appends no action.
func (d *DCTCP) Sent(now units.Time, p *cc.Packet, act *cc.Actions) error {
	if p == nil {
		if err := d.s.Time.Check(dctcpPart, dctcpSent, now); err != nil {
			return err
		}
		return dctcpRefuse(dctcpSent, "nil packet")
	}
	return d.send(now, d.cfg.InitialSeq+uint32(p.Seq), p.Payload)
}

// Feedback implements cc.ReactionPoint: an ACK or a NAK acknowledges the
// bytes below InitialSeq + f.Seq mod 2^32, f.Acked of them newly, with
// ECN echo f.ECE (see DCTCP); any other kind (a CNP, a rate message)
// changes nothing but the time and the count of unused messages (cc rule
// 8). Errors, after which nothing changed: a now before the latest
// event's (*cc.TimeOrderError); a nil f, an ACK of data never sent, a
// negative f.Acked, or one that reaches 2^31 bytes or more behind snd_nxt
// (*cc.EventError). It appends no action.
func (d *DCTCP) Feedback(now units.Time, f *cc.Feedback, act *cc.Actions) error {
	if f != nil && (f.Kind == cc.FeedbackAck || f.Kind == cc.FeedbackNak) {
		return d.ackSplit(now, d.cfg.InitialSeq+uint32(f.Seq), f.Acked, f.ECE)
	}
	if err := d.s.Time.Check(dctcpPart, dctcpFeedback, now); err != nil {
		return err
	}
	if f == nil {
		return dctcpRefuse(dctcpFeedback, "nil feedback")
	}
	// Another kind (a CNP, a rate message): DCTCP does not use it; it
	// changes nothing but the time and its count (cc rule 8).
	d.s.Unused.Count()
	d.s.Time.Advance(now)
	return nil
}

// Limits implements cc.ReactionPoint: the window cwnd, no pacing rate.
func (d *DCTCP) Limits() cc.Limits {
	return cc.Limits{Rate: cc.NoRate, Window: units.Bytes(d.s.Cwnd)}
}

// NextDeadline implements cc.Clock: units.MaxTime, DCTCP has no timer.
func (d *DCTCP) NextDeadline() units.Time { return units.MaxTime }

// Timer implements cc.Clock: it only records now (DCTCP has no timer).
func (d *DCTCP) Timer(now units.Time, act *cc.Actions) error {
	if err := d.s.Time.Check(dctcpPart, "Timer", now); err != nil {
		return err
	}
	d.s.Time.Advance(now)
	return nil
}

// AppendRegisters implements cc.Part: every register of DCTCPState, in
// the order and widths listed in DCTCP's doc.
func (d *DCTCP) AppendRegisters(dst []cc.Register) []cc.Register {
	s := &d.s
	return append(dst,
		s.Time.Register(),
		cc.Reg("cwnd", dctcpWindowBits, uint64(s.Cwnd)),
		cc.Reg("ssthresh", dctcpWindowBits, uint64(s.Ssthresh)),
		cc.Reg("alpha", DCTCPAlphaBits, uint64(s.Alpha)),
		cc.Reg("snd_una", dctcpSeqBits, uint64(s.SndUna)),
		cc.Reg("snd_nxt", dctcpSeqBits, uint64(s.SndNxt)),
		cc.Reg("next_seq", dctcpSeqBits, uint64(s.NextSeq)),
		cc.BoolReg("in_cwr", s.InCWR),
		cc.Reg("cwr_end", dctcpSeqBits, uint64(s.CWREnd)),
		cc.Reg("delivered", 64, s.Delivered),
		cc.Reg("marked", 64, s.Marked),
		cc.Reg("cwnd_cnt", dctcpWindowBits, s.CwndCnt),
		cc.BoolReg("cwnd_limited", s.CwndLimited),
		cc.Reg("max_inflight", dctcpWindowBits, uint64(s.MaxInflight)),
		cc.Reg("cwnd_usage_seq", dctcpSeqBits, uint64(s.CwndUsageSeq)),
		cc.Reg("acks", 64, s.Acks),
		cc.Reg("windows", 64, s.Windows),
		cc.Reg("cuts", 64, s.Cuts),
		s.Unused.Register(),
	)
}
