// Package pi is the integer PI controller of [RoCC] §III-B, Algorithm 1
// ("Fair Rate Computation at the CP"): its multiplicative decreases (lines
// 2–5), the PI step of line 8 with the gains AUTO_TUNE picks (lines 7 and
// 15–21), the clamp to [Fmin, Fmax] (lines 9–12) and Qold ← Qcur (line
// 13), on registers of stated widths. It is the arithmetic both places
// that run Algorithm 1 share, bit for bit: the switch's congestion point
// (cp.RoCC) and the host that computes the rate from the switch's reports
// ([RoCC] §III-F, rp.RoCCHost). PACC's PI controller will share it too.
// It is a mechanism, not a cc part: it has no clock and no events.
//
// # What is where
//
//	Config           the paper's parameters (ΔQ, ΔF, Fmin, Fmax, Qref,
//	                 Qmid, Qmax, ᾱ, β̄) and the register widths; presets
//	                 RoCC40G, RoCC100G, RoCCDPDK10G, RoCCTofino40G
//	Params           Config validated and quantised (NewParams): thresholds
//	                 in ΔQ units, bounds in F register units, the gains as
//	                 CSD constants, the AUTO_TUNE table; QueueUnits, the
//	                 queue quantiser as a constant divider
//	Regs, Step       the registers Algorithm 1 carries (F, Qold) and one
//	                 update, a pure function; Branch names the line taken
//
// # Registers and units
//
// Queue values are counts of ΔQ bytes and rates counts of ΔF bit/s
// ([RoCC] §III-B, Table II). Every register is unsigned:
//
//	Qcur, Qold, Qref, Qmid, Qmax  QueueBits (≤ 16) wide, ΔQ units.
//	                              Qcur saturates at 2^QueueBits − 1 (a gauge),
//	                              which is ≥ Qmax, so a saturated queue still
//	                              triggers line 2's decrease.
//	F, Fmin, Fmax                 RateBits + RateFracBits (≤ 32) wide, in
//	                              units of ΔF·2^−RateFracBits: RateBits integer
//	                              bits (the CNP's 16-bit rate field holds
//	                              ⌊F⌋) and RateFracBits fraction bits. The
//	                              paper's simulator keeps F in "fixed point
//	                              precision" ([RoCC] §VI) without saying how
//	                              much; the presets use 8 fraction bits (the
//	                              authors' OMNeT++ model keeps whole ΔF:
//	                              RateFracBits = 0). F is clamped to
//	                              [Fmin, Fmax] on every update (saturate;
//	                              lines 9–12). It starts at Fmax (InitialF;
//	                              that model starts at 0).
//	ᾱ, β̄                          CSD shift-add constants with GainFracBits
//	                              fraction bits (fixedpoint.CSD); the exact
//	                              error of each is in Params.Gains.
//
// The intermediate PI sum is a signed 64-bit value: |Qcur − Qref| and
// |Qcur − Qold| are below 2^16, scaled by 2^GainFracBits ≤ 2^24 and
// multiplied by gains below 2^8, each product is below 2^48 and the sum
// below 2^49, so nothing overflows.
//
// # Line 8, sign and rounding
//
// In real numbers, with s = log2(ratio) from AUTO_TUNE:
//
//	F ← F − (ᾱ·(Qcur − Qref) + β̄·(Qcur − Qold)) / 2^s
//
// A queue above Qref or growing lowers F; below Qref or shrinking raises it.
// The integer form computes the sum exactly and rounds once:
//
//	N  = CSDα(e1·2^g) + CSDβ(e2·2^g)       = (v_α·e1 + v_β·e2)·2^g exactly
//	ΔF = round(N / 2^(g + s − k))           in units of ΔF·2^−k
//	F  ← F − ΔF
//
// with e1 = Qcur − Qref, e2 = Qcur − Qold, g = GainFracBits, k =
// RateFracBits, and v_α, v_β the CSD values of ᾱ, β̄ (every term's shift is
// at most g, so shifting e·2^g right by it drops nothing: the CSD sum is
// exact). round is to nearest with ties away from zero, an odd function:
// queue errors +e and −e move F by exactly opposite amounts, so the rounding
// pushes F neither up nor down on average. With Rounding = RoundFloor,
// round is ⌈·⌉ instead, so that F ← ⌊F − N/2^(g + s − k)⌋: the authors'
// OMNeT++ model, which assigns the real-valued F to an int.
//
// # Tracking bound
//
// Take one update from the same (F, Qold, Qcur) in the integer machine and
// in a real-valued Algorithm 1 with the exact ᾱ and β̄ (the test files'
// reference model). Both take the same branch and region (every comparison
// is exact; see hwtables.RoCCAutoTune), and in ΔF units
//
//	|F'int − F'real| ≤ 2^−(k+1) + (|ᾱ − v_α|·|e1| + |β̄ − v_β|·|e2|) / 2^s
//
// on line 8 (one rounding, plus the CSD constants' errors), 2^−(k+1) on
// line 5 (⌊F/2⌋ drops at most half a unit of the register) and 0 on line 3;
// the clamp of lines 9–12 is 1-Lipschitz and keeps the bound. With
// Rounding = RoundFloor line 8's rounding errs by up to 2^−k (a whole
// register unit, always downward) instead of 2^−(k+1). With the
// presets (k = 8, g = 16, 8 terms) the CSD errors are below 2^−17, so for
// queue errors up to 1000 ΔQ the bound is below 0.01 ΔF per update.
// Over n updates that take the same branches and regions, line 8 and the
// clamp are 1-Lipschitz in F and line 5 halves the difference, so the
// per-update bounds add up (Params.StepErrorBound).
//
// # The idle-queue gain (Config.IdleGain, an option, off by default)
//
// Algorithm 1's integral term is slew-limited from below: while the queue
// is empty line 8 adds α·Qref per update and no more, with α = ᾱ/ratio,
// ratio 32 below Fmax/32 and halving with each doubling of F. At 40 Gb/s
// (ᾱ = 0.3, Qref = 250 ΔQ) that is 2.3 ΔF per 40 µs at the bottom, and the
// climb from Fmin to C/2 takes 155 updates, 6.2 ms, after line 3 has reset
// F to Fmin (harness/algos TestRoCCFairnessFig8 measures and models it).
// The authors' public simulator runs this law as printed, with F starting
// at 0 ([RoCC-code], SwitchEtherQueue.cc).
//
// IdleGain borrows one rule from a different controller of the same
// authors: the one their DPDK switch runs ([RoCC-code],
// dpdk/switch/runtime.c, get_stable_rate) and an earlier law left, not
// called, in the OMNeT++ switch (getFairRateForAlgo1). That controller
// differs otherwise (a continuous gain F/(C/2) clamped to [1/64, 1]
// instead of AUTO_TUNE's regions, gains per byte, the mean of the last two
// queue samples in place of Qold, other MD tests); its rule here is that
// the gain is the largest whenever the queue and the mean of the last two
// samples are both below Qref/8. In ΔQ units, with shifts:
//
//	qidle = ⌊Qref/8⌋                                 (Qref >> 3)
//	idle  = Qcur < qidle AND ⌊(Qcur + Qold)/2⌋ < qidle
//	7:  α, β ← idle ? (ᾱ, β̄) : AUTO_TUNE()          (shift 0 when idle)
//
// (the DPDK code compares bytes: there Qref/8 is 18.75 KB at the 40 Gb/s
// preset's Qref, here ⌊250/8⌋ = 31 ΔQ = 18.6 KB). NewParams rejects
// IdleGain with Qref below 8 ΔQ, where qidle would be 0 and the rule could
// never apply.
//
// Only line 8 changes: an idle queue is below Qref/8 < Qmax, and its growth
// Qcur − Qold ≤ Qcur < Qref < Qmid, so lines 2 and 4 never apply to it. An
// idle update reports the branch PIIdle. In real numbers, with the CSD
// values v_α, v_β of the gains and v_β < 7·v_α (both presets: β̄ = 5ᾱ),
// line 8's increment on an idle queue is v_α·(Qref − Qcur) − v_β·(Qcur −
// Qold) > v_α·7Qref/8 − v_β·Qref/8 > 0, so the update raises F, and by at
// least as much as the printed algorithm (which divides the same increment
// by its ratio ≥ 1). In the integer machine "at least as much" holds
// exactly (the one rounding is monotone in the shift); "raises" holds
// unless F is at Fmax or, with RateFracBits = 0 and tiny gains, the
// increment rounds to 0. With v_β > 7·v_α an idle update can lower F
// (TestIdleGainSign). The tracking bound above holds with s = 0.
//
// At equilibrium the queue sits at Qref, far above Qref/8, so the rule
// changes no steady state. It does change transients: it ignores
// AUTO_TUNE's estimate of N, so after a step that empties the queue F can
// overshoot (harness Fig. 9, 100 → 50 flows: F reaches 103 ΔF against a
// target of 80, the queue 269 KB against 174 KB without the rule). With it
// the paper's "~2 ms" convergence of Fig. 8 and Fig. 9 reproduces (the
// harness scenarios' param.idle_gain=on); it is not evidence that the
// paper's figures were made with it.
//
// Nothing here allocates after NewParams, reads a clock or uses floating
// point on an update; float64 appears only in the configuration (the
// gains before their CSD form) and in StepErrorBound, for tests.
package pi
