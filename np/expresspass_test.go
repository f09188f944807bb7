package np

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cc/cctest"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// expressPassReceiver builds a receiver from the paper's config at 100 Gb/s, changed by
// edit.
func expressPassReceiver(t testing.TB, edit func(c *ExpressPassConfig)) *ExpressPass {
	t.Helper()
	c := ExpressPassPaper(100 * units.Gbps)
	if edit != nil {
		edit(&c)
	}
	r, err := NewExpressPass(c)
	require.NoError(t, err)
	return r
}

// expressPassFrame is a data frame of size bytes on the wire whose header echoes
// credit echo.
func expressPassFrame(echo uint64, size units.Bytes) *cc.Packet {
	p := &cc.Packet{Size: size}
	wire.PutExpressPassEcho(&p.Hdr, echo)
	return p
}

// expressPassCreditOf returns the credit in the single action of act.
func expressPassCreditOf(t *testing.T, act *cc.Actions) cc.Feedback {
	t.Helper()
	require.Equal(t, 1, act.Len())
	a := act.At(0)
	require.Equal(t, cc.ActionFeedback, a.Kind)
	require.Equal(t, cc.ToSource, a.To)
	require.Equal(t, cc.ControlPrio, a.Prio)
	require.Equal(t, cc.FeedbackCredit, a.Feedback.Kind)
	return a.Feedback
}

// The largest credit rate and the credit interval in closed form: at
// 100 Gb/s, max_rate = 100e9·84/1622 = 5,178,791,615 bit/s (rounded down),
// the initial rate α·max_rate with α = 1/16 is 323,674,475 bit/s (Q16
// floor), and an 84 B credit every 672 bit/323,674,475 bit/s = 2,076,160.6 ps
// → 2,076,161 ps (rounded up). Without jitter the credits leave exactly one
// interval apart, with sequence numbers 1, 2, 3, ...
func TestExpressPassPacingClosedForm(t *testing.T) {
	r := expressPassReceiver(t, func(c *ExpressPassConfig) { c.JitterMin, c.JitterMax = 0, 0 })
	require.Equal(t, units.Rate(5_178_791_615), r.MaxRate())
	require.Equal(t, units.Rate(100_000_000_000*84/1622), r.MaxRate())
	// One credit per 10 µs update period: 672 bit/10 µs = 67.2 Mb/s.
	require.Equal(t, units.Rate(67_200_000), r.MinRate())
	require.Equal(t, units.MaxTime, r.NextDeadline(), "idle")

	act := cc.NewActions(1)
	require.NoError(t, r.Feedback(1000, &cc.Feedback{Kind: cc.FeedbackCreditRequest, Flow: 7}, act))
	fb := expressPassCreditOf(t, act)
	// Data: the credit's wire image (wire.ExpressPassPacket): type 3, version 1,
	// flow 7, seq 1, sent at 1000 ps = 1 ns.
	require.Equal(t, cc.Feedback{Kind: cc.FeedbackCredit, Flow: 7, Seq: 1,
		Data: [16]byte{3, 1, 0, 0, 0, 0, 0, 7, 0, 0, 0, 1, 0, 0, 0, 1}}, fb)
	s := r.State()
	require.Equal(t, units.Rate(5_178_791_615*4096>>16), s.Rate)
	require.Equal(t, units.Rate(323_674_475), s.Rate)
	want := units.Time(math.Ceil(672e12 / 323_674_475.0))
	require.Equal(t, units.Time(2_076_161), want)
	require.Equal(t, want, s.Interval)
	require.Equal(t, 1000+want, r.NextDeadline())
	for i := 2; i < 50; i++ {
		d := r.NextDeadline()
		act.Reset()
		require.NoError(t, r.Timer(d-1, act), "early: nothing")
		require.Zero(t, act.Len())
		require.NoError(t, r.Timer(d, act))
		require.Equal(t, uint64(i), expressPassCreditOf(t, act).Seq)
		require.Equal(t, d+want, r.NextDeadline())
	}
	// A timer five intervals late sends the six credits due (rule 4),
	// numbered on, each stamped with its own deadline (whole ns of
	// d + k·want), and the next is due one interval after the last.
	d := r.NextDeadline()
	seq := r.State().Seq
	late := cc.NewActions(8)
	require.NoError(t, r.Timer(d+5*want, late))
	require.Equal(t, 6, late.Len(), "every credit due, none skipped")
	for k, a := range late.All() {
		at := d + units.Time(k)*want
		want := cc.Feedback{Kind: cc.FeedbackCredit, Flow: 7, Seq: uint64(seq) + uint64(k)}
		img, err := wire.ExpressPassPacket{Type: wire.ExpressPassTypeCredit, Flow: 7, Seq: seq + uint32(k), TS: uint32(at / units.Nanosecond)}.Encode()
		require.NoError(t, err)
		copy(want.Data[:], img[:])
		require.Equal(t, want, a.Feedback, "credit %d", k)
	}
	require.Equal(t, d+6*want, r.NextDeadline())
	// Less than a gap late keeps the phase.
	d = r.NextDeadline()
	act.Reset()
	require.NoError(t, r.Timer(d+want/2, act))
	require.Equal(t, d+want, r.NextDeadline())
}

