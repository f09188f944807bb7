package rp

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cc/cctest"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// expressPassEchoOf is the echo p's header carries; it must decode.
func expressPassEchoOf(t testing.TB, p *cc.Packet) uint64 {
	t.Helper()
	e, err := wire.ExpressPassEcho(&p.Hdr)
	require.NoError(t, err)
	return e
}

func expressPassSender(t testing.TB, edit func(c *ExpressPassConfig)) *ExpressPass {
	t.Helper()
	c := ExpressPassPaper()
	if edit != nil {
		edit(&c)
	}
	x, err := NewExpressPass(c)
	require.NoError(t, err)
	return x
}

// The sender: the first timer requests credits and arms the
// retransmission; credits fill the FIFO (the rest are wasted); Limits
// counts them in frame bytes; Sent spends the oldest and echoes it.
func TestExpressPassSender(t *testing.T) {
	x := expressPassSender(t, func(c *ExpressPassConfig) { c.Depth = 2; c.Flow = 9 })
	require.Equal(t, units.Time(0), x.NextDeadline())
	require.Equal(t, cc.Limits{Credited: true}, x.Limits())
	act := cc.NewActions(2)
	require.NoError(t, x.Timer(0, act))
	require.Equal(t, []cc.Action{{Kind: cc.ActionFeedback, To: cc.ToDestination, Prio: cc.ControlPrio,
		Feedback: cc.Feedback{Kind: cc.FeedbackCreditRequest, Flow: 9,
			Data: [16]byte{1, 1, 0, 0, 0, 0, 0, 9}}}}, act.All()) // request, version 1, flow 9, seq 0, at 0 ns
	require.Equal(t, 100*units.Microsecond, x.NextDeadline())
	act.Reset()
	require.NoError(t, x.Timer(100*units.Microsecond, act), "no credit yet: resend")
	require.Equal(t, 1, act.Len())
	require.Equal(t, 200*units.Microsecond, x.NextDeadline())
	act.Reset()
	for _, s := range []uint64{7, 8, 9} {
		require.NoError(t, x.Feedback(150*units.Microsecond, &cc.Feedback{Kind: cc.FeedbackCredit, Flow: 9, Seq: s}, act))
	}
	require.Zero(t, act.Len())
	require.Equal(t, units.MaxTime, x.NextDeadline(), "credits came: no resend")
	require.Equal(t, cc.Limits{Credited: true, Credit: 2 * 1538}, x.Limits())
	require.Equal(t, uint64(1), x.State().Wasted)
	p := cc.Packet{Flow: 9, Payload: 1000, Size: 1082}
	require.NoError(t, x.Sent(151*units.Microsecond, &p, act))
	require.Equal(t, uint64(7), expressPassEchoOf(t, &p))
	require.NoError(t, x.Sent(151*units.Microsecond, &p, act))
	require.Equal(t, uint64(8), expressPassEchoOf(t, &p))
	require.Equal(t, cc.Limits{Credited: true}, x.Limits())
	// A NAK before the stop changes nothing but the time; ACKs, CNPs and
	// unknown kinds are not used: each is counted in unused_feedback, and
	// nothing else changes.
	before := x.AppendRegisters(nil)
	for _, k := range []cc.FeedbackKind{cc.FeedbackAck, cc.FeedbackCNP, cc.FeedbackNak, 200} {
		require.NoError(t, x.Feedback(152*units.Microsecond, &cc.Feedback{Kind: k}, act))
	}
	after := x.AppendRegisters(nil)
	n := len(after) - 1
	require.Equal(t, before[1:n], after[1:n])
	require.Equal(t, cc.Reg(cc.UnusedRegister, 64, 3), after[n], "ACK, CNP and kind 200")
	require.Zero(t, act.Len())
	// Malformed credits are refused.
	for _, s := range []uint64{0, 1 << 32} {
		require.ErrorIs(t, x.Feedback(153*units.Microsecond, &cc.Feedback{Kind: cc.FeedbackCredit, Seq: s}, act), cc.ErrEvent)
	}
}

