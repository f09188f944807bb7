package algos

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
)

// dctcpName is the registry name.
const dctcpName = "dctcp"

// Preset names.
const (
	dctcpPresetLinux   = "linux"
	dctcpPresetHPCC    = "hpcc"
	dctcpDefaultPreset = dctcpPresetLinux
)

// Parameter names.
const (
	dctcpParamPreset    = "preset"
	dctcpParamK         = "k"
	dctcpParamShiftG    = "dctcp_shift_g"
	dctcpParamAlphaInit = "dctcp_alpha_on_init"
	dctcpParamSlowStart = "slow_start"
	dctcpParamInitCwnd  = "init_cwnd"
	dctcpParamMaxCwnd   = "max_cwnd"
	dctcpParamMark      = "mark"
)

// dctcpDefaultMark is the default marking point (see the package
// documentation, DCTCP in the harness).
const dctcpDefaultMark = dcqcnMarkEnqueue

// dctcpParamNames lists the parameters, sorted, for error messages.
var dctcpParamNames = []string{
	dctcpParamAlphaInit, dctcpParamShiftG, dctcpParamInitCwnd, dctcpParamK,
	dctcpParamMark, dctcpParamMaxCwnd, dctcpParamPreset, dctcpParamSlowStart,
}

// dctcpMaxShiftG is Linux's largest dctcp_shift_g.
const dctcpMaxShiftG = 10

// dctcpParams is the parsed parameter set of one scenario. -1 (or a nil
// pointer) means "the preset's".
type dctcpParams struct {
	preset    string
	k         units.Bytes
	shiftG    int
	alphaInit int
	slowStart *bool
	initCwnd  units.Bytes
	maxCwnd   units.Bytes
	// markDequeue: the CP judges frames at dequeue (param.mark).
	markDequeue bool
}

// dctcpParseParams parses params and checks each value's range; unknown
// keys are errors naming the known ones.
func dctcpParseParams(params map[string]string) (dctcpParams, error) {
	p := dctcpParams{preset: dctcpDefaultPreset, k: -1, shiftG: -1, alphaInit: -1, initCwnd: -1, maxCwnd: -1,
		markDequeue: dctcpDefaultMark == dcqcnMarkDequeue}
	// Sorted, so that the first bad key is reported deterministically.
	for _, k := range slices.Sorted(maps.Keys(params)) {
		v := strings.TrimSpace(params[k])
		bad := func(want string) error {
			return fmt.Errorf("dctcp: param.%s = %q: want %s", k, v, want)
		}
		switch k {
		case dctcpParamPreset:
			switch strings.ToLower(v) {
			case dctcpPresetLinux, dctcpPresetHPCC:
				p.preset = strings.ToLower(v)
			default:
				return p, bad(dctcpPresetLinux + " or " + dctcpPresetHPCC)
			}
		case dctcpParamK:
			b, err := units.ParseBytes(v)
			if err != nil || b > cp.DCTCPMaxThreshold {
				return p, bad(fmt.Sprintf("a size in 0..%d B (a 32-bit register)", int64(cp.DCTCPMaxThreshold)))
			}
			p.k = b
		case dctcpParamShiftG, dctcpParamAlphaInit:
			hi := dctcpMaxShiftG
			if k == dctcpParamAlphaInit {
				hi = int(fixedpoint.UQ1_10One)
			}
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 || n > hi {
				return p, bad(fmt.Sprintf("a whole number in 0..%d", hi))
			}
			if k == dctcpParamShiftG {
				p.shiftG = n
			} else {
				p.alphaInit = n
			}
		case dctcpParamMark:
			deq, err := dcqcnParseMark(v)
			if err != nil {
				return p, bad(dcqcnMarkEnqueue + " or " + dcqcnMarkDequeue)
			}
			p.markDequeue = deq
		case dctcpParamSlowStart:
			var b bool
			if err := dcqcnSetBool(&b, v); err != nil {
				return p, bad(onOffWant)
			}
			p.slowStart = &b
		case dctcpParamInitCwnd, dctcpParamMaxCwnd:
			b, err := units.ParseBytes(v)
			if err != nil || b < 1 || b > rp.DCTCPMaxCwnd {
				return p, bad(fmt.Sprintf("a size in 1..%d B, at least 2 MSS", int64(rp.DCTCPMaxCwnd)))
			}
			if k == dctcpParamInitCwnd {
				p.initCwnd = b
			} else {
				p.maxCwnd = b
			}
		default:
			return p, fmt.Errorf("dctcp: unknown parameter param.%s (known: %s)", k, strings.Join(dctcpParamNames, ", "))
		}
	}
	if p.initCwnd >= 0 && p.maxCwnd >= 0 && p.initCwnd > p.maxCwnd {
		return p, fmt.Errorf("dctcp: param.init_cwnd = %v exceeds param.max_cwnd = %v", p.initCwnd, p.maxCwnd)
	}
	return p, nil
}