// With the paper's jitter ±0.1 every gap lies in [0.9, 1.1]·interval
// (within the Q16 rounding), they average to the interval, and two
// receivers of different seeds draw different gaps.
func TestExpressPassPacingJitter(t *testing.T) {
	gaps := func(seed uint32) []units.Time {
		r := expressPassReceiver(t, func(c *ExpressPassConfig) { c.Seed = seed })
		act := cc.NewActions(1)
		require.NoError(t, r.Feedback(0, &cc.Feedback{Kind: cc.FeedbackCreditRequest}, act))
		var out []units.Time
		prev := units.Time(0)
		for range 4000 {
			d := r.NextDeadline()
			out = append(out, d-prev)
			prev = d
			act.Reset()
			require.NoError(t, r.Timer(d, act))
		}
		return out
	}
	iv := 2_076_161.0
	a := gaps(1)
	sum := 0.0
	for _, g := range a {
		require.GreaterOrEqual(t, float64(g), math.Floor(iv*0.9)-1)
		require.LessOrEqual(t, float64(g), iv*1.1)
		sum += float64(g)
	}
	require.InDelta(t, iv, sum/float64(len(a)), iv*0.005, "mean gap")
	require.NotEqual(t, a, gaps(2))
	require.Equal(t, a, gaps(1), "deterministic")
}

// expressPassRef is the float64 reference of Algorithm 1 with the configuration's
// constants as the receiver holds them (Q16), clamped as the receiver is.
type expressPassRef struct {
	rate, w                     float64
	inc                         bool
	max, min, wMax, wMin, tLoss float64
}

func (m *expressPassRef) update(total, dropped uint32) {
	loss := float64(dropped) / float64(total)
	if loss <= m.tLoss {
		if m.inc {
			m.w = (m.w + m.wMax) / 2
		}
		m.rate = (1-m.w)*m.rate + m.w*m.max*(1+m.tLoss)
		m.inc = true
	} else {
		m.rate = m.rate * (1 - loss) * (1 + m.tLoss)
		m.w = math.Max(m.w/2, m.wMin)
		m.inc = false
	}
	m.rate = math.Min(math.Max(m.rate, m.min), m.max)
}

