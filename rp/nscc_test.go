package rp_test

import (
	"errors"
	"flag"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cc/cctest"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// nsccSeed fixes gopter's random source; override with -nscc.seed=N.
var nsccSeed = flag.Int64("nscc.seed", 20250611, "seed of the NSCC and RCCC gopter properties")

// nsccRef is the reference network of the model: 100 Gb/s, 12 µs, where
// a = 1 and, with trimming, Q_t = 9 µs and b = 0.75.
func nsccRef() rp.NSCCConfig { return rp.NSCCDefault(100*units.Gbps, 12*units.Microsecond, 4096) }

// nsccEcho returns the header a receiver echoes for a packet of payload
// pay sent rtt before now.
func nsccEcho(now units.Time, rtt units.Time, pay units.Bytes) [16]byte {
	var b [16]byte
	// The send time may precede 0: ns mod 2^32 of a negative time.
	wire.UECData{Valid: true, Frame: uint16(pay + 82), Payload: uint16(pay),
		SentNs: uint32(int64(now-rtt) / int64(units.Nanosecond))}.Put(&b)
	return b
}

func nsccAck(now, rtt units.Time, acked units.Bytes, ece bool) *cc.Feedback {
	return &cc.Feedback{Kind: cc.FeedbackAck, Acked: acked, ECE: ece, Data: nsccEcho(now, rtt, 4096)}
}

// The constants at the reference network follow the model's formulas
// ([uet-htsim] initNsccParams) by hand: a = 150 000/150 000 = 1, Q_t =
// 0.75·12 µs = 9 µs, b = 9/12 = 0.75; α = 4·4096·1·0.75/9000 ns = 1.3653
// B/B/ns; fi = 5·4096 = 20 480; η = 0.15·4096 = 614.4; fi_scale = 0.25;
// maxwnd = 1.5·12 µs·12.5 B/ns = 225 000 B. At 400 Gb/s and 8 µs (no
// trimming): a = 400 000/150 000, Q_t = 8 µs, b = 2/3.
func TestNSCCScaling(t *testing.T) {
	sc := nsccRef().Scaling()
	require.InDelta(t, 1, sc.A, 1e-12)
	require.InDelta(t, 0.75, sc.B, 1e-12)
	require.InDelta(t, 9000, sc.QtNs, 1e-9)
	require.InDelta(t, 4*4096*0.75/9000.0, sc.K, 1e-12)
	require.InDelta(t, 20480, sc.Fi, 1e-9)
	require.InDelta(t, 614.4, sc.Eta, 1e-9)
	require.InDelta(t, 0.25, sc.FiScale, 1e-12)
	n, err := rp.NewNSCC(nsccRef())
	require.NoError(t, err)
	require.Equal(t, uint32(225000), n.State().MaxWnd)
	require.Equal(t, uint32(225000), n.State().Cwnd, "cwnd starts at maxwnd")
	require.Equal(t, uint32(12000), n.State().BaseRTT)

	c := rp.NSCCDefault(400*units.Gbps, 8*units.Microsecond, 4096)
	c.Trimming = false
	sc = c.Scaling()
	require.InDelta(t, 400000.0/150000, sc.A, 1e-12)
	require.InDelta(t, 8000, sc.QtNs, 1e-9)
	require.InDelta(t, 2.0/3, sc.B, 1e-12)
}

// The fair increase and the fulfil step, by hand: nine ACKs of 4096 B
// with 10 µs of queueing (≥ Q_t = 9 µs), no ECN, 1 µs apart from t = 1 µs:
// each adds fi·n = 20 480·4096 to inc; the ninth brings the bytes received
// to 36 864 > 8·MSS = 32 768, so cwnd += 9·20 480·4096/100 000 = 7549.7,
// floored; η is not added (9 µs < the 12 µs period).
func TestNSCCFairIncreaseAndFulfil(t *testing.T) {
	c := nsccRef()
	c.InitialCwnd = 100000
	n, err := rp.NewNSCC(c)
	require.NoError(t, err)
	for i := 1; i <= 9; i++ {
		now := units.Time(i) * units.Microsecond
		require.NoError(t, n.Feedback(now, nsccAck(now, 22*units.Microsecond, 4096, false), nil))
		if i < 9 {
			require.Equal(t, uint32(100000), n.State().Cwnd, "ACK %d: no step yet", i)
			require.Equal(t, uint64(i)*20480*4096*256, n.State().Inc, "ACK %d: inc in Q8", i)
		}
	}
	s := n.State()
	require.Equal(t, uint32(100000+9*20480*4096/100000), s.Cwnd)
	require.Equal(t, uint64(9), s.FairIncs)
	require.Equal(t, uint64(1), s.Fulfils)
	require.Zero(t, s.Inc)
	require.Equal(t, units.Time(0), s.LastAdjust, "no η step before the period")
}

// The proportional increase: one ACK 1 µs after start with 3 µs of
// queueing (below Q_t = 9 µs, above the 1 µs of fast increase) adds
// α·n·(Q_t − d) = 4·4096·0.75/9000·4096·6000 B² to inc; the Q32 gain and
// the Q8 product floor it, within n·2^−8 B² (2^−8 B per byte).
func TestNSCCProportionalIncrease(t *testing.T) {
	n, err := rp.NewNSCC(nsccRef())
	require.NoError(t, err)
	now := units.Microsecond
	require.NoError(t, n.Feedback(now, nsccAck(now, 15*units.Microsecond, 4096, false), nil))
	want := 4 * 4096 * 0.75 / 9000 * 4096 * 6000
	require.InDelta(t, want, float64(n.State().Inc)/256, 4096.0/256)
	require.Equal(t, uint64(1), n.State().PropIncs)
}

// Fast increase: with delays below 1 µs, once more than a window's worth
// (cwnd) of bytes has been acknowledged, every such ACK adds fi_scale·n =
// 0.25·4096 = 1024 B to cwnd at once.
func TestNSCCFastIncrease(t *testing.T) {
	c := nsccRef()
	c.InitialCwnd = 8192
	n, err := rp.NewNSCC(c)
	require.NoError(t, err)
	now := units.Time(0)
	ack := func() {
		now += 100 * units.Nanosecond
		require.NoError(t, n.Feedback(now, nsccAck(now, 12*units.Microsecond+500*units.Nanosecond, 4096, false), nil))
	}
	ack()
	ack() // 8192 acknowledged: not more than cwnd yet
	require.Zero(t, n.State().FastIncs)
	ack() // 12 288 > 8192: fast from here
	require.Equal(t, uint64(1), n.State().FastIncs)
	w := n.State().Cwnd
	ack()
	require.Equal(t, w+1024, n.State().Cwnd)
}

// The multiplicative decrease, against the EWMA computed in float64: ECN
// ACKs with 20 µs of queueing, 100 ns apart from t = 20 µs (the model
// decreases at most once per base RTT from time 0, so not before 12 µs),
// raise the average by avg ← avg + λ·(20 000 − avg) (λ = 0.0125 as the
// register holds it, 819/65536: λ's rounding is TestNSCCMatchesFloatModel's
// subject, the decrease this test's); the
// first ACK also takes a fulfil step (the 12 µs adjust period has passed
// since 0), which adds η = round(614.4) to cwnd; on the first ACK where
// the average exceeds Q_t = 9 µs, cwnd ← cwnd·(1 − 0.8·(avg − 9000)/avg)
// once (the next decrease waits a base RTT, longer than the run). Tolerance:
// the average's floor (2^−16 ns per step, 60 steps) and the factor's Q16
// roundings (4·2^−16 of cwnd) plus the floor.
func TestNSCCMultiplicativeDecrease(t *testing.T) {
	c := nsccRef()
	c.InitialCwnd = 200000
	n, err := rp.NewNSCC(c)
	require.NoError(t, err)
	avg, want := 0.0, 0.0
	for i := 1; i <= 60; i++ {
		now := 20*units.Microsecond + units.Time(i)*100*units.Nanosecond
		avg += 819.0 / 65536 * (20000 - avg)
		require.NoError(t, n.Feedback(now, nsccAck(now, 32*units.Microsecond, 0, true), nil))
		if i == 1 {
			require.Equal(t, uint32(200614), n.State().Cwnd, "the fulfil step's η")
		}
		if want == 0 && avg > 9000 {
			want = 200614 * (1 - 0.8*(avg-9000)/avg)
		}
	}
	s := n.State()
	require.Equal(t, uint64(1), s.Decreases)
	require.InDelta(t, avg, float64(s.AvgDelay)/65536, 60.0/65536)
	require.InDelta(t, want, float64(s.Cwnd), 200000*4.0/65536+1)
}

// A NACK cuts cwnd by the NACKed payload (quick adapt off here), and
// under RCCC not when the packet was trimmed at the last hop.
func TestNSCCNackCut(t *testing.T) {
	c := nsccRef()
	c.NoQuickAdapt = true
	n, err := rp.NewNSCC(c)
	require.NoError(t, err)
	w := n.State().Cwnd
	nack := &cc.Feedback{Kind: cc.FeedbackNak, Data: nsccEcho(units.Microsecond, 13*units.Microsecond, 3000)}
	wire.MarkUECTrimmed(&nack.Data, true)
	require.NoError(t, n.Feedback(20*units.Microsecond, nack, nil))
	require.Equal(t, w-3000, n.State().Cwnd)

	c.Credit = rp.RCCCSenderConfig{On: true, Size: units.MB, FrameOverhead: 82}
	n, err = rp.NewNSCC(c)
	require.NoError(t, err)
	require.NoError(t, n.Feedback(20*units.Microsecond, nack, nil))
	require.Equal(t, w, n.State().Cwnd, "last-hop trim under RCCC: no cut")
	wire.MarkUECTrimmed(&nack.Data, false)
	require.NoError(t, n.Feedback(21*units.Microsecond, nack, nil))
	require.Equal(t, w-3000, n.State().Cwnd, "a trim elsewhere cuts")
}

// Quick adapt: the first ACK opens its period (base + Q_t = 21 µs); two
// more acknowledge 8192 B; a NACK after the period ends fires it, since
// 8192 < maxwnd/8 = 28 125: cwnd drops to the 8192 B acknowledged, and the
// bytes then in flight are ignored.
func TestNSCCQuickAdapt(t *testing.T) {
	n, err := rp.NewNSCC(nsccRef())
	require.NoError(t, err)
	now := units.Microsecond
	require.NoError(t, n.Feedback(now, nsccAck(now, 13*units.Microsecond, 0, false), nil))
	require.Equal(t, units.Time(22*units.Microsecond), n.State().QAEnd)
	for i := range 10 {
		require.NoError(t, n.Sent(2*units.Microsecond, &cc.Packet{Seq: uint64(i) * 4096, Payload: 4096, Size: 4178}, nil))
	}
	for _, at := range []units.Time{3 * units.Microsecond, 4 * units.Microsecond} {
		require.NoError(t, n.Feedback(at, nsccAck(at, 13*units.Microsecond, 4096, false), nil))
	}
	at := 30 * units.Microsecond
	require.NoError(t, n.Feedback(at, &cc.Feedback{Kind: cc.FeedbackNak, Data: nsccEcho(at, 14*units.Microsecond, 4096)}, nil))
	s := n.State()
	require.Equal(t, uint64(1), s.QuickAdapts)
	require.Equal(t, uint32(8192), s.Cwnd)
	require.Equal(t, uint32(10*4096-2*4096-4096), s.ToIgnore, "in flight after the NACK")
	require.False(t, s.Triggered)
}

// The RTT samples set the base RTT and maxwnd: a sample of 10 µs lowers
// the base from 12 µs and maxwnd to 1.5·10 µs·12.5 B/ns = 187 500 B, and
// cwnd with it.
func TestNSCCBaseRTT(t *testing.T) {
	n, err := rp.NewNSCC(nsccRef())
	require.NoError(t, err)
	now := 50 * units.Microsecond
	require.NoError(t, n.Feedback(now, nsccAck(now, 10*units.Microsecond, 0, false), nil))
	s := n.State()
	require.Equal(t, uint32(10000), s.BaseRTT)
	require.Equal(t, uint32(187500), s.MaxWnd)
	require.LessOrEqual(t, s.Cwnd, s.MaxWnd)
	require.Equal(t, units.Bytes(s.Cwnd-4096+1), n.Limits().Window, "Window = cwnd − MSS + 1")
}

// Sent writes the header NSCC reads back: its send time in ns, the sizes,
// the retransmission flag for bytes below the highest sent.
func TestNSCCSentHeader(t *testing.T) {
	n, err := rp.NewNSCC(nsccRef())
	require.NoError(t, err)
	p := &cc.Packet{Seq: 0, Payload: 4096, Size: 4178}
	require.NoError(t, n.Sent(1234567*units.Picosecond, p, nil))
	h, err := wire.DecodeUECData(p.Hdr[:])
	require.NoError(t, err)
	require.Equal(t, wire.UECData{Valid: true, Frame: 4178, Payload: 4096, SentNs: 1234}, h)
	p = &cc.Packet{Seq: 0, Payload: 4096, Size: 4178}
	require.NoError(t, n.Sent(2*units.Microsecond, p, nil))
	h, _ = wire.DecodeUECData(p.Hdr[:])
	require.True(t, h.Retrans)
}

// Bad input is refused with cc's errors and changes nothing.
func TestNSCCRefuses(t *testing.T) {
	n, err := rp.NewNSCC(nsccRef())
	require.NoError(t, err)
	require.NoError(t, n.Timer(10*units.Microsecond, nil))
	before := n.AppendRegisters(nil)
	bad := &cc.Feedback{Kind: cc.FeedbackAck}
	bad.Data[0] = 0xFF // reserved flags
	for _, err := range []error{
		n.Sent(5*units.Microsecond, &cc.Packet{Payload: 100, Size: 182}, nil),
		n.Sent(20*units.Microsecond, nil, nil),
		n.Sent(20*units.Microsecond, &cc.Packet{Payload: 5000, Size: 5082}, nil),
		n.Sent(20*units.Microsecond, &cc.Packet{Payload: 100, Size: 50}, nil),
		n.Feedback(20*units.Microsecond, nil, nil),
		n.Feedback(20*units.Microsecond, &cc.Feedback{Kind: cc.FeedbackAck, Acked: -1}, nil),
		n.Feedback(20*units.Microsecond, bad, nil),
	} {
		require.Error(t, err)
		require.True(t, cc.Typed(err), "%v", err)
		require.Equal(t, before, n.AppendRegisters(nil), "%v changed registers", err)
	}
	var te *cc.TimeOrderError
	require.ErrorAs(t, n.Feedback(time5us, &cc.Feedback{Kind: cc.FeedbackAck}, nil), &te)
	var ce *cc.ConfigError
	c := nsccRef()
	c.Gamma = 1.5
	_, err = rp.NewNSCC(c)
	require.ErrorAs(t, err, &ce)
	require.Equal(t, "Gamma", ce.Field)
	c = nsccRef()
	c.NetworkRTT = units.Second
	_, err = rp.NewNSCC(c)
	require.ErrorAs(t, err, &ce)
	require.Equal(t, "NetworkRTT", ce.Field)
	// A CNP is not NSCC's: counted, nothing else.
	require.NoError(t, n.Feedback(30*units.Microsecond, &cc.Feedback{Kind: cc.FeedbackCNP}, nil))
	require.Equal(t, uint64(1), n.State().Unused.N())
	require.True(t, errors.Is(n.Timer(0, nil), cc.ErrTimeOrder))
}

const time5us = 5 * units.Microsecond

// nsccConfigs are the configurations the contract and property tests run.
func nsccConfigs() map[string]rp.NSCCConfig {
	out := map[string]rp.NSCCConfig{"reference": nsccRef()}
	c := rp.NSCCDefault(400*units.Gbps, 8*units.Microsecond, 8938)
	c.Trimming = false
	out["400g-notrim"] = c
	c = nsccRef()
	c.Credit = rp.RCCCSenderConfig{On: true, Size: 2 * units.MB, FrameOverhead: 82}
	out["credit"] = c
	c = nsccRef()
	c.NoQuickAdapt, c.BaseOnNack = true, false
	out["noqa"] = c
	c = rp.NSCCDefault(25*units.Gbps, 3*units.Microsecond, 1000)
	c.InitialCwnd = 1000
	out["small"] = c
	return out
}

// TestNSCCContract runs the conformance suite over each configuration,
// with pulls among the messages (which only the credit configuration
// uses).
func TestNSCCContract(t *testing.T) {
	var msgs []cc.Feedback
	for i := range 8 {
		msgs = append(msgs, wire.UECPull{Pull: uint32(40 * (i + 1)), Slow: i%3 == 0}.Feedback(7))
	}
	for name, c := range nsccConfigs() {
		t.Run(name, func(t *testing.T) {
			o := cctest.Options{Gen: cctest.GenOptions{Messages: msgs, Payload: c.MSS}}
			if testing.Short() {
				o.Sequences, o.Chaos, o.AllocSequences = 6, 12, 1
			}
			require.NoError(t, cctest.TestRP(func() (cc.ReactionPoint, error) { return rp.NewNSCC(c) }, o))
		})
	}
}

// nsccWindowOK checks the clamps: MSS ≤ cwnd ≤ maxwnd, MSS ≤ maxwnd ≤ the
// ceiling at start, and the Window the NIC reads in [1, maxwnd − MSS + 1].
func nsccWindowOK(n *rp.NSCC, max0 uint32) bool {
	s, mss := n.State(), uint32(n.Config().MSS)
	w := n.Limits().Window
	return s.Cwnd >= mss && s.Cwnd <= s.MaxWnd && s.MaxWnd >= mss && s.MaxWnd <= max0 &&
		w >= 1 && w <= units.Bytes(s.MaxWnd-mss+1)
}

// TestNSCCWindowClampProperty: under any event sequence, the well-formed
// ones of nsccGen (every branch, RTT samples included) and cctest's chaos
// (times going back, nil arguments, malformed echoes, any kind), the
// window stays within its clamps after every event. gopter shrinks a
// failure to the shortest prefix (the sequence length is a parameter).
func TestNSCCWindowClampProperty(t *testing.T) {
	params := gopter.DefaultTestParametersWithSeed(*nsccSeed)
	params.MinSuccessfulTests = 60
	props := gopter.NewProperties(params)
	cfgs := nsccConfigs()
	names := []string{"reference", "400g-notrim", "credit", "noqa", "small"}
	props.Property("cwnd within [MSS, maxwnd] after every event", prop.ForAll(
		func(seed uint64, length, ci int, chaos bool) bool {
			c := cfgs[names[ci]]
			n, err := rp.NewNSCC(c)
			if err != nil {
				return false
			}
			max0 := n.State().MaxWnd
			act := cc.NewActions(4)
			r := rand.New(rand.NewPCG(seed, 1))
			var evs []cc.Event
			if chaos {
				for _, e := range cctest.FromBytes(chaosBytes(r, length), cc.RoleRP) {
					evs = append(evs, e.Event)
				}
			} else {
				g := newNSCCGen(r, c)
				for range length {
					evs = append(evs, g.next())
				}
			}
			for i := range evs {
				act.Reset()
				_ = evs[i].Apply(n, act)
				if !nsccWindowOK(n, max0) {
					t.Logf("event %d %v: state %+v", i, evs[i], n.State())
					return false
				}
			}
			return true
		},
		gen.UInt64().WithLabel("seed"), gen.IntRange(1, 4000).WithLabel("events"),
		gen.IntRange(0, len(names)-1).WithLabel("config"), gen.Bool().WithLabel("chaos"),
	))
	props.TestingRun(t)
}

// chaosBytes returns 16·n random bytes, with the echoes of half the
// feedback events made valid UEC headers (so that chaos reaches past the
// decoder).
func chaosBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, 16*n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	for i := 0; i+16 <= len(b); i += 16 {
		if r.IntN(2) == 0 {
			var h [16]byte
			wire.UECData{Valid: true, SentNs: r.Uint32(), Frame: uint16(r.IntN(9100)), Payload: uint16(r.IntN(9000)),
				Trimmed: r.IntN(4) == 0, LastHop: r.IntN(2) == 0}.Put(&h)
			copy(b[i:i+16], h[:])
		}
	}
	return b
}

