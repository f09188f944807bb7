package algos

import (
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// bfcLink, bfcRTT and bfcHopRTT are the presets' defaults where the
// environment says nothing: a 100 Gb/s port or NIC, a 12 µs path, and a
// hop's round trip of two 1 µs propagation delays plus a frame each way
// and the pause's wait behind one (docs/derivations.md, "BFC").
const (
	bfcLink   = 100 * units.Gbps
	bfcRTT    = 12 * units.Microsecond
	bfcHopRTT = 3 * units.Microsecond
)

const bfcPaper = "[BFC] §3 and §4 (hwcc's reading: docs/derivations.md, \"BFC\")"

type (
	bfcSW = cp.BFCConfig
	bfcRP = rp.BFCConfig
)

// bfcSwitch is the sw part's preset where it runs: the switch's ports,
// their rates and which face hosts, its ID.
func bfcSwitch(env cc.Env) bfcSW {
	ports := max(env.Ports, 1)
	c := cp.BFCPaper(ports, orRate(env.Rate, bfcLink), bfcHopRTT)
	c.SwitchID = env.SwitchID & wire.BFCMaxSwitch
	envPortRates(c.Rates, env)
	if len(env.SwitchPorts) == ports {
		c.Edge = make([]bool, ports)
		for i, p := range env.SwitchPorts {
			c.Edge[i] = p.Edge
		}
	}
	return c
}

// bfcSender is the rp part's preset: a window of one bandwidth-delay
// product of the flow's path.
func bfcSender(env cc.Env) bfcRP {
	return rp.BFCPaper(orRate(env.Rate, bfcLink), orTime(env.BaseRTT, bfcRTT))
}

// bfcMessages: the pause is a link-level control frame, as a PFC frame is
// (a minimum Ethernet frame, 64 bytes), at the control priority.
var bfcMessages = []cc.MessageKind{
	{Kind: wire.FeedbackBFCPause, Name: "bfc-pause", Frame: wire.MinFrameBytes, Prio: cc.ControlPrio},
}

func init() {
	minT, maxT := cp.BFCMinTime.String(), cp.BFCMaxTime.String()
	swFields := []cc.Field[bfcSW]{
		xpField("queues", "queues", "1", strconv.Itoa(cp.BFCMaxQueues), "physical queues per egress port (the switch's scheduler must keep as many: harness switch.queues)",
			"[BFC] §3 (32 per port on the paper's switch)", func(c *bfcSW) any { return &c.Queues }),
		xpField("table_bits", "bits", strconv.Itoa(cp.BFCMinTableBits), strconv.Itoa(cp.BFCMaxTableBits), "each egress port's flow table has 2^table_bits entries, indexed by CRC-32C of the flow",
			"hwcc (the paper keeps one table per switch)", func(c *bfcSW) any { return &c.TableBits }),
		xpField("hop_rtt", "", minT, maxT, "the round trip of one hop, pause and effect included: the pause threshold is µ·hop_rtt/N_active",
			"[BFC] §3 (the threshold); hwcc's 3 µs: 2 × 1 µs links, a frame each way and the pause's wait", func(c *bfcSW) any { return &c.HopRTT }),
		xpField("min_threshold", "", "1B", cp.BFCMaxThreshold.String(), "the smallest pause threshold, whatever N_active",
			"hwcc (two full frames)", func(c *bfcSW) any { return &c.MinThreshold }),
		xpField("lease", "", "0s", wire.BFCMaxLease.String(), "how long a pause holds the upstream queue without a resume (0: until resumed); bounds the cost of a lost resume",
			"hwcc (64 × hop_rtt); the paper's pauses hold until resumed", func(c *bfcSW) any { return &c.Lease }),
		xpField("repause", "", "0s", maxT, "least time between two pauses of one upstream while a paused flow keeps arriving from it (0: never again); bounds the cost of a lost pause",
			"hwcc (2 × hop_rtt)", func(c *bfcSW) any { return &c.Repause }),
		xpField("prio", "", "0", strconv.Itoa(cp.BFCMaxPrio), "the data priority BFC runs on",
			"hwcc (the harness's data priority)", func(c *bfcSW) any { return &c.Prio }),
	}
	rpFields := []cc.Field[bfcRP]{
		xpField("window", "", "0B", rp.BFCMaxWindow.String(), "the most unacknowledged payload of a flow (0: none); the preset's is line rate × the flow's base RTT",
			"hwcc (one BDP per flow, as the paper's senders cap their inflight bytes; docs/derivations.md)", func(c *bfcRP) any { return &c.Window }),
	}
	cc.MustRegisterAlgorithm(cc.Algorithm{
		Name: "bfc",
		Deploy: cc.Deployment{
			CP: "-", NP: "-", NoAcks: true,
			Network:  map[string]string{"scheduler": "queues"},
			Messages: bfcMessages,
			Doc: "every switch runs the bfc sw part (cp.BFC): each egress port keeps 32 physical queues (the harness's switch.scheduler queues, " +
				"served by deficit round robin) and a flow table; a flow with no packet at the port takes an empty queue, and a flow whose " +
				"queue passes µ·hop_rtt/N_active is paused at its upstream: the queue it left the previous switch by (named by the tag that " +
				"switch wrote into the packet), whose switch stops serving it, or the flow itself at its sender (a first hop); resumed when " +
				"the queue drains to the threshold or the flow leaves; pauses are 64-byte control frames with a lease; every flow's sender " +
				"runs the bfc rp (rp.BFC): line rate, a window of one BDP, stopped while paused; no congestion point, no receiver part, no " +
				"ACK reaches the rp; the scenario's PFC stays as a backstop",
		},
		Title: "BFC",
		Paper: "[BFC] (Goyal et al., NSDI 2022), as [RoCC] §VI compares it; constants: docs/derivations.md, \"BFC\"",
		Doc: "per-hop, per-flow backpressure: each switch egress port assigns flows to a few physical queues and pauses, at the " +
			"previous hop, the queue (or the sender's flow) feeding a queue above µ·hop_rtt/N_active",
		Parts: []cc.PartSpec{
			{
				Name: "sw",
				Role: cc.RoleSW,
				Doc:  "one switch's egress ports: the flow tables, the queue assignment, the pauses it sends upstream and the holds its downstream asks for (cp.BFC)",
				Config: &cc.Spec[bfcSW]{
					Presets: []cc.Preset[bfcSW]{{
						Name: "paper",
						Doc: "32 queues per port, threshold µ·hop_rtt/N_active (hop_rtt 3 µs, at least 2 KB); hwcc's 2^10 flow entries per port, " +
							"leases of 64·hop_rtt, a pause again after 2·hop_rtt while the upstream keeps sending; ports, rates and ID from the environment",
						Source: bfcPaper,
						Config: bfcSwitch,
					}},
					Fields: swFields,
					New:    dcqcnNew(cp.NewBFC),
				},
			},
			{
				Name: "rp",
				Role: cc.RoleRP,
				Doc:  "the sender of one flow: line rate, a window, stopped while its first-hop switch has it paused (rp.BFC)",
				Config: &cc.Spec[bfcRP]{
					Presets: []cc.Preset[bfcRP]{{
						Name:   "paper",
						Doc:    "line rate, a window of one BDP (the NIC's rate × the flow's base RTT)",
						Source: bfcPaper,
						Config: bfcSender,
					}},
					Fields: rpFields,
					New:    dcqcnNew(rp.NewBFC),
				},
			},
		},
	})
}
