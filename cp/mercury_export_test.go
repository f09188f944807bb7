package cp

import "github.com/hwcc/hwcc/cc"

// MercuryFlowHash exposes the flow hash to the tests.
var MercuryFlowHash = mercuryFlowHash

// MercuryFlowSlot is the slot (src, dst) takes in every port's table.
func MercuryFlowSlot(s *Mercury, src, dst cc.NodeID) uint32 {
	return mercuryFlowHash(src, dst) & s.mask
}
