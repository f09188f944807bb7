// Package trace records and replays golden-model traces: the events that
// reach one part of the cc contract (a congestion, reaction, notification
// or switch point), in a JSON-lines format that a firmware or RTL team can
// feed to its own model, and the outputs the part shows after each event,
// so that two implementations can be compared event by event (Diff finds
// the first register where they differ). docs/trace.md describes the
// workflow; `hwcc sim -trace` records, `hwcc replay` replays.
//
// # Units
//
// Every time is an integer count of picoseconds, every size an integer
// count of bytes, every rate an integer count of bit/s (units.Time,
// units.Bytes, units.Rate). Byte strings are lower-case hexadecimal.
//
// # Trace
//
// A trace is UTF-8 text, one JSON object per line ("\n"; a "\r" before it
// is ignored; no blank lines). Line 1 is the header:
//
//	{"hwcc_trace":2, "version":"0.9.0", "algorithm":"dcqcn", "part":"rp", "role":"RP", "settings":{...}, "env":{...}}
//
// Its fields:
//
//   - hwcc_trace (required): the format version, FormatVersion (2;
//     version 1, whose packets carried INT headers as objects and an
//     echo number, is refused).
//   - version: the hwcc release that wrote it (cc.Version). Optional: a
//     trace without it reads as well. A reader takes any value; a trace
//     from another release replays, and where a part decides differently
//     in this release (CHANGELOG.md) the replayed outputs differ from the
//     recorded ones, which is what Diff reports. Only hwcc_trace decides
//     whether the trace can be read.
//   - algorithm, part (required): the part in the cc registry (hwcc algos).
//   - role (required): "CP", "RP", "NP" or "SW"; it must be the part's.
//   - settings: the part's settings, as strings in the syntax of hwcc
//     algos ("40us", "on"), applied in order (cc.Setting).
//   - env: the cc.Env the part is built in; a field left out is zero:
//     rate (bit/s), node, port, switch_id, base_rtt (ps), bottleneck
//     (bit/s), hops, payload (B), size (B), ports, switch_ports (a list
//     of {rate, edge, host}), index.
//
// Replay builds the part with cc.NewIn(&env, algorithm, part, settings).
//
// Every other line is one event, one call of a contract method, in order
// (cc.Event; Replay applies each with one cc.Event.Apply):
//
//	{"t":1346880, "ev":"enqueue", "packet":{...}, "queue":{...}}
//
// Its fields:
//
//   - t (required): the call's now, in ps.
//   - ev (required): the method: "timer" (Clock.Timer, every role),
//     "enqueue" and "dequeue" (CP, SW), "sent" (RP), "feedback" (RP, NP),
//     "receive" (NP), "arrive", "pause" and "message" (SW). An event of
//     a role other than the header's is an error.
//   - packet (required for enqueue, dequeue, sent, receive, arrive):
//     cc.Packet: flow, src, dst, seq (the payload offset of its first
//     byte), payload (B), size (B, as queues count it), prio (0..7), ce,
//     hdr (cc.Packet.Hdr, 32 hex digits; left out when all zero), tel
//     (its telemetry stack, when it carries one).
//   - queue (required for enqueue and dequeue): cc.Queue: len (B), rate
//     (bit/s), tx_bytes (B, a free-running counter), paused.
//   - feedback (required for feedback and message): cc.Feedback: kind
//     (required: "ack", "nak", "cnp", "rate", "credit", "credit-request",
//     "credit-stop", or "kind N"), flow, from, seq, acked (B), snd_nxt,
//     ece, data (its 16 bytes, 32 hex digits; left out when all zero), tel.
//   - port (required for a switch point's events but timer, not allowed
//     otherwise): Arrive's and Message's ingress port (−1 for a message
//     the switch sent itself), Enqueue's, Dequeue's and Pause's egress
//     port.
//   - prio, paused (required for pause, not allowed otherwise): the
//     priority (0..7) PFC pauses (paused true) or resumes.
//
// A telemetry stack (cc.Telemetry) is its bytes in hex, every one of
// them, at most 128 ("" is an empty stack; a packet without "tel" carries
// none): the wire form of the reading algorithm's codec, for HPCC's INT
// "0000" for the header a sender attaches and 8 more bytes per switch
// (package inttel).
//
// Fields left out of packet, queue and feedback are zero. Numbers are
// JSON integers (no fraction, no exponent), each within its field's Go
// type. A field the format does not have, or one the event's kind does
// not take, is an error.
//
// # Outputs
//
// An outputs file has one line per event of its trace, in order:
//
//	{"n":17, "err":"...", "actions":[...], "registers":[["rc",32,24000],...], "next_deadline":9223372036854775807, "limits":{...}}
//
// Its fields:
//
//   - n: the event's index, from 1 (the event on trace line n+1).
//   - err: the error the part returned, if it refused the event.
//   - actions: what the event decided, in order (cc.Action): {kind
//     ("mark-ce", "drop", "feedback", "pause", "resume", "credit"), to
//     ("source", "destination", "switch"; feedback only), prio, switch,
//     node, port, bytes (B), feedback (feedback only, as in an event)};
//     zero fields are left out. Left out when there are none.
//   - registers: the part's snapshot after the event
//     (cc.RegisterSource), each [name, width in bits, value]: the value in
//     decimal, sign-extended for a signed register (so possibly negative).
//   - next_deadline: NextDeadline after the event, in ps (2^63−1: none).
//   - limits (reaction points only): Limits after the event: rate
//     (bit/s, 0: not paced), window (B, 0: none), credited, credit (B).
//
// # Errors
//
// The Reader, Replay and Diff report a line they cannot read as an *Error
// naming the line (from 1) and the field ("packet.int.hops.2.ts"), and
// never panic on any input.
package trace
