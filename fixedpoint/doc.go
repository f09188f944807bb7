// Package fixedpoint holds the integer arithmetic that hwcc's algorithms share
// with the hardware they model: Q-format numbers, width-limited registers,
// wrapping counters, quantisers, and multiplication by a constant as a short
// sum of shifts.
//
// Every operation states its rounding (Floor, Nearest with ties rounded up,
// Ceil) and its overflow policy (Wrap, Saturate, Reject). Nothing here
// allocates, panics or reads a clock on a per-call path; constructors validate
// their arguments and return an error naming the value and the allowed range.
// Floats appear only in configuration conversion (FromFloat, NewCSD) and in
// reports (Float, String).
//
// # Types and where the algorithms use them
//
//   - UQ0_10: an unsigned 10-bit fraction, value raw/1024 in [0, 1023/1024].
//     DCQCN's rate-reduction factor α ([Survey] §4.1.2, equations (5)
//     and (6); [ConnectX], as docs/derivations.md lists it:
//     dce_tcp_g, initial_alpha_value = 1023, rpg_gd = 11 meaning α/2).
//   - UQ1_10: the same scale with one integer bit, raw in [0, 2047], so that
//     1.0 = 1024 is representable: DCTCP's α caps at 1024
//     ([Linux-DCTCP]).
//   - UQ32_32: a wide format for rates and ratios. HPCC's normalised
//     utilisation U_j = qlen/(B·T) + txRate/B and its target η = 0.95
//     ([HPCC] §3.2, Algorithm 1) need at least 16 fraction
//     bits and values up to a few tens; UQ32_32 has 32 and 32.
//   - Register and SignedRegister: any width from 1 to 64 bits with an
//     explicit Overflow policy, for every state variable whose width the
//     hardware fixes.
//   - WrapDelta and WrapTime: deltas of free-running counters and how long a
//     counter lasts before it wraps. HPCC's INT hop record ([HPCC]
//     Figure 7 and section 4.1) carries txBytes, a 20-bit counter of 128-byte
//     units, and a 24-bit nanosecond timestamp; at 400 Gb/s txBytes wraps
//     every 2.68 ms.
//   - Quantizer: value ↔ units of Δ, as RoCC holds queues in units of
//     ΔQ = 600 B and rates in units of ΔF = 10 Mb/s ([RoCC]
//     §III-B, Algorithm 1, and the system parameters of section VI).
//   - SatAdd, SatSub, SatMul, Clamp, WrapAdd, WrapSub, WrapBefore, MaxOf and
//     MinOf: the generic integer helpers every algorithm shares, over any
//     integer type (constraints.Integer), named ones (units.Time,
//     units.Bytes, units.Rate) included, and never panicking. Saturating
//     arithmetic for gauges and deadlines (a time plus a period saturates at
//     units.MaxTime, "never"); wrapping arithmetic for free-running counters
//     of any width (WrapAdd, WrapSub); WrapBefore for serial-number order
//     (RFC 1982), as TCP compares its 32-bit sequence numbers (DCTCP's
//     windows, rp.DCTCP); Clamp for a gauge with bounds of its own (DCTCP's α
//     at 1.0, cwnd at its cap). SatAddNonNeg is SatAdd with one compare for
//     operands known non-negative (a deadline plus a period on a hot path);
//     SatConv narrows a value to a smaller type, saturating; MulDivSat
//     (⌊a·b/c⌋ with a 128-bit product) and ShrSat128 (a 128-bit product
//     shifted back into a 64-bit register) are the output stages of
//     fixed-point multiplies and rate conversions, saturating at 2^64 − 1.
//   - CSD: multiplication by a constant as a canonical-signed-digit sum of
//     shifts with its exact error. RoCC's PI gains ᾱ = 0.3, β̄ = 1.5 (40 Gb/s)
//     and 0.45, 2.25 (100 Gb/s) ([RoCC] §VI, "System
//     parameters"; applied on line 8 of Algorithm 1, section III-B) are not
//     powers of two; with four terms 0.3 becomes 2^-2 + 2^-4 - 2^-6 + 2^-8
//     = 0.30078125.
//   - LFSR32: a 32-bit maximal-length LFSR (x^32 + x^22 + x^2 + x + 1,
//     [XAPP052]'s taps) drawing 32 bits per step as a switch pipeline's
//     leap-forward network does: the random source of DCQCN's RED marker
//     (cp.DCQCN) and QCN's sampling jitter, reproducible bit for bit by RTL.
//
// # Conventions
//
// A Q type's name is its format: UQm_n is unsigned with m integer bits and n
// fraction bits, the value of raw integer r is r/2^n. The types are plain
// named integers, so they copy, compare and hash like integers; methods never
// mask a raw value, and a raw value above a type's Max (only reachable by a
// conversion the caller wrote) is used as it is.
//
// Rounding is always of the exact mathematical result: Floor rounds toward
// −∞, Ceil toward +∞, Nearest to the nearest representable value with ties
// away from zero (half-up for the unsigned results that Nearest applies to).
package fixedpoint
