package cp_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cc/cctest"
	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/np"
	"github.com/hwcc/hwcc/units"
)

const paccUs = units.Microsecond

// paccOne is probability 1.0 in the register's Q1.32.
const paccOne = uint64(1) << 32

// paccConfigs are the configurations the contract tests run: the paper
// preset at 40 and 100 Gb/s, unpaced, one pacing slot (every flow
// collides), the largest gains with a short period, and a low PMax.
func paccConfigs() map[string]cp.PACCConfig {
	out := map[string]cp.PACCConfig{}
	out["paper40"] = cp.PACCPaper(40 * units.Gbps)
	out["paper100"] = cp.PACCPaper(100 * units.Gbps)
	c := cp.PACCPaper(40 * units.Gbps)
	c.CNPInterval = 0
	out["unpaced"] = c
	c = cp.PACCPaper(40 * units.Gbps)
	c.TableBits = 0
	out["one-slot"] = c
	c = cp.PACCPaper(40 * units.Gbps)
	c.Alpha, c.Beta, c.Period, c.QRef = cp.PACCMaxGain, cp.PACCMaxGain, paccUs, 1
	out["hot"] = c
	c = cp.PACCPaper(40 * units.Gbps)
	c.PMax = 655 // 1 %
	out["pmax1pc"] = c
	return out
}

// The contract's conformance suite on the congestion point in each of
// paccConfigs.
func TestPACCConformance(t *testing.T) {
	for name, cfg := range paccConfigs() {
		t.Run(name, func(t *testing.T) {
			require.NoError(t, cctest.TestCP(func() (cc.CongestionPoint, error) { return cp.NewPACC(cfg) }, cctest.Options{}))
		})
	}
}

// TestPACCPaperPreset: the preset's numbers, each from its stated source:
// T = 80 µs ([Mercury]), CNPInterval = 4 µs (the min_time_between_cnps of
// the ConnectX notification point PACC replaces, [ConnectX], as package np
// presets it), QRef = 100 KB per 25 Gb/s (160 KB at 40 Gb/s), Alpha =
// 2^34/QRef rounded (a QRef error for one update adds 1/256), Beta =
// 5·Alpha, PMax = DCQCN's Pmax, MinQueue = QRef/2.
func TestPACCPaperPreset(t *testing.T) {
	c := cp.PACCPaper(40 * units.Gbps)
	require.Equal(t, 80*paccUs, c.Period)
	require.Equal(t, 4*paccUs, c.CNPInterval)
	require.Equal(t, np.DCQCNConnectX().Interval, c.CNPInterval, "the NP PACC replaces")
	require.Equal(t, c.CNPInterval, cp.PACCPaper(100*units.Gbps).CNPInterval, "whatever the link")
	require.Equal(t, 160*units.KB, c.QRef)
	// 2^34 / 160 000 = 107 374.18 → 107 374.
	require.Equal(t, uint32(107374), c.Alpha)
	require.Equal(t, 5*c.Alpha, c.Beta)
	require.Equal(t, uint32(13107), c.PMax, "0.2 in Q0.16, DCQCN's Pmax")
	require.Equal(t, c.QRef/2, c.MinQueue)
	// One update with the queue QRef above the reference (and Qold = Q)
	// adds within 2^−32 of 1/256.
	pc, err := cp.NewPACC(c)
	require.NoError(t, err)
	act := cc.NewActions(1)
	q := 2 * c.QRef
	require.NoError(t, pc.Dequeue(0, &cc.Packet{Size: 1000}, cc.Queue{Len: q}, act))
	require.NoError(t, pc.Timer(c.Period, act))
	// The first update also sees Q − Qold = Q (Qold starts at 0): Beta·Q.
	first := pc.P()
	require.NoError(t, pc.Timer(2*c.Period, act))
	step := pc.P() - first
	require.InDelta(t, float64(paccOne)/256, float64(step), float64(paccOne)/256*1e-5)
}

