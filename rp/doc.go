// Package rp holds reaction points: the sender-side half of each
// congestion-control algorithm, one state machine per flow, that turns
// feedback (ACKs with ECN echo or INT, CNPs, explicit rates) and its own timers
// into a sending rate and, where the algorithm has one, a window.
//
// # Algorithms
//
// One file per algorithm (the messages it reads are package wire's):
//
//	RoCC         [RoCC] §III-E (Algorithm 2, the rate limiter of one
//	             flow, fed the CPs' CNPs, wire.RoCCFeedback); presets
//	             RoCC40G, RoCC100G, RoCCDPDK10G, RoCCTofino40G (§VI)
//	                                                           rocc.go
//	RoCCHost     [RoCC] §III-F: Algorithm 1 on the sender's host from the
//	             switch's reports (package pi's arithmetic)  rocc_host.go
//	HPCC         MeasureInflight and the window law of [HPCC] §3.2,
//	             Algorithm 1, from the INT records an ACK echoes
//	             (packages inttel and window)                  hpcc.go
//	DCQCN        the per-flow rate limiter of NVIDIA ConnectX NICs: RC cut
//	             by RC·α/2 per CNP, α per dce_tcp_rtt, recovery by timer
//	             and byte counter ([Survey] §4.1.2, RP algorithm,
//	             equations (5)–(8); [DCQCN]; [ConnectX])      dcqcn.go
//	DCTCP        the window-based sender in Linux's integer form ([DCTCP]
//	             §3.1; [RFC8257] §3.3; [Linux-DCTCP])         dctcp.go
//	Mercury      DCQCN's reaction point plus the window a switch's CNP
//	             carries ([Mercury] §"Window-based congestion
//	             notification", Algorithm 2 lines 15–20)    mercury.go
//	QCN          802.1Qau's rate limiter: the cut by the CNM's 6-bit
//	             feedback, fast recovery, active and hyper-active
//	             increase (see QCN below)                       qcn.go
//	BECN         BECN's and FECN's source: halve per notification, pause
//	             after five in a row, double back per quiet period (see
//	             BECN and FECN below)                          becn.go
//	TIMELY       [TIMELY] Algorithm 1 on RTT samples of 16 KB segments
//	             (see TIMELY below)             timely.go, timely_config.go
//	HierCC       the host of one HierCC flow: a mark every 10 µs, the
//	             first and last packet flagged, the ToR's rate packets
//	             applied ([HierCC] §4)                       hiercc.go
//	ExpressPass  the credit-gated sender: requests credits, spends one per
//	             frame and echoes it, stops them after the last byte
//	             ([ExpressPass] §3; [ExpressPass-ns2])   expresspass.go
//	BFC          a sender at line rate within a window, stopped while
//	             its first-hop switch has the flow paused ([BFC];
//	             cp.BFC)                                        bfc.go
//	NSCC         Ultra Ethernet's network-signalled congestion control:
//	             the window from each ACK's ECN echo and queueing delay
//	             against a target (the four cases, quick adapt, the NACK
//	             cut, the fulfil step), optionally with RCCC's credit
//	             beside it ([UEC]; [uet-htsim])                 nscc.go
//	RCCC         Ultra Ethernet's receiver credit-based congestion
//	             control, the sender alone: speculative credit, the pull
//	             target in every header, credit from the receiver's pulls
//	             (np.RCCC) ([UEC]; [uet-htsim])                 rccc.go
//	Fixed        no congestion control: a constant rate or none (the
//	             harness's baselines none and static)          fixed.go
//
// # The contract
//
// Every type here keeps the contract of package cc: it implements
// cc.ReactionPoint (checked at compile time), refuses time going backwards
// with a *cc.TimeOrderError, returns only cc's error types, runs a deadline
// it was let pass at the next event (each expiry as at its own deadline),
// counts messages of kinds it does not use in register unused_feedback,
// and appends every register it carries, each under its own name, to a
// caller's slice (AppendRegisters). Its events are the contract's methods
// and nothing else; typed read-only accessors report its registers in the
// units of its snapshot. Package algos registers each with its presets and
// a description of every parameter, so that cc.New builds it from
// strings.
//
// Every type has the same shape: a Config with units, widths and sources
// on every field; presets returning one; New(cfg) validating it (errors
// are *cc.ConfigError naming the field); the contract's events taking now
// first; explicit deadlines (NextDeadline, and Timer); State() returning
// every register as a struct. Nothing here allocates, reads a clock or
// starts a goroutine on an event.
//
// # QCN
//
// QCN's reaction point (QCN; [QCN] clause 32's RP; [QCN-Allerton];
// [Survey] §4.1.1), the rate limiter of one flow, driven by the CNMs
// (wire.CNM) that QCN's and AF-QCN's congestion points (cp.QCN, cp.AFQCN)
// send:
//
//	RC ← RC(1 − Gd·|Fb|), Gd = 1/128 on the 6-bit value; recovery by
//	timer and byte counter: 5 fast-recovery cycles RC ← (RC + RT)/2,
//	then AI (RT += R_AI), then HAI (RT += i·R_HAI).
//
// The standard's values are the DEFVALs of its MIB (IEEE8021-CN-MIB, the
// RP group table ieee8021CnRpGroupTable):
//
//	T          15 ms                   ieee8021CnRpgTimeReset
//	BC_LIMIT   150 000 octets          ieee8021CnRpgByteReset
//	F          5                       ieee8021CnRpgThreshold (FAST_RECOVERY_TH)
//	R_AI       5 Mb/s                  ieee8021CnRpgAiRate
//	R_HAI      50 Mb/s                 ieee8021CnRpgHaiRate
//	Gd         1/128 (rpgGd 7 = log2)  ieee8021CnRpgGd; Linux dcbnl.h: "log2(Gd)"
//	min dec    50 %                    ieee8021CnRpgMinDecFac
//	min rate   5 Mb/s                  ieee8021CnRpgMinRate
//
// The paper's timer T = 10 ms (QCNPaper) is as the QCN literature quotes
// [QCN-Allerton]'s baseline; hwcc has not checked it against the paper
// (docs/derivations.md, QCN's constants), and the standard's own default
// is 15 ms (QCNStandard). The halving of the counters' cycles after fast
// recovery (BC_LIMIT/2 = 75 KB, T/2) is the paper's description of its
// byte counter and timer, and a parameter (QCNConfig.HalveAfterRecovery).
// When the target follows the rate (QCNConfig.TargetEveryCNM), the
// rounding, the release and the timer are hwcc's choices, each stated
// where it is (QCN).
//
// # BECN and FECN
//
// The source of BECN and FECN (BECN), as [Survey] §4.1.1 ("BECN") and
// §4.1.2 ("FECN") state them: it halves its rate per notification
// (wire.FeedbackBECN, from cp.BECN or np.FECN), pauses after five in a
// row, and after a quiet period steps its rate back up, level by level,
// to the original rate.
//
//	halve per notification        survey 4.1.1 "cuts in half" (BECNCutShift = 1)
//	pause after 5 in a row        survey 4.1.1 "five successive BECN cells"
//	                              (BECNSurveyPauseAfter)
//	recover to the original rate  survey 4.1.1 "increased to the previous
//	                              level, until regains the original rate":
//	                              one doubling (the inverse of one halving)
//	                              per quiet period
//	quiet period Tq = 55 µs       hwcc's (BECNSurveyQuietPeriod): DCQCN's K,
//	                              survey 4.1.2 ("usually 55µs")
//	min rate 1 Mb/s               hwcc's: the NIC vendor's rpg_min_rate
//	                              (DCQCNConnectX)
//
// What was looked up and not used: InfiniBand's source keeps a congestion
// control table index (CCTI), raised by CCTI_Increase per BECN up to
// CCTI_Limit and lowered by one per CCTI_Timer expiry (a 16-bit count of
// 1.024 µs) down to CCTI_Min, the table giving an inter-packet delay
// ([IBA] annex A10, CACongestionSetting and CongestionControlTable, as the
// Linux hfi1 driver implements them). That is a different rate law from
// the survey's halving and pausing, which BECN follows; the spec's default
// timer values were not found, so the quiet period is hwcc's. Newman's
// papers could not be read here (only the GLOBECOM paper's abstract: BECN
// kept an ATM LAN of up to 50 km free of cell loss at over 80 %
// utilization); his threshold and recovery period are therefore not used,
// and the doubling per quiet period is hwcc's reading of the survey's
// "increased to the previous level".
//
// Choices where the sources are silent, each a field of BECNConfig: "five
// successive" is a row, notifications each less than QuietPeriod after
// the previous one (a gap of Tq or more starts a new row), and every
// notification from the PauseAfter-th of a row on pauses (or keeps
// paused); a pause ends with the row, at the first quiet period
// (PauseTime = 0, the presets), or a fixed PauseTime after the latest
// pausing notification; the rate comes back as RC ← min(2·RC, LineRate)
// once per quiet period; the halving's floor is MinRate; the rate
// register is 32 bits of 1 kb/s (BECNRateUnit).
//
// # TIMELY
//
// TIMELY's reaction point (TIMELY; [TIMELY]): the RTT measurement engine
// of §3.1 and the rate computation engine of §4.3 (Algorithm 1), with the
// constants of §6; [Survey] §4.2.1 summarises it. TIMELY needs no switch
// support: the sender's NIC timestamps each segment, takes the completion
// of the segment (its ACK) as one RTT sample, and moves the flow's pacing
// rate by the sample and by the gradient of successive samples. The
// integer registers: the rate in kb/s, RTTs in ns, rtt_diff signed, the
// gradient in Q16.16, α and β in Q0.16.
//
//	segment 16 KB (16 384 B; 16–64 KB)      §6; §3.1, survey 4.2.1
//	Tlow 50 µs, Thigh 500 µs                §6
//	δ 10 Mb/s, β 0.8                        §6
//	HAI: N = 5 after 5 completion events    Algorithm 1
//	α 0.875, minRTT 20 µs                   [HPCC-ns3] (see below)
//	RTT = t_completion − t_send − seg.size/line rate   §3.1; survey eq. (9)
//
// §6 reads "Unless mentioned otherwise, we use the following parameters
// for TIMELY: segment size of 16 KB, Tlow of 50 µs, Thigh of 500 µs,
// additive increment of 10 Mbps, and a multiplicative decrement factor (β)
// of 0.8". It does not print α or minRTT; hwcc takes 0.875 and 20 µs from
// [HPCC-ns3], which runs TIMELY with exactly these (docs/derivations.md,
// TIMELY's α and minRTT). The first author's later published TIMELY code
// recommends α = 0.02 and Thigh = 1 ms instead; both are configuration
// fields. α weighs the new difference (Algorithm 1 writes rtt_diff ← (1 −
// α)·rtt_diff + α·new_rtt_diff), so α = 0.875 follows the newest
// difference closely; every implementation found reads it so.
//
// Where the sources are silent (hwcc's choices, each a field of
// TIMELYConfig or stated on TIMELY): the initial rate is the line rate
// (InitialRate); the rate floor is one δ, 10 Mb/s (MinRate); the first
// sample has no predecessor, so prev_rtt takes its value and its
// new_rtt_diff is 0 (as the authors' code does); HAI counts increases of
// both kinds (below Tlow, gradient ≤ 0), this one included, and any
// decrease clears the count, so the fifth increase in a row is the first
// of N·δ; below Tlow the step is always δ; the sample's send time
// (Sample): the paper's first packet of the segment assumes the NIC sends
// a segment as a line-rate burst, and a caller that paces packet by
// packet would add the pacing gaps to the RTT (16 KiB at 1 Gb/s: 118 µs),
// which drives the rate down further, so the presets measure from the
// segment's last packet; the serialisation is subtracted at line rate,
// from the payload bytes (SubtractSerialization); a ring of 16 segments,
// a cumulative ACK completing several giving one sample (the newest's), a
// NAK discarding the ring (Karn's rule); scaling to other links
// (TIMELYScaled): δ = 10 Mb/s per 10 Gb/s, the ratio the authors' code
// recommends. No timer: the rate moves only on samples (the authors'
// later code scales δ and the Thigh cut by the time since the last
// update and caps a cut at half the rate; neither is in Algorithm 1, and
// neither is here). No float64 is used after NewTIMELY (α, β, minRTT and
// the line rate become Q0.16 constants and reciprocals there); the tests
// hold a float64 model of Algorithm 1 with the distance bound the integer
// path keeps from it.
package rp
