package gen

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/hwcc/hwcc/hwtables"
)

// ParseEps parses ε, the relative step of HPCC's reciprocal table, as users
// write it and returns e with ε = 2^-e (hwtables.ReciprocalConfig.EpsLog2):
// "2^-7", "2^(-7)", "1/128" or a decimal such as "0.0078125" or "7.8125e-3".
// ε must be exactly a power of two with e in [hwtables.MinEpsLog2,
// hwtables.MaxEpsLog2]; anything else (0.01, 2^-20, "abc") is an error that
// quotes the input.
func ParseEps(s string) (uint, error) {
	in := strings.TrimSpace(s)
	var e int
	switch {
	case strings.HasPrefix(in, "2^"):
		exp := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(in, "2^"), "("), ")")
		v, err := strconv.Atoi(exp)
		if err != nil {
			return 0, fmt.Errorf("hwtables/gen: eps %q: want 2^-e with an integer e", s)
		}
		e = -v
	case strings.HasPrefix(in, "1/"):
		d, err := strconv.ParseUint(in[2:], 10, 64)
		if err != nil || d == 0 || d&(d-1) != 0 {
			return 0, fmt.Errorf("hwtables/gen: eps %q: want 1/2^e, a power-of-two denominator", s)
		}
		e = 63
		for d>>uint(e) == 0 {
			e--
		}
	default:
		v, err := strconv.ParseFloat(in, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("hwtables/gen: eps %q: want 2^-e, 1/2^e or a decimal power of two such as 0.0078125", s)
		}
		frac, exp := math.Frexp(v) // v = frac·2^exp, frac ∈ [0.5, 1)
		if frac != 0.5 {
			return 0, fmt.Errorf("hwtables/gen: eps %q is not a power of two 2^-e", s)
		}
		e = 1 - exp
	}
	if e < hwtables.MinEpsLog2 || e > hwtables.MaxEpsLog2 {
		return 0, fmt.Errorf("hwtables/gen: eps %q = 2^%d out of range [2^-%d, 2^-%d]", s, -e, hwtables.MaxEpsLog2, hwtables.MinEpsLog2)
	}
	return uint(e), nil
}

// FormatEps returns ε = 2^-e as "2^-e", the form ParseEps reads back.
func FormatEps(e uint) string { return "2^-" + strconv.FormatUint(uint64(e), 10) }
