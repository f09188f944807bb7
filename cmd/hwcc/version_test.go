package main

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestVersion: `hwcc version` prints the release and the trace format on
// one line, and the release is a semantic version (major.minor.patch with
// no leading "v", as cc.Version's doc says), so a tag "v"+Version is a
// valid Go module version.
func TestVersion(t *testing.T) {
	code, out, errOut := runArgs("version")
	require.Equal(t, exitOK, code)
	require.Empty(t, errOut)
	m := regexp.MustCompile(`^hwcc (\d+)\.(\d+)\.(\d+) \(trace format (\d+)\)\n$`).FindStringSubmatch(out)
	require.NotNil(t, m, "output %q", out)
	require.Equal(t, "2", m[4], "trace.FormatVersion is 2 (trace/doc.go)")

	code, _, errOut = runArgs("version", "extra")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, `unexpected argument "extra"`)
}
