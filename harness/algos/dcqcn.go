package algos

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/np"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
)

// dcqcnName is the registry name.
const dcqcnName = "dcqcn"

// Preset names.
const (
	dcqcnPresetConnectX = "connectx"
	dcqcnPresetPaper    = "paper"
	dcqcnPresetHPCC     = "hpcc"
	// dcqcnDefaultPreset: see "Why connectx is the default" in the
	// package documentation (DCQCN parameters).
	dcqcnDefaultPreset = dcqcnPresetConnectX
)

// NP rule names (param.np).
const (
	dcqcnNPSlot     = "slot"
	dcqcnNPInterval = "interval"
)

// Parameter names of the CP and NP.
const (
	dcqcnParamPreset      = "preset"
	dcqcnParamKmin        = "kmin"
	dcqcnParamKmax        = "kmax"
	dcqcnParamPmax        = "pmax"
	dcqcnParamNP          = "np"
	dcqcnParamCNPInterval = "cnp_interval"
	dcqcnParamMark        = "mark"
)

// Marking points (param.mark).
const (
	dcqcnMarkEnqueue = "enqueue"
	dcqcnMarkDequeue = "dequeue"
	// dcqcnDefaultMark: see the package documentation, DCQCN in the
	// harness, for why dequeue.
	dcqcnDefaultMark = dcqcnMarkDequeue
)

// dcqcnParseMark reads param.mark: true for dequeue.
func dcqcnParseMark(v string) (dequeue bool, err error) {
	switch strings.ToLower(v) {
	case dcqcnMarkEnqueue:
		return false, nil
	case dcqcnMarkDequeue:
		return true, nil
	}
	return false, fmt.Errorf("want %s or %s", dcqcnMarkEnqueue, dcqcnMarkDequeue)
}

// dcqcnPmaxScale is 1.0 in the Q0.16 format of cp.DCQCNConfig.Pmax.
const dcqcnPmaxScale = cp.DCQCNPmaxOne

// dcqcnSeedMix is the odd constant (2^32/φ) that spreads CP IDs over LFSR
// seeds: seed = DCQCNDefaultSeed XOR (id + 1)·dcqcnSeedMix mod 2^32.
const dcqcnSeedMix = 0x9E3779B1

// dcqcnRPKey is one rp.DCQCNConfig field exposed as a parameter: set
// parses v and stores it in c, or returns what a valid value is.
type dcqcnRPKey struct {
	name  string // the ConnectX parameter (rp_alpha_frac_bits: see the package documentation)
	field string // the rp.DCQCNConfig field, as its errors name it
	set   func(c *rp.DCQCNConfig, v string) error
}

