package algos

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
)

// roccProbeName is a test-only algorithm: "rocc" (the generic adapter over
// the registry's rocc parts) with every CP and RP it creates recorded, and
// the fair rate and queue of every update traced. The name starts with
// "test-" and contains "probe", so the tests that run every registered
// algorithm skip it.
const roccProbeName = "test-rocc-probe"

// roccTracePoint is one update of a traced CP.
type roccTracePoint struct {
	at units.Time
	f  uint32        // fair rate, ΔF units (the CNP's field)
	q  units.Bytes   // queue sampled
	br cp.RoCCBranch // branch of Algorithm 1 taken
}

// roccTracedCP wraps the generic adapter's CP of one egress queue; c is
// the cp.RoCC it drives.
type roccTracedCP struct {
	harness.CP
	c     *cp.RoCC
	info  harness.CPInfo
	trace []roccTracePoint
	// handed counts the CNPs the CP's updates asked for: one per flow of
	// its table at each update.
	handed uint64
}

// OnTimer runs the CP's timer and records the update it made, if any.
func (c *roccTracedCP) OnTimer(now units.Time, q *harness.Queue) {
	qlen := q.Len()
	before := c.c.State().Updates
	c.CP.OnTimer(now, q)
	if st := c.c.State(); st.Updates != before {
		c.trace = append(c.trace, roccTracePoint{at: now, f: c.c.F(), q: qlen, br: st.Branch})
		c.handed += uint64(st.Flows)
	}
}

// roccTracedRP wraps the generic adapter's RP of one flow; r is the rp.RoCC
// it drives.
type roccTracedRP struct {
	harness.RP
	r    *rp.RoCC
	info harness.FlowInfo
	// received counts the CNPs that reached the flow's NIC.
	received uint64
}

func (r *roccTracedRP) OnFeedback(now units.Time, fb *harness.Feedback) {
	r.received++
	r.RP.OnFeedback(now, fb)
}

// roccProbe records what the current run created.
type roccProbe struct {
	cps []*roccTracedCP
	rps []*roccTracedRP
}

// roccProbeAlgo is the rocc scheme under the name roccProbeName, recording
// into roccProbeState.cur.
type roccProbeAlgo struct{ harness.Algorithm }

var roccProbeState struct {
	sync.Mutex
	once sync.Once
	cur  *roccProbe
}

func (roccProbeAlgo) Name() string { return roccProbeName }

func (a roccProbeAlgo) NewCP(info harness.CPInfo) (harness.CP, error) {
	c, err := a.Algorithm.NewCP(info)
	if err != nil {
		return nil, err
	}
	t := &roccTracedCP{CP: c, c: c.(harness.PartHolder).Part().(*cp.RoCC), info: info}
	if pr := roccProbeState.cur; pr != nil { // nil: run outside roccRunProbe
		pr.cps = append(pr.cps, t)
	}
	return t, nil
}

func (a roccProbeAlgo) NewRP(f harness.FlowInfo) (harness.RP, error) {
	r, err := a.Algorithm.NewRP(f)
	if err != nil {
		return nil, err
	}
	t := &roccTracedRP{RP: r, r: r.(harness.PartHolder).Part().(*rp.RoCC), info: f}
	if pr := roccProbeState.cur; pr != nil {
		pr.rps = append(pr.rps, t)
	}
	return t, nil
}

// roccScheme returns the harness's rocc algorithm: the generic adapter over
// the cc registry's rocc parts.
func roccScheme(t testing.TB) harness.Algorithm {
	t.Helper()
	a, err := harness.Lookup(roccName)
	require.NoError(t, err)
	return a
}

// roccRunProbe runs sc under the probe algorithm and returns the result and
// what the probe saw. Tests using it must not run in parallel.
func roccRunProbe(t testing.TB, sc *harness.Scenario, opts harness.Options) (*harness.Result, *roccProbe, error) {
	roccProbeState.once.Do(func() { harness.MustRegister(roccProbeAlgo{Algorithm: roccScheme(t)}) })
	roccProbeState.Lock()
	defer roccProbeState.Unlock()
	pr := &roccProbe{}
	roccProbeState.cur = pr
	sc.Algorithm = roccProbeName
	res, err := harness.Run(sc, opts)
	roccProbeState.cur = nil
	return res, pr, err
}

// cp returns the traced CP of the port node->peer, or nil.
func (p *roccProbe) cp(node, peer string) *roccTracedCP {
	for _, c := range p.cps {
		if c.info.NodeName == node && c.info.PeerName == peer {
			return c
		}
	}
	return nil
}
