package harness

import (
	"fmt"
	"unsafe"

	"github.com/hwcc/hwcc/credit"

	"github.com/hwcc/hwcc/units"
)

// node is a host or a switch.
//
// Line 0 holds what a frame through a switch touches of it (isHost,
// module, the buffer's accounting), and the ports; a host's active list
// and round-robin position follow, on line 1; the rest is read when the
// network is built, or by the ECMP hash for a frame off its flow's path.
// lineNode puts line 0 on a cache line.
type node struct {
	id     NodeID
	isHost bool
	swID   uint16 // 12-bit INT switch ID (index among switches + 1)
	ports  []*port

	// Switch state.
	module *Switch // the algorithm's switch module, if any
	// buffer is the switch's buffer: switch.buffer, or switch.pool plus
	// hdrmReserve when switch.pool > 0 (see buildSwitches).
	buffer  units.Bytes
	bufUsed units.Bytes // buffer occupancy: data frames admitted and not yet dequeued
	// hdrmReserve is the PFC headroom of every port, held back from the
	// shared pool (PFC on; see the package documentation, Switch model).
	hdrmReserve units.Bytes

	// Host state: flows with data to send, served round robin.
	active []*flow
	rr     int

	name       string
	routes     []routeSpan // routes[dst host]: its candidate egress port numbers in routeArena (ECMP set; ecmpSet)
	routeArena []int32
	salt       uint64 // per-switch ECMP hash salt
	byDst      bool   // ECMP hashes the destination only (switch.ecmp destination)
}

// lineNode is a node padded to a whole number of 64-byte cache lines: a
// node is allocated alone, and in a size class of whole lines (smaller
// than 512 bytes, it has no allocation header, see allocHeader), so that
// it starts on a line.
type lineNode struct {
	node
	_ [64 - unsafe.Sizeof(node{})%64]byte
}

// port is one side of a link: the egress of its node toward peer's node.
// A frame transmitted by p arrives at peer.node through peer (peer is its
// ingress there), after serialisation at rate and the propagation delay.
//
// A k = 16 fat tree has 6 144 ports, more than the caches hold, and each
// 64-byte line of a port that a frame touches is likely a miss, so the
// fields are placed by the lines the per-frame paths touch (linePort puts
// line 0 on a line; TestHotFieldLines lists the paths' fields from the
// code and checks the counts):
//
//   - line 0: what every event on the port reads first (dispatch, warm,
//     kick), and what switchNext reads of a port with nothing to send,
//     besides q[ControlPrio].n and shapedQ.n, on line 3: an evTxDone that
//     finds nothing to send touches two lines;
//   - lines 1 to 6: the rest of what queueing and sending a frame touches
//     (enqueue, switchNext and its scheduler, switchDequeued, transmit,
//     queueChanged, a congestion point's queue view): seven lines in all
//     for a data frame through a switch port, at most six for a control
//     frame or at a host; the counters every frame updates (st.txBytes, st.q) end
//     them, so that the rest of st, read at the end of the run, follows;
//   - then what the names, PFC frames, shaped control messages and CBFC
//     use;
//   - then one line with wake, a host's pacing wake-up, and the ingress
//     side's PFC accounting, what admitting and releasing a data frame of
//     priority up to DataPrio through this port at a switch touches
//     besides line 0 (a host port has no ingress accounting, a switch
//     port rarely a wake-up);
//   - then the rest.
type port struct {
	node     *node
	busy     bool
	pfcDirty uint8                // priorities whose PFC state must be signalled
	fcDue    uint8                // CBFC lanes whose flow-control packet is due
	gid      int32                // index in Sim.ports
	bytes    units.Bytes          // queued, all priorities and shapedQ
	vq       *portVOQ             // the data frames' VOQs (switch.scheduler voq, voq-credit), else nil
	fq       *portQueues          // the data frames' physical queues (switch.scheduler queues), else nil
	sched    Scheduler            // picks the data priority to send (switch ports only)
	pausedBy [NumPrios]bool       // PFC received from the peer: data priority paused on this egress
	cbfcTx   []*credit.CBFCSender // see CBFC below
	rate     units.Rate
	q        [NumPrios]fifo // by priority; q[ControlPrio] shares a line with shapedQ
	shapedQ  fifo           // the shaped control class (ControlKind.Spacing), see shapedAt
	pool     *packetPool    // the Sim's, whose handles q holds
	delay    units.Time
	qbytes   [NumPrios]units.Bytes // queued, per priority
	txStart  units.Time            // start of the frame in serialisation (or the last one)
	txEnd    units.Time            // its end
	txSize   units.Bytes           // its wire size
	peerGID  int32                 // peer.gid: where transmit's frames arrive
	queue    *egressQueue          // the data queue's view for CPs (switch ports only)
	st       portStats             // txBytes and q first, ending the lines above

	peer     *port
	num      int        // port number on its node
	name     string     // "node->peer", unique in the run
	shapedAt units.Time // the earliest time the shaper lets shapedQ's next message start
	fcWake   timerSlot  // see CBFC below

	wake timerSlot // pending wake-up: a host's pacing, a port's shaper

	// PFC this port sends to its peer, as the ingress of the peer's frames;
	// maxIngress is the most bytes ing held for one priority
	// (PortResult.MaxIngress).
	headroom   units.Bytes
	maxIngress units.Bytes
	wantPause  [NumPrios]bool        // the state the thresholds ask for
	ing        [NumPrios]units.Bytes // bytes admitted through this ingress and still in the switch
	toldPause  [NumPrios]bool        // the state last signalled to the peer

	// CBFC (switch.flow_control = cbfc): the senders of this egress, one
	// per data priority, when its peer is a switch (cbfcTx); the receivers
	// of this port as the ingress of its peer's frames, when its node is a
	// switch; cbfcAdj turns a frame's wire size into the bytes its credit
	// counts (less preamble and gap, plus the INT record a switch port may
	// add); fcDue the lanes whose flow-control packet is due, fcWake their
	// timer.
	cbfcRx  []*credit.CBFCReceiver
	cbfcAdj units.Bytes
}