// dcqcnRPKeys are the RP parameters, sorted by name.
var dcqcnRPKeys = []dcqcnRPKey{
	{"clamp_tgt_rate", "ClampTgtRate", func(c *rp.DCQCNConfig, v string) error { return dcqcnSetBool(&c.ClampTgtRate, v) }},
	{"clamp_tgt_rate_after_time_inc", "ClampTgtRateAfterTimeInc", func(c *rp.DCQCNConfig, v string) error { return dcqcnSetBool(&c.ClampTgtRateAfterTimeInc, v) }},
	{"dce_tcp_g", "DceTCPG", func(c *rp.DCQCNConfig, v string) error {
		n, err := dcqcnInt(v, 0, int64(fixedpoint.UQ0_10Max))
		c.DceTCPG = fixedpoint.UQ0_10(n)
		return err
	}},
	{"dce_tcp_rtt", "DceTCPRtt", func(c *rp.DCQCNConfig, v string) error { return dcqcnSetTime(&c.DceTCPRtt, v) }},
	{"initial_alpha_value", "InitialAlphaValue", func(c *rp.DCQCNConfig, v string) error {
		n, err := dcqcnInt(v, 0, int64(fixedpoint.UQ0_10Max))
		c.InitialAlphaValue = fixedpoint.UQ0_10(n)
		return err
	}},
	{"rate_reduce_monitor_period", "RateReduceMonitorPeriod", func(c *rp.DCQCNConfig, v string) error { return dcqcnSetTime(&c.RateReduceMonitorPeriod, v) }},
	{"rate_to_set_on_first_cnp", "RateToSetOnFirstCNP", func(c *rp.DCQCNConfig, v string) error { return dcqcnSetRate(&c.RateToSetOnFirstCNP, v) }},
	{"rp_alpha_frac_bits", "AlphaFracBits", func(c *rp.DCQCNConfig, v string) error {
		n, err := dcqcnInt(v, 0, math.MaxUint8)
		c.AlphaFracBits = uint8(n)
		return err
	}},
	{"rpg_ai_rate", "RpgAIRate", func(c *rp.DCQCNConfig, v string) error { return dcqcnSetRate(&c.RpgAIRate, v) }},
	{"rpg_byte_reset", "RpgByteReset", func(c *rp.DCQCNConfig, v string) error {
		b, err := units.ParseBytes(v)
		if err != nil {
			return err
		}
		c.RpgByteReset = b
		return nil
	}},
	{"rpg_gd", "RpgGd", func(c *rp.DCQCNConfig, v string) error {
		n, err := dcqcnInt(v, 0, math.MaxUint8)
		c.RpgGd = uint8(n)
		return err
	}},
	{"rpg_hai_rate", "RpgHAIRate", func(c *rp.DCQCNConfig, v string) error { return dcqcnSetRate(&c.RpgHAIRate, v) }},
	{"rpg_max_rate", "RpgMaxRate", func(c *rp.DCQCNConfig, v string) error { return dcqcnSetRate(&c.RpgMaxRate, v) }},
	{"rpg_min_dec_fac", "RpgMinDecFac", func(c *rp.DCQCNConfig, v string) error {
		n, err := dcqcnInt(v, 0, math.MaxUint8)
		c.RpgMinDecFac = uint8(n)
		return err
	}},
	{"rpg_min_rate", "RpgMinRate", func(c *rp.DCQCNConfig, v string) error { return dcqcnSetRate(&c.RpgMinRate, v) }},
	{"rpg_threshold", "RpgThreshold", func(c *rp.DCQCNConfig, v string) error {
		n, err := dcqcnInt(v, 0, math.MaxUint8)
		c.RpgThreshold = uint8(n)
		return err
	}},
	{"rpg_time_reset", "RpgTimeReset", func(c *rp.DCQCNConfig, v string) error { return dcqcnSetTime(&c.RpgTimeReset, v) }},
}

// dcqcnInt parses a whole number in lo..hi.
func dcqcnInt(v string, lo, hi int64) (int64, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("want a whole number in %d..%d", lo, hi)
	}
	return n, nil
}

func dcqcnSetBool(dst *bool, v string) error {
	b, ok := parseOnOff(v)
	if !ok {
		return fmt.Errorf("want %s", onOffWant)
	}
	*dst = b
	return nil
}

func dcqcnSetTime(dst *units.Time, v string) error {
	t, err := units.ParseTime(v)
	if err != nil {
		return err
	}
	*dst = t
	return nil
}

func dcqcnSetRate(dst *units.Rate, v string) error {
	r, err := units.ParseRate(v)
	if err != nil {
		return err
	}
	*dst = r
	return nil
}

// dcqcnParamNames lists every parameter, sorted, for error messages.
func dcqcnParamNames() []string {
	n := []string{dcqcnParamCNPInterval, dcqcnParamKmax, dcqcnParamKmin, dcqcnParamMark, dcqcnParamNP, dcqcnParamPmax, dcqcnParamPreset}
	for _, k := range dcqcnRPKeys {
		n = append(n, k.name)
	}
	sort.Strings(n)
	return n
}

// dcqcnParams is the parsed parameter set of one scenario.
type dcqcnParams struct {
	preset string
	// kmin, kmax: -1 for the scaled default.
	kmin, kmax units.Bytes
	pmax       uint32 // Q0.16
	npMode     np.DCQCNMode
	npSet      bool // npMode given
	// markDequeue: the CP judges frames at dequeue (param.mark).
	markDequeue bool
	cnpIvl      units.Time // -1: the preset's
	// rp holds the RP keys given, in sorted order, with their values.
	rp []dcqcnRPSetting
}

type dcqcnRPSetting struct {
	key   *dcqcnRPKey
	value string
}

