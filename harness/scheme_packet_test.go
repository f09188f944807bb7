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
	require.Equal(t, 10, reflect.TypeOf(cc.Packet{}).NumField(), "cc.Packet changed: update schemeCP.packet and this test")
	p := &Packet{Flow: 3, Src: 4, Dst: 5, Seq: 6, Payload: 7, Size: 8, Prio: 2, CE: true, HasTel: true}
	p.Tel.Len, p.Tel.Data[0] = 2, 0x10
	p.Hdr[0], p.Hdr[15] = 1, 2
	want := cc.Packet{Flow: 3, Src: 4, Dst: 5, Seq: 6, Payload: 7, Size: 8, Prio: 2, CE: true, Tel: &p.Tel, Hdr: p.Hdr}
	// A stale value in every field, as the previous event leaves it.
	var stale cc.Telemetry
	w := &schemeCP{pkt: cc.Packet{Flow: 1, Src: 1, Dst: 1, Seq: 1, Payload: 1, Size: 1, Prio: 1, Tel: &stale, Hdr: [cc.PacketHdrLen]byte{9, 9, 9}}}
	got := w.packet(p)
	require.Equal(t, want, *got)
	require.Same(t, &p.Tel, got.Tel, "the CP pushes onto the frame's own stack")
	p.HasTel, p.CE = false, false
	p.Hdr = [cc.PacketHdrLen]byte{}
	want.Tel, want.CE, want.Hdr = nil, false, p.Hdr
	require.Equal(t, want, *w.packet(p))
}
