package rp

import (
	"fmt"

	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/units"
)

// DCTCP reaction point: the window-based sender of DCTCP (Alizadeh et al.,
// SIGCOMM 2010, section 3.1; REFERENCE.md, "TIMELY and DCTCP") in the integer
// form of Linux net/ipv4/tcp_dctcp.c, the reference implementation:
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
// does (a before b ⇔ int32(a − b) < 0); α is Q10, 0..1024; the window's
// delivered and marked byte counts are 64-bit, saturating at 2^53 (Linux
// counts packets; with equal-sized packets the fraction is the same, and
// older kernels counted bytes too). cwnd·α < 2^41 and marked << 10 < 2^63:
// no overflow.
//
// Slow start is optional and off by default (the HPCC paper removes it from
// DCTCP "for fair comparisons", papers/hpcc.txt section 5.1). When on, while
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
// max_packets_out, in bytes instead of packets. After each OnSend, with
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

// DCTCPMaxCwnd is the largest cwnd accepted: 1 GiB, far below the 2^31 bytes
// a 32-bit sequence space allows in flight.
const DCTCPMaxCwnd = units.GiB

// DCTCPMaxSegment is the largest OnSend or OnAck byte count: 64 KiB (a TSO
// segment, or one ACK of a burst).
const DCTCPMaxSegment = 64 * units.KiB

const (
	// dctcpMaxShiftG is the largest dctcp_shift_g (Linux accepts 0..10).
	dctcpMaxShiftG = 10
	// dctcpCutShift: cwnd·α >> 11 is cwnd·(α/1024)/2.
	dctcpCutShift = fixedpoint.UQ1_10Frac + 1
	// dctcpCounterMax is where the window byte counters saturate.
	dctcpCounterMax = uint64(1) << 53
	// dctcpMinCwndSegs is the floor of a cut, in MSS.
	dctcpMinCwndSegs = 2
)

