// Package cp holds congestion points: the switch-side half of each
// congestion-control algorithm, one state machine per egress queue.
//
// A congestion point sees the queue (its length on enqueue and dequeue, a
// periodic timer) and decides what the network tells the senders: an ECN
// mark (DCQCN, DCTCP), a fair rate sent back in a CNP (RoCC, paper
// [RoCC] Algorithm 1), or INT telemetry stamped on the
// packet (HPCC, [HPCC] §3.2). A switch point (cc.SwitchPoint) holds state
// across a switch's ports (Mercury, HierCC).
//
// # Algorithms
//
// One file per algorithm (its codec, where a message has one, is in
// package wire):
//
//	RoCC     [RoCC] §III-B (Algorithm 1, the fair rate of one egress
//	         queue, whose arithmetic is package pi's), §III-C (its CNP,
//	         wire.RoCCFeedback), §III-D (the flow table), §III-F (the
//	         report for a host that computes the rate, rp.RoCCHost);
//	         presets RoCC40G, RoCC100G, RoCCDPDK10G, RoCCTofino40G
//	         (§VI)                                  rocc.go, rocc_flows.go
//	HPCC     INT stamping of one egress port: B, TS, txBytes, qLen
//	         ([HPCC] §3.1, §4.1, Figure 7; package inttel)       hpcc.go
//	DCQCN    RED marking of one egress queue from a 32-bit LFSR
//	         ([Survey] §4.1.2, CP algorithm; [DCQCN]; [RED])     dcqcn.go
//	DCTCP    the step marker at K, on enqueue or dequeue ([DCTCP];
//	         [Survey] §4.2.2)                                    dctcp.go
//	QCN      802.1Qau's sampling CP: Fb from Qoff and Qδ, quantised to
//	         6 bits, a CNM (wire.CNM) to the sampled frame's source
//	         (see QCN and AF-QCN below)                          qcn.go
//	AFQCN    QCN's CP plus per-class fair-share feedback
//	         ([AF-QCN])                                          afqcn.go
//	BECN     the threshold CP of BECN (a notification to the source) and
//	         of FECN (a forward mark), see BECN and FECN below   becn.go
//	Mercury  a switch's egress ports: the Determined/Undetermined
//	         state machine driven by PFC, the flow table, the window
//	         C·baseRTT·data_f/Σdata sent in a CNP ([Mercury]
//	         §"Mercury design", Algorithms 1 and 2, reconstructed in
//	         docs/derivations.md); a switch point                mercury.go
//	HierCC   one top-of-rack switch of HierCC, a switch point: VOQs per
//	         destination host credited by the receiver-side ToRs' weighted
//	         round robin, equation (1)'s first-hop rate sent to the hosts
//	         ([HierCC] §3.1–§3.3, §4)                 hiercc.go, hiercc_sender.go,
//	                                        hiercc_receiver.go, hiercc_firsthop.go
//	BFC      a switch's egress ports: per-port flow tables, dynamic
//	         assignment of flows to physical queues, the pause of the
//	         upstream queue (or sender) feeding a queue above
//	         µ·HRTT/N_active, and the holds its downstream asks for,
//	         with leases ([BFC] §3, §4; docs/derivations.md, "BFC");
//	         a switch point                                      bfc.go
//	PACC     one egress queue sending CNPs to the sources itself: a
//	         PI controller every 80 µs sets the probability that an
//	         arriving packet draws one ([PACC] as [RoCC] §II and
//	         [Mercury] describe it; hwcc's constants in
//	         docs/derivations.md, PACC's constants)              pacc.go
//	TCD      one egress queue congested, undetermined or
//	         non-congested from its queue and its PFC pause, DCQCN's
//	         RED marker in the congested state: DCQCN+TCD ([TCD] as
//	         [Mercury] describes it, reconstructed in
//	         docs/derivations.md)                                tcd.go
//
// # The contract
//
// Every type here keeps the contract of package cc: it implements
// cc.CongestionPoint or cc.SwitchPoint (checked at compile time; RoCCHost,
// the host-side computation of [RoCC] §III-F, plays cc.ReactionPoint),
// refuses time going backwards with a *cc.TimeOrderError, returns only
// cc's error types, refuses a nil *cc.Actions on an event that can decide,
// runs a deadline it was let pass at the next event (each expiry as at its
// own deadline), counts messages it does not use in register
// unused_feedback, and appends every register it carries, each under its
// own name, to a caller's slice (AppendRegisters). Its events are the
// contract's methods and nothing else; typed read-only accessors report
// its registers in the units of its snapshot. Package algos registers each
// with its presets and a description of every parameter, so that cc.New
// builds it from strings.
//
// Every type has the same shape: a Config with units, widths and sources
// on every field; presets returning one; New(cfg) validating it (errors
// are *cc.ConfigError naming the field); the contract's events taking now
// first; explicit deadlines (NextDeadline, and Timer); State() returning
// every register as a struct. Nothing here allocates, reads a clock or
// starts a goroutine on an event.
//
// # QCN and AF-QCN
//
// QCN, IEEE 802.1Qau-2010 "Congestion Notification" ([QCN] clause 32;
// [QCN-Allerton]), and AF-QCN ([AF-QCN]), as [Survey] §4.1.1 summarises
// them:
//
//	QCN CP:   Fb = −(Qoff + w·Qδ), Qoff = Q − Qeq, Qδ = Q − Qold, w = 2;
//	          feedback only when Fb < 0, quantised to 6 bits.
//	AF-QCN:   Fb = (1 − a)·Fb_QCN + a·Fb_AF; per class every Ts
//	          M_i ← (1 − b)M_i + b·M_new, M_fair,i = (W_i/ΣW)·ΣM,
//	          D_i = (1 − M_fair,i/M_i)+, Fb_AF = ⌊64·D_i⌋ (6 bits).
//
// A QCN congestion point (QCN) samples a switch queue's arrivals and sends
// the source of a sampled frame a congestion notification message (CNM,
// wire.CNM) with a 6-bit feedback; the source's reaction point (rp.QCN)
// cuts its rate in proportion and recovers by itself. AF-QCN (AFQCN)
// keeps QCN's reaction point ("without any modification", the survey
// says) and adds, at the congestion point, a per-class arrival
// measurement that weights each class's feedback by how far it is above
// its weighted fair share.
//
// The standard's values are the DEFVALs of its MIB (IEEE8021-CN-MIB, the
// managed objects of 802.1Qau clause 17): Qeq 26 000 octets
// (ieee8021CnCpQueueSizeSetPoint), w = 2 (ieee8021CnCpFeedbackWeight 1:
// w = 2^1; [Survey] §4.1.1 "usually set as 2"), a sample base of 150 000
// octets (ieee8021CnCpMinSampleBase). The quantisation QntzFb =
// ⌊|Fb|·63/(Qeq·(2w + 1))⌋, 63 at and above Fbmax = Qeq·(2w + 1), is as
// [QCN-HPE] states it. The sampling table is the QCN pseudocode's eight
// intervals indexed by QntzFb >> 3, 150, 75, 50, 37.5, 30, 25, 21.5 and
// 18.5 KB (as the public Linux QCN queueing discipline, sch_fifo's
// qcn_mark_table, has it in binary kilobytes; Broadcom's Petra CP likewise
// selects one of eight sample bases by QntzFb[5:3]): with 1500-byte
// frames, one sample per 100 frames (1 %) without congestion rising to one
// per 12.3 (8.1 %) at |Fb| ≥ 56·Fbmax/63. The literature's "1 % rising to
// 10 %" describes this table's ends loosely; hwcc implements the table,
// exactly. QCNStandardSampleTable is it in decimal kilobytes (entry 0 =
// the standard's 150 000-octet sample base), QCNPseudocodeSampleTable in
// binary ones.
//
// Choices where the sources are silent, each a parameter or documented
// where it is: the sampling jitter, off by default
// (QCNConfig.JitterPercent); Qeq scaled with the link rate in QCNPaper;
// AF-QCN's a = 1/2, b = 1/8, Ts = 100 µs, classes by priority,
// active-class weights and AF feedback only under congestion (AFQCN). The
// CNM's layout is the codec's (wire.CNM).
//
// # BECN and FECN
//
// The one-bit explicit congestion notification schemes of ATM and
// InfiniBand, as [Survey] §4.1.1 ("BECN") and §4.1.2 ("FECN") state them;
// the survey's sources are [BECN] and [FECN] for BECN and the ATM EFCI
// bit, and [IBA] annex A10 for InfiniBand's FECN/BECN bits. BECN: when a
// queue exceeds a fixed threshold, the switch sends a one-bit notification
// (a BECN cell, wire.FeedbackBECN) to the source of each packet that joins
// it. FECN: the switch marks the packet instead (the EFCI bit) and the
// receiver (np.FECN) returns the notification (an RM cell; InfiniBand's
// CNP). The source (rp.BECN) is the same in both.
//
// BECN is both schemes' congestion point, its mode (BECNMode) choosing
// which: one egress queue with a byte threshold, judged on Enqueue (or
// Dequeue); BECNModeBECN notifies the source, at most once per flow per
// MinInterval, paced in a hashed table of flows; BECNModeFECN marks the
// packet. Where the sources are silent: "above the threshold" is q >
// Threshold, judged as the packet joins the queue by default
// (BECNConfig.At); a congested switch notifies a flow at most once per
// BECNConfig.MinInterval, in a table of 2^BECNConfig.TableBits slots keyed
// by a hash of the flow ID, where colliding flows take the slot from each
// other (extra notifications, never a silenced flow); the threshold of
// the presets is DCQCN's Kmin, 100 KB per 25 Gb/s (docs/derivations.md,
// BECN's and FECN's threshold). InfiniBand's switch marks above a 4-bit
// relative Threshold at a 16-bit Marking_Rate ([IBA] annex A10); hwcc
// follows the survey's threshold instead.
package cp
