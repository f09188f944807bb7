package rp_test

import (
	"errors"
	"math"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
)

const timelyUs = units.Microsecond

func timelyNewRP(t testing.TB, c rp.TIMELYConfig) *rp.TIMELY {
	t.Helper()
	r, err := rp.NewTIMELY(c)
	require.NoError(t, err)
	return r
}

func timelySend(t testing.TB, r *rp.TIMELY, now units.Time, seq uint64, n units.Bytes) {
	t.Helper()
	require.NoError(t, r.Sent(now, &cc.Packet{Seq: seq, Payload: n, Size: n + 82}, nil))
}

func timelyAck(t testing.TB, r *rp.TIMELY, now units.Time, seq uint64) {
	t.Helper()
	require.NoError(t, r.Feedback(now, &cc.Feedback{Kind: cc.FeedbackAck, Seq: seq}, nil))
}

// The paper's preset holds the constants the doc cites.
func TestTIMELYPaperPreset(t *testing.T) {
	c := rp.TIMELYPaper(10 * units.Gbps)
	require.Equal(t, rp.TIMELYConfig{
		LineRate: 10 * units.Gbps, MinRate: 10 * units.Mbps, InitialRate: 10 * units.Gbps,
		Tlow: 50 * timelyUs, Thigh: 500 * timelyUs, MinRTT: 20 * timelyUs, Alpha: 0.875, Beta: 0.8, Delta: 10 * units.Mbps,
		HAIThreshold: 5, HAIFactor: 5, SegmentBytes: 16384, Sample: rp.TIMELYSampleLast, SubtractSerialization: true,
	}, c)
	require.NoError(t, c.Validate())
	s := rp.TIMELYScaled(100 * units.Gbps)
	require.Equal(t, 100*units.Mbps, s.Delta, "10 Mb/s per 10 Gb/s")
	require.Equal(t, 100*units.Mbps, s.MinRate)
	require.Equal(t, c.Thigh, s.Thigh)
	require.NoError(t, s.Validate())
	for _, link := range []units.Rate{units.Mbps, 3 * units.Mbps, 25 * units.Gbps, rp.TIMELYMaxRate} {
		require.NoError(t, rp.TIMELYPaper(link).Validate(), "%v", link)
		require.NoError(t, rp.TIMELYScaled(link).Validate(), "%v", link)
	}
	r := timelyNewRP(t, c)
	require.Equal(t, cc.Limits{Rate: 10 * units.Gbps}, r.Limits(), "starts at line rate, no window")
	require.Equal(t, units.MaxTime, r.NextDeadline())
}

func TestTIMELYConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		field string
		edit  func(*rp.TIMELYConfig)
	}{
		{"LineRate", func(c *rp.TIMELYConfig) { c.LineRate = units.Mbps - 1 }},
		{"LineRate", func(c *rp.TIMELYConfig) { c.LineRate = rp.TIMELYMaxRate + 1 }},
		{"MinRate", func(c *rp.TIMELYConfig) { c.MinRate = 999 }},
		{"MinRate", func(c *rp.TIMELYConfig) { c.MinRate = c.LineRate + 1 }},
		{"InitialRate", func(c *rp.TIMELYConfig) { c.InitialRate = c.MinRate - 1 }},
		{"Thigh", func(c *rp.TIMELYConfig) { c.Thigh = 0 }},
		{"Thigh", func(c *rp.TIMELYConfig) { c.Thigh = rp.TIMELYMaxRTT + 1 }},
		{"Tlow", func(c *rp.TIMELYConfig) { c.Tlow = c.Thigh + 1 }},
		{"Tlow", func(c *rp.TIMELYConfig) { c.Tlow = -1 }},
		{"MinRTT", func(c *rp.TIMELYConfig) { c.MinRTT = 999 * units.Nanosecond }},
		{"MinRTT", func(c *rp.TIMELYConfig) { c.MinRTT = 2 * units.Second }},
		{"Alpha", func(c *rp.TIMELYConfig) { c.Alpha = 0 }},
		{"Alpha", func(c *rp.TIMELYConfig) { c.Alpha = math.NaN() }},
		{"Alpha", func(c *rp.TIMELYConfig) { c.Alpha = 1.01 }},
		{"Beta", func(c *rp.TIMELYConfig) { c.Beta = 0.0009 }},
		{"Beta", func(c *rp.TIMELYConfig) { c.Beta = math.Inf(1) }},
		{"Delta", func(c *rp.TIMELYConfig) { c.Delta = 0 }},
		{"Delta", func(c *rp.TIMELYConfig) { c.Delta = c.LineRate + 1 }},
		{"HAIThreshold", func(c *rp.TIMELYConfig) { c.HAIThreshold = 0 }},
		{"HAIThreshold", func(c *rp.TIMELYConfig) { c.HAIThreshold = 256 }},
		{"HAIFactor", func(c *rp.TIMELYConfig) { c.HAIFactor = 0 }},
		{"SegmentBytes", func(c *rp.TIMELYConfig) { c.SegmentBytes = 0 }},
		{"SegmentBytes", func(c *rp.TIMELYConfig) { c.SegmentBytes = rp.TIMELYMaxSegment + 1 }},
		{"Sample", func(c *rp.TIMELYConfig) { c.Sample = 2 }},
	} {
		c := rp.TIMELYPaper(10 * units.Gbps)
		tc.edit(&c)
		_, err := rp.NewTIMELY(c)
		var ce *cc.ConfigError
		require.ErrorAs(t, err, &ce, tc.field)
		require.ErrorIs(t, err, cc.ErrConfig)
		require.Equal(t, tc.field, ce.Field)
		require.NotEmpty(t, ce.Range)
	}
	// The edges are accepted.
	c := rp.TIMELYPaper(10 * units.Gbps)
	c.Alpha, c.Beta, c.Tlow, c.MinRTT, c.SegmentBytes, c.HAIThreshold = 1.0/65536, rp.TIMELYMinBeta, 0, rp.TIMELYMinMinRTT, 1, 255
	require.NoError(t, c.Validate())
	c.Alpha, c.Beta, c.Tlow, c.Thigh, c.MinRTT, c.SegmentBytes = 1, 1, rp.TIMELYMaxRTT, rp.TIMELYMaxRTT, rp.TIMELYMaxMinRTT, rp.TIMELYMaxSegment
	require.NoError(t, c.Validate())
}

// The RTT of a segment is the time from its send to the ACK that
// completes it: sent at t, acknowledged at t + x, the sample is x (without
// serialisation), x − S·8/C with the paper's subtraction (section 3.1's
// equation; 16 KiB at 10 Gb/s is 13.1072 µs), and from the last packet's
// start minus its own serialisation with SampleLast.
func TestTIMELYRTTFromAck(t *testing.T) {
	const t0 = 100 * timelyUs
	const x = 37*timelyUs + 123*units.Nanosecond
	for _, tc := range []struct {
		name   string
		sample rp.TIMELYSample
		sub    bool
		want   units.Time
		reg    uint32 // the register: whole ns, serialisation floored
	}{
		// 16 packets of 1024 B, one every 1 µs from t0: the last starts at
		// t0 + 15 µs. The serialisation in whole ns is floored, 0.8 ns/B
		// held as 52429/2^16: ⌊16384·52429/2^16⌋ = 13107 (of 13107.2) and
		// ⌊1024·52429/2^16⌋ = 819 (of 819.2), so the register is 0.2 ns
		// above the exact sample: 37123 − 13107 = 24016 (exact 24015.8),
		// 22123 − 819 = 21304 (exact 21303.8).
		{"first, plain", rp.TIMELYSampleFirst, false, x, 37123},
		{"first, serialisation", rp.TIMELYSampleFirst, true, x - 13107200*units.Picosecond, 24016},
		{"last, plain", rp.TIMELYSampleLast, false, x - 15*timelyUs, 22123},
		{"last, serialisation", rp.TIMELYSampleLast, true, x - 15*timelyUs - 819200*units.Picosecond, 21304},
	} {
		c := rp.TIMELYPaper(10 * units.Gbps)
		c.Sample, c.SubtractSerialization = tc.sample, tc.sub
		r := timelyNewRP(t, c)
		for i := range 16 {
			timelySend(t, r, t0+units.Time(i)*timelyUs, uint64(i)*1024, 1024)
		}
		timelyAck(t, r, t0+x-units.Nanosecond, 16383) // one byte short: no completion
		require.False(t, r.State().Started, tc.name)
		timelyAck(t, r, t0+x, 16384)
		s := r.State()
		require.True(t, s.Started, tc.name)
		require.Equal(t, uint64(1), s.Samples)
		// The sample is in whole ns, within 1 ns of the exact one.
		want := int64(tc.want / units.Nanosecond)
		require.InDelta(t, want, int64(s.PrevRTT), 1, "%s: %d ns", tc.name, s.PrevRTT)
		require.Equal(t, tc.reg, s.PrevRTT, tc.name)
		require.Zero(t, s.Len, "the ring is empty again")
	}
}

