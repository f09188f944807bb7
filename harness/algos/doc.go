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
// and an incast joining it at 100 Gb/s under seven algorithms side by side
// (RoCC, HPCC, DCQCN, DCTCP, QCN, BECN and FECN; compare.go says why TIMELY
// is left out). Every built-in has a JSON twin in examples/scenarios;
// docs/scenarios.md is the user's reference for them. A scenario names its algorithm and sets no algorithm parameters,
// so `-algo NAME` runs the same traffic under any other algorithm.
//
// # RoCC in the harness
//
// RoCC ([RoCC] §III and §VI):
// algorithm "rocc", run by the harness's generic adapter (harness.Scheme)
// over the cc registry's rocc parts (package algos): the cp at the switches
// and the rp at the senders (Scheme.RP names it: the registry's first
// reaction point is hostcp, the host calculation of section III-F, which
// the harness does not run).
//
// Switch (CP): every switch egress data queue runs the rocc cp, cp.RoCC,
// the fair rate calculator of Algorithm 1 with the paper's default flow
// table (section III-D (1), the flows with bytes in the queue). The adapter
// reports every data frame's enqueue and dequeue with its flow and wire
// size; the harness runs the CP's timer every T (cp.RoCC.NextDeadline),
// when the CP samples its queue (the data queue's wire bytes at its latest
// enqueue or dequeue, not counting the frame on the wire) and, if the table
// is not empty, asks for the CNP of section III-C to every flow in it: a
// cc.FeedbackRate message whose 16 bytes are wire.RoCCFeedback's,
// which the harness sends at control priority, served before data at every
// port (section III-C: "prioritize congestion notification packets"). The
// CNP names its CP as switch = the switch's NodeID and port = the egress
// port number (the cp's Env hook), so CP() is unique per egress queue in a
// run.
//
// Sender (RP): the rocc rp, rp.RoCC, per flow (Algorithm 2). Its
// ReactionDelay (15 µs, the paper's "NIC (RP) reaction delay", section VI)
// is the NIC's: the adapter holds each CNP in a FIFO and hands it to the
// part that much after its arrival, at its due time, the part's recovery
// timer and the FIFO's head setting the flow's timer, so rp.RoCC sees every
// event in time order. The transport's ACKs are not delayed (the part
// ignores them). The pacing rate the NIC reads is min(offered rate, line
// rate, rp.RoCC's rate) (the offered rate is the application's,
// FlowInfo.Offered; 0 means the line rate). No window. A malformed CNP, or
// one naming another flow, is refused by the part and listed in the
// report's errors (Report.Errors); a report (type 2, for hostcp) is
// counted in the part's unused_feedback register. Receiver (NP): none; no
// ECN, no INT.
//
// # RoCC presets and the port-rate mapping
//
// The paper gives two simulation settings (section VI, "System
// parameters") and two testbeds (sections VI-B and VI-C); the registry has
// a preset for each, 40g, 100g, dpdk10g and tofino40g, on every part, and
// auto, the default, which picks a simulation setting by the rate where
// the part runs (the port's for a CP, the NIC's for an RP):
//
//	port rate      preset      T      Qref/Qmid/Qmax     ᾱ/β̄        Fmax
//	≤ 40 Gb/s      40g         40 µs  150/300/360 KB     0.3/1.5    port rate
//	> 40 Gb/s      100g        40 µs  300/600/660 KB     0.45/2.25  port rate
//
// and the paper's scaling between its two settings is kept whatever the
// preset (the parts' Env hooks): Fmax is the port's own rate (4000 ΔF at
// 40 Gb/s, 10 000 ΔF at 100 Gb/s, so 1000 ΔF on a 10 Gb/s port), rounded
// down to a whole ΔF, and a port whose rate is not in (Fmin, 65 535 ΔF] is
// the run's configuration error naming it; AUTO_TUNE's regions and the MD
// threshold Fmax/8 follow from it. The loop gain the PI controller sees is
// then the same at every port rate (N flows at F ≈ C/N move the queue by
// N·α·ΔF per ΔQ of error, and with α ≈ ᾱ·F/Fmax that is ≈ ᾱ·ΔF·C/Fmax =
// ᾱ·ΔF), which is why the 40 Gb/s preset serves every slower port: the
// paper's multi-bottleneck simulation (Fig. 10) has 10 Gb/s access links
// and gives no other setting. Likewise Rmax is each NIC's line rate in
// whole ΔF (Table II: "usually the link bandwidth"). The 10 Gb/s DPDK
// testbed (section VI-B, Qref/Qmid/Qmax = 75/150/210 KB, T = 100 µs) is
// param.preset=dpdk10g and the 40 Gb/s Tofino testbed (section VI-C,
// 75/150/210 KB, T = 20 µs, ΔQ = 80 B) param.preset=tofino40g; a named
// preset applies to every port and flow, with Fmax and Rmax still the
// port's and the NIC's rate. All presets have ΔF = 10 Mb/s and Fmin =
// 100 Mb/s. param.link makes auto pick by that rate instead.
//
// # RoCC parameters
//
// The registry's (hwcc algos rocc), each going to the parts that have it
// (param.cp.NAME, param.rp.NAME for one): preset and link, t and delta_f
// on both parts; the switch's delta_q, start, fmin, fmax, qref, qmid,
// qmax, alpha_bar, beta_bar, gain_terms, gain_frac_bits, queue_bits,
// rate_bits, rate_frac_bits, initial_f, rounding, flow_table,
// flow_capacity, flow_max_age, idle_gain, message, switch and port; the
// sender's rmax, recovery and reaction_delay. The names the harness used
// before (preset, t, reaction_delay, recovery, flow_capacity, idle_gain)
// are the registry's. The harness's defaults:
//
//	preset          auto (40g up to 40 Gb/s, 100g above)
//	t               the preset's T (40 µs; dpdk10g 100 µs, tofino40g
//	                20 µs), at the switches and, for the recovery timer's
//	                rule, at the senders
//	reaction_delay  15us with every preset (Scheme.Defaults: the testbed
//	                presets' own 0 is whatever their hosts add, which the
//	                harness does not model)
//	recovery        0: 55 µs·T/40 µs, T the senders' t
//	flow_capacity   1024, the paper's FPGA table (section IV-C)
//	flow_max_age    0: 10·T (used by flow_table=aged only)
//	idle_gain       off (Algorithm 1 as printed); on: every CP takes the
//	                top AUTO_TUNE region's gains while its queue is
//	                nearly empty (pi.Config.IdleGain, a rule of the
//	                authors' DPDK controller), so that F climbs back from
//	                Fmin to C/2 in 27 updates instead of 155 (40 Gb/s); with
//	                it the paper's ~2 ms convergence reproduces
//	                (TestRoCCFairnessFig8, TestRoCCConvergenceFig9)
//	fmax, rmax      each port's and each NIC's rate, in whole ΔF
//	switch, port    the switch's NodeID and the egress port number
//
// Choices where the paper is silent: the recovery timer is [RoCC-code]'s
// value, 55 µs at T = 40 µs (docs/derivations.md, RoCC), scaled with T
// (T·11/8: 27.5 µs on the Tofino preset, 137.5 µs on the DPDK one, and
// with param.t), because it must exceed T: a CP that is still congested
// sends a CNP every T, and a recovery timer shorter than T would double the
// rate between two of them. The senders know T as their own t setting (the
// preset's, or param.t, which reaches both parts); param.cp.t changes the
// switches' T alone and leaves the recovery timer at the preset's. Every
// CP's timer starts at time 0 (updates at 0, T, 2T, …, in phase across the
// network).
//
// # RoCC scenarios
//
// RoCC's evaluation ([RoCC] §VI-A, the micro-benchmarks,
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
// RoCC's comparison figures run these scenarios, and §VI-D's large-scale
// network, under the systems the paper compares RoCC with (Compare):
// rocc-fig11a (rocc-fairness under qcn, dcqcn, timely, hpcc, pacc, bfc,
// rocc; TIMELY starts at C/N), rocc-fig12a (rocc-multibottleneck) and
// rocc-fig12b (rocc-asymmetric) under dcqcn, hpcc, pacc, bfc, rocc, and
// rocc-fig15 (the same five): a leaf-spine of 3 leaves of 30 hosts at
// 40 Gb/s and 6 spines at 100 Gb/s (the paper's 3 cores with two links to
// each edge switch), h0..h59 sending WebSearch flows to h60..h89 at 70 %
// of the core links into the third leaf (keys core_load, flow_sizes,
// arrivals). docs/scenarios.md gives the paper's and hwcc's numbers.
//
// # HPCC in the harness
//
// HPCC ([HPCC] §3 and §4):
// algorithm "hpcc", run by the harness's generic adapter (harness.Scheme,
// with INT) over the cc registry's hpcc parts (package algos).
//
// Switch (CP): every switch egress data queue runs the hpcc cp, cp.HPCC,
// which stamps its INT record on each data frame as it leaves (section 4.1,
// Figure 7): the port's speed code, the time, the port's bytes sent before
// the frame over every priority (harness.Queue.TxBytes, as the authors'
// ns-3 counts m_txBytes; the scheme's one default, port_tx_bytes=on) and
// the data queue the frame leaves behind; it adds 1 to nHop and XORs its
// switch's 12-bit ID (harness.CPInfo.SwitchID: the switch's index among the
// network's switches + 1, distinct per switch) into pathID. The generic
// adapter grows the frame by the 8-byte record. The harness stamps nothing
// itself: it adds the 2-byte prefix at the sender, carries the header, and
// echoes it (through the wire format) in the receiver's ACK; a header that
// already holds the CP's int_max_hops records (5) goes on unchanged and is
// counted in Counters.INTPathFull. TestHPCCStampsAreWhatSendersReceive
// checks, packet by packet, that the records are those of an independent
// model of Figure 7 at each port, at the receiver and in the ACK the sender
// gets.
//
// Sender (RP): the hpcc rp, rp.HPCC, per flow, fed every ACK's cumulative
// sequence, the NIC's snd_nxt and the echoed INT header (Algorithm 1,
// NewAck); NAKs carry INT too and are handled alike. The NIC reads back the
// window W (inflight payload limit: it sends while inflight < W) and paces
// at R = W/T, capped at min(offered rate, line rate). W starts at W_init =
// B_NIC·T, so a new flow sends at line rate for its first round trip
// (section 3.2).
//
// Receiver (NP): none. The receiver's only HPCC duty, echoing the INT
// header in the ACK, is the harness NIC's.
//
// # HPCC parameters
//
// The registry's (go run ./cmd/hwcc algos hpcc), each going to the part
// that has it: preset (papersim, the default, or testbed, on both parts),
// t, eta, wai, max_stage, fast_react, multi_rate, initial_u,
// native_division, w_init, w_min, w_max (rp); switch_id, rate,
// port_tx_bytes (cp); int_max_hops, int_tx_bytes_unit, int_qlen_unit,
// int_ts_unit (both: switches and senders must agree). The harness's
// defaults:
//
//	t          T = the network's largest base RTT with the INT bytes of
//	           its longest path (FlowInfo.MaxBaseRTT and MaxHops through
//	           harness.BaseRTTWithINT; Scheme.NetworkRTT, cc.Env.BaseRTT),
//	           one T for every flow, as Eqn (1) assumes and the authors'
//	           simulator does (GLOBAL_T: the largest pair RTT); the paper
//	           sets T "slightly greater than the maximum RTT" (13 µs on its
//	           12 µs fat tree). A flow's own RTT as T would weigh the same
//	           queue more on short paths (qlen/(B·T)) and starve them
//	           (docs/scenarios.md, HPCC in a large incast). A time in
//	           10ns..100ms.
//	eta        η = 0.95 (section 5.1), 0.5..1
//	wai        W_AI = ⌊W_init·(1 − η)/100⌋, the rule of section 3.3 for
//	           N = 100 concurrent flows (80 B at 100 Gb/s and T = 13 µs,
//	           section 5.1; 26 B at the 4.19 µs of section 5.4), at the
//	           final T and η; wai=0 selects the rule too. A size ≤ W_max.
//	max_stage  maxStage = 5 (section 3.3), 0..255
//	fast_react per-ACK reaction on (off: per-RTT only, Figure 13)
//	multi_rate per-hop law (the authors' MULTI_RATE), off
//
// W_max = W_init = B_NIC·T and W_min = 1 Gb/s·T, as rp.HPCCPaperSim; the
// INT codec is inttel.DefaultConfig; the reciprocal table the default one
// (ε = 2^-7); U starts at 0 (initial_u = zero). Where the harness's
// defaults come from: the registry's rp takes T from cc.Env.BaseRTT when
// it is known, and then W_AI by the rule at that T (its Env hook; an
// explicit t or wai wins); without an environment its presets stand
// (papersim: 13 µs and the paper's 80 B). The cp takes the port's rate
// and the switch's ID from cc.Env. Renamed from the former hand-written
// adapter: the values "auto" of t and wai (now the defaults; wai=0 is the
// rule, so W_AI = 0 itself is no longer available: use 1 B).
//
// # HPCC scenarios
//
// HPCC's micro-benchmarks ([HPCC] §5.4 and Figure 9, at
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
// # Fat-tree benchmark scenarios
//
// HPCC across the 3-tier k-ary fat tree at 100 Gb/s with 1 µs links
// (bench_scenarios.go), the harness's datacenter-scale speed benchmarks
// (BenchmarkIncastFattree, BenchmarkPoissonFattree1024, …: events per
// second and wall ns per packet-hop):
//
//	incast-fattree         k = 8 (128 hosts): 16 senders × 2 MB into h0, 9000 B payloads
//	incast-fattree-1024    k = 16 (1024 hosts): 256 senders × 2 MB into h0
//	poisson-fattree        k = 8: every host starts WebSearch flows to a random
//	                       other host at load 0.5 of its link until 100 µs, run
//	                       200 µs, 1000 B payloads
//	poisson-fattree-1024   k = 16: the same
//
// The incasts load one edge port; the Poisson loads put frames on every
// link at once. The Poisson scenarios' default run is short, for tests and
// the reproduction reports: -set duration=10ms -set poisson_stop=2ms is the
// long run the README measures, -set load=, payload= the other regimes.
// They have no keys of their own.
//
// # DCQCN in the harness
//
// DCQCN ([DCQCN]; [Survey] §4.1.2): algorithm "dcqcn", run by the harness's
// generic adapter (harness.Scheme) over the cc registry's dcqcn parts
// (package algos).
//
// Switch (CP): every switch egress data queue runs the dcqcn cp, the RED
// marker cp.DCQCN, told of every frame's enqueue and dequeue with the data
// queue's length in wire bytes (preamble and IFG counted, the frame in
// serialisation not); the frame gets CE when it says mark (a CE set by an
// earlier hop stays). Where the frame is judged is its mark_at setting:
//
//   - dequeue (default): as the frame leaves the queue, against the queue
//     it leaves behind (without it). This is the HPCC authors' ns-3 switch
//     (it marks in SwitchNotifyDequeue, after removing the frame from the
//     egress count), and the mark reaches the receiver without waiting
//     behind the queue it reports.
//   - enqueue: as the frame joins the queue, against the queue including
//     it: the survey's wording ("mark an arriving packet") and the
//     harness's default marker. The mark then travels behind the whole
//     queue, so the feedback delay grows with the queue (128 µs at Kmax =
//     400 KB on 25 Gb/s).
//
// Dequeue is the default because it reproduces the HPCC paper's DCQCN
// measurements and enqueue does not. In dcqcn-incast at 25 Gb/s, marking at
// dequeue puts the first queue peak at the paper's (about 550 KB); marking
// at enqueue lets it reach several times that. In dcqcn-fairness, marking
// at dequeue, two long flows keep "a standing queue around the ECN marking
// threshold" with all of the link used. docs/scenarios.md gives the
// measured values; `hwcc sim -scenario dcqcn-incast -set param.mark_at=enqueue`
// (or dcqcn-fairness) measures the other side of the comparison.
// Including or excluding the judged frame differs by one frame
// (1082 wire bytes at the default payload), 1.1 % of the smallest default
// Kmin.
//
// Each queue's LFSR gets its own seed, so that the marks of different ports
// are not correlated: the cp part derives it from where it runs
// (algos/dcqcn.go, its Env hook), DCQCNDefaultSeed XOR (k + 1)·0x9E3779B1
// with k = (switch ID − 1)·2^16 + port number, distinct for every port of
// up to 4095 switches. On one switch k is the queue's congestion-point ID,
// from which the harness's earlier DCQCN adapter derived the same seeds.
// Features: none. In particular not Features.ECN, which would add the
// harness's threshold marker (SwitchSpec.ECN, 100 KB by default) on top of
// RED: cp.DCQCN replaces it (harness.Features's documentation).
//
// Receiver (NP): the dcqcn np, np.DCQCN, per flow: it sees every data
// frame's CE bit and asks for a CNP to the flow's source, which the NIC
// sends; the slot rule's deferred CNP comes from its timer.
//
// Sender (RP): the dcqcn rp, rp.DCQCN, per flow, its port rate the NIC's
// line rate. CNPs reach it as they arrive, its timers run at its
// NextDeadline, and the payload bytes the NIC sends feed its byte counter
// (retransmissions included: the NIC counts what it sends). The NIC paces
// at min(offered rate, line rate, RC) (RC: the part's current rate, its
// Limits) and has no window. ACKs change nothing: DCQCN reacts to CNPs
// only.
//
// # DCQCN parameters
//
// The registry's (hwcc algos dcqcn), with the harness's defaults the
// registry's: preset (connectx, the default, paper or hpcc) configures the
// three parts alike, the RP and NP as
//
//	connectx  rp.DCQCNConnectX, np.DCQCNConnectX: the NVIDIA ConnectX
//	          defaults (min_time_between_cnps 4 µs)
//	paper     rp.DCQCNPaper, np.DCQCNPaper (50 µs slots)
//	hpcc      rp.DCQCNHPCCSim, np.DCQCNHPCCSim (a CNP per marked packet,
//	          decreases on a 4 µs grid from the first CNP): the HPCC
//	          paper's simulations
//
// and the CP as one marker under every name, cp.DCQCNHPCCSim: kmin and kmax
// 100 KB and 400 KB scaled by port rate/25 Gb/s (400 KB and 1.6 MB at
// 100 Gb/s), pmax 13107 (0.2), mark_at dequeue. The settings, on top of
// the preset:
//
//	cp  kmin, kmax (sizes); pmax, the marking probability at Kmax as the
//	    Q0.16 register (65536 = 1.0; 0.2 is 13107, 0.01 is 655); seed
//	    (default: from the switch ID and port, above; setting it gives
//	    every queue that one); mark_at (dequeue or enqueue)
//	np  mode (slot, the paper's N-µs slots, or min-interval, ConnectX's
//	    rule); min_time_between_cnps, the slot length or minimum interval,
//	    0..1s (connectx 4us, paper 50us, hpcc 0)
//	rp  every rp.DCQCNConfig field under its ConnectX parameter name
//	    ([ConnectX]; docs/derivations.md's table): dce_tcp_g, dce_tcp_rtt,
//	    initial_alpha_value, rate_to_set_on_first_cnp, rpg_gd,
//	    rpg_min_dec_fac, rpg_min_rate, rpg_max_rate,
//	    rate_reduce_monitor_period, rpg_time_reset, rpg_byte_reset (a
//	    multiple of 64 B), rpg_threshold, rpg_ai_rate, rpg_hai_rate,
//	    clamp_tgt_rate, clamp_tgt_rate_after_time_inc, port_rate and
//	    rate_unit; and two that are not vendor parameters: alpha_frac_bits,
//	    the width of the α register, 10..24 (every preset: 20; 10 is a pure
//	    Q10 register, whose truncation pins α near 0 when CNPs are more than
//	    a few µs apart), and rate_reduce_mode (spacing for connectx and
//	    paper, grid for hpcc)
//
// A name goes to every part that has it (preset to all three); cp., rp.
// and np. give it to one (param.rp.preset=hpcc keeps the NP's connectx
// rule). Rates must be multiples of rate_unit (1 Mb/s for connectx, 1 Kb/s
// otherwise). The cp and rp also take link, the rate their presets scale
// to, which the harness sets to the port's rate and the NIC's line rate:
// leave it unset. The harness's earlier DCQCN adapter named four of these
// otherwise (np, cnp_interval, mark, rp_alpha_frac_bits; np's interval is
// min-interval) and took pmax as a probability in [0, 1].
//
// Why connectx is the default: it is what a user of these NICs deploys
// (the NIC's parameters define what users run), every value of it is
// documented ([ConnectX]), and its CNP pacing is the
// NIC's, not a simulator's. The CP has no vendor default (a switch setting);
// every preset uses the HPCC paper's thresholds, which scale with the port
// rate ("according to our experiences (no vendor suggestion available)",
// [HPCC] §5.1), the only thresholds the sources give.
//
// Validation: every setting is checked against its parameter's range
// before the run, an unknown name or a bad value naming it, its value and
// its range. What depends on several fields or on where the part runs (a
// rate above the line rate or not a multiple of rate_unit, Kmin above a
// scaled Kmax, a line rate that is not a whole number of rate units) is the
// part's own error when the harness builds it, which aborts the run naming
// the configuration field.
//
// # DCTCP in the harness
//
// DCTCP ([DCTCP] §3; [Linux-DCTCP]): algorithm "dctcp", run by the harness's
// generic adapter (harness.Scheme) over the cc registry's dctcp parts
// (package algos).
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
// pieces of at most rp.DCTCPMaxSegment. With ack_every > 1 every byte of an ACK that
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
// is the default: it is the reference implementation ([Linux-DCTCP]) and its
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
//	                testbed's incast into a long flow ([HPCC]
//	                §5.2, Figure 9c/d), measured from `at` to the end
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
