package algos

import (
	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
)

// Regression tests: rp.DCQCN's α follows the paper's equation (6),
// α ← (1 − g)·α per period without a CNP (survey section 4.1.2; rp/dcqcn.go
// writes dce_tcp_g = 1024·(1 − g)), which its register operation
// implements.
//
// With α in a 10-bit Q10 register (rp.DCQCNConfig.AlphaFracBits = 10) the
// update ⌊dce_tcp_g·α/1024⌋ every dce_tcp_rtt loses up to one LSB per
// period; with dce_tcp_g = 1019 the exact decrement α·5/1024 is below one
// LSB for every α < 205, so α falls by a full LSB every period (1 µs)
// instead of by 0.5 % of itself: after one CNP and 50, 100, 300, 600 µs
// without, equation (6) gives 800.9, 627.0, 235.6, 54.3 (Q10 units) and the
// Q10 register held 782, 590, 166, 0. In the harness α was pinned within a
// few LSBs of 0 whenever CNPs were more than about 5 µs apart (each CNP
// period adds 1024 − g = 5, each quiet period removes ≥ 1), so decreases cut
// almost nothing, and the dcqcn-incast re-ramp peak reached 2.62 MB. The
// presets now keep α in 20 bits (the vendor's Q10 parameters scaled by
// 2^10), which follows equation (6).
//
// After one CNP (α = initial_alpha_value = 1023) and 50, 100, 300, 600
// periods without, α against equation (6), 1023·(dce_tcp_g/1024)^n.
//
// Tolerance (rp/dcqcn.go's bound): each period's floor loses less than one
// LSB of the 20-bit register, 2^−10 Q10 units, and earlier losses shrink by
// g/1024 per period, so the register (AlphaRaw/2^10, in Q10 units) is below
// the real value by less than 2^−10·1024/(1024 − 1019) = 0.2 and never above
// it; Alpha(), the Q10 view, floors once more: less than 1.2 below, never
// above. The Q10 register missed by 19 to 70 units.
func TestDCQCNRPAlphaDecayFollowsEquation6(t *testing.T) {
	cfg := rp.DCQCNConnectX(25 * units.Gbps)
	require.Equal(t, uint8(rp.DCQCNAlphaFracBitsDefault), cfg.AlphaFracBits)
	scale := math.Ldexp(1, int(cfg.AlphaFracBits)-10) // LSBs per Q10 unit
	eA := 1024 / (1024 - float64(cfg.DceTCPG)) / scale
	d, err := rp.NewDCQCN(cfg)
	require.NoError(t, err)
	require.NoError(t, d.Feedback(0, &cc.Feedback{Kind: cc.FeedbackCNP}, nil)) // first CNP: α = initial_alpha_value
	a0 := float64(d.Alpha())
	require.Equal(t, float64(cfg.InitialAlphaValue), a0)
	r := float64(cfg.DceTCPG) / 1024 // 1 − the paper's g
	for _, periods := range []int{50, 100, 300, 600} {
		require.NoError(t, d.Timer(units.Time(periods)*cfg.DceTCPRtt, nil))
		want := a0 * math.Pow(r, float64(periods))
		raw := float64(d.AlphaRaw()) / scale
		q10 := float64(d.Alpha())
		t.Logf("%d µs: equation (6) %.2f, register %.3f, Q10 view %.0f", periods, want, raw, q10)
		require.LessOrEqual(t, raw, want+1e-9, "%d µs: the register never rounds up", periods)
		require.Greater(t, raw, want-eA, "%d µs: register within %.2f of equation (6)", periods, eA)
		require.LessOrEqual(t, q10, want+1e-9, "%d µs: Q10 view", periods)
		require.Greater(t, q10, want-eA-1, "%d µs: Q10 view within %.2f of equation (6)", periods, eA+1)
	}
}