// A segment sent as a line-rate burst gives the same sample either way
// (SampleLast leaves out only the per-packet overhead's serialisation,
// here none: packets start back to back at payload time).
func TestTIMELYSampleFirstEqualsLastForBurst(t *testing.T) {
	for _, s := range []rp.TIMELYSample{rp.TIMELYSampleFirst, rp.TIMELYSampleLast} {
		c := rp.TIMELYPaper(10 * units.Gbps)
		c.Sample = s
		r := timelyNewRP(t, c)
		// 1024 B at 10 Gb/s is 819.2 ns: 16 packets back to back.
		for i := range 16 {
			timelySend(t, r, units.Time(i)*819200*units.Picosecond, uint64(i)*1024, 1024)
		}
		timelyAck(t, r, 40*timelyUs, 16384)
		// 40 µs − 16384·0.8 ns = 26.8928 µs.
		require.InDelta(t, 26892, int64(r.State().PrevRTT), 1, "%v", s)
	}
}

// Segment bookkeeping: one entry per segment, opened by the packet that
// carries its first byte; a packet that crosses a boundary is the last of
// one segment and the first of the next; retransmissions and empty
// packets do nothing; a cumulative ACK over several segments is one
// sample, the newest's; a full ring drops new segments; a NAK discards
// the ring.
func TestTIMELYSegments(t *testing.T) {
	c := rp.TIMELYPaper(10 * units.Gbps)
	c.SegmentBytes, c.Sample, c.SubtractSerialization = 1000, rp.TIMELYSampleFirst, false
	r := timelyNewRP(t, c)
	timelySend(t, r, 0, 0, 600)
	timelySend(t, r, 1*timelyUs, 600, 600) // crosses 1000
	s := r.State()
	require.Equal(t, uint8(2), s.Len)
	require.Equal(t, rp.TIMELYSegment{End: 1000, First: 0, Last: timelyUs, Bytes: 1200, LastBytes: 600}, s.Ring[0])
	require.Equal(t, rp.TIMELYSegment{End: 2000, First: timelyUs, Last: timelyUs, Bytes: 600, LastBytes: 600}, s.Ring[1])
	timelySend(t, r, 2*timelyUs, 0, 600)  // a retransmission
	timelySend(t, r, 2*timelyUs, 1200, 0) // empty
	require.Equal(t, s.Ring, r.State().Ring)
	timelySend(t, r, 3*timelyUs, 1200, 800) // ends [1000, 2000)
	timelySend(t, r, 4*timelyUs, 2000, 1000)
	timelySend(t, r, 5*timelyUs, 3000, 1000)
	require.Equal(t, uint8(4), r.State().Len)
	// One ACK completes all four: one sample, the newest's (sent at 5 µs).
	timelyAck(t, r, 30*timelyUs, 4000)
	s = r.State()
	require.Equal(t, uint64(1), s.Samples)
	require.Equal(t, uint32(25000), s.PrevRTT)
	require.False(t, s.Recording)
	require.Zero(t, s.Len)

	// SampleLast: the segment's last packet is the one crossing its end.
	c.Sample = rp.TIMELYSampleLast
	r = timelyNewRP(t, c)
	timelySend(t, r, 0, 0, 600)
	timelySend(t, r, 1*timelyUs, 600, 600)
	timelyAck(t, r, 20*timelyUs, 1200)
	require.Equal(t, uint32(19000), r.State().PrevRTT)
	// A packet covering whole segments merges them into one.
	timelySend(t, r, 21*timelyUs, 1200, 3500) // [1200, 4700): [1000, 2000) ends, [2000, 5000) opens
	s = r.State()
	require.Equal(t, uint8(2), s.Len)
	require.Equal(t, uint64(2000), s.Ring[s.Head].End)
	require.Equal(t, uint64(5000), s.Ring[(s.Head+1)%rp.TIMELYRingSize].End)
	timelyAck(t, r, 22*timelyUs, 4700)
	s = r.State()
	require.Equal(t, uint64(2), s.Samples, "[1000, 2000) completes")
	require.Equal(t, uint32(1000), s.PrevRTT, "from the big packet's start")
	require.Equal(t, uint8(1), s.Len, "[2000, 5000) does not")
	c.Sample = rp.TIMELYSampleFirst

	// A gap in the sequence opens a segment at the packet's own boundary.
	timelySend(t, r, 31*timelyUs, 7500, 100)
	s = r.State()
	require.Equal(t, uint64(8000), s.Ring[(s.Head+s.Len-1)%rp.TIMELYRingSize].End)

	// Ring full: 16 recorded, the rest dropped until a completion.
	r = timelyNewRP(t, c)
	for i := range rp.TIMELYRingSize + 4 {
		timelySend(t, r, units.Time(i)*timelyUs, uint64(i)*1000, 1000)
	}
	s = r.State()
	require.Equal(t, uint8(rp.TIMELYRingSize), s.Len)
	require.Equal(t, uint64(4), s.Dropped)
	require.False(t, s.Recording)
	timelyAck(t, r, 50*timelyUs, 1000)
	require.Equal(t, uint32(50000), r.State().PrevRTT, "the oldest segment, sent at 0")
	timelySend(t, r, 51*timelyUs, 20000, 500) // a new segment finds room
	s = r.State()
	require.True(t, s.Recording)
	require.Equal(t, uint8(rp.TIMELYRingSize), s.Len)
	timelyAck(t, r, 60*timelyUs, 20000) // the 15 recorded segments, the newest sent at 15 µs; the dropped ones add nothing
	require.Equal(t, uint32(45000), r.State().PrevRTT)
	require.Equal(t, uint8(1), r.State().Len)

	// A NAK discards every entry (Karn): the resent data gives no sample.
	require.NoError(t, r.Feedback(61*timelyUs, &cc.Feedback{Kind: cc.FeedbackNak, Seq: 20000}, nil))
	s = r.State()
	require.Zero(t, s.Len)
	require.Equal(t, uint64(1), s.Discarded)
	timelySend(t, r, 62*timelyUs, 20000, 500) // the retransmission
	timelyAck(t, r, 70*timelyUs, 20500)
	require.Equal(t, uint64(2), r.State().Samples, "no sample from the discarded segment")
	timelySend(t, r, 71*timelyUs, 20500, 500) // new data in the same segment: still not recorded
	require.Zero(t, r.State().Len)
	timelySend(t, r, 72*timelyUs, 21000, 500) // the next segment is
	require.Equal(t, uint8(1), r.State().Len)
}

