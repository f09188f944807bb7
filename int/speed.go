package inttel

import (
	"strconv"
	"strings"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// SpeedCode assigns a port rate to a 4-bit code B.
type SpeedCode struct {
	Code uint8      // 0..15 (MaxSpeed)
	Rate units.Rate // > 0, bit/s
}

// DefaultSpeedCodes returns the default assignment, in code order: the eight
// standard Ethernet rates numbered in increasing order. Figure 7 only says B
// is "the type of speed of the egress port (e.g. 40Gbps, 100Gbps, etc.)"; the
// authors' ns-3 code has 25..400 Gb/s only, so it fails on 10 and 40 Gb/s
// ports. Codes 8..15 are free for a configured table.
//
//	code  0   1   2   3   4    5    6    7
//	Gb/s  10  25  40  50  100  200  400  800
func DefaultSpeedCodes() []SpeedCode {
	return []SpeedCode{
		{0, 10 * units.Gbps}, {1, 25 * units.Gbps}, {2, 40 * units.Gbps}, {3, 50 * units.Gbps},
		{4, 100 * units.Gbps}, {5, 200 * units.Gbps}, {6, 400 * units.Gbps}, {7, 800 * units.Gbps},
	}
}

// SpeedTable maps the 4-bit speed code B to a port rate and back. Both
// lookups are constant-time array reads or a scan of at most 16 entries and
// never allocate. The zero value is an empty table in which every lookup
// fails. Build one with NewSpeedTable; a Codec holds one.
type SpeedTable struct {
	rate   [MaxSpeed + 1]units.Rate // code → rate; 0 marks an unassigned code
	byRate [MaxSpeed + 1]SpeedCode  // the n assigned entries, by increasing rate
	n      uint8
}

// NewSpeedTable validates entries and builds the table. Each code must be in
// 0..15 and used once, each rate must be > 0 and used once (otherwise
// rate → code would be ambiguous), and there must be at least one entry.
// Errors are *cc.ConfigError values  naming the entry, and
// wrap ErrConfig.
func NewSpeedTable(entries []SpeedCode) (SpeedTable, error) {
	var t SpeedTable
	bad := func(field, value, want string) error {
		return &cc.ConfigError{Part: "inttel.SpeedTable", Field: "Config.Speeds" + field, Value: value, Range: want, Err: ErrConfig}
	}
	idx := func(i int) string { return "[" + strconv.Itoa(i) + "]" }
	if len(entries) == 0 || len(entries) > MaxSpeed+1 {
		return SpeedTable{}, bad("", strconv.Itoa(len(entries))+" entries", "1.."+strconv.Itoa(MaxSpeed+1)+" entries (4-bit code)")
	}
	for i, e := range entries {
		switch {
		case e.Code > MaxSpeed:
			return SpeedTable{}, bad(idx(i)+".Code", strconv.Itoa(int(e.Code)), "0.."+strconv.Itoa(MaxSpeed)+" (4 bits)")
		case e.Rate <= 0:
			return SpeedTable{}, bad(idx(i)+".Rate", e.Rate.String(), "> 0")
		case t.rate[e.Code] != 0:
			return SpeedTable{}, bad(idx(i)+".Code", strconv.Itoa(int(e.Code)), "a code used once (it is "+t.rate[e.Code].String()+" already)")
		}
		if c, dup := t.Code(e.Rate); dup {
			return SpeedTable{}, bad(idx(i)+".Rate", e.Rate.String(), "a rate used once (it has code "+strconv.Itoa(int(c))+" already)")
		}
		t.rate[e.Code] = e.Rate
		// Insertion into byRate, kept sorted by rate (n ≤ 16).
		j := int(t.n)
		for j > 0 && t.byRate[j-1].Rate > e.Rate {
			t.byRate[j] = t.byRate[j-1]
			j--
		}
		t.byRate[j] = e
		t.n++
	}
	return t, nil
}

// Rate returns the rate of a speed code, and false if the code is not
// assigned (or above 15).
func (t *SpeedTable) Rate(code uint8) (units.Rate, bool) {
	if code > MaxSpeed || t.rate[code] == 0 {
		return 0, false
	}
	return t.rate[code], true
}

// Code returns the speed code of a rate, and false if the rate has none. The
// match is exact: a 99.99 Gb/s port has no code in the default table.
func (t *SpeedTable) Code(r units.Rate) (uint8, bool) {
	for _, e := range t.byRate[:t.n] {
		if e.Rate == r {
			return e.Code, true
		}
		if e.Rate > r {
			break
		}
	}
	return 0, false
}

// Len returns the number of assigned codes.
func (t *SpeedTable) Len() int { return int(t.n) }

// Entries appends the assignments to dst in code order and returns the
// extended slice.
func (t *SpeedTable) Entries(dst []SpeedCode) []SpeedCode {
	for c, r := range t.rate {
		if r != 0 {
			dst = append(dst, SpeedCode{Code: uint8(c), Rate: r})
		}
	}
	return dst
}

// String lists the assignments in code order, such as "0=10Gbps 1=25Gbps".
func (t *SpeedTable) String() string {
	var b strings.Builder
	for _, e := range t.Entries(nil) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.Itoa(int(e.Code)))
		b.WriteByte('=')
		b.WriteString(e.Rate.String())
	}
	return b.String()
}
