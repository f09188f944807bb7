// Package window is the inflight-window mechanism of HPCC: the window law of
// Algorithm 1 (function ComputeWind), the reference window Wc that is
// committed once per round trip (procedure NewAck, lastUpdateSeq), the
// inflight limiter that says whether a packet may leave, and the pacing rate
// R = W/T, all in integer registers of stated widths.
//
// Source: [HPCC] §3.2 (the window W, W_init = B_NIC·T, the pacing rate R =
// W/T, Eqn (4) with the reference window W^c), §3.3 (η, maxStage, W_AI and
// the rule W_AI = W_init(1 − η)/N), Algorithm 1 lines 11–27, section 4.3
// (divisions by a table of reciprocals) and Appendix A.2–A.4 (one MIMD step
// brings a single bottleneck to η; window limits drain queues).
//
// # What is where
//
//	Law        ComputeWind (lines 11–20) for one Reference; R = W/T.
//	           Immutable: the Windows built from one Law share it.
//	Reference  the per-RTT state of the law: Wc and incStage.
//	Window     one flow: W, its Reference, lastUpdateSeq (lines 21–27),
//	           the limiter CanSend and the pacing rate; optionally one
//	           Reference per hop (the authors' multi-rate mode).
//	Divider    a/n through hwtables' reciprocal table (the NIC's way) or
//	           through the native divide (for measurement and tests).
//	AIRule     W_AI = W_init(1 − η)/N (section 3.3).
//
// The sender side that measures U from INT (MeasureInflight) is rp.HPCC;
// it feeds U to a Window.
//
// # Registers, units and overflow policy
//
//	register       width    unit           policy
//	W, Wc          32 bits  bytes          saturate to [Config.Min, Config.Max]
//	incStage       8 bits   AI steps       0..MaxStage (reset by MI, never wraps)
//	lastUpdateSeq  64 bits  byte sequence  assigned, never incremented
//	U (input)      64 bits  UQ32_32        as given; 0 reads as "idle" (W → Max)
//	η              64 bits  UQ32_32        configuration, [0.5, 1]
//	R              64 bits  bit/s          floor(W·8/T), saturates at MaxInt64
//
// Window.AppendRegisters appends these registers (and the per-hop
// references of the multi-rate mode) as cc.Register values, the snapshot
// the cc contract defines. Configuration errors (Config.Validate, New,
// NewLaw, AIRule) are *cc.ConfigError values naming the field, its value
// and its range.
//
// # Arithmetic
//
// The only run-time division is W = Wc·η/U (line 13). With η and U both in
// UQ32_32 the scales cancel: the numerator Wc·η_raw fits 64 bits (Wc < 2^32,
// η_raw ≤ 2^32) and the divisor is U_raw. U_raw is normalised into the
// table's domain [1, 2^22] by a right shift s with rounding to nearest, and
// the quotient is shifted back: W = Div(Wc·η_raw, n) >> s. The pacing rate
// R = W·8/T multiplies W by a UQ32_32 constant 8/T fixed at configuration
// time, so no division by T runs per ACK.
//
// Error: the AI step (line 17) is exact. The MI step (line 13) is within
// the Divider's bound of the real Wc·η/U: at the default table
// (ε = 2^-7) at most 0.79 % above and 0.10 % + 2 B below, before the clamp.
// Hence, for a single bottleneck whose flows all see U = ΣW/(B·T) > η, one
// committed update brings ΣW'/(B·T) to η + N·W_AI/(B·T) within those same
// relative bounds (minus 2N B of truncation); the tests check this with
// gopter, as they check W against a float64 model of the law. R is within
// 1 bit/s of W·8/T.
//
// # Choices the paper leaves open
//
//   - W_min and W_max. The paper states only W_init = B_NIC·T. The authors'
//     simulator clamps the rate to [MIN_RATE, NIC rate], i.e. the window to
//     [MIN_RATE·T, W_init]; Config.Min and Config.Max hold the two bounds and
//     rp's presets use MIN_RATE = 1 Gb/s (the authors' run.py) and
//     Max = Init. The clamp applies before the commit, as in the authors'
//     code (the committed Wc is the clamped W).
//   - U = 0. Line 13 would divide by zero (a path with no load at all). The
//     MI step then saturates: W = Max.
//   - The limiter lets a packet go while inflight < W, as the authors'
//     IsWinBound does, so the bytes in flight may exceed W by less than one
//     packet and a window below one MTU never stalls the flow.
//   - lastUpdateSeq is assigned snd_nxt on every commit (line 24), also when
//     snd_nxt went backwards after a go-back-N rewind; the authors' code
//     only lets it grow. The assignment is the paper's meaning, "the first
//     packet sent after the window is adjusted".
package window
