package fixedpoint

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// lfsrTaps16 is XAPP052's 16-bit maximal-length tap set (16, 15, 13, 4):
// bits 15, 14, 12, 3.
const lfsrTaps16 uint32 = 1<<15 | 1<<14 | 1<<12 | 1<<3

// lfsrTaps16Reducible is x^16 + x^8 + 1 = (x^8 + x^4 + 1)^2 over GF(2):
// reducible, so not maximal. It shows the period check can fail.
const lfsrTaps16Reducible uint32 = 1<<15 | 1<<7

// lfsrPeriod16 walks the 16-bit register from 1 with lfsrGaloisStep and
// returns the number of steps until it is back at 1, or 0 if it revisits a
// state other than 1 first or ever reaches 0.
func lfsrPeriod16(taps uint32) int {
	var seen [1 << 16]bool
	s := uint32(1)
	for n := 1; n <= 1<<16; n++ {
		seen[s] = true
		s = lfsrGaloisStep(s, taps)
		if s == 1 {
			return n
		}
		if s == 0 || s >= 1<<16 || seen[s] {
			return 0
		}
	}
	return 0
}

// The 16-bit register built from the same step function visits all 2^16 − 1
// non-zero states before repeating (checked by walking every state), and a
// reducible polynomial does not.
func TestLFSRPeriod16Exhaustive(t *testing.T) {
	require.Equal(t, 1<<16-1, lfsrPeriod16(lfsrTaps16), "XAPP052 taps (16,15,13,4) must be maximal")
	p := lfsrPeriod16(lfsrTaps16Reducible)
	require.Less(t, p, 1<<16-1, "x^16+x^8+1 is reducible and cannot be maximal")
}

// lfsrPolyMulMod returns a·b mod p over GF(2), where p has degree n (bit n
// set) and a, b have degree < n. Schoolbook shift-and-add; independent of the
// LFSR code.
func lfsrPolyMulMod(a, b, p uint64, n uint) uint64 {
	var r uint64
	for b != 0 {
		if b&1 != 0 {
			r ^= a
		}
		b >>= 1
		a <<= 1
		if a>>n&1 != 0 {
			a ^= p
		}
	}
	return r
}

// lfsrPolyPowX returns x^e mod p over GF(2).
func lfsrPolyPowX(e uint64, p uint64, n uint) uint64 {
	r, base := uint64(1), uint64(2) // 1 and x
	for e != 0 {
		if e&1 != 0 {
			r = lfsrPolyMulMod(r, base, p, n)
		}
		base = lfsrPolyMulMod(base, base, p, n)
		e >>= 1
	}
	return r
}

// lfsrPrimitive reports whether p (degree n) is primitive: x has order
// exactly 2^n − 1 modulo p, tested with the prime factors of 2^n − 1.
func lfsrPrimitive(p uint64, n uint, primeFactors []uint64) bool {
	order := uint64(1)<<n - 1
	if lfsrPolyPowX(order, p, n) != 1 {
		return false
	}
	for _, q := range primeFactors {
		if lfsrPolyPowX(order/q, p, n) == 1 {
			return false
		}
	}
	return true
}

// tapsToPoly turns a Galois mask (bit t−1 per tap t) of width n into the
// polynomial's coefficient word (bit t per tap t, plus the x^0 term).
func lfsrTapsToPoly(taps uint32) uint64 { return uint64(taps)<<1 | 1 }

// The 32-bit register's period is 2^32 − 1. Walking it takes too long for CI,
// so the test proves it algebraically:
//  1. the step is multiplication by x^-1 modulo P(x) = x^32+x^22+x^2+x+1:
//     x·step(s) ≡ s (mod P) for random s, with GF(2) arithmetic written
//     independently of the LFSR code;
//  2. P is primitive: x^(2^32−1) ≡ 1 and x^((2^32−1)/q) ≢ 1 for each prime
//     q | 2^32−1 = 3·5·17·257·65537.
//
// So x^-1 has order 2^32 − 1 and every non-zero state lies on one cycle. The
// same algebra agrees with the exhaustive 16-bit walk above on a primitive
// and a reducible polynomial.
func TestLFSR32PeriodAlgebraic(t *testing.T) {
	p32 := lfsrTapsToPoly(LFSR32Taps)
	require.Equal(t, uint64(1)<<32|1<<22|1<<2|1<<1|1, p32, "LFSR32Taps encodes x^32+x^22+x^2+x+1")

	r := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		s := r.Uint32() | 1<<uint(r.IntN(32)) // non-zero
		next := lfsrGaloisStep(s, LFSR32Taps)
		require.Equal(t, uint64(s), lfsrPolyMulMod(uint64(next), 2, p32, 32), "x·step(s) ≡ s mod P for s=%#x", s)
	}

	require.True(t, lfsrPrimitive(p32, 32, []uint64{3, 5, 17, 257, 65537}))

	f16 := []uint64{3, 5, 17, 257}
	require.True(t, lfsrPrimitive(lfsrTapsToPoly(lfsrTaps16), 16, f16), "agrees with the exhaustive walk")
	require.False(t, lfsrPrimitive(lfsrTapsToPoly(lfsrTaps16Reducible), 16, f16), "agrees with the exhaustive walk")
}