// Sent without credit, or of a frame larger than a credit pays for, or
// with no packet, is refused atomically: registers, actions and p.Hdr as
// they were.
func TestExpressPassSentRefusedAtomically(t *testing.T) {
	x := expressPassSender(t, func(c *ExpressPassConfig) { c.Size = 1000 })
	act := cc.NewActions(4)
	require.NoError(t, x.Timer(0, act))
	act.Reset()
	check := func(p *cc.Packet) {
		t.Helper()
		before := x.AppendRegisters(nil)
		var hdr [cc.PacketHdrLen]byte
		if p != nil {
			hdr = p.Hdr
		}
		err := x.Sent(10, p, act)
		var ee *cc.EventError
		require.ErrorAs(t, err, &ee)
		require.Equal(t, before, x.AppendRegisters(nil))
		require.Zero(t, act.Len())
		if p != nil {
			require.Equal(t, hdr, p.Hdr)
		}
	}
	check(&cc.Packet{Payload: 1000, Size: 1082, Hdr: [cc.PacketHdrLen]byte{7: 99, 15: 1}}) // no credit
	require.NoError(t, x.Feedback(5, &cc.Feedback{Kind: cc.FeedbackCredit, Seq: 1}, act))
	check(&cc.Packet{Payload: 1500, Size: 1539, Hdr: [cc.PacketHdrLen]byte{7: 99, 15: 1}}) // larger than a credit
	check(&cc.Packet{Payload: -1, Size: 10})
	check(nil)
	// The last byte needs room for the stop: none, then refused too; a nil
	// Actions is refused whatever the frame (rule 3).
	before := x.AppendRegisters(nil)
	p := cc.Packet{Payload: 1000, Size: 1082}
	require.ErrorIs(t, x.Sent(10, &p, cc.NewActions(0)), cc.ErrActionsFull)
	require.ErrorIs(t, x.Sent(10, &p, nil), cc.ErrNoActions)
	require.Equal(t, before, x.AppendRegisters(nil))
	require.Zero(t, p.Hdr)
}

// A sized flow: the frame that covers the last byte sends the credit stop
// (once); later credits are late, one StopTimeout after the stop resends
// it; a NAK after the stop requests credits again. A long-lived flow
// (Size 0) never stops.
func TestExpressPassCreditStop(t *testing.T) {
	x := expressPassSender(t, func(c *ExpressPassConfig) { c.Size = 2500 })
	act := cc.NewActions(4)
	require.NoError(t, x.Timer(0, act))
	credit := func(at units.Time, s uint64) {
		t.Helper()
		act.Reset()
		require.NoError(t, x.Feedback(at, &cc.Feedback{Kind: cc.FeedbackCredit, Flow: 1, Seq: s}, act))
	}
	for s := uint64(1); s <= 4; s++ {
		credit(10, s)
	}
	for i, seq := range []uint64{0, 1000, 2000} {
		act.Reset()
		pay := units.Bytes(min(1000, 2500-int(seq)))
		require.NoError(t, x.Sent(20, &cc.Packet{Flow: 1, Seq: seq, Payload: pay, Size: pay + 82}, act))
		if i < 2 {
			require.Zero(t, act.Len(), "frame %d", i)
			continue
		}
		require.Equal(t, []cc.Action{{Kind: cc.ActionFeedback, To: cc.ToDestination, Prio: cc.ControlPrio,
			Feedback: cc.Feedback{Kind: cc.FeedbackCreditStop, Flow: 1,
				Data: [16]byte{2, 1, 0, 0, 0, 0, 0, 1}}}}, act.All()) // stop, version 1, flow 1, seq 0, at 20 ps = 0 ns
	}
	require.Equal(t, ExpressPassStopped, x.State().Phase)
	act.Reset()
	require.NoError(t, x.Sent(21, &cc.Packet{Flow: 1, Seq: 2000, Payload: 500, Size: 582}, act), "a resend of the last frame")
	require.Zero(t, act.Len(), "the stop is not sent twice")
	credit(30, 5)
	require.Zero(t, act.Len())
	require.Equal(t, uint64(1), x.State().Late)
	credit(20+100*units.Microsecond, 6)
	require.Equal(t, cc.FeedbackCreditStop, act.At(0).Feedback.Kind, "credits still come: stop again")
	act.Reset()
	require.NoError(t, x.Feedback(200*units.Microsecond, &cc.Feedback{Kind: cc.FeedbackNak, Seq: 1000}, act))
	require.Equal(t, cc.FeedbackCreditRequest, act.At(0).Feedback.Kind)
	require.Equal(t, ExpressPassRequested, x.State().Phase)

	long := expressPassSender(t, nil)
	require.NoError(t, long.Timer(0, act))
	credit2 := &cc.Feedback{Kind: cc.FeedbackCredit, Seq: 1}
	act.Reset()
	require.NoError(t, long.Feedback(1, credit2, act))
	require.NoError(t, long.Sent(2, &cc.Packet{Seq: 1 << 62, Payload: 1000, Size: 1082}, act))
	require.Zero(t, act.Len())
}

