package np

import (
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// ExpressPass's constants on the receiver's side and their sources (the
// paper's text was not in the reference corpora available when this was
// written; every value is checked against the authors' ns-2 code,
// [ExpressPass-ns2], whose xpass/xpass.cc implements Algorithm 1 and whose
// scripts set its parameters):
//
//   - initial rate α·max_rate with α = 1/16 and w_init = 1/16 (ns-2
//     scripts/large-scale-fattree.tcl: alpha 0.0625, w_init 0.0625);
//   - w_max = 0.5 and w_min = 0.01 (xpass.cc: w_ capped at 0.5; min_w_ 0.01);
//   - target_loss = 0.125 (target_loss_scaling_ 0.125 in every script);
//   - credit inter-departure jitter uniform in [−0.1, +0.1] of the interval
//     (min_jitter_ −0.1, max_jitter_ 0.1; xpass.cc send_credit: delay·(1 +
//     jitter));
//   - a floor of one credit per update period (xpass.cc
//     credit_feedback_control: min_rate = avg_credit_size / rtt_);
//   - the credit and data frame sizes and the sequence space: package
//     wire (wire.ExpressPassCreditBytes, wire.ExpressPassFrameBytes,
//     wire.ExpressPassMaxSeq).
const (
	// ExpressPassDefaultSeed seeds the receiver's jitter generator when
	// nothing better is known (any nonzero 32-bit value works).
	ExpressPassDefaultSeed uint32 = 0x2545F491
)

// expressPassQBits is the fraction width of every ExpressPass gain and
// loss: Q16, 65536 = 1.0. The resolution 1.5e-5 is far below the paper's
// smallest constant (w_min = 0.01, held as 655/65536 = 0.009995).
const (
	expressPassQBits        = 16
	expressPassOne   uint64 = 1 << expressPassQBits
)

// expressPassSeqNext returns the sequence number after s (1 ≤ s ≤ max).
func expressPassSeqNext(s, max uint64) uint64 {
	if s >= max {
		return 1
	}
	return s + 1
}

// expressPassSeqDist returns how far s is ahead of e in the space 1..max
// (a ring of max values): (s − e) mod max, in 0..max−1.
func expressPassSeqDist(e, s, max uint64) uint64 {
	if s >= e {
		return s - e
	}
	return s + max - e
}

// expressPassXorshift advances Marsaglia's 32-bit xorshift generator
// (shifts 13, 17, 5: period 2^32 − 1 over the nonzero states; three shifts
// and three XORs in hardware) and returns the new state.
func expressPassXorshift(x uint32) uint32 {
	x ^= x << 13
	x ^= x >> 17
	x ^= x << 5
	return x
}

// expressPassQ16 converts a configuration gain f to Q16, rounding to
// nearest (ties away from zero). Configuration only: the state path never
// sees a float.
func expressPassQ16(f float64) int64 {
	if f < 0 {
		return -int64(-f*float64(expressPassOne) + 0.5)
	}
	return int64(f*float64(expressPassOne) + 0.5)
}

// expressPassEventError is a refused event (errors.Is(err, cc.ErrEvent)),
// with its cause (a *cc.DecodeError, say) if any. Errors are built out of
// line so that the event paths hold no allocation site.
//
//go:noinline
func expressPassEventError(event, reason string, err error) error {
	return &cc.EventError{Part: expressPassPart, Event: event, Reason: reason, Err: err}
}

// expressPassPart names the ExpressPass receiver in errors.
const expressPassPart = "np.ExpressPass"

// ExpressPass's receiver: the bounds of ExpressPassConfig's fields, which
// Validate checks and package algos's registration reads (SeqBits also
// takes wire.ExpressPassMinSeqBits..wire.ExpressPassMaxSeqBits).
const (
	// ExpressPassMinLink and ExpressPassMaxLink bound the line rate: 1
	// Mb/s to 10 Tb/s, which keeps the shortest credit interval above 1 ns
	// and every rate product within 64 bits (see ExpressPass).
	ExpressPassMinLink = units.Mbps
	ExpressPassMaxLink = 10 * units.Tbps
	// ExpressPassMaxFrameBytes bounds the credit and data frame sizes:
	// 1 B ≤ CreditBytes ≤ FrameBytes ≤ 64 KiB.
	ExpressPassMaxFrameBytes = 64 * units.KiB
	// ExpressPassMinAlpha is the smallest initial rate fraction α: one LSB
	// of the Q16 it is held in (2^-16); α is at most 1.
	ExpressPassMinAlpha = 1.0 / (1 << expressPassQBits)
	// ExpressPassMaxGain bounds w_init, w_min, w_max and target_loss, held
	// in Q16 below 1.0: 1 − 2^-16 (65535/65536); each is at least 0.
	ExpressPassMaxGain = 1 - ExpressPassMinAlpha
	// ExpressPassMaxJitter bounds the stretch of a credit interval:
	// −0.5 ≤ JitterMin ≤ 0 ≤ JitterMax ≤ 0.5.
	ExpressPassMaxJitter = 0.5
	// ExpressPassMinPeriod and ExpressPassMaxPeriod bound the update
	// period: 1 ns to 1 s.
	ExpressPassMinPeriod = units.Nanosecond
	ExpressPassMaxPeriod = units.Second
	// ExpressPassMinSeed is the smallest jitter seed: the xorshift32 state
	// 0 would stay 0.
	ExpressPassMinSeed uint32 = 1
)

// ExpressPassConfig configures an ExpressPass receiver (the credit
// sender of the paper). Gains are float64 here and Q16 in the state (New
// rounds them to nearest); the source of each default is listed with
// ExpressPassDefaultSeed.
type ExpressPassConfig struct {
	// Link is the receiver NIC's line rate. The largest credit rate is
	// Link·CreditBytes/(CreditBytes+FrameBytes). Range
	// ExpressPassMinLink..ExpressPassMaxLink.
	Link units.Rate
	// CreditBytes is a credit frame's wire size (84 B), FrameBytes the
	// largest data frame's (1538 B), which one credit pays for.
	// Range 1 B ≤ CreditBytes ≤ FrameBytes ≤ ExpressPassMaxFrameBytes.
	CreditBytes, FrameBytes units.Bytes
	// Alpha is the initial rate as a fraction of the largest (1/16);
	// range ExpressPassMinAlpha..1.
	Alpha float64
	// WInit, WMin and WMax bound the aggressiveness w of the increase
	// (1/16, 0.01, 0.5): 0 ≤ WMin ≤ WInit ≤ WMax ≤ ExpressPassMaxGain.
	WInit, WMin, WMax float64
	// TargetLoss is the credit loss the control aims for (0.125); range
	// 0..ExpressPassMaxGain.
	TargetLoss float64
	// UpdatePeriod is how often Algorithm 1 runs ("every update period
	// (RTT by default)"): the flow's base RTT when the environment gives
	// one, else 10 µs (hwcc's default, a datacenter RTT). Range
	// ExpressPassMinPeriod..ExpressPassMaxPeriod.
	UpdatePeriod units.Time
	// JitterMin and JitterMax bound the random stretch of each credit
	// interval: interval·(1 + j), j uniform in [JitterMin, JitterMax]
	// (−0.1, +0.1). Range −ExpressPassMaxJitter ≤ JitterMin ≤ 0 ≤
	// JitterMax ≤ ExpressPassMaxJitter.
	JitterMin, JitterMax float64
	// Seed is the jitter generator's initial state, at least
	// ExpressPassMinSeed.
	Seed uint32
	// SeqBits is the width of the credit sequence number (32); range
	// wire.ExpressPassMinSeqBits..wire.ExpressPassMaxSeqBits. Sequence
	// numbers run 1..2^SeqBits − 1 and wrap to 1.
	SeqBits uint8
}

// ExpressPassPaper returns the receiver of the paper's evaluation at line
// rate link: the constants listed with ExpressPassDefaultSeed, an update period of
// 10 µs (replaced by the flow's base RTT where the environment gives one).
func ExpressPassPaper(link units.Rate) ExpressPassConfig {
	return ExpressPassConfig{
		Link:         link,
		CreditBytes:  wire.ExpressPassCreditBytes,
		FrameBytes:   wire.ExpressPassFrameBytes,
		Alpha:        1.0 / 16,
		WInit:        1.0 / 16,
		WMin:         0.01,
		WMax:         0.5,
		TargetLoss:   0.125,
		UpdatePeriod: 10 * units.Microsecond,
		JitterMin:    -0.1,
		JitterMax:    0.1,
		Seed:         ExpressPassDefaultSeed,
		SeqBits:      32,
	}
}

// MaxRate returns the largest credit rate (bit/s of credit frames):
// Link·CreditBytes/(CreditBytes+FrameBytes), rounded down.
func (c ExpressPassConfig) MaxRate() units.Rate {
	return units.Rate(uint64(c.Link) * uint64(c.CreditBytes) / uint64(c.CreditBytes+c.FrameBytes))
}

func expressPassBad(field, value, want string) error {
	return &cc.ConfigError{Part: expressPassPart, Field: field, Value: value, Range: want}
}

// fmtFloat formats f exactly, in the shortest form that parses back.
func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// Validate checks every field and returns a *cc.ConfigError naming the
// first one out of range (its Go name).
func (c ExpressPassConfig) Validate() error {
	switch {
	case c.Link < ExpressPassMinLink || c.Link > ExpressPassMaxLink:
		return expressPassBad("Link", c.Link.String(), ExpressPassMinLink.String()+".."+ExpressPassMaxLink.String())
	case c.CreditBytes < 1 || c.CreditBytes > c.FrameBytes:
		return expressPassBad("CreditBytes", c.CreditBytes.String(), "1B..FrameBytes")
	case c.FrameBytes > ExpressPassMaxFrameBytes:
		return expressPassBad("FrameBytes", c.FrameBytes.String(), "CreditBytes.."+ExpressPassMaxFrameBytes.String())
	case !(c.Alpha >= ExpressPassMinAlpha && c.Alpha <= 1):
		return expressPassBad("Alpha", fmtFloat(c.Alpha), fmtFloat(ExpressPassMinAlpha)+"..1")
	case !(c.WMax >= 0 && c.WMax <= ExpressPassMaxGain):
		return expressPassBad("WMax", fmtFloat(c.WMax), "0.."+fmtFloat(ExpressPassMaxGain))
	case !(c.WMin >= 0 && c.WMin <= c.WMax):
		return expressPassBad("WMin", fmtFloat(c.WMin), "0..WMax")
	case !(c.WInit >= c.WMin && c.WInit <= c.WMax):
		return expressPassBad("WInit", fmtFloat(c.WInit), "WMin..WMax")
	case !(c.TargetLoss >= 0 && c.TargetLoss <= ExpressPassMaxGain):
		return expressPassBad("TargetLoss", fmtFloat(c.TargetLoss), "0.."+fmtFloat(ExpressPassMaxGain))
	case c.UpdatePeriod < ExpressPassMinPeriod || c.UpdatePeriod > ExpressPassMaxPeriod:
		return expressPassBad("UpdatePeriod", c.UpdatePeriod.String(), ExpressPassMinPeriod.String()+".."+ExpressPassMaxPeriod.String())
	case !(c.JitterMin >= -ExpressPassMaxJitter && c.JitterMin <= 0):
		return expressPassBad("JitterMin", fmtFloat(c.JitterMin), fmtFloat(-ExpressPassMaxJitter)+"..0")
	case !(c.JitterMax >= 0 && c.JitterMax <= ExpressPassMaxJitter):
		return expressPassBad("JitterMax", fmtFloat(c.JitterMax), "0.."+fmtFloat(ExpressPassMaxJitter))
	case c.Seed < ExpressPassMinSeed:
		return expressPassBad("Seed", "0", "1..4294967295 (0 locks the generator)")
	case c.SeqBits < wire.ExpressPassMinSeqBits || c.SeqBits > wire.ExpressPassMaxSeqBits:
		return expressPassBad("SeqBits", strconv.Itoa(int(c.SeqBits)), strconv.Itoa(wire.ExpressPassMinSeqBits)+".."+strconv.Itoa(wire.ExpressPassMaxSeqBits))
	}
	return nil
}

// ExpressPassState is every register of an np.ExpressPass but the time
// of its latest event, in the units of its snapshot (AppendRegisters).
type ExpressPassState struct {
	// Active: credits are being paced (between a request and a stop).
	Active bool
	// Flow is the flow the credits name (the latest request's).
	Flow cc.FlowID
	// Seq is the sequence number of the next credit (SeqBits wide, never
	// 0); Expect the echo that would show no loss: one past the latest
	// echo counted, or the first credit of the current activation.
	Seq, Expect uint32
	// W is the aggressiveness w, Q16 (16 bits: it stays below WMax < 1).
	W uint16
	// Rate is cur_rate in bit/s of credit frames, within [MinRate,
	// MaxRate] (at most 2^39: 10 Tb/s·84/85).
	Rate units.Rate
	// Increased: the latest update was an increase (Algorithm 1's
	// "previous phase was increasing").
	Increased bool
	// Interval is the credit interval at Rate, CreditBytes·8/Rate rounded
	// up to a picosecond; GapBase = Interval·(1 + JitterMin) and GapSpan =
	// Interval·(JitterMax − JitterMin), both Q16 products rounded down:
	// each gap is GapBase + GapSpan·u/2^16 for a 16-bit draw u.
	Interval, GapBase, GapSpan units.Time
	// Next is the next credit's departure (meaningful while Active);
	// LastUpdate the time Algorithm 1 last ran (or the activation).
	Next, LastUpdate units.Time
	// Total and Dropped count, since LastUpdate, the credits accounted
	// for by echoes (received and skipped) and the skipped ones: the
	// paper's #credit_sent and #credit_dropped. 32-bit, saturating.
	Total, Dropped uint32
	// Rand is the jitter generator's state (xorshift32, never 0).
	Rand uint32
	// Credits counts credits sent, Echoes data frames with an echo,
	// Lost the credits their gaps showed lost, Stale echoes behind
	// Expect (late or duplicate), Unechoed data frames without an echo,
	// Updates the runs of Algorithm 1. 64-bit, wrapping.
	Credits, Echoes, Lost, Stale, Unechoed, Updates uint64
}

// ExpressPass is ExpressPass's receiver ([ExpressPass] §3 and Algorithm
// 1; constants as in [ExpressPass-ns2]): a cc.NotificationPoint at the
// flow's destination that paces credits to the flow's source and runs the
// credit feedback control (the paper's Algorithm 1) on the loss the data
// frames' echoes show. It is registered as algorithm "expresspass" part
// "np" (package algos); rp.ExpressPass is the sender it paces, package
// wire holds the control packet and the echo.
//
// Pacing. A cc.FeedbackCreditRequest from the source (Feedback) activates the
// receiver: w ← WInit, cur_rate ← Alpha·MaxRate (as ns-2's init() at every
// request), the loss counters restart, and the first credit leaves at
// once. Each later credit leaves at NextDeadline (Timer), as
// an ActionFeedback to cc.ToSource at cc.ControlPrio carrying
// Feedback{Kind: cc.FeedbackCredit, Flow, Seq} with the credit's wire image
// in Data (wire.ExpressPassPacket: type credit, Flow, Seq, TS the departure
// time; the receiver does not read the Data of what it receives). The gap to the next is
// GapBase + GapSpan·u/2^16, u the top 16 bits of a xorshift32 draw: the
// interval CreditBytes·8/cur_rate stretched by a uniform factor in
// [1 + JitterMin, 1 + JitterMax] (resolution 2^-16 of the span). A
// cc.FeedbackCreditStop deactivates it (no deadline); a request while
// active and a stop while idle change nothing. Other feedback kinds are
// not used: they are counted in cc.UnusedRegister and change nothing else
// (the contract's rule 8).
//
// Late timers. Every event first sends the credits due at or before its
// now, each as at its own deadline (its image stamped with that time, the
// next one a gap after it, an update at each departure that is due), so
// that a caller that leaves the timer to its next event gets the same
// credits, in the same order, as one that calls Timer at every deadline
// (rule 4). Every event therefore refuses a nil *cc.Actions (rule 3), and
// one whose credits do not fit is refused whole (*cc.ActionsFullError
// naming how many it needs).
//
// Loss. Receive reads each data frame's echo e, the credit it spent, from
// its header (wire.ExpressPassEcho on cc.Packet.Hdr). With E the expected echo
// and d = (e − E) mod (2^SeqBits − 1) the distance in the sequence ring:
// d < half the ring is progress, d credits were lost (Dropped += d, Total
// += d + 1, E ← e + 1); otherwise the echo is late or duplicated
// (reordering; ExpressPass assumes none and ns-2 aborts on it) and counts
// in Stale only: the gap it fell into already counted it lost. Echo 0 (a
// frame that spent no credit, an all-zero Hdr) counts in Unechoed; an
// echo above 2^SeqBits − 1, or a header with a nonzero reserved byte
// (another scheme's bytes, not an echo), is a *cc.EventError (wrapping
// the *cc.DecodeError in the second case). Credits the sender wasted
// (beyond its FIFO, after its stop) come back as gaps, and count as loss,
// as in the paper. Receive decides nothing of its own.
//
// Algorithm 1 runs at a credit departure once UpdatePeriod has passed
// since the last run and at least one echo was counted (xpass.cc does the
// same, in send_credit; the credit that triggers it leaves at the new
// rate). With loss = Dropped/Total (Q16, rounded to nearest: the one
// division, once per period):
//
//	if loss ≤ target_loss:                      // increasing phase
//	    if previous phase increased: w = (w + w_max)/2
//	    cur_rate = (1 − w)·cur_rate + w·max_rate·(1 + target_loss)
//	else:                                       // decreasing phase
//	    cur_rate = cur_rate·(1 − loss)·(1 + target_loss)
//	    w = max(w/2, w_min)
//
// then cur_rate is clamped to [MinRate, MaxRate], MinRate being one credit
// per update period (ns-2's clamp; the paper states none). Each product is
// a Q16 multiply rounded down; w·max_rate·(1 + target_loss) is a constant
// of the configuration. The credit interval is then recomputed (a second
// division, once per period). Against a float64 model of the same law the
// rate stays within 10^-4 relative over hundreds of periods (tested).
//
// Differences from the authors' ns-2 code, which hwcc does not model: it
// raises w by +0.05 per increase (not halfway to w_max), scales the target
// loss by (1 − cur_rate/max_rate), measures the RTT to time the updates,
// and sets the decreased rate from the received credits' rate.
//
// It is not safe for concurrent use. Build one with NewExpressPass.
type ExpressPass struct {
	cfg    ExpressPassConfig
	s      ExpressPassState
	clock  cc.Monotonic
	unused cc.Unused
	// Constants of the configuration, computed once by the constructor.
	seqMax                   uint64
	maxRate, minRate, init   uint64     // bit/s
	maxPlus                  uint64     // max_rate·(1 + target_loss), bit/s
	creditBits               uint64     // CreditBytes·8
	wInit, wMin, wMax, tLoss uint64     // Q16
	jMin, jSpan              int64      // Q16
	gapMin                   units.Time // no gap between credits is shorter
}

var _ cc.NotificationPoint = (*ExpressPass)(nil)

// NewExpressPass validates cfg and returns an idle receiver.
func NewExpressPass(cfg ExpressPassConfig) (*ExpressPass, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	r := &ExpressPass{cfg: cfg}
	r.seqMax = wire.ExpressPassMaxSeq(cfg.SeqBits)
	r.creditBits = uint64(cfg.CreditBytes) * 8
	r.maxRate = uint64(cfg.MaxRate())
	r.wInit, r.wMin, r.wMax = uint64(expressPassQ16(cfg.WInit)), uint64(expressPassQ16(cfg.WMin)), uint64(expressPassQ16(cfg.WMax))
	r.tLoss = uint64(expressPassQ16(cfg.TargetLoss))
	r.jMin = expressPassQ16(cfg.JitterMin)
	r.jSpan = expressPassQ16(cfg.JitterMax) - r.jMin
	// One credit per update period: creditBits·10^12/period, rounded up;
	// never above the largest rate.
	r.minRate = min((r.creditBits*uint64(units.Second)+uint64(cfg.UpdatePeriod)-1)/uint64(cfg.UpdatePeriod), r.maxRate)
	// initial_rate = α·max_rate (Q16, rounded down).
	r.init = max(min(uint64(expressPassQ16(cfg.Alpha))*r.maxRate>>expressPassQBits, r.maxRate), r.minRate)
	r.maxPlus = r.maxRate * (expressPassOne + r.tLoss) >> expressPassQBits
	// The shortest gap: the interval at max_rate (rounded up, as setRate
	// does) stretched by 1 + JitterMin (rounded down, as setRate does);
	// every gap is at least its GapBase, which is at least this.
	ivMin := (r.creditBits*uint64(units.Second) + r.maxRate - 1) / r.maxRate
	r.gapMin = max(units.Time(ivMin*uint64(int64(expressPassOne)+r.jMin)>>expressPassQBits), 1)
	r.s = ExpressPassState{Seq: 1, Expect: 1, Rand: cfg.Seed, W: uint16(r.wInit)}
	r.setRate(&r.s, r.init)
	return r, nil
}

// Config returns the configuration r was built with.
func (r *ExpressPass) Config() ExpressPassConfig { return r.cfg }

// State returns every register but the time.
func (r *ExpressPass) State() ExpressPassState { return r.s }

// Last returns the time of the latest event accepted: the register now,
// ps.
func (r *ExpressPass) Last() units.Time { return r.clock.Last() }

// MinRate returns the floor of cur_rate (the register rate), bit/s: one
// credit per update period.
func (r *ExpressPass) MinRate() units.Rate { return units.Rate(r.minRate) }

// MaxRate returns the ceiling of cur_rate (the register rate), bit/s: the
// largest credit rate (ExpressPassConfig.MaxRate).
func (r *ExpressPass) MaxRate() units.Rate { return units.Rate(r.maxRate) }

// setRate sets cur_rate and the interval and gap terms that follow from it.
func (r *ExpressPass) setRate(s *ExpressPassState, rate uint64) {
	s.Rate = units.Rate(rate)
	// interval = creditBits / rate, in ps, rounded up so that the credits
	// never exceed cur_rate. rate ≥ minRate ≥ 1 bit/s: creditBits·10^12 ≤
	// 2^19·10^12 < 2^63.
	iv := (r.creditBits*uint64(units.Second) + rate - 1) / rate
	s.Interval = units.Time(iv)
	// GapBase = interval·(1 + jMin), GapSpan = interval·(jMax − jMin): Q16
	// products rounded down. rate ≥ minRate, one credit per period, so
	// interval ≤ UpdatePeriod ≤ 10^12 ps < 2^40 and the products stay
	// below 2^57.
	s.GapBase = units.Time(iv * uint64(int64(expressPassOne)+r.jMin) >> expressPassQBits)
	s.GapSpan = units.Time(iv * uint64(r.jSpan) >> expressPassQBits)
}

// gap draws the next inter-credit gap from s's generator: GapBase +
// GapSpan·u/2^16 with u the top 16 bits of the next xorshift32 state, at
// least 1 ps.
func (r *ExpressPass) gap(s *ExpressPassState) units.Time {
	s.Rand = expressPassXorshift(s.Rand)
	u := uint64(s.Rand >> 16)
	g := s.GapBase + units.Time(uint64(s.GapSpan)*u>>16)
	return max(g, 1)
}

// update runs Algorithm 1 once on the counters in s, and restarts them.
// The caller checked Total > 0.
func (r *ExpressPass) update(s *ExpressPassState) {
	// credit_loss = #credit_dropped / #credit_sent, Q16 rounded to nearest.
	total, dropped := uint64(s.Total), min(uint64(s.Dropped), uint64(s.Total))
	loss := (dropped<<expressPassQBits + total/2) / total
	rate, w := uint64(s.Rate), uint64(s.W)
	if loss <= r.tLoss {
		// Increasing phase.
		if s.Increased {
			// w = (w + w_max)/2, rounded down.
			w = (w + r.wMax) >> 1
		}
		// cur_rate = (1 − w)·cur_rate + w·max_rate·(1 + target_loss).
		rate = ((expressPassOne-w)*rate + w*r.maxPlus) >> expressPassQBits
		s.Increased = true
	} else {
		// Decreasing phase: cur_rate = cur_rate·(1 − loss)·(1 + target_loss).
		rate = rate * (expressPassOne - loss) >> expressPassQBits
		rate = rate * (expressPassOne + r.tLoss) >> expressPassQBits
		// w = max(w/2, w_min).
		w = max(w>>1, r.wMin)
		s.Increased = false
	}
	s.W = uint16(w)
	r.setRate(s, min(max(rate, r.minRate), r.maxRate))
	s.Total, s.Dropped = 0, 0
	s.Updates++
}

// start activates s at now for flow (a credit request while idle).
func (r *ExpressPass) start(s *ExpressPassState, now units.Time, flow cc.FlowID) {
	s.Active, s.Flow = true, flow
	s.W, s.Increased = uint16(r.wInit), false
	r.setRate(s, r.init)
	s.Expect = s.Seq
	s.Total, s.Dropped = 0, 0
	s.LastUpdate = now
}

// send sends the next credit from s at its deadline d (an update first,
// if one is due), schedules the one after, and returns the credit's
// sequence number.
func (r *ExpressPass) send(s *ExpressPassState, d units.Time) uint32 {
	if d-s.LastUpdate >= r.cfg.UpdatePeriod && s.Total > 0 {
		r.update(s)
		s.LastUpdate = d
	}
	seq := s.Seq
	s.Seq = uint32(expressPassSeqNext(uint64(seq), r.seqMax))
	s.Credits++
	// Saturating: a deadline near units.MaxTime stays there.
	s.Next = fixedpoint.SatAdd(d, r.gap(s))
	return seq
}

// NextDeadline implements cc.Clock: the next credit's departure while
// active, else units.MaxTime.
func (r *ExpressPass) NextDeadline() units.Time {
	if r.s.Active {
		return r.s.Next
	}
	return units.MaxTime
}

// expressPassCredit returns the credit seq for flow sent at now: Seq, and
// in Data its wire image (wire.ExpressPassPacket).
func expressPassCredit(now units.Time, flow cc.FlowID, seq uint32) cc.Feedback {
	f := cc.Feedback{Kind: cc.FeedbackCredit, Flow: flow, Seq: uint64(seq)}
	// Valid: a credit's sequence number is never 0.
	_ = wire.ExpressPassPacket{Type: wire.ExpressPassTypeCredit, Flow: flow, Seq: seq, TS: wire.ExpressPassTS(now)}.Put(&f.Data)
	return f
}

// sendDue sends the credit due at r.s.Next (active) into act, which has
// room for it: the credit written in place, as expressPassCredit writes it.
func (r *ExpressPass) sendDue(act *cc.Actions) {
	d := r.s.Next
	seq := r.send(&r.s, d)
	act.Send(cc.ToSource, cc.ControlPrio, cc.Feedback{Kind: cc.FeedbackCredit, Flow: r.s.Flow, Seq: uint64(seq)})
	f := &act.All()[act.Len()-1].Feedback
	// Valid: a credit's sequence number is never 0.
	_ = wire.ExpressPassPacket{Type: wire.ExpressPassTypeCredit, Flow: f.Flow, Seq: seq, TS: wire.ExpressPassTS(d)}.Put(&f.Data)
}

// expressPassMaxCatchUp bounds the credits one event sends for a timer
// left overdue: a caller later than that gets an *cc.ActionsFullError
// asking for more room than any Actions has, rather than an unbounded
// loop.
const expressPassMaxCatchUp = 1 << 20

// run sends every credit due at or before now, each as at its own
// deadline, in order (rule 4), and makes room for own more actions of the
// event's own (0 or 1): the start of every event, after the event's
// checks, since nothing can refuse it after this. On error it changes
// nothing, act included.
func (r *ExpressPass) run(event string, now units.Time, act *cc.Actions, own int) error {
	if !r.s.Active || r.s.Next > now {
		if own == 0 {
			return nil
		}
		return act.Reserve(expressPassPart, event, own)
	}
	// No gap is shorter than gapMin: when the most credits that can be
	// due fit, they run in place (a caller on time: one, no division).
	bound := uint64(1)
	if now-r.s.Next >= r.gapMin {
		bound = uint64(now-r.s.Next)/uint64(r.gapMin) + 1
	}
	if bound < expressPassMaxCatchUp && int(bound)+own <= act.Free() {
		for r.s.Active && r.s.Next <= now {
			r.sendDue(act)
		}
		return nil
	}
	s := r.s // the catch-up runs on a copy, kept only if it all fits
	mark, free := act.Len(), act.Free()
	n := 0
	for s.Active && s.Next <= now && n < expressPassMaxCatchUp {
		d := s.Next
		seq := r.send(&s, d)
		act.Add(cc.Action{Kind: cc.ActionFeedback, To: cc.ToSource, Prio: cc.ControlPrio, Feedback: expressPassCredit(d, s.Flow, seq)})
		n++
	}
	if s.Next <= now { // beyond the bound: more than any Actions holds
		n = expressPassMaxCatchUp + 1
	}
	if n+own > free {
		act.Truncate(mark)
		return &cc.ActionsFullError{Part: expressPassPart, Event: event, Need: n + own, Free: free}
	}
	r.s = s
	return nil
}

// Timer implements cc.Clock: it sends every credit due at or before now,
// each as at its own deadline (see the type's doc), one action each;
// before the deadline it only records now.
func (r *ExpressPass) Timer(now units.Time, act *cc.Actions) error {
	if !r.clock.InOrder(now) {
		return r.clock.Check(expressPassPart, "Timer", now)
	}
	if act == nil { // the catch-up can always decide (rule 3)
		return cc.NoActions(expressPassPart, "Timer")
	}
	if r.s.Active && r.s.Next <= now && now-r.s.Next < r.gapMin && act.Free() > 0 {
		// On time: one credit due, and the next one after now (no gap is
		// shorter than gapMin).
		r.sendDue(act)
	} else if err := r.run("Timer", now, act, 0); err != nil {
		return err
	}
	r.clock.Advance(now)
	return nil
}

// Feedback implements cc.NotificationPoint: after the credits due by now,
// a cc.FeedbackCreditRequest while idle activates the receiver and sends
// the first credit at once (one action); a cc.FeedbackCreditStop
// deactivates it; a request while active and a stop while idle change
// nothing but the time; every other kind is counted in UnusedRegister
// (rule 8). A nil f is a *cc.EventError.
func (r *ExpressPass) Feedback(now units.Time, f *cc.Feedback, act *cc.Actions) error {
	if !r.clock.InOrder(now) {
		return r.clock.Check(expressPassPart, "Feedback", now)
	}
	if act == nil { // the catch-up can always decide (rule 3)
		return cc.NoActions(expressPassPart, "Feedback")
	}
	if f == nil {
		return expressPassEventError("Feedback", "nil feedback", nil)
	}
	start := f.Kind == cc.FeedbackCreditRequest && !r.s.Active // the catch-up keeps Active
	own := 0
	if start {
		own = 1
	}
	if err := r.run("Feedback", now, act, own); err != nil {
		return err
	}
	switch {
	case start:
		r.start(&r.s, now, f.Flow)
		seq := r.send(&r.s, now)
		act.Send(cc.ToSource, cc.ControlPrio, expressPassCredit(now, r.s.Flow, seq))
	case f.Kind == cc.FeedbackCreditStop:
		r.s.Active = false
	case f.Kind != cc.FeedbackCreditRequest:
		r.unused.Count()
	}
	r.clock.Advance(now)
	return nil
}

// Receive implements cc.NotificationPoint: after the credits due by now,
// it counts the echo in p.Hdr (wire.ExpressPassEcho) against the expected
// credit (see the type's doc); it decides nothing itself. A nil p, a
// header that does not decode or an echo beyond the sequence space is a
// *cc.EventError.
func (r *ExpressPass) Receive(now units.Time, p *cc.Packet, act *cc.Actions) error {
	if !r.clock.InOrder(now) {
		return r.clock.Check(expressPassPart, "Receive", now)
	}
	if act == nil { // the catch-up can always decide (rule 3)
		return cc.NoActions(expressPassPart, "Receive")
	}
	if p == nil {
		return expressPassEventError("Receive", "nil packet", nil)
	}
	e, err := wire.ExpressPassEcho(&p.Hdr)
	if err != nil {
		return expressPassEventError("Receive", "malformed header", err)
	}
	if e > r.seqMax {
		return expressPassEventError("Receive", "echo beyond the credit sequence space", nil)
	}
	if r.s.Active && r.s.Next <= now {
		if err := r.run("Receive", now, act, 0); err != nil {
			return err
		}
	}
	r.echo(&r.s, e)
	r.clock.Advance(now)
	return nil
}

// echo counts one data frame's echo e (≤ seqMax) in s.
func (r *ExpressPass) echo(s *ExpressPassState, e uint64) {
	if e == 0 {
		s.Unechoed++
		return
	}
	d := expressPassSeqDist(uint64(s.Expect), e, r.seqMax)
	if d >= r.seqMax/2 {
		s.Stale++
		return
	}
	s.Echoes++
	s.Lost += d
	// Saturating 32-bit period counters.
	s.Total = fixedpoint.SatConv[uint32](uint64(s.Total) + d + 1)
	s.Dropped = fixedpoint.SatConv[uint32](uint64(s.Dropped) + d)
	s.Expect = uint32(expressPassSeqNext(e, r.seqMax))
}

// AppendRegisters implements cc.Part: now, active, flow[32], seq and
// expect[SeqBits], w[16] (Q16), rate[64] (bit/s), increased, interval,
// gap_base, gap_span, next, last_update (64-bit ps), total[32],
// dropped[32], rand[32], then the 64-bit counters credits, echoes, lost,
// stale, unechoed, updates and unused_feedback (cc.UnusedRegister).
func (r *ExpressPass) AppendRegisters(dst []cc.Register) []cc.Register {
	s := &r.s
	return append(dst,
		r.clock.Register(),
		cc.BoolReg("active", s.Active),
		cc.Reg("flow", 32, uint64(s.Flow)),
		cc.Reg("seq", r.cfg.SeqBits, uint64(s.Seq)),
		cc.Reg("expect", r.cfg.SeqBits, uint64(s.Expect)),
		cc.Reg("w", 16, uint64(s.W)),
		cc.RateReg("rate", s.Rate),
		cc.BoolReg("increased", s.Increased),
		cc.TimeReg("interval", s.Interval),
		cc.TimeReg("gap_base", s.GapBase),
		cc.TimeReg("gap_span", s.GapSpan),
		cc.TimeReg("next", s.Next),
		cc.TimeReg("last_update", s.LastUpdate),
		cc.Reg("total", 32, uint64(s.Total)),
		cc.Reg("dropped", 32, uint64(s.Dropped)),
		cc.Reg("rand", 32, uint64(s.Rand)),
		cc.Reg("credits", 64, s.Credits),
		cc.Reg("echoes", 64, s.Echoes),
		cc.Reg("lost", 64, s.Lost),
		cc.Reg("stale", 64, s.Stale),
		cc.Reg("unechoed", 64, s.Unechoed),
		cc.Reg("updates", 64, s.Updates),
		r.unused.Register(),
	)
}