// TestPACCValidate: each field out of range is a *cc.ConfigError naming it.
func TestPACCValidate(t *testing.T) {
	for field, mut := range map[string]func(*cp.PACCConfig){
		"QRef":        func(c *cp.PACCConfig) { c.QRef = 0 },
		"Period":      func(c *cp.PACCConfig) { c.Period = 0 },
		"Alpha":       func(c *cp.PACCConfig) { c.Alpha = cp.PACCMaxGain + 1 },
		"Beta":        func(c *cp.PACCConfig) { c.Beta = cp.PACCMaxGain + 1 },
		"PMax":        func(c *cp.PACCConfig) { c.PMax = cp.PACCPmaxOne + 1 },
		"CNPInterval": func(c *cp.PACCConfig) { c.CNPInterval = -1 },
		"MinQueue":    func(c *cp.PACCConfig) { c.MinQueue = -1 },
		"TableBits":   func(c *cp.PACCConfig) { c.TableBits = cp.PACCMaxTableBits + 1 },
		"Seed":        func(c *cp.PACCConfig) { c.Seed = 0 },
	} {
		c := cp.PACCPaper(40 * units.Gbps)
		mut(&c)
		_, err := cp.NewPACC(c)
		var ce *cc.ConfigError
		require.ErrorAs(t, err, &ce, field)
		require.Equal(t, field, ce.Field)
	}
	c := cp.PACCPaper(40 * units.Gbps)
	c.Alpha = 0
	_, err := cp.NewPACC(c)
	require.ErrorIs(t, err, cc.ErrConfig, "no integral gain")
}

// paccRef is the PI controller in real numbers: p in units of 2^−32, the
// gains Alpha/1024 and Beta/1024 exactly, no rounding.
type paccRef struct {
	cfg     cp.PACCConfig
	p, qold float64
}

func (r *paccRef) step(q float64) {
	a, b := float64(r.cfg.Alpha)/1024, float64(r.cfg.Beta)/1024
	r.p += a*(q-float64(r.cfg.QRef)) + b*(q-r.qold)
	r.p = min(max(r.p, 0), float64(uint64(r.cfg.PMax)<<16))
	r.qold = q
}

// TestPACCTracksFloatReference drives the CP with random queues and
// updates, on time and late, and compares p with the real-valued
// controller after every event: each update's one rounding (toward −∞)
// errs by less than one unit of 2^−32 and the clamp does not widen a
// difference, so after n updates |P − p| < n units.
func TestPACCTracksFloatReference(t *testing.T) {
	for name, cfg := range paccConfigs() {
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(5, 17))
			c, err := cp.NewPACC(cfg)
			require.NoError(t, err)
			ref := paccRef{cfg: cfg}
			act := cc.NewActions(4)
			var now units.Time
			q := 0.0 // the queue the CP last saw
			next := cfg.Period
			for range 3000 {
				now += units.Time(rng.Int64N(int64(3 * cfg.Period)))
				for next <= now {
					ref.step(q)
					next += cfg.Period
				}
				ql := units.Bytes(rng.Int64N(int64(4*cfg.QRef) + 2))
				act.Reset()
				switch rng.IntN(3) {
				case 0:
					require.NoError(t, c.Enqueue(now, &cc.Packet{Flow: cc.FlowID(rng.IntN(8)), Size: 1000}, cc.Queue{Len: ql}, act))
					q = float64(ql)
				case 1:
					require.NoError(t, c.Dequeue(now, &cc.Packet{Size: 1000}, cc.Queue{Len: ql}, act))
					q = float64(ql)
				default:
					require.NoError(t, c.Timer(now, act))
				}
				s := c.State()
				require.LessOrEqual(t, math.Abs(float64(s.P)-ref.p), float64(s.Updates)+1e-9*ref.p, "after %d updates", s.Updates)
				require.Equal(t, next, c.NextDeadline())
			}
		})
	}
}

// TestPACCLateEqualsOnTime: updates a caller leaves to the next event
// give the registers that Timer at every deadline gives (cc's rule 4),
// however late: the O(1) catch-up equals the updates one by one, through
// both clamps.
func TestPACCLateEqualsOnTime(t *testing.T) {
	cfg := cp.PACCPaper(40 * units.Gbps)
	for _, q := range []units.Bytes{0, cfg.QRef - 1, cfg.QRef, cfg.QRef + 1, 3 * cfg.QRef, 50 * units.MB} {
		for _, late := range []int64{1, 2, 7, 300, 100_000} {
			a, err := cp.NewPACC(cfg)
			require.NoError(t, err)
			b, err := cp.NewPACC(cfg)
			require.NoError(t, err)
			act := cc.NewActions(4)
			// Both start from a p reached with a large queue.
			for _, x := range []*cp.PACC{a, b} {
				require.NoError(t, x.Dequeue(0, &cc.Packet{Size: 1}, cc.Queue{Len: 2 * cfg.QRef}, act))
				require.NoError(t, x.Timer(3*cfg.Period, act))
				require.NoError(t, x.Dequeue(3*cfg.Period, &cc.Packet{Size: 1}, cc.Queue{Len: q}, act))
			}
			end := units.Time(3+late)*cfg.Period + cfg.Period/2
			for at := 4 * cfg.Period; at <= end; at += cfg.Period {
				require.NoError(t, a.Timer(at, act))
			}
			require.NoError(t, b.Dequeue(end, &cc.Packet{Size: 1}, cc.Queue{Len: q}, act))
			require.NoError(t, a.Dequeue(end, &cc.Packet{Size: 1}, cc.Queue{Len: q}, act))
			require.Equal(t, a.AppendRegisters(nil), b.AppendRegisters(nil), "q %v, %d late", q, late)
		}
	}
}

