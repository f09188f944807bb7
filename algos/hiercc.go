package algos

import (
	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/hiercc"
	"github.com/hwcc/hwcc/units"
)

// hierccLink is the default link rate of the hiercc rp presets: the
// paper's 25 Gb/s server links (papers/hiercc.txt section 2.2, the
// topology of section 5). The "link" setting, or the NIC's rate where the
// part runs, changes it.
const hierccLink = 25 * units.Gbps

// hierccPaper cites the paper's sections for the presets.
const hierccPaper = "papers/hiercc.txt section 4 (sender-side implementation: a mark every 10 µs, rate packets), section 2.2 (25 Gb/s servers)"

func init() {
	cc.MustRegisterAlgorithm(cc.Algorithm{
		Name:  "hiercc",
		Title: "HierCC",
		Paper: "Zhang et al., HierCC: Hierarchical RDMA Congestion Control, APNet 2021 (papers/hiercc.txt sections 3 to 5); " +
			"the ToRs' state machines are package hiercc's SenderToR, ReceiverToR and FirstHop",
		Doc: "flows aggregated per destination host in VOQs at the sender-side ToR, credited by the receiver-side ToR's " +
			"weighted round robin; each VOQ's first-hop rate (equation (1)) is sent to the hosts in answer to marked packets",
		Parts: []cc.PartSpec{
			{
				Name: "rp",
				Role: cc.RoleRP,
				Doc:  "the host of one flow: marks a packet every 10 µs (Packet.Echo bit 0, the header's reserved bit) and paces at the rate its ToR's rate packets give, gated while stopped (hiercc.Host)",
				Config: &cc.Spec[hiercc.HostConfig]{
					Link: hierccLink,
					Presets: []cc.Preset[hiercc.HostConfig]{
						{
							Name:   "paper",
							Doc:    "marks every 10 µs, starts at the link's line rate (hiercc.PaperHost)",
							Source: hierccPaper,
							Config: cc.OfLink(hiercc.PaperHost),
						},
					},
					Fields: []cc.Field[hiercc.HostConfig]{
						{
							Param: cc.Param{
								Name: "line_rate", Min: "1kbps", Max: hiercc.MaxRate.String(),
								Doc:    "the NIC's line rate: the initial rate and the ceiling of every rate packet's rate; the preset sets it to the link",
								Source: hierccPaper,
							},
							Ptr: func(c *hiercc.HostConfig) any { return &c.LineRate },
						},
						{
							Param: cc.Param{
								Name: "mark_interval", Min: "1ns", Max: "1s",
								Doc:    "least time between two marked packets (the first packet is marked)",
								Source: "papers/hiercc.txt section 4 (10 µs)",
							},
							Ptr: func(c *hiercc.HostConfig) any { return &c.MarkInterval },
						},
					},
					New: dcqcnNew(hiercc.NewHost),
				},
			},
		},
	})
}
