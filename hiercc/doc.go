// Package hiercc holds the state machines of HierCC ([HierCC]: Zhang,
// Zhang, Guan, Wan, Xia, Pan, Huang, Tang, Lin, "HierCC: Hierarchical RDMA
// Congestion Control", APNet 2021). Flows from one rack
// to one destination host are aggregated in a VOQ at the sender-side ToR;
// the receiver-side ToR credits the VOQs by weighted round robin; each
// VOQ's rate is shared among its flows by an explicit per-flow rate that
// the ToR sends to the hosts.
//
// # What is where
//
//	SenderToR    one sender-side ToR (sections 3.1, 3.2, 3.3, 4): a
//	             voq.Manager of VOQ i.j per destination j (C0 = 10 KB,
//	             round robin over VOQs with credit), F_ij and S_ij in the
//	             header of every packet sent, credits in, a FirstHop per
//	             VOQ answering marked packets with rate packets, stop and
//	             resume.                                       sender.go
//	FirstHop     equation (1) of section 3.3 for one VOQ, in kb/s
//	             registers, every RTT_hop/β; stop above V_high, resume
//	             below V_low.                                firsthop.go
//	ReceiverToR  one receiver-side ToR (sections 3.1, 3.2): per output
//	             port a credit.WRR over the VOQs sending to its host,
//	             learnt from headers, and credits paced at the port's
//	             line rate, one Δ = 1 KB per Δ of port time. receiver.go
//	ToR          one top-of-rack switch, sender and receiver side at
//	             once, as a cc.SwitchPoint: every packet of its servers
//	             through a VOQ (its own rack's destinations included), the
//	             headers stamped and read, credits sent to their ToR by
//	             switch ID, C0 granted when a VOQ opens; registered as
//	             algorithm "hiercc" part "sw" (package algos).  tor.go
//	Host         the host of one flow (section 4): a mark every 10 µs,
//	             the first and last packet flagged (F_ij), the rate
//	             packets applied; a cc.ReactionPoint, registered as
//	             algorithm "hiercc" part "rp" (package algos). host.go
//	Header,      the four wire formats, 16 bytes each: the host's
//	HostHeader,  flags (Flags: mark, first, last) and the header the
//	CreditPacket sender ToR writes over them, in data packets
//	RatePacket   (cc.Packet.Hdr), the credit (ToR → ToR) and the rate
//	             packet (ToR → host), in cc.Feedback.Data with kinds
//	             FeedbackCredit and FeedbackRate.             packets.go
//
// # The paper's constants
//
//	C0 = 10 KB, Δ = 1 KB       section 5 (voq.PaperC0, voq.PaperDelta)
//	β = 0.2, q0 = 20 KB        section 5 (PaperBetaQ16, PaperQ0)
//	V_high = 70 KB, V_low = 50 KB   section 5 (PaperVHigh, PaperVLow)
//	RTT_hop = 2 µs             section 3.3 ("quite small like 2us")
//	period RTT_hop/β = 10 µs   section 3.3
//	mark every 10 µs           section 4 (PaperMarkInterval)
//	25 Gb/s hosts              section 2.2 and 5
//
// KB is 1000 B throughout (units.KB); the paper does not say.
//
// # A run, event by event
//
// A caller that drives the switch point (ToR) reports each switch's
// events to it and carries out its actions; the harness does (package
// harness, scheme "hiercc", which keeps the VOQs' packets at the ports
// they leave by and credits them as the ToR's ActionCredit says). Below
// the switch point, a caller of the typed state machines carries, per
// data packet: the host's flags (Host.Sent writes them into
// cc.Packet.Hdr: HostHeader, FlagMark) to the sender-side ToR,
// which takes the packet with SenderToR.Arrive (Arrival.Mark) and answers
// with at most one RatePacket to the flow's source; the packet waits in
// the VOQ the Arrive names until SenderToR.Next picks it and
// SenderToR.Dequeue returns the Header, which the caller writes into
// cc.Packet.Hdr (Header.Put) and carries to the receiver-side ToR; there
// ReceiverToR.Arrive reads it for the output port toward the destination;
// ReceiverToR.Timer, at its NextDeadline, returns CreditPackets, each
// routed to sender ToR i and handed to SenderToR.Credit; SenderToR.Timer
// runs equation (1) at its NextDeadline; the flows' starts and ends go to
// SenderToR.FlowStart and FlowEnd (the ToR counts them from the host's
// FlagFirst and FlagLast). Rate packets go to the flow's Host through
// Feedback (RatePacket.Feedback builds the message).
//
// # Conventions
//
// Every event takes now first and refuses, changing nothing, an event out
// of time order (cc.ErrTimeOrder) or out of range (a *cc.EventError);
// decoders return a *cc.DecodeError naming the byte offset;
// configurations a *cc.ConfigError. Nothing panics; no event allocates
// except its error and a caller's output slice that must grow; the state
// is integers of stated widths (floats only in configuration and in the
// tests' reference models).
package hiercc