// linePort is a port placed on 64-byte cache lines in the slab's arrays:
// an array starts allocHeader bytes into a line, the padding before the
// port puts it on the next, and the padding after it makes a linePort a
// whole number of lines, so that every port of the array starts on one.
type linePort struct {
	_ [64 - allocHeader]byte
	port
	_ [64 - (64-allocHeader+unsafe.Sizeof(port{}))%64]byte
}

// allocHeader is the size of the header the Go runtime (1.22 and later)
// puts at the start of a small heap object of more than 512 bytes that
// holds pointers (its type, for the garbage collector), before the object
// itself: such an object, up to 32 KB − allocHeader and in a size class
// of whole 64-byte lines, starts allocHeader bytes into a line. (A larger
// object keeps its type in its span and starts on a page.) The line types
// (linePort, lineQueue, lineFlow, lineNode's arrays, linePacket's chunks)
// start with 64 − allocHeader bytes of padding to put what they hold on a
// line; their arrays stay small objects (slabBytes, packetChunkBits), and
// TestHotStructsStartOnALine checks that they start on one.
const allocHeader = 8

// maxSmallAlloc is the largest object the runtime allocates as a small
// one, with its header (runtime maxSmallSize).
const maxSmallAlloc = 32 << 10

// egressQueue is one switch egress data queue and its congestion point.
// What a data frame touches of it (enqueue, switchDequeued, armCP) comes
// first, on one line (lineQueue); info is read when the CP is built.
type egressQueue struct {
	s     *Sim
	p     *port
	prio  uint8
	id    CPID
	cp    *schemeCP // nil when the algorithm runs none
	timer timerSlot
	info  cpInfo
}

// lineQueue is an egressQueue placed on whole 64-byte cache lines in the
// slab's arrays, as linePort is a port.
type lineQueue struct {
	_ [64 - allocHeader]byte
	egressQueue
	_ [64 - (64-allocHeader+unsafe.Sizeof(egressQueue{}))%64]byte
}

