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

// TestPlannedVerb: until sim.go registers "sim", the verb says it is not
// available and exits 2; once a file registers it, the registered verb runs.
func TestPlannedVerb(t *testing.T) {
	if _, registered := registeredVerb("sim"); registered {
		t.Log("sim is registered; checking the planned-verb path with a name no file registers")
	}
	saved := planned
	t.Cleanup(func() { planned = saved })
	planned = append(slices.Clone(planned), verb{name: "zz-planned", summary: "test", run: notYet("zz is not yet available")})
	code, out, errOut := runArgs("zz-planned", "-x")
	require.Equal(t, exitUsage, code)
	require.Empty(t, out)
	require.Equal(t, "hwcc: zz is not yet available\n", errOut)

	if _, registered := registeredVerb("sim"); !registered {
		code, _, errOut = runArgs("sim")
		require.Equal(t, exitUsage, code)
		require.Contains(t, errOut, "the simulator is not yet available")
	}
}

// TestRegisteredVerbWins: a registered verb shadows a planned one of the
// same name, which is how sim.go replaces the placeholder without editing
// main.go; the usage lists it once, with the registered summary.
func TestRegisteredVerbWins(t *testing.T) {
	savedV, savedP := verbs, planned
	t.Cleanup(func() { verbs, planned = savedV, savedP })
	planned = append(slices.Clone(planned), verb{name: "zz", summary: "planned zz", run: notYet("zz is planned")})
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
	require.NotContains(t, usage, "planned zz")
}

func TestDuplicateVerbIsReported(t *testing.T) {
	saved := verbs
	t.Cleanup(func() { verbs = saved })
	verbs = append(slices.Clone(verbs), verb{name: "tables", summary: "again", run: notYet("x")})
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
