// Command embed is the smallest useful embedding of hwcc, the one the README
// shows. It drives three algorithms through the cc contract alone, each
// picked by name from the registry with its parameters given as strings,
// exactly as a simulator, a firmware model or a test bench would:
//
//   - RoCC: a switch queue's congestion point computes the fair rate every
//     T (Algorithm 1) and sends it to the flow's source; the sender's
//     reaction point (Algorithm 2) takes it.
//   - HPCC: the NIC attaches an empty INT header to each data packet's
//     telemetry stack (as many zero bytes as the registration's
//     Deploy.Telemetry says), the switch pushes its record onto it as it
//     dequeues the packet, the ACK echoes the stack, and the sender's
//     reaction point reads the records and sets its window; its registers
//     show the record it stored.
//   - DCQCN: the switch marks CE above Kmax, the receiver's notification
//     point answers with a CNP, the sender's reaction point cuts its rate.
//
// The caller owns time (every event takes now; timers are called at their
// deadlines) and the actions buffer the parts append their decisions to.
//
//	go run ./examples/embed
package main

import (
	"fmt"
	"io"
	"os"

	_ "github.com/hwcc/hwcc/algos" // registers every algorithm (hwcc algos lists them)
	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// README:begin
func run(w io.Writer) error {
	act := cc.NewActions(64) // the decisions of one event; owned by the caller

	// RoCC at 40 Gb/s: the CP of one egress queue and the RP of flow 7.
	sw, err := cc.NewCP("rocc", "cp", "preset=40g")
	if err != nil {
		return err
	}
	nic, err := cc.NewRP("rocc", "rp", "preset=40g")
	if err != nil {
		return err
	}
	pkt := cc.Packet{Flow: 7, Size: 1048}
	for range 4 { // four of flow 7's packets are in a 300 KB queue
		if err := sw.Enqueue(0, &pkt, cc.Queue{Len: 300 * units.KB, Rate: 40 * units.Gbps}, act); err != nil {
			return err
		}
	}
	for i, q := range []units.Bytes{300 * units.KB, 240 * units.KB, 180 * units.KB, 150 * units.KB} {
		now := sw.NextDeadline() // every T = 40 µs, from 40 µs (the update at 0 ran at the first Enqueue)
		act.Reset()
		if i > 0 { // the queue drained to q just before; one of flow 7's packets left
			if err := sw.Dequeue(now-units.Microsecond, &pkt, cc.Queue{Len: q, Rate: 40 * units.Gbps}, act); err != nil {
				return err
			}
		}
		if err := sw.Timer(now, act); err != nil { // Algorithm 1; a CNP per flow queued
			return err
		}
		for _, a := range act.All() { // the network carries each CNP to its source
			if err := nic.Feedback(now, &a.Feedback, nil); err != nil {
				return err
			}
		}
		fmt.Fprintf(w, "rocc  t=%-5v queue=%-6v sender rate=%v\n", now, q, nic.Limits().Rate)
	}

	// HPCC at 100 Gb/s: one switch port stamping INT, one sender.
	port, err := cc.NewCP("hpcc", "cp", "rate=100Gbps, switch_id=1, port_tx_bytes=on")
	if err != nil {
		return err
	}
	snd, err := cc.NewRP("hpcc", "rp", "t=13us")
	if err != nil {
		return err
	}
	hpcc, err := cc.Lookup("hpcc") // its deployment: the INT stack's sizes
	if err != nil {
		return err
	}
	var tel cc.Telemetry // the INT header as wire bytes: the data packet carries it, its ACK echoes it
	data := cc.Packet{Flow: 1, Size: 1082, Payload: 1000, Tel: &tel}
	// Two packets leave the port 13 µs apart with 100 KB queued behind each,
	// the port sending at line rate (162.5 KB in 13 µs); each one's ACK
	// returns 13 µs later.
	for i, at := range []units.Time{units.Microsecond, 14 * units.Microsecond} {
		data.Seq = uint64(i) * 1000
		tel = cc.Telemetry{Len: uint8(hpcc.Deploy.Telemetry.Init)} // the empty header: 2 zero bytes
		if err := snd.Sent(at, &data, nil); err != nil {
			return err
		}
		q := cc.Queue{Len: 100 * units.KB, Rate: 100 * units.Gbps, TxBytes: uint64(i) * 162500}
		if err := port.Dequeue(at, &data, q, nil); err != nil { // pushes the port's 8-byte record
			return err
		}
		ack := cc.Feedback{Kind: cc.FeedbackAck, Flow: 1, Seq: data.Seq + 1000, Acked: 1000, SndNxt: data.Seq + 1000, Tel: &tel}
		if err := snd.Feedback(at+13*units.Microsecond, &ack, nil); err != nil {
			return err
		}
		var qLen, txBytes uint64 // the hop's record as the sender stored it
		for _, r := range snd.AppendRegisters(nil) {
			switch r.Name {
			case "hop0.qlen":
				qLen = r.Value
			case "hop0.tx_bytes":
				txBytes = r.Value
			}
		}
		l := snd.Limits()
		fmt.Fprintf(w, "hpcc  ack %d: hop qLen=%d txBytes=%d  window=%v rate=%v\n", i+1, qLen, txBytes, l.Window, l.Rate)
	}

	// DCQCN at 100 Gb/s with ConnectX's parameters: mark, CNP, cut.
	red, err := cc.NewCP("dcqcn", "cp", "kmin=100KB, kmax=400KB")
	if err != nil {
		return err
	}
	rcv, err := cc.NewNP("dcqcn", "np", "preset=connectx")
	if err != nil {
		return err
	}
	src, err := cc.NewRP("dcqcn", "rp", "preset=connectx, link=100Gbps")
	if err != nil {
		return err
	}
	act.Reset()
	p := cc.Packet{Flow: 3, Size: 1082, Payload: 1000}
	if err := red.Dequeue(0, &p, cc.Queue{Len: 500 * units.KB, Rate: 100 * units.Gbps}, act); err != nil {
		return err
	}
	p.CE = act.Has(cc.ActionMarkCE) // above Kmax every packet is marked
	act.Reset()
	if err := rcv.Receive(units.Microsecond, &p, act); err != nil {
		return err
	}
	before := src.Limits().Rate
	for _, a := range act.All() { // the CNP reaches the sender
		if err := src.Feedback(2*units.Microsecond, &a.Feedback, nil); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "dcqcn marked=%v cnps=%d sender rate %v -> %v\n", p.CE, act.Len(), before, src.Limits().Rate)

	// Parameters are checked where they are parsed, with the field, the
	// value and the range in the error.
	_, err = cc.New("dcqcn", "rp", "rpg_time_reset=0")
	fmt.Fprintln(w, "error:", err)
	return nil
}

// README:end

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "embed:", err)
		os.Exit(1)
	}
}
