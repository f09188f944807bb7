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
	inttel "github.com/hwcc/hwcc/int"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/window"
)

// hpccName is the registry name.
const hpccName = "hpcc"

// Parameter names.
const (
	hpccParamT         = "t"
	hpccParamEta       = "eta"
	hpccParamWAI       = "wai"
	hpccParamMaxStage  = "max_stage"
	hpccParamFastReact = "fast_react"
	hpccParamMultiRate = "multi_rate"
	// hpccAuto is the value that selects the derived default of t and wai.
	hpccAuto = "auto"
)

// hpccParamNames lists the parameters, sorted, for error messages.
var hpccParamNames = []string{
	hpccParamEta, hpccParamFastReact, hpccParamMaxStage, hpccParamMultiRate, hpccParamT, hpccParamWAI,
}

// Parameter defaults and limits.
const (
	// hpccDefaultEta is η = 95 % (sections 3.3 and 5.1).
	hpccDefaultEta = 0.95
	// hpccEtaMin and hpccEtaMax are window.EtaMin and EtaMax as reals.
	hpccEtaMin, hpccEtaMax = 0.5, 1.0
)

// hpccParams is the parsed parameter set of one scenario.
type hpccParams struct {
	t         units.Time         // 0: auto
	eta       fixedpoint.UQ32_32 // η, UQ32_32
	wai       units.Bytes        // -1: auto
	maxStage  int
	fastReact bool
	multiRate bool
}

// hpccParseParams parses and range-checks params; unknown keys are errors.
func hpccParseParams(params map[string]string) (hpccParams, error) {
	p := hpccParams{
		eta:       window.Eta95,
		wai:       -1,
		maxStage:  rp.HPCCPaperMaxStage,
		fastReact: true,
	}
	// Sorted, so that the first bad key is reported deterministically.
	for _, k := range slices.Sorted(maps.Keys(params)) {
		v := strings.TrimSpace(params[k])
		bad := func(want string) error {
			return fmt.Errorf("hpcc: param.%s = %q: want %s", k, v, want)
		}
		switch k {
		case hpccParamT:
			if strings.EqualFold(v, hpccAuto) {
				p.t = 0
				continue
			}
			t, err := units.ParseTime(v)
			if err != nil || t < window.MinT || t > window.MaxT {
				return p, bad(fmt.Sprintf("a time in %v..%v, or %q (the flow's base RTT)", window.MinT, window.MaxT, hpccAuto))
			}
			p.t = t
		case hpccParamEta:
			x, err := strconv.ParseFloat(v, 64)
			if err != nil || !(x >= hpccEtaMin && x <= hpccEtaMax) {
				return p, bad(fmt.Sprintf("a number in [%g, %g]", hpccEtaMin, hpccEtaMax))
			}
			q, err := fixedpoint.UQ32_32FromFloat(x)
			if err != nil {
				return p, bad(err.Error())
			}
			p.eta = q
		case hpccParamWAI:
			if strings.EqualFold(v, hpccAuto) {
				p.wai = -1
				continue
			}
			b, err := units.ParseBytes(v)
			if err != nil || b < 0 || b > window.MaxWindow {
				return p, bad(fmt.Sprintf("a size in 0..%d B (and at most W_init = B_NIC·T), or %q (W_init·(1−η)/%d)",
					window.MaxWindow, hpccAuto, rp.HPCCRuleFlows))
			}
			p.wai = b
		case hpccParamMaxStage:
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 || n > window.MaxStageLimit {
				return p, bad(fmt.Sprintf("a whole number in 0..%d", window.MaxStageLimit))
			}
			p.maxStage = n
		case hpccParamFastReact, hpccParamMultiRate:
			b, ok := parseOnOff(v)
			if !ok {
				return p, bad(onOffWant)
			}
			if k == hpccParamFastReact {
				p.fastReact = b
			} else {
				p.multiRate = b
			}
		default:
			return p, fmt.Errorf("hpcc: unknown parameter param.%s (known: %s)", k, strings.Join(hpccParamNames, ", "))
		}
	}
	return p, nil
}

