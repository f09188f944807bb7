package main

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// runArgs runs the command in-process and returns its status and output.
func runArgs(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

func TestVerbsUnique(t *testing.T) {
	require.Empty(t, duplicate(), "a verb registered twice")
	_, ok := lookup("tables")
	require.True(t, ok)
}

func TestNoArgsPrintsUsage(t *testing.T) {
	code, out, errOut := runArgs()
	require.Equal(t, exitUsage, code)
	require.Empty(t, out)
	require.Contains(t, errOut, "usage: hwcc <verb>")
	require.Contains(t, errOut, "tables")
	require.Contains(t, errOut, "sim")
}

func TestHelp(t *testing.T) {
	code, out, _ := runArgs("-h")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "usage: hwcc <verb>")
}

func TestUnknownVerb(t *testing.T) {
	code, _, errOut := runArgs("frobnicate")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, `unknown verb "frobnicate"`)
}

// TestRegisteredVerbRuns: a verb a file registers runs with the arguments
// after its name, and the usage lists it once, with its summary.
func TestRegisteredVerbRuns(t *testing.T) {
	saved := verbs
	t.Cleanup(func() { verbs = saved })
	verbs = slices.Clone(verbs)
	register(verb{name: "zz", summary: "registered zz", run: func(args []string, stdout, _ io.Writer) int {
		fmt.Fprint(stdout, "ran ", args)
		return exitOK
	}})
	code, out, _ := runArgs("zz", "a")
	require.Equal(t, exitOK, code)
	require.Equal(t, "ran [a]", out)
	_, _, usage := runArgs()
	require.Equal(t, 1, strings.Count(usage, "  zz "))
	require.Contains(t, usage, "registered zz")
}

// TestEveryVerbIsRegistered: the verbs the package doc lists are the ones
// registered, and none of them is a placeholder (each runs its -h).
func TestEveryVerbIsRegistered(t *testing.T) {
	for _, name := range []string{"algos", "replay", "sim", "tables", "version"} {
		_, ok := lookup(name)
		require.True(t, ok, name)
		code, _, _ := runArgs(name, "-h")
		require.Equal(t, exitOK, code, name)
	}
	require.Len(t, verbs, 5)
}

func TestDuplicateVerbIsReported(t *testing.T) {
	saved := verbs
	t.Cleanup(func() { verbs = saved })
	verbs = append(slices.Clone(verbs), verb{name: "tables", summary: "again", run: func([]string, io.Writer, io.Writer) int { return exitOK }})
	code, _, errOut := runArgs("tables")
	require.Equal(t, exitFail, code)
	require.Contains(t, errOut, `verb "tables" registered twice`)
}

// registeredVerb reports whether a file registered name.
func registeredVerb(name string) (verb, bool) {
	for _, v := range verbs {
		if v.name == name {
			return v, true
		}
	}
	return verb{}, false
}
