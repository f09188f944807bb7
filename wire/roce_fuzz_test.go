package wire_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/wire"
)

// checkDecodeErr fails unless err is a *cc.DecodeError whose offset lies
// within the input (len(b) for a short one).
func checkDecodeErr(t *testing.T, err error, b []byte) {
	t.Helper()
	if !cc.Typed(err) {
		t.Fatalf("untyped error %v", err)
	}
	var d *cc.DecodeError
	if !errors.As(err, &d) {
		t.Fatalf("error %T %v, want *cc.DecodeError", err, err)
	}
	if d.Offset < 0 || d.Offset > len(b) {
		t.Fatalf("offset %d outside the %d input bytes: %v", d.Offset, len(b), err)
	}
}

// FuzzBTH decodes arbitrary bytes as a BTH: it never panics, every error
// is a *cc.DecodeError with an offset inside the input, and what decodes
// encodes (Encode, Put, AppendTo) to the same 12 bytes.
func FuzzBTH(f *testing.F) {
	f.Add([]byte{0x0A, 0xA0, 0x80, 0x01, 0x80, 0x12, 0x34, 0x56, 0x80, 0xAB, 0xCD, 0xEF})
	f.Add(goldenCNP[:])
	f.Add(make([]byte, 12))
	f.Add(bytes.Repeat([]byte{0xFF}, 12))
	f.Add([]byte{0x81, 0x00})
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := wire.DecodeBTH(b)
		if err != nil {
			checkDecodeErr(t, err, b)
			return
		}
		if err := h.Validate(); err != nil {
			t.Fatalf("decoded %+v does not validate: %v", h, err)
		}
		out, err := h.Encode()
		if err != nil || !bytes.Equal(out[:], b[:12]) {
			t.Fatalf("decoded %+v encodes to % x (%v), want % x", h, out, err, b[:12])
		}
		buf := make([]byte, 12)
		if err := h.Put(buf); err != nil || !bytes.Equal(buf, b[:12]) {
			t.Fatalf("Put % x (%v)", buf, err)
		}
		app, err := h.AppendTo(nil)
		if err != nil || !bytes.Equal(app, b[:12]) {
			t.Fatalf("AppendTo % x (%v)", app, err)
		}
	})
}

// FuzzCNP decodes arbitrary bytes as a CNP: it never panics, every error
// is a *cc.DecodeError with an offset inside the input, and what decodes
// encodes to the same 32 bytes, its BTH to the first 12 of them.
func FuzzCNP(f *testing.F) {
	f.Add(goldenCNP[:])
	f.Add(append(goldenCNP[:], 0xEE))
	f.Add(goldenCNP[:31])
	f.Add(make([]byte, 32))
	f.Add(bytes.Repeat([]byte{0xFF}, 32))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := wire.DecodeCNP(b)
		if err != nil {
			checkDecodeErr(t, err, b)
			return
		}
		out, err := c.Encode()
		if err != nil || !bytes.Equal(out[:], b[:32]) {
			t.Fatalf("decoded %+v encodes to % x (%v), want % x", c, out, err, b[:32])
		}
		app, err := c.AppendTo(nil)
		if err != nil || !bytes.Equal(app, b[:32]) {
			t.Fatalf("AppendTo % x (%v)", app, err)
		}
		hb, err := c.BTH().Encode()
		if err != nil || !bytes.Equal(hb[:], b[:12]) {
			t.Fatalf("BTH % x (%v)", hb, err)
		}
	})
}
