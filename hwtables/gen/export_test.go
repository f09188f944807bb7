package gen

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hwcc/hwcc/hwtables"
	"github.com/stretchr/testify/require"
)

// toyTable is an Exportable of its own, to show the exporters do not
// depend on the reciprocal tables: three 12-bit words, two fields.
type toyTable struct{}

func (toyTable) Describe() Description {
	return Description{
		Name: "toy", Title: "a toy table", Source: "this test", Symbol: "hwcc_toy",
		Entries: 3, WordBits: 12, Bytes: 5,
		Fields: []Field{{"hi", 11, 4, "high byte"}, {"lo", 3, 0, "low nibble"}},
		Params: []Param{{"answer", 42}, {"ratio", 0.5}, {"label", "x"}},
		Notes:  []string{"a note with */ inside"},
	}
}

func (toyTable) Word(i int) uint64 { return []uint64{0xabc, 0x001, 0xfff}[i] }

// memhWords returns the non-comment lines of a $readmemh file.
func memhWords(t *testing.T, s string) []string {
	t.Helper()
	var out []string
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "//") {
			out = append(out, l)
		}
	}
	return out
}

func TestWriteMemh(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, WriteMemh(&b, toyTable{}))
	require.Equal(t, []string{"abc", "001", "fff"}, memhWords(t, b.String()), "3 hex digits for 12 bits")
	require.Contains(t, b.String(), "// answer = 42\n// ratio = 0.5\n// label = x\n")
	require.Contains(t, b.String(), "//   [11:4] hi: high byte\n")

	for _, tb := range []*hwtables.Table{hwtables.DefaultReciprocal(), hwtables.DefaultCompact()} {
		b.Reset()
		require.NoError(t, WriteMemh(&b, Table(tb)))
		words := memhWords(t, b.String())
		require.Len(t, words, tb.Entries(), "one line per entry")
		digits := (tb.WordBits() + 3) / 4
		for i, w := range words {
			require.Len(t, w, digits)
			v, err := strconv.ParseUint(w, 16, 64)
			require.NoError(t, err)
			require.Equal(t, tb.Word(i), v, "line %d", i)
		}
	}
}

func TestWriteC(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, WriteC(&b, toyTable{}))
	s := b.String()
	require.Contains(t, s, "#ifndef HWCC_TOY_H\n#define HWCC_TOY_H\n")
	require.Contains(t, s, "#define HWCC_TOY_HI_SHIFT 4\n#define HWCC_TOY_HI_MASK 0xffull\n")
	require.Contains(t, s, "static const uint16_t hwcc_toy[3] = {\n\t0xabcu, 0x001u, 0xfffu,\n};\n")
	start := strings.Index(s, "/*\n") + 3
	require.NotContains(t, s[start:strings.Index(s, " */\n#ifndef")], "*/", "comment not closed early")
	require.Contains(t, s, " * a note with * / inside\n")
	require.True(t, strings.HasSuffix(s, "#endif /* HWCC_TOY_H */\n"))

	lit := regexp.MustCompile(`0x([0-9a-f]+)u`)
	for _, tb := range []*hwtables.Table{hwtables.DefaultReciprocal(), hwtables.DefaultCompact()} {
		b.Reset()
		require.NoError(t, WriteC(&b, Table(tb)))
		s := b.String()
		d := Table(tb).Describe()
		typ := map[bool]string{true: "uint32_t", false: "uint16_t"}[tb.WordBits() > 16]
		decl := "static const " + typ + " " + d.Symbol + "[" + strconv.Itoa(tb.Entries()) + "] = {\n"
		require.Contains(t, s, decl)
		require.Contains(t, s, "#define "+strings.ToUpper(d.Symbol)+"_ENTRIES "+strconv.Itoa(tb.Entries())+"\n")
		body := s[strings.Index(s, decl)+len(decl) : strings.LastIndex(s, "};")]
		got := lit.FindAllStringSubmatch(body, -1)
		require.Len(t, got, tb.Entries(), "initialisers = array length")
		for i, m := range got {
			v, err := strconv.ParseUint(m[1], 16, 64)
			require.NoError(t, err)
			require.Equal(t, tb.Word(i), v, "element %d", i)
		}
	}
}

