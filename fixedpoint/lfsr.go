package fixedpoint

import (
	"math"
	"strconv"

	"github.com/hwcc/hwcc/cc"
)

// LFSR32 is the random source of the switch's randomised decisions (the
// RED-style marker of DCQCN, cp.DCQCN; QCN's sampling jitter): a 32-bit
// maximal-length linear-feedback shift register in Galois form, as a
// switch pipeline implements it, so that the marking decisions of a run can be
// reproduced bit for bit by RTL.
//
// Polynomial: x^32 + x^22 + x^2 + x + 1, the 32-bit entry of Xilinx XAPP052's
// table of maximal-length taps (32, 22, 2, 1). Period 2^32 − 1: every non-zero
// 32-bit state is visited once per period (the tests check the polynomial is
// primitive over GF(2), and check the same step function's period
// exhaustively at 16 bits).
//
// One step (LFSR32.Step) shifts the register right by one bit; the bit shifted
// out is the output bit, and when it is 1 the register is XORed with
// LFSR32Taps (bit t−1 set for each tap t). The output bit stream obeys
//
//	a[k+32] = a[k] ⊕ a[k+10] ⊕ a[k+30] ⊕ a[k+31]
//
// (for each tap t < 32, a term a[k+32−t]): the stream of XAPP052's bit-serial
// Fibonacci register with the same taps, XOR form. The tests check this
// against a bit-serial Fibonacci reference.
//
// A draw (LFSR32.Next) advances the register by 32 steps and returns the
// whole register, so that successive draws do not share bits. RTL does the 32
// steps in one cycle as a fixed XOR network (a "leap-forward" LFSR); this
// model does the same with four 256-entry tables of that network, built once
// at package initialisation from Step.
//
// The state is never 0: 0 is the lock-up state that maps to itself, so
// NewLFSR32 rejects a zero seed. The zero LFSR32 value is not usable. It is
// a mechanism a part holds, not a cc part: it has no events, time or
// actions, so it keeps no cc interface.
type LFSR32 struct {
	state uint32
}

// LFSR32SeedMin and LFSR32SeedMax bound a seed (and the register): every
// non-zero 32-bit state; 0 is the lock-up state, which maps to itself.
const (
	LFSR32SeedMin uint32 = 1
	LFSR32SeedMax uint32 = math.MaxUint32
)

// LFSR32SeedRange is the range of a seed as errors state it, built from
// LFSR32SeedMin and LFSR32SeedMax.
func LFSR32SeedRange() string {
	return strconv.FormatUint(uint64(LFSR32SeedMin), 10) + ".." + strconv.FormatUint(uint64(LFSR32SeedMax), 10) +
		" (0 is the LFSR lock-up state)"
}

// LFSR32Taps is the Galois feedback mask of x^32 + x^22 + x^2 + x + 1: bits 31,
// 21, 1 and 0 (tap t sets bit t−1; the x^0 term is implicit).
const LFSR32Taps uint32 = 1<<31 | 1<<21 | 1<<1 | 1<<0 // 0x80200003

// lfsrLeap is the number of single steps one draw advances: the register
// width, so that consecutive draws use disjoint output bits.
const lfsrLeap = 32

// lfsrGaloisStep returns the register after one right-shifting Galois step
// with feedback mask taps. Only the low w bits are used when taps has its
// top set bit at w−1 and s < 2^w, so the same function serves every width up
// to 32 (the tests use it at 16 bits). Branch-free: −(s&1) is all ones when
// the output bit is 1.
func lfsrGaloisStep(s, taps uint32) uint32 {
	return s>>1 ^ -(s&1)&taps
}

// lfsrLeapTable[i][b] is the register after lfsrLeap steps from the state
// b<<(8·i). The step is linear over GF(2), so the state after lfsrLeap steps
// from s is the XOR of the four entries selected by the bytes of s.
var lfsrLeapTable = lfsrBuildLeapTable()

func lfsrBuildLeapTable() (t [4][256]uint32) {
	for i := range t {
		for b := range t[i] {
			s := uint32(b) << (8 * i)
			for range lfsrLeap {
				s = lfsrGaloisStep(s, LFSR32Taps)
			}
			t[i][b] = s
		}
	}
	return t
}

// NewLFSR32 returns a register holding seed. Seed 0, the lock-up state, is
// a *cc.ConfigError (LFSR32SeedRange).
func NewLFSR32(seed uint32) (LFSR32, error) {
	if seed < LFSR32SeedMin {
		return LFSR32{}, lfsrZeroSeed()
	}
	return LFSR32{state: seed}, nil
}

// lfsrZeroSeed is NewLFSR32's error. Errors are built out of line.
//
//go:noinline
func lfsrZeroSeed() error {
	return &cc.ConfigError{Part: "fixedpoint.LFSR32", Field: "seed", Value: "0", Range: LFSR32SeedRange()}
}

// State returns the register, always in 1..2^32−1 for a register built by
// NewLFSR32.
func (l LFSR32) State() uint32 { return l.state }

// Step advances the register by one bit and returns the output bit (0 or 1),
// the bit shifted out.
func (l *LFSR32) Step() uint32 {
	out := l.state & 1
	l.state = lfsrGaloisStep(l.state, LFSR32Taps)
	return out
}

// Next advances the register by 32 steps and returns the new register.
// Equivalent to 32 calls of Step. Since 32 and the period 2^32 − 1 are
// coprime, successive draws also visit every value in 1..2^32−1 exactly once
// per 2^32 − 1 draws: the draws are uniform over a period.
func (l *LFSR32) Next() uint32 {
	l.state = lfsrDraw(l.state)
	return l.state
}

// lfsrDraw returns the register lfsrLeap steps after s (the next draw):
// the XOR of the leap table's entries for the bytes of s.
func lfsrDraw(s uint32) uint32 {
	return lfsrLeapTable[0][s&0xFF] ^ lfsrLeapTable[1][s>>8&0xFF] ^
		lfsrLeapTable[2][s>>16&0xFF] ^ lfsrLeapTable[3][s>>24]
}
