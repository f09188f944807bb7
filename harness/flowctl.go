package harness

// flowControl is a switch's link-level flow control: a plug-in point of
// the switch (SwitchSpec.PFC selects pfc or lossy today; a credit scheme
// such as InfiniBand's CBFC is another implementation of it). The shared
// buffer's own limit is the switch's: a frame that does not fit the buffer
// is dropped before flow control is asked.
type flowControl interface {
	// admit decides whether data frame p (its size is p.Size), arriving
	// at switch sw through ingress port in (nil for frames the switch
	// originates), may take buffer; false drops it. It does the ingress
	// accounting of an admitted frame (p.ingress) and tells the upstream
	// neighbour to stop when it must.
	admit(s *Sim, sw *node, in *port, p *Packet) bool
	// release is called when a frame admitted through in leaves sw: the
	// accounting's undo, and telling the upstream it may resume.
	release(s *Sim, sw *node, in *port, p *Packet)
}

// pfcControl is 802.1Qbb priority flow control on a dynamic threshold: an
// ingress pauses its upstream's priority at Xoff or when the shared pool
// runs short (every port's headroom reserved), resumes at Xon, and drops
// only beyond Xoff plus its headroom (which the defaults make impossible).
type pfcControl struct{}

func (pfcControl) admit(s *Sim, sw *node, in *port, p *Packet) bool {
	if in == nil {
		return true
	}
	prio, size := p.Prio, p.Size
	if in.ing[prio]+size > s.xoff+in.headroom {
		s.st.headroomDrops++
		return false
	}
	ingressAdd(in, p)
	if !in.wantPause[prio] && in.ing[prio] >= min(s.xoff, s.sharedFree(sw)+size) {
		in.wantPause[prio] = true
		s.pfcSignal(in, prio)
	}
	return true
}

func (pfcControl) release(s *Sim, sw *node, in *port, p *Packet) {
	prio := p.Prio
	in.ing[prio] -= p.inSize
	if in.wantPause[prio] && (in.ing[prio] == 0 || in.ing[prio] <= min(s.xon, s.sharedFree(sw)-2*s.maxFrame())) {
		in.wantPause[prio] = false
		s.pfcSignal(in, prio)
	}
}

// lossyControl is no link-level flow control: frames that do not fit the
// shared buffer drop (tail drop), for schemes that recover losses end to
// end. It still counts each ingress's bytes for the report.
type lossyControl struct{}

func (lossyControl) admit(_ *Sim, _ *node, in *port, p *Packet) bool {
	if in != nil {
		ingressAdd(in, p)
	}
	return true
}

func (lossyControl) release(_ *Sim, _ *node, in *port, p *Packet) {
	in.ing[p.Prio] -= p.inSize
}

// ingressAdd counts p in its ingress port's bytes.
func ingressAdd(in *port, p *Packet) {
	in.ing[p.Prio] += p.Size
	if in.ing[p.Prio] > in.maxIngress {
		in.maxIngress = in.ing[p.Prio]
	}
	p.ingress = in.gid + 1
}
