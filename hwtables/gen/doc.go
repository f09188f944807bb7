// Package gen generates and exports the lookup tables of package hwtables.
// It is never linked into a state machine: it needs go/format and
// encoding/json, and it runs 2^22 lookups to measure a table's error, none
// of which belongs in a NIC or switch model (hwtables' tests check that no
// runtime package reaches it).
//
// What it generates:
//
//   - HPCC's reciprocal table 1/n (Li et al., SIGCOMM 2019,
//     [HPCC] §4.3, "Accelerating divisions in
//     hardware") and the compact mantissa table it is compared with: Table
//     describes either, with its word layout (key n_k − 1 in 22 bits and an
//     F-bit mantissa; or an F-bit mantissa at address i), parameters,
//     analytic bound (hwtables.Table.Bound) and the worst error Measure finds
//     over every n in [1, 2^22].
//   - RoCC's AUTO_TUNE region bounds (RoCC, IEEE TPDS 2023,
//     [RoCC], Algorithm 1 lines 15–21, §V-C):
//     RoCCAutoTune describes the five words ⌈Fmax/2^j⌉, each as wide as
//     Fmax.
//   - The Go source of hwtables/tables_gen.go, the default tables compiled
//     into hwtables (ε = 2^-7, F = 10; k = 6, F = 10): GenerateGo, which
//     hwtables/make_tables.go calls from `go generate ./hwtables`.
//
// The exporters write any Exportable for hardware teams: WriteMemh a
// Verilog $readmemh file, WriteC a C header with a static const array and
// field macros, WriteJSON one JSON document (JSONTable). Each heads its
// output with the table's parameters, bounds, measured error and how
// hardware reads a word. `hwcc tables` is the command-line front end.
//
// ParseEps and FormatEps read and write ε = 2^-e the way the command takes
// it ("2^-7", "1/128", "0.0078125").
package gen
