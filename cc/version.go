package cc

// Version is hwcc's release version, a semantic version without the
// leading "v" (the module's Git tag for it is "v" + Version).
//
// It versions the library as a whole: the Go API of every package, the
// registry's algorithms, parts, parameters and presets, and what each part
// decides for a given sequence of events. A release that changes any of
// them changes Version and says what changed in CHANGELOG.md. Before 1.0.0
// a minor release may change the Go API; from 1.0.0 on only a major one.
//
// `hwcc version` prints it, every trace header records it (package trace,
// the "version" field) and the C ABI reports it (hwcc_version() in
// capi/hwcc.h), so a trace or a linked library names the release that
// made it.
//
// The trace format and the C ABI also carry their own compatibility
// numbers, which change only when their encoding or binary layout does:
// trace.FormatVersion (the header's "hwcc_trace") and HWCC_ABI_VERSION
// (hwcc_abi_version()). A reader checks those to know whether it can read
// a trace or call the library at all; Version tells which release wrote
// the trace or built the library. CHANGELOG.md gives both numbers for
// every release.
const Version = "0.9.0"