// Kinds TIMELY does not use change nothing but the time; nil and ACKs of
// data never sent are refused and change nothing; time order is checked
// first by every event.
func TestTIMELYFeedbackKindsAndRefusals(t *testing.T) {
	r := timelyNewRP(t, rp.TIMELYPaper(10*units.Gbps))
	timelySend(t, r, 0, 0, 5000)
	before := r.State()
	regs := r.AppendRegisters(nil)
	for i, f := range []*cc.Feedback{{Kind: cc.FeedbackCNP}, {Kind: cc.FeedbackRate, Seq: 1 << 40}, {Kind: cc.FeedbackCredit}, {Kind: cc.FeedbackUser}, {}} {
		// A kind TIMELY does not use is counted (cc rule 8) and changes
		// nothing else but the time.
		require.NoError(t, r.Feedback(2*timelyUs, f, nil))
		after := r.State()
		require.Equal(t, uint64(i+1), after.Unused.N(), "%v", f.Kind)
		after.Unused = before.Unused
		require.Equal(t, before, after, "%v", f.Kind)
		now := r.AppendRegisters(nil)
		require.Equal(t, cc.Reg(cc.UnusedRegister, 64, uint64(i+1)), now[len(now)-1])
	}
	require.NotEqual(t, regs, r.AppendRegisters(nil), "the time moved")
	regs = r.AppendRegisters(nil)
	for _, ev := range []func() error{
		func() error { return r.Feedback(3*timelyUs, nil, nil) },
		func() error { return r.Sent(3*timelyUs, nil, nil) },
		func() error { return r.Sent(3*timelyUs, &cc.Packet{Payload: -1}, nil) },
		func() error { return r.Sent(3*timelyUs, &cc.Packet{Seq: rp.TIMELYMaxSeq, Payload: 1}, nil) },
		func() error { return r.Feedback(3*timelyUs, &cc.Feedback{Kind: cc.FeedbackAck, Seq: 5001}, nil) },
		func() error { return r.Feedback(3*timelyUs, &cc.Feedback{Kind: cc.FeedbackNak, Seq: 5001}, nil) },
	} {
		err := ev()
		require.ErrorIs(t, err, cc.ErrEvent)
		var ee *cc.EventError
		require.True(t, errors.As(err, &ee))
		require.Equal(t, "rp.TIMELY", ee.Part)
		require.Equal(t, regs, r.AppendRegisters(nil))
	}
	for _, ev := range []func(units.Time) error{
		func(now units.Time) error { return r.Sent(now, &cc.Packet{Seq: 5000, Payload: 1}, nil) },
		func(now units.Time) error { return r.Feedback(now, &cc.Feedback{Kind: cc.FeedbackAck, Seq: 5000}, nil) },
		func(now units.Time) error { return r.Timer(now, nil) },
	} {
		err := ev(timelyUs)
		var te *cc.TimeOrderError
		require.ErrorAs(t, err, &te, "time order is checked before the arguments")
		require.Equal(t, 2*timelyUs, te.Last)
		require.Equal(t, regs, r.AppendRegisters(nil))
		require.NoError(t, ev(2*timelyUs), "equal times are in order")
		regs = r.AppendRegisters(nil)
	}
	require.ErrorIs(t, r.Feedback(timelyUs, nil, nil), cc.ErrTimeOrder, "before the nil check")
	fresh := timelyNewRP(t, rp.TIMELYPaper(10*units.Gbps))
	require.ErrorIs(t, fresh.Timer(-1, nil), cc.ErrTimeOrder)
}