// dcqcnParseParams parses params and checks each value's range; unknown
// keys are errors naming the known ones.
func dcqcnParseParams(params map[string]string) (dcqcnParams, error) {
	p := dcqcnParams{
		preset:      dcqcnDefaultPreset,
		markDequeue: dcqcnDefaultMark == dcqcnMarkDequeue,
		kmin:        -1,
		kmax:        -1,
		pmax:        cp.DCQCNHPCCSim(25 * units.Gbps).Pmax,
		cnpIvl:      -1,
	}
	// Sorted, so that the first bad key is reported deterministically.
	for _, k := range slices.Sorted(maps.Keys(params)) {
		v := strings.TrimSpace(params[k])
		bad := func(want string) error {
			return fmt.Errorf("dcqcn: param.%s = %q: %s", k, v, want)
		}
		switch k {
		case dcqcnParamPreset:
			switch strings.ToLower(v) {
			case dcqcnPresetConnectX, dcqcnPresetPaper, dcqcnPresetHPCC:
				p.preset = strings.ToLower(v)
			default:
				return p, bad(fmt.Sprintf("want %s, %s or %s", dcqcnPresetConnectX, dcqcnPresetPaper, dcqcnPresetHPCC))
			}
		case dcqcnParamKmin, dcqcnParamKmax:
			b, err := units.ParseBytes(v)
			if err != nil || b > cp.DCQCNMaxThreshold {
				return p, bad(fmt.Sprintf("want a size in 0..%d B (a 32-bit register)", int64(cp.DCQCNMaxThreshold)))
			}
			if k == dcqcnParamKmin {
				p.kmin = b
			} else {
				p.kmax = b
			}
		case dcqcnParamPmax:
			x, err := strconv.ParseFloat(v, 64)
			if err != nil || !(x >= 0 && x <= 1) {
				return p, bad("want a probability in [0, 1]")
			}
			// Pmax·2^16, rounded to nearest: 0.2 → 13107.
			p.pmax = uint32(math.Round(x * dcqcnPmaxScale))
		case dcqcnParamNP:
			switch strings.ToLower(v) {
			case dcqcnNPSlot:
				p.npMode = np.DCQCNSlot
			case dcqcnNPInterval, "min-interval":
				p.npMode = np.DCQCNMinInterval
			default:
				return p, bad(fmt.Sprintf("want %s (the paper's N-µs slots) or %s (ConnectX's min_time_between_cnps)", dcqcnNPSlot, dcqcnNPInterval))
			}
			p.npSet = true
		case dcqcnParamMark:
			deq, err := dcqcnParseMark(v)
			if err != nil {
				return p, bad(err.Error())
			}
			p.markDequeue = deq
		case dcqcnParamCNPInterval:
			t, err := units.ParseTime(v)
			if err != nil || t < 0 || t > np.DCQCNMaxInterval {
				return p, bad(fmt.Sprintf("want a time in 0..%v", np.DCQCNMaxInterval))
			}
			p.cnpIvl = t
		default:
			i := sort.Search(len(dcqcnRPKeys), func(i int) bool { return dcqcnRPKeys[i].name >= k })
			if i == len(dcqcnRPKeys) || dcqcnRPKeys[i].name != k {
				return p, fmt.Errorf("dcqcn: unknown parameter param.%s (known: %s)", k, strings.Join(dcqcnParamNames(), ", "))
			}
			p.rp = append(p.rp, dcqcnRPSetting{key: &dcqcnRPKeys[i], value: v})
		}
	}
	if p.kmin >= 0 && p.kmax >= 0 && p.kmin > p.kmax {
		return p, fmt.Errorf("dcqcn: param.kmin = %v exceeds param.kmax = %v", p.kmin, p.kmax)
	}
	// The RP keys on the preset at the largest port rate the 32-bit rate
	// registers hold, so that no rate is rejected for exceeding a line rate
	// the run may not have: an error names the key and the field's range.
	if _, err := dcqcnRPConfig(p, units.Rate(rp.DCQCNRateMax)*dcqcnRateUnit(p.preset)); err != nil {
		return p, err
	}
	return p, nil
}

// dcqcnRateUnit is the rate unit of preset's RP registers.
func dcqcnRateUnit(preset string) units.Rate {
	if preset == dcqcnPresetConnectX {
		return rp.DCQCNConnectX(units.Gbps).RateUnit
	}
	return rp.DCQCNPaper(units.Gbps).RateUnit
}