// Algorithm 1 in fixed point against the float64 reference over random
// loss sequences (each period's loss random, sometimes none, sometimes
// total, sometimes at the target): the rate stays within 10^-4 of max_rate
// and w within 2^-15 of the reference, period after period, and both take
// the same branch every time. (The error is dominated by w's Q16 floor in
// w = (w + w_max)/2: 2^-16 of w moves the increase by 2^-16 of
// max_rate·(1 + target_loss); decreases and later increases shrink it.)
func TestExpressPassAlgorithm1Reference(t *testing.T) {
	q := func(f float64) float64 { return float64(expressPassQ16(f)) / 65536 }
	rng := rand.New(rand.NewPCG(1, 2))
	worst := 0.0
	for seq := range 300 {
		r := expressPassReceiver(t, nil)
		s := r.s
		r.start(&s, 0, 0)
		m := expressPassRef{rate: float64(s.Rate), w: q(1.0 / 16), max: float64(r.maxRate), min: float64(r.minRate),
			wMax: q(0.5), wMin: q(0.01), tLoss: q(0.125)}
		for p := range 200 {
			total := uint32(1 + rng.IntN(1000))
			var dropped uint32
			switch rng.IntN(5) {
			case 0: // none
			case 1:
				dropped = total
			case 2:
				dropped = total / 8 // at or just below the target
			default:
				dropped = uint32(rng.IntN(int(total) + 1))
			}
			s.Total, s.Dropped = total, dropped
			r.update(&s)
			m.update(total, dropped)
			require.Equal(t, m.inc, s.Increased, "sequence %d period %d: branch", seq, p)
			diff := math.Abs(float64(s.Rate) - m.rate)
			require.LessOrEqual(t, diff, 1e-4*m.max, "sequence %d period %d: rate %v, reference %.1f", seq, p, s.Rate, m.rate)
			worst = math.Max(worst, diff/m.max)
			require.InDelta(t, m.w, float64(s.W)/65536, 1.0/32768, "sequence %d period %d: w", seq, p)
			require.True(t, s.Rate >= r.MinRate() && s.Rate <= r.MaxRate())
		}
	}
	t.Logf("largest rate error %.3g of max_rate", worst)
}

// Loss from echoes: gaps are lost credits, late and duplicate echoes are
// stale, echo 0 is unechoed, and an echo beyond the space, or a header
// with a reserved byte set, is refused.
func TestExpressPassEchoLoss(t *testing.T) {
	r := expressPassReceiver(t, nil)
	act := cc.NewActions(1)
	require.NoError(t, r.Feedback(0, &cc.Feedback{Kind: cc.FeedbackCreditRequest}, act))
	now := units.Time(1)
	recv := func(echo uint64) {
		now++
		require.NoError(t, r.Receive(now, expressPassFrame(echo, 1538), act))
	}
	for _, e := range []uint64{1, 2, 5, 6, 4, 6, 0, 10} {
		recv(e)
	}
	s := r.State()
	// 1, 2 in order; 5 skips 3, 4; 6; 4 and 6 again are stale; 0 unechoed;
	// 10 skips 7, 8, 9.
	require.Equal(t, uint64(5), s.Lost)
	require.Equal(t, uint32(5), s.Dropped)
	require.Equal(t, uint32(10), s.Total, "credits 1..10 accounted for")
	require.Equal(t, uint64(2), s.Stale)
	require.Equal(t, uint64(1), s.Unechoed)
	require.Equal(t, uint64(5), s.Echoes)
	require.Equal(t, uint32(11), s.Expect)
	before := r.AppendRegisters(nil)
	err := r.Receive(now, expressPassFrame(1<<32, 0), act)
	require.ErrorIs(t, err, cc.ErrEvent)
	require.Equal(t, before, r.AppendRegisters(nil))
	// Echo 11 would be progress; with a reserved byte set it is not read.
	bad := expressPassFrame(11, 1538)
	bad.Hdr[12] = 0x40
	err = r.Receive(now, bad, act)
	require.ErrorIs(t, err, cc.ErrEvent)
	require.ErrorIs(t, err, cc.ErrDecode)
	var de *cc.DecodeError
	require.ErrorAs(t, err, &de)
	require.Equal(t, 12, de.Offset)
	require.Equal(t, before, r.AppendRegisters(nil))
	require.ErrorIs(t, r.Receive(now, nil, act), cc.ErrEvent)
	require.Zero(t, act.Len()-1, "Receive decides nothing")
}

