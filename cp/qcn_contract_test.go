package cp

import (
	"testing"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cc/cctest"
	"github.com/hwcc/hwcc/units"
	"github.com/stretchr/testify/require"
)

// The conformance suite on the congestion points: the standard CP, a CP
// with a small Qeq and jitter (so that the generated queues, up to 2.5 MB,
// cross Qeq often and CNMs are frequent), and AF-QCN with unequal weights.
func TestQCNConformance(t *testing.T) {
	jitter := QCNStandard()
	jitter.Qeq, jitter.JitterPercent, jitter.Seed, jitter.CPID = 20000, 15, 7, 0xabc
	jitter.SampleTable = [8]units.Bytes{8000, 6000, 4000, 3000, 2500, 2000, 1500, 1000}
	for _, cfg := range []QCNConfig{QCNStandard(), QCNPaper(100 * units.Gbps), jitter} {
		st, err := cctest.TestStats(func() (cc.Part, error) { return NewQCN(cfg) }, cctest.Options{})
		require.NoError(t, err)
		t.Logf("Qeq %v: %d calls, %d accepted, %d CNMs", cfg.Qeq, st.Calls, st.Accepted, st.Actions[cc.ActionFeedback])
		require.NotZero(t, st.Actions[cc.ActionFeedback], "the sequences make CNMs")
	}
}

func TestAFQCNConformance(t *testing.T) {
	cfg := AFQCNPaper(100 * units.Gbps)
	cfg.QCN.Qeq = 20000
	cfg.QCN.SampleTable = [8]units.Bytes{8000, 6000, 4000, 3000, 2500, 2000, 1500, 1000}
	cfg.Weights = [AFQCNClasses]uint16{1, 2, 3, 4, 5, 6, 7, 8}
	cfg.Ts = 10 * units.Microsecond
	for _, by := range []AFQCNClassKey{AFQCNClassByPrio, AFQCNClassByFlow} {
		cfg.ClassBy = by
		st, err := cctest.TestStats(func() (cc.Part, error) { return NewAFQCN(cfg) }, cctest.Options{})
		require.NoError(t, err)
		t.Logf("by %v: %d calls, %d accepted, %d CNMs", by, st.Calls, st.Accepted, st.Actions[cc.ActionFeedback])
		require.NotZero(t, st.Actions[cc.ActionFeedback])
	}
	require.NoError(t, cctest.TestCP(func() (cc.CongestionPoint, error) { return NewAFQCN(AFQCNPaper(10 * units.Gbps)) }, cctest.Options{}))
}

// No successful event allocates, nor AppendRegisters with room.
func TestQCNNoAllocs(t *testing.T) {
	c, _ := NewQCN(QCNStandard())
	jc := QCNStandard()
	jc.JitterPercent, jc.Seed = 20, 3
	j, _ := NewQCN(jc)
	af, _ := NewAFQCN(AFQCNPaper(10 * units.Gbps))
	act := cc.NewActions(4)
	p := &cc.Packet{Flow: 3, Size: 1500, Prio: 2}
	now := units.Time(0)
	q := units.Bytes(0)
	require.Zero(t, testing.AllocsPerRun(5000, func() {
		now += units.Microsecond
		q = (q + 7919) % (200 * units.KB)
		act.Reset()
		for _, cp := range []cc.CongestionPoint{c, j, af} {
			if err := cp.Enqueue(now, p, cc.Queue{Len: q}, act); err != nil {
				panic(err)
			}
			if err := cp.Dequeue(now, p, cc.Queue{Len: q}, act); err != nil {
				panic(err)
			}
			if err := cp.Timer(now, act); err != nil {
				panic(err)
			}
		}
	}))
	require.NotZero(t, c.State().CNMs+af.State().QCN.CNMs)
	require.NotZero(t, af.State().Ticks)
	dst := make([]cc.Register, 0, 64)
	for _, part := range []cc.Part{c, af} {
		require.Zero(t, testing.AllocsPerRun(1000, func() { dst = part.AppendRegisters(dst[:0]) }))
	}
}