// FuzzNSCC drives NSCC with the events cctest.FromBytes reads from the
// input, half of the echoes made valid headers: no panic, only cc's
// errors, a refused event changes nothing, every register fits, and the
// window stays within its clamps.
func FuzzNSCC(f *testing.F) {
	f.Add(uint8(0), chaosBytes(rand.New(rand.NewPCG(1, 2)), 32))
	f.Add(uint8(2), chaosBytes(rand.New(rand.NewPCG(3, 4)), 64))
	names := []string{"reference", "400g-notrim", "credit", "noqa", "small"}
	cfgs := nsccConfigs()
	f.Fuzz(func(t *testing.T, ci uint8, data []byte) {
		n, err := rp.NewNSCC(cfgs[names[int(ci)%len(names)]])
		if err != nil {
			t.Fatal(err)
		}
		max0 := n.State().MaxWnd
		evs := cctest.FromBytes(data, cc.RoleRP)
		for i := range evs {
			// Every other echo a valid header with the event's bytes.
			if i%2 == 0 {
				b := evs[i].Feedback.Data
				wire.UECData{Valid: true, SentNs: uint32(b[2])<<8 | uint32(b[3]), Frame: uint16(b[4]) << 6,
					Payload: uint16(b[5]) << 5, Trimmed: b[6]&1 != 0, LastHop: b[6]&3 == 3}.Put(&evs[i].Feedback.Data)
			}
		}
		fuzzDrive(t, n, evs, func(ev *cctest.Event, act *cc.Actions) {
			if !nsccWindowOK(n, max0) {
				t.Fatalf("window out of its clamps after %v: %+v", ev, n.State())
			}
		})
	})
}

