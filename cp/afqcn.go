package cp

import (
	"math"
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// AFQCNClasses is the number of AF-QCN classes: one per 802.1p priority by
// default (AFQCNClassByPrio).
const AFQCNClasses = 8

// Limits of AF-QCN's congestion point: each configuration field's range
// (besides QCN's, QCNConfig) and the registers' widths, declared once here
// (AFQCNConfig.Validate and the registration in package algos read them).
const (
	// AFQCNMaxWeight is the largest class weight W_i (16 bits).
	AFQCNMaxWeight = math.MaxUint16
	// AFQCNMinAlpha and AFQCNMaxAlpha bound Alpha: a = Alpha/256 in
	// 1/256..255/256 (0 < a < 1, [Survey] §4.1.1 equation (1)).
	AFQCNMinAlpha = 1
	AFQCNMaxAlpha = math.MaxUint8
	// AFQCNMinBShift and AFQCNMaxBShift bound BShift: b = 2^−1 to 2^−8.
	AFQCNMinBShift = 1
	AFQCNMaxBShift = 8
	// AFQCNMinTs and AFQCNMaxTs bound the measurement period Ts.
	AFQCNMinTs = units.Microsecond
	AFQCNMaxTs = 100 * units.Millisecond
	// AFQCNArrivalBits is the width of the per-class arrival counters: they
	// saturate at 2^36 − 1 bytes (64 GiB per Ts, 5.5 Tb/s over AFQCNMaxTs).
	AFQCNArrivalBits = 36
	// AFQCNMBits is the width of the per-class averages M_i, kept with BShift
	// fraction bits: at most AFQCNArrivalBits + AFQCNMaxBShift.
	AFQCNMBits = AFQCNArrivalBits + AFQCNMaxBShift
	// afqcnMaxArrival is the arrival counters' saturated value.
	afqcnMaxArrival = uint64(1)<<AFQCNArrivalBits - 1
)

// hwcc's AF-QCN defaults (the paper's values of a, b and Ts were not
// available to hwcc; [Survey] §4.1.1 gives the equations only).
const (
	// AFQCNDefaultAlpha is a = 128/256 = 1/2: the QCN and the fairness feedback
	// weigh alike, so a class at its fair share gets half QCN's feedback
	// and one far above it up to (Fb_QCN + 63)/2.
	AFQCNDefaultAlpha = 128
	// AFQCNDefaultBShift is b = 2^−3 = 1/8: M_i averages about 8 periods, as
	// AFD's arrival estimates smooth over several measurement intervals.
	AFQCNDefaultBShift = 3
	// AFQCNDefaultTs is Ts = 100 µs: with b = 1/8 the average's time constant
	// is 0.8 ms, within the "few milliseconds" the survey says AF-QCN
	// takes to converge (section 4.1.1), well below the reaction point's
	// 10–15 ms timer; at 10 Gb/s a period holds 125 KB (83 1500-byte
	// frames), enough arrivals per class for a 6-bit D_i.
	AFQCNDefaultTs = 100 * units.Microsecond
)

// AFQCNClassKey is what an AF-QCN class is keyed by.
type AFQCNClassKey uint8

// Class keys.
const (
	// AFQCNClassByPrio: the frame's 802.1p priority (cc.Packet.Prio, 0..7), the
	// default: one class per traffic class of the tenant.
	AFQCNClassByPrio AFQCNClassKey = iota
	// AFQCNClassByFlow: the flow identifier modulo 8.
	AFQCNClassByFlow
	// AFQCNClassBySrc: the source host modulo 8 (one class per tenant host).
	AFQCNClassBySrc
	// AFQCNClassByDst: the destination host modulo 8.
	AFQCNClassByDst
)

// String returns "prio", "flow", "src" or "dst".
func (k AFQCNClassKey) String() string {
	switch k {
	case AFQCNClassByPrio:
		return "prio"
	case AFQCNClassByFlow:
		return "flow"
	case AFQCNClassBySrc:
		return "src"
	case AFQCNClassByDst:
		return "dst"
	}
	return "ClassKey(" + strconv.Itoa(int(k)) + ")"
}

// AFQCNConfig configures an AF-QCN congestion point.
type AFQCNConfig struct {
	// QCN is the QCN congestion point's configuration: AF-QCN samples and
	// computes Fb_QCN exactly as QCN does.
	QCN QCNConfig
	// Weights are W_i, the classes' weights. Range of each:
	// 0..AFQCNMaxWeight, at least one non-zero. Presets all 1 (equal
	// shares).
	Weights [AFQCNClasses]uint16
	// Alpha is a in Q8: a = Alpha/256 in Fb = (1 − a)·Fb_QCN + a·Fb_AF.
	// Range: AFQCNMinAlpha..AFQCNMaxAlpha. Default AFQCNDefaultAlpha (a =
	// 1/2, hwcc's choice).
	Alpha uint8
	// BShift is b as a shift: b = 2^−BShift in M_i ← (1 − b)M_i + b·M_new.
	// Range: AFQCNMinBShift..AFQCNMaxBShift. Default AFQCNDefaultBShift
	// (b = 1/8, hwcc's choice).
	BShift uint8
	// Ts is the measurement period. Range: AFQCNMinTs..AFQCNMaxTs.
	// Default AFQCNDefaultTs (100 µs, hwcc's choice).
	Ts units.Time
	// ClassBy keys the classes (AFQCNClassByPrio, the zero value, by default).
	ClassBy AFQCNClassKey
	// ClassFunc, if not nil, keys the classes instead of ClassBy: it is
	// called once per arriving frame, must not retain p, and its result is
	// taken modulo AFQCNClasses. It is not a register-level setting (the registry
	// cannot set it).
	ClassFunc func(p *cc.Packet) uint8
}

// AFQCNPaper returns AF-QCN's congestion point (Kabbani et al., HOTI 2010;
// the survey's section 4.1.1) for a port of rate link: QCNPaper(link) for
// the QCN part, equal weights, and hwcc's a = 1/2, b = 1/8, Ts = 100 µs
// (the paper's values were not available; see the constants' docs),
// classes by priority.
func AFQCNPaper(link units.Rate) AFQCNConfig {
	c := AFQCNConfig{QCN: QCNPaper(link), Alpha: AFQCNDefaultAlpha, BShift: AFQCNDefaultBShift, Ts: AFQCNDefaultTs}
	for i := range c.Weights {
		c.Weights[i] = 1
	}
	return c
}

// afqcnPart names the AF-QCN congestion point in errors.
const afqcnPart = "cp.AFQCN"

// Validate checks every field and returns a *cc.ConfigError naming the
// first one out of range.
func (c AFQCNConfig) Validate() error {
	if err := c.QCN.validate(afqcnPart); err != nil {
		return err
	}
	var sum int
	for _, w := range c.Weights {
		sum += int(w)
	}
	if sum == 0 {
		return qcnConfigErr(afqcnPart, "Weights", "all 0", "0.."+strconv.Itoa(AFQCNMaxWeight)+" each, at least one non-zero")
	}
	if c.Alpha < AFQCNMinAlpha {
		return qcnConfigErr(afqcnPart, "Alpha", strconv.Itoa(int(c.Alpha)), strconv.Itoa(AFQCNMinAlpha)+".."+strconv.Itoa(AFQCNMaxAlpha)+" (a = Alpha/256)")
	}
	if c.BShift < AFQCNMinBShift || c.BShift > AFQCNMaxBShift {
		return qcnConfigErr(afqcnPart, "BShift", strconv.Itoa(int(c.BShift)), strconv.Itoa(AFQCNMinBShift)+".."+strconv.Itoa(AFQCNMaxBShift))
	}
	if c.Ts < AFQCNMinTs || c.Ts > AFQCNMaxTs {
		return qcnConfigErr(afqcnPart, "Ts", c.Ts.String(), AFQCNMinTs.String()+".."+AFQCNMaxTs.String())
	}
	if c.ClassBy > AFQCNClassByDst {
		return qcnConfigErr(afqcnPart, "ClassBy", c.ClassBy.String(), "prio, flow, src or dst")
	}
	return nil
}

// AFQCNState is every register of an AF-QCN congestion point.
type AFQCNState struct {
	// QCN is the QCN congestion point's registers.
	QCN QCNState
	// Arrivals are the bytes of each class arrived in the current period
	// (AFQCNArrivalBits, saturating).
	Arrivals [AFQCNClasses]uint64
	// M are the classes' averages M_i with BShift fraction bits (AFQCNMBits).
	M [AFQCNClasses]uint64
	// FbAF are the classes' Fb_AF, 0..wire.CNMMaxQntzFb (wire.CNMFbBits),
	// computed at the last period's end.
	FbAF [AFQCNClasses]uint8
	// NextTick is the end of the current period (a multiple of Ts).
	NextTick units.Time
	// Ticks counts the periods ended (64-bit, wrapping).
	Ticks uint64
}

// Register names per class, fixed strings so that AppendRegisters does not
// allocate.
var (
	afqcnArrNames = [AFQCNClasses]string{"arr0", "arr1", "arr2", "arr3", "arr4", "arr5", "arr6", "arr7"}
	afqcnMNames   = [AFQCNClasses]string{"m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7"}
	afqcnFbNames  = [AFQCNClasses]string{"fb_af0", "fb_af1", "fb_af2", "fb_af3", "fb_af4", "fb_af5", "fb_af6", "fb_af7"}
)

// AFQCN is AF-QCN's congestion point ([AF-QCN]; [Survey] §4.1.1, equations
// (1)–(4)):
// QCN's congestion point plus a per-class arrival measurement that gives
// each class a fairness feedback, weighted into QCN's.
//
// Every arriving frame (Enqueue) of class i adds its bytes to Arrivals[i]
// and runs QCN's sampling (QCN, one code path). At the end of every period
// Ts (Timer, on the grid k·Ts), with k = BShift (b = 2^−k), M_i kept with k
// fraction bits and M_i's integer part written M_i:
//
//	M_i ← M_i − M_i·2^−k + M_new,i               ((1 − b)·M_i + b·M_new, scaled by 2^k)
//	ΣM = Σ_j M_j,  ΣW = Σ W_j over classes with M_j > 0
//	Fb_AF,i = min(63, ⌊64·(ΣW·M_i − W_i·ΣM)/(ΣW·M_i)⌋)  if ΣW·M_i > W_i·ΣM, else 0
//	                                             (⌊64·D_i⌋, D_i = (1 − M_fair,i/M_i)+,
//	                                              M_fair,i = W_i/ΣW · ΣM)
//
// (products below 2^61: M_i < 2^36, ΣW < 2^19, ΣM < 2^39, W_i < 2^16; one
// division per class per period). At a sample of a frame of class i,
//
//	Fb = ⌊((256 − A)·QntzFb_QCN + A·Fb_AF,i) / 256⌋   (A = Alpha, a = A/256)
//
// and a CNM carrying Fb is sent when QCN's own Fb is negative (the queue
// is congested) and Fb ≥ 1. A class under its fair share is thus cut by
// (1 − a) of QCN's feedback and one above it by more.
//
// Choices where the sources are silent (hwcc's): a = 1/2, b = 1/8, Ts =
// 100 µs (the constants' docs say why); ΣW counts the classes that sent in
// the average (an idle class's share goes to the others, as AFD's fair
// share is of the arrivals present); AF feedback only when QCN's Fb < 0, so
// an uncongested queue sends nothing (the survey: AF-QCN's Fb is "higher
// than 802.1Qau's feedback only when we have a large Fb_AF", a comparison
// with a QCN feedback that exists); the sampling interval follows QCN's own
// quantised |Fb| (the queue's state, not a class's); when every active
// class has weight 0, Fb_AF is 0.
//
// Late periods (cc rule 4): every event first ends each period due by its
// now, in order, each as at its own end, so a frame that arrives at or
// after a period's end counts in the next one however late the caller
// runs Timer; periods with no arrival decay the averages (once the
// averages stop moving, the remaining idle periods are counted at once:
// the same registers as one period at a time).
//
// Registers (AppendRegisters, in this order): QCN's (now, q_old,
// to_sample, fb, lfsr, samples, cnms); next_tick (64-bit ps); ticks
// (64-bit); then per class i = 0..7: arr<i> (AFQCNArrivalBits), m<i> (AFQCNMBits),
// fb_af<i> (6 bits).
//
// Errors as QCN's: Enqueue, which can decide, refuses a nil act; Dequeue
// and Timer decide nothing and take one. It is not safe for concurrent
// use. Build one with NewAFQCN.
type AFQCN struct {
	core qcnCore
	cfg  AFQCNConfig
	af   afqcnState
}

// afqcnState is the AF part of the registers.
type afqcnState struct {
	arr      [AFQCNClasses]uint64
	m        [AFQCNClasses]uint64
	fb       [AFQCNClasses]uint8
	nextTick units.Time
	ticks    uint64
}

var _ cc.CongestionPoint = (*AFQCN)(nil)

// NewAFQCN validates cfg and returns an AF-QCN congestion point whose first
// period ends at Ts.
func NewAFQCN(cfg AFQCNConfig) (*AFQCN, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	a := &AFQCN{core: newQCNCore(cfg.QCN), cfg: cfg}
	a.af.nextTick = cfg.Ts
	return a, nil
}

// Config returns the configuration a was built with.
func (a *AFQCN) Config() AFQCNConfig { return a.cfg }

// State returns every register.
func (a *AFQCN) State() AFQCNState {
	return AFQCNState{QCN: a.core.s, Arrivals: a.af.arr, M: a.af.m, FbAF: a.af.fb, NextTick: a.af.nextTick, Ticks: a.af.ticks}
}

// Share returns class i's average share of the arrivals, ⌊M_i⌋ in bytes
// per period: the integer part of the register m<i> (State().M[i]),
// which holds M_i with BShift fraction bits, so Share(i) = m<i> >>
// BShift. It is 0 for i outside 0..AFQCNClasses−1.
func (a *AFQCN) Share(i int) uint64 {
	if i < 0 || i >= AFQCNClasses {
		return 0
	}
	return a.af.m[i] >> a.cfg.BShift
}

// class returns p's class.
func (a *AFQCN) class(p *cc.Packet) uint8 {
	if a.cfg.ClassFunc != nil {
		return a.cfg.ClassFunc(p) % AFQCNClasses
	}
	switch a.cfg.ClassBy {
	case AFQCNClassByFlow:
		return uint8(p.Flow % AFQCNClasses)
	case AFQCNClassBySrc:
		return uint8(p.Src % AFQCNClasses)
	case AFQCNClassByDst:
		return uint8(p.Dst % AFQCNClasses)
	}
	return p.Prio % AFQCNClasses
}

// Enqueue implements cc.CongestionPoint: the frame counts into its class's
// arrivals and QCN's sampling; a sample may append one CNM (see AFQCN).
func (a *AFQCN) Enqueue(now units.Time, p *cc.Packet, q cc.Queue, act *cc.Actions) error {
	k := &a.core
	if err := k.check(afqcnPart, "Enqueue", now, p, q, act, true); err != nil {
		return err
	}
	f := &a.af
	var late afqcnState
	if f.nextTick <= now {
		// The periods that ended by now end first, in a copy that is kept
		// only if the event is taken (a CNM with no room refuses it).
		late = a.af
		f = &late
		a.catchUp(f, now)
	}
	i := a.class(p)
	s := k.plan(p.Size, q.Len)
	var fb uint8
	if s.sampled && s.fb < 0 {
		al := uint32(a.cfg.Alpha)
		fb = uint8(((256-al)*uint32(s.qntz) + al*uint32(f.fb[i])) >> 8)
	}
	if err := k.enqueue(afqcnPart, now, &s, fb, p, act); err != nil {
		return err
	}
	f.arr[i] = min(f.arr[i]+min(uint64(p.Size), afqcnMaxArrival), afqcnMaxArrival)
	if f == &late {
		a.af = late
	}
	return nil
}

// Dequeue implements cc.CongestionPoint: it checks its arguments as
// Enqueue does, ends the periods due by now and records the time.
func (a *AFQCN) Dequeue(now units.Time, p *cc.Packet, q cc.Queue, _ *cc.Actions) error {
	k := &a.core
	if err := k.check(afqcnPart, "Dequeue", now, p, q, nil, false); err != nil {
		return err
	}
	if a.af.nextTick <= now {
		a.catchUp(&a.af, now)
	}
	k.s.Time.Advance(now)
	return nil
}

// NextDeadline implements cc.Clock: the end of the current period.
func (a *AFQCN) NextDeadline() units.Time { return a.af.nextTick }

// Timer implements cc.Clock: it ends every period due by now, each
// updating the averages and Fb_AF (see AFQCN), and moves the deadline to
// the next multiple of Ts after now; before the deadline it only records
// now. It appends nothing.
func (a *AFQCN) Timer(now units.Time, _ *cc.Actions) error {
	if err := a.core.s.Time.Accept(afqcnPart, "Timer", now); err != nil {
		return err
	}
	if a.af.nextTick <= now {
		a.catchUp(&a.af, now)
	}
	return nil
}

// catchUp ends, in f, every period whose end is at or before now, in
// order, each as at its end. An idle period (no arrivals) that leaves the
// averages as they were leaves every later idle period the same too (M_i
// and so Fb_AF,i repeat), so the rest of them up to now are counted at
// once: bit for bit what ending them one by one gives.
func (a *AFQCN) catchUp(f *afqcnState, now units.Time) {
	ts := a.cfg.Ts
	for f.nextTick <= now && f.nextTick != units.MaxTime {
		still := a.tick(f)
		f.nextTick = fixedpoint.SatAdd(f.nextTick, ts)
		if still && f.nextTick <= now {
			n := (now - f.nextTick) / ts // whole idle periods before the last
			f.ticks += uint64(n)
			f.nextTick += n * ts // ≤ now: no overflow
		}
	}
}

// tick ends a period in f and reports whether it was idle and left the
// averages as they were.
func (a *AFQCN) tick(f *afqcnState) (still bool) {
	k := a.cfg.BShift
	var sumM, sumW uint64
	still = true
	for i := range f.m {
		// M ← M − M·2^−k + M_new: M < 2^(36+k) stays below it.
		m := f.m[i] - f.m[i]>>k + f.arr[i]
		still = still && m == f.m[i] && f.arr[i] == 0
		f.m[i] = m
		f.arr[i] = 0
		if m := f.m[i] >> k; m > 0 {
			sumM += m
			sumW += uint64(a.cfg.Weights[i])
		}
	}
	for i := range f.m {
		m := f.m[i] >> k
		f.fb[i] = 0
		if m == 0 || sumW == 0 {
			continue
		}
		den, fair := sumW*m, uint64(a.cfg.Weights[i])*sumM
		if den > fair {
			f.fb[i] = uint8(min((den-fair)<<wire.CNMFbBits/den, wire.CNMMaxQntzFb))
		}
	}
	f.ticks++
	return still
}

// AppendRegisters implements cc.Part: the registers AFQCN's doc lists, in
// that order.
func (a *AFQCN) AppendRegisters(dst []cc.Register) []cc.Register {
	dst = a.core.registers(dst)
	dst = append(dst, cc.TimeReg("next_tick", a.af.nextTick), cc.Reg("ticks", 64, a.af.ticks))
	for i := range AFQCNClasses {
		dst = append(dst,
			cc.Reg(afqcnArrNames[i], AFQCNArrivalBits, a.af.arr[i]),
			cc.Reg(afqcnMNames[i], AFQCNMBits, a.af.m[i]),
			cc.Reg(afqcnFbNames[i], wire.CNMFbBits, uint64(a.af.fb[i])),
		)
	}
	return dst
}
