package np_test

import (
	"fmt"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/np"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// A 3000-byte flow at 100 Gb/s: the sender asks for credits, the receiver
// paces them (about 2.08 µs apart at α·max_rate, ±10 % jitter), the sender spends one per frame and echoes it, the network
// drops credit 2, the receiver sees the gap, and the frame with the last
// byte stops the credits.
func ExampleExpressPass() {
	rx, _ := np.NewExpressPass(np.ExpressPassPaper(100 * units.Gbps))
	cfg := rp.ExpressPassPaper()
	cfg.Size = 3000
	tx, _ := rp.NewExpressPass(cfg)
	act := cc.NewActions(2)

	_ = tx.Timer(0, act) // the flow starts: request credits
	req := act.At(0).Feedback
	fmt.Println("sender:", req.Kind, "to the", act.At(0).To)

	act.Reset()
	_ = rx.Feedback(0, &req, act) // the first credit leaves at once
	seq := uint64(0)
	for sent := uint64(0); sent < 3000; {
		now := rx.Last()
		c := act.At(0).Feedback
		fmt.Printf("receiver at %v: credit %d\n", now, c.Seq)
		act.Reset()
		if c.Seq != 2 { // credit 2 is dropped in the network
			_ = tx.Feedback(now, &c, act)
			p := cc.Packet{Flow: 1, Seq: sent, Payload: 1000, Size: 1082}
			_ = tx.Sent(now, &p, act)
			seq, _ = wire.ExpressPassEcho(&p.Hdr) // the echo the receiver reads
			fmt.Printf("sender: frame %d spends credit %d, credit left %v\n", sent/1000, seq, tx.Limits().Credit)
			_ = rx.Receive(now, &p, act)
			sent += 1000
		}
		if act.Len() > 0 {
			fmt.Println("sender:", act.At(0).Feedback.Kind)
			stop := act.At(0).Feedback
			act.Reset()
			_ = rx.Feedback(now, &stop, act)
			break
		}
		_ = rx.Timer(rx.NextDeadline(), act)
	}
	s := rx.State()
	fmt.Printf("receiver: last echo %d, %d credit lost, active %v\n", seq, s.Lost, s.Active)
	// Output:
	// sender: credit-request to the destination
	// receiver at 0s: credit 1
	// sender: frame 0 spends credit 1, credit left 0B
	// receiver at 2.233732us: credit 2
	// receiver at 4.328711us: credit 3
	// sender: frame 1 spends credit 3, credit left 0B
	// receiver at 6.360878us: credit 4
	// sender: frame 2 spends credit 4, credit left 0B
	// sender: credit-stop
	// receiver: last echo 4, 1 credit lost, active false
}