// len returns the bytes queued in this queue now (wire bytes).
func (q *egressQueue) len() units.Bytes { return q.p.qbytes[q.prio] }

// txBytes returns the wire bytes the port has transmitted since the start
// of the run (all priorities), a 64-bit counter that does not wrap in any
// feasible run.
func (q *egressQueue) txBytes() uint64 { return q.p.st.txBytes }

// paused reports whether the downstream neighbour has paused this queue's
// priority with PFC.
func (q *egressQueue) paused() bool { return q.p.pausedBy[q.prio] }

// addNode appends a host or switch.
func (s *Sim) addNode(name string, host bool) (*node, error) {
	if _, dup := s.byName[name]; dup {
		return nil, fmt.Errorf("harness: node name %q used twice", name)
	}
	ln := &lineNode{node: node{id: NodeID(len(s.nodes)), name: name, isHost: host}}
	n := &ln.node
	if !host {
		s.nSwitches++
		n.swID = uint16(s.nSwitches) & 0xFFF
		if s.bySwID[n.swID] == nil { // beyond 4095 switches, IDs repeat: the first keeps it
			s.bySwID[n.swID] = n
		}
	}
	s.nodes = append(s.nodes, n)
	s.byName[name] = n
	if host {
		s.hosts = append(s.hosts, n)
	}
	return n, nil
}

// connect joins a and b with a full-duplex link of the given rate and
// propagation delay (the same both ways). A host has exactly one port.
func (s *Sim) connect(a, b *node, rate units.Rate, delay units.Time) error {
	if rate <= 0 {
		return fmt.Errorf("harness: link %s-%s: rate %v, want > 0", a.name, b.name, rate)
	}
	if delay < 0 {
		return fmt.Errorf("harness: link %s-%s: delay %v, want >= 0", a.name, b.name, delay)
	}
	for _, n := range []*node{a, b} {
		if n.isHost && len(n.ports) > 0 {
			return fmt.Errorf("harness: host %s already has a link", n.name)
		}
	}
	if a.isHost && b.isHost {
		return fmt.Errorf("harness: link %s-%s joins two hosts; hosts connect to switches", a.name, b.name)
	}
	pa := s.newPort(a, rate, delay)
	pb := s.newPort(b, rate, delay)
	pa.peer, pb.peer = pb, pa
	pa.peerGID, pb.peerGID = pb.gid, pa.gid
	return nil
}

func (s *Sim) newPort(n *node, rate units.Rate, delay units.Time) *port {
	p := &s.portSlab.next().port
	p.gid, p.node, p.num, p.rate, p.delay = int32(len(s.ports)), n, len(n.ports), rate, delay
	p.pool = &s.pool
	p.wake.at = units.MaxTime
	n.ports = append(n.ports, p)
	s.ports = append(s.ports, p)
	return p
}

// nameLinks names every port "node->peer", adding "#k" for the k-th
// parallel link between the same pair.
func (s *Sim) nameLinks() {
	seen := make(map[string]int, len(s.ports))
	for _, p := range s.ports {
		base := p.node.name + "->" + p.peer.node.name
		seen[base]++
		if k := seen[base]; k > 1 {
			p.name = fmt.Sprintf("%s#%d", base, k)
		} else {
			p.name = base
		}
	}
}