func TestWriteJSON(t *testing.T) {
	for _, tb := range []*hwtables.Table{hwtables.DefaultReciprocal(), hwtables.DefaultCompact()} {
		var b bytes.Buffer
		require.NoError(t, WriteJSON(&b, Table(tb)))
		var doc JSONTable
		require.NoError(t, json.Unmarshal(b.Bytes(), &doc))
		require.Equal(t, tb.Kind().String(), doc.Table)
		require.Equal(t, tb.Entries(), doc.Entries)
		require.Len(t, doc.Words, tb.Entries())
		require.Equal(t, tb.Bytes(), doc.Bytes)
		require.Equal(t, tb.WordBits(), doc.WordBits)
		m := Measure(tb)
		require.Equal(t, m.Worst(), doc.Params["measured_worst"])
		require.Equal(t, float64(m.MaxOverN), doc.Params["measured_max_over_n"])
		require.Equal(t, tb.Bound().Over, doc.Params["bound_over"])
		for i, w := range doc.Words {
			require.Equal(t, tb.Word(i), w)
			require.Equal(t, w&(1<<tb.MantBits()-1), doc.Values["mant_frac"][i])
		}
		if tb.Kind() == hwtables.KindReciprocal {
			require.Equal(t, 0.0078125, doc.Params["eps"])
			require.Equal(t, "2^-7", doc.Params["eps_pow2"])
			// the decoded keys are the stored n_k − 1, ascending from 0
			keys := doc.Values["n_minus_1"]
			require.Equal(t, uint64(0), keys[0])
			for i := 1; i < len(keys); i++ {
				require.Less(t, keys[i-1], keys[i])
			}
		}
	}
}

// failWriter fails every write.
type failWriter struct{}

var errDiskFull = errors.New("disk full")

func (failWriter) Write([]byte) (int, error) { return 0, errDiskFull }

func TestExportWriteErrors(t *testing.T) {
	for _, write := range []func() error{
		func() error { return WriteMemh(failWriter{}, toyTable{}) },
		func() error { return WriteC(failWriter{}, toyTable{}) },
		func() error { return WriteJSON(failWriter{}, toyTable{}) },
		func() error { return GenerateGo(failWriter{}) },
		func() error { return WriteMemh(failWriter{}, Table(hwtables.DefaultCompact())) },
	} {
		require.ErrorIs(t, write(), errDiskFull)
	}
}

// TestRoCCAutoTuneExport writes the 40 Gb/s table (Fmax = 4000 ΔF) and
// reads the words back.
func TestRoCCAutoTuneExport(t *testing.T) {
	tab, err := hwtables.NewRoCCAutoTune(4000)
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, WriteMemh(&b, RoCCAutoTune(tab)))
	// 4000 needs 12 bits, so three hex digits per word: 125, 250, 500, 1000,
	// 2000 are 07d, 0fa, 1f4, 3e8, 7d0.
	require.Equal(t, []string{"07d", "0fa", "1f4", "3e8", "7d0"}, memhWords(t, b.String()))
	require.Contains(t, b.String(), "// fmax = 4000\n// regions = 6\n// max_shift = 5\n")
	x := RoCCAutoTune(tab)
	require.Zero(t, x.Word(5), "out of range")
	require.Zero(t, x.Word(-1), "out of range")

	b.Reset()
	require.NoError(t, WriteJSON(&b, x))
	var doc JSONTable
	require.NoError(t, json.Unmarshal(b.Bytes(), &doc))
	require.Equal(t, "rocc_autotune", doc.Table)
	bounds := tab.Bounds()
	require.Equal(t, bounds[:], doc.Words)
	require.Equal(t, 12, doc.WordBits)
	require.Equal(t, 8, doc.Bytes, "5 × 12 bits = 60 bits")
}
