package harness

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"unsafe"
)

// fieldSpan is a field of a value: its offset and size in bytes.
type fieldSpan struct {
	name      string
	off, size uintptr
}

// at returns the span of field f of the value at base.
func at[T any](base unsafe.Pointer, name string, f *T) fieldSpan {
	return fieldSpan{name, uintptr(unsafe.Pointer(f)) - uintptr(base), unsafe.Sizeof(*f)}
}

// lines returns the 64-byte lines that fields occupy in a value that
// starts on a line (TestHotStructsStartOnALine), in order.
func lines(fields []fieldSpan) []int {
	set := map[int]bool{}
	for _, f := range fields {
		for l := f.off / 64; l <= (f.off+f.size-1)/64; l++ {
			set[int(l)] = true
		}
	}
	out := make([]int, 0, len(set))
	for l := range set {
		out = append(out, int(l))
	}
	sort.Ints(out)
	return out
}

// pathLines is one per-frame path of the run loop and the fields of one
// value it reads or writes.
type pathLines struct {
	name   string
	fields []fieldSpan
	max    int // the most lines the path may touch
}

func (p pathLines) String() string {
	var b strings.Builder
	for _, f := range p.fields {
		fmt.Fprintf(&b, " %s@%d", f.name, f.off)
	}
	return b.String()
}

// portPaths lists what each per-frame path touches of a port (link.go),
// from the code: enqueue, kick, switchNext with the default strict
// priority scheduler (strictPriority.Pick, PortView.ready),
// switchDequeued, transmit, queueChanged and qAdvance, a congestion
// point's queue view (schemeCP.queue), hostNext, hostQueueControl,
// dispatch's evTxDone and evArrive (and warm, which reads gid), and the
// ingress accounting of pfcControl.admit, ingressAdd and release. Data
// frames are at DataPrio, with no CBFC, VOQs or physical queues: the
// fat-tree benchmarks' setting.
func portPaths(p *port) []pathLines {
	b := unsafe.Pointer(p)
	head := []fieldSpan{ // kick, and every event on the port
		at(b, "node", &p.node), at(b, "busy", &p.busy), at(b, "pfcDirty", &p.pfcDirty),
		at(b, "fcDue", &p.fcDue), at(b, "gid", &p.gid),
	}
	tx := []fieldSpan{ // kick once it has a frame, and transmit
		at(b, "cbfcTx", &p.cbfcTx),
		at(b, "rate", &p.rate), at(b, "delay", &p.delay), at(b, "peerGID", &p.peerGID),
		at(b, "txStart", &p.txStart), at(b, "txEnd", &p.txEnd), at(b, "txSize", &p.txSize),
		at(b, "st.txBytes", &p.st.txBytes),
	}
	idle := []fieldSpan{ // switchNext with nothing queued
		at(b, "q[ControlPrio].n", &p.q[ControlPrio].n), at(b, "shapedQ.n", &p.shapedQ.n),
		at(b, "vq", &p.vq), at(b, "fq", &p.fq), at(b, "sched", &p.sched), at(b, "bytes", &p.bytes),
	}
	data := []fieldSpan{ // enqueue, Pick, the pop, switchDequeued, the CP's view
		at(b, "q[DataPrio]", &p.q[DataPrio]), at(b, "qbytes[DataPrio]", &p.qbytes[DataPrio]),
		at(b, "pausedBy[DataPrio]", &p.pausedBy[DataPrio]), at(b, "pool", &p.pool),
		at(b, "queue", &p.queue), at(b, "st.q", &p.st.q),
	}
	for prio := DataPrio + 1; prio < ControlPrio; prio++ {
		data = append(data, at(b, fmt.Sprintf("q[%d].head", prio), &p.q[prio].head))
	}
	ctrl := []fieldSpan{ // a control frame through a switch port
		at(b, "vq", &p.vq), at(b, "fq", &p.fq), at(b, "bytes", &p.bytes),
		at(b, "q[ControlPrio]", &p.q[ControlPrio]), at(b, "qbytes[ControlPrio]", &p.qbytes[ControlPrio]),
		at(b, "st.q", &p.st.q),
	}
	host := []fieldSpan{ // hostNext sending a data frame
		at(b, "q[ControlPrio].head", &p.q[ControlPrio].head), at(b, "pool", &p.pool),
		at(b, "shapedQ.n", &p.shapedQ.n), at(b, "pausedBy[DataPrio]", &p.pausedBy[DataPrio]),
	}
	hostCtrl := []fieldSpan{ // hostQueueControl and hostNext sending it
		at(b, "q[ControlPrio]", &p.q[ControlPrio]), at(b, "pool", &p.pool),
		at(b, "qbytes[ControlPrio]", &p.qbytes[ControlPrio]), at(b, "bytes", &p.bytes),
	}
	paced := []fieldSpan{ // hostNext with every flow paced: the wake-up
		at(b, "q[ControlPrio].head", &p.q[ControlPrio].head), at(b, "pool", &p.pool),
		at(b, "shapedQ.n", &p.shapedQ.n), at(b, "pausedBy[DataPrio]", &p.pausedBy[DataPrio]),
		at(b, "cbfcTx", &p.cbfcTx), at(b, "wake", &p.wake),
	}
	ingress := []fieldSpan{ // a data frame arriving at a switch through p, and leaving it
		at(b, "node", &p.node), at(b, "gid", &p.gid),
		at(b, "ing[DataPrio]", &p.ing[DataPrio]), at(b, "headroom", &p.headroom),
		at(b, "maxIngress", &p.maxIngress), at(b, "wantPause[DataPrio]", &p.wantPause[DataPrio]),
	}
	cat := func(parts ...[]fieldSpan) (out []fieldSpan) {
		for _, f := range parts {
			out = append(out, f...)
		}
		return out
	}
	return []pathLines{
		{"switch port: a data frame queued and sent", cat(head, idle, data, tx), 7},
		{"switch port: a control frame queued and sent", cat(head, ctrl, tx), 6},
		{"switch port: evTxDone with nothing queued", cat(head, idle), 2},
		{"switch port: a data frame admitted through it (ingress)", ingress, 2},
		{"host port: a data frame sent", cat(head, host, tx), 4},
		{"host port: a control frame queued and sent", cat(head, hostCtrl, tx), 5},
		{"host port: every flow paced", cat(head, paced), 4},
	}
}

