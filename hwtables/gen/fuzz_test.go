package gen

import (
	"testing"

	"github.com/hwcc/hwcc/hwtables"
	"github.com/stretchr/testify/require"
)

func TestParseEps(t *testing.T) {
	for _, c := range []struct {
		in   string
		want uint   // e, if err is ""
		err  string // a substring of the error
	}{
		{"2^-7", 7, ""},
		{" 2^(-12) ", 12, ""},
		{"1/128", 7, ""},
		{"1/2", 1, ""},
		{"0.0078125", 7, ""},
		{"7.8125e-3", 7, ""},
		{"2^-16", 16, ""},
		{"0.01", 0, `eps "0.01" is not a power of two`},
		{"2^-17", 0, `eps "2^-17" = 2^-17 out of range [2^-16, 2^-1]`},
		{"1", 0, "= 2^0 out of range"},
		{"1/3", 0, "power-of-two denominator"},
		{"1/0", 0, "power-of-two denominator"},
		{"2^x", 0, "integer e"},
		{"NaN", 0, `eps "NaN": want 2^-e`},
		{"", 0, `eps ""`},
	} {
		e, err := ParseEps(c.in)
		if c.err != "" {
			require.ErrorContains(t, err, c.err, c.in)
			continue
		}
		require.NoError(t, err, c.in)
		require.Equal(t, c.want, e, c.in)
	}
	require.Equal(t, "2^-7", FormatEps(hwtables.DefaultEpsLog2))
}

// FuzzParseEps checks that ParseEps never panics and that whatever it
// accepts is a power of two in range that FormatEps writes back.
func FuzzParseEps(f *testing.F) {
	for _, s := range []string{
		"2^-7",      // the default, as the command's help writes it
		"0.0078125", // the same, decimal
		"1/128",     // the same, as a fraction
		"2^(-12)",   // parenthesised exponent
		"0.01",      // not a power of two
		"2^-17",     // out of range
		"1",         // 2^0, out of range
		"-0.5",      // negative
		"NaN", "", "2^", "1/0",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := ParseEps(s)
		if err != nil {
			return
		}
		if e < hwtables.MinEpsLog2 || e > hwtables.MaxEpsLog2 {
			t.Fatalf("ParseEps(%q) = %d out of range", s, e)
		}
		back, err := ParseEps(FormatEps(e))
		if err != nil || back != e {
			t.Fatalf("ParseEps(FormatEps(%d)) = %d, %v", e, back, err)
		}
	})
}
