package cp

import (
	"strconv"

	"github.com/hwcc/hwcc/cc"
)

// regMap is the register map of a part that composes others or repeats a
// block of registers per port: the name each of its registers takes,
// built once when the part is made, so that every name is unique (the
// key a trace, the C ABI and an RTL bench read a register by) and
// AppendRegisters still appends without allocating.
type regMap []string

// add appends the names of regs, each after prefix.
func (m regMap) add(prefix string, regs []cc.Register) regMap {
	for _, r := range regs {
		m = append(m, prefix+r.Name)
	}
	return m
}

// portPrefix returns "port<i>.", the prefix of port i's block.
func portPrefix(i int) string { return "port" + strconv.Itoa(i) + "." }

// apply names regs, the registers the map was built from, in order.
func (m regMap) apply(regs []cc.Register) {
	for i := range min(len(regs), len(m)) {
		regs[i].Name = m[i]
	}
}
