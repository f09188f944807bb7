package fixedpoint

import (
	"errors"
	"math"
	"math/big"
	"testing"

	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"
)

// modelUnsigned is the big.Int model of an unsigned register: given the
// exact result v, it returns what the register must hold, or ok = false
// for a rejection.
func modelUnsigned(v *big.Int, width uint, policy Overflow) (uint64, bool) {
	maxV := new(big.Int).Sub(pow2(width), big.NewInt(1))
	if v.Sign() >= 0 && v.Cmp(maxV) <= 0 {
		return v.Uint64(), true
	}
	switch policy {
	case Wrap:
		return new(big.Int).Mod(v, pow2(width)).Uint64(), true // Mod is Euclidean: in [0, 2^w)
	case Saturate:
		if v.Sign() < 0 {
			return 0, true
		}
		return maxV.Uint64(), true
	}
	return 0, false
}

// modelSigned is the same for a two's-complement register.
func modelSigned(v *big.Int, width uint, policy Overflow) (int64, bool) {
	half := pow2(width - 1)
	lo := new(big.Int).Neg(half)
	hi := new(big.Int).Sub(half, big.NewInt(1))
	if v.Cmp(lo) >= 0 && v.Cmp(hi) <= 0 {
		return v.Int64(), true
	}
	switch policy {
	case Wrap:
		// ((v − lo) mod 2^w) + lo.
		m := new(big.Int).Sub(v, lo)
		m.Mod(m, pow2(width))
		return m.Add(m, lo).Int64(), true
	case Saturate:
		if v.Sign() < 0 {
			return lo.Int64(), true
		}
		return hi.Int64(), true
	}
	return 0, false
}

func TestNewRegisterValidation(t *testing.T) {
	for _, w := range []uint{0, 65, 1000} {
		_, err := NewRegister(w, Wrap)
		require.ErrorContains(t, err, "[1, 64]")
		_, err = NewSignedRegister(w, Wrap)
		require.ErrorContains(t, err, "[1, 64]")
	}
	_, err := NewRegister(8, Overflow(3))
	require.ErrorContains(t, err, "Overflow(3)")
	_, err = NewSignedRegister(8, Overflow(3))
	require.ErrorContains(t, err, "Overflow(3)")

	r, err := NewRegister(20, Saturate)
	require.NoError(t, err)
	require.Equal(t, uint(20), r.Width())
	require.Equal(t, Saturate, r.Policy())
	require.Equal(t, uint64(1<<20-1), r.Max())
	s, err := NewSignedRegister(12, Reject)
	require.NoError(t, err)
	require.Equal(t, int64(-2048), s.Min())
	require.Equal(t, int64(2047), s.Max())
}

func TestRegisterZeroValue(t *testing.T) {
	// The zero Register is a 64-bit wrapping register.
	var r Register
	require.Equal(t, uint(64), r.Width())
	require.Equal(t, Wrap, r.Policy())
	v, err := r.Add(-1)
	require.NoError(t, err)
	require.Equal(t, uint64(math.MaxUint64), v)
	var s SignedRegister
	require.Equal(t, uint(64), s.Width())
	_, _ = s.Set(math.MaxInt64)
	v2, err := s.Add(1)
	require.NoError(t, err)
	require.Equal(t, int64(math.MinInt64), v2)
}

func TestRegisterPolicies(t *testing.T) {
	// A 10-bit register holding 1000, plus 30: 1030 is 6 past the top.
	for _, c := range []struct {
		policy Overflow
		want   uint64
		err    bool
	}{{Wrap, 1030 - 1024, false}, {Saturate, 1023, false}, {Reject, 1000, true}} {
		r, err := NewRegister(10, c.policy)
		require.NoError(t, err)
		_, err = r.Set(1000)
		require.NoError(t, err)
		got, err := r.Add(30)
		require.Equal(t, c.want, got, c.policy.String())
		require.Equal(t, c.want, r.Value(), c.policy.String())
		if c.err {
			require.ErrorIs(t, err, ErrOverflow)
			var oe *OverflowError
			require.True(t, errors.As(err, &oe))
			require.Equal(t, uint(10), oe.Width())
			require.False(t, oe.Signed())
			require.Equal(t, "fixedpoint: value out of range of a 10-bit unsigned register [0, 1023]", err.Error())
		} else {
			require.NoError(t, err)
		}
	}
	s, err := NewSignedRegister(8, Reject)
	require.NoError(t, err)
	_, err = s.Set(128)
	require.EqualError(t, err, "fixedpoint: value out of range of a 8-bit signed register [-128, 127]")
	require.ErrorIs(t, err, ErrOverflow)
}

