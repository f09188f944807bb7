package algos

import (
	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// The ExpressPass scenarios ([ExpressPass] §6).
const (
	expressPassIncastName   = "expresspass-incast"
	expressPassFairnessName = "expresspass-fairness"
	// expressPassPayload makes a full data frame exactly the 1538 wire
	// bytes one credit pays for (1456 + 62 B of headers + 20 B of
	// preamble and gap).
	expressPassPayload = wire.ExpressPassFrameBytes - harness.DataOverheadBytes - harness.PreambleIFGBytes
	expressPassSenders = 16
	expressPassSize    = 1 * units.MB
	expressPassFlows   = 4
	expressPassStep    = 1 * units.Millisecond
)

// expressPassCompare are the algorithms the ExpressPass scenarios run
// side by side (the command's comparison table; -algo runs one).
var expressPassCompare = []string{expressPassName, hpccName, dcqcnName}

// expressPassBase is the 100 Gb/s star of the HPCC scenarios with
// 1538-byte frames, compared under expresspass, hpcc and dcqcn.
func expressPassBase(desc string) *harness.Scenario {
	s := hpccBase(desc)
	s.Algorithm = expressPassName
	s.Compare = append([]string(nil), expressPassCompare...)
	s.NIC.Payload = harness.Bytes(expressPassPayload)
	return s
}

// expressPassIncastScenario: `senders` flows of `size` start together into
// h0, the incast of HPCC's section 5.4 with ExpressPass's frames.
func expressPassIncastScenario() *harness.Scenario {
	s := expressPassBase("ExpressPass incast: `senders` (16) flows of `size` (1MB) start together into h0 across one 100 Gb/s switch, 1538 B frames")
	incastOf(s, expressPassSenders, expressPassSize)
	return s
}

// expressPassFairnessScenario: flows joining a bottleneck one by one and
// leaving in reverse order (the shape of the paper's convergence figures
// and HPCC's Fig. 9g), one every `step`.
func expressPassFairnessScenario() *harness.Scenario {
	s := expressPassBase("ExpressPass fairness: `senders` (4) long flows into h0 join one every `step` (1ms), then leave in reverse order, 1538 B frames")
	s.SampleInterval = harness.Time(hpccFairSample)
	fairnessOf(s, expressPassFlows, expressPassStep)
	return s
}

func init() {
	registerBuiltins([]builtinScenario{
		{expressPassIncastName, expressPassIncastScenario},
		{expressPassFairnessName, expressPassFairnessScenario},
	})
}