// timelySamples drives a TIMELY through OnRTT with a sequence of samples and calls
// check after each with the registers before and after.
func timelySamples(r *rp.TIMELY, rtts []uint32, check func(rtt uint32, before, after rp.TIMELYState) bool) bool {
	for i, x := range rtts {
		before := r.State()
		if r.OnRTT(units.Time(i)*timelyUs, units.Time(x)*units.Nanosecond) != nil {
			return false
		}
		if !check(x, before, r.State()) {
			return false
		}
	}
	return true
}

// Properties of Algorithm 1 over arbitrary sample sequences (RTTs up to
// 1.5 ms, so that every region is visited; a third of them near the
// previous one, so that the gradient region sees small gradients of both
// signs), on the paper's configuration started at a random rate.
func TestTIMELYProperties(t *testing.T) {
	params := gopter.DefaultTestParametersWithSeed(2015)
	params.MinSuccessfulTests = 300
	props := gopter.NewProperties(params)
	c := rp.TIMELYPaper(10 * units.Gbps)
	line, floor, delta := uint32(10_000_000), uint32(10_000), uint32(10_000)
	tlow, thigh := uint32(50_000), uint32(500_000)
	genRTTs := gen.SliceOfN(200, gen.UInt32Range(0, 1_500_000)).WithLabel("rtts")
	genRate := gen.UInt32Range(floor, line).WithLabel("initial kb/s")
	build := func(rate uint32) *rp.TIMELY {
		c := c
		c.InitialRate = units.Rate(rate) * rp.TIMELYRateUnit
		r, _ := rp.NewTIMELY(c)
		return r
	}
	smooth := func(rtts []uint32) []uint32 {
		for i := 1; i < len(rtts); i++ {
			if rtts[i]%3 == 0 { // within 1 µs of the previous sample
				rtts[i] = uint32(max(int64(rtts[i-1])+int64(rtts[i]%2000)-1000, 0))
			}
		}
		return rtts
	}

	props.Property("rate within [MinRate, LineRate]", prop.ForAll(
		func(rate uint32, rtts []uint32) bool {
			return timelySamples(build(rate), smooth(rtts), func(_ uint32, _, s rp.TIMELYState) bool {
				return s.Rate >= floor && s.Rate <= line
			})
		}, genRate, genRTTs))

	props.Property("no increase while the gradient is positive in [Tlow, Thigh]", prop.ForAll(
		func(rate uint32, rtts []uint32) bool {
			return timelySamples(build(rate), smooth(rtts), func(x uint32, b, s rp.TIMELYState) bool {
				if x >= tlow && x <= thigh && s.RTTDiff > 0 {
					return s.Rate <= b.Rate && s.Increases == 0
				}
				return true
			})
		}, genRate, genRTTs))

	props.Property("HAI only from the 5th increase in a row", prop.ForAll(
		func(rate uint32, rtts []uint32) bool {
			run := 0 // consecutive increases, counted from the samples alone
			return timelySamples(build(rate), smooth(rtts), func(x uint32, b, s rp.TIMELYState) bool {
				inc := x < tlow || (x <= thigh && s.RTTDiff <= 0)
				if inc {
					run++
				} else {
					run = 0
				}
				hai := s.HAISteps > b.HAISteps
				gradRegion := x >= tlow && x <= thigh
				want := b.Rate + delta
				if hai {
					want = b.Rate + 5*delta
				}
				switch {
				case hai && (!gradRegion || run < 5):
					return false
				case gradRegion && inc && run >= 5 && !hai:
					return false
				case inc && s.Rate != min(want, line):
					return false
				}
				return int(s.Increases) == min(run, 255)
			})
		}, genRate, genRTTs))

	props.Property("above Thigh always decreases", prop.ForAll(
		func(rate uint32, rtts []uint32) bool {
			return timelySamples(build(rate), smooth(rtts), func(x uint32, b, s rp.TIMELYState) bool {
				if x <= thigh {
					return true
				}
				if s.Rate > b.Rate || s.Increases != 0 || s.Decreases != b.Decreases+1 {
					return false
				}
				// Strictly, unless at MinRate or the cut is within the
				// integer path's rounding: the exact decrement R·β(1 −
				// Thigh/rtt) is at most R·3·2^−16 + 1 kb/s above the
				// integer's (RP's doc: f and m floored, β rounded).
				exact := float64(b.Rate) * 0.8 * (1 - float64(thigh)/float64(x))
				if b.Rate > floor && exact > float64(b.Rate)*3/65536+1 {
					return s.Rate < b.Rate
				}
				return true
			})
		}, genRate, genRTTs))
	props.TestingRun(t)
}

