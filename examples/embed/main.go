// Command embed is the smallest useful embedding of hwcc, the one the README
// shows: a switch model's egress queue runs RoCC's congestion point
// (cp.RoCC, Algorithm 1) on its own clock, sends the fair rate in a CNP, and
// the sender's NIC model feeds the CNP to its rate limiter (rp.RoCC,
// Algorithm 2). The caller owns time: it asks each state machine for its next
// deadline and calls it then.
//
//	go run ./examples/embed
package main

import (
	"fmt"
	"os"

	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
)

// README:begin
func run() error {
	// Switch side: one egress queue at 40 Gb/s with the paper's parameters.
	queue, err := cp.NewRoCC(cp.RoCC40G())
	if err != nil {
		return err
	}
	// Sender side: the flow's rate limiter, ΔF and Rmax matching the CP.
	limiter, err := rp.NewRoCC(rp.RoCC40G())
	if err != nil {
		return err
	}
	const flow = 7
	if err := queue.OnEnqueue(0, flow, 1048); err != nil { // the flow has a packet queued
		return err
	}
	backlog := []units.Bytes{300 * units.KB, 240 * units.KB, 180 * units.KB, 150 * units.KB}
	for _, q := range backlog {
		now := queue.NextDeadline()     // every T = 40 µs
		d, err := queue.OnTimer(now, q) // Algorithm 1 on the sampled queue
		if err != nil {
			return err
		}
		wire := queue.Feedback(flow).Append(nil) // the CNP's 16 payload bytes
		cnp, err := cp.DecodeRoCCFeedback(wire)  // ...at the sender's NIC
		if err != nil {
			return err
		}
		if _, err := limiter.OnFeedback(now, uint32(cnp.Rate), cnp.CP()); err != nil {
			return err
		}
		fmt.Printf("t=%-5v queue=%-6v F=%-9v sender rate=%v\n", now, q, d.Rate, limiter.Rate())
	}
	return nil
}

// README:end

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "embed:", err)
		os.Exit(1)
	}
}
