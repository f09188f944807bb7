package harness

import "github.com/hwcc/hwcc/units"

// networkRTT returns the largest idle-path round trip of the network and
// the largest number of switches on a path: a data frame of w wire bytes
// from one host to another and its ACK of a wire bytes back, store and
// forward at every hop (rtt0's sum), over every ordered pair of hosts and
// every path the ECMP sets allow. INT bytes are not included (as in
// flowInfo.BaseRTT).
//
// The round trip is the largest one-way data time plus the largest one-way
// ACK time, which is the largest round trip when the worst pair is worst
// both ways (true of every built-in topology: their links are full duplex
// with one rate and delay both ways) and never below it. For each
// destination host a pass over the switches in breadth-first order (the
// order of buildRoutes' distances) gives every switch's worst time to that
// host, and each switch's slowest attached host link is added once. The
// pass is made once per edge switch, whose hosts differ only in their last
// link: the cost is O(edge switches·(switches + links) + hosts·edge
// switches), once per run.
//
// HPCC reads it (flowInfo.MaxBaseRTT): Eqn (1) of [HPCC]
// §3.2 assumes that all flows share one known base RTT T, and section 5.1
// sets T "slightly greater than the maximum RTT of the networks" (13 µs for
// a 12 µs network; [HPCC-ns3]'s runs use GLOBAL_T 1, the largest
// pair RTT, for every flow).
func (s *Sim) networkRTT(w, a units.Bytes) (units.Time, int) {
	nn := len(s.nodes)
	if len(s.hosts) < 2 || nn == 0 {
		return 0, 0
	}
	// The first hop of a path from host o: its own link, w or a bytes.
	// Per switch, the two largest first hops over its hosts (so that a
	// destination on the switch is not paired with itself).
	type top2 struct {
		host       *node
		best, next units.Time
	}
	firstW := make([]top2, nn)
	firstA := make([]top2, nn)
	put := func(t *top2, o *node, v units.Time) {
		switch {
		case t.host == nil || v > t.best:
			if t.host != nil {
				t.next = t.best
			}
			t.host, t.best = o, v
		case v > t.next:
			t.next = v
		}
	}
	for _, o := range s.hosts {
		p := o.ports[0]
		sw := p.peer.node
		put(&firstW[sw.id], o, units.SerializationTime(w, p.rate)+p.delay)
		put(&firstA[sw.id], o, units.SerializationTime(a, p.rate)+p.delay)
	}
	first := func(t *top2, h *node) units.Time {
		if t.host == h {
			return t.next
		}
		return t.best
	}
	// Each port's cost for a frame of w and of a bytes, once: the inner loop
	// below runs for every host.
	hopW := make([]units.Time, len(s.ports))
	hopA := make([]units.Time, len(s.ports))
	for _, p := range s.ports {
		hopW[p.gid] = units.SerializationTime(w, p.rate) + p.delay
		hopA[p.gid] = units.SerializationTime(a, p.rate) + p.delay
	}
	// Every path to a host h of edge switch e ends with the link e→h, and
	// a switch other than e has one ECMP set toward all of e's hosts
	// (buildRoutes), so a switch's worst time to h is its worst time to e,
	// c(e), plus hop(e→h): one pass per edge switch gives c, and each host
	// adds its last hop (the sums are integers, so this is exactly the
	// per-host pass).
	dist := make([]int, nn)
	order := make([]*node, 0, nn)
	costW := make([]units.Time, nn)
	costA := make([]units.Time, nn)
	var oneW, oneA units.Time
	maxSw := 0
	for _, e := range s.edges {
		// Distances from e through switches: a host's distance to a switch
		// is one more.
		order = s.bfsOrder(e, dist, order[:0])
		costW[e.id], costA[e.id] = 0, 0
		to := s.hostsOf[e.id][0].id // any host of e: the sets toward e's hosts are one
		for _, n := range order[1:] {
			var cw, ca units.Time
			peer, gid := s.adj.of(n.id)
			for _, pn := range n.ecmpSet(to) {
				g, m := gid[pn], peer[pn]
				cw = max(cw, hopW[g]+costW[m])
				ca = max(ca, hopA[g]+costA[m])
			}
			costW[n.id], costA[n.id] = cw, ca
		}
		for _, h := range s.hostsOf[e.id] {
			last := h.ports[0].peer.gid // e's port to h
			lw, la := hopW[last], hopA[last]
			for _, sw := range s.edges {
				if len(s.hostsOf[sw.id]) == 1 && firstW[sw.id].host == h {
					continue // h alone on its switch: no other host there
				}
				// A path from a host of sw crosses dist(sw)+1 switches.
				maxSw = max(maxSw, dist[sw.id]+1)
				oneW = max(oneW, first(&firstW[sw.id], h)+costW[sw.id]+lw)
				oneA = max(oneA, first(&firstA[sw.id], h)+costA[sw.id]+la)
			}
		}
	}
	return oneW + oneA, maxSw
}

// bfsOrder returns the switches in order of distance (in links) to node h,
// h first, appended to order; dist receives the distances (-1: not
// reached). Paths never go through a host: buildRoutes' searches.
func (s *Sim) bfsOrder(h *node, dist []int, order []*node) []*node {
	for i := range dist {
		dist[i] = -1
	}
	dist[h.id] = 0
	order = append(order, h)
	for i := 0; i < len(order); i++ {
		n := order[i].id
		peer, _ := s.adj.of(n)
		for _, m := range peer {
			if dist[m] >= 0 || s.adj.host[m] {
				continue
			}
			dist[m] = dist[n] + 1
			order = append(order, s.nodes[m])
		}
	}
	return order
}

// adjacency is the network's links as the set-up's searches read them
// (buildRoutes, networkRTT): node n's ports, in port order, lead to the
// nodes peer[off[n]:off[n+1]] and are the ports gid[off[n]:off[n+1]]. It
// is built once, from the ports, and is small and contiguous, so that the
// searches of a large topology (one per edge switch, each over every
// link) read a few arrays rather than two ports and a node per link.
type adjacency struct {
	off  []int32
	peer []NodeID
	gid  []int32
	host []bool // by node ID: the node is a host
}

// buildAdjacency fills s.adj from the nodes' ports.
func (s *Sim) buildAdjacency() {
	a := adjacency{off: make([]int32, len(s.nodes)+1), host: make([]bool, len(s.nodes))}
	a.peer = make([]NodeID, 0, len(s.ports))
	a.gid = make([]int32, 0, len(s.ports))
	for i, n := range s.nodes {
		a.host[i] = n.isHost
		for _, p := range n.ports {
			a.peer = append(a.peer, p.peer.node.id)
			a.gid = append(a.gid, p.gid)
		}
		a.off[i+1] = int32(len(a.peer))
	}
	s.adj = a
}

// of returns node n's neighbours and ports, by port number.
func (a *adjacency) of(n NodeID) (peer []NodeID, gid []int32) {
	lo, hi := a.off[n], a.off[n+1]
	return a.peer[lo:hi:hi], a.gid[lo:hi:hi]
}
