package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
)

func TestAlgosListsEveryRegisteredAlgorithm(t *testing.T) {
	code, out, errOut := runArgs("algos")
	require.Equal(t, exitOK, code, errOut)
	for _, a := range cc.Algorithms() {
		require.Contains(t, out, a.Name+" ("+a.Title+")")
		for _, p := range a.Parts {
			require.Contains(t, out, p.Doc)
		}
	}
	for _, name := range []string{"rocc", "hpcc", "dcqcn", "dctcp"} {
		require.Contains(t, cc.Names(), name, "the command links package algos")
	}
}

// TestAlgosPartDetail: one part's parameters with kind, default, range and
// source, exactly as the registry describes them.
func TestAlgosPartDetail(t *testing.T) {
	code, out, errOut := runArgs("algos", "dcqcn", "rp")
	require.Equal(t, exitOK, code, errOut)
	a, err := cc.Lookup("dcqcn")
	require.NoError(t, err)
	ps, err := a.Part("rp")
	require.NoError(t, err)
	for _, q := range ps.Config.Describe().Params {
		line := ""
		for _, l := range strings.Split(out, "\n") {
			if f := strings.Fields(l); len(f) > 0 && f[0] == q.Name {
				line = l
			}
		}
		require.NotEmpty(t, line, "parameter %s listed", q.Name)
		require.Contains(t, line, q.Default)
		require.Contains(t, line, q.Range())
	}
	require.NotContains(t, out, "\n  np ", "only the part asked for")
}

func TestAlgosJSON(t *testing.T) {
	code, out, errOut := runArgs("algos", "-json")
	require.Equal(t, exitOK, code, errOut)
	var parts []algosJSON
	require.NoError(t, json.Unmarshal([]byte(out), &parts))
	n := 0
	for _, a := range cc.Algorithms() {
		n += len(a.Parts)
	}
	require.Len(t, parts, n)
	for _, p := range parts {
		require.NotEmpty(t, p.Presets, "%s %s", p.Algorithm, p.Part)
		for _, q := range p.Params {
			require.NotEmpty(t, q.Doc, "%s %s %s has a doc line", p.Algorithm, p.Part, q.Name)
			require.NotEmpty(t, q.Source, "%s %s %s names its source", p.Algorithm, p.Part, q.Name)
		}
	}
}

func TestAlgosUsageErrors(t *testing.T) {
	code, _, errOut := runArgs("algos", "nosuch")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "rocc", "lists the registered algorithms")
	code, _, errOut = runArgs("algos", "rocc", "np")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "one of cp, hostcp, rp")
	code, _, _ = runArgs("algos", "a", "b", "c")
	require.Equal(t, exitUsage, code)
	code, _, _ = runArgs("algos", "-nope")
	require.Equal(t, exitUsage, code)
	code, _, errOut = runArgs("algos", "-h")
	require.Equal(t, exitOK, code)
	require.Contains(t, errOut, "usage: hwcc algos")
}
