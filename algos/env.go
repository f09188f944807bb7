package algos

import "github.com/hwcc/hwcc/units"

// orBytes returns v, or d when v is 0 (an environment field that is
// unknown).
func orBytes(v, d units.Bytes) units.Bytes {
	if v > 0 {
		return v
	}
	return d
}

// orTime returns v, or d when v is 0.
func orTime(v, d units.Time) units.Time {
	if v > 0 {
		return v
	}
	return d
}

// orRate returns v, or d when v is 0.
func orRate(v, d units.Rate) units.Rate {
	if v > 0 {
		return v
	}
	return d
}