// dcqcnRPConfig returns the rp.DCQCNConfig of a flow on a NIC of rate link
// under p: the preset with every RP key applied, validated. An error names
// the parameter whose field is out of range.
func dcqcnRPConfig(p dcqcnParams, link units.Rate) (rp.DCQCNConfig, error) {
	var c rp.DCQCNConfig
	switch p.preset {
	case dcqcnPresetPaper:
		c = rp.DCQCNPaper(link)
	case dcqcnPresetHPCC:
		c = rp.DCQCNHPCCSim(link)
	default:
		c = rp.DCQCNConnectX(link)
	}
	if err := c.Validate(); err != nil {
		return c, fmt.Errorf("dcqcn: preset %s at line rate %v: %w", p.preset, link, err)
	}
	for _, s := range p.rp {
		if err := s.key.set(&c, s.value); err != nil {
			return c, fmt.Errorf("dcqcn: param.%s = %q: %w", s.key.name, s.value, err)
		}
	}
	// Validate once all keys are in: their ranges depend on each other
	// (rate_to_set_on_first_cnp ≥ rpg_min_rate, every rate ≤ rpg_max_rate).
	if err := c.Validate(); err != nil {
		which := ""
		for _, s := range p.rp {
			if strings.Contains(err.Error(), " "+s.key.field+" ") {
				which = fmt.Sprintf("param.%s = %q: ", s.key.name, s.value)
				break
			}
		}
		return c, fmt.Errorf("dcqcn: %spreset %s at line rate %v: %w", which, p.preset, link, err)
	}
	return c, nil
}

// dcqcnNPConfig returns the np.DCQCNConfig under p.
func dcqcnNPConfig(p dcqcnParams) np.DCQCNConfig {
	var c np.DCQCNConfig
	switch p.preset {
	case dcqcnPresetPaper:
		c = np.DCQCNPaper()
	case dcqcnPresetHPCC:
		c = np.DCQCNHPCCSim()
	default:
		c = np.DCQCNConnectX()
	}
	if p.npSet {
		c.Mode = p.npMode
	}
	if p.cnpIvl >= 0 {
		c.Interval = p.cnpIvl
	}
	return c
}

// dcqcnCPConfig returns the cp.DCQCNConfig of a queue under p.
func dcqcnCPConfig(p dcqcnParams, info harness.CPInfo) cp.DCQCNConfig {
	c := cp.DCQCNHPCCSim(info.Rate)
	if p.kmin >= 0 {
		c.Kmin = p.kmin
	}
	if p.kmax >= 0 {
		c.Kmax = p.kmax
	}
	c.Pmax = p.pmax
	c.Seed = dcqcnSeed(info.ID)
	c.MarkAt = cp.DCQCNMarkEnqueue
	if p.markDequeue {
		c.MarkAt = cp.DCQCNMarkDequeue
	}
	return c
}

// dcqcnSeed returns the LFSR seed of CP id: never 0, distinct for the
// first 2^32 IDs (multiplication by an odd constant is a bijection mod
// 2^32, and the XOR with a constant is too).
func dcqcnSeed(id harness.CPID) uint32 {
	s := cp.DCQCNDefaultSeed ^ (uint32(id)+1)*dcqcnSeedMix
	if s == 0 {
		// The one ID that maps to the LFSR's lock-up state.
		return cp.DCQCNDefaultSeed
	}
	return s
}

// dcqcnAlgo is the harness.Algorithm. It is stateless: every part gets its
// parameters from the scenario.
type dcqcnAlgo struct{}

func (dcqcnAlgo) Name() string { return dcqcnName }

// Features: none; cp.DCQCN is the marker (see the package documentation).
func (dcqcnAlgo) Features() harness.Features { return harness.Features{} }

// CheckParams implements harness.ParamChecker.
func (dcqcnAlgo) CheckParams(params map[string]string) error {
	_, err := dcqcnParseParams(params)
	return err
}

// NewCP returns the cp.DCQCN of one switch egress queue.
func (dcqcnAlgo) NewCP(info harness.CPInfo) (harness.CP, error) {
	p, err := dcqcnParseParams(info.Params)
	if err != nil {
		return nil, err
	}
	cfg := dcqcnCPConfig(p, info)
	c, err := cp.NewDCQCN(cfg)
	if err != nil {
		return nil, fmt.Errorf("dcqcn: CP %s port %d (%v): %w", info.NodeName, info.Port, info.Rate, err)
	}
	return &dcqcnCP{c: c}, nil
}