// buildRoutes fills every switch's ECMP sets by breadth-first search: a
// switch may forward toward host h through any port whose peer is one hop
// closer to h. Paths never go through another host.
//
// Hosts hang off one switch each (their edge switch), so a switch's
// distance to h is its distance to h's edge switch plus one, and its ECMP
// set toward h is its set toward that switch, except at the edge switch
// itself, where it is the port to h. One search per edge switch (not per
// host) fills the sets of all its hosts, which share one stored set.
func (s *Sim) buildRoutes() error {
	s.buildAdjacency()
	nn := len(s.nodes)
	for _, n := range s.nodes {
		if !n.isHost {
			n.routes = make([]routeSpan, nn)
			n.routeArena = make([]int32, 0, 2*len(n.ports))
		}
	}
	dist := make([]int, nn)
	order := make([]*node, 0, nn)
	hostsOf := make([][]*node, nn)
	var edges []*node
	for _, h := range s.hosts {
		if len(h.ports) != 1 {
			return fmt.Errorf("harness: host %s has no link", h.name)
		}
		e := h.ports[0].peer.node
		if hostsOf[e.id] == nil {
			edges = append(edges, e)
		}
		hostsOf[e.id] = append(hostsOf[e.id], h)
	}
	s.hostsOf, s.edges = hostsOf, edges
	for _, edge := range edges {
		// Distances to the edge switch, through switches only.
		order = s.bfsOrder(edge, dist, order[:0])
		// Every switch's set toward the edge switch, stored once.
		for _, n := range s.nodes {
			if n.isHost || n == edge || dist[n.id] < 0 {
				continue
			}
			lo := int32(len(n.routeArena))
			peer, _ := s.adj.of(n.id)
			for num, m := range peer {
				if d := dist[m]; d >= 0 && d == dist[n.id]-1 && !s.adj.host[m] {
					n.routeArena = append(n.routeArena, int32(num))
				}
			}
			sp := routeSpan{lo, int32(len(n.routeArena))}
			for _, o := range hostsOf[edge.id] {
				n.routes[o.id] = sp
			}
		}
		// The edge switch: the port to each of its hosts.
		for _, o := range hostsOf[edge.id] {
			lo := int32(len(edge.routeArena))
			edge.routeArena = append(edge.routeArena, int32(o.ports[0].peer.num))
			edge.routes[o.id] = routeSpan{lo, lo + 1}
		}
	}
	for _, n := range s.nodes {
		if n.isHost {
			continue
		}
		for _, h := range s.hosts {
			if n.routes[h.id].lo == n.routes[h.id].hi {
				return fmt.Errorf("harness: switch %s cannot reach host %s", n.name, h.name)
			}
		}
	}
	return nil
}

// routeSpan is a switch's ECMP set toward one host: routeArena[lo:hi].
type routeSpan struct{ lo, hi int32 }

// ecmpSet returns sw's candidate egress port numbers toward host dst.
func (sw *node) ecmpSet(dst NodeID) []int32 {
	sp := sw.routes[dst]
	return sw.routeArena[sp.lo:sp.hi:sp.hi]
}

// mix64 is the splitmix64 finaliser, a bijective 64-bit hash.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// ecmpPort picks the egress port of switch sw for a packet of flow going
// from src to dst: hash(flow, src, dst, switch salt) mod the size of the
// ECMP set. All packets of one flow and direction take one path; the ACKs
// (src and dst swapped) hash independently. With switch.ecmp destination
// the hash is of dst and the salt only: everything a switch sends toward
// one host leaves by one port.
func ecmpPort(sw *node, flow FlowID, src, dst NodeID) *port {
	c := sw.ecmpSet(dst)
	if len(c) == 0 {
		return nil
	}
	if len(c) == 1 {
		return sw.ports[c[0]]
	}
	h := mix64(uint64(uint32(dst)) ^ sw.salt)
	if !sw.byDst {
		h = mix64(uint64(uint32(flow)) | uint64(uint32(src))<<32 ^ h)
	}
	return sw.ports[c[h%uint64(len(c))]]
}

// route picks the egress port of switch sw for a packet of flow going from
// src to dst: ecmpPort, except that with features.Symmetric a packet going
// to the flow's source from a switch on its data path leaves through the
// port the flow's data arrives on (the data path in reverse).
func (s *Sim) route(sw *node, flow FlowID, src, dst NodeID) *port {
	if s.feat.symmetric && flow >= 0 && int(flow) < len(s.flows) {
		if f := s.flows[flow]; dst == f.src.id {
			for _, h := range f.rev {
				if h.sw == sw {
					return h.in
				}
			}
		}
	}
	return ecmpPort(sw, flow, src, dst)
}

// revHop is a switch on a flow's data path and the port its data arrives
// on there (features.Symmetric).
type revHop struct {
	sw *node
	in *port
}

