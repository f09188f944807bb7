// Package hwtables holds the lookup tables that hwcc's state machines read
// at run time: the tables a NIC or switch keeps in a small memory instead of
// computing a function, built by a generator in this repository, with their
// error bounds stated and checked exhaustively by the tests.
//
// Tables here:
//
//   - reciprocal 1/n, HPCC ([HPCC] §4.3, "Accelerating divisions in
//     hardware"): the NIC replaces the
//     divisions of the window law by a multiplication with 1/n read from a
//     table that stores n only when its reciprocal differs from the previously
//     stored one by at least ε relative. Over 1 ≤ n ≤ 2^22 and ε = 2^-7 the
//     paper needs about 10 KB; this package's 32-bit layout (22-bit key,
//     10-bit mantissa) needs 1400 words, 5600 B, and errs by at most
//     +0.787 % / −0.098 %. See NewReciprocal and Table.Div.
//   - reciprocal-compact, for comparison: the way hardware dividers seed a
//     reciprocal, one table of 2^k reciprocals of normalised mantissas
//     addressed by the k bits of n after its leading one; constant-time
//     lookup. At k = 6: 64 words of 10 bits, 80 B, |error| ≤ 0.824 %. See
//     NewCompact.
//   - RoCC's AUTO_TUNE regions (RoCC, IEEE TPDS 2023, Algorithm 1 lines
//     15–21, section V-C): five bounds ⌈Fmax/2^j⌉, compared with the fair
//     rate F side by side, give the gain shift exactly as the paper's loop
//     does. See RoCCAutoTune.
//
// Generation, error measurement and export ($readmemh hex, C headers, JSON
// for hardware teams, and the Go source of tables_gen.go) live in package
// hwtables/gen, so that nothing a state machine links pulls in a formatter,
// a parser or encoding/json; a test checks the import graph.
//
// # Generated code
//
// The default tables (ε = 2^-7 and k = 6) are compiled in as arrays in
// tables_gen.go, which make_tables.go writes by calling gen.GenerateGo; the
// same constructors build tables for other parameters at run time. A test
// in hwtables/gen rebuilds tables_gen.go in memory and checks it equals the
// committed file byte for byte. Regenerate with
//
//	go generate ./hwtables
//
// # Conventions
//
// Every table is immutable after construction and safe to share. Lookups and
// divisions do not allocate, do not loop over the entries and never panic;
// the checked forms return a *RangeError for a divisor outside [1, MaxN]
// and the fast forms clamp it, as their doc comments state. A constructor
// given a parameter out of range returns a *RangeError naming the field,
// the value and the allowed range; every *RangeError matches ErrRange with
// errors.Is.
package hwtables

//go:generate go run make_tables.go
