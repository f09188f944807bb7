package cp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// afqcnRefFbAF is the float reference of AF-QCN's fairness feedback (the
// equations (3) and (4) of [Survey] §4.1.1): from the classes'
// averages m and weights w, M_fair,i = W_i/ΣW·ΣM over the classes that
// sent, D_i = (1 − M_fair,i/M_i)+ and Fb_AF = min(63, ⌊64·D_i⌋).
func afqcnRefFbAF(m []float64, w [AFQCNClasses]uint16) (fb [AFQCNClasses]float64) {
	var sumM, sumW float64
	for i, x := range m {
		if x > 0 {
			sumM += x
			sumW += float64(w[i])
		}
	}
	for i, x := range m {
		if x == 0 || sumW == 0 {
			continue
		}
		fair := float64(w[i]) / sumW * sumM
		fb[i] = 64 * math.Max(0, 1-fair/x)
	}
	return fb
}

// Over random arrivals and periods: each class's average follows the float
// EWMA M ← (1 − b)M + b·M_new within 1 byte (the register keeps k fraction
// bits and floors M·2^−k each period: the errors, each below 2^−k bytes,
// decay by (1 − b) per period, so they add up to less than 2^−k/b = 1
// byte), and Fb_AF is ⌊64·D_i⌋ of the float model computed from the
// part's own averages, exactly unless 64·D_i is within 10^−9 of an integer
// (where float rounding may land on either side: ±1 allowed there).
func TestAFQCNMatchesFloatReference(t *testing.T) {
	cfg := AFQCNPaper(10 * units.Gbps)
	cfg.Weights = [AFQCNClasses]uint16{4, 2, 1, 1, 0, 3, 7, 65535}
	for _, bshift := range []uint8{1, 3, 8} {
		cfg.BShift = bshift
		a, err := NewAFQCN(cfg)
		require.NoError(t, err)
		rng := rand.New(rand.NewPCG(uint64(bshift), 5))
		ewma := make([]float64, AFQCNClasses)
		var arrived [AFQCNClasses]float64
		now := units.Time(0)
		act := cc.NewActions(1)
		var nonzero int
		for period := range 2000 {
			// Some classes idle in some periods.
			active := rng.Uint32()
			for range rng.IntN(200) {
				c := uint8(rng.IntN(AFQCNClasses))
				if active>>c&1 == 0 {
					continue
				}
				size := units.Bytes(rng.IntN(9000))
				now += units.Time(rng.IntN(100)) * units.Nanosecond
				now = min(now, a.NextDeadline()-1)
				act.Reset()
				require.NoError(t, a.Enqueue(now, &cc.Packet{Size: size, Prio: c}, cc.Queue{Len: 1000}, act))
				arrived[c] += float64(size)
			}
			now = a.NextDeadline()
			require.NoError(t, a.Timer(now, act))
			b := math.Ldexp(1, -int(bshift))
			m := make([]float64, AFQCNClasses)
			for i := range ewma {
				ewma[i] = (1-b)*ewma[i] + b*arrived[i]
				arrived[i] = 0
				st := a.State()
				got := math.Ldexp(float64(st.M[i]), -int(bshift))
				require.InDelta(t, ewma[i], got, 1, "period %d class %d", period, i)
				m[i] = float64(a.Share(i))
			}
			want := afqcnRefFbAF(m, cfg.Weights)
			st := a.State()
			for i := range want {
				f := math.Min(63, math.Floor(want[i]))
				if math.Abs(want[i]-math.Round(want[i])) < 1e-9 {
					require.InDelta(t, f, float64(st.FbAF[i]), 1, "period %d class %d", period, i)
				} else {
					require.Equal(t, f, float64(st.FbAF[i]), "period %d class %d: 64·D = %v", period, i, want[i])
				}
				if st.FbAF[i] > 0 {
					nonzero++
				}
			}
			require.Equal(t, uint64(period+1), st.Ticks)
			require.Equal(t, units.Time(period+2)*cfg.Ts, a.NextDeadline())
		}
		require.Greater(t, nonzero, 1000)
	}
}