// lfsrFibonacci is a bit-serial Fibonacci LFSR in XAPP052's convention:
// stages q[1..32], output from stage 32, feedback q[32]⊕q[22]⊕q[2]⊕q[1]
// (XOR form) shifted into stage 1. One bit per stage, one stage per element,
// nothing shared with the Galois code.
type lfsrFibonacci struct{ q [33]uint8 }

func (f *lfsrFibonacci) step() uint8 {
	out := f.q[32]
	fb := f.q[32] ^ f.q[22] ^ f.q[2] ^ f.q[1]
	for i := 32; i > 1; i-- {
		f.q[i] = f.q[i-1]
	}
	f.q[1] = fb
	return out
}

// The Galois register's output bits are the stream of XAPP052's bit-serial
// Fibonacci register with the same taps: once the Fibonacci stages hold the
// first 32 Galois output bits (stage 32 the oldest), the two produce the same
// bits forever after (checked over 200 000 bits from several seeds).
func TestLFSR32MatchesFibonacciReference(t *testing.T) {
	for _, seed := range []uint32{1, 0xACE1ACE1, 0x80000000, 0xFFFFFFFF, 0x12345678} {
		g, err := NewLFSR32(seed)
		require.NoError(t, err)
		var f lfsrFibonacci
		var first [32]uint8
		for k := range first {
			first[k] = uint8(g.Step())
			f.q[32-k] = first[k] // q[32] = b0, ..., q[1] = b31
		}
		for k := range first {
			require.Equal(t, first[k], f.step(), "the loaded bits come out first")
		}
		mismatch := -1
		for k := 0; k < 200000 && mismatch < 0; k++ {
			if uint8(g.Step()) != f.step() {
				mismatch = k + 32
			}
		}
		require.Equal(t, -1, mismatch, "seed %#x: first differing bit", seed)
	}
}

// Next is 32 single steps (the leap table is only a faster way to get there).
func TestLFSR32NextIs32Steps(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		seed := r.Uint32()
		if seed == 0 {
			continue
		}
		a, err := NewLFSR32(seed)
		require.NoError(t, err)
		b := a
		got := a.Next()
		for range 32 {
			b.Step()
		}
		require.Equal(t, b.State(), got, "seed %#x", seed)
		require.Equal(t, got, a.State())
	}
}

func TestNewLFSR32RejectsZero(t *testing.T) {
	_, err := NewLFSR32(0)
	require.ErrorContains(t, err, "seed = 0")
	l, err := NewLFSR32(1)
	require.NoError(t, err)
	require.Equal(t, uint32(1), l.State())
}

// FuzzLFSR32Next checks the leap against single steps and that no state maps
// to 0 (the lock-up state).
func FuzzLFSR32Next(f *testing.F) {
	f.Add(uint32(1))          // smallest state
	f.Add(uint32(0xFFFFFFFF)) // all ones
	f.Add(uint32(0x80200003)) // the taps themselves
	f.Add(uint32(0))          // rejected seed
	f.Fuzz(func(t *testing.T, seed uint32) {
		l, err := NewLFSR32(seed)
		if seed == 0 {
			require.Error(t, err)
			return
		}
		require.NoError(t, err)
		want := seed
		for range 32 {
			want = lfsrGaloisStep(want, LFSR32Taps)
		}
		require.Equal(t, want, l.Next())
		require.NotZero(t, l.State())
	})
}

func BenchmarkLFSR32Next(b *testing.B) {
	l, _ := NewLFSR32(0xACE1ACE1) // DCQCN's default seed
	b.ReportAllocs()
	var x uint32
	for b.Loop() {
		x ^= l.Next()
	}
	_ = x
}