// DCTCPConfig configures a DCTCP reaction point.
type DCTCPConfig struct {
	// MSS is the sender's maximum segment size: the additive-increase step
	// and the unit of the 2-segment floor. Range: 1..DCTCPMaxSegment.
	MSS units.Bytes
	// InitialCwnd is the window at start. Range: 2·MSS..MaxCwnd.
	InitialCwnd units.Bytes
	// MaxCwnd caps cwnd (saturating). Range: 2·MSS..DCTCPMaxCwnd.
	MaxCwnd units.Bytes
	// ShiftG is dctcp_shift_g: g = 2^−ShiftG (Linux default 4, g = 1/16).
	// Range: 0..10.
	ShiftG uint8
	// InitialAlpha is dctcp_alpha_on_init, α at start in Q10 (Linux
	// default 1024 = 1.0). Range: 0..1024.
	InitialAlpha fixedpoint.UQ1_10
	// SlowStart turns slow start on (off in the presets; see the type doc).
	SlowStart bool
	// InitialSeq is the first sequence number: snd_una = snd_nxt = it at
	// start.
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
// (papers/hpcc.txt section 5.1: slow start removed; the authors' ns-3 run
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

// Validate checks every field's range and returns an error naming the first
// field out of range and the allowed range.
func (c DCTCPConfig) Validate() error {
	if c.MSS < 1 || c.MSS > DCTCPMaxSegment {
		return fmt.Errorf("rp: DCTCP MSS = %v, want 1B..%v", c.MSS, DCTCPMaxSegment)
	}
	floor := dctcpMinCwndSegs * c.MSS
	if c.MaxCwnd < floor || c.MaxCwnd > DCTCPMaxCwnd {
		return fmt.Errorf("rp: DCTCP MaxCwnd = %v, want 2·MSS (%v)..%v", c.MaxCwnd, floor, DCTCPMaxCwnd)
	}
	if c.InitialCwnd < floor || c.InitialCwnd > c.MaxCwnd {
		return fmt.Errorf("rp: DCTCP InitialCwnd = %v, want 2·MSS (%v)..MaxCwnd (%v)", c.InitialCwnd, floor, c.MaxCwnd)
	}
	if c.ShiftG > dctcpMaxShiftG {
		return fmt.Errorf("rp: DCTCP ShiftG = %d, want 0..%d", c.ShiftG, dctcpMaxShiftG)
	}
	if c.InitialAlpha > fixedpoint.UQ1_10One {
		return fmt.Errorf("rp: DCTCP InitialAlpha = %d, want 0..%d (Q10, %d = 1.0)", c.InitialAlpha, fixedpoint.UQ1_10One, fixedpoint.UQ1_10One)
	}
	return nil
}

// DCTCPState is every register of a DCTCP reaction point.
type DCTCPState struct {
	// Cwnd and Ssthresh are in bytes (32-bit).
	Cwnd, Ssthresh uint32
	// Alpha is α, Q10, 0..1024.
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
	// CwndCnt is the bytes acknowledged toward the next +MSS (< Cwnd).
	CwndCnt uint64
	// CwndLimited is Linux's is_cwnd_limited: some send since the window
	// ending at CwndUsageSeq began left less than one MSS of room in cwnd.
	// MaxInflight is Linux's max_packets_out in bytes: the most bytes in
	// flight after a send of that window (32-bit, below 2^31).
	// CwndUsageSeq is Linux's cwnd_usage_seq: SndNxt at the latest update
	// of the two (32-bit, wrapping). See the type's doc.
	CwndLimited  bool
	MaxInflight  uint32
	CwndUsageSeq uint32
	// Started is false until the first event; Last is the latest event's
	// time (earlier times are rejected).
	Started bool
	Last    units.Time
	// Acks, Windows and Cuts count ACKs, observation windows ended and
	// window cuts. 64-bit, wrapping.
	Acks, Windows, Cuts uint64
}

// DCTCP is the reaction point of one flow. It is not safe for concurrent use.
// The zero value is not usable; build one with NewDCTCP.
type DCTCP struct {
	cfg      DCTCPConfig
	mss, max uint64
	s        DCTCPState
}

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

// State returns every register.
func (d *DCTCP) State() DCTCPState { return d.s }

// Window returns cwnd.
func (d *DCTCP) Window() units.Bytes { return units.Bytes(d.s.Cwnd) }

// Alpha returns α (Q10, 1024 = 1.0).
func (d *DCTCP) Alpha() fixedpoint.UQ1_10 { return d.s.Alpha }

// Inflight returns SndNxt − SndUna, the bytes sent and not yet acknowledged.
func (d *DCTCP) Inflight() units.Bytes { return units.Bytes(d.s.SndNxt - d.s.SndUna) }

// dctcpBefore reports whether sequence a comes before b (TCP's wrap-aware
// comparison, valid while they are less than 2^31 apart).
func dctcpBefore(a, b uint32) bool { return int32(a-b) < 0 }

func (d *DCTCP) checkTime(now units.Time, event string) error {
	if d.s.Started && now < d.s.Last {
		return fmt.Errorf("rp: DCTCP %s at %v is before the previous event at %v", event, now, d.s.Last)
	}
	return nil
}

// OnSend records a segment [seq, seq+n) sent at now: snd_nxt moves to its
// end if that is later (a retransmission moves nothing), and the window's
// use is tracked (CwndLimited, MaxInflight; see the type's doc). The segment
// must end within 2^31 − 1 bytes of SndUna; n in 0..DCTCPMaxSegment. Bad
// input, or a now before the previous event's, is an error that changes
// nothing.
func (d *DCTCP) OnSend(now units.Time, seq uint32, n units.Bytes) error {
	if n < 0 || n > DCTCPMaxSegment {
		return fmt.Errorf("rp: DCTCP OnSend n = %v, want 0..%v", n, DCTCPMaxSegment)
	}
	if err := d.checkTime(now, "OnSend"); err != nil {
		return err
	}
	end := seq + uint32(n)
	if int32(end-d.s.SndUna) < 0 && dctcpBefore(d.s.SndNxt, end) {
		return fmt.Errorf("rp: DCTCP OnSend segment end %d is 2^31 or more past snd_una %d", end, d.s.SndUna)
	}
	d.s.Started, d.s.Last = true, now
	if dctcpBefore(d.s.SndNxt, end) {
		d.s.SndNxt = end
	}
	d.trackUse()
	return nil
}

// trackUse is Linux's tcp_cwnd_validate bookkeeping after a send (see the
// type's doc).
func (d *DCTCP) trackUse() {
	s := &d.s
	inflight := s.SndNxt - s.SndUna // < 2^31: OnSend's and OnAck's checks
	// Blocked by cwnd: less than one MSS of room, cwnd − inflight < MSS
	// (Linux, in packets: packets in flight ≥ cwnd).
	limited := uint64(inflight)+d.mss > uint64(s.Cwnd)
	if !dctcpBefore(s.SndUna, s.CwndUsageSeq) || limited || (!s.CwndLimited && inflight > s.MaxInflight) {
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

// OnAck handles an ACK arriving at now that newly acknowledges acked bytes,
// echoes ECN if ecnEcho, and carries cumulative sequence seq. It ends the α
// observation window when seq reaches NextSeq, cuts the window on the first
// ECN echo outside a reduction, and otherwise grows cwnd if the sender is
// cwnd-limited (see the type's doc). seq must not pass
// SndNxt; acked in 0..DCTCPMaxSegment. Bad input, or a now before the
// previous event's, is an error that changes nothing.
func (d *DCTCP) OnAck(now units.Time, acked units.Bytes, ecnEcho bool, seq uint32) error {
	if acked < 0 || acked > DCTCPMaxSegment {
		return fmt.Errorf("rp: DCTCP OnAck acked = %v, want 0..%v", acked, DCTCPMaxSegment)
	}
	if err := d.checkTime(now, "OnAck"); err != nil {
		return err
	}
	s := &d.s
	if dctcpBefore(s.SndNxt, seq) {
		return fmt.Errorf("rp: DCTCP OnAck seq %d acknowledges data not sent (snd_nxt %d)", seq, s.SndNxt)
	}
	s.Started, s.Last = true, now
	s.Acks++
	if dctcpBefore(s.SndUna, seq) {
		s.SndUna = seq
	}
	a := uint64(acked)
	s.Delivered = min(s.Delivered+a, dctcpCounterMax)
	if ecnEcho {
		s.Marked = min(s.Marked+a, s.Delivered)
	}
	if !dctcpBefore(s.SndUna, s.NextSeq) {
		d.endWindow()
	}
	if s.InCWR && !dctcpBefore(s.SndUna, s.CWREnd) {
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
		// + g·F = (marked << (10 − g)) / delivered, capped at 1.0. One
		// division per window of data, as in Linux.
		alpha = min(alpha+(s.Marked<<(fixedpoint.UQ1_10Frac-g))/max(1, s.Delivered), uint64(fixedpoint.UQ1_10One))
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
	s.CwndCnt += a
	if s.CwndCnt >= w {
		k := s.CwndCnt / w
		s.CwndCnt -= k * w
		w = min(w+k*d.mss, d.max)
	}
	s.Cwnd = uint32(w)
}