// The feedback a sampled frame's CNM carries is ⌊(1 − a)·QntzFb_QCN +
// a·Fb_AF,i⌋ (a = Alpha/256, the survey's equation (1)), sent only while
// QCN's own Fb is negative.
func TestAFQCNCombinedFeedback(t *testing.T) {
	for _, alpha := range []uint8{1, 64, 128, 200, 255} {
		cfg := AFQCNPaper(10 * units.Gbps)
		cfg.Alpha = alpha
		cfg.QCN.SampleTable = [8]units.Bytes{1, 1, 1, 1, 1, 1, 1, 1} // sample every frame
		a, err := NewAFQCN(cfg)
		require.NoError(t, err)
		// Class 0 sends 9 bytes for every byte of class 1: with equal
		// weights D_0 = 1 − 5/9, Fb_AF,0 = ⌊64·4/9⌋ = 28, Fb_AF,1 = 0.
		// A frame at a period's end counts in the next period (the event
		// ends the period first), so each period holds 100 µs of frames.
		now := units.Time(0)
		for a.State().Ticks < 100 {
			now += units.Microsecond
			require.NoError(t, a.Enqueue(now, &cc.Packet{Size: 900, Prio: 0}, cc.Queue{}, cc.NewActions(1)))
			require.NoError(t, a.Enqueue(now, &cc.Packet{Size: 100, Prio: 1}, cc.Queue{}, cc.NewActions(1)))
		}
		st := a.State()
		require.Equal(t, uint8(28), st.FbAF[0])
		require.Equal(t, uint8(0), st.FbAF[1])
		qeq := cfg.QCN.Qeq
		for _, c := range []struct {
			q    units.Bytes // the queue (flat: Qold = q after the first)
			prio uint8
		}{{qeq + qeq/2, 0}, {qeq + qeq/2, 1}, {2 * qeq, 0}, {10 * qeq, 1}, {qeq, 0}, {qeq / 2, 0}} {
			act := cc.NewActions(1)
			now++
			require.NoError(t, a.Enqueue(now, &cc.Packet{Size: 1, Prio: c.prio}, cc.Queue{Len: c.q}, act))
			act.Reset()
			now++
			require.NoError(t, a.Enqueue(now, &cc.Packet{Size: 1, Prio: c.prio}, cc.Queue{Len: c.q}, act))
			fbQCN := float64(c.q - qeq) // flat: |Fb| = Q − Qeq
			if fbQCN <= 0 {
				require.Zero(t, act.Len(), "uncongested: no wire.CNM, whatever Fb_AF")
				continue
			}
			qntz := math.Min(63, math.Floor(fbQCN*63/float64(cfg.QCN.FbMax())))
			aa := float64(alpha) / 256
			want := math.Floor((1-aa)*qntz + aa*float64(st.FbAF[c.prio]))
			if want < 1 {
				require.Zero(t, act.Len())
				continue
			}
			require.Equal(t, 1, act.Len(), "%+v alpha %d", c, alpha)
			d := act.At(0).Feedback.Data
			m, err := wire.DecodeCNM(d[:])
			require.NoError(t, err)
			require.Equal(t, want, float64(m.QntzFb), "%+v alpha %d", c, alpha)
			require.Equal(t, uint8(qntz), a.State().QCN.Fb, "the sampling follows QCN's own |Fb|")
		}
	}
}

func TestAFQCNConfigErrors(t *testing.T) {
	for _, c := range []struct {
		field string
		mod   func(*AFQCNConfig)
	}{
		{"Qeq", func(c *AFQCNConfig) { c.QCN.Qeq = 0 }},
		{"Weights", func(c *AFQCNConfig) { c.Weights = [AFQCNClasses]uint16{} }},
		{"Alpha", func(c *AFQCNConfig) { c.Alpha = 0 }},
		{"BShift", func(c *AFQCNConfig) { c.BShift = 0 }},
		{"BShift", func(c *AFQCNConfig) { c.BShift = 9 }},
		{"Ts", func(c *AFQCNConfig) { c.Ts = 0 }},
		{"Ts", func(c *AFQCNConfig) { c.Ts = AFQCNMaxTs + 1 }},
		{"ClassBy", func(c *AFQCNConfig) { c.ClassBy = 4 }},
	} {
		cfg := AFQCNPaper(10 * units.Gbps)
		c.mod(&cfg)
		_, err := NewAFQCN(cfg)
		var ce *cc.ConfigError
		require.ErrorAs(t, err, &ce, c.field)
		require.Equal(t, c.field, ce.Field)
		require.Equal(t, "cp.AFQCN", ce.Part)
	}
}

