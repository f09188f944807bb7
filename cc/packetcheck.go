package cc

// BadPacket reports whether p is a packet no event takes: nil, or with a
// negative Size or Payload. It is the test a part's event makes on its
// fast path (it inlines); PacketError says why.
func BadPacket(p *Packet) bool { return p == nil || p.Size < 0 || p.Payload < 0 }

// PacketError returns the *EventError with which part's event refuses p
// when BadPacket(p) holds, its Reason the first that applies of "nil
// packet", "packet size -1B is negative" (with p's Size) and "payload -1B
// is negative" (with p's Payload); nil when p is none of these. It is built out of line, so that an event's
// success path holds no allocation site.
//
//go:noinline
func PacketError(part, event string, p *Packet) error {
	var why string
	switch {
	case p == nil:
		why = "nil packet"
	case p.Size < 0:
		why = "packet size " + p.Size.String() + " is negative"
	case p.Payload < 0:
		why = "payload " + p.Payload.String() + " is negative"
	default:
		return nil
	}
	return &EventError{Part: part, Event: event, Reason: why}
}
