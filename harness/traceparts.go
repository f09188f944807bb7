package harness

import (
	"fmt"
	"strconv"
	"strings"
)

// CheckPart reports whether the network s built (New) has the part t
// names, so that a wrong Which is an error before the run rather than
// after it (Err): a switch with that port, a switch, or a flow among those
// built before the run (any flow number when Poisson arrivals may create
// it). Its error lists the valid names.
func (t *TraceTarget) CheckPart(s *Sim) error {
	if _, err := t.parse(); err != nil {
		return err
	}
	bad := func(why string) error {
		return fmt.Errorf("harness: trace part %s: %s; this run has %s", t.Which, why, s.partNames())
	}
	switch t.kind {
	case "rp", "np":
		if int(t.flow) >= len(s.flows) && s.sc.Workload.Poisson == nil {
			return bad(fmt.Sprintf("no flow %d", t.flow))
		}
	case "port", "switch":
		n, ok := s.byName[t.node]
		switch {
		case !ok || n.isHost:
			return bad(fmt.Sprintf("no switch %q", t.node))
		case t.kind == "port" && t.port >= len(n.ports):
			return bad(fmt.Sprintf("switch %s has ports 0..%d", t.node, len(n.ports)-1))
		}
	}
	return nil
}

// partNames describes the parts a trace can name in s, for errors.
func (s *Sim) partNames() string {
	const show = 8
	var sw []string
	for _, n := range s.nodes {
		if n.isHost {
			continue
		}
		if len(sw) == show {
			sw = append(sw, "…")
			break
		}
		sw = append(sw, n.name+" (ports 0.."+strconv.Itoa(len(n.ports)-1)+")")
	}
	flows := "no flows before the run"
	if len(s.flows) > 0 {
		flows = fmt.Sprintf("flows 0..%d", len(s.flows)-1)
	}
	if s.sc.Workload.Poisson != nil {
		flows += " and Poisson flows as they arrive"
	}
	return fmt.Sprintf("%s (flow:N:rp, flow:N:np) and switches %s (port:NODE:P, switch:NODE)", flows, strings.Join(sw, ", "))
}