func TestRegisterProperties(t *testing.T) {
	p := props(t, 3000)
	p.Property("Register.Add matches the big.Int model", prop.ForAll(
		func(width uint, pol uint8, start uint64, delta int64) bool {
			r, err := NewRegister(width, Overflow(pol))
			if err != nil {
				return false
			}
			start &= mask(width)
			if _, err := r.Set(start); err != nil {
				return false
			}
			exact := new(big.Int).Add(bu(start), big.NewInt(delta))
			want, ok := modelUnsigned(exact, width, Overflow(pol))
			got, err := r.Add(delta)
			if !ok {
				return errors.Is(err, ErrOverflow) && got == start && r.Value() == start
			}
			return err == nil && got == want && r.Value() == want
		},
		gen.UIntRange(1, 64).WithLabel("width"),
		gen.UInt8Range(0, 2).WithLabel("policy"),
		gen.UInt64().WithLabel("start"),
		gen.OneGenOf(gen.Int64(), gen.Int64Range(-2048, 2048)).WithLabel("delta"),
	))
	p.Property("Register.Set matches the big.Int model", prop.ForAll(
		func(width uint, pol uint8, start, v uint64) bool {
			r, err := NewRegister(width, Overflow(pol))
			if err != nil {
				return false
			}
			start &= mask(width)
			_, _ = r.Set(start)
			want, ok := modelUnsigned(bu(v), width, Overflow(pol))
			got, err := r.Set(v)
			if !ok {
				return errors.Is(err, ErrOverflow) && got == start && r.Value() == start
			}
			return err == nil && got == want && r.Value() == want
		},
		gen.UIntRange(1, 64).WithLabel("width"),
		gen.UInt8Range(0, 2).WithLabel("policy"),
		gen.UInt64().WithLabel("start"),
		gen.UInt64().WithLabel("v"),
	))
	p.Property("SignedRegister.Add matches the big.Int model", prop.ForAll(
		func(width uint, pol uint8, start, delta int64) bool {
			r, err := NewSignedRegister(width, Overflow(pol))
			if err != nil {
				return false
			}
			// Bring start into range by wrapping it (via the model).
			s, _ := modelSigned(big.NewInt(start), width, Wrap)
			if _, err := r.Set(s); err != nil {
				return false
			}
			exact := new(big.Int).Add(big.NewInt(s), big.NewInt(delta))
			want, ok := modelSigned(exact, width, Overflow(pol))
			got, err := r.Add(delta)
			if !ok {
				return errors.Is(err, ErrOverflow) && got == s && r.Value() == s
			}
			return err == nil && got == want && r.Value() == want
		},
		gen.UIntRange(1, 64).WithLabel("width"),
		gen.UInt8Range(0, 2).WithLabel("policy"),
		gen.Int64().WithLabel("start"),
		gen.OneGenOf(gen.Int64(), gen.Int64Range(-2048, 2048)).WithLabel("delta"),
	))
	p.Property("SignedRegister.Set matches the big.Int model", prop.ForAll(
		func(width uint, pol uint8, v int64) bool {
			r, err := NewSignedRegister(width, Overflow(pol))
			if err != nil {
				return false
			}
			want, ok := modelSigned(big.NewInt(v), width, Overflow(pol))
			got, err := r.Set(v)
			if !ok {
				return errors.Is(err, ErrOverflow) && got == 0 && r.Value() == 0
			}
			return err == nil && got == want && r.Value() == want
		},
		gen.UIntRange(1, 64).WithLabel("width"),
		gen.UInt8Range(0, 2).WithLabel("policy"),
		gen.OneGenOf(gen.Int64(), gen.Int64Range(-4096, 4096)).WithLabel("v"),
	))
	p.TestingRun(t)
}

// TestRegisterAddEdges covers the int64 extremes that random draws rarely
// hit, against the same big.Int model.
func TestRegisterAddEdges(t *testing.T) {
	deltas := []int64{math.MinInt64, math.MinInt64 + 1, -1, 0, 1, math.MaxInt64}
	for _, w := range []uint{1, 2, 63, 64} {
		for pol := Wrap; pol <= Reject; pol++ {
			for _, start := range []uint64{0, 1, mask(w) / 2, mask(w)} {
				for _, d := range deltas {
					r, err := NewRegister(w, pol)
					require.NoError(t, err)
					_, err = r.Set(start)
					require.NoError(t, err)
					want, ok := modelUnsigned(new(big.Int).Add(bu(start), big.NewInt(d)), w, pol)
					got, err := r.Add(d)
					if ok {
						require.NoError(t, err)
						require.Equal(t, want, got, "w=%d %v start=%d d=%d", w, pol, start, d)
					} else {
						require.ErrorIs(t, err, ErrOverflow)
						require.Equal(t, start, got)
					}
				}
			}
			for _, start := range []int64{minSigned(w), -1, 0, maxSigned(w)} {
				for _, d := range deltas {
					r, err := NewSignedRegister(w, pol)
					require.NoError(t, err)
					_, err = r.Set(start)
					require.NoError(t, err)
					want, ok := modelSigned(new(big.Int).Add(big.NewInt(start), big.NewInt(d)), w, pol)
					got, err := r.Add(d)
					if ok {
						require.NoError(t, err)
						require.Equal(t, want, got, "w=%d %v start=%d d=%d", w, pol, start, d)
					} else {
						require.ErrorIs(t, err, ErrOverflow)
						require.Equal(t, start, got)
					}
				}
			}
		}
	}
}
