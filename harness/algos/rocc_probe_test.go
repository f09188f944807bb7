package algos

import (
	"strings"
	"testing"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/pi"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
)

// The RoCC probe: a run of "rocc" with every CP and RP it builds wrapped
// (Options.Wrap), recording the fair rate and queue of every update of
// each CP and the CNPs that reached each RP.

// roccTracePoint is one update of a traced CP.
type roccTracePoint struct {
	at units.Time
	f  uint32      // fair rate, ΔF units (the CNP's field)
	q  units.Bytes // queue sampled
	br pi.Branch   // branch of Algorithm 1 taken
}

// roccPortInfo is where a traced CP runs: its switch (node ID and name),
// its port on the switch and the node at the port's other end.
type roccPortInfo struct {
	Node     harness.NodeID
	NodeName string
	Port     int
	PeerName string
}

// roccTracedCP wraps the cp.RoCC c of one egress queue.
type roccTracedCP struct {
	cc.CongestionPoint
	c     *cp.RoCC
	info  roccPortInfo
	trace []roccTracePoint
	// qlen is the queue as the latest Enqueue or Dequeue reported it, the
	// queue an update samples.
	qlen units.Bytes
	// handed counts the CNPs the CP's updates asked for: one per flow of
	// its table at each update; last those of its latest update.
	handed, last uint64
}

func (c *roccTracedCP) Enqueue(now units.Time, p *cc.Packet, q cc.Queue, act *cc.Actions) error {
	c.qlen = q.Len
	return c.CongestionPoint.Enqueue(now, p, q, act)
}

func (c *roccTracedCP) Dequeue(now units.Time, p *cc.Packet, q cc.Queue, act *cc.Actions) error {
	c.qlen = q.Len
	return c.CongestionPoint.Dequeue(now, p, q, act)
}

// Timer runs the CP's timer and records the update it made, if any.
func (c *roccTracedCP) Timer(now units.Time, act *cc.Actions) error {
	before := c.c.State().Updates
	err := c.CongestionPoint.Timer(now, act)
	if st := c.c.State(); st.Updates != before {
		c.trace = append(c.trace, roccTracePoint{at: now, f: c.c.Params().RateUnits(c.c.F()), q: c.qlen, br: st.Branch})
		c.handed += uint64(st.Flows)
		c.last = uint64(st.Flows)
	}
	return err
}

// roccFlowInfo is the flow of a traced RP and its source host.
type roccFlowInfo struct {
	ID      harness.FlowID
	SrcName string
}

// roccTracedRP wraps the rp.RoCC r of one flow.
type roccTracedRP struct {
	cc.ReactionPoint
	r    *rp.RoCC
	info roccFlowInfo
	// received counts the CPs' messages that reached the part (after the
	// NIC's reaction delay).
	received uint64
}

func (r *roccTracedRP) Feedback(now units.Time, f *cc.Feedback, act *cc.Actions) error {
	switch f.Kind {
	case cc.FeedbackAck, cc.FeedbackNak, cc.FeedbackCNP:
	default:
		r.received++
	}
	return r.ReactionPoint.Feedback(now, f, act)
}

// roccProbe records what one run built.
type roccProbe struct {
	cps []*roccTracedCP
	rps []*roccTracedRP
}

// wrap is the run's Options.Wrap.
func (pr *roccProbe) wrap(at harness.Place, p cc.Part) cc.Part {
	switch at.Role {
	case cc.RoleCP:
		c := &roccTracedCP{CongestionPoint: p.(cc.CongestionPoint), c: p.(*cp.RoCC),
			info: roccPortInfo{Node: harness.NodeID(at.Env.Node), NodeName: at.Node, Port: at.Port}}
		pr.cps = append(pr.cps, c)
		return c
	case cc.RoleRP:
		r := &roccTracedRP{ReactionPoint: p.(cc.ReactionPoint), r: p.(*rp.RoCC), info: roccFlowInfo{ID: at.Flow, SrcName: at.Node}}
		pr.rps = append(pr.rps, r)
		return r
	}
	return p
}

// roccRunProbe runs sc under rocc with the probe's wrappers and returns
// the result and what the probe saw.
func roccRunProbe(t testing.TB, sc *harness.Scenario, opts harness.Options) (*harness.Result, *roccProbe, error) {
	pr := &roccProbe{}
	sc.Algorithm = roccName
	opts.Wrap = pr.wrap
	res, err := harness.Run(sc, opts)
	if err != nil {
		return res, pr, err
	}
	// Each CP's peer, from the run's port ("node->peer").
	for _, c := range pr.cps {
		for _, p := range res.Ports {
			if p.Node == c.info.NodeName && p.Port == c.info.Port {
				_, c.info.PeerName, _ = strings.Cut(p.Link, "->")
			}
		}
	}
	return res, pr, nil
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
