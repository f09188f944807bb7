package rp

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/units"
)

// The HPCC preset decreases on the grid of the HPCC authors' ns-3
// ([HPCC-ns3]). Their RdmaHw::cnp_received_mlx
// schedules CheckRateDecreaseMlx rate_reduce_monitor_period (+1 ns) after
// the first CNP, and the check reschedules itself every period and cuts
// once if any CNP arrived since the previous check. So a burst of CNPs
// every 1 µs from 0 to 10 µs (11 CNPs) with a 4 µs period is cut at 4, 8
// and 12 µs: three cuts, the CNPs of [0, 4), [4, 8) and [8, 12) each
// collapsed into one (a CNP at exactly 4 or 8 µs arrives after that
// point's check, hwcc's same-picosecond order). Worked by hand from that
// rule, not from the code.
func TestDCQCNHPCCSimDecreasesOnTheGrid(t *testing.T) {
	d, err := NewDCQCN(DCQCNHPCCSim(25 * units.Gbps))
	require.NoError(t, err)
	var cuts []units.Time
	last := uint64(0)
	watch := func(now units.Time) {
		if s := d.State(); s.Decreases != last {
			require.Equal(t, last+1, s.Decreases, "one cut per step at most")
			last = s.Decreases
			cuts = append(cuts, s.LastDecrease)
		}
	}
	// Step every 1 µs, the CNP after the timers of its picosecond.
	for now := units.Time(0); now <= 20*dcqcnUs; now += dcqcnUs {
		require.NoError(t, d.onTimer(now))
		watch(now)
		if now <= 10*dcqcnUs {
			require.NoError(t, d.onCNP(now))
			watch(now)
		}
	}
	require.Equal(t, []units.Time{4 * dcqcnUs, 8 * dcqcnUs, 12 * dcqcnUs}, cuts)
}

// dcqcnCuts drives d with CNPs at the given times, calling onTimer at every
// deadline in between (and up to end), and returns the times of the cuts
// and RC after each, read from the registers after every call.
func dcqcnCuts(t *testing.T, d *DCQCN, cnps []units.Time, end units.Time) (at []units.Time, rc []uint32) {
	t.Helper()
	seen := d.State().Decreases
	look := func() {
		s := d.State()
		if s.Decreases == seen {
			return
		}
		require.Equal(t, seen+1, s.Decreases, "one cut per call at most here")
		seen = s.Decreases
		at, rc = append(at, s.LastDecrease), append(rc, s.RC)
	}
	fire := func(until units.Time) {
		for dl := d.NextDeadline(); dl <= until; dl = d.NextDeadline() {
			require.NoError(t, d.onTimer(dl))
			look()
		}
	}
	for _, c := range cnps {
		fire(c)
		require.NoError(t, d.onCNP(c))
		look()
	}
	fire(end)
	return at, rc
}

// The two decrease schedules on one hand-worked sequence. ConnectX at 100
// Gb/s (RC counts Mb/s, 100000 at the start) with rpg_gd = 10 and
// rpg_min_dec_fac = 50, so that every cut is exactly the min_dec_fac bound
// while α ≥ 1/2: cut = min(⌊RC·α⌋, ⌊RC·50/100⌋) = ⌊RC/2⌋ and RC ← ⌈RC/2⌉
// (α starts at 1023/1024 and, with a CNP every µs and then 10 quiet µs at
// g = 1019/1024, stays above 0.9). The increase timer (300 µs) and the
// byte counter (no bytes sent) stay out of it. P = 4 µs.
//
// CNPs every 1 µs from 0 to 10 µs, then at 21.5 and 22.5 µs.
//
// Spacing (the default): the first CNP cuts at once (0); the CNP at 1 µs
// is within P of it, so one cut waits for 4 µs; the CNP at 4 µs comes
// after that cut (same-picosecond order) and waits for 8, the one at 8 for
// 12; 21.5 is 9.5 µs after the cut at 12, so it cuts at once, and 22.5
// waits for 25.5. Six cuts: 0, 4, 8, 12, 21.5, 25.5 µs; RC 50000, 25000,
// 12500, 6250, 3125, 1563.
//
// Grid: cuts only at 4, 8, 12, ... µs, each for the CNPs since the
// previous point: [0, 4) → 4, [4, 8) → 8, [8, 12) → 12, nothing for 16 and
// 20, [20, 24) → 24. Four cuts: 4, 8, 12, 24 µs; RC 50000, 25000, 12500,
// 6250. The burst of 0..10 µs gets one cut fewer (3 against 4), and the
// CNP at 21.5 µs waits 2.5 µs for its grid point.
func TestDCQCNDecreaseSchedules(t *testing.T) {
	var cnps []units.Time
	for us := units.Time(0); us <= 10; us++ {
		cnps = append(cnps, us*dcqcnUs)
	}
	cnps = append(cnps, 21*dcqcnUs+dcqcnUs/2, 22*dcqcnUs+dcqcnUs/2)
	for _, tc := range []struct {
		mode DCQCNRateReduceMode
		at   []units.Time
		rc   []uint32
	}{
		{DCQCNReduceSpacing,
			[]units.Time{0, 4 * dcqcnUs, 8 * dcqcnUs, 12 * dcqcnUs, 21*dcqcnUs + dcqcnUs/2, 25*dcqcnUs + dcqcnUs/2},
			[]uint32{50000, 25000, 12500, 6250, 3125, 1563}},
		{DCQCNReduceGrid,
			[]units.Time{4 * dcqcnUs, 8 * dcqcnUs, 12 * dcqcnUs, 24 * dcqcnUs},
			[]uint32{50000, 25000, 12500, 6250}},
	} {
		cfg := DCQCNConnectX(100 * units.Gbps)
		cfg.RpgGd, cfg.RpgMinDecFac = 10, 50
		cfg.RateReduceMode = tc.mode
		d, err := NewDCQCN(cfg)
		require.NoError(t, err)
		at, rc := dcqcnCuts(t, d, cnps, 40*dcqcnUs)
		require.Equal(t, tc.at, at, tc.mode.String())
		require.Equal(t, tc.rc, rc, tc.mode.String())
		require.Greater(t, d.Alpha(), fixedpoint.UQ0_10(512), "α stayed above 1/2: the bound decided every cut")
	}
	require.Equal(t, DCQCNReduceSpacing, DCQCNConnectX(100*units.Gbps).RateReduceMode, "the default")
	require.Equal(t, DCQCNReduceSpacing, DCQCNPaper(100*units.Gbps).RateReduceMode)
	require.Equal(t, DCQCNReduceGrid, DCQCNHPCCSim(100*units.Gbps).RateReduceMode)
}

