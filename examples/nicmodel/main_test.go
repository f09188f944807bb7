package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hwcc/hwcc/hwtables"
	"github.com/hwcc/hwcc/units"
	"github.com/stretchr/testify/require"
)

// TestMeasureAgainstFloat checks the sender's integer view of every hop,
// including the one whose 20-bit txBytes counter wrapped, against the float
// rates the model was driven with.
func TestMeasureAgainstFloat(t *testing.T) {
	path := []hop{
		{id: 1, rate: 100 * units.Gbps, txBytes: 0, qlen: 0},
		{id: 2, rate: 40 * units.Gbps, txBytes: 3 * units.MB, qlen: 80 * units.KB},
		{id: 3, rate: 400 * units.Gbps, txBytes: 128*units.MiB - 1000, qlen: 1 * units.MB}, // wraps
	}
	sent := []units.Bytes{50 * units.KB, 60 * units.KB, 600 * units.KB}
	qlen := []units.Bytes{0, 80 * units.KB, 1 * units.MB}
	got, err := measure(path, sent, hpccT)
	require.NoError(t, err)
	bound := hwtables.DefaultReciprocal().Bound()
	for i, r := range got {
		rate := float64(sent[i]) * 8 / hpccT.Seconds() / 1e6 // Mb/s, the truth
		// The 20-bit counter counts whole 128 B units, so a delta can be off
		// by one unit: 128 B over 13 µs is 78.8 Mb/s.
		quant := 128 * 8 / hpccT.Seconds() / 1e6
		require.InDelta(t, rate, float64(r.exactMbps), quant+1, "hop %d exact rate", i)
		// The table divides with a relative error within Bound (rounding down
		// adds at most one Mb/s).
		hi := float64(r.exactMbps)*(1+bound.Over) + 1
		lo := float64(r.exactMbps)*(1-bound.Under) - 1
		require.True(t, float64(r.tableMbps) <= hi && float64(r.tableMbps) >= lo,
			"hop %d: table %d Mb/s outside [%f, %f]", i, r.tableMbps, lo, hi)
		// U = qlen/(B·T) + txRate/B: the quantisation of qlen (80 B), of
		// txBytes (128 B), the table's 0.8 % and the 2^-10 scale together
		// stay under 2 % of U plus 2^-9.
		b := float64(path[i].rate)
		u := float64(qlen[i])*8/(b*hpccT.Seconds()) + rate*1e6/b
		require.InDelta(t, u, float64(r.u)/uScale, 0.02*u+1.0/512, "hop %d U", i)
	}
}

func TestRunPrintsEveryHop(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(&out))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 4, out.String()) // a header and three hops
}
