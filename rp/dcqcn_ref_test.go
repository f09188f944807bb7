package rp

import (
	"math"

	"github.com/hwcc/hwcc/units"
)

// dcqcnRef is a float64 reference model of the DCQCN reaction point: the
// paper's equations (survey section 4.1.2, (5)–(8)) with real-valued α and
// rates, driven by the same event and timer schedule as DCQCN (the schedule
// is part of the specification, not of the arithmetic). Its α timer never
// idles and its increase timer never stops; DCQCN's idling skips only ticks
// that cannot change its registers.
//
// Alongside the model it propagates a worst-case bound on the distance
// between DCQCN's registers and the model's values, using only the model's
// values and the configuration:
//
//   - α, in Q10 units (the register divided by S = 2^(f−10), f =
//     AlphaFracBits): the first CNP sets initial_alpha_value·S exactly
//     (eA = 0). A tick computes ⌊g·α/1024⌋ (+ (1024 − g)·S) in the register
//     against g·α/1024 (+ 1024 − g) in Q10 units: the floor loses less than
//     one LSB of the register, 1/S Q10 units, and the error already there
//     is scaled by g/1024; the saturation at 2^f − 1, reachable only at
//     g = 0, loses exactly one LSB. So eA' = (g/1024)·eA + 1/S, hence
//     eA ≤ min(n, 1024/(1024 − g))/S after n ticks. With the Q10 register
//     (S = 1) this is the old bound, up to 1024/(1024 − g) Q10 units (205 at
//     g = 1019); at f = 20 it is 0.2 Q10 units at g = 1019, and at most 1
//     Q10 unit for any g. The Q10 view (Alpha) floors once more: less than
//     one unit further below.
//   - RC after a decrease: RC − ⌊RC·α·c⌋ (α in Q10 units: the cut is
//     RC·AlphaRaw >> (rpg_gd + f − 10), one floor) against R(1 − a·c)
//     (c = 2^-rpg_gd, a = 1024·α_model) differs by at most
//     eR·|1 − a·c| + (R + eR)·eA·c + 1, which tightens with eA;
//     the min_dec_fac branch RC − ⌊RC·keep/100⌋ against R·f/100 by at most
//     eR·f/100 + 1; the result is the larger of the two branches, floored at
//     the minimum rate, both 1-Lipschitz, so eR' = max of the two.
//   - RT ← RC copies the bound: eT = eR.
//   - An increase RT' = min(RT + S, max) keeps eT; RC' = ⌈(RC + RT')/2⌉
//     against (R + T')/2 gives eR' = (eR + eT)/2 + 1/2.
//
// The tests require |DCQCN − model| ≤ bound after every event.
type dcqcnRef struct {
	cfg                        DCQCNConfig
	maxR, minR, ai, hai, first float64 // rate units
	g                          float64 // dce_tcp_g/1024: α's retention per tick
	c                          float64 // 2^-rpg_gd
	lsb                        float64 // 2^(10−f): the α register's LSB in Q10 units
	keep                       float64 // (100 − rpg_min_dec_fac)/100: the largest cut fraction
	byteReset                  uint64

	active, flag, pending, decreased bool
	rc, rt, alpha                    float64 // alpha in [0, 1]
	t, b                             uint64
	bytes                            uint64
	nextAlpha, nextInc, nextDec      units.Time
	lastDec                          units.Time
	anchor                           units.Time // the first CNP: the decrease grid's origin

	eA, eR, eT float64
}

func newDCQCNRef(cfg DCQCNConfig) *dcqcnRef {
	u := float64(cfg.RateUnit)
	m := &dcqcnRef{
		cfg:       cfg,
		maxR:      float64(cfg.MaxRate()) / u,
		minR:      float64(cfg.RpgMinRate) / u,
		ai:        float64(cfg.RpgAIRate) / u,
		hai:       float64(cfg.RpgHAIRate) / u,
		first:     float64(cfg.RateToSetOnFirstCNP) / u,
		g:         float64(cfg.DceTCPG) / 1024,
		c:         math.Ldexp(1, -int(cfg.RpgGd)),
		lsb:       math.Ldexp(1, 10-int(cfg.AlphaFracBits)),
		keep:      float64(100-int(cfg.RpgMinDecFac)) / 100,
		byteReset: uint64(cfg.RpgByteReset),
		nextAlpha: units.MaxTime,
		nextInc:   units.MaxTime,
	}
	m.rc, m.rt = m.maxR, m.maxR
	return m
}

