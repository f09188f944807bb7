// Package qcn holds the state machines of QCN, IEEE 802.1Qau-2010
// "Congestion Notification" ([QCN]; [QCN-Allerton]; Pan, Prabhakar et al.,
// "QCN: Quantized Congestion Notification", IEEE 802.1 au-prabhakar-qcn-
// description, 2007), and of AF-QCN ([AF-QCN]), as [Survey] §4.1.1
// summarises them:
//
//	QCN CP:   Fb = −(Qoff + w·Qδ), Qoff = Q − Qeq, Qδ = Q − Qold, w = 2;
//	          feedback only when Fb < 0, quantised to 6 bits.
//	QCN RP:   RC ← RC(1 − Gd·|Fb|), Gd = 1/128 on the 6-bit value; recovery
//	          by timer and byte counter: 5 fast-recovery cycles
//	          RC ← (RC + RT)/2, then AI (RT += R_AI), then HAI (RT += i·R_HAI).
//	AF-QCN:   Fb = (1 − a)·Fb_QCN + a·Fb_AF; per class every Ts
//	          M_i ← (1 − b)M_i + b·M_new, M_fair,i = (W_i/ΣW)·ΣM,
//	          D_i = (1 − M_fair,i/M_i)+, Fb_AF = ⌊64·D_i⌋ (6 bits).
//
// A QCN congestion point samples a switch queue's arrivals and sends the
// source of a sampled frame a congestion notification message (CNM) with a
// 6-bit feedback; the source's reaction point (a rate limiter) cuts its
// rate in proportion and recovers by itself. AF-QCN keeps QCN's reaction
// point and adds, at the congestion point, a per-class arrival measurement
// that weights each class's feedback by how far it is above its weighted
// fair share.
//
// # What is where
//
//	CNM     the CNM codec: the 802.1Qau CNM PDU's first 16 bytes (version,
//	        quantised feedback, CPID, cnmQOffset, cnmQDelta, encapsulated
//	        priority) in cc.Feedback.Data; FeedbackCNM, its kind.  cnm.go
//	CP      QCN's congestion point: sampling by a byte counter and a
//	        table, Fb, 6-bit quantisation, the CNM; a
//	        cc.CongestionPoint. StandardCP, PaperCP.              cp.go
//	RP      QCN's reaction point: decrease, byte counter and timer,
//	        fast recovery, active and hyper-active increase; a
//	        cc.ReactionPoint. StandardRP, PaperRP.                rp.go
//	AFCP    AF-QCN's congestion point: CP's code path plus per-class
//	        arrivals, averages, weighted fair shares and Fb_AF; a
//	        cc.CongestionPoint. PaperAFCP.                        afcp.go
//
// AF-QCN's reaction point is QCN's RP, unchanged (the survey: AF-QCN
// "directly employs the Reaction Point of standard QCN ... without any
// modification").
//
// # Constants and their sources
//
// The standard's values are the DEFVALs of its MIB (IEEE8021-CN-MIB, the
// managed objects of 802.1Qau clause 17; read in a public compiled copy):
//
//	Qeq        26 000 octets           ieee8021CnCpQueueSizeSetPoint
//	w          2 (weight 1: w = 2^1)   ieee8021CnCpFeedbackWeight; survey 4.1.1 "usually set as 2"
//	sample base 150 000 octets         ieee8021CnCpMinSampleBase
//	T          15 ms                   ieee8021CnRpgTimeReset
//	BC_LIMIT   150 000 octets          ieee8021CnRpgByteReset
//	F          5                       ieee8021CnRpgThreshold (FAST_RECOVERY_TH)
//	R_AI       5 Mb/s                  ieee8021CnRpgAiRate
//	R_HAI      50 Mb/s                 ieee8021CnRpgHaiRate
//	Gd         1/128 (rpgGd 7 = log2)  ieee8021CnRpgGd; Linux dcbnl.h: "log2(Gd)"
//	min dec    50 %                    ieee8021CnRpgMinDecFac
//	min rate   5 Mb/s                  ieee8021CnRpgMinRate
//
// The quantisation QntzFb = ⌊|Fb|·63/(Qeq·(2w + 1))⌋, 63 at and above
// Fbmax = Qeq·(2w + 1), is as HPE's FlexFabric configuration guides
// ("QCN algorithm") state it. The sampling table is the QCN pseudocode's
// eight intervals indexed by QntzFb >> 3, 150, 75, 50, 37.5, 30, 25, 21.5
// and 18.5 KB (as the public Linux QCN queueing discipline, sch_fifo's
// qcn_mark_table, has it in binary kilobytes; Broadcom's Petra CP likewise
// selects one of eight sample bases by QntzFb[5:3]): with 1500-byte frames,
// one sample per 100 frames (1 %) without congestion rising to one per
// 12.3 (8.1 %) at |Fb| ≥ 56·Fbmax/63. The literature's "1 % rising to 10 %"
// describes this table's ends loosely; hwcc implements the table, exactly.
// StandardSampleTable is it in decimal kilobytes (entry 0 = the standard's
// 150 000-octet sample base), PseudocodeSampleTable in binary ones.
//
// The paper's timer T = 10 ms (PaperRP) is as the QCN literature quotes
// [QCN-Allerton]'s baseline; hwcc has not checked it against the paper
// (docs/derivations.md, QCN), and the standard's own default is 15 ms
// (StandardRP).
// The halving of the counters' cycles after fast recovery (BC_LIMIT/2 =
// 75 KB, T/2) is the paper's description of its byte counter and timer,
// and a parameter (RPConfig.HalveAfterRecovery).
//
// # Choices where the sources are silent
//
// Each is a parameter or documented where it is: the CNM's 16-byte
// layout, its 64-byte unit for cnmQOffset and cnmQDelta and the priority's
// bits (CNM); the sampling jitter, off by default (CPConfig.JitterPercent);
// Qeq scaled with the link rate in PaperCP; when the RP's target follows
// the rate (RPConfig.TargetEveryCNM) and the RP's rounding, release and
// overdue timer (RP, "Choices"); AF-QCN's a = 1/2, b = 1/8, Ts = 100 µs,
// classes by priority, active-class weights and AF feedback only under
// congestion (AFCP).
//
// # Conventions
//
// Every event takes now first and refuses, changing nothing, an event out
// of time order (cc.ErrTimeOrder), bad input (a *cc.EventError: a nil
// packet or message, a negative size, a malformed CNM, whose
// *cc.DecodeError it wraps) or decisions that do not fit the caller's
// actions (cc.ErrActionsFull). Configurations are refused with a
// *cc.ConfigError. Nothing panics; nothing allocates per event except
// errors; the state is integers of stated widths, and AppendRegisters
// lists them.
package qcn
