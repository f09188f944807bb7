package algos

import (
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/voq"
	"github.com/hwcc/hwcc/wire"
)

// hierccLink is the default link rate of the hiercc rp presets: the paper's
// 25 Gb/s server links ([HierCC] §2.2, the topology of §5). The "link"
// setting, or the NIC's rate where the part runs, changes it.
const hierccLink = 25 * units.Gbps

// The sw part's table sizes where the caller says nothing: host numbers
// below 1024 (the paper's section 2.2 network has 320 servers), ToR
// identifiers below 256 (its 56 switches), one VOQ per host number.
const (
	hierccDests = 1024
	hierccToRs  = 256
)

// hierccToR is the sw part's paper preset where it runs: its ports from
// the environment (which face servers, and their hosts), its ToR
// identifier the switch's ID, and the servers' link rate the slowest edge
// port's (the "link" a preset scales with is a switch's fastest port, the
// fabric's; 25 Gb/s where no port faces a server).
func hierccToR(env cc.Env) cp.HierCCConfig {
	ports := make([]cp.HierCCPort, len(env.SwitchPorts))
	var line units.Rate
	for i, p := range env.SwitchPorts {
		ports[i] = cp.HierCCPort{Edge: p.Edge, Host: voq.Key(p.Host)}
		if p.Edge && p.Rate > 0 && (line == 0 || p.Rate < line) {
			line = p.Rate
		}
	}
	if line == 0 {
		line = hierccLink
	}
	return cp.HierCCPaper(env.SwitchID, ports, hierccDests, hierccToRs, line, cp.HierCCDefaultMTU)
}

// hierccHostEnv: the flow's size, so that its last packet is flagged.
func hierccHostEnv(c *rp.HierCCConfig, env cc.Env) {
	if env.Size > 0 {
		c.Size = env.Size
	}
}

type torCfg = cp.HierCCConfig

// hierccPaper cites the paper's sections for the presets.
const hierccPaper = "[HierCC] §4 (sender-side implementation: a mark every 10 µs, rate packets), §2.2 (25 Gb/s servers)"

