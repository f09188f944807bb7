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

// tableDigest is the 64-bit digest a part reports a whole table in (one
// register, so that a trace sees the table change without reading it):
// FNV-1a's offset basis and prime, over 64-bit words instead of bytes.
// It wraps (mod 2^64), as FNV does.
type tableDigest uint64

// newTableDigest returns the digest of nothing: FNV-1a's 64-bit offset
// basis.
func newTableDigest() tableDigest { return 14695981039346656037 }

// mix folds v into d: d ← (d xor v)·FNV's 64-bit prime, mod 2^64.
func (d *tableDigest) mix(v uint64) { *d = (*d ^ tableDigest(v)) * 1099511628211 }