// Configuration errors name the field.
func TestExpressPassConfigErrors(t *testing.T) {
	for field, edit := range map[string]func(c *ExpressPassConfig){
		"FrameBytes":     func(c *ExpressPassConfig) { c.FrameBytes = 63 },
		"Depth":          func(c *ExpressPassConfig) { c.Depth = 17 },
		"RequestTimeout": func(c *ExpressPassConfig) { c.RequestTimeout = -1 },
		"StopTimeout":    func(c *ExpressPassConfig) { c.StopTimeout = 2 * units.Second },
		"Size":           func(c *ExpressPassConfig) { c.Size = -1 },
		"SeqBits":        func(c *ExpressPassConfig) { c.SeqBits = 7 },
	} {
		c := ExpressPassPaper()
		edit(&c)
		_, err := NewExpressPass(c)
		var ce *cc.ConfigError
		require.ErrorAs(t, err, &ce, field)
		require.Equal(t, field, ce.Field)
	}
}

// TestExpressPassSenderImageRefused: a credit whose Data is not all zero
// must decode as a credit with the credit's Seq and Flow; otherwise the
// sender refuses it with a typed error and changes nothing (in every
// phase). The image's time is not compared; all-zero Data is no image.
func TestExpressPassSenderImageRefused(t *testing.T) {
	img := func(p wire.ExpressPassPacket) [16]byte {
		var d [16]byte
		copy(d[:], expressPassRef(p))
		return d
	}
	credit5 := wire.ExpressPassPacket{Type: wire.ExpressPassTypeCredit, Flow: 1, Seq: 5, TS: 40}
	bad := func(d [16]byte) [16]byte { d[1] = 2; return d } // version 2
	for _, tc := range []struct {
		name   string
		seq    uint64
		data   [16]byte
		decode bool // the refusal wraps a *cc.DecodeError
	}{
		{"does not decode", 5, bad(img(credit5)), true},
		{"reserved byte set", 5, func() [16]byte { d := img(credit5); d[2] = 1; return d }(), true},
		{"seq disagrees", 6, img(credit5), false},
		{"flow disagrees", 5, img(wire.ExpressPassPacket{Type: wire.ExpressPassTypeCredit, Flow: 99, Seq: 5}), false},
		{"request image", 5, img(wire.ExpressPassPacket{Type: wire.ExpressPassTypeRequest, Flow: 1}), false},
		{"stop image", 5, img(wire.ExpressPassPacket{Type: wire.ExpressPassTypeStop, Flow: 1}), false},
		{"credit image numbered 0", 1, [16]byte{3, 1}, true},
	} {
		for _, phase := range []string{"requested", "credited", "stopped"} {
			cfg := ExpressPassPaper()
			cfg.Size = 1000
			x, err := NewExpressPass(cfg)
			require.NoError(t, err)
			act := cc.NewActions(2)
			require.NoError(t, x.Timer(0, act))
			switch phase {
			case "credited":
				require.NoError(t, x.Feedback(1, &cc.Feedback{Kind: cc.FeedbackCredit, Flow: 1, Seq: 1}, act))
			case "stopped":
				require.NoError(t, x.Feedback(1, &cc.Feedback{Kind: cc.FeedbackCredit, Flow: 1, Seq: 1}, act))
				require.NoError(t, x.Sent(1, &cc.Packet{Flow: 1, Payload: 1000, Size: 1082}, act))
				require.Equal(t, ExpressPassStopped, x.State().Phase)
			}
			act.Reset()
			before := x.AppendRegisters(nil)
			now := 200 * units.Microsecond // past StopTimeout: an accepted credit would resend the stop
			err = x.Feedback(now, &cc.Feedback{Kind: cc.FeedbackCredit, Flow: 1, Seq: tc.seq, Data: tc.data}, act)
			require.ErrorIs(t, err, cc.ErrEvent, "%s, %s", tc.name, phase)
			require.True(t, cc.Typed(err))
			require.Equal(t, tc.decode, errors.Is(err, cc.ErrDecode), "%s: %v", tc.name, err)
			require.Equal(t, before, x.AppendRegisters(nil), "%s, %s: refused but changed", tc.name, phase)
			require.Zero(t, act.Len())
		}
	}

	// Accepted: the image agrees (whatever its time), or there is none.
	x, err := NewExpressPass(ExpressPassPaper())
	require.NoError(t, err)
	act := cc.NewActions(2)
	require.NoError(t, x.Timer(0, act))
	require.NoError(t, x.Feedback(1, &cc.Feedback{Kind: cc.FeedbackCredit, Flow: 1, Seq: 5, Data: img(credit5)}, act))
	other := credit5
	other.TS, other.Seq = 0xFFFFFFFF, 6
	require.NoError(t, x.Feedback(2, &cc.Feedback{Kind: cc.FeedbackCredit, Flow: 1, Seq: 6, Data: img(other)}, act))
	require.NoError(t, x.Feedback(3, &cc.Feedback{Kind: cc.FeedbackCredit, Flow: 1, Seq: 7}, act))
	require.Equal(t, 3, x.Held())

	// The sequence space is the sender's to judge, image or not: with
	// 8-bit sequence numbers, credit 300 is refused even with its image.
	cfg := ExpressPassPaper()
	cfg.SeqBits = 8
	x8, err := NewExpressPass(cfg)
	require.NoError(t, err)
	big := credit5
	big.Seq = 300
	require.ErrorIs(t, x8.Feedback(1, &cc.Feedback{Kind: cc.FeedbackCredit, Flow: 1, Seq: 300, Data: img(big)}, act), cc.ErrEvent)
	require.Zero(t, x8.Held())
}