// hpccAutoT returns the flow's round trip with INT: its base RTT (a full
// data frame and its ACK, no INT) plus the INT bytes the frames carry on
// each link, each serialised at the path's slowest rate (an upper bound, so
// that T is not below the real base RTT). On link k of the forward path
// (k = 0 the sender's) the data frame carries the 2-byte prefix and k hop
// records; the ACK echoes all Hops records on every reverse link:
//
//	T = BaseRTT + Σ_{k=0..H} ser(2 + 8k) + (H+1)·ser(2 + 8H)
func hpccAutoT(f harness.FlowInfo) units.Time {
	t := f.BaseRTT
	h := units.Bytes(f.Hops)
	for k := units.Bytes(0); k <= h; k++ {
		t += units.SerializationTime(harness.INTPrefixBytes+k*harness.INTHopBytes, f.Bottleneck)
	}
	t += units.Time(h+1) * units.SerializationTime(harness.INTPrefixBytes+h*harness.INTHopBytes, f.Bottleneck)
	return t
}

// hpccConfig returns the rp.HPCC configuration of flow f under p.
func hpccConfig(f harness.FlowInfo, p hpccParams, codec *inttel.Codec) (rp.HPCCConfig, error) {
	t := p.t
	if t == 0 {
		t = hpccAutoT(f)
		if t < window.MinT || t > window.MaxT {
			return rp.HPCCConfig{}, fmt.Errorf("hpcc: flow %d: param.t = auto gives the base RTT %v, outside %v..%v: set param.t",
				f.ID, t, window.MinT, window.MaxT)
		}
	}
	// The paper's simulation preset at this NIC rate, with this T: W_init =
	// W_max = B_NIC·T, W_min = 1 Gb/s·T, η, maxStage, fast react.
	base := rp.HPCCPaperSim(f.LineRate)
	init := units.BytesIn(f.LineRate, t)
	if init < 1 || init > window.MaxWindow {
		return rp.HPCCConfig{}, fmt.Errorf("hpcc: flow %d: W_init = B_NIC·T = %v × %v = %d B, want 1..%d B: change param.t",
			f.ID, f.LineRate, t, init, window.MaxWindow)
	}
	w := base.Window
	w.T = t
	w.Init, w.Max = init, init
	w.Min = min(max(units.BytesIn(rp.HPCCMinRate, t), 1), init)
	w.Eta = p.eta
	w.MaxStage = p.maxStage
	if p.wai >= 0 {
		if p.wai > init {
			return rp.HPCCConfig{}, fmt.Errorf("hpcc: param.wai = %d B exceeds W_max = B_NIC·T = %d B (flow %d, %v × %v)",
				p.wai, init, f.ID, f.LineRate, t)
		}
		w.AI = p.wai
	} else {
		ai, err := window.AIRule(init, p.eta, rp.HPCCRuleFlows)
		if err != nil {
			return rp.HPCCConfig{}, fmt.Errorf("hpcc: flow %d: W_AI rule: %w", f.ID, err)
		}
		w.AI = ai
	}
	return rp.HPCCConfig{Window: w, Codec: codec, FastReact: p.fastReact, MultiRate: p.multiRate}, nil
}

// hpccAlgo is the harness.Algorithm. It holds the INT codec every RP and CP
// shares (immutable); runs share nothing else.
type hpccAlgo struct {
	codec *inttel.Codec
}

func (*hpccAlgo) Name() string { return hpccName }

// Features: INT stamping and echo; no default ECN marker.
func (*hpccAlgo) Features() harness.Features { return harness.Features{INT: true} }

// CheckParams implements harness.ParamChecker.
func (*hpccAlgo) CheckParams(params map[string]string) error {
	_, err := hpccParseParams(params)
	return err
}

// NewCP returns the cp.HPCC of one switch egress queue.
func (a *hpccAlgo) NewCP(info harness.CPInfo) (harness.CP, error) {
	c, err := cp.NewHPCC(cp.HPCCConfig{SwitchID: hpccSwitchID(info), Rate: info.Rate, Codec: a.codec})
	if err != nil {
		return nil, fmt.Errorf("hpcc: CP %s port %d: %w", info.NodeName, info.Port, err)
	}
	return &hpccCP{c: c}, nil
}

// hpccSwitchID is the 12-bit ID the shadow cp.HPCC XORs into pathID.
// CPInfo does not carry the harness's INT switch ID (the switch's index
// among switches + 1); NodeID + 1 equals it when the topology adds its
// switches before its hosts (star, dumbbell, multi-bottleneck, asymmetric,
// leaf-spine, fat-tree) and differs on a chain. Only the shadow's pathID
// depends on it; the hop records do not.
func hpccSwitchID(info harness.CPInfo) uint16 {
	return uint16(info.Node+1) & inttel.MaxPathID
}

