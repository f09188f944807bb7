package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hwcc/hwcc/hwtables"
	"github.com/hwcc/hwcc/hwtables/gen"
	"github.com/stretchr/testify/require"
)

// dataLines returns the non-comment, non-empty lines of a memh file.
func dataLines(s string) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "//") {
			out = append(out, l)
		}
	}
	return out
}

func TestTablesJSON(t *testing.T) {
	for _, c := range []struct {
		args []string
		want func() (*hwtables.Table, error)
	}{
		{[]string{"tables", "reciprocal", "-eps", "2^-7", "-format", "json"},
			func() (*hwtables.Table, error) { return hwtables.DefaultReciprocal(), nil }},
		{[]string{"tables", "reciprocal", "-eps", "0.0078125", "-format", "json"},
			func() (*hwtables.Table, error) { return hwtables.DefaultReciprocal(), nil }},
		{[]string{"tables", "reciprocal", "-eps", "2^-4", "-mant", "12", "-format", "json"},
			func() (*hwtables.Table, error) {
				return hwtables.NewReciprocal(hwtables.ReciprocalConfig{EpsLog2: 4, MantBits: 12})
			}},
		{[]string{"tables", "reciprocal-compact", "-bits", "8", "-format", "json"},
			func() (*hwtables.Table, error) { return hwtables.NewCompact(hwtables.CompactConfig{IndexBits: 8}) }},
	} {
		code, out, errOut := runArgs(c.args...)
		require.Equal(t, exitOK, code, "%v: %s", c.args, errOut)
		var doc gen.JSONTable
		require.NoError(t, json.Unmarshal([]byte(out), &doc), c.args)
		want, err := c.want()
		require.NoError(t, err)
		require.Equal(t, want.Kind().String(), doc.Table)
		require.Equal(t, want.Entries(), doc.Entries, c.args)
		require.Len(t, doc.Words, doc.Entries, c.args)
		require.Equal(t, want.Bytes(), doc.Bytes, c.args)
		require.Equal(t, (doc.Entries*doc.WordBits+7)/8, doc.Bytes, "bytes = entries packed at word_bits")
		require.Equal(t, gen.Measure(want).Worst(), doc.Params["measured_worst"], c.args)
		for i, w := range doc.Words {
			require.Equal(t, want.Word(i), w, "%v word %d", c.args, i)
		}
		if want.Kind() == hwtables.KindReciprocal {
			require.Equal(t, want.Eps(), doc.Params["eps"])
			require.Equal(t, float64(want.MantBits()), doc.Params["mant_bits"])
			require.Equal(t, float64(22+want.MantBits()), doc.Params["word_bits"])
		} else {
			require.Equal(t, float64(want.IndexBits()), doc.Params["index_bits"])
		}
	}
}

func TestTablesMemh(t *testing.T) {
	code, out, errOut := runArgs("tables", "reciprocal", "-eps", "2^-7", "-format", "memh")
	require.Equal(t, exitOK, code, errOut)
	lines := dataLines(out)
	d := hwtables.DefaultReciprocal()
	require.Len(t, lines, d.Entries(), "one memh line per entry")
	for i, l := range lines {
		v, err := strconv.ParseUint(l, 16, 32)
		require.NoError(t, err)
		require.Equal(t, d.Word(i), v)
	}
	// memh is the default format
	code, out2, _ := runArgs("tables", "reciprocal")
	require.Equal(t, exitOK, code)
	require.Equal(t, out, out2)

	code, out, _ = runArgs("tables", "reciprocal-compact", "-bits", "6")
	require.Equal(t, exitOK, code)
	require.Len(t, dataLines(out), 64)
}

func TestTablesC(t *testing.T) {
	code, out, errOut := runArgs("tables", "reciprocal-compact", "-bits", "4", "-format", "c")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "#ifndef HWCC_RECIPROCAL_COMPACT_K4_M8_H\n")
	require.Contains(t, out, "static const uint8_t hwcc_reciprocal_compact_k4_m8[16] = {\n")
	require.Contains(t, out, "#define HWCC_RECIPROCAL_COMPACT_K4_M8_ENTRIES 16\n")

	code, out, _ = runArgs("tables", "reciprocal", "-eps", "1/128", "-format", "c")
	require.Equal(t, exitOK, code)
	n := hwtables.DefaultReciprocal().Entries()
	require.Contains(t, out, "hwcc_reciprocal_e7_m10["+strconv.Itoa(n)+"] = {")
	require.Len(t, regexp.MustCompile(`0x[0-9a-f]{8}u,`).FindAllString(out, -1), n, "one initialiser per entry")
}

func TestTablesOutputFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "recip.json")
	code, out, errOut := runArgs("tables", "reciprocal", "-format", "json", "-o", path)
	require.Equal(t, exitOK, code, errOut)
	require.Empty(t, out, "nothing on stdout with -o")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc gen.JSONTable
	require.NoError(t, json.Unmarshal(b, &doc))
	require.Equal(t, hwtables.DefaultReciprocal().Entries(), doc.Entries)

	// An unwritable path is a failure (1), not a usage error.
	code, _, errOut = runArgs("tables", "reciprocal", "-o", filepath.Join(t.TempDir(), "no", "such", "dir", "f"))
	require.Equal(t, exitFail, code)
	require.Contains(t, errOut, "no such file or directory")
}

func TestTablesBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"tables"}, "usage: hwcc tables <table>"},
		{[]string{"tables", "inverse"}, `unknown table "inverse"`},
		{[]string{"tables", "-format", "json", "reciprocal"}, "name the table before the flags"},
		{[]string{"tables", "reciprocal", "-eps", "0.01"}, `eps "0.01" is not a power of two`},
		{[]string{"tables", "reciprocal", "-eps", "2^-20"}, `-eps: hwtables/gen: eps "2^-20" = 2^-20 out of range [2^-16, 2^-1]`},
		{[]string{"tables", "reciprocal", "-eps", "abc"}, `eps "abc"`},
		{[]string{"tables", "reciprocal", "-mant", "31"}, "-mant 31: want 1..30"},
		{[]string{"tables", "reciprocal", "-mant", "-3"}, `invalid value "-3" for flag -mant`},
		{[]string{"tables", "reciprocal", "-format", "verilog"}, `-format "verilog": want memh, c or json`},
		{[]string{"tables", "reciprocal", "-bits", "6"}, "flag provided but not defined: -bits"},
		{[]string{"tables", "reciprocal-compact", "-eps", "2^-7"}, "flag provided but not defined: -eps"},
		{[]string{"tables", "reciprocal-compact", "-bits", "0"}, "-bits 0: want 1..16"},
		{[]string{"tables", "reciprocal-compact", "-bits", "17"}, "-bits 17: want 1..16"},
		{[]string{"tables", "reciprocal-compact", "-bits", "8", "-mant", "4"}, "-mant 4: want 8..30"},
		{[]string{"tables", "reciprocal", "extra"}, `unexpected argument "extra"`},
	} {
		code, out, errOut := runArgs(c.args...)
		require.Equal(t, exitUsage, code, c.args)
		require.Empty(t, out, c.args)
		require.Contains(t, errOut, c.want, c.args)
	}
}

func TestTablesHelp(t *testing.T) {
	code, out, _ := runArgs("tables", "-h")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "reciprocal-compact")
	code, _, errOut := runArgs("tables", "reciprocal", "-h")
	require.Equal(t, exitOK, code)
	require.Contains(t, errOut, "-eps")
}