// TestPACCProperties: under any sequence of enqueues, dequeues and timer
// calls (random queues, flows, sizes, times), p stays in [0, PMax]; a CNP
// goes only to the source of the packet that joined the queue, at most
// one per Enqueue, none while p = 0 and none with the queue at or below
// MinQueue; two CNPs to one flow are at least
// CNPInterval apart (the flows here have slots of their own); the CNP
// count is the cnps register and never exceeds the packets.
func TestPACCProperties(t *testing.T) {
	params := gopter.DefaultTestParametersWithSeed(4242)
	params.MinSuccessfulTests = 60
	props := gopter.NewProperties(params)
	props.Property("bounds", prop.ForAll(
		func(seed uint64, pmax uint32, interval, period int64, gain uint32) bool {
			cfg := cp.PACCPaper(40 * units.Gbps)
			cfg.PMax, cfg.CNPInterval, cfg.Period = pmax, units.Time(interval)*paccUs, units.Time(period)*paccUs
			cfg.Alpha, cfg.Beta = gain, 5*gain
			c, err := cp.NewPACC(cfg)
			if err != nil {
				return false
			}
			flows := []cc.FlowID{}
			seen := map[int]bool{}
			for f := cc.FlowID(1); len(flows) < 6; f++ {
				if s := c.Slot(f); !seen[s] {
					seen[s] = true
					flows = append(flows, f)
				}
			}
			rng := rand.New(rand.NewPCG(seed, 3))
			act := cc.NewActions(2)
			last := map[cc.FlowID]units.Time{}
			var now units.Time
			var cnps uint64
			for range 400 {
				now += units.Time(rng.Int64N(int64(20 * paccUs)))
				f := flows[rng.IntN(len(flows))]
				q := cc.Queue{Len: units.Bytes(rng.Int64N(int64(2 * units.MB)))}
				act.Reset()
				var err error
				enq := rng.IntN(2) == 0
				if enq {
					err = c.Enqueue(now, &cc.Packet{Flow: f, Size: 1000}, q, act)
				} else {
					err = c.Dequeue(now, &cc.Packet{Flow: f, Size: 1000}, q, act)
				}
				if err != nil || c.P() > uint64(pmax)<<16 {
					return false
				}
				if act.Len() == 0 {
					continue
				}
				x := act.At(0)
				if c.P() == 0 || q.Len <= cfg.MinQueue {
					return false // the draw used p after the updates due: 0 sends nothing, nor does a short queue
				}
				if !enq || act.Len() != 1 || x.Kind != cc.ActionFeedback || x.To != cc.ToSource ||
					x.Feedback.Kind != cc.FeedbackCNP || x.Feedback.Flow != f || x.Prio != cc.ControlPrio {
					return false
				}
				if t, ok := last[f]; ok && now-t < cfg.CNPInterval {
					return false
				}
				last[f] = now
				cnps++
			}
			s := c.State()
			return s.CNPs == cnps && s.CNPs <= s.Packets && s.Draws <= s.Packets
		},
		gen.UInt64().WithLabel("seed"),
		gen.UInt32Range(1, cp.PACCPmaxOne).WithLabel("pmax"),
		gen.Int64Range(0, 200).WithLabel("interval_us"),
		gen.Int64Range(1, 100).WithLabel("period_us"),
		gen.UInt32Range(1, cp.PACCMaxGain/5).WithLabel("alpha"),
	))
	props.TestingRun(t)
}

