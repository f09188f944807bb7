// Package voq is a set of virtual output queues (VOQs) as a switch's VOQ
// manager keeps them: a bounded table of queue descriptors keyed by
// destination, each with its bytes queued, flow count, bytes sent and
// credit balance, and a round-robin scheduler over the VOQs that hold both
// data and credit. The caller owns the packets (a FIFO per slot index);
// the Manager owns the accounting and says which slot to serve next.
//
// Sources: [HierCC] §3.1 (one VOQ i.j per destination host j at sender-side
// ToR i, at most N per ToR; an initial credit C0), §3.2 (a credit packet adds
// its amount to the balance, one credit is Δ = 1 KB; F_ij flows and S_ij
// bytes sent are recorded and inserted into the packet header; round robin
// among VOQs that have credit; a dequeue spends the packet's byte length), §4
// (VOQ implementation: N VOQs per ToR, chips with 100K VOQs, per-rack
// aggregation when the table would overflow) and §5 (C0 = 10 KB). [Survey]
// §5.3.2 describes ExpressPass ([ExpressPass]), where one credit releases one
// data frame; here a credit is an amount of bytes, as in HierCC.
//
// # What is where
//
//	Config       table sizes, register limits, the eligibility rule;
//	             presets HierCC (the paper's ToR) and RoundRobin (a port
//	             scheduler that ignores credit).
//	Manager      the table and the scheduler:
//	  Open, Lookup, Close     key → slot (direct-indexed key table, free
//	                          list of slots)
//	  Enqueue, Dequeue        bytes in and out; Dequeue spends credit and
//	                          returns the header Stamp (F_ij, S_ij)
//	  AddCredit               a credit packet from the receiver-side ToR
//	  FlowStart, FlowEnd      F_ij
//	  SetHead                 the head packet's length (CreditCoversHead)
//	  Next, Eligible, Active  the round robin
//	  State, Totals, AppendRegisters, AppendSlotRegisters   snapshots
//
// # Registers, units and overflow policy
//
//	register     width            unit    policy
//	key          32 bits          -       0..Keys−1
//	queued       32 bits          bytes   refuse past QueueLimit (≤ 2^32−1)
//	sent (S_ij)  32 bits          bytes   wraps modulo 2^32, as in a header
//	credit       32 bits signed   bytes   refuse past MaxCredit (≤ 2^31−1);
//	                                      ≥ −(MaxPacket−1) under
//	                                      CreditPositive, ≥ 0 otherwise
//	flows (F_ij) 16 bits          flows   refuse above 65535 and below 0
//	head         16 bits          bytes   packet length, 0: empty/unknown
//	enqueued,    64 bits          bytes   model counters, wrap
//	dequeued
//
// A refused event returns a *cc.EventError wrapping one of this package's
// sentinels (ErrFull, ErrSlot, ErrUnderrun, ...) and changes nothing.
// Configuration errors are *cc.ConfigError values naming the field, its
// value and its range. Nothing panics.
//
// # Key to slot
//
// Keys are dense destination numbers 0..Keys−1 and index a key table
// directly (one 32-bit slot number per key, as a chip's map from
// destination to queue); there are no collisions. Slots are handed out from a free
// list (a stack: slot 0, 1, 2, ... on a fresh Manager, then the most
// recently freed first). When every slot is in use, Open of a new key is
// refused with ErrFull: no open VOQ is ever evicted, because its queued
// bytes and its S_ij, which the receiver side tracks, would be lost. The
// paper's answer to a full table (section 4, aggregating per receiver
// ToR) is the caller's choice of keys: key = the destination's ToR.
//
// # Round robin
//
// The eligible VOQs form a ring, in service order, kept as a doubly linked
// list through the descriptors. Next returns its head and changes nothing.
// A VOQ that becomes eligible (data arrives, credit arrives, its head
// length is told) joins the tail; a VOQ that is served (Dequeue) leaves
// and, if still eligible, rejoins at the tail; one packet per turn. So
// every operation is constant time, and a VOQ eligible at position p is
// served within p+1 dequeues if the caller serves what Next returns: every
// eligible VOQ is served within one round, and VOQs with equal backlog and
// enough credit are served in strict alternation.
//
// # Choices the paper leaves open
//
//   - Eligibility. "Round robin ... among VOQs that has available credits"
//     is read as a balance above zero (CreditPositive, the default): the
//     dequeue may overdraw by less than one packet, and the overdraft is
//     repaid from later credits (deficit style). CreditCoversHead instead
//     waits until the balance covers the head packet (the caller reports
//     head lengths with SetHead, since it holds the packets); IgnoreCredit
//     is plain round robin over backlogged VOQs.
//   - S_ij in the header. The paper inserts S_ij "before dequeuing"; Dequeue
//     returns S_ij counting the packet itself (see Stamp), so that a
//     receiver that credits until C_sent ≥ S_ij repays every byte sent.
//   - Widths. The paper states none; the table above is hwcc's. S_ij wraps
//     as a 32-bit header field would: a receiver compares it with serial
//     arithmetic (fixedpoint.WrapBefore).
//   - KB. C0 = 10 KB and Δ = 1 KB are taken as 10 000 B and 1000 B
//     (units.KB); the paper does not say.
package voq
