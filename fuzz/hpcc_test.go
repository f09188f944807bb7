package fuzz

import (
	"encoding/binary"
	"slices"
	"testing"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cp"
	inttel "github.com/hwcc/hwcc/int"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
)

// hpccFuzzRates are the port speeds a fuzzed path draws from (the default
// speed table).
var hpccFuzzRates = [...]units.Rate{10 * units.Gbps, 25 * units.Gbps, 40 * units.Gbps, 50 * units.Gbps,
	100 * units.Gbps, 200 * units.Gbps, 400 * units.Gbps, 800 * units.Gbps}

// FuzzHPCCSwitchToSender runs HPCC end to end across the packages, through
// the cc contract: the sender attaches the empty INT header to each data
// packet's telemetry stack (inttel's Put), the switches of a path (cp.HPCC,
// 1..5 ports) push their records onto it on Dequeue, the receiver decodes
// it (Get) and echoes the stack in the ACK, and the sender reads it
// (rp.HPCC, Feedback).
// The input chooses the path (byte 0: hop count and mode; byte 1: port
// speeds; bit 7 of byte 0: the ports read the port counter, PortTxBytes)
// and, 6 bytes per packet, the gap before it (ns), the cross traffic each
// port sent meanwhile (in 4 KB steps, enough to wrap the 20-bit txBytes
// field within a few packets; a dequeue without INT, or the port counter's
// advance), its queue (in 8 KB steps, past the 16-bit qLen saturation), and
// the packet size.
//
// Nothing may panic; every stack decodes to exactly what was stamped: its
// pathID is the XOR of the switch IDs, and each record is the port's
// state by Figure 7's rules (B the port's code, TS = ⌊egress/1 ns⌋ mod
// 2^24, txBytes = ⌊counter/128 B⌋ mod 2^20 with the counter the port
// read before the packet, qLen = min(⌊queue/80 B⌋, 0xFFFF)); the stack
// re-encodes to the same bytes; the sender accepts every ACK (the events
// are valid by construction) and its Limits keep W within [W_min, W_max]
// and R = W·8/T within 1 bit/s.
func FuzzHPCCSwitchToSender(f *testing.F) {
	// One 100 Gb/s hop, a few packets at line rate with a growing queue.
	f.Add([]byte{0x01, 0x44, 0x04, 0x00, 0x01, 0x02, 0x04, 0x00, 0x04, 0x00, 0x01, 0x04, 0x04, 0x00})
	// Five hops of mixed speed, multi-rate, large gaps (TS near wrap).
	f.Add([]byte{0x15, 0x16, 0xff, 0xff, 0x10, 0x00, 0x05, 0xdc, 0xff, 0xff, 0x20, 0x10, 0x05, 0xdc})
	// Zero gaps (Δts = 0) and heavy cross traffic (txBytes wraps).
	f.Add([]byte{0x22, 0x77, 0x00, 0x00, 0xff, 0xff, 0x00, 0x40, 0x00, 0x00, 0xff, 0xff, 0x00, 0x40})
	// Three hops reading the port counter (PortTxBytes), cross traffic.
	f.Add([]byte{0x82, 0x44, 0x01, 0x00, 0x20, 0x08, 0x05, 0xdc, 0x01, 0x00, 0x40, 0x08, 0x05, 0xdc})
	codec, err := inttel.NewCodec(inttel.DefaultConfig())
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		nHop := 1 + int(data[0]&7)%inttel.HPCCMaxHops
		cfg := rp.HPCCPaperSim(100 * units.Gbps)
		cfg.Codec = codec
		cfg.MultiRate = data[0]&0x10 != 0
		cfg.FastReact = data[0]&0x20 == 0
		cfg.Window.NativeDivision = data[0]&0x40 != 0
		sender, err := rp.NewHPCC(cfg)
		if err != nil {
			t.Fatal(err)
		}
		portTx := data[0]&0x80 != 0
		ports := make([]*cp.HPCC, nHop)
		counters := make([]uint64, nHop) // the ports' own transmit counters (PortTxBytes)
		var pathID uint16
		for i := range ports {
			id := uint16(0x100*(i+1) + int(data[1]))
			rate := hpccFuzzRates[(int(data[1])>>i)&7]
			if ports[i], err = cp.NewHPCC(cp.HPCCConfig{SwitchID: id, Rate: rate, Codec: codec, PortTxBytes: portTx}); err != nil {
				t.Fatal(err)
			}
			pathID ^= id
		}
		data = data[2:]
		wc := sender.Config().Window
		now := units.Time(16_777_000) * units.Nanosecond // just before the TS wrap
		var seq uint64
		var sentAt units.Time
		for k := 0; len(data) >= 6 && k < 512; k++ {
			gap := units.Time(binary.BigEndian.Uint16(data)) * units.Nanosecond
			cross := units.Bytes(data[2]) << 12
			queue := units.Bytes(data[3]) << 13
			size := units.Bytes(binary.BigEndian.Uint16(data[4:])%9000 + 64)
			data = data[6:]
			now += gap
			var tel cc.Telemetry // the data packet's stack: the sender attaches the empty header
			if err := codec.Put(&tel, &inttel.Header{}); err != nil {
				t.Fatal(err)
			}
			var want [inttel.HPCCMaxHops]inttel.Hop // each port's record, from Figure 7's rules
			for i, p := range ports {
				// Port i sees the packet 500 ns after port i−1; the cross
				// traffic leaves just before it, at the same time.
				egress := now + units.Time(i)*500*units.Nanosecond
				counters[i] += uint64(cross)
				q := cc.Queue{Len: queue, TxBytes: counters[i]}
				if err := p.Dequeue(egress, &cc.Packet{Size: cross}, q, nil); err != nil {
					t.Fatal(err)
				}
				tx := uint64(p.State().TxBytes) // the port's own count before the packet
				if portTx {
					tx = counters[i]
				}
				code, _ := codec.Code(p.Config().Rate)
				want[i] = inttel.Hop{Speed: code, TS: uint32(uint64(egress/units.Nanosecond) % (1 << 24)),
					TxBytes: uint32(tx / 128 % (1 << 20)), QLen: uint16(min(uint64(queue)/80, 0xffff))}
				if err := p.Dequeue(egress, &cc.Packet{Size: size, Tel: &tel}, q, nil); err != nil {
					t.Fatal(err)
				}
				counters[i] += uint64(size)
			}
			// The receiver decodes the stack, and echoes it in the ACK.
			var echoed inttel.Header
			if err := codec.Get(&tel, &echoed); err != nil {
				t.Fatal(err)
			}
			if echoed.PathID != pathID&inttel.MaxPathID || int(echoed.NHop) != nHop {
				t.Fatalf("prefix nHop %d pathID %#x, want %d %#x", echoed.NHop, echoed.PathID, nHop, pathID)
			}
			if got := echoed.Path(); !slices.Equal(got, want[:nHop]) {
				t.Fatalf("records %+v, want %+v", got, want[:nHop])
			}
			var again cc.Telemetry
			if err := codec.Put(&again, &echoed); err != nil || again != tel {
				t.Fatalf("re-encoded %x (%v), carried %x", again.Bytes(), err, tel.Bytes())
			}
			echo := tel
			// The ACK returns after the last hop plus 1 µs.
			// The packet leaves the sender at now, or, when the previous
			// ACK arrived later than that, right after it (this loop hands
			// the sender its events in time order).
			sentAt = max(now, sentAt)
			if err := sender.Sent(sentAt, &cc.Packet{Seq: seq, Payload: size, Size: size}, nil); err != nil {
				t.Fatalf("send %d refused: %v", k, err)
			}
			seq += uint64(size)
			ackAt := now + units.Time(nHop)*500*units.Nanosecond + units.Microsecond
			ack := cc.Feedback{Kind: cc.FeedbackAck, Seq: seq, SndNxt: seq + uint64(wc.Init), Tel: &echo}
			if err := sender.Feedback(ackAt, &ack, nil); err != nil {
				t.Fatalf("ACK %d rejected: %v", k, err)
			}
			sentAt = ackAt
			s := sender.State()
			// R may differ from the exact floor by 1 bit/s (8/T is held
			// rounded to nearest in UQ32_32: error below W·2^-33 < 0.5).
			lim := sender.Limits()
			if d := lim.Rate - rateOf(lim.Window, wc.T); lim.Window < wc.Min || lim.Window > wc.Max ||
				d < -1 || d > 1 || lim != (cc.Limits{Rate: s.Window.Rate, Window: s.Window.W}) {
				t.Fatalf("sender invariant broken: %+v", s.Window)
			}
		}
	})
}

// rateOf is R = W·8/T rounded down, computed independently of the window
// package with a 128-bit-safe split (W < 2^32, 8·10^12 < 2^43).
func rateOf(w units.Bytes, t units.Time) units.Rate {
	num := uint64(w) * 8 // < 2^35
	// W·8·10^12/T = (num·10^12)/T; num·10^12 < 2^75, so split 10^12 = 10^6·10^6.
	q := num * 1_000_000 / uint64(t)
	r := num * 1_000_000 % uint64(t)
	return units.Rate(q*1_000_000 + r*1_000_000/uint64(t))
}