// dctcpRPConfig returns the rp.DCTCPConfig of flow f under p.
func dctcpRPConfig(p dctcpParams, f harness.FlowInfo) (rp.DCTCPConfig, error) {
	var c rp.DCTCPConfig
	mss := f.Payload
	switch p.preset {
	case dctcpPresetHPCC:
		c = rp.DCTCPHPCCSim(f.LineRate, f.BaseRTT)
		// The preset's MSS is the HPCC simulations' 1000 B payload; use the
		// scenario's, with the same BDP rule (at least 2 segments).
		bdp := max(units.BytesIn(f.LineRate, f.BaseRTT), 2*mss)
		c.MSS, c.InitialCwnd, c.MaxCwnd = mss, bdp, bdp
	default:
		c = rp.DCTCPDefault(mss)
		c.SlowStart = true
	}
	if p.shiftG >= 0 {
		c.ShiftG = uint8(p.shiftG)
	}
	if p.alphaInit >= 0 {
		c.InitialAlpha = fixedpoint.UQ1_10(p.alphaInit)
	}
	if p.slowStart != nil {
		c.SlowStart = *p.slowStart
	}
	if p.maxCwnd >= 0 {
		c.MaxCwnd = p.maxCwnd
		c.InitialCwnd = min(c.InitialCwnd, c.MaxCwnd)
	}
	if p.initCwnd >= 0 {
		c.InitialCwnd = p.initCwnd
	}
	if err := c.Validate(); err != nil {
		return c, fmt.Errorf("dctcp: flow %d (preset %s, MSS %v): %w", f.ID, p.preset, mss, err)
	}
	return c, nil
}

// dctcpAlgo is the harness.Algorithm; stateless.
type dctcpAlgo struct{}

func (dctcpAlgo) Name() string { return dctcpName }

// Features: none; cp.DCTCP is the marker.
func (dctcpAlgo) Features() harness.Features { return harness.Features{} }

// CheckParams implements harness.ParamChecker.
func (dctcpAlgo) CheckParams(params map[string]string) error {
	_, err := dctcpParseParams(params)
	return err
}

// NewCP returns the cp.DCTCP of one switch egress queue.
func (dctcpAlgo) NewCP(info harness.CPInfo) (harness.CP, error) {
	p, err := dctcpParseParams(info.Params)
	if err != nil {
		return nil, err
	}
	cfg := cp.DCTCPHPCCSim(info.Rate)
	if p.k >= 0 {
		cfg.K = p.k
	}
	if p.markDequeue {
		cfg.MarkAt = cp.DCTCPMarkDequeue
	}
	c, err := cp.NewDCTCP(cfg)
	if err != nil {
		return nil, fmt.Errorf("dctcp: CP %s port %d (%v): %w", info.NodeName, info.Port, info.Rate, err)
	}
	return &dctcpCP{c: c, atDequeue: cfg.MarkAt == cp.DCTCPMarkDequeue}, nil
}

// NewRP returns the rp.DCTCP of one flow.
func (dctcpAlgo) NewRP(f harness.FlowInfo) (harness.RP, error) {
	p, err := dctcpParseParams(f.Params)
	if err != nil {
		return nil, err
	}
	cfg, err := dctcpRPConfig(p, f)
	if err != nil {
		return nil, err
	}
	d, err := rp.NewDCTCP(cfg)
	if err != nil {
		return nil, fmt.Errorf("dctcp: flow %d: %w", f.ID, err)
	}
	rate := f.LineRate
	if f.Offered > 0 && f.Offered < rate {
		rate = f.Offered
	}
	return &dctcpRP{d: d, rate: rate}, nil
}

// NewNP: none; the NIC echoes CE in ACKs.
func (dctcpAlgo) NewNP(harness.FlowInfo) (harness.NP, error) { return nil, nil }

// dctcpCP adapts cp.DCTCP to harness.CP.
type dctcpCP struct {
	harness.BaseCP
	c *cp.DCTCP
	// atDequeue: c judges frames as they leave (param.mark=dequeue, its
	// MarkAt); kept for the tests' inspection, c decides.
	atDequeue bool
	errs      dcqcnErrs
}

// OnEnqueue reports the arriving data frame (q.Len() includes it); c marks
// it when it judges at enqueue and the queue exceeds K.
func (c *dctcpCP) OnEnqueue(now units.Time, q *harness.Queue, p *harness.Packet) {
	mark, err := c.c.OnEnqueue(now, q.Len())
	c.errs.add(err)
	if mark {
		p.CE = true
	}
}

// OnDequeue reports the departing data frame (q.Len() is what it leaves
// behind); c marks it when it judges at dequeue and that exceeds K.
func (c *dctcpCP) OnDequeue(now units.Time, q *harness.Queue, p *harness.Packet) {
	mark, err := c.c.OnDequeue(now, q.Len())
	c.errs.add(err)
	if mark {
		p.CE = true
	}
}

// dctcpRP adapts rp.DCTCP to harness.RP.
type dctcpRP struct {
	harness.BaseRP
	d    *rp.DCTCP
	rate units.Rate // min(offered, line rate)
	errs dcqcnErrs
}

// Rate: min(offered, line rate).
func (r *dctcpRP) Rate() units.Rate { return r.rate }

// Window is cwnd.
func (r *dctcpRP) Window() units.Bytes { return r.d.Window() }

// OnSend passes the segment with its sequence truncated to 32 bits.
func (r *dctcpRP) OnSend(now units.Time, seq uint64, n units.Bytes) {
	r.errs.add(r.d.OnSend(now, uint32(seq), n))
}

// OnAck passes the newly acknowledged bytes, the ECN echo and the
// cumulative sequence (low 32 bits) of an ACK or NAK to OnAckSplit, which
// splits them into pieces of at most rp.DCTCPMaxSegment (see the file
// comment).
func (r *dctcpRP) OnAck(now units.Time, a *harness.Ack) {
	r.errs.add(r.d.OnAckSplit(now, max(a.Newly, 0), a.ECE, uint32(a.Seq)))
}

func init() { harness.MustRegister(dctcpAlgo{}) }

// Compile-time checks.
var (
	_ harness.Algorithm    = dctcpAlgo{}
	_ harness.ParamChecker = dctcpAlgo{}
	_ harness.CP           = (*dctcpCP)(nil)
	_ harness.RP           = (*dctcpRP)(nil)
)