// Every register fits its width, in the same order, whatever happens.
func TestTIMELYRegisters(t *testing.T) {
	r := timelyNewRP(t, rp.TIMELYPaper(100*units.Gbps))
	names := func(rs []cc.Register) []string {
		var n []string
		for _, x := range rs {
			n = append(n, x.Name)
		}
		return n
	}
	first := names(r.AppendRegisters(nil))
	require.Equal(t, []string{"now", "rate", "prev_rtt", "rtt_diff", "gradient", "increases", "started", "snd_nxt", "seg_end",
		"recording", "ring_head", "ring_len", "ring_oldest_end", "ring_newest_end", "samples", "hai_steps", "decreases", "dropped", "discarded", "unused_feedback"}, first)
	for i := range 40 {
		timelySend(t, r, units.Time(i)*timelyUs, uint64(i)*10000, 10000)
	}
	require.NoError(t, r.OnRTT(40*timelyUs, rp.TIMELYMaxRTT+5*units.Second))
	require.Equal(t, uint32(math.MaxInt32), r.State().PrevRTT, "a sample saturates at MaxRTT")
	require.NoError(t, r.OnRTT(41*timelyUs, 0))
	for _, x := range r.AppendRegisters(nil) {
		require.True(t, x.Fits(), "%v", x)
	}
	require.Equal(t, first, names(r.AppendRegisters(nil)))
}