// BenchmarkExpressPassSenderCreditImage: BenchmarkExpressPassSenderCredit
// with each credit carrying its wire image, which the sender decodes.
func BenchmarkExpressPassSenderCreditImage(b *testing.B) {
	x, err := NewExpressPass(ExpressPassPaper())
	if err != nil {
		b.Fatal(err)
	}
	act := cc.NewActions(2)
	_ = x.Timer(0, act)
	var credits [1000]cc.Feedback // credits 1..1000 with their images
	for i := range credits {
		credits[i] = cc.Feedback{Kind: cc.FeedbackCredit, Seq: uint64(i + 1)}
		img, _ := wire.ExpressPassPacket{Type: wire.ExpressPassTypeCredit, Seq: uint32(i + 1)}.Encode()
		copy(credits[i].Data[:], img[:])
	}
	p := cc.Packet{Payload: 1000, Size: 1082}
	now := units.Time(0)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		now += units.Nanosecond
		fb := &credits[i]
		i = (i + 1) % len(credits)
		act.Reset()
		_ = x.Feedback(now, fb, act)
		_ = x.Sent(now, &p, act)
	}
}

// expressPassCredits returns credits as a receiver sends them (flow 5, seqs 1..16),
// for the sender's generated sequences.
func expressPassCredits() []cc.Feedback {
	var out []cc.Feedback
	for s := uint64(1); s <= 16; s++ {
		out = append(out, cc.Feedback{Kind: cc.FeedbackCredit, Flow: 5, Seq: s})
	}
	return out
}

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

