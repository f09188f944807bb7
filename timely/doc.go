// Package timely is TIMELY's reaction point ([TIMELY]): the RTT
// measurement engine of §3.1 and the rate computation engine of §4.3
// (Algorithm 1), with the constants of §6; [Survey] §4.2.1 summarises it.
//
// TIMELY needs no switch support: the sender's NIC timestamps each
// segment, takes the completion of the segment (its ACK) as one RTT
// sample, and moves the flow's pacing rate by the sample and by the
// gradient of successive samples.
//
// # What is where
//
//	RP       one flow's sender: segments and their send times in a ring,
//	         a sample per completed segment (section 3.1's equation),
//	         Algorithm 1 in 32-bit registers (rate in kb/s, RTTs in ns,
//	         rtt_diff signed, the gradient in Q16.16, α and β in Q0.16);
//	         a cc.ReactionPoint (to register as algorithm "timely", part
//	         "rp").                                               rp.go
//	Config   every constant, its unit, range and source; Paper (the
//	         paper's 10 Gb/s constants on any link) and Scaled (δ in
//	         proportion to the link).                         config.go
//	tests    a float64 model of Algorithm 1 with the distance bound the
//	         integer path keeps from it (ref_test.go), the properties,
//	         the contract's suite, fuzzing, benchmarks.
//
// # The paper's constants
//
//	segment 16 KB (16 384 B; 16–64 KB)      section 6; section 3.1, survey 4.2.1
//	Tlow 50 µs, Thigh 500 µs                section 6
//	δ 10 Mb/s, β 0.8                        section 6
//	HAI: N = 5 after 5 completion events    Algorithm 1
//	α 0.875, minRTT 20 µs                   [HPCC-ns3] (see below)
//	RTT = t_completion − t_send − seg.size/line rate   section 3.1; survey eq. (9)
//
// Section 6 (p. 545) reads "Unless mentioned otherwise, we use the following
// parameters for TIMELY: segment size of 16 KB, Tlow of 50 µs, Thigh of 500
// µs, additive increment of 10 Mbps, and a multiplicative decrement factor
// (β) of 0.8". It does not print α or minRTT; hwcc takes 0.875 and 20 µs from
// [HPCC-ns3], which runs TIMELY with exactly these (TimelyAlpha 0.875,
// TimelyMinRtt 20 µs, with section 6's Tlow, Thigh and β). The first author's
// later published TIMELY code recommends α = 0.02 and Thigh = 1 ms instead;
// both are configuration fields.
//
// Which sample α weighs. Algorithm 1 writes rtt_diff ← (1 − α)·rtt_diff +
// α·new_rtt_diff: α is the weight of the new difference, so α = 0.875
// follows the newest difference closely (the old value keeps 1/8). Every
// implementation found reads it so (the authors' code, the HPCC
// simulator); so does this one.
//
// # Where the sources are silent (hwcc's choices, each a field)
//
//   - The initial rate: line rate (Config.InitialRate).
//   - The rate floor: one δ, 10 Mb/s (Config.MinRate); the authors' code
//     calls it optional.
//   - The first sample has no predecessor: prev_rtt takes its value, so
//     its new_rtt_diff is 0 (as the authors' code does).
//   - HAI counts increases of both kinds (below Tlow, gradient ≤ 0), this
//     one included, and any decrease clears the count; the fifth increase
//     in a row is the first of N·δ (Algorithm 1's "gradient < 0 for five
//     completion events" includes the present one). Below Tlow the step is
//     always δ.
//   - The sample's send time (Config.Sample): the paper's first packet of
//     the segment assumes the NIC sends a segment as a line-rate burst. A
//     caller that paces packet by packet would add the pacing gaps inside
//     the segment to the RTT (16 KiB at 1 Gb/s: 118 µs above the line-rate
//     time), which drives the rate down further, a collapse; the presets
//     measure from the segment's last packet instead, which gives the
//     paper's sample for a burst and the packet's RTT under pacing.
//   - The serialisation is subtracted at line rate, from the payload
//     bytes, as the paper's equation (Config.SubtractSerialization).
//   - Which segments are sampled: a ring of 16 entries; a new segment is
//     not recorded while it is full. A cumulative ACK completing several
//     segments gives one sample, the newest's. A NAK discards the ring
//     (Karn's rule) rather than being ignored: the go-back-N
//     retransmission would otherwise date the resent data from its first
//     transmission.
//   - Scaling to other links (Scaled): δ = 10 Mb/s per 10 Gb/s, the ratio
//     the authors' code recommends; the thresholds stay, they are times.
//   - No timer: the rate moves only on samples. The authors' later code
//     scales δ and the Thigh cut by the time since the last update and
//     caps a cut at half the rate; neither is in Algorithm 1, and neither
//     is here.
//
// # Conventions
//
// Every event takes now first and refuses, changing nothing, an event out
// of time order (cc.ErrTimeOrder) or bad input (a *cc.EventError: a nil
// packet or message, a negative payload, an ACK of data never sent);
// configurations are refused with a *cc.ConfigError naming the field.
// Nothing panics; no event allocates; no float64 is used after New (α, β,
// minRTT and the line rate become Q0.16 constants and reciprocals there).
package timely
