package algos

import (
	"math"
	"math/bits"
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
)

// dctcpLink is the default link rate of the dctcp parts' presets: 100 Gb/s,
// the link of the harness's default scenario (compare, a 100 Gb/s star) and
// of the HPCC paper's DCTCP runs. The "link" setting changes it.
const dctcpLink = 100 * units.Gbps

// dctcpBaseRTT is the round trip the rp's hpcc preset sizes its window
// for (cwnd = link·rtt): 4.18688 µs, the base RTT of the harness's default
// scenario at 100 Gb/s (two hops of 1 µs, store and forward: 2·(86.56 ns +
// 1 µs) for a 1082-byte data frame and 2·(6.88 ns + 1 µs) for its 86-byte
// ACK; harness/doc.go defines BaseRTT). The registry has no RTT setting:
// for another round trip set initial_cwnd and max_cwnd to link·rtt, which
// is all rp.DCTCPHPCCSim(link, rtt) does with it (the harness gives each
// flow its own).
const dctcpBaseRTT = 4186880 * units.Picosecond

// dctcpMSS is the MSS of the rp's default preset: the harness's default
// payload, 1000 B (the HPCC paper's, and the hpcc preset's).
const dctcpMSS = 1000 * units.Byte

// dctcpSource is the source of the Linux-derived parameters.
const dctcpSource = "[Linux-DCTCP]"

