// Package units holds the physical quantities every hwcc package speaks in:
// Time (integer picoseconds), Bytes and Rate (bits per second), with exact
// conversions between them and parsers for the strings users type.
//
// Picoseconds are the harness's clock resolution: one byte at 800 Gb/s lasts
// exactly 10 ps, so serialisation times of every standard link speed are whole
// numbers of picoseconds (see SerializationTime for the few that are not and
// how they round). An int64 of picoseconds spans ±106 days.
//
// The conversions use 128-bit intermediates (math/bits) so that no product of
// a byte count and a rate overflows before the division; results that do not
// fit in int64 saturate at the type's maximum and say so in their doc comment.
// Every rounding rule is stated where it is applied.
//
// # What is here
//
//   - Time, Bytes and Rate, with their unit constants (Nanosecond, KB, KiB,
//     Gbps, ...); MaxTime is "never" for a deadline.
//   - Conversions: SerializationTime (bytes at a rate → time, rounded up),
//     BytesIn (a rate over a time → bytes, rounded down) and RateOf (bytes
//     over a time → rate, rounded down).
//   - Strings: ParseTime, ParseBytes and ParseRate read what users type
//     ("1.5us", "150KB", "40Gbps"); each type's String writes the exact value
//     in the largest unit it reaches, and what it writes parses back.
//
// Nothing here is specific to a paper; the units follow the papers' usage:
// rates in bits per second (RoCC's ΔF = 10 Mb/s), queues in bytes with
// KB = 1000 B as the RoCC authors' code uses it (KiB = 1024 B when asked for),
// and time in ns or µs as HPCC's INT timestamps and every paper's timers.
package units