func init() {
	cc.MustRegisterAlgorithm(cc.Algorithm{
		Name: "hiercc",
		Deploy: cc.Deployment{
			NoAcks: true,
			// The harness's VOQs, gated by credit at the ToRs for the
			// frames of their own servers, one port per destination.
			Network: map[string]string{
				"scheduler":  "voq-credit",
				"voq_gate":   "local",
				"ecmp":       "destination",
				"voq_credit": "0B",
			},
			Messages: hierccMessages,
			Doc: "every switch runs the hiercc sw part (cp.HierCC; a switch with no server port does nothing): at a ToR, the packets " +
				"its servers send wait in the harness's VOQs at the port they leave by (switch.scheduler voq-credit, gating at the ToRs " +
				"the frames of their own servers, switch.voq_gate local; each VOQ starts with no credit and the ToR grants C0 = 10 KB " +
				"when it opens), one port per destination (switch.ecmp destination: a VOQ is one queue), served round robin while " +
				"their credit is positive; the ToR stamps F_ij and S_ij on each, answers marked packets with rate packets (equation (1)), " +
				"and, at its server ports, sends credits of 1 KB by WRR to the VOQs sending there (its own rack's included), which the " +
				"sender-side ToR adds to the VOQ; every flow's " +
				"sender runs the hiercc rp (rp.HierCC: a mark every 10 µs, the first and last packet flagged, the rate packets " +
				"applied, gated while stopped); credit and rate packets are 78-byte control frames; no ACK reaches the rp",
		},
		Title: "HierCC",
		Paper: "[HierCC] §3 to §5; " +
			"the switch point is cp.HierCC (its sender side, receiver side and first hop)",
		Doc: "flows aggregated per destination host in VOQs at the sender-side ToR, credited by the receiver-side ToR's " +
			"weighted round robin; each VOQ's first-hop rate (equation (1)) is sent to the hosts in answer to marked packets",
		Parts: []cc.PartSpec{
			{
				Name: "sw",
				Role: cc.RoleSW,
				Doc: "one ToR, sender side and receiver side: VOQs per destination host with credit, F_ij and S_ij in the header, " +
					"equation (1) answering marked packets with rate packets, and per server port a WRR of credits to the VOQs sending to it; " +
					"switches with no server port do nothing (cp.HierCC)",
				Config: &cc.Spec[torCfg]{
					Presets: []cc.Preset[torCfg]{{
						Name: "paper",
						Doc: "C0 = 10 KB, Δ = 1 KB, β = 0.2, q0 = 20 KB, V_high = 70 KB, V_low = 50 KB, RTT_hop = 2 µs, updates every 10 µs, " +
							"the servers' link rate from the edge ports; hwcc's stop table of 64 flows per VOQ, rates floored at line/256 (burst 4, unused)",
						Source: "[HierCC] §3.2, §3.3 and §5",
						Config: hierccToR,
					}},
					Fields: []cc.Field[torCfg]{
						xpField("c0", "", "0B", units.Bytes(voq.MaxCreditLimit).String(), "the credit a VOQ starts with, which the receiver side assumes it had",
							"[HierCC] §5 (10 KB)", func(c *torCfg) any { return &c.C0 }),
						xpField("delta", "", "1B", units.Bytes(wire.HierCCMaxCreditAmount).String(), "Δ, the bytes one credit lets a VOQ send; each server port sends one per Δ of its line time",
							"[HierCC] §3.2 and §5 (1 KB)", func(c *torCfg) any { return &c.Delta }),
						xpField("line_rate", "", wire.HierCCRateUnit.String(), wire.HierCCMaxRate.String(), "the servers' link rate: R_line of equation (1), the pace of each server port's credits; the preset takes the edge ports'",
							"[HierCC] §2.2 (25 Gb/s)", func(c *torCfg) any { return &c.FirstHop.LineRate }),
						xpField("min_rate", "", wire.HierCCRateUnit.String(), wire.HierCCMaxRate.String(), "the floor of equation (1)'s rate (only a stop sets 0)",
							"hwcc (the paper states none): line/256", func(c *torCfg) any { return &c.FirstHop.MinRate }),
						xpField("beta", "fraction, held in Q0.16", xpFloat(cp.HierCCMinBeta), xpFloat(cp.HierCCMaxBeta), "β: the VOQ's excess over q0 is drained in RTT_hop/β",
							"[HierCC] §3.3 and §5 (0.2)", func(c *torCfg) any { return &c.FirstHop.Beta }),
						xpField("q0", "", "0B", units.Bytes(voq.MaxQueueLimit).String(), "the VOQ length equation (1) steers to (below v_low)",
							"[HierCC] §5 (20 KB)", func(c *torCfg) any { return &c.FirstHop.Q0 }),
						xpField("v_high", "", "1B", units.Bytes(voq.MaxQueueLimit).String(), "stop the VOQ's sources above it",
							"[HierCC] §5 (70 KB)", func(c *torCfg) any { return &c.FirstHop.VHigh }),
						xpField("v_low", "", "1B", units.Bytes(voq.MaxQueueLimit).String(), "resume them, at the rate before the stop, below it",
							"[HierCC] §5 (50 KB)", func(c *torCfg) any { return &c.FirstHop.VLow }),
						xpField("rtt_hop", "", cp.HierCCMinPeriod.String(), cp.HierCCMaxPeriod.String(), "RTT_hop, the server-to-ToR round trip of the drain term",
							"[HierCC] §3.3 (\"quite small like 2us\")", func(c *torCfg) any { return &c.FirstHop.RTTHop }),
						xpField("period", "", "0s", cp.HierCCMaxPeriod.String(), "how often R_credit and R_arrive are measured and equation (1) runs (0: rtt_hop/β)",
							"[HierCC] §3.3 (every RTT_hop/β)", func(c *torCfg) any { return &c.FirstHop.Period }),
						{
							Param: cc.Param{
								Name: "first_case",
								Choices: []cc.Choice{
									{Name: "below-q0", Value: int64(cp.HierCCBelowQ0), Doc: "R = R_line while the VOQ is below q0 (the printed \"Q_voq < 0\" read as Q_voq − q0 < 0)"},
									{Name: "empty", Value: int64(cp.HierCCEmpty), Doc: "R = R_line only while the VOQ is empty"},
									{Name: "never", Value: int64(cp.HierCCNever), Doc: "never: \"Q_voq < 0\" as printed, which a queue length never meets; R always follows the second case"},
								},
								Doc:    "the reading of equation (1)'s first case",
								Source: "[HierCC] equation (1); hwcc's reading",
							},
							Ptr: func(c *torCfg) any { return &c.FirstHop.FirstCase },
						},
						xpField("update_while_stopped", "", "", "", "keep running equation (1) while the VOQ is stopped and resume with its latest R (off: R frozen at the stop, resumed as it was)",
							"[HierCC] §3.3 (off: \"the previous rate value before stopping\"); on is hwcc's", func(c *torCfg) any { return &c.FirstHop.UpdateWhileStopped }),
						xpField("stop_flows", "flows", "1", strconv.Itoa(cp.HierCCMaxStopFlows), "flows per VOQ the ToR remembers stopping, to resume them",
							"hwcc (the paper does not say how the ToR knows whom to resume)", func(c *torCfg) any { return &c.StopFlows }),
						xpField("stop_on_arrival", "", "", "", "while a VOQ is stopped, stop every flow at its next packet, marked or not (off: only marked packets are answered)",
							"hwcc (a mark comes every 10 µs, five RTT_hop)", func(c *torCfg) any { return &c.StopOnArrival }),
						xpField("burst", "credits", "1", strconv.Itoa(cp.HierCCMaxBurst), "kept for configurations that set it; no longer read: a late timer sends every credit it missed (cp.HierCCConfig.Burst)",
							"hwcc", func(c *torCfg) any { return &c.Burst }),
						xpField("dests", "hosts", "1", strconv.Itoa(voq.MaxKeys), "host numbers the VOQs are keyed by: 0..dests−1",
							"[HierCC] §3.1 (N VOQs per ToR)", func(c *torCfg) any { return &c.Dests }),
						xpField("voqs", "VOQs", "0", strconv.Itoa(voq.MaxSlots), "the VOQ table's size (0: dests)",
							"[HierCC] §4 (VOQ table sizes)", func(c *torCfg) any { return &c.VOQs }),
						xpField("tors", "ToRs", "1", strconv.Itoa(cp.HierCCMaxToRs), "ToR identifiers 0..tors−1 each server port keeps a WRR entry for",
							"[HierCC] §3.2", func(c *torCfg) any { return &c.ToRs }),
						xpField("mtu", "", "1B", units.Bytes(voq.MaxPacket).String(), "the largest frame the VOQs take, in wire bytes",
							"hwcc (a 9216-byte jumbo frame)", func(c *torCfg) any { return &c.MTU }),
					},
					New: dcqcnNew(cp.NewHierCC),
				},
			},
			{
				Name: "rp",
				Role: cc.RoleRP,
				Doc:  "the host of one flow: marks a packet every 10 µs (bit 0 of its header byte 1, the reserved bit), flags its first and last packet (bits 1 and 2, the ToR's flow count) and paces at the rate its ToR's rate packets give, gated while stopped (rp.HierCC)",
				Config: &cc.Spec[rp.HierCCConfig]{
					Link: hierccLink,
					Presets: []cc.Preset[rp.HierCCConfig]{
						{
							Name:   "paper",
							Doc:    "marks every 10 µs, starts at the link's line rate (rp.HierCCPaper)",
							Source: hierccPaper,
							Config: cc.OfLink(rp.HierCCPaper),
						},
					},
					Fields: []cc.Field[rp.HierCCConfig]{
						{
							Param: cc.Param{
								Name: "line_rate", Min: wire.HierCCRateUnit.String(), Max: wire.HierCCMaxRate.String(),
								Doc:    "the NIC's line rate: the initial rate and the ceiling of every rate packet's rate; the preset sets it to the link",
								Source: hierccPaper,
							},
							Ptr: func(c *rp.HierCCConfig) any { return &c.LineRate },
						},
						{
							Param: cc.Param{
								Name: "mark_interval", Min: rp.HierCCMinMarkInterval.String(), Max: rp.HierCCMaxMarkInterval.String(),
								Doc:    "least time between two marked packets (the first packet is marked)",
								Source: "[HierCC] §4 (10 µs)",
							},
							Ptr: func(c *rp.HierCCConfig) any { return &c.MarkInterval },
						},
						{
							Param: cc.Param{
								Name: "size", Min: "0B", Max: rp.HierCCMaxSize.String(),
								Doc:    "the flow's payload bytes: the packet that reaches it is flagged last (0: open-ended); the environment's flow size where given",
								Source: "hwcc (RoCEv2's LAST opcode carries the same)",
							},
							Ptr: func(c *rp.HierCCConfig) any { return &c.Size },
						},
					},
					Env: hierccHostEnv,
					New: dcqcnNew(rp.NewHierCC),
				},
			},
		},
	})
}

// hierccMessages: the credit packet (receiver-side ToR → sender-side ToR)
// and the rate packet (sender-side ToR → host) each carry 16 bytes, as a
// RoCEv2 CNP does: 78-byte frames at the control priority. The paper gives
// no format (wire.HierCCCreditPacket, wire.HierCCRatePacket are hwcc's).
var hierccMessages = []cc.MessageKind{
	{Kind: wire.FeedbackHierCCCredit, Name: "credit", Frame: wire.CNPFrameBytes, Prio: cc.ControlPrio},
	{Kind: wire.FeedbackHierCCRate, Name: "rate", Frame: wire.CNPFrameBytes, Prio: cc.ControlPrio},
}