// The register width is the parameter alpha_frac_bits: it reaches the
// RP's configuration, its range is the description's (an error names the
// parameter and its range), and at 10 the scheme's RP is the Q10 register
// again: after one CNP α follows ⌊1019·α/1024⌋ period by period (Go's
// integer division, truncating), 782, 590, 166 and 0 after 50, 100, 300
// and 600 µs.
func TestDCQCNAlphaFracBitsParam(t *testing.T) {
	a := ccAlgo(t, dcqcnName)
	for _, bits := range []uint8{10, 16, 24} {
		_, _, c := dcqcnParts(t, 25*units.Gbps, map[string]string{"alpha_frac_bits": strconv.Itoa(int(bits))})
		want := rp.DCQCNConnectX(25 * units.Gbps)
		want.AlphaFracBits = bits
		require.Equal(t, want, c)
	}
	for _, v := range []string{"9", "25", "x"} {
		err := a.ValidateParams(map[string]string{"alpha_frac_bits": v})
		var ce *cc.ConfigError
		require.ErrorAs(t, err, &ce, v)
		require.Equal(t, "alpha_frac_bits", ce.Field)
		require.Equal(t, v, ce.Value)
		require.Equal(t, "a whole number in 10..24", ce.Range)
	}

	r, err := flowRP(dcqcnName, testFlow{ID: 1, LineRate: 25 * units.Gbps}, map[string]string{"alpha_frac_bits": "10"})
	require.NoError(t, err)
	d := r.(*rp.DCQCN)
	require.NoError(t, d.Feedback(0, &cc.Feedback{Kind: cc.FeedbackCNP}, nil))
	alpha := uint64(1023)
	var got, want []uint64
	for n := 1; n <= 600; n++ {
		alpha = alpha * 1019 / 1024
		if n == 50 || n == 100 || n == 300 || n == 600 {
			require.NoError(t, d.Timer(units.Time(n)*units.Microsecond, nil))
			got, want = append(got, uint64(d.Alpha())), append(want, alpha)
		}
	}
	require.Equal(t, want, got)
	require.Equal(t, []uint64{782, 590, 166, 0}, want, "the values the Q10 register was reported to hold")
}

// In dcqcn-incast (connectx preset) the first peak of the queue, within
// 200 µs of the incast's start, comes from the first CNPs, while every
// flow gets one in each 1 µs α period: the first CNP of each flow sets α =
// initial_alpha_value in both registers (the long flow had none before:
// alone, paced at the port's rate, it builds no queue), and a CNP in every
// period keeps α's Q10 view at 1023 in both, so the cuts differ by at most
// RC·5/2^21 < 1 unit (1 Mb/s) per decrease: over 200 µs a few Mb/s move
// the queue by well under one 1082-byte frame, the tolerance. After it the
// flows' CNPs are tens of µs apart, and with the Q10 register α sits within
// a few LSBs of 0 between them (each CNP period adds 5, each quiet µs
// removes at least 1), so the decreases cut almost nothing and the rates
// re-ramp into a second, higher peak. With α following equation (6) the
// whole run's peak is below the Q10 run's (measured: 0.87 MB against 2.62
// MB; the first peaks 558 KB in both).
func TestDCQCNIncastPeakBelowQ10Register(t *testing.T) {
	peaks := map[string][2]units.Bytes{}
	for _, bits := range []string{"20", "10"} {
		res := dcqcnRun(t, dcqcnBuiltin(t, dcqcnIncastName, "param.alpha_frac_bits="+bits))
		at := units.Time(res.Scenario.MeasureFrom)
		first := dcqcnQueueQuantiles(t, res, "s0->h0", at, at+200*units.Microsecond, 1)[0]
		peaks[bits] = [2]units.Bytes{first, dcqcnPort(t, res, "s0->h0").MaxBytes}
		t.Logf("α register %s bits: first peak %v, peak %v", bits, first, peaks[bits][1])
	}
	const frame = 1082 // wire bytes of a 1000-byte payload frame
	require.InDelta(t, float64(peaks["10"][0]), float64(peaks["20"][0]), frame, "the first peak does not depend on α's low bits")
	require.Less(t, peaks["20"][1], peaks["10"][1])
}