// The sequence space wraps from 2^bits − 1 to 1, skipping 0, at the
// receiver (credits) and across the gap count (echoes): with 8-bit
// sequence numbers the 255th credit is 255 and the 256th is 1, and an echo
// of 2 after 254 shows 255 and 1 lost.
func TestExpressPassSeqWrap(t *testing.T) {
	r := expressPassReceiver(t, func(c *ExpressPassConfig) { c.SeqBits = 8 })
	act := cc.NewActions(1)
	require.NoError(t, r.Feedback(0, &cc.Feedback{Kind: cc.FeedbackCreditRequest}, act))
	var seqs []uint64
	seqs = append(seqs, expressPassCreditOf(t, act).Seq)
	for range 300 {
		act.Reset()
		require.NoError(t, r.Timer(r.NextDeadline(), act))
		seqs = append(seqs, expressPassCreditOf(t, act).Seq)
	}
	require.Equal(t, uint64(255), seqs[254])
	require.Equal(t, uint64(1), seqs[255])
	require.Equal(t, uint64(2), seqs[256])
	for _, s := range seqs {
		require.NotZero(t, s)
	}
	now := r.Last()
	for e := uint64(1); e <= 254; e++ {
		require.NoError(t, r.Receive(now, expressPassFrame(e, 0), act))
	}
	lost := r.State().Lost
	require.NoError(t, r.Receive(now, expressPassFrame(2, 0), act))
	require.Equal(t, lost+2, r.State().Lost, "255 and 1 lost across the wrap")
	require.Equal(t, uint32(3), r.State().Expect)
	require.ErrorIs(t, r.Receive(now, expressPassFrame(256, 0), act), cc.ErrEvent)

	// The distance in the ring, exhaustively for 8 bits.
	for e := uint64(1); e <= 255; e++ {
		for s := uint64(1); s <= 255; s++ {
			d := expressPassSeqDist(e, s, 255)
			x := e
			for range d {
				x = expressPassSeqNext(x, 255)
			}
			require.Equal(t, s, x, "e %d s %d", e, s)
		}
	}
}

// A stop idles the receiver; a request restarts it at the initial rate
// with the sequence continuing and the loss count restarted (the old
// credits' echoes are stale, not lost); other kinds change nothing but the
// time; a nil message is refused.
func TestExpressPassReceiverStartStop(t *testing.T) {
	r := expressPassReceiver(t, nil)
	act := cc.NewActions(1)
	require.NoError(t, r.Feedback(0, &cc.Feedback{Kind: cc.FeedbackCreditRequest, Flow: 3}, act))
	for range 9 {
		act.Reset()
		require.NoError(t, r.Timer(r.NextDeadline(), act))
	}
	act.Reset()
	now := r.Last()
	require.NoError(t, r.Feedback(now, &cc.Feedback{Kind: cc.FeedbackCreditRequest, Flow: 3}, act), "request while active")
	require.Zero(t, act.Len())
	require.NoError(t, r.Feedback(now, &cc.Feedback{Kind: cc.FeedbackCreditStop}, act))
	require.Equal(t, units.MaxTime, r.NextDeadline())
	require.NoError(t, r.Timer(now+units.Millisecond, act))
	require.Zero(t, act.Len())
	before := r.AppendRegisters(nil)
	for _, k := range []cc.FeedbackKind{cc.FeedbackAck, cc.FeedbackCNP, cc.FeedbackCredit, cc.FeedbackCreditStop, 200} {
		require.NoError(t, r.Feedback(now+units.Millisecond, &cc.Feedback{Kind: k}, act))
	}
	after := r.AppendRegisters(nil)
	n := len(after) - 1
	require.Equal(t, before[1:n], after[1:n])
	require.Equal(t, cc.Reg(cc.UnusedRegister, 64, 4), after[n], "ACK, CNP, credit and kind 200 unused; the stop is used")
	require.ErrorIs(t, r.Feedback(now+units.Millisecond, nil, act), cc.ErrEvent)
	require.NoError(t, r.Feedback(now+units.Millisecond, &cc.Feedback{Kind: cc.FeedbackCreditRequest, Flow: 4}, act))
	fb := expressPassCreditOf(t, act)
	ts := uint32((now + units.Millisecond) / units.Nanosecond)
	require.Equal(t, cc.Feedback{Kind: cc.FeedbackCredit, Flow: 4, Seq: 11,
		Data: [16]byte{3, 1, 0, 0, 0, 0, 0, 4, 0, 0, 0, 11, byte(ts >> 24), byte(ts >> 16), byte(ts >> 8), byte(ts)}}, fb)
	require.NoError(t, r.Receive(now+units.Millisecond, expressPassFrame(5, 0), act))
	require.Equal(t, uint64(1), r.State().Stale)
	require.Zero(t, r.State().Lost)
}