// reversePath returns the switches flow's data crosses from src to dst,
// each with the port the data arrives on.
func (s *Sim) reversePath(flow FlowID, src, dst *node) []revHop {
	var out []revHop
	p := src.ports[0]
	for len(out) <= len(s.nodes) {
		n := p.peer.node
		if n == dst || n.isHost {
			break
		}
		out = append(out, revHop{sw: n, in: p.peer})
		if p = ecmpPort(n, flow, src.id, dst.id); p == nil {
			break
		}
	}
	return out
}

// pathHop is one link of a flow's path.
type pathHop struct {
	rate  units.Rate
	delay units.Time
}

// path returns the links a packet of flow from src to dst crosses, in order
// (the source host's link first), following the same ECMP choices as the
// packets will, and appends the switches' egress ports to *ports.
func (s *Sim) path(flow FlowID, src, dst *node, dstHop []pathHop, ports *[]*port) []pathHop {
	p := src.ports[0]
	for {
		dstHop = append(dstHop, pathHop{rate: p.rate, delay: p.delay})
		n := p.peer.node
		if n == dst || n.isHost || len(dstHop) > len(s.nodes) {
			return dstHop
		}
		p = s.route(n, flow, src.id, dst.id)
		if p == nil {
			return dstHop
		}
		*ports = append(*ports, p)
	}
}

// flowRoute is a flow's path as nextHop reads it for every frame: out[0]
// are the gids of the egress ports its data leaves at each switch on the
// way to dst, out[1] those of what dst sends it back (ACKs, CNPs,
// credits), in order: the route's choices, computed once when the flow is
// made; n[d] is the number of hops of direction d. srcID and dstID are its
// ends. Sim.routes keeps them by flow ID, next to one another, apart from
// the flows themselves (a flow is large, and with thousands of them a
// frame's hop would otherwise cost a cache miss on its flow), each in one
// 64-byte line with its hops in place, so that a frame's hop costs at most
// one miss here. A direction of more than routeMaxHops switches (no fat
// tree has one) is not kept (n[d] = 0): its frames take route's choice,
// which is the same port.
type flowRoute struct {
	srcID, dstID NodeID
	n            [2]uint8
	out          [2][routeMaxHops]int32
	_            [2]byte
}

// flowRoute fills one cache line exactly, so that in Sim.routes none
// straddles two: the array holds no pointers (no header) and the size
// class of a whole number of lines is itself one, so every element starts
// on a line (TestHotStructsStartOnALine).
var _ [64 - unsafe.Sizeof(flowRoute{})]byte
var _ [unsafe.Sizeof(flowRoute{}) - 64]byte

// routeMaxHops is the most switches of one direction of a path that
// flowRoute keeps: 6, which fills its line and covers a three-tier fat
// tree's 5.
const routeMaxHops = 6

// setRoute records the hops of one direction of a flow's path (hops[i]
// leaves switch i of it), if it has at most routeMaxHops.
func (r *flowRoute) setRoute(d int, hops []*port) {
	if len(hops) > routeMaxHops {
		return
	}
	r.n[d] = uint8(len(hops))
	for i, p := range hops {
		r.out[d][i] = p.gid
	}
}

// nextHop returns the egress port of frame p at switch sw: for a frame
// between its flow's two hosts, the port its flow's path (computed once by
// route when the flow was made, Sim.routes) takes at this hop; else
// route's choice. Both give the same port: routes and ECMP salts do not
// change during a run.
func (s *Sim) nextHop(sw *node, p *Packet) *port {
	if p.Flow >= 0 && int(p.Flow) < len(s.routes) {
		r := &s.routes[p.Flow]
		d := 2
		switch {
		case p.Src == r.srcID && p.Dst == r.dstID:
			d = 0
		case p.Src == r.dstID && p.Dst == r.srcID:
			d = 1
		}
		if h := int(p.hop); d < 2 && h < int(r.n[d]) {
			if out := s.ports[r.out[d][h]]; out.node == sw {
				p.hop++
				return out
			}
		}
	}
	return s.route(sw, p.Flow, p.Src, p.Dst)
}
