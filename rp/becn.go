package rp

import (
	"math"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// becnRPPart names the reaction point in errors.
const becnPart = "rp.BECN"

// BECNRateUnit is the least significant bit of the reaction point's rate
// register RC: 1 kb/s. The register is 32 bits wide, so it holds up to
// BECNMaxRate, 4.29 Tb/s.
const BECNRateUnit = units.Kbps

// BECNMaxRate is the largest rate the 32-bit RC register holds: (2^32 − 1)
// kb/s.
const BECNMaxRate = units.Rate(math.MaxUint32) * BECNRateUnit

// Limits of BECN's reaction point: each configuration field's range,
// declared once here (BECNConfig.Validate and the registration in package
// algos read them).
const (
	// BECNMinQuietPeriod is the shortest QuietPeriod: 1 ns.
	BECNMinQuietPeriod = units.Nanosecond
	// BECNMaxPeriod is the longest QuietPeriod and PauseTime: 1 s.
	BECNMaxPeriod = units.Second
	// BECNMaxPauseAfter is the largest PauseAfter: the 8-bit row counter's
	// largest value.
	BECNMaxPauseAfter = math.MaxUint8
)

// The survey's constants ([Survey] §4.1.1).
const (
	// BECNCutShift is the decrease: RC ← RC >> BECNCutShift, "the source cuts in
	// half the sending rate" on each notification.
	BECNCutShift = 1
	// BECNSurveyPauseAfter is how many notifications in a row pause the
	// source: "If five successive BECN cells arrive, the source will pause
	// the transmission."
	BECNSurveyPauseAfter = 5
)

// BECNSurveyQuietPeriod is the presets' quiet period Tq: 55 µs, DCQCN's
// α/increase period K ("usually 55µs, which must be larger than the CNP
// generating time slot at NP", survey section 4.1.2), taken as hwcc's
// choice because neither the survey nor the sources found give BECN's
// (InfiniBand's analogue, CCTI_Timer, is a per-service-level setting in
// units of 1.024 µs whose default was not found; see the package doc).
const BECNSurveyQuietPeriod = 55 * units.Microsecond

// BECNSurveyMinRate is the presets' floor of RC: 1 Mb/s, the NIC vendor's
// rpg_min_rate that hwcc's DCQCN presets use (DCQCNConnectX); the
// survey states none.
const BECNSurveyMinRate = units.Mbps

// BECNConfig configures a reaction point.
type BECNConfig struct {
	// LineRate is the flow's original rate: RC starts there, recovery
	// returns there and never passes it. A multiple of BECNRateUnit in
	// BECNRateUnit..BECNMaxRate.
	LineRate units.Rate
	// MinRate is the floor of the halving: RC ← max(RC >> 1, MinRate). A
	// multiple of BECNRateUnit in BECNRateUnit..LineRate. The survey
	// states none; presets BECNSurveyMinRate (at most LineRate).
	MinRate units.Rate
	// PauseAfter is how many notifications in a row pause the source (see
	// BECN for "in a row"), 1..BECNMaxPauseAfter; 0 never pauses. The
	// survey: BECNSurveyPauseAfter.
	PauseAfter uint8
	// QuietPeriod is Tq: notifications less than Tq apart are in a row;
	// Tq without a notification ends the row, and each further Tq
	// without one doubles RC back toward LineRate.
	// BECNMinQuietPeriod..BECNMaxPeriod. The survey's "a time period" has
	// no value; presets BECNSurveyQuietPeriod.
	QuietPeriod units.Time
	// PauseTime is how long a pause lasts after the notification that
	// began (or, in a row, extended) it, 0..BECNMaxPeriod; 0 (the
	// presets) ends a pause with the row, at the first quiet period, when
	// the rate steps up. The survey does not say what ends a pause.
	PauseTime units.Time
}

// BECNSurvey returns the reaction point of the survey's BECN and FECN on a
// link of rate line (rounded down to BECNRateUnit): halve per notification
// (BECNCutShift), pause after BECNSurveyPauseAfter (5) in a row, a quiet period of
// BECNSurveyQuietPeriod (55 µs, hwcc's), the pause ending with the quiet
// period (PauseTime 0, hwcc's: "if no BECN cell arrives ... for a time
// period, the sending rate will be increased"), RC floored at
// BECNSurveyMinRate (1 Mb/s, hwcc's) or at line if it is slower.
func BECNSurvey(line units.Rate) BECNConfig {
	line = max(line, 0) / BECNRateUnit * BECNRateUnit
	return BECNConfig{
		LineRate:    line,
		MinRate:     min(BECNSurveyMinRate, line),
		PauseAfter:  BECNSurveyPauseAfter,
		QuietPeriod: BECNSurveyQuietPeriod,
		PauseTime:   0,
	}
}

// Validate checks every field and returns a *cc.ConfigError naming the
// first one out of range.
func (c BECNConfig) Validate() error {
	switch {
	case c.LineRate < BECNRateUnit || c.LineRate > BECNMaxRate || c.LineRate%BECNRateUnit != 0:
		return becnConfigErr("LineRate", c.LineRate.String(), "a multiple of "+BECNRateUnit.String()+" in "+BECNRateUnit.String()+".."+BECNMaxRate.String())
	case c.MinRate < BECNRateUnit || c.MinRate > c.LineRate || c.MinRate%BECNRateUnit != 0:
		return becnConfigErr("MinRate", c.MinRate.String(), "a multiple of "+BECNRateUnit.String()+" in "+BECNRateUnit.String()+"..LineRate ("+c.LineRate.String()+")")
	case c.QuietPeriod < BECNMinQuietPeriod || c.QuietPeriod > BECNMaxPeriod:
		return becnConfigErr("QuietPeriod", c.QuietPeriod.String(), BECNMinQuietPeriod.String()+".."+BECNMaxPeriod.String())
	case c.PauseTime < 0 || c.PauseTime > BECNMaxPeriod:
		return becnConfigErr("PauseTime", c.PauseTime.String(), "0s.."+BECNMaxPeriod.String()+" (0s: the pause ends with the quiet period)")
	}
	return nil // PauseAfter: every uint8 is valid (BECNMaxPauseAfter)
}

// BECNState is every register of a reaction point but the time (BECN.Last).
type BECNState struct {
	// RC is the current rate, a 32-bit register in BECNRateUnit (1 kb/s):
	// MinRate ≤ RC ≤ LineRate.
	RC uint32
	// Run counts the notifications of the current row (8 bits,
	// saturating at 255); 0 when the row ended (a quiet period passed).
	Run uint8
	// Paused: the source is paused; PauseEnd is when the pause ends if
	// PauseTime > 0 (with PauseTime 0 it ends with the row).
	Paused   bool
	PauseEnd units.Time
	// Quiet: the quiet timer runs; NextUp is its deadline, LastNote + Tq
	// after a notification, then a further Tq after each step up.
	Quiet  bool
	NextUp units.Time
	// LastNote is the time of the latest notification.
	LastNote units.Time
	// Notifications counts the notifications taken, Cuts those that
	// lowered RC (RC was above MinRate), Pauses the pauses begun, Steps
	// the recovery doublings. 64-bit, wrapping.
	Notifications, Cuts, Pauses, Steps uint64
	// Unused counts the messages of kinds the source does not use (cc
	// rule 8; the register cc.UnusedRegister).
	Unused cc.Unused
}

// BECN is the source of BECN and FECN for one flow ([Survey]
// §4.1.1: "On each receiving of a BECN cell, the source cuts in half
// the sending rate ... If five successive BECN cells arrive, the source
// will pause the transmission. Otherwise, if no BECN cell arrives on the
// throttled virtual channel for a time period, the sending rate will be
// increased to the previous level, until regains the original rate";
// section 4.1.2: a FECN source reacts "just like the source-end in the
// BECN scheme"). It implements cc.ReactionPoint; both schemes use it
// unchanged, since both notifications are wire.FeedbackBECN.
//
// The rate is RC, a 32-bit register in BECNRateUnit (1 kb/s), starting at
// LineRate, Limits().Rate = RC·BECNRateUnit. With Tq = QuietPeriod:
//
//	notification at t:   RC ← max(RC >> 1, MinRate)          halve
//	                     Run ← Run + 1 (saturating at 255)
//	                     Run ≥ PauseAfter > 0 ⇒ pause
//	                     NextUp ← t + Tq                      (re)start the quiet timer
//	quiet timer at NextUp (no notification for Tq):
//	                     Run ← 0                              the row ends
//	                     PauseTime = 0 ⇒ the pause ends
//	                     RC ← min(2·RC, LineRate)             step up
//	                     NextUp ← NextUp + Tq while RC < LineRate, else stop
//
// So a row is a run of notifications each less than Tq after the one
// before (a gap of exactly Tq ends it: the quiet timer fires at LastNote +
// Tq, before a notification at that instant is taken); the PauseAfter-th
// notification of a row pauses the source, and so does every later one of
// the same row (with PauseTime > 0 each sets PauseEnd ← t + PauseTime).
// Four in a row, a quiet period, then one more does not pause: the quiet
// period ends the row and the fifth starts a new one. Recovery undoes the
// halvings one per Tq, each step doubling RC ("increased to the previous
// level"), until RC is LineRate ("until regains the original rate"); a
// notification during recovery halves RC again and restarts the timer.
// The doubling is in a 64-bit product (no overflow); the halving floors,
// so from a RC that is not a power-of-two multiple of MinRate the steps
// back may land below the levels passed on the way down, and the last
// step is clamped to LineRate. RC never leaves [MinRate, LineRate].
//
// A pause gates the flow: Limits() is then {Rate: RC, Credited: true,
// Credit: 0}, which lets nothing start (cc.Limits has no zero rate; the
// trick is hiercc.Host's). It ends with the row (PauseTime 0) or at
// PauseEnd. Halvings and steps go on while paused: with PauseTime > Tq the
// rate may step up during a pause; notifications that arrive while paused
// (from packets already in flight) halve RC as any other.
//
// Events. Every event first runs the quiet timer's expiries and the
// pause's end due by its now, all of them, each at its own deadline (cc
// rule 4): a caller that runs the timer late gets the same registers as
// one that ran it on time. Then Feedback of kind wire.FeedbackBECN is a
// notification; every other kind is counted in unused_feedback (cc rule
// 8), and a nil message is refused. Sent records the time (a nil packet
// or a negative size or payload is refused). No event appends an action,
// and each takes a nil act.
//
// Registers (AppendRegisters): now, rc, run, paused, pause_end, quiet,
// next_up, last_note, notifications, cuts, pauses, steps, unused_feedback.
//
// It is not safe for concurrent use. The zero value is not usable; build
// one with NewBECN.
type BECN struct {
	cfg       BECNConfig
	line, min uint32
	clock     cc.Monotonic
	st        BECNState
}

var _ cc.ReactionPoint = (*BECN)(nil)

// NewBECN validates cfg and returns a flow at LineRate that has had no
// notification.
func NewBECN(cfg BECNConfig) (*BECN, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	line := uint32(cfg.LineRate / BECNRateUnit)
	return &BECN{cfg: cfg, line: line, min: uint32(cfg.MinRate / BECNRateUnit), st: BECNState{RC: line}}, nil
}

// Config returns the configuration r was built with.
func (r *BECN) Config() BECNConfig { return r.cfg }

// State returns every register but the time, each in its snapshot's unit
// (RC in BECNRateUnit, as rc).
func (r *BECN) State() BECNState { return r.st }

// Last returns the time of the latest accepted event (0 before any): the
// register now.
func (r *BECN) Last() units.Time { return r.clock.Last() }

// Rate returns the rate RC as a units.Rate: the register rc (State().RC,
// in BECNRateUnit) times BECNRateUnit.
func (r *BECN) Rate() units.Rate { return units.Rate(r.st.RC) * BECNRateUnit }

// Paused reports whether the source is paused: the register paused
// (State().Paused).
func (r *BECN) Paused() bool { return r.st.Paused }

// Limits implements cc.ReactionPoint: the rate RC, gated on a zero
// credit while paused.
func (r *BECN) Limits() cc.Limits {
	if r.st.Paused {
		return cc.Limits{Rate: r.Rate(), Credited: true, Credit: 0}
	}
	return cc.Limits{Rate: r.Rate()}
}

// NextDeadline implements cc.Clock: the earlier of the quiet timer's
// deadline and the end of a PauseTime pause, or units.MaxTime when
// neither runs (RC at LineRate, no row, no pause).
func (r *BECN) NextDeadline() units.Time {
	d := units.MaxTime
	if r.st.Quiet {
		d = r.st.NextUp
	}
	if r.st.Paused && r.cfg.PauseTime > 0 {
		d = min(d, r.st.PauseEnd)
	}
	return d
}

// expire runs one expiry of the quiet timer (at NextUp).
func (r *BECN) expire() {
	s := &r.st
	s.Run = 0
	if r.cfg.PauseTime == 0 {
		s.Paused = false
	}
	if s.RC < r.line {
		// RC ← min(2·RC, LineRate), the product in 64 bits.
		s.RC = uint32(min(uint64(s.RC)<<BECNCutShift, uint64(r.line)))
		s.Steps++
	}
	if s.RC < r.line {
		s.NextUp = fixedpoint.SatAdd(s.NextUp, r.cfg.QuietPeriod)
	} else {
		s.Quiet = false
	}
}

// overdue reports whether catchUp has work at now: a quiet timer's
// expiry or the end of a PauseTime pause due by now.
func (r *BECN) overdue(now units.Time) bool {
	s := &r.st
	return s.Quiet && s.NextUp <= now || s.Paused && r.cfg.PauseTime > 0 && s.PauseEnd <= now
}

// catchUp runs every expiry due by now. Each expiry either stops the quiet
// timer or doubles RC ≥ 1, so there are at most 33 of them.
func (r *BECN) catchUp(now units.Time) {
	s := &r.st
	for s.Quiet && s.NextUp <= now {
		r.expire()
	}
	if s.Paused && r.cfg.PauseTime > 0 && s.PauseEnd <= now {
		s.Paused = false
	}
}

// notify takes a notification at now (the caller checked the time and
// ran catchUp).
func (r *BECN) notify(now units.Time) {
	s := &r.st
	s.Notifications++
	if s.Run < math.MaxUint8 {
		s.Run++
	}
	// RC ← max(RC >> 1, MinRate): "cuts in half".
	if s.RC > r.min {
		s.RC = max(s.RC>>BECNCutShift, r.min)
		s.Cuts++
	}
	if r.cfg.PauseAfter > 0 && s.Run >= r.cfg.PauseAfter {
		if !s.Paused {
			s.Pauses++
		}
		s.Paused = true
		if r.cfg.PauseTime > 0 {
			s.PauseEnd = fixedpoint.SatAdd(now, r.cfg.PauseTime)
		}
	}
	s.LastNote = now
	s.Quiet = true
	s.NextUp = fixedpoint.SatAdd(now, r.cfg.QuietPeriod)
}

// Feedback implements cc.ReactionPoint: after the expiries due by now, a
// wire.FeedbackBECN is a notification (whatever its Flow and Data: the
// message is one bit); any other kind is counted in unused_feedback. A
// nil f is refused.
func (r *BECN) Feedback(now units.Time, f *cc.Feedback, _ *cc.Actions) error {
	if !r.clock.InOrder(now) {
		return r.clock.Check(becnPart, "Feedback", now)
	}
	if f == nil {
		return becnNilFeedback()
	}
	r.clock.Advance(now)
	if r.overdue(now) {
		r.catchUp(now)
	}
	if f.Kind != wire.FeedbackBECN {
		r.st.Unused.Count()
		return nil
	}
	r.notify(now)
	return nil
}

// Sent implements cc.ReactionPoint: it runs the expiries due by now and
// records the time (the rate machine does not count bytes). A nil packet
// or a negative size or payload is refused.
func (r *BECN) Sent(now units.Time, p *cc.Packet, _ *cc.Actions) error {
	if !r.clock.InOrder(now) || cc.BadPacket(p) {
		if err := r.clock.Check(becnPart, "Sent", now); err != nil {
			return err
		}
		return cc.PacketError(becnPart, "Sent", p)
	}
	r.clock.Advance(now)
	if r.overdue(now) {
		r.catchUp(now)
	}
	return nil
}

// Timer implements cc.Clock: it runs every expiry of the quiet timer and
// the end of a pause due by now (see BECN).
func (r *BECN) Timer(now units.Time, _ *cc.Actions) error {
	if !r.clock.InOrder(now) {
		return r.clock.Check(becnPart, "Timer", now)
	}
	r.clock.Advance(now)
	r.catchUp(now)
	return nil
}

// AppendRegisters implements cc.Part: now (64-bit ps), rc (32, kb/s),
// run (8), paused (1), pause_end (64-bit ps), quiet (1), next_up and
// last_note (64-bit ps), notifications, cuts, pauses, steps,
// unused_feedback (64-bit counters), in that order.
func (r *BECN) AppendRegisters(dst []cc.Register) []cc.Register {
	s := &r.st
	return append(dst,
		r.clock.Register(),
		cc.Reg("rc", 32, uint64(s.RC)),
		cc.Reg("run", 8, uint64(s.Run)),
		cc.BoolReg("paused", s.Paused),
		cc.TimeReg("pause_end", s.PauseEnd),
		cc.BoolReg("quiet", s.Quiet),
		cc.TimeReg("next_up", s.NextUp),
		cc.TimeReg("last_note", s.LastNote),
		cc.Reg("notifications", 64, s.Notifications),
		cc.Reg("cuts", 64, s.Cuts),
		cc.Reg("pauses", 64, s.Pauses),
		cc.Reg("steps", 64, s.Steps),
		s.Unused.Register(),
	)
}

// becnConfigErr is the *cc.ConfigError of a field out of range.
func becnConfigErr(field, value, want string) error {
	return &cc.ConfigError{Part: becnPart, Field: field, Value: value, Range: want}
}

// becnNilFeedback is Feedback's error for a nil message, built out of
// line so that the event path holds no allocation site.
//
//go:noinline
func becnNilFeedback() error {
	return &cc.EventError{Part: becnPart, Event: "Feedback", Reason: "nil feedback"}
}
