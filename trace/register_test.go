package trace

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hwcc/hwcc/cc"
)

// registerForms are register encodings around the edges of the fast form:
// what the OutputWriter writes, and the JSON it does not write (spaces,
// escapes, leading zeros, signs, exponents, out-of-range widths and values,
// other element counts, non-ASCII names).
var registerForms = []string{
	`["rc",32,24000]`, `["d",8,-1]`, `["",1,0]`, `["x",64,18446744073709551615]`,
	`["x",64,-9223372036854775808]`, `["x",64,18446744073709551616]`, `["x",64,-9223372036854775809]`,
	`["x",8,-0]`, `["x",0,0]`, `["x",255,1]`, `["x",256,1]`, `["x",-1,1]`,
	`["x",01,2]`, `["x",1,02]`, `["x",1,-02]`, `["x",+1,2]`, `["x",1,+2]`, `["x",1,--2]`,
	`["x",1,2e3]`, `["x",1,2.0]`, `["x",1,]`, `["x",,1]`, `["x",1,2,3]`, `["x",1]`,
	`[ "x",1,2]`, `["x", 1,2]`, `["x",1, 2]`, `["x",1,2 ]`, ` ["x",1,2]`,
	`["a\"b",1,2]`, `["a\u0041",1,2]`, `["a\/b",1,2]`, `["é",1,2]`, "[\"a\tb\",1,2]",
	`["a"b",1,2]`, `["a",1,2`, `"a",1,2]`, `[1,2,3]`, `["a",true,2]`, `["a",1,null]`,
}

// checkFastRegister: where fastRegister accepts raw, the encoding/json
// decoder accepts it too and gives the same register.
func checkFastRegister(t *testing.T, raw []byte) (fast bool) {
	r, ok := fastRegister(raw)
	if !ok {
		return false
	}
	want, err := slowRegister(1, "registers[0]", raw)
	if err != nil {
		t.Fatalf("%s: fast form %+v, the JSON decoder refuses it: %v", raw, r, err)
	}
	if r != want {
		t.Fatalf("%s: fast form %+v, the JSON decoder %+v", raw, r, want)
	}
	return true
}

// TestFastRegisterAgreesWithJSON runs the check over registerForms and
// over what the OutputWriter writes for registers of every width and sign,
// which must all take the fast form.
func TestFastRegisterAgreesWithJSON(t *testing.T) {
	fast := 0
	for _, s := range registerForms {
		if checkFastRegister(t, []byte(s)) {
			fast++
		}
	}
	if fast < 8 || fast == len(registerForms) {
		t.Fatalf("%d of %d forms took the fast path: the list no longer reaches both paths", fast, len(registerForms))
	}
	for _, r := range []cc.Register{
		{Name: "rc", Width: 32, Value: 24000}, {Name: "w", Width: 64, Value: 1<<64 - 1},
		cc.SignedReg("d", 8, -1), cc.SignedReg("m", 64, -1<<63), {Name: "z", Width: 1},
	} {
		line, err := AppendOutput(nil, &Output{N: 1, Registers: []cc.Register{r}})
		if err != nil {
			t.Fatal(err)
		}
		_, elem, _ := bytes.Cut(line, []byte(`"registers":[`))
		elem, _, _ = bytes.Cut(elem, []byte(`],"next_deadline"`))
		if !checkFastRegister(t, elem) {
			t.Fatalf("%s: the writer's form of %+v does not take the fast path", elem, r)
		}
		if got, _ := fastRegister(elem); got != r {
			t.Fatalf("%s: read back as %+v, written from %+v", elem, got, r)
		}
	}
}

// TestReadRegisterByHand pins what the reader makes of some of
// registerForms, written out from the format (["name", width, value], a
// negative value as its two's complement in width bits): accepted forms
// with their registers, refused ones with the element they name.
func TestReadRegisterByHand(t *testing.T) {
	for _, c := range []struct {
		in   string
		want cc.Register
	}{
		{`["rc",32,24000]`, cc.Register{Name: "rc", Width: 32, Value: 24000}},
		{`["d",8,-1]`, cc.Register{Name: "d", Width: 8, Value: 0xff, Signed: true}},
		{`["x",64,18446744073709551615]`, cc.Register{Name: "x", Width: 64, Value: 1<<64 - 1}},
		{`["x",64,-9223372036854775808]`, cc.Register{Name: "x", Width: 64, Value: 1 << 63, Signed: true}},
		{`[ "x", 1, 0 ]`, cc.Register{Name: "x", Width: 1}},
		{`["a\u0041",1,1]`, cc.Register{Name: "aA", Width: 1, Value: 1}},
	} {
		got, err := readRegister(3, "registers[0]", []byte(c.in))
		if err != nil || got != c.want {
			t.Errorf("%s: %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{`["x",01,2]`, `["x",1,02]`, `["x",1,+2]`, `["x",1,2e3]`, `["x",1,2.0]`,
		`["x",256,1]`, `["x",-1,1]`, `["x",64,18446744073709551616]`, `["x",64,-9223372036854775809]`,
		`["x",1,2,3]`, `["x",1]`, `[1,2,3]`, `["a",true,2]`, `["a",1,null]`} {
		if r, err := readRegister(3, "registers[0]", []byte(in)); err == nil {
			t.Errorf("%s: read as %+v, want a refusal", in, r)
		} else if !strings.Contains(err.Error(), "registers[0]") {
			t.Errorf("%s: %v does not name the element", in, err)
		}
	}
}

// FuzzFastRegister: fastRegister and the encoding/json decoder agree
// wherever the fast form accepts an input.
func FuzzFastRegister(f *testing.F) {
	for _, s := range registerForms {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkFastRegister(t, []byte(s))
	})
}
