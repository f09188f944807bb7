package main

import (
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Example_run checks the program's output against the algorithms worked by
// hand.
//
// RoCC, Algorithm 1 with the 40 Gb/s preset (ΔQ = 600 B, ΔF = 10 Mb/s,
// Qref = 250 ΔQ, Qmid = 500 ΔQ, Fmax = 4000 ΔF, ᾱ = 0.3, β̄ = 1.5):
//
//	t=0:   Qcur=500, Qold=0:   Qcur−Qold ≥ Qmid and F > Fmax/8, so F = 4000/2 = 2000
//	t=40:  Qcur=400, Qold=500: F = 2000 − 0.3·150 − 1.5·(−100) = 2105 (F ≥ Fmax/2: full gains)
//	t=80:  Qcur=300, Qold=400: F = 2105 − 0.3·50 + 150 = 2240
//	t=120: Qcur=250, Qold=300: F = 2240 − 0 + 75 = 2315
//
// and the sender takes every rate (each comes from its current CP).
//
// HPCC, Algorithm 1 (T = 13 µs, η = 0.95, W_AI = 80 B, W_init = 100 Gb/s·T
// = 162.5 KB): the first ACK only stores the hop's record (qLen = 100 KB /
// 80 B = 1250, txBytes = 0). The second: Δts = 13 µs, Δtx = ⌊162500/128⌋·128
// = 162432 B, so u = 100000·8/(100 Gb/s·13 µs) + 162432·8/(100 Gb/s·13 µs)
// = 0.615385 + 0.999582 = 1.614966, τ = T so U = u, and W = W_init·η/U +
// W_AI = 95 590 + 80 = 95 670 B. The NIC's 1/n table (section 4.3) errs by
// +0.79 %/−0.10 % at most; it gives 95 659 B (−0.011 %). Rate = W/T =
// 95 659·8 bit/13 µs = 58.867 Gb/s.
//
// DCQCN with ConnectX's parameters: 500 KB is above Kmax, so the packet is
// marked (probability 1); the NP sends one CNP; the first CNP cuts RC by
// RC·α/2 with α = initial_alpha_value = 1023/1024: 100 000 Mb/s · (1 −
// 1023/2048) = 50 048.8 Mb/s, and the cut rounds down, so RC = 50 049 Mb/s.
func Example_run() {
	if err := run(os.Stdout); err != nil {
		panic(err)
	}
	// Output:
	// rocc  t=40us  queue=300KB  sender rate=20Gbps
	// rocc  t=80us  queue=240KB  sender rate=21.05Gbps
	// rocc  t=120us queue=180KB  sender rate=22.4Gbps
	// rocc  t=160us queue=150KB  sender rate=23.15Gbps
	// hpcc  ack 1: hop qLen=1250 txBytes=0  window=162.5KB rate=100Gbps
	// hpcc  ack 2: hop qLen=1250 txBytes=1269  window=95.659KB rate=58.867076923Gbps
	// dcqcn marked=true cnps=1 sender rate 100Gbps -> 50.049Gbps
	// error: dcqcn rp: rpg_time_reset = 0: want a time in 1ps..1s
}

// TestImportsOnlyTheContract: the program reaches the algorithms through
// package cc and the registry alone: of this module it imports cc, units
// and algos (for its registrations) and nothing else, no part's package
// and no codec (the INT stack it attaches is the registration's zero
// bytes, and it reads the sender's registers, not the header).
func TestImportsOnlyTheContract(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "main.go", nil, parser.ImportsOnly)
	require.NoError(t, err)
	var ours []string
	for _, im := range f.Imports {
		path, err := strconv.Unquote(im.Path.Value)
		require.NoError(t, err)
		if strings.HasPrefix(path, "github.com/hwcc/hwcc") {
			ours = append(ours, path)
		}
	}
	require.ElementsMatch(t, []string{"github.com/hwcc/hwcc/algos", "github.com/hwcc/hwcc/cc", "github.com/hwcc/hwcc/units"}, ours)
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
