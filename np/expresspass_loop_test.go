package np_test

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/np"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// The receiver with its peer, rp.ExpressPass, in a loop.

// expressPassRef is an independent encoder of a control packet written
// from its layout table (wire.ExpressPassPacket) with encoding/binary:
// type, version 1, two zero bytes, then flow, seq and ts as big-endian
// 32-bit words.
func expressPassRef(p wire.ExpressPassPacket) []byte {
	b := []byte{byte(p.Type), 1, 0, 0}
	b = binary.BigEndian.AppendUint32(b, uint32(p.Flow))
	b = binary.BigEndian.AppendUint32(b, p.Seq)
	return binary.BigEndian.AppendUint32(b, p.TS)
}

// An NP and an RP in a loop whose network drops every fourth credit: the
// sender spends every credit it gets, the receiver measures 25 % credit
// loss from the echoes, above the 12.5 % target, and cuts its rate well
// below the initial rate. (Not to the floor: at two credits a period the
// periods see 0 % or 50 % loss, and the 0 % ones increase.)
func TestExpressPassLoopLoss(t *testing.T) {
	cfg := np.ExpressPassPaper(100 * units.Gbps)
	cfg.JitterMin, cfg.JitterMax = 0, 0
	r, err := np.NewExpressPass(cfg)
	require.NoError(t, err)
	x, err := rp.NewExpressPass(rp.ExpressPassPaper())
	require.NoError(t, err)
	ra, xa := cc.NewActions(1), cc.NewActions(1)
	require.NoError(t, x.Timer(0, xa))
	require.NoError(t, r.Feedback(0, &xa.All()[0].Feedback, ra))
	start := r.State().Rate
	deliver := func(at units.Time) {
		fb := ra.At(0).Feedback
		ra.Reset()
		if fb.Seq%4 == 0 {
			return // dropped by a switch's credit queue
		}
		xa.Reset()
		require.NoError(t, x.Feedback(at, &fb, xa))
		p := cc.Packet{Payload: 1000, Size: 1082}
		require.NoError(t, x.Sent(at, &p, xa))
		require.NoError(t, r.Receive(at, &p, ra))
	}
	deliver(0)
	for range 3000 {
		d := r.NextDeadline()
		require.NoError(t, r.Timer(d, ra))
		deliver(d)
	}
	s := r.State()
	require.Positive(t, s.Updates)
	require.Less(t, s.Rate, start/2, "from %v", start)
	require.InDelta(t, 0.25, float64(s.Lost)/float64(s.Lost+s.Echoes), 0.01)
}

// TestExpressPassWireImages: in a receiver–sender loop, every message
// carries its wire image in Data: the request and the stop (seq 0) and
// each credit (its Seq), each with the flow and the time it was sent in
// whole nanoseconds; the sender takes the credits with their images.
func TestExpressPassWireImages(t *testing.T) {
	rx, err := np.NewExpressPass(np.ExpressPassPaper(100 * units.Gbps))
	require.NoError(t, err)
	cfg := rp.ExpressPassPaper()
	cfg.Size, cfg.Flow = 5000, 0x0A0B0C0D
	cfg.Start = 3 * units.Microsecond // built when the flow starts: its first request is due then
	tx, err := rp.NewExpressPass(cfg)
	require.NoError(t, err)
	act := cc.NewActions(2)
	image := func(f cc.Feedback, typ wire.ExpressPassType, seq uint32, now units.Time) {
		t.Helper()
		want := wire.ExpressPassPacket{Type: typ, Flow: cfg.Flow, Seq: seq, TS: uint32(now / units.Nanosecond)}
		require.Equal(t, expressPassRef(want), f.Data[:], "%v at %v", f.Kind, now)
		require.Equal(t, typ.Kind(), f.Kind)
	}

	start := cfg.Start
	require.Equal(t, start, tx.NextDeadline())
	require.NoError(t, tx.Timer(start, act))
	req := act.At(0).Feedback
	image(req, wire.ExpressPassTypeRequest, 0, start)
	act.Reset()
	require.NoError(t, rx.Feedback(start, &req, act))
	var stop *cc.Feedback
	for sent := uint64(0); stop == nil; sent += 1000 {
		now := rx.Last()
		c := act.At(0).Feedback
		image(c, wire.ExpressPassTypeCredit, uint32(c.Seq), now)
		act.Reset()
		require.NoError(t, tx.Feedback(now, &c, act))
		p := cc.Packet{Flow: cfg.Flow, Seq: sent, Payload: 1000, Size: 1082}
		require.NoError(t, tx.Sent(now, &p, act))
		echo, err := wire.ExpressPassEcho(&p.Hdr)
		require.NoError(t, err)
		require.Equal(t, c.Seq, echo)
		if act.Len() > 0 {
			s := act.At(0).Feedback
			image(s, wire.ExpressPassTypeStop, 0, now)
			stop = &s
			break
		}
		require.NoError(t, rx.Timer(rx.NextDeadline(), act))
	}
	require.Equal(t, uint64(5), tx.State().Credits)
	act.Reset()
	require.NoError(t, rx.Feedback(rx.Last(), stop, act))
	require.False(t, rx.State().Active)
}

// TestExpressPassImagesNoAllocs: a credit leaving the receiver with its
// image, taken by the sender (which decodes it), spent and echoed: no
// allocation.
func TestExpressPassImagesNoAllocs(t *testing.T) {
	rx, err := np.NewExpressPass(np.ExpressPassPaper(100 * units.Gbps))
	require.NoError(t, err)
	tx, err := rp.NewExpressPass(rp.ExpressPassPaper())
	require.NoError(t, err)
	act := cc.NewActions(4)
	require.NoError(t, tx.Timer(0, act))
	req := act.At(0).Feedback
	act.Reset()
	require.NoError(t, rx.Feedback(0, &req, act))
	p := cc.Packet{Payload: 1000, Size: 1082}
	var fb cc.Feedback
	var errs int
	require.Zero(t, testing.AllocsPerRun(1000, func() {
		act.Reset()
		now := rx.NextDeadline()
		if rx.Timer(now, act) != nil {
			errs++
		}
		fb = act.At(0).Feedback
		act.Reset()
		if tx.Feedback(now, &fb, act) != nil || tx.Sent(now, &p, act) != nil || rx.Receive(now, &p, act) != nil {
			errs++
		}
	}))
	require.Zero(t, errs)
	require.NotEqual(t, [16]byte{}, fb.Data)
}
