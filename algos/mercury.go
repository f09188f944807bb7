package algos

import (
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// mercuryLink and mercuryRTT are the presets' defaults where the
// environment says nothing: the paper's small-scale 40 Gb/s links, and its
// large-scale network's largest base RTT, 12 µs ("Experiment settings").
const (
	mercuryLink = 40 * units.Gbps
	mercuryRTT  = 12 * units.Microsecond
)

const mercuryPaper = "[Mercury] §\"Mercury design\", Algorithms 1 and 2 (reconstructed: docs/derivations.md)"

type (
	mercurySW = cp.MercuryConfig
	mercuryRP = rp.MercuryConfig
)

// mercurySwitch is the sw part's preset where it runs: the switch's ports
// and their rates, the network's base RTT (cc.Env.BaseRTT; 12 µs where
// unknown), the threshold from the fastest port.
func mercurySwitch(env cc.Env) mercurySW {
	line, rtt := orRate(env.Rate, mercuryLink), orTime(env.BaseRTT, mercuryRTT)
	ports := max(env.Ports, 1)
	c := cp.MercuryPaper(ports, line, rtt)
	envPortRates(c.Rates, env)
	return c
}

// envPortRates sets rates, a switch's per-port line rates, to the rates
// the environment gives its ports (env.SwitchPorts, when it describes as
// many ports), keeping the preset's where a port's is unknown (0).
func envPortRates(rates []units.Rate, env cc.Env) {
	if len(env.SwitchPorts) != len(rates) {
		return
	}
	for i, p := range env.SwitchPorts {
		if p.Rate > 0 {
			rates[i] = p.Rate
		}
	}
}

// mercurySender is the rp part's preset: DCQCN's paper parameters at
// the link's rate, the window C·baseRTT with the flow's (or the network's)
// base RTT.
func mercurySender(env cc.Env) mercuryRP {
	return rp.MercuryPaper(orRate(env.Rate, mercuryLink), orTime(env.BaseRTT, mercuryRTT))
}

// liftFields makes the parameters of a part's inner configuration D (the
// DCQCN rate controller inside Mercury's sender) parameters of C.
func liftFields[C, D any](fs []cc.Field[D], inner func(*C) *D) []cc.Field[C] {
	out := make([]cc.Field[C], len(fs))
	for i, f := range fs {
		ptr := f.Ptr
		out[i] = cc.Field[C]{Param: f.Param, Ptr: func(c *C) any { return ptr(inner(c)) }}
	}
	return out
}

// mercuryWindowFields are where the window travels, for both parts.
func mercuryWindowFields[C any](w func(*C) *wire.MercuryWindow) []cc.Field[C] {
	return []cc.Field[C]{
		xpField("window_offset", "byte", "0", strconv.Itoa(wire.MaxReservedWordOffset), "where the 32-bit window sits in the CNP's 16 reserved bytes (switch and senders must agree)",
			"hwcc (the paper: \"the 32-bit reserved segment in CNP\")", func(c *C) any { return &w(c).Offset }),
		{
			Param: cc.Param{
				Name: "window_order",
				Choices: []cc.Choice{
					{Name: "big", Value: int64(wire.MercuryBigEndian), Doc: "network byte order"},
					{Name: "little", Value: int64(wire.MercuryLittleEndian), Doc: "little-endian"},
				},
				Doc:    "the byte order of the window in the CNP",
				Source: "hwcc (the paper does not say)",
			},
			Ptr: func(c *C) any { return &w(c).Order },
		},
	}
}

func init() {
	minT, maxT := cp.MercuryMinTime.String(), cp.MercuryMaxTime.String()
	swFields := []cc.Field[mercurySW]{
		xpField("threshold", "", "1B", cp.MercuryMaxThreshold.String(), "the congestion threshold on an egress queue: above it a Determined port's flows are congested, and a resumed port's state is judged",
			"hwcc (the paper names it and gives no value): C·baseRTT/2 of the fastest port, at least 10 KB", func(c *mercurySW) any { return &c.Threshold }),
		xpField("period", "", minT, maxT, "T: an Undetermined port is checked on the first dequeue after T",
			"[Mercury] §\"Parameter settings\" (10 µs)", func(c *mercurySW) any { return &c.Period }),
		xpField("base_rtt", "", minT, maxT, "the one base RTT of every window, C·baseRTT·data_f/Σdata; the network's largest where the environment gives it",
			"[Mercury] §\"Discussions\" (\"baseRTT can be pre-configured\")", func(c *mercurySW) any { return &c.BaseRTT }),
		xpField("table_bits", "bits", strconv.Itoa(cp.MercuryMinTableBits), strconv.Itoa(cp.MercuryMaxTableBits), "each port's flow table has 2^table_bits entries, indexed by CRC-32C of (source, destination)",
			"hwcc (the paper: the egress port and a hash of the FID)", func(c *mercurySW) any { return &c.TableBits }),
		xpField("cnp_interval", "", "0s", maxT, "least time between two CNPs to one flow entry (0: a CNP for every packet of a congested flow)",
			"hwcc (DCQCN's NP interval, 50 µs)", func(c *mercurySW) any { return &c.CNPInterval }),
		xpField("prio", "", "0", strconv.Itoa(cp.MercuryMaxPrio), "the data priority whose queues and pauses the state machines follow",
			"hwcc (the harness's data priority)", func(c *mercurySW) any { return &c.Prio }),
	}
	swFields = append(swFields, mercuryWindowFields(func(c *mercurySW) *wire.MercuryWindow { return &c.Window })...)

	rpFields := []cc.Field[mercuryRP]{
		xpField("init_window", "", "1B", rp.MercuryMaxWindow.String(), "the window before any CNP and after reset_after without one: C·baseRTT",
			mercuryPaper+" (C × baseRTT)", func(c *mercuryRP) any { return &c.InitWindow }),
		xpField("reset_after", "", rp.MercuryMinResetAfter.String(), rp.MercuryMaxResetAfter.String(), "how long without a CNP returns the window to init_window",
			"hwcc (the paper: \"when congestion disappears\"): two CNP intervals, 100 µs", func(c *mercuryRP) any { return &c.ResetAfter }),
	}
	rpFields = append(rpFields, mercuryWindowFields(func(c *mercuryRP) *wire.MercuryWindow { return &c.Window })...)
	rpFields = append(rpFields, liftFields(dcqcnRPFields(), func(c *mercuryRP) *rp.DCQCNConfig { return &c.DCQCN })...)

	cc.MustRegisterAlgorithm(cc.Algorithm{
		Name: "mercury",
		Deploy: cc.Deployment{
			CP: "-", NP: "-", NoAcks: true, NetworkRTT: true,
			Doc: "every switch runs the mercury sw part (cp.Mercury): per egress port the Determined/Undetermined state machine, " +
				"driven by the PFC pauses and resumes of the data priority, and the flow table; a packet that joins a Determined port's " +
				"queue above the threshold makes its flow's entry send a CNP (at most one per 50 µs) to the flow's source, with the window " +
				"C·baseRTT·data_f/Σdata in its reserved bytes (baseRTT the network's largest); every flow's sender runs the mercury rp " +
				"(DCQCN's reaction point with its paper's parameters, plus that window, C·baseRTT at first and 100 µs after the last CNP); " +
				"no congestion point marks, no receiver sends CNPs, no ACK reaches the rp; CNPs are RoCEv2 CNP frames",
		},
		Title: "Mercury",
		Paper: "[Mercury] §\"Mercury design\" (its Algorithms 1 and 2 reconstructed from the text: docs/derivations.md)",
		Doc: "each switch egress port tells congestion from PFC's backlog (Determined/Undetermined); only flows through a congested " +
			"port get a CNP, which carries a window C·baseRTT·data_f/Σdata; senders run DCQCN plus that window",
		Parts: []cc.PartSpec{
			{
				Name: "sw",
				Role: cc.RoleSW,
				Doc:  "one switch's egress ports: the port state machine, the flow table, the window, the CNPs (cp.Mercury)",
				Config: &cc.Spec[mercurySW]{
					Presets: []cc.Preset[mercurySW]{{
						Name: "paper",
						Doc: "T = 10 µs; hwcc's threshold C·baseRTT/2 (at least 10 KB), 1024 flow entries per port, a CNP per flow entry per 50 µs at most, " +
							"the window big-endian in the first reserved bytes; the ports and the base RTT from the environment",
						Source: mercuryPaper,
						Config: mercurySwitch,
					}},
					Fields: swFields,
					New:    dcqcnNew(cp.NewMercury),
				},
			},
			{
				Name: "rp",
				Role: cc.RoleRP,
				Doc:  "the sender of one flow: DCQCN's reaction point unchanged, plus the window of the CNPs (rp.Mercury)",
				Config: &cc.Spec[mercuryRP]{
					Link: mercuryLink,
					Presets: []cc.Preset[mercuryRP]{{
						Name:   "paper",
						Doc:    "DCQCN with its paper's parameters, the window C·baseRTT, reset after 100 µs without a CNP (rp.MercuryPaper)",
						Source: mercuryPaper + " (\"the parameter settings recommended in their papers\"); DCQCN as the dcqcn rp's paper preset",
						Config: mercurySender,
					}},
					Fields: rpFields,
					New:    dcqcnNew(rp.NewMercury),
				},
			},
		},
	})
}