// An Actions without room fails an event whose credit is due and changes
// nothing; the same event with room then succeeds.
func TestExpressPassReceiverActionsFull(t *testing.T) {
	r := expressPassReceiver(t, nil)
	before := r.AppendRegisters(nil)
	req := &cc.Feedback{Kind: cc.FeedbackCreditRequest}
	require.ErrorIs(t, r.Feedback(5, req, cc.NewActions(0)), cc.ErrActionsFull)
	require.ErrorIs(t, r.Feedback(5, req, nil), cc.ErrNoActions)
	require.Equal(t, before, r.AppendRegisters(nil))
	act := cc.NewActions(1)
	require.NoError(t, r.Feedback(5, req, act))
	d := r.NextDeadline()
	before = r.AppendRegisters(nil)
	require.ErrorIs(t, r.Timer(d, act), cc.ErrActionsFull)
	require.Equal(t, before, r.AppendRegisters(nil))
}

// Configuration errors name the field.
func TestExpressPassConfigErrors(t *testing.T) {
	for field, edit := range map[string]func(c *ExpressPassConfig){
		"Link":         func(c *ExpressPassConfig) { c.Link = 0 },
		"CreditBytes":  func(c *ExpressPassConfig) { c.CreditBytes = 2000 },
		"FrameBytes":   func(c *ExpressPassConfig) { c.FrameBytes = 1 << 20 },
		"Alpha":        func(c *ExpressPassConfig) { c.Alpha = math.NaN() },
		"WMax":         func(c *ExpressPassConfig) { c.WMax = 1 },
		"WMin":         func(c *ExpressPassConfig) { c.WMin = 0.6 },
		"WInit":        func(c *ExpressPassConfig) { c.WInit = 0.001 },
		"TargetLoss":   func(c *ExpressPassConfig) { c.TargetLoss = -1 },
		"UpdatePeriod": func(c *ExpressPassConfig) { c.UpdatePeriod = 0 },
		"JitterMin":    func(c *ExpressPassConfig) { c.JitterMin = 0.1 },
		"JitterMax":    func(c *ExpressPassConfig) { c.JitterMax = 0.6 },
		"Seed":         func(c *ExpressPassConfig) { c.Seed = 0 },
		"SeqBits":      func(c *ExpressPassConfig) { c.SeqBits = 33 },
	} {
		c := ExpressPassPaper(100 * units.Gbps)
		edit(&c)
		_, err := NewExpressPass(c)
		var ce *cc.ConfigError
		require.ErrorAs(t, err, &ce, field)
		require.Equal(t, field, ce.Field)
	}
}

// The conformance suite over the receiver, with 32-bit and 8-bit sequence
// numbers; at least 3/4 of the events are taken and credits are sent.
func TestExpressPassContract(t *testing.T) {
	var o cctest.Options
	if testing.Short() {
		o.Sequences, o.Chaos, o.AllocSequences = 6, 12, 1
	}
	for _, bits := range []uint8{32, 8} {
		st, err := cctest.TestStats(func() (cc.Part, error) {
			c := ExpressPassPaper(100 * units.Gbps)
			c.SeqBits = bits
			return NewExpressPass(c)
		}, o)
		require.NoError(t, err)
		require.Positive(t, st.Actions[cc.ActionFeedback], "credits sent")
		require.Greater(t, st.Accepted, st.Calls*3/4, "%v", st.Refused)
	}
}

