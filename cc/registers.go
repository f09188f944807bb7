package cc

import (
	"strconv"

	"github.com/hwcc/hwcc/units"
)

// Register is a snapshot of one register: its name, its width in bits and
// its value. Value holds the register's bits: an unsigned register's value,
// or a signed register's two's complement in its low Width bits. A value
// always fits its width (rule 7): Value < 2^Width.
//
// Names are fixed strings, so appending a snapshot allocates nothing beyond
// growing the caller's slice. A part's snapshot lists its registers in the
// same order every time; tables (a flow table) are summarised by their
// occupancy and checksum-free counters rather than dumped entry by entry.
type Register struct {
	Name   string
	Width  uint8
	Signed bool
	Value  uint64
}

// Reg returns an unsigned register of width bits (1..64) holding v. It does
// not cut v to the width: a value that does not fit is a part's bug, which
// Fits (and cctest's registers rule) reports.
func Reg(name string, width uint8, v uint64) Register {
	return Register{Name: name, Width: width, Value: v}
}

// SignedReg returns a signed register of width bits holding v in two's
// complement in its low width bits. A v outside the width's signed range
// (a part's bug) is stored as all ones, which fits no width below 64, so
// that Fits reports it.
func SignedReg(name string, width uint8, v int64) Register {
	r := Register{Name: name, Width: width, Signed: true, Value: uint64(v)}
	if width >= 1 && width < 64 {
		lo, hi := -(int64(1) << (width - 1)), int64(1)<<(width-1)-1
		if v >= lo && v <= hi {
			r.Value &= widthMask(width)
		} else {
			r.Value = ^uint64(0)
		}
	}
	return r
}

// BoolReg returns a 1-bit register: 1 for true.
func BoolReg(name string, b bool) Register {
	var v uint64
	if b {
		v = 1
	}
	return Register{Name: name, Width: 1, Value: v}
}

// TimeReg returns a 64-bit signed register holding t in picoseconds.
func TimeReg(name string, t units.Time) Register { return SignedReg(name, 64, int64(t)) }

// BytesReg returns a 64-bit signed register holding n bytes.
func BytesReg(name string, n units.Bytes) Register { return SignedReg(name, 64, int64(n)) }

// RateReg returns a 64-bit signed register holding r in bit/s.
func RateReg(name string, r units.Rate) Register { return SignedReg(name, 64, int64(r)) }

// Int returns the register's value as a signed integer: sign-extended from
// its width when Signed.
func (r Register) Int() int64 {
	if !r.Signed || r.Width >= 64 || r.Width == 0 {
		return int64(r.Value)
	}
	shift := 64 - uint(r.Width)
	return int64(r.Value<<shift) >> shift
}

// Fits reports whether the value fits the width (and the width is 1..64).
func (r Register) Fits() bool {
	return r.Width >= 1 && r.Width <= 64 && r.Value&^widthMask(r.Width) == 0
}

// String formats the register as "name[width]=value", the value in decimal
// (signed registers sign-extended).
func (r Register) String() string {
	v := strconv.FormatUint(r.Value, 10)
	if r.Signed {
		v = strconv.FormatInt(r.Int(), 10)
	}
	return r.Name + "[" + strconv.Itoa(int(r.Width)) + "]=" + v
}

// widthMask is 2^width − 1 (all ones for width ≥ 64).
func widthMask(width uint8) uint64 {
	if width >= 64 {
		return ^uint64(0)
	}
	return 1<<width - 1
}
