package harness

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
)

// TestSchemePacketFields: schemeCP.packet, which assigns cc.Packet field by
// field, gives what the whole composite value gives, and writes every
// field (a field added to cc.Packet must be added there too).
func TestSchemePacketFields(t *testing.T) {
	require.Equal(t, 11, reflect.TypeOf(cc.Packet{}).NumField(), "cc.Packet changed: update schemeCP.packet and this test")
	p := &Packet{Flow: 3, Src: 4, Dst: 5, Seq: 6, Payload: 7, Size: 8, Prio: 2, CE: true, HasINT: true, Echo: 9}
	p.Hdr[0], p.Hdr[15] = 1, 2
	want := cc.Packet{Flow: 3, Src: 4, Dst: 5, Seq: 6, Payload: 7, Size: 8, Prio: 2, CE: true, INT: &p.INT, Hdr: p.Hdr}
	// A stale value in every field, as the previous event leaves it.
	w := &schemeCP{pkt: cc.Packet{Flow: 1, Src: 1, Dst: 1, Seq: 1, Payload: 1, Size: 1, Prio: 1, Echo: 1, INT: &p.INT}}
	require.Equal(t, want, *w.packet(p))
	p.HasINT, p.CE = false, false
	want.INT, want.CE = nil, false
	require.Equal(t, want, *w.packet(p))
}