func init() {
	alphaOne := strconv.Itoa(int(fixedpoint.UQ1_10One)) // α = 1.0 in Q10
	cc.MustRegisterAlgorithm(cc.Algorithm{
		Name: "dctcp",
		Deploy: cc.Deployment{
			Doc: "every switch egress data queue runs the dctcp cp (the step marker at K; preset hpcc: K = 30 KB × port rate/10 Gb/s), " +
				"every flow's sender the dctcp rp (preset linux by default; hpcc for the HPCC paper's runs, cwnd at one BDP of the flow); " +
				"the NIC echoes CE in its ACKs and paces at min(offered, line rate)",
		},
		Title: "DCTCP",
		Paper: "[DCTCP] §3.1 (marking, echo, sender); the integer form of [Linux-DCTCP]; [HPCC] §5.1 for the hpcc presets",
		Doc:   "step ECN marking at one threshold K in the switch and a window that shrinks in proportion to the fraction of marked bytes at the sender",
		Parts: []cc.PartSpec{
			{
				Name: "cp",
				Role: cc.RoleCP,
				Doc:  "the marker of one egress queue: CE when the queue exceeds K bytes (cp.DCTCP)",
				Config: &cc.Spec[cp.DCTCPConfig]{
					Link: dctcpLink,
					// The rp's preset names, so that one preset setting
					// applies to both parts: a switch has no Linux
					// setting, and both take the HPCC paper's K.
					Presets: []cc.Preset[cp.DCTCPConfig]{{
						Name:   "linux",
						Doc:    "as hpcc: K = 30 KB·link/10 Gb/s, judged at enqueue (the switch has no Linux setting)",
						Source: "[HPCC] §5.1, Parameters",
						Config: cc.OfLink(cp.DCTCPHPCCSim),
					}, {
						Name:   "hpcc",
						Doc:    "K = 30 KB·link/10 Gb/s (300 KB at 100 Gb/s), judged at enqueue",
						Source: "[HPCC] §5.1, Parameters",
						Config: cc.OfLink(cp.DCTCPHPCCSim),
					}},
					Fields: []cc.Field[cp.DCTCPConfig]{
						{
							Param: cc.Param{
								Name: "k", Min: "0B", Max: cp.DCTCPMaxThreshold.String(),
								Doc:    "marking threshold: mark when the queue exceeds K bytes (" + bitsWide(bits.Len64(uint64(cp.DCTCPMaxThreshold))) + " register)",
								Source: "[DCTCP] §3.1; [HPCC] §5.1",
							},
							Ptr: func(c *cp.DCTCPConfig) any { return &c.K },
						},
						{
							Param: cc.Param{
								Name: "mark_at",
								Choices: []cc.Choice{
									{Name: "enqueue", Value: int64(cp.DCTCPMarkEnqueue), Doc: "judge arriving packets against the queue including them (the DCTCP paper, Linux RED)"},
									{Name: "dequeue", Value: int64(cp.DCTCPMarkDequeue), Doc: "judge departing packets against the queue they leave (the HPCC authors' ns-3)"},
								},
								Doc:    "where packets are judged",
								Source: "[DCTCP] §3.1 (enqueue); [HPCC-ns3] switch (dequeue)",
							},
							Ptr: func(c *cp.DCTCPConfig) any { return &c.MarkAt },
						},
					},
					New: func(c cp.DCTCPConfig) (cc.Part, error) {
						p, err := cp.NewDCTCP(c)
						if err != nil {
							return nil, err
						}
						return p, nil
					},
				},
			},
			{
				Name: "rp",
				Role: cc.RoleRP,
				Doc:  "the window sender of one flow: α from the marked fraction per window, cwnd cut by α/2 once per window with marks (rp.DCTCP)",
				Config: &cc.Spec[rp.DCTCPConfig]{
					Link: dctcpLink,
					Presets: []cc.Preset[rp.DCTCPConfig]{
						{
							Name:   "linux",
							Doc:    "Linux's DCTCP: g = 1/16, α₀ = 1.0, IW10 of MSS = the payload (1000 B when unknown), cwnd up to 1 GiB, slow start on",
							Source: dctcpSource,
							Config: func(env cc.Env) rp.DCTCPConfig {
								c := rp.DCTCPDefault(orBytes(env.Payload, dctcpMSS))
								c.SlowStart = true // Linux's; the window is not capped at a BDP
								return c
							},
						},
						{
							Name:   "hpcc",
							Doc:    "the HPCC paper's DCTCP: no slow start, cwnd starting at and capped by one bandwidth-delay product, link × base RTT (4.18688 µs when unknown, the base RTT of the harness's default scenario), at least 2 segments of MSS = the payload",
							Source: "[HPCC] §5.1",
							Config: func(env cc.Env) rp.DCTCPConfig {
								rtt := orTime(env.BaseRTT, dctcpBaseRTT)
								c := rp.DCTCPHPCCSim(env.Rate, rtt)
								c.MSS = orBytes(env.Payload, dctcpMSS)
								bdp := max(units.BytesIn(env.Rate, rtt), 2*c.MSS)
								c.InitialCwnd, c.MaxCwnd = bdp, bdp
								return c
							},
						},
					},
					Fields: []cc.Field[rp.DCTCPConfig]{
						{
							Param: cc.Param{
								Name: "mss", Min: "1B", Max: rp.DCTCPMaxSegment.String(),
								Doc:    "maximum segment size: the additive-increase step and the unit of the 2-segment floor",
								Source: dctcpSource,
							},
							Ptr: func(c *rp.DCTCPConfig) any { return &c.MSS },
						},
						{
							Param: cc.Param{
								Name: "initial_cwnd", Min: "2B", Max: rp.DCTCPMaxCwnd.String(),
								Doc:    "window at start, 2·mss..max_cwnd",
								Source: "Linux IW10 ([RFC6928]); [HPCC] §5.1 (one BDP)",
							},
							Ptr: func(c *rp.DCTCPConfig) any { return &c.InitialCwnd },
						},
						{
							Param: cc.Param{
								Name: "max_cwnd", Min: "2B", Max: rp.DCTCPMaxCwnd.String(),
								Doc:    "cap on cwnd (saturating), at least 2·mss",
								Source: "[HPCC] §5.1 (one BDP)",
							},
							Ptr: func(c *rp.DCTCPConfig) any { return &c.MaxCwnd },
						},
						{
							Param: cc.Param{
								Name: "dctcp_shift_g", Unit: "shift (g = 2^-shift)", Min: "0", Max: strconv.Itoa(rp.DCTCPMaxShiftG),
								Doc:    "gain of the α filter, g = 2^-dctcp_shift_g",
								Source: dctcpSource + " (module parameter dctcp_shift_g, default 4)",
							},
							Ptr: func(c *rp.DCTCPConfig) any { return &c.ShiftG },
						},
						{
							Param: cc.Param{
								Name: "dctcp_alpha_on_init", Unit: "Q10 (" + alphaOne + " = 1.0)", Min: "0", Max: alphaOne,
								Doc:    "α at start",
								Source: dctcpSource + " (module parameter dctcp_alpha_on_init, default 1024)",
							},
							Ptr: func(c *rp.DCTCPConfig) any { return &c.InitialAlpha },
						},
						{
							Param: cc.Param{
								Name:   "slow_start",
								Doc:    "slow start below ssthresh (Linux's; the HPCC paper removes it)",
								Source: dctcpSource + "; [HPCC] §5.1",
							},
							Ptr: func(c *rp.DCTCPConfig) any { return &c.SlowStart },
						},
						{
							Param: cc.Param{
								Name: "initial_seq", Unit: "32-bit sequence number", Min: "0", Max: strconv.FormatUint(math.MaxUint32, 10),
								Doc:    "first sequence number; packet and ACK byte offsets are added to it modulo 2^32",
								Source: "[RFC9293] (ISN)",
							},
							Ptr: func(c *rp.DCTCPConfig) any { return &c.InitialSeq },
						},
					},
					New: func(c rp.DCTCPConfig) (cc.Part, error) {
						p, err := rp.NewDCTCP(c)
						if err != nil {
							return nil, err
						}
						return p, nil
					},
				},
			},
		},
	})
}
