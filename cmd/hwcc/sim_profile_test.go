package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// readProfile returns the decoded protocol buffer of a pprof file (a
// gzip-compressed profile.proto message, runtime/pprof's format).
func readProfile(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err, "%s is not gzip-compressed", path)
	b, err := io.ReadAll(zr)
	require.NoError(t, err)
	return b
}

// TestSimProfiles: -cpuprofile and -memprofile write the two standard
// pprof files and leave the report as it is. A profile's string table
// holds the names of its sample types: a CPU profile's are "samples" and
// "cpu" in "nanoseconds", an allocation profile's "alloc_objects",
// "alloc_space", "inuse_space" in "bytes" (runtime/pprof's writers). With
// every allocation sampled (MemProfileRate 1) the harness's own functions,
// which build the network, are in the allocation profile's stacks.
func TestSimProfiles(t *testing.T) {
	defer func(r int) { runtime.MemProfileRate = r }(runtime.MemProfileRate)
	runtime.MemProfileRate = 1
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.pprof"), filepath.Join(dir, "mem.pprof")
	args := []string{"-scenario", "line-rate-2to1", "-set", "duration=200us"}
	profiled := simJSON(t, append(args, "-cpuprofile", cpu, "-memprofile", mem)...)
	plain := simJSON(t, args...)
	delete(profiled, "wall_seconds")
	delete(plain, "wall_seconds")
	require.Equal(t, plain, profiled, "profiling changes nothing in the report")

	c := readProfile(t, cpu)
	for _, s := range []string{"samples", "cpu", "nanoseconds"} {
		require.True(t, bytes.Contains(c, []byte(s)), "the CPU profile names %q", s)
	}
	m := readProfile(t, mem)
	for _, s := range []string{"alloc_objects", "alloc_space", "inuse_space", "bytes", "github.com/hwcc/hwcc/harness."} {
		require.True(t, bytes.Contains(m, []byte(s)), "the allocation profile names %q", s)
	}
	require.False(t, bytes.Contains(m, []byte("nanoseconds")), "an allocation profile, not a CPU one")

	// A comparison is profiled the same way.
	code, _, errOut := runArgs("sim", "-set", "duration=200us", "-set", "at=100us", "-cpuprofile", cpu)
	require.Equal(t, exitOK, code, errOut)
	require.True(t, bytes.Contains(readProfile(t, cpu), []byte("cpu")))
}

// TestSimProfileErrors: a profile file that cannot be created fails the
// command (exit 1) before anything runs, naming the flag; -print-scenario
// runs nothing and so writes no profile.
func TestSimProfileErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no", "such", "dir", "p.pprof")
	for _, flag := range []string{"-cpuprofile", "-memprofile"} {
		code, out, errOut := runArgs("sim", "-scenario", "line-rate-2to1", "-set", "duration=200us", flag, missing)
		require.Equal(t, exitFail, code, flag)
		require.Empty(t, out, "%s: nothing ran", flag)
		require.Contains(t, errOut, flag)
		require.NoFileExists(t, missing)
	}
	p := filepath.Join(t.TempDir(), "p.pprof")
	code, _, errOut := runArgs("sim", "-scenario", "line-rate-2to1", "-cpuprofile", p, "-memprofile", p+".mem", "-print-scenario")
	require.Equal(t, exitOK, code, errOut)
	require.NoFileExists(t, p)
	require.NoFileExists(t, p+".mem")
	code, out, _ := runArgs("sim", "-h")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "-cpuprofile")
	require.Contains(t, out, "-memprofile")
}

// TestSimProfilesReplaceOnlyOnSuccess: the profiles are output files like
// the others (openOut): over existing files, a run that succeeds replaces
// them with the profiles, and a run refused once the network is built (a
// -trace-part the run lacks) leaves them as they were, with no temporary
// file beside them.
func TestSimProfilesReplaceOnlyOnSuccess(t *testing.T) {
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.pprof"), filepath.Join(dir, "mem.pprof")
	for _, f := range []string{cpu, mem} {
		require.NoError(t, os.WriteFile(f, []byte(keepText), 0o640))
	}
	code, _, _ := runArgs("sim", "-scenario", "hpcc-incast", "-trace", filepath.Join(dir, "T"), "-trace-part", "flow:99:rp",
		"-cpuprofile", cpu, "-memprofile", mem)
	require.Equal(t, exitUsage, code)
	for _, f := range []string{cpu, mem} {
		unchanged(filepath.Base(f), keepText)(t, dir, "")
	}

	code, _, errOut := runArgs("sim", "-scenario", "line-rate-2to1", "-set", "duration=200us", "-cpuprofile", cpu, "-memprofile", mem)
	require.Equal(t, exitOK, code, errOut)
	require.True(t, bytes.Contains(readProfile(t, cpu), []byte("nanoseconds")), "a CPU profile replaced the file")
	require.True(t, bytes.Contains(readProfile(t, mem), []byte("alloc_space")), "an allocation profile replaced the file")
	for _, f := range []string{cpu, mem} {
		st, err := os.Stat(f)
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o640), st.Mode().Perm(), "%s keeps its permissions", f)
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 2, "no temporary file is left")
}
