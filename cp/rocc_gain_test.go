package cp

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRoCCGainsAsIntegers: line 8's two integer multiplies equal the CSD
// shift-add sums the hardware computes, for the presets and random gains,
// over random errors e1, e2 in the range the 16-bit queue register gives
// (|e| < 2^17).
func TestRoCCGainsAsIntegers(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	cfgs := []RoCCConfig{RoCC40G(), RoCC100G()}
	for range 50 {
		c := RoCC40G()
		c.AlphaBar = 0.001 + rng.Float64()*2
		c.BetaBar = 0.001 + rng.Float64()*20
		cfgs = append(cfgs, c)
	}
	for _, c := range cfgs {
		p, err := NewRoCCParams(c)
		require.NoError(t, err)
		for range 2000 {
			e1 := rng.Int63n(1<<18) - 1<<17
			e2 := rng.Int63n(1<<18) - 1<<17
			want := p.alpha.Mul(e1<<p.g) + p.beta.Mul(e2<<p.g)
			require.Equal(t, want, p.alphaG*e1+p.betaG*e2, "α %v β %v e1 %d e2 %d", c.AlphaBar, c.BetaBar, e1, e2)
		}
	}
}
