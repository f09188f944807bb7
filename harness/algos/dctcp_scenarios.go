package algos

import (
	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/units"
)

// Scenario names.
const (
	dctcpFairnessName = "dctcp-fairness"
	dctcpIncastName   = "dctcp-incast"
)

// Defaults of the DCTCP scenarios.
const (
	dctcpScenarioLink = 10 * units.Gbps
	dctcpFairSettle   = 10 * units.Millisecond
	dctcpFairWindow   = 20 * units.Millisecond
)

func init() {
	registerBuiltins([]builtinScenario{
		{dctcpFairnessName, func() *harness.Scenario {
			return dcqcnFairnessScenario(dctcpName,
				"DCTCP fairness: `senders` (2) long flows into h0 at 10Gbps, one starting every `stagger` (1ms); measured over `window` (20ms) after `settle` (10ms)",
				dctcpScenarioLink, dcqcnFairnessSpec{senders: dcqcnFairSenders, stagger: dcqcnFairStagger, settle: dctcpFairSettle, window: dctcpFairWindow})
		}},
		{dctcpIncastName, func() *harness.Scenario {
			return dcqcnIncastScenario(dctcpName,
				"incast into a long flow at 10Gbps: long flow h1->h0; at `at` (1ms) `senders` (7) flows of `size` (500KB) from h2.. into h0",
				dctcpScenarioLink, dcqcnIncastSpec{senders: dcqcnIncastSenders, size: dcqcnIncastSize, at: dcqcnIncastAt})
		}},
	})
}