// Classes by priority (default), flow, source, destination or a function.
func TestAFQCNClassKeys(t *testing.T) {
	p := &cc.Packet{Flow: 13, Src: 22, Dst: 7, Prio: 2, Size: 100}
	for _, c := range []struct {
		by   AFQCNClassKey
		fn   func(*cc.Packet) uint8
		want int
	}{{AFQCNClassByPrio, nil, 2}, {AFQCNClassByFlow, nil, 5}, {AFQCNClassBySrc, nil, 6}, {AFQCNClassByDst, nil, 7}, {AFQCNClassByPrio, func(p *cc.Packet) uint8 { return 9 }, 1}} {
		cfg := AFQCNPaper(10 * units.Gbps)
		cfg.ClassBy, cfg.ClassFunc = c.by, c.fn
		a, err := NewAFQCN(cfg)
		require.NoError(t, err)
		require.NoError(t, a.Enqueue(1, p, cc.Queue{}, cc.NewActions(1)))
		require.Equal(t, uint64(100), a.State().Arrivals[c.want], "%v", c.by)
	}
	require.Equal(t, "prio", AFQCNClassByPrio.String())
	require.Equal(t, "dst", AFQCNClassByDst.String())
	require.Equal(t, "ClassKey(9)", AFQCNClassKey(9).String())
}

// Arrival counters saturate at 2^36 − 1; a Timer before the deadline
// only records now; a late Timer ends every period due by its now (cc rule
// 4): ten periods end at 10·Ts + 5, as they do for a part given its Timer
// at each of them, and the deadline moves to 11·Ts.
func TestAFQCNTimerAndSaturation(t *testing.T) {
	parts := [2]*AFQCN{}
	for j := range parts {
		a, err := NewAFQCN(AFQCNPaper(10 * units.Gbps))
		require.NoError(t, err)
		for range 3 {
			require.NoError(t, a.Enqueue(1, &cc.Packet{Size: 1 << 40}, cc.Queue{}, cc.NewActions(1)))
		}
		parts[j] = a
	}
	a, onTime := parts[0], parts[1]
	require.Equal(t, uint64(1<<36-1), a.State().Arrivals[0])
	before := a.State()
	require.NoError(t, a.Timer(AFQCNDefaultTs-1, nil))
	after := a.State()
	after.QCN.Time = before.QCN.Time
	require.Equal(t, before, after)
	for k := range units.Time(10) {
		require.NoError(t, onTime.Timer((k+1)*AFQCNDefaultTs, nil))
	}
	require.NoError(t, onTime.Timer(10*AFQCNDefaultTs+5, nil))
	require.NoError(t, a.Timer(10*AFQCNDefaultTs+5, nil))
	require.Equal(t, uint64(10), a.State().Ticks)
	require.Equal(t, 11*AFQCNDefaultTs, a.NextDeadline())
	require.Equal(t, onTime.State(), a.State())
	require.Equal(t, onTime.AppendRegisters(nil), a.AppendRegisters(nil))
	require.Zero(t, a.Share(-1)+a.Share(8))
	for _, r := range a.AppendRegisters(nil) {
		require.True(t, r.Fits(), "%v", r)
	}
	// Saturated average: the register keeps its width after many periods.
	for i := range 200 {
		require.NoError(t, a.Enqueue(a.NextDeadline()-1, &cc.Packet{Size: 1 << 40}, cc.Queue{}, cc.NewActions(1)))
		require.NoError(t, a.Timer(a.NextDeadline(), nil), "%d", i)
	}
	require.Less(t, a.State().M[0], uint64(1)<<AFQCNMBits)
	require.Equal(t, uint64(1<<36-1), a.Share(0))
}

func TestAFQCNRegisters(t *testing.T) {
	a, _ := NewAFQCN(AFQCNPaper(10 * units.Gbps))
	regs := a.AppendRegisters(nil)
	require.Len(t, regs, 7+2+3*AFQCNClasses)
	require.Equal(t, "next_tick", regs[7].Name)
	require.Equal(t, "arr0", regs[9].Name)
	require.Equal(t, "fb_af7", regs[len(regs)-1].Name)
}

