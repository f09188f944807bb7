package cp

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHierCCMulShift16: ⌊a·b/2^16⌋ saturated at 2^63, against math/big on random
// operands of every magnitude and the edges around the saturation point.
func TestHierCCMulShift16(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 63))
	ceil := new(big.Int).Lsh(big.NewInt(1), 63)
	ops := [][2]uint64{{0, 0}, {1, 1 << 16}, {1 << 39, 1 << 40}, {1<<39 - 1, 1 << 40}, {1<<40 + 1, 1 << 39}, {^uint64(0), ^uint64(0)}}
	for range 5000 {
		ops = append(ops, [2]uint64{rng.Uint64() >> rng.UintN(64), rng.Uint64() >> rng.UintN(64)})
	}
	for _, op := range ops {
		x := new(big.Int).Mul(new(big.Int).SetUint64(op[0]), new(big.Int).SetUint64(op[1]))
		x.Rsh(x, 16)
		if x.Cmp(ceil) > 0 {
			x.Set(ceil)
		}
		require.Equal(t, x.Uint64(), hierccMulShift16(op[0], op[1]), "%d·%d", op[0], op[1])
	}
}
