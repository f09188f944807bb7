package hwtables

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
)

// Domain of the divisor and the parameter ranges the constructors accept.
const (
	// KeyBits is the width of the key field of an interval-table word: the
	// table stores n_k − 1, which is below 2^22 for every n_k ≤ MaxN.
	KeyBits = 22

	// MaxN is the largest divisor the tables cover, 2^22 = 4194304: HPCC's
	// domain {1/n : 1 ≤ n ≤ 2^22} (section 4.3).
	MaxN = 1 << KeyBits

	// MinEpsLog2 and MaxEpsLog2 bound e in ε = 2^-e. At e = 16 the table has
	// 310 894 entries (1.6 MB); beyond that a table is no cheaper than a divider.
	MinEpsLog2 = 1
	MaxEpsLog2 = 16

	// MinIndexBits and MaxIndexBits bound k, the address width of the
	// compact table (2^k entries).
	MinIndexBits = 1
	MaxIndexBits = 16

	// MaxMantBits bounds F, the stored mantissa fraction bits. It keeps every
	// packed word within 52 bits and every product mantissa·n below 2^53, so
	// that the errors hwtables/gen's Measure reports in float64 are exact.
	MaxMantBits = 30

	// DefaultEpsLog2 is the default ε = 2^-7 (0.78 %): the paper's "about
	// 10 KB" for 1 ≤ n ≤ 2^22 is met at this ε (5600 B here).
	DefaultEpsLog2 = 7

	// DefaultIndexBits is the default compact table, k = 6 (64 entries),
	// whose bound (0.82 %) and measured worst error (0.78 %) match the
	// default interval table's (0.79 % and 0.79 %).
	DefaultIndexBits = 6

	// reciprocalGuardBits is the default F − e of an interval table: the
	// mantissa quantisation 2^-F is then ε/8, small beside the interval
	// error ε/(1−ε). At e = 7 it makes a word exactly 32 bits.
	reciprocalGuardBits = 3

	// compactGuardBits is the default F − k of a compact table: the
	// quantisation 2^-(F+1) is then 1/32 of the interval error 1/(2^(k+1)+1).
	compactGuardBits = 4
)

// ErrRange is the error every *RangeError wraps: test with errors.Is.
var ErrRange = errors.New("hwtables: value out of range")

// RangeError reports a divisor or a constructor's parameter outside its
// allowed range: Div's divisor n, a field of ReciprocalConfig or
// CompactConfig, or NewRoCCAutoTune's Fmax. Package cc's ConfigError plays
// this part for the state machines; hwtables sits below cc and keeps its
// own type, which callers wrap.
type RangeError struct {
	Name     string // what was out of range, e.g. "divisor n", "ReciprocalConfig.EpsLog2" or "RoCCAutoTune Fmax"
	Value    uint64 // the value given
	Min, Max uint64 // the allowed range, inclusive
}

// Error names the parameter, its value and the allowed range.
func (e *RangeError) Error() string {
	return fmt.Sprintf("hwtables: %s = %d out of range [%d, %d]", e.Name, e.Value, e.Min, e.Max)
}

// Unwrap returns ErrRange.
func (e *RangeError) Unwrap() error { return ErrRange }

// Kind says which construction a Table uses.
type Kind uint8

// Table kinds.
const (
	// KindReciprocal is HPCC's interval table (NewReciprocal).
	KindReciprocal Kind = iota + 1
	// KindCompact is the 2^k-entry mantissa table (NewCompact).
	KindCompact
)

