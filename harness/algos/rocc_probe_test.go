package algos

import (
	"sync"

	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/units"
)

// roccProbeName is a test-only algorithm: "rocc" with every CP and RP it
// creates recorded, and the fair rate and queue of every update traced.
const roccProbeName = "rocc-probe"

// roccTracePoint is one update of a traced CP.
type roccTracePoint struct {
	at units.Time
	f  uint32        // fair rate, ΔF units (the CNP's field)
	q  units.Bytes   // queue sampled
	br cp.RoCCBranch // branch of Algorithm 1 taken
}

// roccTracedCP is the adapter's CP with every update recorded.
type roccTracedCP struct {
	*roccCP
	info  harness.CPInfo
	trace []roccTracePoint
}

func (c *roccTracedCP) OnTimer(now units.Time, q *harness.Queue) {
	qlen := q.Len()
	c.roccCP.OnTimer(now, q)
	c.trace = append(c.trace, roccTracePoint{at: now, f: c.c.F(), q: qlen, br: c.c.State().Branch})
}

// roccTracedRP is the adapter's RP and the flow it serves.
type roccTracedRP struct {
	*roccRP
	info harness.FlowInfo
}

// roccProbe records what the current run created.
type roccProbe struct {
	cps []*roccTracedCP
	rps []*roccTracedRP
}

var roccProbeState struct {
	sync.Mutex
	once sync.Once
	cur  *roccProbe
}

// roccProbeAlgo is roccAlgo under the name roccProbeName, recording into
// roccProbeState.cur.
type roccProbeAlgo struct{ roccAlgo }

func (roccProbeAlgo) Name() string { return roccProbeName }

func (a roccProbeAlgo) NewCP(info harness.CPInfo) (harness.CP, error) {
	c, err := a.roccAlgo.NewCP(info)
	if err != nil {
		return nil, err
	}
	t := &roccTracedCP{roccCP: c.(*roccCP), info: info}
	if pr := roccProbeState.cur; pr != nil { // nil: run outside roccRunProbe
		pr.cps = append(pr.cps, t)
	}
	return t, nil
}

func (a roccProbeAlgo) NewRP(f harness.FlowInfo) (harness.RP, error) {
	r, err := a.roccAlgo.NewRP(f)
	if err != nil {
		return nil, err
	}
	t := &roccTracedRP{roccRP: r.(*roccRP), info: f}
	if pr := roccProbeState.cur; pr != nil {
		pr.rps = append(pr.rps, t)
	}
	return t, nil
}

// roccRunProbe runs sc under the probe algorithm and returns the result and
// what the probe saw. Tests using it must not run in parallel.
func roccRunProbe(sc *harness.Scenario, opts harness.Options) (*harness.Result, *roccProbe, error) {
	roccProbeState.once.Do(func() { harness.MustRegister(roccProbeAlgo{}) })
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
