// Package harness is hwcc's reference discrete-event simulator: links,
// switches and NICs detailed enough to run the congestion-control state
// machines of cp/, rp/ and np/ on the topologies and workloads of their
// papers ([RoCC] §VI-A; [HPCC] §5; DCQCN, [Survey] §4.1.2) and to
// report what the papers plot: per-flow throughput over time, FCT and
// slowdown, queue lengths, PFC pauses, Jain's fairness index and link
// utilisation.
//
// # Running a scenario
//
//	sc, _ := harness.Builtin("line-rate-2to1")   // or harness.DecodeScenario(file)
//	_ = sc.Set("senders", "4")                    // the command's -set key=value
//	res, err := harness.Run(sc, harness.Options{})
//	res.Report.WriteJSON(os.Stdout)               // Report: the JSON summary
//	// res.Series: time series for CSV and plots; res.Flows, res.Ports: details
//
// # Simulation core
//
// Single-threaded and deterministic: time is integer picoseconds
// (units.Time); events are value structs in a hand-written calendar queue
// whose slot width follows the event density (section Event queue)
// ordered by (time, insertion sequence), so events at the same instant run
// in the order they were scheduled; the one random source is math/rand/v2's
// PCG seeded with (Scenario.Seed, a fixed stream constant) and drawn in
// event order. Nothing reads the wall clock or starts a goroutine, and no
// map is iterated on any path that affects the result. The same scenario and
// seed give the same Report bit for bit (WallSeconds, filled by the
// command, excepted).
//
// Packets come from a free list owned by the Sim and go back to it when
// they are delivered or dropped; events carry an index and a packet
// handle (an index into the pool), never a closure or a pointer, and
// queued packets are linked by handle too. Once the pools, the event queue
// and the active-flow lists have grown to their working size, a run
// allocates nothing per packet (TestSteadyStateAllocs checks < 0.01
// allocations per packet).
// Flows allocate when they are created (Poisson arrivals do, per flow).
//
// # Event queue
//
// The pending events are in a calendar queue ([CalendarQueue]) that
// re-chooses its geometry as the run goes: slots of 2^shift ps, a power of
// two of them (at least 1024, at most 2^22), each an unsorted list, the
// current one a sorted array, and a 4-ary heap for the events beyond the
// last slot. Every 4096 pops the queue compares the events popped per
// slot with a target of 2 and, when
// it is off by more than 2×, sets the width to the power of two nearest to
// meeting it; it sizes the slots so that all but 1/32 of the epoch's
// pushes would have landed in them, growing at once, shrinking by 4× or
// more and only when the slots outnumber the pending events 8 times; a
// change re-places every pending event (a rebuild). Cost per event, with n
// events pending, k in the current slot (about 2) and m in the heap:
//
//	push   O(1): a list prepend and a bit set; an event due in the current
//	       slot (the same instant) is inserted in order, O(log k + k);
//	       one beyond the slots goes into the heap, O(log m)
//	pop    O(1): the next of the sorted current slot; when it runs out, a
//	       bitmap scan to the next non-empty slot (64 slots a word), and
//	       its events gathered and sorted (insertion sort; pdqsort above
//	       24, for a crowd at one instant); the heap's events that come
//	       within reach move into their slots, once each, O(log m)
//	adapt  O(1) every 4096 pops; a rebuild O(n + slots), when the density
//	       changes by 2× or the reach falls short (5 times while the load
//	       of poisson-fattree-1024 builds up)
//
// Nothing in it grows with n, so the cost per event is flat, except
// through the memory hierarchy: 32 bytes per event in the lists' arena
// and 4 bytes and a bit per slot, so a million pending events (32 MB) no
// longer fit the caches. The order is exactly a heap's by (time,
// sequence) in every geometry; TestEventQueueMatchesHeap checks it over
// schedules that make the queue adapt, and BenchmarkEventQueue measures
// it, in the hold model at 10^2, 10^4 and 10^6 pending events, against the
// same queue with sorted slots (Brown's original), the fixed calendar the
// harness had before (1024 slots of 8.192 ns, sorted) and the heap alone
// (the README gives the figures). The fixed calendar's slots held hundreds
// of events each when thousands of ports had frames in flight, and a push
// walked them; sorting a slot once, when it is reached, costs less than
// keeping it sorted at every push once a slot holds more than a few.
//
// In a large run, memory more than instructions sets the cost of an
// event: the port, the packet, the node, the flow's route, the queue's
// congestion point are each likely to be out of the caches when the event
// reaches them (the README has the measured figures). Three things that
// change nothing in what runs when shorten the waits: the run loop loads
// the port and the packet of the next event of the current slot before it
// runs the current one (Sim.warm), so that they are on their way while
// the current one runs; refill loads the first node of the next non-empty
// slot the same way, and since a slot's later nodes are found only
// through the one before, each event then walks that list one node
// further (eventQueue.aheadStep): it loads the next node and warms the
// port and packet of the node the step before fetched, so that a slot's
// nodes, ports and packets arrive one event apart before it is reached
// rather than one after the other when refill gathers it (6 % less time
// per event in the first 1 ms of poisson-fattree-1024's long run); and
// what every frame touches is laid out by cache line. Ports, flows, nodes,
// egress queues and packets start on a line (linePort, lineFlow,
// lineNode, lineQueue, linePacket: the runtime puts an 8-byte header,
// allocHeader, before an object over 512 bytes that holds pointers, and
// the padding goes before it), with the fields of the per-frame paths
// first; layout_test.go counts the lines each path touches and checks
// that they start on one. A flow's route keeps its hops' egress ports in
// its one line (flowRoute); a packet's second line holds its header bytes,
// an ACK's counts and the telemetry stack's length and first bytes; a
// congestion point's and a flow's adapters sit with their actions
// (partBlock). Counted by cachegrind with a 2 MB last-level cache over
// poisson-fattree-1024 (the README gives the command and each step's
// figures), these and rp.HPCC's per-flow state shrinking to 888 bytes take
// the misses past that cache from 4.45 to 2.38 per event. Each warming
// load uses only addresses already in cache: chasing further from the
// next event (to the egress port through the flow's route, or on to the
// queue's congestion point) made the run slower, 3 to 9 %, since a load
// that waits on another still on its way holds up the current event
// behind it. The set-up's searches over the links (buildRoutes,
// networkRTT, one per edge switch) read a compact copy of them
// (adjacency).
//
// # Packets and the wire
//
// A RoCEv2 data frame carries NICSpec.Payload bytes (default 1000, as in
// HPCC's simulations) plus DataOverheadBytes = Ethernet 14 + FCS 4 + IPv4 20 +
// UDP 8 + BTH 12 + ICRC 4 = 62 bytes; with INT it also carries 2 + 8·nHop
// bytes. ACK and NAK frames are 66 bytes (BTH + AETH), CNP and feedback
// frames 78 bytes (BTH + 16 reserved), PFC frames 64 bytes. The wire is
// modelled: every frame also occupies its link for the 20 bytes of
// preamble, start delimiter and inter-frame gap (PreambleIFGBytes), unless
// NICSpec.NoPreamble. "Wire bytes" everywhere includes them, so a 1000-byte
// payload is 1082 wire bytes and a 100 Gb/s link moves 100 Gb/s of wire bytes.
//
// A link has a rate and a propagation delay; a frame of w wire bytes
// occupies the transmitting port for ser(w) = ceil(8·w/rate) ps
// (units.SerializationTime) and arrives at the far end ser(w) + delay after
// it started: switches are store and forward, with no processing delay.
// The sections Switch model and NIC model below give the buffer, PFC and
// ECN model, and pacing, windows, ACKs and go-back-N.
//
// # Switch model
//
// A switch is store-and-forward with no processing delay: a frame is
// forwarded at the instant its last bit arrives. Its egress ports have one
// FIFO per priority served by strict priority (PFC frames first, then
// ControlPrio, then DataPrio); a priority paused by the downstream
// neighbour is skipped. All data frames share one buffer per switch,
// counted from admission to dequeue (the start of transmission): of
// SwitchSpec.Buffer bytes, or, when SwitchSpec.Pool > 0, of Pool plus the
// PFC headroom the switch reserves (below; Pool alone with PFC off).
// Control frames (ACK, NAK, CNP, feedback) are tiny and are neither counted
// in the buffer nor dropped.
//
// Admission of a data frame arriving through ingress port i:
//   - PFC on (lossless): admitted if the shared buffer has room and
//     ing[i] + size ≤ Xoff + headroom(i); otherwise dropped and counted as a
//     headroom overflow, which a correctly sized headroom never sees.
//   - PFC off (lossy): admitted if the shared buffer has room, else tail-dropped.
//
// PFC, per ingress port and priority: when the bytes admitted through the
// port and not yet dequeued reach its pause threshold, the switch sends a
// PAUSE for the priority to the upstream neighbour; when they fall to its
// resume threshold or below, a RESUME. The thresholds are static (Xoff, Xon)
// unless the shared buffer runs short: each switch reserves every port's
// headroom out of its buffer, and the rest is the shared pool, so
//
//	pause  when ing ≥ min(Xoff, free)
//	resume when ing ≤ min(Xon, free − 2·maxFrame), or ing = 0
//	free = buffer − Σ_ports headroom − bytes in the buffer
//	buffer = Buffer, or Pool + Σ_ports headroom when Pool > 0
//
// (a dynamic threshold with α = 1, as shared-buffer switches do). With many
// ingress ports filling at once a port is paused before the pool runs dry,
// and what arrives after its PAUSE lands in its reserved headroom, so PFC is
// lossless however many ports share the buffer. With Buffer the pool is
// what the headroom leaves, smaller the more ports the switch has, and New
// rejects a buffer that cannot hold the reserve; with Pool every switch
// starts with free = Pool, as a switch whose buffer is split into a shared
// pool and a headroom pool.
//
// The PAUSE and RESUME frames go out of the ingress port ahead of any
// queued frame (after the frame being serialised), and the neighbour stops
// or restarts that priority on its egress port when the frame arrives. A
// PAUSE holds until the RESUME (equivalent to a sender that refreshes its
// pause quanta before they expire; pause quanta are not modelled).
//
// ECN and telemetry: when the algorithm's deployment asks for the
// switches' own marker (cc.Deployment.ECN), a data frame is marked CE as
// it joins the egress queue if the data queue, the frame included,
// exceeds SwitchSpec.ECN; the congestion point's Enqueue runs after that.
// When a data frame leaves the queue the congestion point's Dequeue runs.
// When the deployment asks for a telemetry stack (cc.Deployment.
// Telemetry), every data frame carries one, and the congestion point may
// push its record onto it (HPCC's cp.HPCC, from the queue the frame leaves
// behind and the wire bytes the port sent before it over every priority;
// its switch ID is cc.Env.SwitchID); the frame grows by the bytes pushed.
// The harness writes no telemetry itself. A frame that leaves a port with
// no record added (its stack already held the part's limit) is counted in
// Counters.INTPathFull.
//
// Trimming (switch.flow_control trim; uet.go), Ultra Ethernet's lossy
// fabric ([UEC]; [NDP]): no link-level flow control, and a data frame
// that would take its egress data queue above switch.trim (0: one BDP of
// the network's largest base RTT at the port's rate) keeps only its
// header, switch.trim_bytes (64 B) plus the preamble and gap, which goes
// on at the control priority (never dropped, not counted in the buffer);
// its payload is counted in Counters.TrimmedPayload, its header's byte 1
// gets the trimmed mark (wire.MarkUECTrimmed; last hop when the port faces
// the destination). Trimming needs the selective transport below.
//
// # NIC model
//
// A host has one port. Its NIC serves, in strict priority, PFC-free control
// frames (ACK, NAK, CNP) and then data from its active flows, round robin
// among the flows that are eligible: started, not finished or stopped,
// with data left to send, inflight < window (payload bytes sent and not
// acknowledged; no window when the RP says 0) and past their pacing time.
// A flow paced at rate R may start its next packet ser(size, R) after the
// start of its previous one (wire size, so R = line rate is back to back);
// when R changes, the gap of the packet in progress is recomputed at the
// new rate. Data stops while the switch has paused DataPrio with PFC.
// Hosts never send PFC: their receive buffer is unbounded.
//
// Reliability is go-back-N as RoCE NICs do it: the receiver accepts only
// the next expected byte, NAKs (once per expected byte) a packet from
// beyond it and re-ACKs a duplicate; the sender rewinds to the NAKed byte,
// and after NICSpec.RTO without progress with data outstanding, to the
// first unacknowledged byte. Without drops neither ever fires.
//
// The selective transport (nic.transport sack; uet.go), [UEC]'s packet
// delivery as [uet-htsim] models it, instead: the receiver takes segments
// (payload-sized, segment k is bytes [k·payload, (k+1)·payload)) in any
// order, delivers each once (a copy that arrives again is counted in
// Counters.DuplicatePayload and not delivered), and answers every data
// packet with an ACK (the cumulative byte in Seq, the packet's segment,
// its CE, and its header echoed in the reaction point's cc.Feedback.Data)
// and every trimmed header with a NACK of its segment (the header echoed,
// trimmed mark included); the sender resends exactly the NACKed segments
// (before new data) and, after NICSpec.RTO without progress, every
// segment outstanding. A reaction point's Window counts the payload
// outstanding (sent, neither acknowledged nor NACKed); it sees each ACK
// of new bytes and each NACK of an outstanding segment (cc.FeedbackNak
// with Seq the segment's first byte). Delivered bytes count when a
// segment is taken, in order or not. With nic.np_scope host, one
// notification point serves every flow into its host (a receiver's pull
// pacer): built with the environment of the host's first flow, run on
// that flow's timer, its messages going to the source of the flow they
// name; it sees trimmed headers too (with no payload).
//
// # Definitions used in reports
//
// Base RTT of a flow: the round trip of one full data frame and its ACK
// over the idle path, store and forward at every hop,
//
//	BaseRTT = Σ_fwd (ser(data, r_h) + d_h) + Σ_rev (ser(ack, r_h) + d_h)
//
// with the frames' wire sizes without INT and the ECMP path the flow's
// packets take (flowInfo.BaseRTT, FlowResult.BaseRTT).
//
// Ideal FCT: the FCT of the flow alone on the idle network, which is what
// HPCC's slowdown normalises by ("its ideal FCT when the network only has
// this flow"). It is "size at line rate plus base RTT" made exact: with all
// n frames full it is
//
//	Ideal = (n−1)·ser(full frame, r_min) + BaseRTT
//
// (r_min the slowest link on the path), and with a shorter last frame the
// harness takes the longest path through the store-and-forward grid of
// serialisation times (idealFCT in workload.go), so a lone flow under
// `none` has slowdown 1 to the picosecond. INT bytes are not included.
//
// FCT: from the flow's start to the sender receiving the ACK of its last
// byte (RDMA completion). Slowdown = FCT / Ideal (1 for a lone flow).
//
// Throughput (Report.Flows[].throughput_bps): wire bits per second of the
// flow's in-order data frames arriving at the receiver in the measurement
// window [MeasureFrom, MeasureTo), INT and preamble included, so that the
// flows on a saturated link add up to its rate. FlowResult.Goodput is the
// same for payload only.
//
// # Metrics
//
// Measurement window: throughput, link utilisation and the queue statistics
// are taken over [MeasureFrom, MeasureTo). Byte counters are read at the
// two instants: a received frame counts when its last bit arrives
// (throughput), a transmitted one pro rata of its bits on the wire
// (utilisation), so utilisation never exceeds 1. PFC counts and drops cover
// the whole run.
//
// Queue statistics are time-weighted: the mean is ∫q dt / window exactly;
// the percentiles come from a histogram of the time spent at each queue
// length, exact below 128 bytes and with 64 buckets per power of two above
// (bucket width ≤ 1/64 of the value; the midpoint is reported, so the error
// is at most 0.8 %); the maximum is exact. The queue length of a port is
// the wire bytes waiting at its egress over all priorities, not counting the
// frame being serialised.
//
// Link utilisation (LinkReport) is the wire bytes a port put on the wire in
// the window over what its rate allows in the window. PFC counts (PFCReport) are the
// PAUSE frames that stopped an egress and the time egresses spent paused.
// Jain's index (FairnessReport, Jain) is taken over the throughputs of the
// flows active during the whole window.
//
// Time series: every Scenario.SampleInterval, each flow created when the
// run is built (explicit, fan-in and incast flows, at most MaxSeriesFlows)
// gets the throughput of its in-order data frames over the interval, and
// every switch port its queue length at the sample instant.
//
// # Running an algorithm
//
// The harness runs any algorithm registered in package cc, through the
// contract alone: Scenario.Algorithm names it, and its registration's
// Deploy (cc.Deployment) says which part runs at every switch egress data
// queue (a congestion point), every sending flow (a reaction point),
// every receiving flow (a notification point) and every switch (a switch
// point), and what the network does for them: a telemetry stack on data
// frames, the network's largest RTT for every flow, symmetric routing of
// what returns to a sender, the switches' own ECN marker, ACKs kept from
// the reaction point, defaults for the parts' settings, settings of the
// network model (a VOQ scheduler), and the size and priority of the
// messages the parts send. Adding an algorithm is registering it; nothing
// in the switch or NIC model names one.
//
// One generic adapter per role feeds a part the contract's events (as a
// cc.Event records them: Options.Trace writes them as a golden-model trace)
// and carries out its actions: marks on the frame of the event, feedback
// to a flow's source or destination or to another switch, credit to a VOQ.
// The NIC paces a flow at min(offered rate, line rate, the reaction
// point's Limits.Rate), keeps inflight below Limits.Window and, when the
// part is credited, spends Limits.Credit per frame; it reads the limits
// after every event of the part. A reaction point's feedback (a CNP, a
// rate message) waits out its ReactionDelay, when it has one. A part's
// deadline is fired at or after it (never before); units.MaxTime means
// none. A part's error is recorded (Report.Errors) and the run goes on.
// Options.Wrap sees every part as it is built, and may wrap it (a probe)
// or keep it (to read its registers after the run).
//
// The baselines are registered algorithms like the others: "none" (every
// flow at its NIC's line rate, or its offered rate) and "static" (a fixed
// rate per flow).
//
// # Topologies
//
// TopologySpec lists the kinds. Switches route by shortest paths (every
// port one hop closer to the destination host is in its ECMP set) and pick
// among them by a hash of flow, source and destination salted per switch
// (ecmpPort in link.go), so all packets of a flow and direction take one
// path. Two kinds have three tiers.
//
// fat-tree is the k-ary fat tree of [FatTree]: k-port switches (k even), k
// pods of k/2 edge and k/2 aggregation switches, (k/2)² core switches, k/2
// hosts per edge switch. Every edge switch links to every aggregation switch
// of its pod; the cores form k/2 groups of k/2, and aggregation switch j of
// every pod links to the cores of group j (core j·k/2 + m, m < k/2), so a
// core has one port per pod and every switch has k ports. All links run at
// link.
//
//	k     hosts  edge  agg  core  links (3k³/4: host, edge–agg, agg–core)
//	4        16     8    8     4     48
//	8       128    32   32    16    384
//	16     1024   128  128    64   3072
//
// Between hosts on one edge switch a path crosses 1 switch; within a pod,
// 3 (edge, aggregation, edge) over k/2 equal-cost paths; across pods, 5
// (edge, aggregation, core, aggregation, edge) over (k/2)² paths, one per
// core, since a core has a single way down to each pod. The paper routes
// with two-level tables that fix the uplink by the destination's host ID;
// the harness hashes each flow onto the equal-cost paths instead, as ECMP
// does. Five switches is the INT codec's default MaxHops, so an INT header
// holds every hop of the longest path.
//
// clos is the parametric 3-tier Clos the fat tree is a case of: pods pods,
// each of tors/pods ToR and aggs/pods aggregation switches, cores core
// switches, hosts_per_tor hosts on each ToR at link, every switch-to-switch
// link at core_link. The counts are totals, as the papers give them. The
// wiring is the fat tree's: a full mesh between the ToRs and the aggregation
// switches of a pod, and striping to the cores, with A = aggs/pods and w =
// cores/A: aggregation switch j of every pod links to cores j·w .. j·w + w −
// 1, so each core links to one aggregation switch per pod (tors and aggs must
// be multiples of pods, cores of A; at most 4096 hosts and 1024 switches). A
// ToR has hosts_per_tor + A ports, an aggregation switch tors/pods + w, a
// core pods. Paths cross 1, 3 (A equal-cost paths) or 5 switches (A·w = cores
// paths). The fat tree of k is clos with pods = k, tors = aggs = k²/2, cores
// = k²/4, hosts_per_tor = k/2, core_link = link. Striping, not a full mesh of
// aggregation and core switches, because it is what both the fat tree and the
// fat-tree topology file of [HPCC-ns3] (5 pods of 4 ToRs and 4 Aggs, each Agg
// to 4 of the 16 cores; 376 nodes, 480 links) wire; a full mesh would give
// each aggregation switch there 16 uplinks for 4 downlinks.
//
// The papers' topologies as one clos line each. HierCC ([HierCC] §5.2) uses
// the topology of §2.2: "16 Core switches, 20 Agg switches, 20 ToRs. Each ToR
// switch connects 16 servers via 25Gbps links and the links between switches
// are all 100Gbps. The delay of links are all 1 µs and thus the RTT is 12 µs"
// (12 µs = 2 × 6 links × 1 µs: the 5-switch path across pods), so 16/20/20
// are core/aggregation/ToR totals; section 5.1 reduces "the number of core,
// aggregation, and ToR switches" "to 2, 4, 4, respectively", the rest
// unchanged. Neither gives pods: the 320-host topology has 5 in the HPCC file
// above, and for 2/4/4 we take 2 (2 ToRs and 2 aggregation switches per pod,
// each aggregation switch to 1 core: that shape scaled down); 4 pods of one
// ToR and one aggregation switch would fit the text as well. HPCC ([HPCC] §5)
// and Mercury ([Mercury] §"Experiment settings") run the 320-host topology at
// 100 Gb/s to the hosts and 400 Gb/s between switches.
//
//	HierCC 2.2, 5.2  {"kind":"clos","cores":16,"aggs":20,"tors":20,"pods":5,"hosts_per_tor":16,"link":"25Gbps","core_link":"100Gbps","delay":"1us"}
//	HierCC 5.1       {"kind":"clos","cores":2,"aggs":4,"tors":4,"pods":2,"hosts_per_tor":16,"link":"25Gbps","core_link":"100Gbps","delay":"1us"}
//	HPCC 5, Mercury  {"kind":"clos","cores":16,"aggs":20,"tors":20,"pods":5,"hosts_per_tor":16,"link":"100Gbps","core_link":"400Gbps","delay":"1us"}
//
// The counts default to the 320-host topology (16, 20, 20, 5 pods, 16
// hosts per ToR), the rates to 100 Gb/s as for every kind.
//
// # Scenarios and reports
//
// A Scenario names its topology (TopologySpec: star, dumbbell, chain,
// multi-bottleneck, asymmetric, leaf-spine, fat-tree, clos; its
// documentation gives the RoCC Fig. 10 reconstruction, section Topologies
// the 3-tier kinds), workload (WorkloadSpec: explicit flows,
// fan-in, incast, Poisson arrivals with sizes from package workloads),
// algorithm and parameters, switch and NIC settings, duration, measurement
// window, sample interval and seed. Built-ins: Builtin, BuiltinNames,
// RegisterBuiltin. JSON files: DecodeScenario (strict). Overrides:
// Scenario.Set(key, value), keys listed by Scenario.Keys; built-ins may add
// keys with AddParam. Validate bounds what a run will build (MaxHosts,
// MaxSwitches, MaxLinks, MaxPorts, MaxVOQs, MaxFlows, MaxPoissonFlows)
// before anything is built.
//
// Run returns a Result: the Report (the JSON shape the command prints),
// per-flow and per-port details, counters, and the time series
// (Result.Series). Options.Progress is called every Options.ProgressEvery
// events with the simulated and end times.
package harness
