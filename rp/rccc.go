package rp

import (
	"math"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// RCCC's sender limits.
const (
	// RCCCMaxCredit bounds the credit a sender holds and asks for: 2^31 − 1
	// bytes, the signed 32-bit credit register.
	RCCCMaxCredit = units.Bytes(math.MaxInt32)
	// RCCCMaxOverhead bounds FrameOverhead: a frame's bytes beyond its
	// payload, at most 4 KiB.
	RCCCMaxOverhead = 4 * units.KiB
	// RCCCMaxSize bounds Size: 2^48 bytes.
	RCCCMaxSize = units.Bytes(1) << 48
)

const rcccQuantum = 1 << wire.UECPullQuantumShift

// RCCCSenderConfig configures RCCC's sender: the credit-limited path of a
// flow ([uet-htsim] UecSrc: computePullTarget, handlePull,
// stopSpeculating, spendCredit). rp.RCCC runs it alone, rp.NSCC beside its
// window (NSCCConfig.Credit).
type RCCCSenderConfig struct {
	// On runs the sender on credit (NSCC's Credit; RCCC forces it on).
	On bool
	// Size is the flow's payload bytes (0: long-lived, its backlog never
	// ends); 0..RCCCMaxSize.
	Size units.Bytes
	// FrameOverhead is the wire bytes a frame adds to its payload
	// (headers, FCS, preamble and gap: 82 B for the harness's RoCEv2-sized
	// frames): the backlog of new data is its payload plus this per frame.
	// 0..RCCCMaxOverhead.
	FrameOverhead units.Bytes
	// MaxCredit caps the credit held and the demand a pull target states
	// (the model's configured maxwnd; 0: the window's ceiling at start,
	// 1.5 BDP); else at least one full frame, at most RCCCMaxCredit.
	MaxCredit units.Bytes
	// NoSpeculation: start with no credit (the model starts with MaxCredit
	// of speculative credit).
	NoSpeculation bool
}

// validate checks c for part.
func (c RCCCSenderConfig) validate(part string) error {
	bad := func(field, value, want string) error {
		return &cc.ConfigError{Part: part, Field: "Credit." + field, Value: value, Range: want}
	}
	switch {
	case !c.On:
		return nil
	case c.Size < 0 || c.Size > RCCCMaxSize:
		return bad("Size", c.Size.String(), "0.."+RCCCMaxSize.String())
	case c.FrameOverhead < 0 || c.FrameOverhead > RCCCMaxOverhead:
		return bad("FrameOverhead", c.FrameOverhead.String(), "0.."+RCCCMaxOverhead.String())
	case c.MaxCredit < 0 || c.MaxCredit > RCCCMaxCredit:
		return bad("MaxCredit", c.MaxCredit.String(), "0 (the window's ceiling) or one frame.."+RCCCMaxCredit.String())
	}
	return nil
}

// RCCCSenderState is every register of RCCC's sender.
type RCCCSenderState struct {
	// Credit is the credit held, wire bytes, signed (a caller that sends
	// beyond it drives it negative; it saturates at ±2^31).
	Credit int64
	// Pull is the cumulative pull number received, PullTarget the latest
	// pull target sent, in 256-byte quanta mod 2^32.
	Pull, PullTarget uint32
	// NewLeft is the payload not yet sent (64 bits), FramesLeft the frames
	// it takes (both stop at 0); RtxBacklog the wire bytes NACKed and not
	// yet resent (saturating at both ends).
	NewLeft    uint64
	FramesLeft uint64
	RtxBacklog uint32
	// Speculating: no ACK, NACK or pull has come yet.
	Speculating bool
	// Pulls counts pulls taken; Granted the quanta they granted; Spent the
	// wire bytes sent; Capped the bytes of credit dropped at MaxCredit;
	// Dropped the speculative credit dropped when speculation ended (64
	// bits, wrapping).
	Pulls, Granted, Spent, Capped, Dropped uint64
}

// rcccSender is RCCC's sender, embedded in the reaction points that run
// on credit (on false: it does nothing).
type rcccSender struct {
	on                 bool
	cfg                RCCCSenderConfig
	maxCredit, frame   int64 // bytes: the cap; a full frame (MSS + overhead)
	overhead, longLive uint64
	s                  RCCCSenderState
}

// init sets the sender up with the window's ceiling maxWnd and the MSS.
func (r *rcccSender) init(c RCCCSenderConfig, maxWnd units.Bytes, mss uint32) {
	*r = rcccSender{on: c.On, cfg: c}
	if !c.On {
		return
	}
	r.maxCredit = int64(min(maxWnd, RCCCMaxCredit))
	if c.MaxCredit > 0 {
		r.maxCredit = int64(c.MaxCredit)
	}
	r.overhead = uint64(c.FrameOverhead)
	r.frame = int64(mss) + int64(r.overhead)
	r.maxCredit = max(r.maxCredit, r.frame)
	if c.Size == 0 {
		r.longLive = 1
	}
	r.s.NewLeft = uint64(c.Size)
	// ⌈Size/MSS⌉ frames: configuration time.
	r.s.FramesLeft = (uint64(c.Size) + uint64(mss) - 1) / uint64(mss)
	if !c.NoSpeculation {
		r.s.Credit = r.maxCredit
		r.s.Speculating = true
	}
}

// backlog is the wire bytes of new data left ([uet-htsim]'s _backlog):
// its payload plus an overhead per frame; MaxCredit for a long-lived flow.
func (r *rcccSender) backlog() int64 {
	if r.longLive != 0 {
		return r.maxCredit
	}
	return int64(min(r.s.NewLeft+r.s.FramesLeft*r.overhead, uint64(RCCCMaxCredit)))
}

// writeHeader writes p.Hdr, the wire.UECData of a packet sent at now: its
// sizes, its send time, the retransmission flag (p.Seq below sndMax, which
// it then advances to p's end) and, on credit, the pull target (sent, with
// window).
func (r *rcccSender) writeHeader(now units.Time, p *cc.Packet, sndMax *uint64, window uint64) {
	h := wire.UECData{Valid: true, Frame: uint16(p.Size), SentNs: nsNow(now), Payload: uint16(p.Payload)}
	h.Retrans = p.Seq < *sndMax
	*sndMax = max(*sndMax, p.Seq+uint64(p.Payload))
	r.sent(p, h.Retrans, &h, window)
	h.Put(&p.Hdr)
}

// sent spends p's frame, takes it off the backlog (new data) or the
// retransmission backlog, and writes the pull target into h (window: the
// cap NSCC puts on the demand, cwnd + MSS; any large value for none).
func (r *rcccSender) sent(p *cc.Packet, retrans bool, h *wire.UECData, window uint64) {
	if !r.on {
		return
	}
	s := &r.s
	h.Spec = s.Speculating
	s.Credit = max(s.Credit-int64(p.Size), math.MinInt32)
	s.Spent += uint64(p.Size)
	if retrans {
		s.RtxBacklog = satSub32(s.RtxBacklog, uint64(p.Size))
	} else if r.longLive == 0 {
		s.NewLeft -= min(s.NewLeft, uint64(p.Payload))
		s.FramesLeft -= min(s.FramesLeft, 1)
	}
	// computePullTarget: the demand, capped by the window (with NSCC) and
	// by MaxCredit, less the credit held, at least a frame while
	// speculating with data left, plus the pulls so far; in quanta,
	// rounded up.
	bl := r.backlog()
	demand := bl + int64(s.RtxBacklog)
	demand = min(demand, int64(min(window, uint64(RCCCMaxCredit))), r.maxCredit)
	demand -= s.Credit
	if s.Speculating && demand < r.frame && bl > 0 {
		demand = r.frame
	}
	// ⌈demand/256⌉ with an arithmetic shift (demand may be negative: the
	// target then lies behind the pulls, and the receiver ignores it).
	q := (demand + rcccQuantum - 1) >> wire.UECPullQuantumShift
	s.PullTarget = s.Pull + uint32(q)
	h.HasPull, h.PullTarget = true, s.PullTarget
}

// feedback ends speculation ([uet-htsim] stopSpeculating): on the first
// ACK, NACK or pull, positive speculative credit is dropped.
func (r *rcccSender) feedback() {
	s := &r.s
	if !r.on || !s.Speculating {
		return
	}
	s.Speculating = false
	if s.Credit > 0 {
		s.Dropped += uint64(s.Credit)
		s.Credit = 0
	}
}

// nack queues the NACKed frame for retransmission: its wire bytes (the
// echo's frame; a full frame without one) join the retransmission backlog.
func (r *rcccSender) nack(h wire.UECData, mss uint32) {
	if !r.on {
		return
	}
	r.feedback()
	f := uint64(r.frame)
	if h.Valid {
		f = uint64(h.Frame)
	}
	r.s.RtxBacklog = satAdd32(r.s.RtxBacklog, f)
}

// pull takes a pull numbered p ([uet-htsim] processPull, handlePull): a
// number after the pulls so far (serial arithmetic, [RFC1982]) adds its
// quanta to the credit, capped at MaxCredit.
func (r *rcccSender) pull(p uint32) {
	s := &r.s
	r.feedback()
	s.Pulls++
	d := int32(p - s.Pull)
	if d <= 0 {
		return
	}
	s.Pull = p
	s.Granted += uint64(d)
	s.Credit += int64(d) << wire.UECPullQuantumShift
	if s.Credit > r.maxCredit {
		s.Capped += uint64(s.Credit - r.maxCredit)
		s.Credit = r.maxCredit
	}
}

// limits adds the credit gate to l.
func (r *rcccSender) limits(l *cc.Limits) {
	if r.on {
		l.Credited, l.Credit = true, units.Bytes(max(r.s.Credit, 0))
	}
}

// appendRegisters appends the sender's registers (none when off).
func (r *rcccSender) appendRegisters(dst []cc.Register) []cc.Register {
	if !r.on {
		return dst
	}
	s := &r.s
	return append(dst,
		cc.SignedReg("credit", 32, s.Credit),
		cc.Reg("pull", 32, uint64(s.Pull)),
		cc.Reg("pull_target", 32, uint64(s.PullTarget)),
		cc.Reg("new_left", 64, s.NewLeft),
		cc.Reg("frames_left", 64, s.FramesLeft),
		cc.Reg("rtx_backlog", 32, uint64(s.RtxBacklog)),
		cc.BoolReg("speculating", s.Speculating),
		cc.Reg("pulls", 64, s.Pulls),
		cc.Reg("granted", 64, s.Granted),
		cc.Reg("spent", 64, s.Spent),
		cc.Reg("capped", 64, s.Capped),
		cc.Reg("spec_dropped", 64, s.Dropped),
	)
}

// RCCCConfig configures RCCC's reaction point, the sender of one flow
// that runs on the receiver's credit alone.
type RCCCConfig struct {
	// Link and BaseRTT size the credit's cap (1.5·Link·BaseRTT, the
	// model's configured maxwnd, unless Credit.MaxCredit says otherwise):
	// NSCCMinLink..NSCCMaxLink and NSCCMinRTT..NSCCMaxRTT.
	Link    units.Rate
	BaseRTT units.Time
	// MSS is a full packet's payload, NSCCMinMSS..NSCCMaxMSS.
	MSS units.Bytes
	// Credit is the sender (On is implied).
	Credit RCCCSenderConfig
}

// RCCCDefault returns the consortium model's receiver-only sender
// ([uet-htsim] initRccc) for a flow of size payload bytes (0: long-lived)
// on a link of rate link and RTT rtt, with packets of mss payload bytes
// in frames of overhead more wire bytes.
func RCCCDefault(link units.Rate, rtt units.Time, mss units.Bytes, size, overhead units.Bytes) RCCCConfig {
	return RCCCConfig{Link: link, BaseRTT: rtt, MSS: mss,
		Credit: RCCCSenderConfig{On: true, Size: size, FrameOverhead: overhead}}
}

const rcccPart = "rp.RCCC"

// Validate checks every field and returns a *cc.ConfigError naming the
// first one out of range.
func (c RCCCConfig) Validate() error {
	bad := func(field, value, want string) error {
		return &cc.ConfigError{Part: rcccPart, Field: field, Value: value, Range: want}
	}
	switch {
	case c.Link < NSCCMinLink || c.Link > NSCCMaxLink:
		return bad("Link", c.Link.String(), NSCCMinLink.String()+".."+NSCCMaxLink.String())
	case c.BaseRTT < NSCCMinRTT || c.BaseRTT > NSCCMaxRTT:
		return bad("BaseRTT", c.BaseRTT.String(), NSCCMinRTT.String()+".."+NSCCMaxRTT.String())
	case c.MSS < NSCCMinMSS || c.MSS > NSCCMaxMSS:
		return bad("MSS", c.MSS.String(), NSCCMinMSS.String()+".."+NSCCMaxMSS.String())
	}
	cr := c.Credit
	cr.On = true
	return cr.validate(rcccPart)
}

// RCCCState is every register of RCCC's reaction point.
type RCCCState struct {
	Sender RCCCSenderState
	// SndMax is one past the highest byte sent.
	SndMax uint64
	// Time is the latest accepted event's time.
	Time cc.Monotonic
	// Acks and Nacks count the ACKs and NACKs taken (64 bits, wrapping).
	Acks, Nacks uint64
	// Unused counts messages of kinds RCCC does not use (cc rule 8).
	Unused cc.Unused
}

// RCCC is the sender of [UEC]'s receiver credit-based congestion control
// running alone (the model's receiver-only mode, [uet-htsim] initRccc,
// -receiver_cc_only): no window; the flow sends only on credit, which the
// receiver's pull pacer (np.RCCC) grants. The sender:
//
//   - starts with MaxCredit of speculative credit (1.5 BDP), which it
//     drops on the first ACK, NACK or pull (stopSpeculating);
//   - spends each frame's wire bytes (Sent), and writes into the frame's
//     header (p.Hdr, wire.UECData) its pull target: the cumulative pulls
//     received plus its demand, min(backlog + retransmission backlog,
//     MaxCredit) less the credit held, in 256-byte quanta rounded up
//     (computePullTarget);
//   - adds a NACKed frame's wire bytes to its retransmission backlog;
//   - takes a pull (cc.FeedbackCredit, wire.UECPull: the cumulative pull
//     number in Seq) by adding the quanta beyond the pulls so far to its
//     credit, capped at MaxCredit (handlePull).
//
// Limits are {Credited, Credit: the credit held (≥ 0)}: the NIC starts a
// frame only while its wire bytes fit the credit (the model sends on any
// positive credit and lets it go negative; the pull target counts the
// difference either way, so the receiver grants what the frames cost).
// The model divides a pull target by the flows active on the sender's NIC;
// a reaction point is one flow and sees no other (docs/derivations.md).
//
// The credit ledger keeps, at every event: speculative credit + 256·quanta
// granted = bytes spent + credit held + credit dropped at the cap +
// speculative credit dropped (rccc_prop_test.go); a pull that arrives
// after a NACK is credited in full, since pull numbers are cumulative.
//
// Registers (AppendRegisters), in order: now; credit (signed 32), pull,
// pull_target (32), new_left, frames_left (64), rtx_backlog (32),
// speculating (1), pulls, granted, spent, capped, spec_dropped (64);
// snd_max (64); acks, nacks (64); unused_feedback (64).
type RCCC struct {
	cfg RCCCConfig
	mss units.Bytes
	cr  rcccSender
	s   RCCCState
}

var _ cc.ReactionPoint = (*RCCC)(nil)

// NewRCCC validates cfg and returns a sender with nothing sent.
func NewRCCC(cfg RCCCConfig) (*RCCC, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	r := &RCCC{cfg: cfg, mss: cfg.MSS}
	bdp := units.BytesIn(cfg.Link, cfg.BaseRTT)
	c := cfg.Credit
	c.On = true
	r.cr.init(c, bdp+bdp/2, uint32(cfg.MSS))
	return r, nil
}

// Config returns the configuration r was built with.
func (r *RCCC) Config() RCCCConfig { return r.cfg }

// State returns every register.
func (r *RCCC) State() RCCCState {
	s := r.s
	s.Sender = r.cr.s
	return s
}

// Sent implements cc.ReactionPoint: it spends p's frame and writes p.Hdr
// (see RCCC). Errors as NSCC's Sent.
func (r *RCCC) Sent(now units.Time, p *cc.Packet, act *cc.Actions) error {
	if err := r.s.Time.Check(rcccPart, "Sent", now); err != nil {
		return err
	}
	if err := sentCheck(p, r.mss); err != nil {
		return &cc.EventError{Part: rcccPart, Event: "Sent", Reason: err.Error()}
	}
	r.s.Time.Advance(now)
	r.cr.writeHeader(now, p, &r.s.SndMax, math.MaxUint64)
	return nil
}

// Feedback implements cc.ReactionPoint: an ACK ends speculation, a NACK
// adds the frame to the retransmission backlog, a pull adds credit; any
// other kind is counted as unused (cc rule 8). Errors, after which
// nothing changed: a now before the latest event's (*cc.TimeOrderError);
// a nil f, or an echo or pull that does not decode (*cc.EventError).
func (r *RCCC) Feedback(now units.Time, f *cc.Feedback, act *cc.Actions) error {
	if err := r.s.Time.Check(rcccPart, "Feedback", now); err != nil {
		return err
	}
	if f == nil {
		return &cc.EventError{Part: rcccPart, Event: "Feedback", Reason: "nil feedback"}
	}
	s := &r.s
	switch f.Kind {
	case cc.FeedbackAck:
		s.Acks++
		r.cr.feedback()
	case cc.FeedbackNak:
		h, err := wire.DecodeUECData(f.Data[:])
		if err != nil {
			return &cc.EventError{Part: rcccPart, Event: "Feedback", Reason: "the echoed header does not decode", Err: err}
		}
		s.Nacks++
		r.cr.nack(h, uint32(r.mss))
	case cc.FeedbackCredit:
		pl, err := wire.DecodeUECPull(f)
		if err != nil {
			return &cc.EventError{Part: rcccPart, Event: "Feedback", Reason: "the pull does not decode", Err: err}
		}
		r.cr.pull(pl.Pull)
	default:
		s.Unused.Count()
	}
	s.Time.Advance(now)
	return nil
}

// Limits implements cc.ReactionPoint: credit only.
func (r *RCCC) Limits() cc.Limits {
	var l cc.Limits
	r.cr.limits(&l)
	return l
}

// NextDeadline implements cc.Clock: RCCC's sender has no timer.
func (r *RCCC) NextDeadline() units.Time { return units.MaxTime }

// Timer implements cc.Clock: it only records now.
func (r *RCCC) Timer(now units.Time, act *cc.Actions) error {
	if err := r.s.Time.Check(rcccPart, "Timer", now); err != nil {
		return err
	}
	r.s.Time.Advance(now)
	return nil
}

// AppendRegisters implements cc.Part: the registers listed in RCCC's doc.
func (r *RCCC) AppendRegisters(dst []cc.Register) []cc.Register {
	s := &r.s
	dst = append(dst, s.Time.Register())
	dst = r.cr.appendRegisters(dst)
	return append(dst,
		cc.Reg("snd_max", 64, s.SndMax),
		cc.Reg("acks", 64, s.Acks),
		cc.Reg("nacks", 64, s.Nacks),
		s.Unused.Register(),
	)
}
