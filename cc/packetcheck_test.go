package cc_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
)

// BadPacket holds exactly for a nil packet or a negative Size or Payload,
// and PacketError names the first of them, in that order, in an
// *EventError of the part and event it is given.
func TestPacketCheck(t *testing.T) {
	for _, c := range []struct {
		p   *cc.Packet
		why string // "": a good packet
	}{
		{nil, "nil packet"},
		{&cc.Packet{Size: -1}, "packet size -1B is negative"},
		{&cc.Packet{Size: -1500, Payload: -3}, "packet size -1.5KB is negative"},
		{&cc.Packet{Size: 64, Payload: -3}, "payload -3B is negative"},
		{&cc.Packet{}, ""},
		{&cc.Packet{Size: 1500, Payload: 1400}, ""},
		{&cc.Packet{Size: 0, Payload: 1 << 40}, ""},
	} {
		err := cc.PacketError("cp.X", "Enqueue", c.p)
		require.Equal(t, c.why != "", cc.BadPacket(c.p), "%+v", c.p)
		if c.why == "" {
			require.NoError(t, err)
			continue
		}
		var ee *cc.EventError
		require.ErrorAs(t, err, &ee)
		require.ErrorIs(t, err, cc.ErrEvent)
		require.Equal(t, cc.EventError{Part: "cp.X", Event: "Enqueue", Reason: c.why}, *ee)
	}
}

// A good packet's check allocates nothing.
func TestPacketCheckNoAllocs(t *testing.T) {
	p := &cc.Packet{Size: 1500, Payload: 1400}
	require.Zero(t, testing.AllocsPerRun(1000, func() {
		if cc.BadPacket(p) || cc.PacketError("cp.X", "Enqueue", p) != nil {
			panic("refused")
		}
	}))
}