// cc rule 4 on AF-QCN: a part left without Timer calls, its periods ended
// by its next event, holds the registers and sends the CNMs of one given
// Timer at every period's end. The gaps between bursts of frames reach
// 3000 periods, so the averages decay to where they stop moving (b = 1/8
// and 1/256: about 190 and 6400 idle periods from the largest average)
// and the idle periods after that are counted at once.
func TestAFQCNLateTimers(t *testing.T) {
	for _, bshift := range []uint8{3, 8} {
		cfg := AFQCNPaper(10 * units.Gbps)
		cfg.BShift = bshift
		cfg.QCN.SampleTable = [8]units.Bytes{3000, 2000, 1500, 1000, 800, 600, 400, 200}
		cfg.Weights = [AFQCNClasses]uint16{1, 2, 3, 1, 1, 5, 1, 1}
		onTime, err := NewAFQCN(cfg)
		require.NoError(t, err)
		late, err := NewAFQCN(cfg)
		require.NoError(t, err)
		rng := rand.New(rand.NewPCG(uint64(bshift), 17))
		actX, actY := cc.NewActions(1), cc.NewActions(1)
		now := units.Time(0)
		var cnms, gaps int
		for i := range 20000 {
			switch {
			case rng.IntN(500) == 0:
				now += units.Time(rng.Int64N(3000)) * cfg.Ts
				gaps++
			default:
				now += units.Time(rng.Int64N(int64(2 * units.Microsecond)))
			}
			for d := onTime.NextDeadline(); d <= now; d = onTime.NextDeadline() {
				require.NoError(t, onTime.Timer(d, nil))
			}
			p := &cc.Packet{Flow: cc.FlowID(rng.IntN(16)), Size: units.Bytes(64 + rng.IntN(1500)), Prio: uint8(rng.IntN(8))}
			q := cc.Queue{Len: units.Bytes(rng.IntN(int(4 * cfg.QCN.Qeq)))}
			ev := func(a *AFQCN, act *cc.Actions) error {
				act.Reset()
				if rng.IntN(4) == 0 {
					return a.Dequeue(now, p, q, act)
				}
				return a.Enqueue(now, p, q, act)
			}
			seed := rng.Uint64()
			rng = rand.New(rand.NewPCG(seed, 1))
			require.NoError(t, ev(onTime, actX))
			rng = rand.New(rand.NewPCG(seed, 1))
			require.NoError(t, ev(late, actY))
			require.Equal(t, actX.All(), actY.All(), "event %d", i)
			require.Equal(t, onTime.AppendRegisters(nil), late.AppendRegisters(nil), "event %d", i)
			require.Greater(t, late.NextDeadline(), now)
			cnms += actX.Len()
		}
		t.Logf("b = 2^-%d: %d CNMs, %d gaps, %d periods", bshift, cnms, gaps, late.State().Ticks)
		require.Greater(t, cnms, 100)
		require.Greater(t, gaps, 20)
	}
}

// cc rule 3 on AF-QCN: Enqueue, which can decide, refuses a nil act
// whether or not the frame would be sampled, changing nothing (not even
// the period that ended before it); Dequeue and Timer decide nothing and
// take one.
func TestAFQCNNilActions(t *testing.T) {
	cfg := AFQCNPaper(10 * units.Gbps)
	a, err := NewAFQCN(cfg)
	require.NoError(t, err)
	require.NoError(t, a.Enqueue(1, &cc.Packet{Size: 100}, cc.Queue{}, cc.NewActions(1)))
	regs := a.AppendRegisters(nil)
	for _, size := range []units.Bytes{1, 1 << 20} { // not sampled, sampled
		err := a.Enqueue(cfg.Ts+1, &cc.Packet{Size: size}, cc.Queue{Len: 1 << 20}, nil)
		var ee *cc.EventError
		require.ErrorAs(t, err, &ee)
		require.ErrorIs(t, err, cc.ErrNoActions)
		require.Equal(t, "cp.AFQCN", ee.Part)
		require.Equal(t, regs, a.AppendRegisters(nil), "refused: the period due is not ended either")
	}
	require.NoError(t, a.Dequeue(cfg.Ts+1, &cc.Packet{Size: 100}, cc.Queue{}, nil))
	require.Equal(t, uint64(1), a.State().Ticks, "the Dequeue ended the period due")
	require.NoError(t, a.Timer(2*cfg.Ts, nil))
	require.Equal(t, uint64(2), a.State().Ticks)
}