func (m *dcqcnRef) phaseStep() float64 {
	t, b := m.t, m.b
	if m.byteReset == 0 {
		b = t
	}
	f := uint64(m.cfg.RpgThreshold)
	switch {
	case min(t, b) > f:
		return m.hai
	case max(t, b) >= f:
		return m.ai
	}
	return 0
}

func (m *dcqcnRef) increase() {
	// Additive / hyper: RT ← RT + R_AI or R_HAI (clamped); all phases:
	// RC ← (RC + RT)/2 (equations (7), (8)).
	m.rt = math.Min(m.rt+m.phaseStep(), m.maxR)
	m.rc = (m.rc + m.rt) / 2
	m.eR = (m.eR+m.eT)/2 + 0.5
}

func (m *dcqcnRef) alphaTick() {
	// α ← (1 − g)α + g·1{CNP} in the paper's notation, g_paper = 1 − g here.
	f := 0.0
	if m.flag {
		f = 1
	}
	m.alpha = m.g*m.alpha + (1-m.g)*f
	m.flag = false
	m.eA = m.g*m.eA + m.lsb
}

func (m *dcqcnRef) restart(t units.Time) {
	m.t, m.b, m.bytes = 0, 0, 0
	m.nextInc = t + m.cfg.RpgTimeReset
	m.decreased, m.lastDec = true, t
	m.pending = false
}

func (m *dcqcnRef) decrease(t units.Time) {
	if m.cfg.ClampTgtRate || m.b > 0 || (m.cfg.ClampTgtRateAfterTimeInc && m.t > 0) {
		m.rt, m.eT = m.rc, m.eR
	}
	a := m.alpha * 1024
	// RC ← RC(1 − α/2) (equation (5)), α/2 generalised to α·2^(10−gd),
	// and the cut bounded by a fraction keep of RC.
	x := m.rc * (1 - a*m.c)
	y := m.rc * (1 - m.keep)
	xErr := m.eR*math.Abs(1-a*m.c) + (m.rc+m.eR)*m.eA*m.c + 1
	yErr := m.eR*(1-m.keep) + 1
	m.rc = math.Max(math.Max(x, y), m.minR)
	m.eR = math.Max(xErr, yErr)
	m.restart(t)
}

func (m *dcqcnRef) advance(now units.Time) {
	for {
		bound := now
		decDue := m.pending && m.nextDec <= now
		if decDue {
			bound = m.nextDec
		}
		for m.active && m.nextAlpha <= bound {
			m.alphaTick()
			m.nextAlpha += m.cfg.DceTCPRtt
		}
		for m.active && m.nextInc <= bound {
			m.increase()
			m.t++
			m.nextInc += m.cfg.RpgTimeReset
		}
		if !decDue {
			return
		}
		m.decrease(m.nextDec)
	}
}

func (m *dcqcnRef) cnp(now units.Time) {
	m.advance(now)
	period := m.cfg.RateReduceMonitorPeriod
	grid := m.cfg.RateReduceMode == DCQCNReduceGrid && period > 0
	if !m.active {
		m.active = true
		m.alpha = float64(m.cfg.InitialAlphaValue) / 1024
		m.eA = 0
		m.anchor = now
		m.nextAlpha = now + m.cfg.DceTCPRtt
		switch {
		case m.first != 0:
			m.rc, m.rt, m.eR, m.eT = m.first, m.first, 0, 0
			m.restart(now)
		case grid:
			// The grid's first point, anchor + period.
			m.pending, m.nextDec = true, now+period
		default:
			m.decrease(now)
		}
		return
	}
	m.flag = true
	if m.pending {
		return
	}
	if grid {
		// The first grid point anchor + k·period after now, found by
		// walking the grid (no remainder arithmetic, unlike DCQCN).
		t := m.anchor + period
		for t <= now {
			t += period
		}
		m.pending, m.nextDec = true, t
		return
	}
	if due := m.lastDec + period; !m.decreased || now >= due {
		m.decrease(now)
	} else {
		m.pending, m.nextDec = true, due
	}
}

func (m *dcqcnRef) send(now units.Time, n units.Bytes) {
	m.advance(now)
	if !m.active || m.byteReset == 0 {
		return
	}
	m.bytes += uint64(n)
	for m.bytes >= m.byteReset {
		m.bytes -= m.byteReset
		m.increase()
		m.b++
	}
}
