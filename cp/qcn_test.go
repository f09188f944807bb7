package cp

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// qcnRefCP is a float reference model of the QCN congestion point, written
// from the equations ([QCN-Allerton]; [QCN-HPE]'s quantisation rule): a byte
// counter to the next sample, Fb = −(Qoff + w·Qδ), QntzFb =
// min(63, ⌊|Fb|·63/Fbmax⌋), the next interval from the table.
type qcnRefCP struct {
	qeq, w   float64
	table    [8]float64
	toSample float64
	qold     float64
}

func newQCNRefCP(c QCNConfig) *qcnRefCP {
	r := &qcnRefCP{qeq: float64(c.Qeq), w: float64(c.W)}
	for i, n := range c.SampleTable {
		r.table[i] = float64(n)
	}
	r.toSample = r.table[0]
	return r
}

// arrive returns whether a frame of size bytes joining a queue of q bytes
// is sampled, its Fb and quantised |Fb|, and whether a CNM goes out.
func (r *qcnRefCP) arrive(size, q float64) (sampled bool, fb float64, qntz int, cnm bool) {
	r.toSample -= size
	if r.toSample > 0 {
		return false, 0, 0, false
	}
	q = math.Min(q, float64(QCNMaxQueue))
	fb = -((q - r.qeq) + r.w*(q-r.qold))
	r.qold = q
	if fb < 0 {
		fbmax := r.qeq * (2*r.w + 1)
		qntz = int(math.Min(63, math.Floor(-fb*63/fbmax)))
	}
	r.toSample = r.table[qntz/8]
	return true, fb, qntz, fb < 0 && qntz >= 1
}

// The CP agrees with the float reference exactly on random arrivals:
// which frames are sampled, Fb's quantisation, the CNMs and their fields.
// Exact because every quantity is an integer below 2^53 and ⌊x·63/Fbmax⌋
// of integers is exact in float64 (the quotient is never within an ulp of
// an integer unless it is one).
func TestQCNMatchesFloatReference(t *testing.T) {
	for seed, cfg := range []QCNConfig{QCNStandard(), QCNPaper(40 * units.Gbps), {Qeq: 5000, W: 0, SampleTable: [8]units.Bytes{3000, 2000, 1500, 1200, 900, 700, 500, 300}, CNMPrio: 3, CPID: 77}} {
		c, err := NewQCN(cfg)
		require.NoError(t, err)
		ref := newQCNRefCP(cfg)
		rng := rand.New(rand.NewPCG(uint64(seed), 9))
		act := cc.NewActions(1)
		q := units.Bytes(0)
		var samples, cnms int
		for i := range 100000 {
			// A queue that wanders between empty and ~8·Qeq.
			size := units.Bytes(64 + rng.IntN(9000))
			if rng.IntN(3) == 0 {
				q = max(q-units.Bytes(rng.IntN(int(cfg.Qeq))), 0)
			}
			q += size
			if q > 8*cfg.Qeq {
				q = cfg.Qeq / 2
			}
			act.Reset()
			p := &cc.Packet{Flow: cc.FlowID(i % 7), Size: size, Prio: uint8(i % 8)}
			require.NoError(t, c.Enqueue(units.Time(i), p, cc.Queue{Len: q}, act))
			sampled, fb, qntz, cnm := ref.arrive(float64(size), float64(q))
			st := c.State()
			if sampled {
				samples++
				require.Equal(t, uint8(qntz), st.Fb, "event %d: Fb %v", i, fb)
				require.Equal(t, uint32(q), st.QOld)
			}
			require.Equal(t, ref.toSample, float64(st.ToSample), "event %d", i)
			require.Equal(t, cnm, act.Len() == 1, "event %d: fb %v qntz %d", i, fb, qntz)
			if cnm {
				cnms++
				a := act.At(0)
				require.Equal(t, cc.ActionFeedback, a.Kind)
				require.Equal(t, cc.ToSource, a.To)
				require.Equal(t, cfg.CNMPrio, a.Prio)
				require.Equal(t, wire.FeedbackCNM, a.Feedback.Kind)
				require.Equal(t, p.Flow, a.Feedback.Flow)
				require.Equal(t, cfg.CPID, a.Feedback.From)
				m, err := wire.DecodeCNM(a.Feedback.Data[:])
				require.NoError(t, err)
				require.Equal(t, uint8(qntz), m.QntzFb)
				require.Equal(t, cfg.CPID, m.CPID)
				require.Equal(t, p.Prio, m.Prio)
				qoff := float64(q) - float64(cfg.Qeq)
				require.Equal(t, int16(math.Max(-32768, math.Min(32767, math.Trunc(qoff/64)))), m.QOffset)
			}
		}
		require.Equal(t, uint64(samples), c.State().Samples)
		require.Equal(t, uint64(cnms), c.State().CNMs)
		t.Logf("%+v: %d samples, %d CNMs", cfg.Qeq, samples, cnms)
		require.Greater(t, cnms, 100)
		require.Greater(t, samples-cnms, 100, "some samples see no congestion")
	}
}

