// Package algos adapts hwcc's congestion-control state machines (packages
// cp, rp, np and window) to the reference harness, and registers each one
// with harness.Register and its paper's scenarios with
// harness.RegisterBuiltin. Import it for its side effects:
//
//	import _ "github.com/hwcc/hwcc/harness/algos"
//
// One file per algorithm. An adapter translates harness events (enqueue,
// dequeue, ACK, CNP, feedback, timers) into the state machine's event methods
// and its decisions (mark, stamp, rate, window, feedback) back into the
// harness; it holds no congestion-control logic of its own, so the harness
// runs exactly the code a user embeds.
//
// The algorithms are "rocc", "hpcc", "dcqcn" and "dctcp", each described
// below with its parameters (Scenario.Params, set with -set
// param.NAME=VALUE; in a comparison, -set param.ALGO.NAME=VALUE for one
// algorithm only). Every adapter rejects an unknown parameter, naming the
// known ones, or a value out of range before the run. Errors from the state
// machines (an event out of order, a malformed message) cannot happen with a
// correct harness; the adapters count them and the tests require none.
//
// The built-in scenarios (harness.Builtin) are each paper's evaluation,
// described below, plus "compare", the default of `hwcc sim`: one long flow
// and an incast joining it at 100 Gb/s under RoCC, HPCC, DCQCN and DCTCP
// side by side. Every built-in has a JSON twin in examples/scenarios;
// docs/scenarios.md is the user's reference for them. A scenario names its algorithm and sets no algorithm parameters,
// so `-algo NAME` runs the same traffic under any other algorithm.
//
// # RoCC in the harness
//
// RoCC (Taheri et al., "Congestion Control for Datacenter Networks: A
// Control-Theoretic Approach", papers/rocc.txt sections III and VI):
// algorithm "rocc".
//
// Switch (CP): every switch egress data queue runs one cp.RoCC, the fair
// rate calculator of Algorithm 1 with the paper's default flow table
// (section III-D (1), the flows with bytes in the queue). OnEnqueue and
// OnDequeue feed the table with each data frame's flow and wire size; the
// harness calls OnTimer every T (cp.RoCC.NextDeadline), the CP samples the
// queue (q.Len(), the data queue's wire bytes, not counting the frame on
// the wire) and, if the table is not empty, sends every flow in it the CNP
// of section III-C: cp.RoCC.Feedback encoded with the 16-byte RoCCFeedback
// codec into harness.Feedback.Data (exactly 16 bytes) and sent with
// q.SendFeedback at control priority, which every port serves before data
// (section III-C: "prioritize congestion notification packets"). The CNP
// names its CP as switch = the switch's NodeID and port = the egress port
// number, so CP() is unique per egress queue in a run.
//
// Sender (RP): one rp.RoCC per flow (Algorithm 2). OnFeedback decodes the
// CNP (cp.DecodeRoCCFeedback) and, ReactionDelay later (15 µs, the paper's
// "NIC (RP) reaction delay", section VI), calls rp.RoCC.OnFeedback with the
// CNP's rate and CP. The delay is the caller's (rp.RoCCConfig.ReactionDelay
// documents it) and is applied here with the RP's timer: each CNP waits in
// a FIFO with its due time, NextDeadline is the earlier of the FIFO's head
// and rp.RoCC's recovery timer, and OnTimer delivers the CNPs that are due,
// each at its own due time, before running the recovery timer, so rp.RoCC
// sees every event in time order. The pacing rate the NIC reads is
// min(offered rate, line rate, rp.RoCC.Rate()) (the offered rate is the
// application's, FlowInfo.Offered; 0 means the line rate). No window.
// Receiver (NP): none; no ECN, no INT.
//
// # RoCC presets and the port-rate mapping
//
// The paper gives two simulation settings (section VI, "System
// parameters") and two testbeds (sections VI-B and VI-C); cp has one
// preset for each. With param.preset = auto (the default) each egress
// queue gets a simulation preset by its port rate:
//
//	port rate      preset      T      Qref/Qmid/Qmax     ᾱ/β̄        Fmax
//	≤ 40 Gb/s      40g         40 µs  150/300/360 KB     0.3/1.5    port rate
//	> 40 Gb/s      100g        40 µs  300/600/660 KB     0.45/2.25  port rate
//
// and the paper's scaling between its two settings is kept: Fmax is the
// port's own rate (4000 ΔF at 40 Gb/s, 10 000 ΔF at 100 Gb/s, so 1000 ΔF on
// a 10 Gb/s port), rounded down to a whole ΔF; AUTO_TUNE's regions and the
// MD threshold Fmax/8 follow from it. The loop gain the PI controller sees
// is then the same at every port rate (N flows at F ≈ C/N move the queue by
// N·α·ΔF per ΔQ of error, and with α ≈ ᾱ·F/Fmax that is ≈ ᾱ·ΔF·C/Fmax =
// ᾱ·ΔF), which is why the 40 Gb/s preset serves every slower port: the
// paper's multi-bottleneck simulation (Fig. 10) has 10 Gb/s access links
// and gives no other setting. The 10 Gb/s DPDK testbed (section VI-B,
// Qref/Qmid/Qmax = 75/150/210 KB, T = 100 µs) is param.preset=dpdk10g and
// the 40 Gb/s Tofino testbed (section VI-C, 75/150/210 KB, T = 20 µs, ΔQ =
// 80 B) param.preset=tofino40g; a named preset applies to every port, with
// Fmax still the port's rate. All presets have ΔF = 10 Mb/s and Fmin =
// 100 Mb/s. The fields of cp.RoCCConfig that no parameter below sets
// (InitialF, Rounding, FlowTable, Message among them) keep the preset's
// values.
//
// # RoCC parameters
//
//	preset          auto (default), 40g, 100g, dpdk10g or tofino40g
//	t               T, the CP's update period, for every port: a time in
//	                [1us, 10ms] (default: the preset's)
//	reaction_delay  the RP's delay from a CNP's arrival to its effect, a time
//	                in [0, 1ms] (default 15us, section VI)
//	recovery        the RP's fast-recovery timer (Algorithm 2, lines 7 and
//	                13), a time in [1us, 100ms]; default 55 µs·T/40 µs
//	flow_capacity   entries of each CP's flow table, 1..1048576 (default
//	                1024, the paper's FPGA table, section IV-C)
//	idle_gain       off (default: Algorithm 1 as printed) or on: every CP
//	                takes the top AUTO_TUNE region's gains while its queue
//	                is nearly empty (cp.RoCCConfig.IdleGain, a rule of the
//	                authors' DPDK controller), so that F climbs back from
//	                Fmin to C/2 in 27 updates instead of 155 (40 Gb/s); with
//	                it the paper's ~2 ms convergence reproduces
//	                (TestRoCCFairnessFig8, TestRoCCConvergenceFig9)
//
// Choices where the paper is silent: the recovery timer is the authors'
// OMNeT++ value, 55 µs at T = 40 µs (REFERENCE.md), scaled with T
// (T·11/8: 27.5 µs on the Tofino preset, 137.5 µs on the DPDK one, and
// with param.t), because it must exceed T: a CP that is still congested
// sends a CNP every T, and a recovery timer shorter than T would double the
// rate between two of them. With preset auto, T is 40 µs (both simulation
// presets). The reaction delay is the simulation's 15 µs for every preset
// (the testbeds' own is whatever their hosts add, which the harness does
// not model). Every CP's timer starts at time 0 (updates at 0, T, 2T, …,
// in phase across the network).
//
// # RoCC scenarios
//
// RoCC's evaluation (papers/rocc.txt section VI-A, the micro-benchmarks,
// and the max-min tests of sections VI-B and VI-C). Every scenario names
// "rocc" and sets no algorithm parameters, so `-algo none`, `-algo static`,
// `-algo dcqcn` and so on run the same traffic. Links have the harness's
// 1 µs propagation delay (the paper gives none), payloads are 1000 B and
// PFC is on with the paper's thresholds (Xoff 500 KB at 40 Gb/s, 800 KB
// where 100 Gb/s links carry the congestion; section VI, "System
// parameters"). Each switch has a 5 MB shared pool (the authors' simulator's
// 5000 KB queue capacity) with its ports' PFC headroom on top. Long-lived
// flows send at their offered rate at most (FlowSpec.Rate, FanInSpec.Rate),
// in wire bits per second like every rate the harness reports. Every
// scenario runs Algorithm 1 as printed; param.idle_gain=on adds the
// idle-queue gain with which the paper's ~2 ms convergence reproduces.
//
//	rocc-fairness         `senders` (10) flows, each offered `offered_load`
//	                      (0.9) of the link, into h0 over one `link`
//	                      (40 Gb/s) switch port (Fig. 8): fair share C/N.
//	rocc-convergence      3 → 100 → 3 flows into h0 at 40 Gb/s: the flow count
//	                      grows geometrically (≈ doubling) every `step` for
//	                      `steps` steps from `start_flows` to `max_flows`,
//	                      holds one step, and shrinks back the same way
//	                      (Fig. 9; each flow offered 0.9 of the link).
//	rocc-multibottleneck  Fig. 10: D0 A0→B0 crosses S0→S1 (40 Gb/s) and S1→B0
//	                      (10 Gb/s); D5 B5→B0; Di Ai→Bi (i = 1..4). Fair
//	                      shares 5 Gb/s (D0, D5) and 8.75 Gb/s (D1..D4).
//	rocc-asymmetric       section VI-A e: A0..A4 (40 Gb/s) behind S0, A5, A6
//	                      (100 Gb/s) behind S1, all to B0 (100 Gb/s) through
//	                      S2: 100/7 = 14.29 Gb/s each.
//	rocc-maxmin           three flows h1, h2, h3 → h0 offered `offered`
//	                      (10Gbps,3Gbps,1Gbps) on a `link` (10 Gb/s) star:
//	                      max-min shares 6, 3, 1 Gb/s (section VI-B); with
//	                      link=40Gbps offered=40Gbps,30Gbps,10Gbps: 15, 15,
//	                      10 Gb/s (section VI-C).
//
// Each scenario's measurement window opens after RoCC, running Algorithm 1
// as printed, has settled in its default case, with margin, so the
// reported throughputs and queue statistics are the steady state the
// paper's bar charts show: rocc-fairness [8, 12) ms, rocc-multibottleneck
// [12, 20) ms, rocc-asymmetric [6, 10) ms, rocc-maxmin [10, 15) ms.
// rocc-convergence measures the whole run (its point is the time series:
// run it with -out).
//
// Keys: rocc-fairness adds `link` (also sets the offered rate and xoff)
// and `offered_load`; rocc-convergence `start_flows`, `max_flows`, `steps`,
// `step`, `link` and `offered_load` (each rebuilds the flows and the
// duration); rocc-multibottleneck `link` (access links), `core_link` and
// `offered_load`; rocc-asymmetric `link` (the 40 Gb/s side), `core_link`
// (the 100 Gb/s side) and `offered_load`; rocc-maxmin `offered` and `link`.
// A key that rebuilds the workload also resets the durations it derives;
// set duration and the window after it.
//
// # HPCC in the harness
//
// HPCC (Li et al., SIGCOMM 2019, papers/hpcc.txt sections 3 and 4):
// algorithm "hpcc".
//
// Sender (RP): one rp.HPCC per flow, fed every ACK's cumulative sequence,
// the NIC's snd_nxt and the echoed INT header (Algorithm 1, NewAck). The
// NIC reads back the window W (inflight payload limit, CanSend:
// inflight < W) and the pacing rate R = W/T. W starts at W_init = B_NIC·T,
// so a new flow sends at line rate for its first round trip (section 3.2).
// NAKs carry INT too and are handled alike (their sequence is cumulative).
//
// Switch (CP): every switch egress data queue runs a cp.HPCC. The harness
// stamps INT itself when Features.INT is set (package harness, "Switch
// model": after OnDequeue it calls inttel.Codec.Stamp with the port's
// 64-bit txBytes counter and the queue length), and the harness's CP
// interface has no way to stamp instead of it: a CP that also stamped would
// add a second record per switch. So the cp.HPCC runs beside the harness's
// stamper, on the same inputs, and stamps a copy of every data packet's
// header; TestHPCCShadowStampsMatchHarness checks, packet by packet, that
// its records equal the ones the receiver gets (and the sender uses). Every
// run thus exercises hwcc's own cp.HPCC, the test shows it bit-identical to
// the records the senders react to, and a harness that let the CP stamp
// would not change a bit of the results. The cost is one header copy and
// one Stamp per data packet per hop, part of what BenchmarkHPCCIncast
// measures.
//
// Receiver (NP): none. The receiver's only HPCC duty, echoing the INT
// header in the ACK, is the harness NIC's (Features.INT).
//
// # HPCC parameters
//
//	t          T, the base-RTT bound: a time in [10ns, 100ms], or "auto"
//	           (default): the flow's own base RTT with its INT bytes, which
//	           is the paper's rule "slightly greater than the maximum RTT"
//	           when every flow has the same path length (the authors'
//	           simulator sets T to the largest base RTT of the topology,
//	           GLOBAL_T). On topologies with unequal paths set t to the
//	           largest base RTT (the paper's fat tree: 13us).
//	eta        η, target utilisation in [0.5, 1] (default 0.95, section 5.1)
//	wai        W_AI in bytes, or "auto" (default): W_init·(1 − η)/100, the
//	           rule of section 3.3 for N = 100 concurrent flows (80 B at
//	           100 Gb/s and T = 13 µs, section 5.1; 25 B at the 4 µs of
//	           section 5.4). At most W_max = W_init.
//	max_stage  maxStage in 0..255 (default 5, section 3.3)
//	fast_react per-ACK reaction on (default) or off (per-RTT only, Fig. 13)
//	multi_rate per-hop law (the authors' MULTI_RATE), off by default
//
// W_max = W_init = B_NIC·T and W_min = 1 Gb/s·T, as rp.HPCCPaperSim; the
// INT codec is inttel.DefaultConfig, the harness's; the reciprocal table is
// the default one (ε = 2^-7). U starts at 0 (rp.HPCCConfig.InitialU left
// at HPCCInitialUZero); no parameter selects the ns-3 or htsim start.
//
// # HPCC scenarios
//
// HPCC's micro-benchmarks (papers/hpcc.txt section 5.4 and Figure 9, at
// the section 5.4 scale): hosts on one switch, 100 Gb/s links with 1 µs
// propagation delay, 1000-byte payloads, the harness's default 32 MB
// shared buffer and PFC.
//
//	hpcc-incast            `senders` (16) flows of `size` (1 MB) into h0 at t = 0
//	                       (section 5.4, Figures 13 and 14)
//	hpcc-long-short        a long flow h1→h0; a flow of `size` (1 MB) h2→h0
//	                       from `start` (100 µs) to its completion (Fig. 9a)
//	hpcc-incast-into-long  a long flow h1→h0; at `at` (100 µs) `senders` (7)
//	                       flows of `size` (500 KB) from h2.. into h0 (Fig. 9c)
//	hpcc-fairness          `senders` (4) long flows into h0 joining every `step`
//	                       (5 ms) and leaving in reverse order (Fig. 9g)
//
// The keys each scenario adds with AddParam shadow the common ones of the
// same name where the meaning differs (size of the short flow, of the
// incast only). In the first three scenarios every key lengthens Duration
// to fit the traffic (never shortens it; set duration after them to force
// a shorter run); in hpcc-fairness `senders` and `step` set the duration
// to (2·senders − 1)·step and the measurement window to the second half of
// the phase with every flow on, [(senders − ½)·step, senders·step), so
// that the report's Jain index is that phase's. The sample interval is
// 1 µs, as the paper samples queues (Figure 14b), except for hpcc-fairness
// (10 µs: its phases last milliseconds).
//
// Choices where the paper is silent: the short flow and the incast senders
// use hosts of their own, so that they share the bottleneck switch port
// s0→h0 with the long flow and not its NIC; the incast into the long flow
// uses 500 KB flows (the paper gives no size); the fairness scenario runs
// at 5 ms per step instead of the testbed's 1 s (about 1200 base RTTs).
// How fair the flows get depends on W_AI: Jain's index over the second
// half of the four-flow phase rises as param.wai grows from the default
// (the N = 100 rule, 26 B here) to the paper's section 5.1 value, 80 B,
// and beyond; the README gives the measured index with the command that
// measures it.
//
// # DCQCN in the harness
//
// DCQCN (Zhu et al., SIGCOMM 2015; papers/survey-lossless-cc.txt section
// 4.1.2; REFERENCE.md, DCQCN): algorithm "dcqcn".
//
// Switch (CP): every switch egress data queue runs one cp.DCQCN, the RED
// marker, told of every frame's enqueue and dequeue with the data queue's
// length q.Len() in wire bytes (preamble and IFG counted, the frame in
// serialisation not), and sets p.CE when it says mark (never clearing a CE
// set by an earlier hop). Where the frame is judged is the CP's own
// cp.DCQCNConfig.MarkAt, set from param.mark:
//
//   - dequeue (default): as the frame leaves the queue (OnDequeue), against
//     the queue it leaves behind (q.Len() without it). This is the HPCC
//     authors' ns-3 switch (it marks in SwitchNotifyDequeue, after removing
//     the frame from the egress count), and the mark reaches the receiver
//     without waiting behind the queue it reports.
//   - enqueue: as the frame joins the queue (OnEnqueue), against the queue
//     including it: the survey's wording ("mark an arriving packet") and
//     the harness's default marker. The mark then travels behind the whole
//     queue, so the feedback delay grows with the queue (128 µs at Kmax =
//     400 KB on 25 Gb/s).
//
// Dequeue is the default because it reproduces the HPCC paper's DCQCN
// measurements and enqueue does not. In dcqcn-incast at 25 Gb/s, marking at
// dequeue puts the first queue peak at the paper's (about 550 KB); marking
// at enqueue lets it reach several times that. In dcqcn-fairness, marking
// at dequeue, two long flows keep "a standing queue around the ECN marking
// threshold" with all of the link used. docs/scenarios.md gives the
// measured values; `hwcc sim -scenario dcqcn-incast -set param.mark=enqueue`
// (or dcqcn-fairness) measures the other side of the comparison.
// Including or excluding the judged frame differs by one frame
// (1082 wire bytes at the default payload), 1.1 % of the smallest default
// Kmin.
//
// Each queue's LFSR gets its own seed, so that the marks of different ports
// are not correlated. Features: none. In particular not Features.ECN, which
// would add the harness's threshold marker (SwitchSpec.ECN, 100 KB by
// default) on top of RED: cp.DCQCN replaces it (harness.Features's
// documentation).
//
// Receiver (NP): one np.DCQCN per flow; OnData passes the frame's CE bit to
// OnPacket and a true result sends one CNP; the slot rule's deferred CNP
// comes from OnTimer at NextDeadline.
//
// Sender (RP): one rp.DCQCN per flow, port rate = the NIC's line rate.
// OnCNP, OnTimer and NextDeadline map one to one; OnSend feeds the byte
// counter with the frame's payload bytes (retransmissions included: the NIC
// counts what it sends). The NIC paces at min(offered rate, line rate, RC)
// (RC: rp.DCQCN.Rate(), the current rate) and has no window. ACKs are
// ignored: DCQCN reacts to CNPs only.
//
// # DCQCN parameters
//
//	preset        RP and NP settings: connectx (default), paper or hpcc
//	                connectx  rp.DCQCNConnectX, np.DCQCNConnectX: the NVIDIA
//	                          ConnectX defaults (min_time_between_cnps 4 µs)
//	                paper     rp.DCQCNPaper, np.DCQCNPaper (50 µs slots)
//	                hpcc      rp.DCQCNHPCCSim, np.DCQCNHPCCSim (a CNP per
//	                          marked packet, decreases on a 4 µs grid from
//	                          the first CNP): the HPCC paper's simulations
//	kmin, kmax    the CP's thresholds, sizes, at every port; default 100 KB
//	              and 400 KB scaled by port rate/25 Gb/s (cp.DCQCNHPCCSim:
//	              400 KB and 1.6 MB at 100 Gb/s)
//	pmax          marking probability at Kmax, a number in [0, 1], stored in
//	              Q0.16 rounded to nearest (default 0.2)
//	np            the NP's rule: slot (the paper's N-µs slots) or interval
//	              (ConnectX's min_time_between_cnps); default the preset's
//	cnp_interval  the slot length or minimum interval, a time in 0..1s;
//	              default the preset's (connectx 4us, paper 50us, hpcc 0)
//	mark          where the CP judges a frame: dequeue (default) or enqueue
//
// and these fields of rp.DCQCNConfig under their ConnectX parameter names
// (REFERENCE.md's table; units.ParseRate/ParseTime/ParseBytes strings for
// rates, times and sizes, whole numbers otherwise): dce_tcp_g,
// dce_tcp_rtt, initial_alpha_value, rate_to_set_on_first_cnp, rpg_gd,
// rpg_min_dec_fac, rpg_min_rate, rpg_max_rate, rate_reduce_monitor_period,
// rpg_time_reset, rpg_byte_reset (bytes, a multiple of 64 B),
// rpg_threshold, rpg_ai_rate, rpg_hai_rate, clamp_tgt_rate and
// clamp_tgt_rate_after_time_inc (on/off). They apply on top of the preset.
// Rates must be multiples of the preset's rate unit (1 Mb/s for connectx,
// 1 Kb/s otherwise). One more RP key is not a vendor parameter (hence its
// rp_ prefix):
//
//	rp_alpha_frac_bits  rp.DCQCNConfig.AlphaFracBits, the width of the
//	                    RP's α register, 10..24 (every preset: 20); 10 is
//	                    a pure Q10 register, whose truncation pins α near
//	                    0 when CNPs are more than a few µs apart
//
// rp.DCQCNConfig.RateReduceMode is not a parameter: it is the preset's
// (DCQCNReduceSpacing for connectx and paper, DCQCNReduceGrid for hpcc).
//
// Why connectx is the default: it is what a user of these NICs deploys
// (the "the NIC's parameters define what users deploy"), every
// value of it is documented (REFERENCE.md), and its CNP pacing is the
// NIC's, not a simulator's. The CP has no vendor default (a switch setting);
// every preset uses the HPCC paper's thresholds, which scale with the port
// rate ("according to our experiences (no vendor suggestion available)",
// papers/hpcc.txt section 5.1), the only thresholds the sources give.
//
// Validation: CheckParams rejects unknown keys and values out of their
// field's range (each RP key is applied to its preset at the largest port
// rate the registers hold and the result validated, so the error names the
// rp.DCQCNConfig field and its range); what depends on the port rate (a
// rate above the line rate, Kmin above a scaled Kmax, a line rate that is
// not a whole number of rate units) is an error from NewCP or NewRP, which
// aborts the run naming the port or flow.
//
// # DCTCP in the harness
//
// DCTCP (Alizadeh et al., SIGCOMM 2010, section 3; REFERENCE.md, "TIMELY and
// DCTCP"): algorithm "dctcp", run by the harness's generic adapter
// (harness.Scheme) over the cc registry's dctcp parts (package algos).
//
// Switch (CP): every switch egress data queue runs the dctcp cp, the step
// marker cp.DCTCP: CE when the data queue's wire bytes exceed K (default 30 KB
// scaled by port rate/10 Gb/s, the HPCC paper's rule "according to [8]"). The
// adapter reports every enqueue and dequeue; cp.DCTCPConfig.MarkAt decides
// where the frame is judged: on arrival against the queue including it (the
// default, mark_at = enqueue), as the DCTCP paper specifies ("mark arriving
// packets") and its section 3.3 analysis assumes; mark_at = dequeue judges it
// on departure against the queue left behind, as the HPCC authors' ns-3 switch
// does (DCQCN defaults to dequeue to reproduce the HPCC paper's DCQCN numbers,
// below).
//
// Receiver (NP): none. The harness NIC echoes CE in its ACKs: the ACK's ECE is
// set when a data packet it covers arrived marked.
//
// Sender (RP): the dctcp rp, rp.DCTCP, per flow. The NIC reads its window
// (cwnd, the limit on unacknowledged payload) and paces at min(offered rate,
// line rate): DCTCP is window-based. Sequence numbers: the harness numbers
// payload bytes from 0 in 64 bits, rp.DCTCP in 32 bits as TCP does, and
// compares them wrap-aware, exact while the bytes in flight stay below 2^31
// (cwnd is at most 1 GiB); TestDCTCPSequenceWrap crosses the wrap. ACKs and
// NAKs reach rp.DCTCP's Feedback, which splits an ACK of more than 64 KiB into
// pieces (rp.DCTCP.OnAckSplit). With ack_every > 1 every byte of an ACK that
// echoes ECE counts as marked (the NIC's ACK carries one ECE bit, as TCP's
// does).
//
// # DCTCP parameters
//
// The registry's (hwcc algos dctcp): preset (linux, the default, or hpcc),
// k, mark_at, mss, initial_cwnd, max_cwnd, dctcp_shift_g, dctcp_alpha_on_init,
// slow_start, initial_seq. The linux preset is Linux tcp_dctcp.c: g = 1/16,
// α₀ = 1, IW10, no window cap below 1 GiB, slow start on; hpcc is the HPCC
// paper's runs: no slow start, cwnd starting at and capped by the flow's
// bandwidth-delay product (line rate × base RTT, at least two segments). The
// MSS is the scenario's payload (NICSpec.Payload, default 1000 B). Why linux
// is the default: it is the reference implementation (REFERENCE.md) and its
// window is not capped at the bandwidth-delay product, so that the queue
// settles at K as the DCTCP paper analyses it; under the hpcc preset two flows
// cannot fill a queue beyond one BDP, far below K at every link speed (the BDP
// of a 1 µs star at 10 Gb/s is 6 KB, K is 30 KB), so the marker never acts.
//
// # DCQCN and DCTCP scenarios
//
// DCQCN's scenarios, whose two shapes the DCTCP ones share. Each names its
// algorithm and sets no algorithm parameters.
//
//	dcqcn-fairness  `senders` (2) long flows h1.. → h0 across one switch,
//	                flow i starting at i·`stagger` (1ms); after the last
//	                start, `settle` (20ms) to converge, then a measurement
//	                window of `window` (40ms)
//	dcqcn-incast    a long flow h1 → h0 from t = 0; at `at` (1ms) `senders`
//	                (7) flows of `size` (500KB) from h2.. into h0: the HPCC
//	                testbed's incast into a long flow (papers/hpcc.txt
//	                section 5.2, Figure 9c/d), measured from `at` to the end
//	dctcp-fairness  as dcqcn-fairness at 10 Gb/s: `settle` (10ms), then
//	                `window` (20ms)
//	dctcp-incast    as dcqcn-incast at 10 Gb/s
//
// Setup (the HPCC testbed's, section 5.1): hosts on one switch, 25 Gb/s
// links (`link`), 1 µs propagation delay (base RTT 4.9 µs for a 1000-byte
// payload; the testbed's is 5.4 µs within a rack), 1000-byte payloads, the
// harness's 32 MB shared buffer, PFC on with Xoff = 11 % of the buffer
// (3.52 MB), the paper's PFC threshold ("triggered when an ingress queue
// consumes more than 11% of the free buffer") with the buffer empty. A
// static threshold that high keeps PFC out of the way of the ECN loop at
// every link rate (the harness default, 500 KB, is below DCQCN's Kmax of
// 1.6 MB at 100 Gb/s). At 25 Gb/s DCQCN's Kmin/Kmax are the paper's
// unscaled 100/400 KB.
//
// The DCTCP scenarios run at 10 Gb/s, the DCTCP paper's link speed and the
// reference of the HPCC paper's marking rule (K = 30 KB·Bw/10 Gb/s: K =
// 30 KB here), with the same keys, switch and PFC settings. DCTCP's control
// loop runs per round trip (tens of µs here, with the queue at K), two
// orders of magnitude faster than DCQCN's 300 µs rate timer, so its
// fairness run settles and averages over half the time.
//
// Choices where the sources are silent: the incast flows' size (the paper
// gives none; 500 KB, as hpcc-incast-into-long), the long flow's head
// start (1 ms, long enough for a DCTCP window to settle at K), the
// fairness run's length (tens of DCQCN's millisecond-scale rate cycles,
// see docs/scenarios.md). Each key refits the duration and the
// measurement window: fairness runs for (senders − 1)·stagger + settle +
// window and measures the last window; the incast runs for at + twice the
// time (senders + 1)·size takes at the line rate + 1 ms, rounded up to
// 100 µs, and measures from at. The sample interval is 1 µs for the incast
// (queue plots at the paper's resolution) and 100 µs for fairness.
package algos
