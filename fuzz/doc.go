// Package fuzz holds fuzz harnesses that cross package boundaries: a decoder
// feeding a state machine, a switch stamp read back by a sender. Fuzz tests
// that exercise a single package live beside that package.
//
// Run one with, for example:
//
//	go test ./fuzz -run '^$' -fuzz FuzzINTStampDecode -fuzztime 30s
//
// .ci/run runs every fuzz target in the repository for a few seconds each.
package fuzz
