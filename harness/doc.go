// Package harness is hwcc's reference discrete-event simulator: links,
// switches and NICs detailed enough to run the congestion-control state
// machines of cp/, rp/ and np/ on the topologies and workloads of their
// papers (RoCC, ../shared/papers/rocc.txt section VI-A; HPCC,
// ../shared/papers/hpcc.txt section 5; DCQCN, survey section 4.1.2) and to
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
// (units.Time); events are value structs in a hand-written binary heap
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
// pointer, never a closure. Once the pools, the heap and the active-flow
// lists have grown to their working size, a run allocates nothing per
// packet (TestSteadyStateAllocs checks < 0.01 allocations per packet).
// Flows allocate when they are created (Poisson arrivals do, per flow).
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
// See switch.go for the buffer, PFC and ECN model and nic.go for pacing,
// windows, ACKs and go-back-N.
//
// # Definitions used in reports
//
// Base RTT of a flow: the round trip of one full data frame and its ACK
// over the idle path, store and forward at every hop,
//
//	BaseRTT = Σ_fwd (ser(data, r_h) + d_h) + Σ_rev (ser(ack, r_h) + d_h)
//
// with the frames' wire sizes without INT and the ECMP path the flow's
// packets take (FlowInfo.BaseRTT, FlowResult.BaseRTT).
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
// same for payload only. See metrics.go for queue statistics, utilisation,
// PFC counts and Jain's index.
//
// # Plugging in an algorithm
//
// An adapter implements Algorithm and calls Register (usually from an
// init function in package harness/algos, one file per algorithm):
//
//	type Algorithm interface {
//		Name() string
//		Features() Features          // ECN: default threshold marker; INT: stamping and echo
//		NewCP(CPInfo) (CP, error)     // one per switch egress data queue, at build
//		NewRP(FlowInfo) (RP, error)   // one per flow, at its start (sender)
//		NewNP(FlowInfo) (NP, error)   // one per flow, at its start (receiver)
//	}
//
// Any factory may return nil for "no such part". A CP sees OnEnqueue and
// OnDequeue with the *Queue (length, rate, txBytes, pause state) and the
// *Packet (it may set CE), may call q.SendFeedback(flow, Feedback) to send
// a 16-byte opaque payload to a flow's source at control priority, and has
// a timer: NextDeadline/OnTimer. An RP sets Rate (pacing, wire bytes) and
// Window (inflight payload limit, 0 = none), which the NIC reads after every
// call; it hears OnSend, OnAck (an *Ack with cumulative Seq, ECN echo and
// counts, RTT sample and the echoed INT header decoded with inttel), OnCNP,
// OnFeedback and OnTimer at its NextDeadline. An NP sees each data packet
// (OnData, with p.CE) and its timer, and returns true to send a CNP. All
// pointers handed to adapters are valid only during the call. Timers are
// called at or after (never before) the reported deadline; units.MaxTime
// means none. BaseCP, BaseRP and BaseNP provide no-op methods to embed.
// Optional: a CP that implements PauseObserver hears PFC pause and resume of
// its queue; an Algorithm that implements ParamChecker validates
// Scenario.Params (set with -set param.NAME=VALUE) before a run.
//
// Two baselines are registered here: "none" (every flow at its NIC's line
// rate, no window) and "static" (every flow at its offered rate).
//
// # Scenarios and reports
//
// A Scenario names its topology (TopologySpec: star, dumbbell, chain,
// multi-bottleneck, asymmetric, leaf-spine, fat-tree; see topology.go for
// the RoCC Fig. 10 reconstruction), workload (WorkloadSpec: explicit flows,
// fan-in, incast, Poisson arrivals with sizes from package workloads),
// algorithm and parameters, switch and NIC settings, duration, measurement
// window, sample interval and seed. Built-ins: Builtin, BuiltinNames,
// RegisterBuiltin. JSON files: DecodeScenario (strict). Overrides:
// Scenario.Set(key, value), keys listed by Scenario.Keys; built-ins may add
// keys with AddParam.
//
// Run returns a Result: the Report (the JSON shape the command prints),
// per-flow and per-port details, counters, and the time series
// (Result.Series). Options.Progress is called every Options.ProgressEvery
// events with the simulated and end times.
package harness