// NewRP returns the rp.HPCC of one flow.
func (a *hpccAlgo) NewRP(f harness.FlowInfo) (harness.RP, error) {
	p, err := hpccParseParams(f.Params)
	if err != nil {
		return nil, err
	}
	cfg, err := hpccConfig(f, p, a.codec)
	if err != nil {
		return nil, err
	}
	h, err := rp.NewHPCC(cfg)
	if err != nil {
		return nil, fmt.Errorf("hpcc: flow %d: %w", f.ID, err)
	}
	return &hpccRP{h: h}, nil
}

// NewNP: HPCC's receiver only echoes INT, which the harness NIC does.
func (*hpccAlgo) NewNP(harness.FlowInfo) (harness.NP, error) { return nil, nil }

// hpccRP adapts rp.HPCC to harness.RP.
type hpccRP struct {
	harness.BaseRP
	h *rp.HPCC
	// noINT counts ACKs without an INT header (none with Features.INT);
	// errs counts ACKs rp.HPCC rejected, firstErr keeps the first. Both
	// stay 0 in a correct run; tests check them.
	noINT, errs uint64
	firstErr    error
}

// Rate is R = W/T, paced in wire bytes.
func (r *hpccRP) Rate() units.Rate { return r.h.Rate() }

// Window is W: the NIC sends while inflight payload < W.
func (r *hpccRP) Window() units.Bytes { return r.h.Window() }

// OnAck is Algorithm 1's NewAck with the ACK's cumulative sequence, the
// NIC's snd_nxt and the echoed INT header. NAKs carry INT too and are
// handled alike (their Seq is cumulative).
func (r *hpccRP) OnAck(now units.Time, a *harness.Ack) {
	if !a.HasINT || a.INT == nil {
		r.noINT++
		return
	}
	if err := r.h.OnAck(now, a.Seq, a.SndNxt, a.INT); err != nil {
		r.errs++
		if r.firstErr == nil {
			r.firstErr = err
		}
	}
}

// hpccCP runs cp.HPCC at one switch egress queue beside the harness's own
// INT stamper (see the package documentation, HPCC in the harness).
type hpccCP struct {
	harness.BaseCP
	c *cp.HPCC
	// seen is q.TxBytes() at the last data dequeue: the wire bytes the port
	// had started sending by then.
	seen uint64
	// hdr is the shadow copy of the last data packet's INT header with this
	// port's record appended.
	hdr inttel.Header
	// errs counts Stamp or OnDequeue errors (none in a correct run).
	errs uint64
}

// OnDequeue stamps a copy of p's INT header with this port's record, with
// the inputs the harness's stamper uses for the same packet: the time, the
// queue left behind, and the port's transmitted wire bytes so far.
//
// cp.HPCC counts txBytes through OnDequeue. The harness counts every frame
// the port transmits (data with its INT hop, ACKs, PFC frames), but a CP
// hears only data dequeues, and before the harness has added this port's
// 8-byte hop record. So each call first brings cp.HPCC's counter up to the
// port's, OnDequeue(bytes sent since the last data dequeue), and then
// stamps: the record's txBytes counts every byte sent before this packet,
// which is both the cp.HPCC contract (Stamp, then count the packet) and
// what the harness stamps.
func (c *hpccCP) OnDequeue(now units.Time, q *harness.Queue, p *harness.Packet) {
	if !p.HasINT {
		return
	}
	tx := q.TxBytes()
	qlen := q.Len()
	if err := c.c.OnDequeue(now, units.Bytes(tx-c.seen), qlen); err != nil {
		c.errs++
	}
	c.seen = tx
	c.hdr = p.INT
	if err := c.c.Stamp(now, &c.hdr, qlen); err != nil {
		c.errs++
	}
}

// hpccCodec returns the INT codec the harness uses.
func hpccCodec() (*inttel.Codec, error) { return inttel.NewCodec(inttel.DefaultConfig()) }

func init() {
	codec, err := hpccCodec()
	if err != nil {
		panic(fmt.Errorf("hpcc: default INT codec: %w", err)) // cannot happen: a fixed, valid config
	}
	harness.MustRegister(&hpccAlgo{codec: codec})
}

// Compile-time checks.
var (
	_ harness.Algorithm    = (*hpccAlgo)(nil)
	_ harness.ParamChecker = (*hpccAlgo)(nil)
	_ harness.RP           = (*hpccRP)(nil)
	_ harness.CP           = (*hpccCP)(nil)
)