// qcnSampleNow makes the next arrival a sample and returns its CNM (nil if
// none): it first sends frames that bring the byte counter to 1, then one
// frame of 1 byte into a queue of q bytes.
func qcnSampleNow(t *testing.T, c *QCN, now *units.Time, q units.Bytes) *wire.CNM {
	t.Helper()
	act := cc.NewActions(1)
	if n := c.State().ToSample; n > 1 {
		*now++
		require.NoError(t, c.Enqueue(*now, &cc.Packet{Size: units.Bytes(n - 1)}, cc.Queue{Len: q}, act))
		require.Zero(t, act.Len())
	}
	before := c.State().Samples
	*now++
	require.NoError(t, c.Enqueue(*now, &cc.Packet{Size: 1}, cc.Queue{Len: q}, act))
	require.Equal(t, before+1, c.State().Samples)
	if act.Len() == 0 {
		return nil
	}
	d := act.At(0).Feedback.Data
	m, err := wire.DecodeCNM(d[:])
	require.NoError(t, err)
	return &m
}

// The equations' fixed points: Fb = 0 at Q = Qeq with Qδ = 0 (no CNM);
// |Fb| saturates at 63 far above Qeq; no feedback while Fb ≥ 0 (queue
// below Qeq and not growing fast); Fb exactly −Fbmax gives 63.
func TestQCNFeedbackProperties(t *testing.T) {
	cfg := QCNStandard() // Qeq 26 000, w 2, Fbmax 130 000
	c, err := NewQCN(cfg)
	require.NoError(t, err)
	require.Equal(t, units.Bytes(130000), cfg.FbMax())
	var now units.Time
	// First sample at Q = Qeq: Qold = 0, so Qδ = Qeq, Fb = −2·Qeq → 25.
	m := qcnSampleNow(t, c, &now, cfg.Qeq)
	require.NotNil(t, m)
	require.Equal(t, uint8(2*26000*63/130000), m.QntzFb)
	require.Equal(t, int16(0), m.QOffset)
	require.Equal(t, int16(26000/64), m.QDelta)
	// Second at Q = Qeq: Fb = 0.
	require.Nil(t, qcnSampleNow(t, c, &now, cfg.Qeq))
	require.Equal(t, uint8(0), c.State().Fb)
	// Far above: saturates.
	require.Equal(t, uint8(63), qcnSampleNow(t, c, &now, 100*cfg.Qeq).QntzFb)
	require.Equal(t, uint8(63), qcnSampleNow(t, c, &now, QCNMaxQueue+1).QntzFb, "a queue past 32 bits saturates")
	require.Equal(t, uint32(QCNMaxQueue), c.State().QOld)
	// Below Qeq and falling or flat: nothing.
	for _, q := range []units.Bytes{20000, 10000, 10000, 0, 0} {
		require.Nil(t, qcnSampleNow(t, c, &now, q), "q %v", q)
	}
	// Qold = 0 now. Q with Q + 2Q − Qeq = Fbmax: Q = (130000 + 26000)/3 = 52000 → exactly 63.
	require.Equal(t, uint8(63), qcnSampleNow(t, c, &now, 52000).QntzFb)
	// Flat at 52000: Fb = −26000 → ⌊26000·63/130000⌋ = 12.
	require.Equal(t, uint8(12), qcnSampleNow(t, c, &now, 52000).QntzFb)
}

// A flat queue (Qδ = 0) gives |Fb| = Q − Qeq: |Fb| = Fbmax/63 (rounded up,
// 2064 B) quantises to 1, one byte less to 0 (no CNM although Fb < 0), and
// Fbmax and above to 63.
func TestQCNFlatQueueQuantisation(t *testing.T) {
	cfg := QCNStandard()
	for _, c := range []struct {
		over units.Bytes
		want uint8 // 0: no wire.CNM
	}{{0, 0}, {2063, 0}, {2064, 1}, {4126, 1}, {4127, 2}, {129999, 62}, {130000, 63}, {1 << 30, 63}} {
		cp, err := NewQCN(cfg)
		require.NoError(t, err)
		var now units.Time
		q := cfg.Qeq + c.over
		_ = qcnSampleNow(t, cp, &now, q) // Qold ← q
		m := qcnSampleNow(t, cp, &now, q)
		if c.want == 0 {
			require.Nil(t, m, "over %v", c.over)
			continue
		}
		require.NotNil(t, m, "over %v", c.over)
		require.Equal(t, c.want, m.QntzFb, "over %v", c.over)
	}
}