// Zero allocations per event, and for AppendRegisters with room.
func TestExpressPassNoAllocs(t *testing.T) {
	r := expressPassReceiver(t, nil)
	act := cc.NewActions(4)
	require.NoError(t, r.Feedback(0, &cc.Feedback{Kind: cc.FeedbackCreditRequest}, act))
	p := cc.Packet{Payload: 1000, Size: 1082}
	regs := make([]cc.Register, 0, 64)
	require.Zero(t, testing.AllocsPerRun(1000, func() {
		act.Reset()
		now := r.NextDeadline()
		_ = r.Timer(now, act)
		wire.PutExpressPassEcho(&p.Hdr, act.At(0).Feedback.Seq)
		_ = r.Receive(now, &p, act)
		regs = r.AppendRegisters(regs[:0])
	}))
	require.Positive(t, r.State().Echoes)
}

// TestExpressPassLateTimer: a receiver whose timer is left to the next
// event ends equal to one whose timer is called at every deadline,
// registers and decisions, across updates of Algorithm 1 (rule 4): both
// take the same echoes, one has its credits sent at their deadlines, the
// other only when each echo arrives, some milliseconds late. Room for all
// but one of the credits due refuses the event whole.
func TestExpressPassLateTimer(t *testing.T) {
	onTime, late := expressPassReceiver(t, nil), expressPassReceiver(t, nil)
	act := cc.NewActions(1 << 12)
	var made, lateMade []cc.Action
	req := cc.Feedback{Kind: cc.FeedbackCreditRequest, Flow: 3}
	require.NoError(t, onTime.Feedback(0, &req, act))
	made = append(made, act.All()...)
	act.Reset()
	require.NoError(t, late.Feedback(0, &req, act))
	lateMade = append(lateMade, act.All()...)
	echo := uint64(0)
	for i := 1; i <= 20; i++ {
		at := units.Time(i) * 300 * units.Microsecond
		for onTime.NextDeadline() <= at {
			act.Reset()
			require.NoError(t, onTime.Timer(onTime.NextDeadline(), act))
			made = append(made, act.All()...)
		}
		echo += 3 // every third credit comes back: loss, then decreases
		p := expressPassFrame(echo, 1538)
		act.Reset()
		require.NoError(t, onTime.Receive(at, p, act))
		made = append(made, act.All()...)
		act.Reset()
		require.NoError(t, late.Receive(at, expressPassFrame(echo, 1538), act))
		lateMade = append(lateMade, act.All()...)
		require.Equal(t, onTime.AppendRegisters(nil), late.AppendRegisters(nil), "echo %d", i)
	}
	require.Equal(t, made, lateMade)
	require.Positive(t, late.State().Updates)

	x := expressPassReceiver(t, nil)
	act.Reset()
	require.NoError(t, x.Feedback(0, &req, act))
	// The gaps are random: count the credits due by 50 µs on a twin.
	twin := expressPassReceiver(t, nil)
	act.Reset()
	require.NoError(t, twin.Feedback(0, &req, act))
	due := 0
	for twin.NextDeadline() <= 50*units.Microsecond {
		act.Reset()
		require.NoError(t, twin.Timer(twin.NextDeadline(), act))
		due++
	}
	require.Greater(t, due, 1)
	before := x.AppendRegisters(nil)
	full := cc.NewActions(due - 1)
	err := x.Receive(50*units.Microsecond, expressPassFrame(1, 1538), full)
	var afe *cc.ActionsFullError
	require.ErrorAs(t, err, &afe)
	require.Equal(t, due, afe.Need)
	require.Zero(t, full.Len(), "the credits that fitted are taken back")
	require.Equal(t, before, x.AppendRegisters(nil))
	require.ErrorIs(t, x.Receive(50*units.Microsecond, expressPassFrame(1, 1538), nil), cc.ErrNoActions)
	require.ErrorIs(t, x.Timer(50*units.Microsecond, nil), cc.ErrNoActions)
}
