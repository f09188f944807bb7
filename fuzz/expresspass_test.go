package fuzz

import (
	"testing"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cc/cctest"
	"github.com/hwcc/hwcc/np"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// expressPassFuzz runs the events the fuzzer's bytes decode to (cctest.FromBytes)
// through part: no panic, every error typed, a refused event changes no
// register, and no accepted event moves the deadline before its now.
// Each event's echo in Packet.Hdr and Feedback.Seq (the receiver's echoes
// and the sender's credits) come from the fuzzer's Feedback.Seq, so that
// both parts see in-range and out-of-range sequence numbers; one header
// in eight has a reserved byte set; a credit's Data is the fuzzer's
// bytes, zero or the credit's own wire image.
func expressPassFuzz(t *testing.T, data []byte, part cc.Part, role cc.Role) {
	act := cc.NewActions(4)
	for i, ev := range cctest.FromBytes(data, role) {
		wire.PutExpressPassEcho(&ev.Packet.Hdr, ev.Feedback.Seq/1000%300)
		if b := ev.Feedback.Data[15]; b%8 == 0 {
			ev.Packet.Hdr[wire.ExpressPassEchoSize+int(b>>3)%(cc.PacketHdrLen-wire.ExpressPassEchoSize)] = b | 1
		}
		ev.Feedback.Seq /= 1000
		// A credit's Data: the fuzzer's bytes (a wire image that mostly
		// does not decode), none, or the image of the credit itself.
		if ev.Feedback.Kind == cc.FeedbackCredit {
			switch ev.Feedback.Data[14] % 4 {
			case 1:
				ev.Feedback.Data = [cc.FeedbackDataLen]byte{}
			case 2, 3:
				if f, err := (wire.ExpressPassPacket{Type: wire.ExpressPassTypeCredit, Flow: ev.Feedback.Flow, Seq: uint32(ev.Feedback.Seq)}).Feedback(); err == nil {
					ev.Feedback.Data = f.Data
				}
			}
		}
		before := part.AppendRegisters(nil)
		deadline := part.NextDeadline()
		act.Reset()
		err := ev.Apply(part, act)
		if err != nil {
			if !cc.Typed(err) {
				t.Fatalf("event %d (%v): untyped error %v", i, &ev, err)
			}
			after := part.AppendRegisters(nil)
			for j := range before {
				if before[j] != after[j] {
					t.Fatalf("event %d (%v) failed (%v) but changed %v to %v", i, &ev, err, before[j], after[j])
				}
			}
			continue
		}
		if d := part.NextDeadline(); d != deadline && d < ev.At {
			t.Fatalf("event %d (%v): deadline %v before now", i, &ev, d)
		}
		for _, r := range part.AppendRegisters(nil) {
			if !r.Fits() {
				t.Fatalf("event %d: register %v does not fit", i, r)
			}
		}
	}
}

func FuzzExpressPassReceiver(f *testing.F) {
	f.Add([]byte("0123456789abcdef0123456789abcdef"))
	f.Add(make([]byte, 64))
	f.Fuzz(func(t *testing.T, data []byte) {
		c := np.ExpressPassPaper(100 * units.Gbps)
		c.SeqBits = 8
		r, err := np.NewExpressPass(c)
		if err != nil {
			t.Fatal(err)
		}
		expressPassFuzz(t, data, r, cc.RoleNP)
	})
}

func FuzzExpressPassSender(f *testing.F) {
	f.Add([]byte("0123456789abcdef0123456789abcdef"))
	f.Add(make([]byte, 64))
	f.Fuzz(func(t *testing.T, data []byte) {
		c := rp.ExpressPassPaper()
		c.SeqBits = 8
		c.Size = 5000
		x, err := rp.NewExpressPass(c)
		if err != nil {
			t.Fatal(err)
		}
		expressPassFuzz(t, data, x, cc.RoleRP)
	})
}
