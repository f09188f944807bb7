package mercury

import "github.com/hwcc/hwcc/cc"

// FlowHash exposes the flow hash to the tests.
var FlowHash = flowHash

// FlowEntry is s.Entry.
func FlowEntry(s *Switch, out int, src, dst cc.NodeID) uint32 { return s.Entry(out, src, dst) }

// FlowSlot is the slot (src, dst) takes in every port's table.
func FlowSlot(s *Switch, src, dst cc.NodeID) uint32 { return flowHash(src, dst) & s.mask }