// creditFed is an ExpressPass driven as a credit-gated NIC drives
// it: a Sent that finds no credit held is preceded by the credit the NIC
// waited for (at the same time), so that the suite's generated senders,
// which send regardless of Limits, exercise the sender's accepted path.
// Invalid frames go to the sender as they are (it refuses them).
type creditFed struct {
	*ExpressPass
	seq uint64
}

// Sent feeds the credit a credit-gated NIC would have waited for, then the
// frame (see creditFed).
func (c *creditFed) Sent(now units.Time, p *cc.Packet, act *cc.Actions) error {
	if p != nil && c.Held() == 0 && now >= c.Last() && p.Size >= 0 && p.Payload >= 0 && p.Size <= c.cfg.FrameBytes &&
		c.s.Phase != ExpressPassStopped {
		// The credit and the frame as one event: a refused frame takes
		// the credit back.
		saved, seq := *c.ExpressPass, c.seq
		c.seq = c.seq%c.seqMax + 1 // the next credit, skipping 0
		if err := c.ExpressPass.Feedback(now, &cc.Feedback{Kind: cc.FeedbackCredit, Seq: c.seq}, act); err != nil {
			return err
		}
		if err := c.ExpressPass.Sent(now, p, act); err != nil {
			*c.ExpressPass, c.seq = saved, seq
			return err
		}
		return nil
	}
	return c.ExpressPass.Sent(now, p, act)
}

// The conformance suite over the sender as it is (given credits among its
// feedback; the generated sends without credit are refused, which the
// suite allows), and fed a credit before each send, where at least 3/4 of
// the events are taken.
func TestExpressPassContract(t *testing.T) {
	o := cctest.Options{Gen: cctest.GenOptions{Messages: expressPassCredits()}}
	if testing.Short() {
		o.Sequences, o.Chaos, o.AllocSequences = 6, 12, 1
	}
	for _, size := range []units.Bytes{0, 50_000} {
		newSender := func() (*ExpressPass, error) {
			c := ExpressPassPaper()
			c.Size = size
			return NewExpressPass(c)
		}
		require.NoError(t, cctest.Test(func() (cc.Part, error) { return newSender() }, o))
		st, err := cctest.TestStats(func() (cc.Part, error) {
			x, err := newSender()
			if err != nil {
				return nil, err
			}
			return &creditFed{ExpressPass: x}, nil
		}, o)
		require.NoError(t, err)
		require.Greater(t, st.Accepted, st.Calls*3/4, "size %v: %v", size, st.Refused)
	}
}

// BenchmarkExpressPassSenderCredit: a credit in, a frame out, per call.
func BenchmarkExpressPassSenderCredit(b *testing.B) {
	x := expressPassSender(b, nil)
	act := cc.NewActions(2)
	_ = x.Timer(0, act)
	fb := cc.Feedback{Kind: cc.FeedbackCredit}
	p := cc.Packet{Payload: 1000, Size: 1082}
	now := units.Time(0)
	b.ReportAllocs()
	for b.Loop() {
		now += units.Nanosecond
		fb.Seq = fb.Seq%1000 + 1
		act.Reset()
		_ = x.Feedback(now, &fb, act)
		_ = x.Sent(now, &p, act)
	}
}