// TestPACCNoCNPAtZero: a queue that stays at q ≤ QRef/6 from the start
// keeps p at 0, and no packet is drawn or notified: the first update adds
// Alpha·(q − QRef) + Beta·q = Alpha·(6q − QRef) ≤ 0 with Beta = 5·Alpha
// (the growth from the empty queue counts once), every later one
// Alpha·(q − QRef) < 0.
func TestPACCNoCNPAtZero(t *testing.T) {
	cfg := cp.PACCPaper(40 * units.Gbps)
	c, err := cp.NewPACC(cfg)
	require.NoError(t, err)
	act := cc.NewActions(1)
	for i := range 1000 {
		now := units.Time(i) * units.Microsecond
		act.Reset()
		require.NoError(t, c.Enqueue(now, &cc.Packet{Flow: cc.FlowID(i % 5), Size: 1000}, cc.Queue{Len: cfg.QRef / 6}, act))
		require.Zero(t, act.Len())
	}
	s := c.State()
	require.Zero(t, s.P)
	require.Zero(t, s.Draws)
	require.Equal(t, uint64(1000), s.Packets)
}

// TestPACCCNPFrequency: at p = PMax = 1/8 with no pacing, the share of
// enqueues that send a CNP is 1/8 within 4.5 standard deviations of a
// binomial over the draws.
func TestPACCCNPFrequency(t *testing.T) {
	cfg := cp.PACCPaper(40 * units.Gbps)
	cfg.PMax, cfg.CNPInterval = cp.PACCPmaxOne/8, 0
	c, err := cp.NewPACC(cfg)
	require.NoError(t, err)
	act := cc.NewActions(1)
	// Drive p to PMax: a queue far above QRef for a few updates.
	require.NoError(t, c.Dequeue(0, &cc.Packet{Size: 1}, cc.Queue{Len: 10 * units.MB}, act))
	require.NoError(t, c.Timer(5*cfg.Period, act))
	require.Equal(t, uint64(cfg.PMax)<<16, c.P())
	const n = 40000
	sent := 0
	now := 5 * cfg.Period
	for i := range n {
		act.Reset()
		// Keep p at PMax: the queue stays high, and all packets fall
		// within one period.
		require.NoError(t, c.Enqueue(now+units.Time(i), &cc.Packet{Flow: cc.FlowID(i), Size: 1000}, cc.Queue{Len: 10 * units.MB}, act))
		sent += act.Len()
	}
	require.Equal(t, uint64(cfg.PMax)<<16, c.P())
	p := 1.0 / 8
	sd := math.Sqrt(n * p * (1 - p))
	require.InDelta(t, n*p, float64(sent), 4.5*sd)
}

// paccAtOne returns the paper preset at 40 Gb/s with PMax = 1 and no CNP
// pacing, and a CP of it driven to p = 1 by a queue of 100 MB over k
// updates (the first already reaches 1: Beta·100 MB/1024 is far above
// 2^32), its clock at k periods.
func paccAtOne(t *testing.T, k units.Time) (cp.PACCConfig, *cp.PACC) {
	t.Helper()
	cfg := cp.PACCPaper(40 * units.Gbps)
	cfg.PMax, cfg.CNPInterval = cp.PACCPmaxOne, 0
	c, err := cp.NewPACC(cfg)
	require.NoError(t, err)
	act := cc.NewActions(1)
	require.NoError(t, c.Dequeue(0, &cc.Packet{Size: 1}, cc.Queue{Len: 100 * units.MB}, act))
	require.NoError(t, c.Timer(k*cfg.Period, act))
	require.Equal(t, paccOne, c.P(), "p at 1.0: every Enqueue above MinQueue sends")
	return cfg, c
}

// TestPACCRefusals: a refused event (time order, nil or negative packet,
// negative queue, a nil act at Enqueue, no room for a CNP) is typed and
// changes nothing.
func TestPACCRefusals(t *testing.T) {
	cfg, c := paccAtOne(t, 10)
	act := cc.NewActions(1)
	before := c.AppendRegisters(nil)
	now := 10 * cfg.Period
	high := cc.Queue{Len: 100 * units.MB}
	for name, err := range map[string]error{
		"late":     c.Timer(now-1, act),
		"nil":      c.Enqueue(now, nil, cc.Queue{}, act),
		"negative": c.Dequeue(now, &cc.Packet{Size: -1}, cc.Queue{}, act),
		"queue":    c.Enqueue(now, &cc.Packet{Size: 1}, cc.Queue{Len: -1}, act),
		"noact":    c.Enqueue(now+cfg.Period, &cc.Packet{Size: 1}, high, nil),
		"full":     c.Enqueue(now+cfg.Period, &cc.Packet{Size: 1}, high, cc.NewActions(0)),
	} {
		require.Error(t, err, name)
		require.True(t, cc.Typed(err), name)
		require.True(t, slices.Equal(before, c.AppendRegisters(nil)), name)
	}
	require.ErrorIs(t, c.Enqueue(now, &cc.Packet{Size: 1}, high, cc.NewActions(0)), cc.ErrActionsFull)
}