// flowPaths lists what each per-frame path touches of a flow (nic.go).
func flowPaths(f *flow) []pathLines {
	b := unsafe.Pointer(f)
	scan := []fieldSpan{ // hostNext, for each active flow it looks at (credit if gated)
		at(b, "prio", &f.prio), at(b, "sack", &f.sack), at(b, "info.Size", &f.info.Size),
		at(b, "sndNxt", &f.sndNxt), at(b, "sndUna", &f.sndUna), at(b, "window", &f.window),
		at(b, "gated", &f.gated), at(b, "credit", &f.credit), at(b, "nextSend", &f.nextSend),
	}
	apply := []fieldSpan{ // applyRP
		at(b, "rp", &f.rp), at(b, "rate", &f.rate), at(b, "lastSize", &f.lastSize),
		at(b, "lastStart", &f.lastStart), at(b, "nextSend", &f.nextSend), at(b, "src", &f.src),
		at(b, "window", &f.window), at(b, "gated", &f.gated), at(b, "credit", &f.credit),
		at(b, "rpTimer", &f.rpTimer), at(b, "id", &f.id),
	}
	send := []fieldSpan{ // makeData and hostSent
		at(b, "id", &f.id), at(b, "src", &f.src), at(b, "dst", &f.dst), at(b, "sndMax", &f.sndMax),
		at(b, "lastStart", &f.lastStart), at(b, "lastSize", &f.lastSize), at(b, "rate", &f.rate),
		at(b, "rtoAt", &f.rtoAt), at(b, "rtoTimer", &f.rtoTimer), at(b, "rp", &f.rp),
	}
	ack := []fieldSpan{ // receiveAck
		at(b, "done", &f.done), at(b, "rp", &f.rp), at(b, "sack", &f.sack), at(b, "sndUna", &f.sndUna),
		at(b, "sndNxt", &f.sndNxt), at(b, "sndMax", &f.sndMax), at(b, "rtoAt", &f.rtoAt),
		at(b, "rtoTimer", &f.rtoTimer), at(b, "info.Size", &f.info.Size), at(b, "id", &f.id),
	}
	data := []fieldSpan{ // receiveData, armNP and sendAck
		at(b, "np", &f.np), at(b, "npTimer", &f.npTimer), at(b, "id", &f.id), at(b, "sack", &f.sack),
		at(b, "rcvNxt", &f.rcvNxt), at(b, "rxBytes", &f.rxBytes), at(b, "rxWire", &f.rxWire),
		at(b, "firstRx", &f.firstRx), at(b, "lastRx", &f.lastRx), at(b, "nakSent", &f.nakSent),
		at(b, "sinceAck", &f.sinceAck), at(b, "markedSince", &f.markedSince),
		at(b, "info.Size", &f.info.Size), at(b, "src", &f.src), at(b, "dst", &f.dst),
	}
	return []pathLines{
		{"flow: hostNext's look at an active flow", scan, 1},
		{"flow: a data frame sent (hostNext, makeData, hostSent, applyRP)", append(append(scan, send...), apply...), 3},
		{"flow: an ACK received (receiveAck, applyRP)", append(ack, apply...), 3},
		{"flow: a data frame received (receiveData, sendAck)", data, 3},
	}
}