// BenchmarkExpressPassSenderLimits reads the limits, as a NIC does after
// every event.
func BenchmarkExpressPassSenderLimits(b *testing.B) {
	x := expressPassSender(b, nil)
	var l cc.Limits
	b.ReportAllocs()
	for b.Loop() {
		l = x.Limits()
	}
	_ = l
}

// TestExpressPassLateTimer: a sender whose timer is left to the next
// event ends equal to one whose timer is called at every deadline,
// registers and decisions (rule 4). With a 100 µs request timeout and no
// credit, the requests are due at 0, 100, 200 and 300 µs; the credit at
// 350 µs finds the late part owing all four, which it sends first, each
// stamped with its own deadline.
func TestExpressPassLateTimer(t *testing.T) {
	onTime, late := expressPassSender(t, nil), expressPassSender(t, nil)
	var made []cc.Action
	act := cc.NewActions(8)
	for d := units.Time(0); d <= 300*units.Microsecond; d += 100 * units.Microsecond {
		require.Equal(t, d, onTime.NextDeadline())
		act.Reset()
		require.NoError(t, onTime.Timer(d, act))
		made = append(made, act.All()...)
	}
	credit := cc.Feedback{Kind: cc.FeedbackCredit, Flow: 0, Seq: 1}
	act.Reset()
	require.NoError(t, onTime.Feedback(350*units.Microsecond, &credit, act))
	made = append(made, act.All()...)

	act.Reset()
	require.NoError(t, late.Feedback(350*units.Microsecond, &credit, act))
	require.Equal(t, made, act.All())
	require.Len(t, made, 4)
	for i, a := range made {
		require.Equal(t, cc.FeedbackCreditRequest, a.Feedback.Kind)
		d := units.Time(i) * 100 * units.Microsecond
		require.Equal(t, wire.ExpressPassTS(d), uint32(a.Feedback.Data[12])<<24|uint32(a.Feedback.Data[13])<<16|uint32(a.Feedback.Data[14])<<8|uint32(a.Feedback.Data[15]), "request %d stamped at its deadline", i)
	}
	require.Equal(t, onTime.AppendRegisters(nil), late.AppendRegisters(nil))
	require.Equal(t, uint64(4), late.State().Requests)

	// Room for three of the four requests and the event: refused, nothing
	// changed; a nil Actions likewise (rule 3).
	x := expressPassSender(t, nil)
	before := x.AppendRegisters(nil)
	require.ErrorIs(t, x.Feedback(350*units.Microsecond, &credit, cc.NewActions(3)), cc.ErrActionsFull)
	require.ErrorIs(t, x.Timer(350*units.Microsecond, nil), cc.ErrNoActions)
	require.ErrorIs(t, x.Feedback(350*units.Microsecond, &credit, nil), cc.ErrNoActions)
	require.Equal(t, before, x.AppendRegisters(nil))
}

// TestExpressPassStart: a sender built when its flow starts (Start, from
// cc.Env.Start) owes its first request then, not at time 0: called at its
// start it sends one request stamped with it, and resends from there.
func TestExpressPassStart(t *testing.T) {
	start := 250 * units.Microsecond
	x := expressPassSender(t, func(c *ExpressPassConfig) { c.Start = start })
	require.Equal(t, start, x.NextDeadline())
	act := cc.NewActions(4)
	require.NoError(t, x.Timer(start-1, act), "before its start: nothing")
	require.Zero(t, act.Len())
	require.NoError(t, x.Timer(start, act))
	require.Len(t, act.All(), 1)
	require.Equal(t, cc.FeedbackCreditRequest, act.At(0).Feedback.Kind)
	require.Equal(t, start+100*units.Microsecond, x.NextDeadline())
	_, err := NewExpressPass(ExpressPassConfig{FrameBytes: 1538, Depth: 1, SeqBits: 32, Start: -1})
	require.ErrorIs(t, err, cc.ErrConfig)
}
