package algos

import (
	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/units"
)

// The CBFC scenario: link-level credits instead of PFC ([IBA] §7.9;
// [Survey] §3.1).
const (
	cbfcIncastName    = "cbfc-incast"
	cbfcIncastSenders = 16
	cbfcIncastSize    = 1 * units.MB
	// cbfcIncastBuffer is the switch buffer: a quarter of what the incast
	// offers (16 × 1 MB), so that without link flow control the switch
	// drops, while it holds the CBFC receive buffers of all 17 ports
	// (17 × 128 KiB = 2.2 MB) and PFC's headroom.
	cbfcIncastBuffer = 4 * units.MB
)

// cbfcIncastScenario: `senders` flows of `size` into h0 at 100 Gb/s with
// no end-to-end congestion control (algorithm none: every flow at line
// rate), so that the link flow control alone keeps the switch from
// dropping: CBFC (the default here), PFC (-set flow_control=pfc) or none
// (-set flow_control=none, which drops). -algo runs an end-to-end scheme
// on top (DCQCN, HPCC).
func cbfcIncastScenario() *harness.Scenario {
	s := hpccBase("N-to-1 with InfiniBand credit-based flow control instead of PFC: `senders` (16) flows of `size` (1MB) into h0 at line rate, " +
		"a 4 MB switch; compare -set flow_control=pfc and none")
	s.Algorithm = "none"
	s.Switch.FlowControl = harness.FlowCBFC
	s.Switch.Buffer = harness.Bytes(cbfcIncastBuffer)
	incastOf(s, cbfcIncastSenders, cbfcIncastSize)
	return s
}

func init() { registerBuiltins([]builtinScenario{{cbfcIncastName, cbfcIncastScenario}}) }