// TestPACCMinQueue: at p = 1, a packet that finds the queue at or below
// MinQueue (itself included) draws nothing and sends nothing; one byte
// more and it sends.
func TestPACCMinQueue(t *testing.T) {
	cfg, c := paccAtOne(t, 1)
	act := cc.NewActions(1)
	require.NoError(t, c.Enqueue(cfg.Period, &cc.Packet{Flow: 1, Size: 1000}, cc.Queue{Len: cfg.MinQueue}, act))
	require.Zero(t, act.Len())
	require.Equal(t, paccOne, c.P(), "no update between: p is still 1")
	require.NoError(t, c.Enqueue(cfg.Period, &cc.Packet{Flow: 1, Size: 1000}, cc.Queue{Len: cfg.MinQueue + 1}, act))
	require.Equal(t, 1, act.Len())
	require.Equal(t, uint64(1), c.State().CNPs)
}

// FuzzPACC drives a congestion point, its pacing and table size from the
// first byte, with cctest.FromBytes events: besides fuzzDrive's rules, p
// stays within [0, PMax] and every decision is one CNP of the packet's
// flow to its source on an Enqueue that finds the queue above MinQueue.
func FuzzPACC(f *testing.F) {
	f.Add(append([]byte{0}, make([]byte, 64)...))
	f.Add(append([]byte{0x13}, slices.Repeat([]byte{0, 1, 0, 10, 0, 0, 0, 3, 0, 0, 0xff, 0x30, 0, 0, 0, 0}, 8)...))
	f.Add(append([]byte{0xf2}, slices.Repeat([]byte{1, 0, 0xff, 0xff, 0, 4, 5, 0, 0, 0, 0xff, 0xff, 0, 0, 0, 0}, 8)...))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		cfg := cp.PACCPaper(100 * units.Gbps)
		cfg.TableBits = data[0] & 3
		cfg.CNPInterval = units.Time(data[0]>>2&3) * 20 * paccUs
		cfg.Period = units.Time(1+data[0]>>4) * 5 * paccUs
		cfg.QRef = 64 * units.KB
		c, err := cp.NewPACC(cfg)
		if err != nil {
			t.Fatal(err)
		}
		fuzzDrive(t, c, cctest.FromBytes(data[1:], cc.RoleCP), func(ev *cctest.Event, act *cc.Actions) {
			if c.P() > uint64(cfg.PMax)<<16 {
				t.Fatalf("%v: p %d above PMax", ev, c.P())
			}
			if act.Len() == 0 {
				return
			}
			want := cc.Action{Kind: cc.ActionFeedback, To: cc.ToSource, Prio: cc.ControlPrio,
				Feedback: cc.Feedback{Kind: cc.FeedbackCNP, Flow: ev.Packet.Flow}}
			if act.Len() != 1 || ev.Kind != cc.EventEnqueue || act.At(0) != want || ev.Queue.Len <= cfg.MinQueue {
				t.Fatalf("%v: decided %v", ev, act.All())
			}
		})
	})
}

func BenchmarkPACCEnqueue(b *testing.B) {
	cfg := cp.PACCPaper(40 * units.Gbps)
	cfg.PMax = cp.PACCPmaxOne / 2
	c, _ := cp.NewPACC(cfg)
	act := cc.NewActions(4)
	_ = c.Dequeue(0, &cc.Packet{Size: 1}, cc.Queue{Len: 10 * units.MB}, act)
	_ = c.Timer(5*cfg.Period, act)
	now := 5 * cfg.Period
	p := &cc.Packet{Size: 1000}
	q := cc.Queue{Len: 10 * units.MB}
	b.ReportAllocs()
	for b.Loop() {
		now += units.Nanosecond
		p.Flow++
		act.Reset()
		_ = c.Enqueue(now, p, q, act)
	}
}