// String returns the table's name as `hwcc tables` and the exporters of
// hwtables/gen spell it: "reciprocal" or "reciprocal-compact".
func (k Kind) String() string {
	switch k {
	case KindReciprocal:
		return "reciprocal"
	case KindCompact:
		return "reciprocal-compact"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// ReciprocalConfig parameterises HPCC's interval table.
type ReciprocalConfig struct {
	// EpsLog2 is e in ε = 2^-e, the relative step between stored
	// reciprocals (HPCC section 4.3). Range [MinEpsLog2, MaxEpsLog2];
	// 0 means DefaultEpsLog2.
	EpsLog2 uint
	// MantBits is F, the stored fraction bits of the reciprocal mantissa
	// (the leading one is implicit). Range [1, MaxMantBits]; 0 means
	// EpsLog2 + 3, so that quantisation (2^-F) is ε/8.
	MantBits uint
}

// CompactConfig parameterises the compact mantissa table.
type CompactConfig struct {
	// IndexBits is k: the table has 2^k entries addressed by the k bits of
	// n after its leading one. Range [MinIndexBits, MaxIndexBits]; 0 means
	// DefaultIndexBits.
	IndexBits uint
	// MantBits is F, the stored fraction bits of each entry (the leading
	// one is implicit). Range [IndexBits, MaxMantBits]; F ≥ k keeps the
	// rounded entry below 2^(F+1). 0 means IndexBits + 4.
	MantBits uint
}

// Table is a reciprocal table 1/n for 1 ≤ n ≤ MaxN = 2^22, read by a NIC to
// divide by multiplying (HPCC section 4.3): HPCC's interval table
// (NewReciprocal; by default ε = 2^-7, 1400 words of 32 bits, 5600 B,
// r·n − 1 within (−0.098 %, +0.787 %)) or the compact mantissa table
// (NewCompact; by default k = 6, 64 words of 10 bits, 80 B, |r·n − 1| ≤
// 0.824 %), told apart by Kind. Lookup returns 1/n as a mantissa and a
// shift, DivFast and Div return a/n. It is immutable and safe to share; the
// zero Table is not usable, build one with NewReciprocal, NewCompact,
// DefaultReciprocal or DefaultCompact.
//
// Memory layout: words holds the packed hardware words exactly as the
// exporters of hwtables/gen write them (see Word), one uint64 each. An
// interval table's slice is padded to a power of two with sentinel words
// greater than any probe, so that the binary search runs a fixed number of
// steps without a length check in its loop; Entries counts only the real
// words. octave and rec are the software index both kinds read in constant
// time (see buildIndex): 24 bytes per bucket of divisors plus octave's 520,
// 96 KB for the default interval table and 27 KB for the default compact
// table, derived from words and never exported.
type Table struct {
	kind     Kind
	param    uint8 // e (ε = 2^-e) of an interval table, k of a compact table
	mantBits uint8 // F, stored mantissa fraction bits
	steps    uint8 // binary-search steps: ⌈log2 entries⌉ (interval); 0 (compact)
	m        uint8 // bucket bits: e + 1 (interval), k (compact)
	f1       int   // F + 1, the bit length of a mantissa
	entries  int
	half     int      // first search stride: len(words)/2 (interval)
	words    []uint64 // packed words; see Word for the layouts
	rec      []bucket // the index's buckets: see buildIndex
	// octave[L] places the divisors of bit length L in the index (find):
	// their first bucket above 6 bits of their shift. 65 words, so that a
	// leading-one count (0..64) reads it with no bounds check.
	octave [65]uint64
}

// bucket is one bucket of the index (buildIndex): the reciprocal of the
// entry that holds the bucket's least divisor, the next bucket's, and the
// last divisor of the first.
type bucket struct {
	// mult is entry k's reciprocal scaled to 2^63: M_k·2^(63 − shift_k)
	// = 2^63/n_k rounded as the entry rounds it, so that a/n ≈
	// ⌊a·mult / 2^63⌋ exactly as ⌊a·M_k / 2^shift_k⌋ (shift_k ≤ 53, and
	// M_k < 2^(F+1) ≤ 2^(shift_k+1) keeps mult below 2^64).
	mult uint64
	// next is the next bucket's mult (this one's in the last bucket).
	next uint64
	// last is n_{k+1} − 1: a divisor of the bucket above it belongs to
	// entry k + 1, whose reciprocal is next. Where n_{k+1} lies beyond
	// the bucket, last is therefore above every divisor that reaches it;
	// where there is no entry k + 1 (the last entry's buckets, every
	// bucket of a compact table) it is recNever, and math.MaxUint64 in the
	// pad bucket of n ≥ 2^63.
	last uint64
}

// sentinel pads an interval table's words; it exceeds every probe (< 2^52).
const sentinel = math.MaxUint64

// NewReciprocal builds HPCC's reciprocal table (section 4.3) for ε = 2^-e.
//
// Construction. Starting at n_0 = 1 it stores n_{k+1}, the smallest n > n_k
// whose reciprocal is at least ε below the previous one relative to it:
//
//	1/n_k − 1/n_{k+1} ≥ ε·(1/n_k)   ⇔   n_{k+1} = ⌈n_k / (1 − ε)⌉
//
// (the paper prints the difference the other way round, 1/n_{k+1} − 1/n_k,
// which is negative; the intent is this one), and stops before n exceeds
// MaxN. Every n < 2^e is stored, then the n_k grow geometrically by 1/(1−ε),
// so entries ≈ 2^e − 1 + ln(MaxN/2^e)/(−ln(1−ε)), a little less because
// the ceiling makes each step slightly longer: 1400 at ε = 2^-7.
//
// Format. A divisor n in [n_k, n_{k+1}) uses 1/n_k, held as a normalised
// F-bit mantissa whose exponent is implied by n_k:
//
//	s_k = bitlen(n_k − 1) = ⌈log2 n_k⌉,  2^(s_k+F)/n_k ∈ [2^F, 2^(F+1))
//	M_k = ⌊2^(s_k+F) / n_k⌋              (rounded down, M_k ≥ 2^F)
//	1/n_k ≈ M_k / 2^(s_k+F)
//
// One packed word per entry, (KeyBits + F) bits, stored in ascending n:
//
//	bits [KeyBits+F−1 : F]  n_k − 1        (22 bits)
//	bits [F−1 : 0]          M_k − 2^F      (F bits; the leading one is implicit)
//
// so hardware recovers the shift s_k + F with a leading-zero count of the
// key, and the words sort as their keys do. At ε = 2^-7, F = 10 a word is
// 32 bits and the table 1400 × 4 B = 5600 B.
//
// Error bound, for every n in [1, MaxN], with r the reciprocal looked up:
//
//	−2^-F  <  r·n − 1  <  ε/(1−ε) = 1/(2^e − 1)
//
// The upper side is the interval rule: r ≤ 1/n_k and n ≤ n_{k+1} − 1 <
// n_k/(1−ε), so r·n < 1/(1−ε). The lower side is the quantisation: r ≥
// 1/n_k·(1 − 2^-F) and n ≥ n_k. The two have opposite signs, so rounding the
// mantissa down makes |r·n − 1| < max(ε/(1−ε), 2^-F), where rounding to
// nearest would give ε/(1−ε) + 2^-(F+1) above. At the defaults the
// bound is 0.787 % above and 0.098 % below; the exhaustive test measures
// 0.787 % (n = 3634567) and 0.092 % (n = 248553).
func NewReciprocal(cfg ReciprocalConfig) (*Table, error) {
	e, f := cfg.EpsLog2, cfg.MantBits
	if e == 0 {
		e = DefaultEpsLog2
	}
	if e < MinEpsLog2 || e > MaxEpsLog2 {
		return nil, &RangeError{"ReciprocalConfig.EpsLog2", uint64(e), MinEpsLog2, MaxEpsLog2}
	}
	if f == 0 {
		f = min(e+reciprocalGuardBits, MaxMantBits)
	}
	if f > MaxMantBits {
		return nil, &RangeError{"ReciprocalConfig.MantBits", uint64(f), 1, MaxMantBits}
	}
	return fromWords(KindReciprocal, e, f, reciprocalWords(e, f)), nil
}

// reciprocalWords generates the packed words of an interval table; e and f
// are in range.
func reciprocalWords(e, f uint) []uint64 {
	// den = 2^e − 1, so that 1/(1 − ε) = 2^e / den.
	den := uint64(1)<<e - 1
	words := make([]uint64, 0, estimateEntries(e))
	for n := uint64(1); n <= MaxN; {
		s := uint(bits.Len64(n - 1))
		// M = ⌊2^(s+F) / n⌋ ∈ [2^F, 2^(F+1)): the mantissa of 1/n rounded down.
		m := (uint64(1) << (s + f)) / n
		words = append(words, (n-1)<<f|(m-1<<f))
		// n_{k+1} = ⌈n_k / (1 − ε)⌉ = ⌈n_k·2^e / (2^e − 1)⌉, exact in integers
		// (n_k·2^e < 2^38).
		n = (n<<e + den - 1) / den
	}
	return words
}

// estimateEntries is the closed-form size of an interval table, used only to
// size the slice: 2^e − 1 entries below 2^e, then ln(MaxN/2^e)/(−ln(1−ε)).
func estimateEntries(e uint) int {
	small := 1<<e - 1
	if e >= KeyBits {
		return MaxN
	}
	eps := math.Ldexp(1, -int(e))
	return small + int(math.Log(float64(uint64(MaxN)>>e))/-math.Log1p(-eps)) + 2
}

// NewCompact builds the compact reciprocal table: 2^k reciprocals of
// normalised mantissas, the way hardware dividers seed their iteration.
//
// Construction. Write n = 2^(L−1)·x with L = bitlen(n) and x ∈ [1, 2). The k
// bits of n after its leading one, i = ⌊(x − 1)·2^k⌋, address entry i, which
// covers x ∈ [1 + i/2^k, 1 + (i+1)/2^k). The entry holds the reciprocal of
// the interval's midpoint, c_i = 1 + (2i+1)/2^(k+1): that value minimises the
// largest relative error of r·x over the interval (the two ends err equally,
// one high and one low), rounded to nearest with an implicit leading one:
//
//	R_i = round(2^(F+1) / c_i) ∈ [2^F, 2^(F+1))   (no ties: c_i's numerator is odd)
//	1/n ≈ R_i / 2^(L+F)
//
// One word per entry, F bits, bits [F−1:0] = R_i − 2^F, at address i. The
// lookup is constant-time: a leading-one count (bits.Len64), a shift and one
// read.
//
// Error bound, for every n in [1, MaxN], with r the reciprocal looked up:
//
//	|r·n − 1| ≤ (1 + h)(1 + q) − 1,   h = 1/(2^(k+1) + 1),  q = 2^-(F+1)
//
// h is the interval error, |x/c_i − 1| ≤ 2^-(k+1)/c_i ≤ h at i = 0, and q the
// rounding of R_i, relative to R_i ≥ 2^F. Unlike the interval table this one
// errs on both sides, and it errs even where n is a power of two. At the
// defaults (k = 6, F = 10) the bound is 0.824 %, the table 64 × 10 bits =
// 80 B.
func NewCompact(cfg CompactConfig) (*Table, error) {
	k, f := cfg.IndexBits, cfg.MantBits
	if k == 0 {
		k = DefaultIndexBits
	}
	if k < MinIndexBits || k > MaxIndexBits {
		return nil, &RangeError{"CompactConfig.IndexBits", uint64(k), MinIndexBits, MaxIndexBits}
	}
	if f == 0 {
		f = min(k+compactGuardBits, MaxMantBits)
	}
	if f < k || f > MaxMantBits {
		return nil, &RangeError{"CompactConfig.MantBits", uint64(f), uint64(k), MaxMantBits}
	}
	return fromWords(KindCompact, k, f, compactWords(k, f)), nil
}

// compactWords generates the words of a compact table; k and f are in range.
func compactWords(k, f uint) []uint64 {
	words := make([]uint64, 1<<k)
	// 2^(F+1)/c_i = 2^(F+1)·2^(k+1) / (2^(k+1) + 2i + 1) = num/den.
	num := uint64(1) << (f + 1 + k + 1)
	for i := range words {
		den := uint64(1)<<(k+1) + 2*uint64(i) + 1
		// round(num/den) = ⌊(2·num + den) / (2·den)⌋; num < 2^48.
		r := (2*num + den) / (2 * den)
		words[i] = r - 1<<f
	}
	return words
}

// fromWords wraps packed words; for an interval table it pads them to a power
// of two with sentinels. It copies, so the caller may reuse packed.
func fromWords(kind Kind, param, f uint, packed []uint64) *Table {
	t := &Table{kind: kind, param: uint8(param), mantBits: uint8(f), entries: len(packed)}
	if kind == KindCompact {
		t.words = append([]uint64(nil), packed...)
		t.buildIndex()
		return t
	}
	// ⌈log2 entries⌉ steps over a power-of-two array.
	t.steps = uint8(bits.Len(uint(len(packed) - 1)))
	size := 1 << t.steps
	t.words = make([]uint64, size)
	copy(t.words, packed)
	for i := len(packed); i < size; i++ {
		t.words[i] = sentinel
	}
	t.half = size / 2
	t.buildIndex()
	return t
}

// recNever is the last of a bucket whose divisors all belong to its own
// entry: at or above every divisor below 2^63.
const recNever = math.MaxInt64

// recMult returns mant·2^(63 − shift), a bucket's mult.
func recMult(mant uint64, shift uint) uint64 { return mant << (63 - shift) }

// buildIndex builds the constant-time index rec, which Lookup and DivFast
// read.
//
// Buckets. With L = bitlen(n) and s = max(L, m + 1) − (m + 1), divisor n
// falls in bucket b = s·2^m + ⌊n / 2^s⌋. Below 2^m (s = 0) every n is its
// own bucket b = n. From 2^m up, n in octave j = L − 1 ≥ m falls in bucket
// (j − m)·2^m + (the m + 1 bits of n from its leading one): 2^(j−m)
// integers, a relative width of at most 2^-m of n. The buckets ascend with
// n, without gaps, up to b = (23 − m)·2^m for n = MaxN and on to the end of
// that octave, R = (24 − m)·2^m buckets for every n < 2^23. Two pad
// buckets follow: R for 2^23 ≤ n < 2^63 and R + 1 for n ≥ 2^63, both
// holding MaxN's reciprocal, so that the index clamps n > MaxN as Lookup
// promises without a compare (n = 0 falls in bucket 0, which holds the
// entry of 1). Both parts of b come from octave[L]: s·2^m above 6 bits of
// s, or, for L ≥ 24, R above a shift of 63.
//
// Interval table (m = e + 1). An interval [n_k, n_{k+1}) is more than ε·n_k
// wide (n_{k+1} = ⌈n_k/(1 − ε)⌉ > n_k·(1 + ε)), which from octave j ≥ m on
// is more than 2^(j−e) = 2·2^(j−m), twice a bucket. So a bucket meets at most
// two intervals: k, the one holding its least n, and k + 1 if n_{k+1} falls
// inside it; and then interval k + 1 reaches past the bucket's end, so it
// holds the next bucket's least n and is the entry the next bucket's word
// describes. Below 2^m a one-integer bucket meets one interval (every
// n < 2^e is an entry, n_k = k + 1, and the intervals between 2^e and 2^m
// are at least one integer wide). rec[b] holds entry k's reciprocal, entry
// k + 1's (bucket b + 1's) and n_{k+1} − 1, and a lookup is: bucket b from a
// leading-one count and one read of octave, one read of the bucket, and
// the second reciprocal instead of the first when n > n_{k+1} − 1 (a
// conditional move): no loop and no branch, whatever n (see find and
// recip). The entry is the binary search's, bit for bit (the exhaustive
// tests check that the bucket find picks and its last give n's searched
// entry, and compare Lookup and DivFast with the searched word's
// reciprocal, over [1, MaxN] for every e).
//
// Compact table (m = k). From 2^k up a bucket is exactly the set of n whose
// k bits after the leading one address one entry, and below 2^k one integer;
// rec[b] holds that entry's reciprocal (its shift bitlen(n) + F is the same
// for every n of the bucket) and a last no n passes. The hardware reads its
// 2^k words directly; this expansion only lets both kinds share one
// branch-free path.
//
// Why two reciprocals per bucket: the selection then waits for one read,
// not two in a row. Against 16-byte buckets {mult, bound} read twice
// (bucket b, then b or b + 1) it made BenchmarkDiv 2.31 → 1.89 ns and
// BenchmarkDivLatency 9.7 → 7.5 ns on this project's 2-core AMD EPYC (Zen 5
// class), where the native divide takes 2.05 and 4.4 ns.
//
// Size: (24 − m)·2^m + 2 buckets of 24 bytes: 96 KB at e = 7, 27 KB at
// k = 6; 21 MB at e = 16, the largest.
func (t *Table) buildIndex() {
	f := uint(t.mantBits)
	var m uint
	if t.kind == KindCompact {
		m = uint(t.param)
	} else {
		m = min(uint(t.param)+1, KeyBits)
	}
	t.m, t.f1 = uint8(m), int(f)+1
	// R buckets for every n < 2^(KeyBits+1), then the two pad buckets.
	r := uint64(KeyBits+2-m) << m
	t.rec = make([]bucket, r+2)
	for l := range t.octave {
		s := uint64(max(l, int(m)+1) - (int(m) + 1))
		t.octave[l] = s<<m<<6 | s
		if l > KeyBits+1 {
			// b = R + ⌊n / 2^63⌋
			t.octave[l] = r<<6 | 63
		}
	}
	if t.kind == KindCompact {
		for b := range t.rec {
			n := min(max(bucketLow(uint(b), m), 1), MaxN)
			mant, shift := t.lookupCompact(n)
			t.rec[b] = bucket{mult: recMult(mant, shift), last: recNever}
		}
	} else {
		nk := make([]uint64, t.entries+1) // n_k, then one past the last
		for k := 0; k < t.entries; k++ {
			nk[k] = t.words[k]>>f + 1
		}
		nk[t.entries] = recNever + 1
		k := 0
		for b := range t.rec {
			lo := bucketLow(uint(b), m)
			for k+1 < t.entries && nk[k+1] <= lo {
				k++
			}
			mant, shift := t.entry(k)
			t.rec[b] = bucket{mult: recMult(mant, shift), last: nk[k+1] - 1}
		}
	}
	t.rec[r+1].last = math.MaxUint64
	for b := range t.rec {
		t.rec[b].next = t.rec[min(b+1, len(t.rec)-1)].mult
	}
}

// bucketLow is the least n of bucket b (0 for bucket 0, which holds no n;
// 2^23 and 2^24 for the pad buckets, which stand for every n ≥ 2^23).
func bucketLow(b, m uint) uint64 {
	if b < 1<<m {
		return uint64(b)
	}
	j := b>>m - 1 + m // octave
	return uint64(1)<<j | uint64(b&(1<<m-1))<<(j-m)
}

// find returns the number of the index bucket n falls in (buildIndex): b =
// s·2^m + ⌊n/2^s⌋ with both s and s·2^m read from octave[bitlen(n | 1)],
// no compare (n | 1 has n's bit length but for n = 0, which reads as 1).
func (t *Table) find(n uint64) uint64 {
	o := t.octave[bits.Len64(n|1)]
	return o>>6 + n>>(o&63)
}

// recip returns n's reciprocal scaled to 2^63 (bucket.mult): that of the
// bucket n falls in, or the next bucket's when n is past the bucket's last
// divisor. Both are loaded before the compare, so that it compiles to a
// conditional move, not a branch on the data.
func (t *Table) recip(n uint64) uint64 {
	r := &t.rec[t.find(n)]
	mult, next := r.mult, r.next
	if n > r.last {
		mult = next
	}
	return mult
}

// entry returns the reciprocal of interval entry k, decoded from its
// packed word: 1/n_k ≈ (2^F + frac) / 2^(bitlen(n_k − 1) + F).
func (t *Table) entry(k int) (mant uint64, shift uint) {
	w, f := t.words[k], uint(t.mantBits)
	return w&(1<<f-1) | 1<<f, uint(bits.Len64(w>>f)) + f
}

// widen copies a generated array of a narrow word type into uint64 words.
func widen[W uint16 | uint32 | uint64](src []W) []uint64 {
	out := make([]uint64, len(src))
	for i, w := range src {
		out[i] = uint64(w)
	}
	return out
}

// The default tables, wrapped once from the arrays in tables_gen.go.
var (
	defaultReciprocal = fromWords(KindReciprocal, genReciprocalEpsLog2, genReciprocalMantBits, widen(genReciprocalWords[:]))
	defaultCompact    = fromWords(KindCompact, genCompactIndexBits, genCompactMantBits, widen(genCompactWords[:]))
)

// DefaultReciprocal returns HPCC's table at ε = 2^-7 with F = 10 (32-bit
// words, 1400 entries, 5600 B), compiled in from tables_gen.go. It equals
// NewReciprocal(ReciprocalConfig{}).
func DefaultReciprocal() *Table { return defaultReciprocal }

// DefaultCompact returns the compact table at k = 6, F = 10 (64 entries,
// 80 B), compiled in from tables_gen.go. It equals NewCompact(CompactConfig{}).
func DefaultCompact() *Table { return defaultCompact }

// Kind returns which construction built t.
func (t *Table) Kind() Kind { return t.kind }

// EpsLog2 returns e of an interval table (ε = 2^-e), 0 for a compact table.
func (t *Table) EpsLog2() int {
	if t.kind != KindReciprocal {
		return 0
	}
	return int(t.param)
}

// Eps returns ε of an interval table, 0 for a compact table.
func (t *Table) Eps() float64 {
	if t.kind != KindReciprocal {
		return 0
	}
	return math.Ldexp(1, -int(t.param))
}

// IndexBits returns k of a compact table, 0 for an interval table.
func (t *Table) IndexBits() int {
	if t.kind != KindCompact {
		return 0
	}
	return int(t.param)
}

// MantBits returns F, the stored mantissa fraction bits.
func (t *Table) MantBits() int { return int(t.mantBits) }

// Entries returns the number of entries (packed words) in the table.
func (t *Table) Entries() int { return t.entries }

// WordBits returns the width of one packed word: KeyBits + F for an
// interval table, F for a compact table (its address is the index).
func (t *Table) WordBits() int {
	if t.kind == KindCompact {
		return int(t.mantBits)
	}
	return KeyBits + int(t.mantBits)
}

// Bytes returns the table's size with entries packed at WordBits each,
// ⌈Entries·WordBits / 8⌉: the memory a hardware block needs.
func (t *Table) Bytes() int { return (t.entries*t.WordBits() + 7) / 8 }

// SearchSteps returns the number of binary-search steps of every interval
// lookup, ⌈log2 Entries⌉; 0 for a compact table (one direct read).
func (t *Table) SearchSteps() int { return int(t.steps) }

// Word returns packed word i, 0 ≤ i < Entries, in the layout NewReciprocal
// or NewCompact documents (what hardware stores at address i, and what the
// exporters of hwtables/gen write); it returns 0 for i out of range.
func (t *Table) Word(i int) uint64 {
	if i < 0 || i >= t.entries {
		return 0
	}
	return t.words[i]
}

// Bound is an analytic bound on the relative error of a looked-up
// reciprocal r: for every n in [1, MaxN], −Under ≤ r·n − 1 ≤ Over.
type Bound struct {
	Over  float64 // largest overestimate, r·n − 1
	Under float64 // largest underestimate, 1 − r·n
}

// Bound returns the analytic error bound of t derived in NewReciprocal and
// NewCompact (strict for an interval table), each side the float64 nearest
// the exact rational; the tests check the exact forms. hwtables/gen's
// Measure finds the worst error actually reached.
func (t *Table) Bound() Bound {
	f := uint(t.mantBits)
	if t.kind == KindCompact {
		// (1 + 1/H)(1 + 1/Q) − 1 = (H + Q + 1)/(H·Q), H = 2^(k+1) + 1,
		// Q = 2^(F+1): integers below 2^48, one correctly rounded division.
		h, q := uint64(1)<<(t.param+1)+1, uint64(1)<<(f+1)
		b := float64(h+q+1) / float64(h*q)
		return Bound{Over: b, Under: b}
	}
	// ε/(1−ε) = 1/(2^e − 1), and 2^-F.
	return Bound{Over: 1 / float64(uint64(1)<<t.param-1), Under: math.Ldexp(1, -int(f))}
}

// Lookup returns the reciprocal of n as a mantissa and a shift:
//
//	1/n ≈ mant / 2^shift,   2^F ≤ mant < 2^(F+1),   shift ≤ KeyBits + 1 + F
//
// within t.Bound(). It is the fast form: n is clamped to [1, MaxN] first
// (n = 0 reads the entry of 1, n > MaxN the entry of MaxN). Both kinds take
// constant time and the same branch-free path: a leading-one count picks a
// bucket, and the bucket's last divisor picks one of the two reciprocals
// it holds (see buildIndex and recip). For an interval table that gives
// the entry hardware finds with the SearchSteps steps of a binary search
// over the packed words, for a compact table the entry it addresses with
// the bits after n's leading one; the result is that entry's, bit for bit.
func (t *Table) Lookup(n uint64) (mant uint64, shift uint) {
	// mult = mant·2^(63 − shift) and 2^F ≤ mant < 2^(F+1), so bitlen(mult)
	// = F + 1 + 63 − shift.
	mult := t.recip(n)
	d := bits.Len64(mult) - t.f1 // 63 − shift ≥ 10
	return mult >> d, uint(63 - d)
}

// search returns the largest k with n_k ≤ n, 1 ≤ n ≤ MaxN, and the number of
// steps taken. The probe (n − 1, all-ones fraction) compares with the packed
// words directly: word_k ≤ probe ⇔ n_k − 1 ≤ n − 1, because the key is the
// word's high part. Each step halves the stride, so there are exactly
// log2(len(words)) = ⌈log2 Entries⌉ steps; word 0 (n_0 = 1) is ≤ every probe
// and the sentinels above the last entry are > every probe.
func (t *Table) search(n uint64) (k, steps int) {
	f := uint(t.mantBits)
	probe := (n-1)<<f | (1<<f - 1)
	words := t.words
	for stride := t.half; stride > 0; stride >>= 1 {
		// A branch, not a conditional move: a branch-free step (borrow
		// mask) serialises the loads that speculation overlaps, and
		// BenchmarkLookup measured it slower.
		if words[k+stride] <= probe {
			k += stride
		}
		steps++
	}
	return k, steps
}

// lookupCompact reads entry i = the k bits of n after its leading one, as
// hardware does, and returns its reciprocal; buildIndex copies it into the
// index.
func (t *Table) lookupCompact(n uint64) (mant uint64, shift uint) {
	k, f := uint(t.param), uint(t.mantBits)
	l := uint(bits.Len64(n)) // n = 2^(l−1)·x, x ∈ [1, 2)
	// i = ⌊x·2^k⌋ − 2^k: shift n up by k first so that no bit is lost when
	// l − 1 < k (n < 2^(KeyBits+1) and k ≤ 16 keep n << k below 2^39).
	i := (n << k >> (l - 1)) & (1<<k - 1)
	// 1/n ≈ (2^F + frac_i) / 2^(F+1) · 2^-(l−1) = R_i / 2^(l+F).
	return t.words[i] | 1<<f, l + f
}

// DivFast returns a/n by multiply and shift: ⌊a·mant / 2^shift⌋ with
// (mant, shift) = t.Lookup(n). Any a is allowed (the product is 128 bits
// wide) and the result never exceeds a. It reads the index's reciprocal
// M·2^(63 − shift) and takes ⌊a·M·2^(63 − shift) / 2^63⌋, the same value, so
// that the shift is a constant: a leading-one count, two reads (octave and
// the bucket), a conditional move, a multiply and a shift, with no branch on
// the data (recip); it is small enough to be inlined.
//
// Contract: it never fails and never allocates; n is clamped to [1, MaxN]
// first, so n = 0 divides by 1 (the max(1, n) guard of integer congestion
// control) and n > MaxN divides by MaxN, overestimating the quotient. Use Div
// where n may be out of range. Within the domain, with q the result and
// (Over, Under) = t.Bound():
//
//	(a/n)·(1 − Under) − 1 < q ≤ (a/n)·(1 + Over)
//
// The −1 is the final truncation (rounding toward zero); the rest is the
// reciprocal's error.
func (t *Table) DivFast(a, n uint64) uint64 {
	// a/n ≈ a·mant / 2^shift = a·mult / 2^63: the 128-bit product shifted
	// right by 63; the quotient ≤ a fits 64 bits, so hi < 2^63.
	hi, lo := bits.Mul64(a, t.recip(n))
	return hi<<1 | lo>>63
}

// divisorError is Div's error.
func divisorError(n uint64) error { return &RangeError{"divisor n", n, 1, MaxN} }

// Div returns a/n as DivFast does, or a *RangeError naming n if n is 0 or
// above MaxN. Any a is allowed; the result is within the bound DivFast
// states, rounded toward zero. Only the error path allocates.
func (t *Table) Div(a, n uint64) (uint64, error) {
	if n-1 >= MaxN { // n = 0 wraps
		return 0, divisorError(n)
	}
	return t.DivFast(a, n), nil
}