// The byte counter follows the table: after a sample whose QntzFb is in
// 8k..8k+7 the next comes SampleTable[k] bytes later.
func TestQCNSamplingTable(t *testing.T) {
	cfg := QCNStandard()
	for k := range 8 {
		c, err := NewQCN(cfg)
		require.NoError(t, err)
		var now units.Time
		// A flat queue with |Fb| = Q − Qeq giving QntzFb = 8k (+0..7).
		over := units.Bytes((8*k*130000 + 62) / 63)
		q := cfg.Qeq + over
		_ = qcnSampleNow(t, c, &now, q)
		_ = qcnSampleNow(t, c, &now, q)
		require.Equal(t, uint8(8*k), c.State().Fb, "k %d", k)
		require.Equal(t, uint32(QCNStandardSampleTable[k]), c.State().ToSample, "k %d", k)
	}
	// The first sample comes SampleTable[0] bytes after start: 150 frames
	// of 1000 B, the 150th sampled.
	c, _ := NewQCN(cfg)
	for i := range 150 {
		require.NoError(t, c.Enqueue(units.Time(i), &cc.Packet{Size: 1000}, cc.Queue{}, cc.NewActions(1)))
		require.Equal(t, uint64(i/149), c.State().Samples, "frame %d", i)
	}
	// Pseudocode table in QCNPaper.
	require.Equal(t, [8]units.Bytes{150 * 1024, 75 * 1024, 50 * 1024, 37.5 * 1024, 30 * 1024, 25 * 1024, 21.5 * 1024, 18.5 * 1024}, QCNPaper(10*units.Gbps).SampleTable)
}

// With jitter every interval lies in [N(100−J)/100, N(100+J)/100], the
// draws are reproducible from the seed, and their mean is N within 1 %
// (10 000 draws of a uniform spread ±J·N: the mean's standard deviation is
// J·N/√(3·10⁴) ≈ 0.0029·N at J = 50, so 1 % is over 3 deviations).
func TestQCNJitter(t *testing.T) {
	cfg := QCNStandard()
	cfg.JitterPercent, cfg.Seed = 50, 12345
	a, err := NewQCN(cfg)
	require.NoError(t, err)
	b, _ := NewQCN(cfg)
	n := float64(QCNStandardSampleTable[0])
	var sum float64
	const draws = 10000
	for i := range draws {
		q := cc.Queue{Len: 0}
		for _, c := range []*QCN{a, b} {
			left := c.State().ToSample
			require.NoError(t, c.Enqueue(units.Time(i), &cc.Packet{Size: units.Bytes(left)}, q, cc.NewActions(1)))
		}
		require.Equal(t, a.State(), b.State())
		iv := float64(a.State().ToSample)
		require.GreaterOrEqual(t, iv, n/2)
		require.Less(t, iv, 1.5*n)
		sum += iv
	}
	require.InDelta(t, n, sum/draws, n/100)
	require.NotZero(t, a.State().LFSR.State())
}

func TestQCNConfigErrors(t *testing.T) {
	for _, c := range []struct {
		field string
		mod   func(*QCNConfig)
	}{
		{"Qeq", func(c *QCNConfig) { c.Qeq = 0 }},
		{"Qeq", func(c *QCNConfig) { c.Qeq = QCNMaxQueue + 1 }},
		{"W", func(c *QCNConfig) { c.W = QCNMaxW + 1 }},
		{"SampleTable[3]", func(c *QCNConfig) { c.SampleTable[3] = 0 }},
		{"SampleTable[7]", func(c *QCNConfig) { c.SampleTable[7] = QCNMaxSampleInterval + 1 }},
		{"JitterPercent", func(c *QCNConfig) { c.JitterPercent = 51 }},
		{"Seed", func(c *QCNConfig) { c.JitterPercent = 10 }},
		{"CNMPrio", func(c *QCNConfig) { c.CNMPrio = 8 }},
	} {
		cfg := QCNStandard()
		c.mod(&cfg)
		_, err := NewQCN(cfg)
		var ce *cc.ConfigError
		require.ErrorAs(t, err, &ce, c.field)
		require.Equal(t, c.field, ce.Field)
		require.Equal(t, "cp.QCN", ce.Part)
		require.NotEmpty(t, ce.Range)
	}
	require.Error(t, QCNPaper(0).Validate())
	require.Error(t, QCNPaper(2000*units.Tbps).Validate())
	require.NoError(t, QCNPaper(400*units.Gbps).Validate())
	require.Equal(t, units.Bytes(26000), QCNPaper(10*units.Gbps).Qeq)
	require.Equal(t, units.Bytes(260000), QCNPaper(100*units.Gbps).Qeq)
	require.Equal(t, units.Bytes(2600), QCNPaper(units.Gbps).Qeq)
	require.Equal(t, units.Bytes(1), QCNPaper(units.Kbps).Qeq, "at least 1 B")
	// The largest link whose Qeq fits 32 bits: 26 000·L/10^10 < 2^32 for
	// L < 2^32·10^10/26 000 = 1 651 910 498 461 538.46 b/s, so L =
	// 1 651 910 498 461 538 gives ⌊4 294 967 295.99999⌋ = MaxQueue and one
	// b/s more 2^32, refused.
	const lmax = 1_651_910_498_461_538 * units.BitPerSecond
	require.Equal(t, QCNMaxQueue, QCNPaper(lmax).Qeq)
	require.NoError(t, QCNPaper(lmax).Validate())
	require.Error(t, QCNPaper(lmax+1).Validate())
}

