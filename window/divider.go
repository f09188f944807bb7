package window

import (
	"math"
	"math/bits"

	"github.com/hwcc/hwcc/hwtables"
)

// divisorBits is the width of the divisor the reciprocal table takes:
// hwtables covers 1 ≤ n ≤ 2^22 (HPCC section 4.3). A wider divisor is
// shifted right into it.
const divisorBits = hwtables.KeyBits

// Divider divides by a run-time divisor the way the NIC does (HPCC section
// 4.3): a/n ≈ a·(1/n) with 1/n read from hwtables' reciprocal table. A
// divisor wider than 22 bits is first normalised: with s = bitlen(n) − 22,
// n' = round(n / 2^s) (ties up; n' ≤ 2^22) and a/n ≈ Div(a, n') / 2^s.
//
// Error: with (Over, Under) the table's Bound, for n ≥ 1,
//
//	(a/n)·(1 − Under)/(1 + 2^-22) − 2  <  Quo(a, n)  ≤  (a/n)·(1 + Over)/(1 − 2^-22)
//
// where 2^-22 bounds the normalisation (|n'·2^s − n| ≤ 2^(s−1) and
// n ≥ 2^(21+s), so n'·2^s is within n·(1 ± 2^-22)) and −2 the truncations
// (the table's and the shift's). Below 2^22 there is no normalisation and
// the bound is the table's own. At the default table (ε = 2^-7) Over is
// 0.787 % and Under 0.098 %.
//
// With native set, Quo is the exact floor(a/n) of the CPU's divider; that
// form exists to measure what the table saves and to test the table's
// error, not for hardware models.
//
// The zero Divider is not usable; build one with NewDivider. A Divider is a
// small value, immutable, safe to copy and share.
type Divider struct {
	table  *hwtables.Table
	native bool
}

// NewDivider returns a Divider using table (nil means
// hwtables.DefaultReciprocal()) or, if native is set, the native divide.
func NewDivider(table *hwtables.Table, native bool) Divider {
	if table == nil {
		table = hwtables.DefaultReciprocal()
	}
	return Divider{table: table, native: native}
}

// Native reports whether d uses the native divide.
func (d Divider) Native() bool { return d.native }

// Table returns the reciprocal table d reads (also set when d is native).
func (d Divider) Table() *hwtables.Table { return d.table }

// Quo returns a/n within the bound stated on Divider, rounded toward zero.
// n = 0 returns math.MaxUint64 (a/0 saturates; callers guard it first).
// It never allocates or panics.
func (d Divider) Quo(a, n uint64) uint64 {
	if n == 0 {
		return math.MaxUint64
	}
	if d.native {
		return a / n
	}
	m, s := normDivisor(n)
	return d.table.DivFast(a, m) >> s
}

// Quo128 returns (hi·2^64 + lo)/n within the bound stated on Divider (when n
// is normalised the numerator is shifted right by s as well, which costs less
// than one unit, within the −2). It saturates at math.MaxUint64 when n = 0, when the
// quotient needs more than 64 bits, and, in the table form, when the shifted
// numerator still needs more than 64 bits, which implies a quotient of at
// least 2^64/2^22 = 2^42. It never allocates or panics.
func (d Divider) Quo128(hi, lo, n uint64) uint64 {
	if hi >= n {
		// hi ≥ n means the quotient is at least 2^64 (or n = 0).
		return math.MaxUint64
	}
	if d.native {
		q, _ := bits.Div64(hi, lo, n)
		return q
	}
	// a/n = (a / 2^s)/(n / 2^s), s = normShift(n): shift the numerator as
	// well, dropping s fraction bits of it (the caller's numerators carry
	// 32), with no branch on s (shifts taken mod 64): for s = 0, hi is 0
	// past the saturation test, so hi << 0 adds nothing, and n' reads
	// bit 63 of n < 2^22 as the rounding bit, 0 (see normDivisor).
	m, s := normDivisor(n)
	if hi>>s != 0 {
		return math.MaxUint64
	}
	return d.table.DivFast(hi<<((64-s)&63)|lo>>s, m)
}

// MaxLanes is the number of lanes of a Lanes: 16, the 15 hops an INT
// header can hold rounded up to a power of two, so that a lane number
// masked to 4 bits needs no bounds check.
const MaxLanes = 16

// Lanes holds the operands and results of QuoLanes, lane by lane: Q[i] =
// Quo128(Hi[i], Lo[i], N[i]). Fixed arrays in one struct, so that a loop
// over the lanes addresses all four through one pointer and needs no
// bounds check.
type Lanes struct {
	Hi, Lo, N, Q [MaxLanes]uint64
}

// QuoLanes divides lanes 0..k−1 of l (k clamped to [0, MaxLanes]): l.Q[i]
// = Quo128(l.Hi[i], l.Lo[i], l.N[i]), bit for bit; the other lanes are not
// touched. It is the form for several divisions at once (HPCC's per-hop
// rates of one ACK, which a NIC computes in parallel lanes): one call, with
// the table's lookup inlined into the loop (BenchmarkQuoLanes compares it
// with a Quo128 per lane). It never allocates or panics.
func (d Divider) QuoLanes(l *Lanes, k int) {
	k = min(max(k, 0), MaxLanes)
	if d.native {
		for i := range k {
			l.Q[i] = d.Quo128(l.Hi[i], l.Lo[i], l.N[i])
		}
		return
	}
	t := d.table
	for i := range k {
		h, lo, m := l.Hi[i], l.Lo[i], l.N[i]
		// As Quo128 (see there): saturate when h ≥ m (or m = 0) or the
		// shifted numerator needs more than 64 bits; otherwise the
		// normalised division, branch-free in s.
		n, s := normDivisor(m)
		q := uint64(math.MaxUint64)
		if h < m && h>>s == 0 {
			q = t.DivFast(h<<((64-s)&63)|lo>>s, n)
		}
		l.Q[i] = q
	}
}

// normDivisor returns the divisor n brought into the table's domain, n' =
// round(n / 2^s), ties up, with s = normShift(n): n' ≤ 2^22, because n <
// 2^(22+s). The bit below the cut decides the rounding (no overflow of n +
// 2^(s−1)), read at s − 1 taken mod 64, so that there is no branch on s and
// the shifts need no guard: for s = 0 it reads bit 63 of n, which is 0
// because n < 2^22, so n' = n.
func normDivisor(n uint64) (nn uint64, s uint) {
	s = normShift(n)
	return n>>s + n>>((s-1)&63)&1, s
}

// normShift returns s = max(0, bitlen(n) − 22), the right shift that brings
// n into the table's domain: bitlen(n | 2^21) − 22, as setting bit 21 makes
// the bit length at least 22 and changes no longer one (no compare).
func normShift(n uint64) uint {
	return uint(bits.Len64(n|1<<(divisorBits-1))-divisorBits) & 63
}