// On the grid, a first CNP that sets the rate (rate_to_set_on_first_cnp)
// is not cut again: the next cut is for the CNP at 1 µs, at the first grid
// point, 4 µs; it halves 30000 to 15000 (the bound of
// TestDCQCNDecreaseSchedules). With a period of 0 both schedules cut at
// every CNP.
func TestDCQCNDecreaseGridFirstRate(t *testing.T) {
	cfg := DCQCNConnectX(100 * units.Gbps)
	cfg.RpgGd, cfg.RpgMinDecFac = 10, 50
	cfg.RateReduceMode = DCQCNReduceGrid
	cfg.RateToSetOnFirstCNP = 30 * units.Gbps
	d, err := NewDCQCN(cfg)
	require.NoError(t, err)
	at, rc := dcqcnCuts(t, d, []units.Time{0, dcqcnUs}, 10*dcqcnUs)
	require.Equal(t, []units.Time{4 * dcqcnUs}, at)
	require.Equal(t, []uint32{15000}, rc)

	for _, mode := range []DCQCNRateReduceMode{DCQCNReduceSpacing, DCQCNReduceGrid} {
		cfg := DCQCNConnectX(100 * units.Gbps)
		cfg.RpgGd, cfg.RpgMinDecFac = 10, 50
		cfg.RateReduceMode, cfg.RateReduceMonitorPeriod = mode, 0
		d, err := NewDCQCN(cfg)
		require.NoError(t, err)
		at, rc := dcqcnCuts(t, d, []units.Time{0, 1, 2}, 10*dcqcnUs)
		require.Equal(t, []units.Time{0, 1, 2}, at, mode.String())
		require.Equal(t, []uint32{50000, 25000, 12500}, rc, mode.String())
	}
}

// The α timer delays α's +g, equation (6)'s α ← (1 − g)·α + g, to its next
// tick: with the paper's K = 55 µs (DCQCNPaper, g = 1/256, dce_tcp_g 1020)
// a CNP at 10 µs, after the first at 0, leaves α at initial_alpha_value
// (1023·2^10 in the 20-bit register) until 55 µs, where by hand
// ⌊1047552·1020/1024⌋ + 4·2^10 = 1043460 + 4096 = 1047556.
func TestDCQCNAlphaTimerDelaysPlusG(t *testing.T) {
	d, err := NewDCQCN(DCQCNPaper(25 * units.Gbps))
	require.NoError(t, err)
	require.NoError(t, d.onCNP(0))
	require.NoError(t, d.onCNP(10*dcqcnUs))
	require.NoError(t, d.onTimer(55*dcqcnUs-1))
	require.Equal(t, uint32(1047552), d.AlphaRaw(), "no +g before the tick")
	require.True(t, d.State().AlphaCNPArrived)
	require.NoError(t, d.onTimer(55*dcqcnUs))
	require.Equal(t, uint32(1047556), d.AlphaRaw())
}
