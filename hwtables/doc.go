// Package hwtables holds generated lookup tables for hardware and their
// exporters: the tables a NIC or switch keeps in a small memory instead of
// computing a function, built by a generator in this repository, with their
// error bounds stated and checked exhaustively, and written out for hardware
// teams as $readmemh hex, C headers or JSON.
//
// Tables here:
//
//   - reciprocal 1/n, HPCC (Li et al., SIGCOMM 2019, ../shared/papers/hpcc.txt
//     section 4.3, "Accelerating divisions in hardware"): the NIC replaces the
//     divisions of the window law by a multiplication with 1/n read from a
//     table that stores n only when its reciprocal differs from the previously
//     stored one by at least ε relative. Over 1 ≤ n ≤ 2^22 and ε = 2^-7 the
//     paper needs about 10 KB; this package's 32-bit layout needs 5600 B. See
//     NewReciprocal and Table.Div.
//   - reciprocal-compact, for comparison: the way hardware dividers seed a
//     reciprocal, one table of 2^k reciprocals of normalised mantissas
//     addressed by the k bits of n after its leading one; constant-time
//     lookup. See NewCompact.
//
// Other tables (for example RoCC's auto-tune regions) live in their own files
// and can reuse the exporters through the Exportable interface.
//
// # Generated code
//
// The default tables (ε = 2^-7 and k = 6) are compiled in as arrays in
// tables_gen.go, which make_tables.go writes by calling GenerateGo; the same
// constructors build tables for other parameters at run time. A test rebuilds
// tables_gen.go in memory and checks it equals the committed file byte for
// byte. Regenerate with
//
//	go generate ./hwtables
//
// # Conventions
//
// Every table is immutable after construction and safe to share. Lookups and
// divisions do not allocate, do not loop over the entries and never panic;
// the checked forms return a *RangeError for a divisor outside [1, MaxN]
// and the fast forms clamp it, as their doc comments state.
package hwtables

//go:generate go run make_tables.go
