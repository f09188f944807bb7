// Command nicmodel shows how a NIC or switch model embeds hwcc's INT codec
// and reciprocal divider, the two pieces HPCC's hardware is built on
// ([HPCC], Fig. 7 and §4.3).
//
// The header travels as wire bytes, in a frame's telemetry stack
// (cc.Telemetry): the sender attaches the empty INT header (Put) to two data
// packets sent 13 µs apart, three switches push one hop record each onto it
// in place (Push), and the receiver echoes the bytes in the ACK; the sender
// decodes each ACK's stack into a caller-owned Header (Get, no allocation),
// takes wrap-safe deltas
// of each hop's 20-bit txBytes and 24-bit timestamp against the previous
// ACK, and computes each hop's transmit rate and HPCC's normalised
// utilisation U_j = qlen_j/(B_j·T) + txRate_j/B_j, dividing by the 1/n table
// the way the paper's FPGA does instead of with a divider. The third switch's
// txBytes counter wraps between the two packets, as it does every 2.7 ms at
// 400 Gb/s.
//
// Run it with:
//
//	go run ./examples/nicmodel
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/hwtables"
	inttel "github.com/hwcc/hwcc/int"
	"github.com/hwcc/hwcc/units"
)

// hop is one switch egress port on the path, as the model keeps it.
type hop struct {
	id      uint16      // 12-bit switch ID
	rate    units.Rate  // port speed
	txBytes units.Bytes // cumulative bytes the port has sent
	qlen    units.Bytes // egress queue at the time of stamping
}

// hpccT is HPCC's T, the base-RTT-scale period U is normalised by (13 µs in
// the paper's simulations).
const hpccT = 13 * units.Microsecond

// uScale is the fixed-point scale of the printed utilisation: U·2^10.
const uScale = 1 << 10

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "nicmodel:", err)
		os.Exit(1)
	}
}

// hopRate is what the sender computes for one hop: the transmit rate in Mb/s
// by table division and exactly, and U in units of 2^-10.
type hopRate struct {
	tableMbps, exactMbps uint64
	u                    uint64
}

// measure runs the two packets through the path and returns the sender's
// view of every hop.
func measure(path []hop, sent []units.Bytes, gap units.Time) ([]hopRate, error) {
	codec, err := inttel.NewCodec(inttel.DefaultConfig())
	if err != nil {
		return nil, err
	}
	div := hwtables.DefaultReciprocal()

	var prev, cur inttel.Header // the sender's per-flow history and the new ACK's header
	now := units.Time(1 * units.Millisecond)
	out := make([]hopRate, len(path))
	for pkt := 0; pkt < 2; pkt++ {
		// The sender attaches the empty header (nHop = 0, pathID = 0: 2
		// bytes) to the data packet's stack; each switch pushes its egress
		// port's 8-byte record onto it in place.
		var data cc.Telemetry
		if err := codec.Put(&data, &inttel.Header{}); err != nil {
			return nil, err
		}
		for i := range path {
			if pkt == 1 {
				path[i].txBytes += sent[i]
			}
			port := inttel.Port{SwitchID: path[i].id, Rate: path[i].rate,
				TxBytes: path[i].txBytes, QLen: path[i].qlen}
			if _, err := codec.Push(now, &data, port); err != nil {
				return nil, err
			}
		}
		// The receiver copies the stack into the ACK as it is; the sender
		// decodes it.
		ack := cc.Feedback{Kind: cc.FeedbackAck, Tel: &data}
		if err := codec.Get(ack.Tel, &cur); err != nil {
			return nil, err
		}
		if pkt == 1 {
			if cur.PathID != prev.PathID || cur.NHop != prev.NHop {
				return nil, fmt.Errorf("path changed: drop the history")
			}
			for i := 0; i < int(cur.NHop); i++ {
				dB := codec.TxBytesDelta(prev.Hops[i], cur.Hops[i]) // wrap-safe, bytes
				dT := codec.TSDelta(prev.Hops[i], cur.Hops[i])      // wrap-safe, ps
				exact, err := codec.TxRate(prev.Hops[i], cur.Hops[i])
				if err != nil {
					return nil, err // Δts = 0: HPCC skips the sample
				}
				v, err := codec.Values(cur.Hops[i])
				if err != nil {
					return nil, err
				}
				// txRate = ΔtxBytes·8/Δts: bytes·8/ns is Gb/s, ·1000 is Mb/s.
				// The divisor (Δts in ns, < 2^22) indexes the 1/n table.
				tableMbps := div.DivFast(uint64(dB)*8*1000, uint64(dT/units.Nanosecond))
				// U = qlen/(B·T) + txRate/B, both in units of 2^-10; B·T in
				// bytes (162500 B at 100 Gb/s and 13 µs) and B in Mb/s are the
				// divisors, both within the table's domain.
				bt := uint64(units.BytesIn(v.Rate, hpccT))
				bMbps := uint64(v.Rate / units.Mbps)
				u := div.DivFast(uint64(v.QLen)*uScale, bt) + div.DivFast(tableMbps*uScale, bMbps)
				out[i] = hopRate{tableMbps, uint64(exact / units.Mbps), u}
			}
		}
		prev = cur
		now += gap
	}
	return out, nil
}

func run(w io.Writer) error {
	path := []hop{
		{id: 0x101, rate: 100 * units.Gbps, txBytes: 5 * units.MB, qlen: 0},
		{id: 0x202, rate: 100 * units.Gbps, txBytes: 77 * units.MB, qlen: 40 * units.KB},
		// 128 MiB is where the 20-bit counter of 128 B units wraps: this port
		// is 50 KB short of it and sends 150 KB before the next stamp.
		{id: 0x303, rate: 400 * units.Gbps, txBytes: 128*units.MiB - 50*units.KB, qlen: 160 * units.KB},
	}
	// Bytes each port sends in the 13 µs between the two packets.
	sent := []units.Bytes{100 * units.KB, 162500, 150 * units.KB}
	rates, err := measure(path, sent, hpccT)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%-4s %-12s %-12s %s\n", "hop", "table Mb/s", "exact Mb/s", "U")
	for i, r := range rates {
		fmt.Fprintf(w, "%-4d %-12d %-12d %.3f\n", i, r.tableMbps, r.exactMbps, float64(r.u)/uScale)
	}
	return nil
}
