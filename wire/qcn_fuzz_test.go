package wire

import (
	"slices"
	"testing"

	"github.com/hwcc/hwcc/cc"
)

// FuzzDecodeCNM: arbitrary bytes decode without panic to a message or a
// *cc.DecodeError at an offset within the input (or at len(b) for a short
// one); what decodes re-encodes to the same first 16 bytes and validates.
func FuzzDecodeCNM(f *testing.F) {
	f.Add(CNM{QntzFb: 63, CPID: 1, QOffset: -5, QDelta: 7, Prio: 3}.Append(nil))
	f.Add([]byte{})
	f.Add(make([]byte, 15))
	f.Add([]byte{0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{0, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xee})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := DecodeCNM(b)
		if err != nil {
			var de *cc.DecodeError
			if !cc.Typed(err) || !cnmAsDecode(err, &de) {
				t.Fatalf("error %T is not a *cc.DecodeError: %v", err, err)
			}
			if de.Offset < 0 || de.Offset > min(len(b), CNMLen) {
				t.Fatalf("offset %d outside the input (%d bytes)", de.Offset, len(b))
			}
			return
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("decoded %+v does not validate: %v", m, err)
		}
		if enc := m.Append(nil); !slices.Equal(enc, b[:CNMLen]) {
			t.Fatalf("% x re-encodes as % x", b[:CNMLen], enc)
		}
	})
}

func cnmAsDecode(err error, de **cc.DecodeError) bool {
	d, ok := err.(*cc.DecodeError)
	*de = d
	return ok
}