// nodePaths lists what each per-frame path touches of a node (link.go).
func nodePaths(n *node) []pathLines {
	b := unsafe.Pointer(n)
	return []pathLines{
		{"switch node: a data frame through it", []fieldSpan{
			at(b, "isHost", &n.isHost), at(b, "module", &n.module), at(b, "buffer", &n.buffer),
			at(b, "bufUsed", &n.bufUsed), at(b, "hdrmReserve", &n.hdrmReserve),
		}, 1},
		{"host node: a frame sent or received", []fieldSpan{
			at(b, "id", &n.id), at(b, "isHost", &n.isHost), at(b, "ports", &n.ports),
			at(b, "active", &n.active), at(b, "rr", &n.rr),
		}, 2},
	}
}

// queuePaths lists what a data frame touches of its egress queue.
func queuePaths(q *egressQueue) []pathLines {
	b := unsafe.Pointer(q)
	return []pathLines{
		{"egress queue: enqueue, switchDequeued, armCP", []fieldSpan{
			at(b, "p", &q.p), at(b, "prio", &q.prio), at(b, "cp", &q.cp),
			at(b, "timer", &q.timer), at(b, "id", &q.id),
		}, 1},
	}
}

// TestHotFieldLines guards the layout of the structures the run loop
// touches for every frame (port, flow, node, egressQueue): in a large
// topology they are touched in an order simulated time decides and mostly
// miss the cache, so each path's cost is about the number of 64-byte lines
// it touches. For each per-frame path it lists, from the code, the fields
// the path reads or writes, and checks that they lie within the number of
// lines the current layout achieves. A new field placed among them, or a
// field of theirs that grows, fails it; the fix is to place the field
// after them, or to say here why the path now needs another line. The
// lists must follow the code: a path that starts reading a field must add
// it here.
func TestHotFieldLines(t *testing.T) {
	var all []pathLines
	all = append(all, portPaths(new(port))...)
	all = append(all, flowPaths(new(flow))...)
	all = append(all, nodePaths(new(node))...)
	all = append(all, queuePaths(new(egressQueue))...)
	for _, p := range all {
		l := lines(p.fields)
		t.Logf("%-62s lines %v", p.name, l)
		if len(l) > p.max {
			t.Errorf("%s touches %d lines, want at most %d: %v:%s", p.name, len(l), p.max, l, p)
		}
	}
}

// TestHotStructsStartOnALine checks what TestHotFieldLines assumes: that
// the ports, queues, nodes and flows of a built run each start on a
// 64-byte line. Ports and queues come from slabs of linePort and
// lineQueue, flows are allocated as lineFlow: objects of more than 512
// bytes that hold pointers, which the runtime places allocHeader bytes
// into a line, and which pad themselves past it. Nodes, smaller, have no
// header and are padded to whole lines (lineNode). A runtime whose header
// is not allocHeader bytes, or a node that grows past 512 bytes, fails
// here.
func TestHotStructsStartOnALine(t *testing.T) {
	sc, err := Builtin("line-rate-2to1")
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(sc, Options{NoSeries: true})
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, i int, p unsafe.Pointer) {
		if a := uintptr(p); a%64 != 0 {
			t.Errorf("%s %d at %#x: %d bytes into a line", what, i, a, a%64)
		}
	}
	for i, p := range s.ports {
		check("port", i, unsafe.Pointer(p))
	}
	for i, q := range s.queues {
		check("queue", i, unsafe.Pointer(q))
	}
	for i, n := range s.nodes {
		check("node", i, unsafe.Pointer(n))
	}
	for i, f := range s.flows {
		check("flow", i, unsafe.Pointer(f))
	}
	for i := range s.routes {
		check("route", i, unsafe.Pointer(&s.routes[i]))
	}
	for i := range 100 { // packets from the first chunks and across their boundary
		check("packet", i, unsafe.Pointer(s.pool.get()))
	}
	if len(s.ports) == 0 || len(s.queues) == 0 || len(s.flows) == 0 {
		t.Fatalf("%d ports, %d queues, %d flows: nothing checked", len(s.ports), len(s.queues), len(s.flows))
	}
}
