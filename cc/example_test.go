package cc_test

import (
	"fmt"

	_ "github.com/hwcc/hwcc/algos" // registers hwcc's algorithms
	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// A congestion point and a reaction point driven through the contract
// alone: DCTCP's switch marks the packets that find more than K = 20 KB
// queued, the receiver echoes the mark in its ACK, and the sender cuts its
// window by α/2 (α starts at 1, so by half: 10 segments to 5).
func Example() {
	sw, err := cc.NewCP("dctcp", "cp", "k=20KB")
	if err != nil {
		panic(err)
	}
	snd, err := cc.NewRP("dctcp", "rp", "preset=linux, mss=1000, initial_cwnd=10000")
	if err != nil {
		panic(err)
	}
	act := cc.NewActions(4)
	fmt.Println("window", snd.Limits().Window)
	var ece bool
	for i, q := range []units.Bytes{8 * units.KB, 25 * units.KB} {
		now := units.Time(i) * units.Microsecond
		pkt := cc.Packet{Flow: 1, Seq: uint64(i) * 1000, Payload: 1000, Size: 1082}
		if err := snd.Sent(now, &pkt, nil); err != nil {
			panic(err)
		}
		act.Reset()
		if err := sw.Enqueue(now, &pkt, cc.Queue{Len: q}, act); err != nil {
			panic(err)
		}
		marked := act.Has(cc.ActionMarkCE)
		ece = ece || marked
		fmt.Printf("queue %v: marked %v\n", q, marked)
	}
	ack := cc.Feedback{Kind: cc.FeedbackAck, Flow: 1, Seq: 2000, Acked: 2000, SndNxt: 2000, ECE: ece}
	if err := snd.Feedback(10*units.Microsecond, &ack, nil); err != nil {
		panic(err)
	}
	fmt.Println("window", snd.Limits().Window)
	// Time never goes back, and the error says so with both times.
	fmt.Println(snd.Feedback(5*units.Microsecond, &ack, nil))
	// Output:
	// window 10KB
	// queue 8KB: marked false
	// queue 25KB: marked true
	// window 5KB
	// rp.DCTCP Feedback: time 5us is before the last event's 10us
}