// NewRP returns the rp.DCQCN of one flow.
func (dcqcnAlgo) NewRP(f harness.FlowInfo) (harness.RP, error) {
	p, err := dcqcnParseParams(f.Params)
	if err != nil {
		return nil, err
	}
	cfg, err := dcqcnRPConfig(p, f.LineRate)
	if err != nil {
		return nil, fmt.Errorf("flow %d: %w", f.ID, err)
	}
	d, err := rp.NewDCQCN(cfg)
	if err != nil {
		return nil, fmt.Errorf("dcqcn: flow %d: %w", f.ID, err)
	}
	limit := f.LineRate
	if f.Offered > 0 && f.Offered < limit {
		limit = f.Offered
	}
	return &dcqcnRP{d: d, limit: limit}, nil
}

// NewNP returns the np.DCQCN of one flow.
func (dcqcnAlgo) NewNP(f harness.FlowInfo) (harness.NP, error) {
	p, err := dcqcnParseParams(f.Params)
	if err != nil {
		return nil, err
	}
	n, err := np.NewDCQCN(dcqcnNPConfig(p))
	if err != nil {
		return nil, fmt.Errorf("dcqcn: flow %d: %w", f.ID, err)
	}
	return &dcqcnNP{n: n}, nil
}

// dcqcnErrs counts the errors a state machine returned to an adapter and
// keeps the first. The harness has no error path from an event method; in
// a correct run the count stays 0, which the tests check.
type dcqcnErrs struct {
	n     uint64
	first error
}

func (e *dcqcnErrs) add(err error) {
	if err == nil {
		return
	}
	e.n++
	if e.first == nil {
		e.first = err
	}
}

// dcqcnCP adapts cp.DCQCN to harness.CP. It reports every frame's enqueue
// and dequeue; the CP judges the frame at the one its MarkAt names.
type dcqcnCP struct {
	harness.BaseCP
	c    *cp.DCQCN
	errs dcqcnErrs
}

// OnEnqueue reports the arriving data frame and the queue it has just
// joined (q.Len() includes it; see the package documentation).
func (c *dcqcnCP) OnEnqueue(now units.Time, q *harness.Queue, p *harness.Packet) {
	mark, err := c.c.OnEnqueue(now, q.Len())
	c.errs.add(err)
	if mark {
		p.CE = true
	}
}

// OnDequeue reports the departing data frame and the queue it leaves
// behind (q.Len() no longer includes it).
func (c *dcqcnCP) OnDequeue(now units.Time, q *harness.Queue, p *harness.Packet) {
	mark, err := c.c.OnDequeue(now, q.Len())
	c.errs.add(err)
	if mark {
		p.CE = true
	}
}

// dcqcnRP adapts rp.DCQCN to harness.RP.
type dcqcnRP struct {
	harness.BaseRP
	d *rp.DCQCN
	// limit is min(offered rate, line rate).
	limit units.Rate
	errs  dcqcnErrs
}

// Rate is min(offered, line rate, RC).
func (r *dcqcnRP) Rate() units.Rate { return min(r.limit, r.d.Rate()) }

// Window: none.
func (r *dcqcnRP) Window() units.Bytes { return 0 }

// OnSend feeds the byte counter with the frame's payload.
func (r *dcqcnRP) OnSend(now units.Time, _ uint64, n units.Bytes) { r.errs.add(r.d.OnSend(now, n)) }

func (r *dcqcnRP) OnCNP(now units.Time)     { r.errs.add(r.d.OnCNP(now)) }
func (r *dcqcnRP) NextDeadline() units.Time { return r.d.NextDeadline() }
func (r *dcqcnRP) OnTimer(now units.Time)   { r.errs.add(r.d.OnTimer(now)) }

// dcqcnNP adapts np.DCQCN to harness.NP.
type dcqcnNP struct {
	n    *np.DCQCN
	errs dcqcnErrs
}

func (n *dcqcnNP) OnData(now units.Time, p *harness.Packet) bool {
	cnp, err := n.n.OnPacket(now, p.CE)
	n.errs.add(err)
	return cnp
}

func (n *dcqcnNP) NextDeadline() units.Time { return n.n.NextDeadline() }

func (n *dcqcnNP) OnTimer(now units.Time) bool {
	cnp, err := n.n.OnTimer(now)
	n.errs.add(err)
	return cnp
}

func init() { harness.MustRegister(dcqcnAlgo{}) }

// Compile-time checks.
var (
	_ harness.Algorithm    = dcqcnAlgo{}
	_ harness.ParamChecker = dcqcnAlgo{}
	_ harness.CP           = (*dcqcnCP)(nil)
	_ harness.RP           = (*dcqcnRP)(nil)
	_ harness.NP           = (*dcqcnNP)(nil)
)