// A CNM that does not fit is refused with ErrActionsFull and changes
// nothing; with room the same event sends it. An Enqueue given nil
// actions is refused (cc rule 3: it can decide), whether or not the frame
// would be sampled; Dequeue and Timer, which decide nothing, take nil.
// Bad input is a *cc.EventError that changes nothing; time order is
// checked first.
func TestQCNRefusals(t *testing.T) {
	c, err := NewQCN(QCNStandard())
	require.NoError(t, err)
	require.NoError(t, c.Enqueue(10, &cc.Packet{Size: units.Bytes(c.State().ToSample - 1)}, cc.Queue{Len: 1 << 20}, cc.NewActions(1)))
	before := c.State()
	regs := c.AppendRegisters(nil)
	p := &cc.Packet{Size: 1500}
	q := cc.Queue{Len: 1 << 20}
	require.ErrorIs(t, c.Enqueue(11, p, q, cc.NewActions(0)), cc.ErrActionsFull)
	require.Equal(t, before, c.State())
	for _, small := range []*cc.Packet{p, {Size: 1}} { // a sample, and a frame that is not
		err := c.Enqueue(11, small, q, nil)
		var ee *cc.EventError
		require.ErrorAs(t, err, &ee)
		require.ErrorIs(t, err, cc.ErrNoActions)
		require.Equal(t, cc.EventError{Part: "cp.QCN", Event: "Enqueue", Reason: ee.Reason, Err: cc.ErrNoActions}, *ee)
		require.Equal(t, before, c.State())
	}
	require.NoError(t, c.Dequeue(11, p, q, nil))
	require.NoError(t, c.Timer(11, nil))
	require.Equal(t, regs[1:], c.AppendRegisters(nil)[1:], "only the time moved")
	before = c.State()
	regs = c.AppendRegisters(nil)
	require.ErrorIs(t, c.Enqueue(9, p, q, cc.NewActions(0)), cc.ErrTimeOrder, "time first")
	for _, bad := range []struct {
		p *cc.Packet
		q cc.Queue
	}{{nil, q}, {&cc.Packet{Size: -1}, q}, {p, cc.Queue{Len: -1}}, {&cc.Packet{Size: 1, Prio: 8}, q}} {
		for _, ev := range []func() error{
			func() error { return c.Enqueue(11, bad.p, bad.q, cc.NewActions(1)) },
			func() error { return c.Dequeue(11, bad.p, bad.q, cc.NewActions(1)) },
		} {
			err := ev()
			var ee *cc.EventError
			require.ErrorAs(t, err, &ee)
			require.Equal(t, "cp.QCN", ee.Part)
			require.Equal(t, before, c.State())
		}
		require.ErrorIs(t, c.Enqueue(9, bad.p, bad.q, nil), cc.ErrTimeOrder)
	}
	require.Equal(t, regs, c.AppendRegisters(nil))
	act := cc.NewActions(1)
	require.NoError(t, c.Enqueue(11, p, q, act))
	require.Equal(t, 1, act.Len())
	require.NoError(t, c.Dequeue(12, p, cc.Queue{}, act))
	require.NoError(t, c.Timer(13, act))
	require.Equal(t, 1, act.Len(), "Dequeue and Timer decide nothing")
	require.Equal(t, units.MaxTime, c.NextDeadline())
	var te *cc.TimeOrderError
	require.True(t, errors.As(c.Timer(12, nil), &te))
	require.Equal(t, units.Time(13), te.Last)
}

func TestQCNRegisters(t *testing.T) {
	c, _ := NewQCN(QCNStandard())
	regs := c.AppendRegisters(nil)
	names := make([]string, len(regs))
	for i, r := range regs {
		names[i] = r.Name
		require.True(t, r.Fits(), "%v", r)
	}
	require.Equal(t, []string{"now", "q_old", "to_sample", "fb", "lfsr", "samples", "cnms"}, names)
	require.Equal(t, uint64(150000), regs[2].Value)
}
