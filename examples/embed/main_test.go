package main

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Example_run checks the program's output against Algorithm 1 worked by
// hand with the 40 Gb/s preset (ΔQ = 600 B, ΔF = 10 Mb/s, Qref = 250 ΔQ,
// Qmid = 500 ΔQ, Fmax = 4000 ΔF, ᾱ = 0.3, β̄ = 1.5):
//
//	t=0:   Qcur=500, Qold=0:   Qcur−Qold ≥ Qmid and F > Fmax/8, so F = 4000/2 = 2000
//	t=40:  Qcur=400, Qold=500: F = 2000 − 0.3·150 − 1.5·(−100) = 2105 (F ≥ Fmax/2: full gains)
//	t=80:  Qcur=300, Qold=400: F = 2105 − 0.3·50 + 150 = 2240
//	t=120: Qcur=250, Qold=300: F = 2240 − 0 + 75 = 2315
//
// and the sender takes every rate (each comes from its current CP).
func Example_run() {
	if err := run(); err != nil {
		panic(err)
	}
	// Output:
	// t=0s    queue=300KB  F=20Gbps    sender rate=20Gbps
	// t=40us  queue=240KB  F=21.05Gbps sender rate=21.05Gbps
	// t=80us  queue=180KB  F=22.4Gbps  sender rate=22.4Gbps
	// t=120us queue=150KB  F=23.15Gbps sender rate=23.15Gbps
}

// TestREADMEShowsThisProgram keeps the README's embedding example true: the
// code between the README:begin and README:end markers must appear verbatim
// in the README.
func TestREADMEShowsThisProgram(t *testing.T) {
	src, err := os.ReadFile("main.go")
	require.NoError(t, err)
	_, rest, ok := strings.Cut(string(src), "// README:begin\n")
	require.True(t, ok)
	snippet, _, ok := strings.Cut(rest, "// README:end")
	require.True(t, ok)
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	require.Contains(t, string(readme), strings.TrimSpace(snippet),
		"README.md must show run() from examples/embed/main.go verbatim")
}