// TestNSCCNoAllocs: Sent and Feedback allocate nothing.
func TestNSCCNoAllocs(t *testing.T) {
	c := nsccRef()
	c.Credit = rp.RCCCSenderConfig{On: true, FrameOverhead: 82}
	n, err := rp.NewNSCC(c)
	require.NoError(t, err)
	act := cc.NewActions(4)
	now, seq := units.Time(0), uint64(0)
	p := &cc.Packet{Payload: 4096, Size: 4178}
	fb := &cc.Feedback{Kind: cc.FeedbackAck, Acked: 4096}
	pull := wire.UECPull{}.Feedback(1)
	require.Zero(t, testing.AllocsPerRun(2000, func() {
		now += 300 * units.Nanosecond
		p.Seq = seq
		seq += 4096
		_ = n.Sent(now, p, act)
		fb.Data = nsccEcho(now, 13*units.Microsecond, 4096)
		fb.ECE = seq%5 == 0
		fb.Kind = cc.FeedbackAck
		if seq%7 == 0 {
			fb.Kind = cc.FeedbackNak
		}
		_ = n.Feedback(now, fb, act)
		pull = wire.UECPull{Pull: uint32(seq >> 8)}.Feedback(1)
		require.NoError(t, n.Feedback(now, &pull, act))
	}))
	require.False(t, math.IsNaN(float64(n.State().Cwnd)))
}

// BenchmarkNSCCAck: one Sent and one ACK per packet.
func BenchmarkNSCCAck(b *testing.B) {
	n, _ := rp.NewNSCC(nsccRef())
	p := &cc.Packet{Payload: 4096, Size: 4178}
	fb := &cc.Feedback{Kind: cc.FeedbackAck, Acked: 4096}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		now := units.Time(i) * 300 * units.Nanosecond
		p.Seq = uint64(i) * 4096
		_ = n.Sent(now, p, nil)
		fb.Data = nsccEcho(now, 13*units.Microsecond, 4096)
		_ = n.Feedback(now, fb, nil)
	}
}
