package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cc/cctest"
)

// TestConformance: the vendor's part keeps the contract, as any part must.
func TestConformance(t *testing.T) {
	require.NoError(t, cctest.Test(func() (cc.Part, error) {
		return NewHysteresis(HysteresisConfig{Low: defaultLow, High: defaultHigh})
	}, cctest.Options{}))
}

// TestCDrivesTheVendorPart builds this main as a C archive, compiles
// c/drive.c against it and capi/hwcc.h, runs it, and checks its output.
// The expected marks follow from the thresholds (low 30 KB, high 70 KB,
// 1 KB packets): the fill marks the packets that join queues of 71..100
// KB (30); after a drain to 50 KB the marker is still on (50 > 30), so
// the next 10 (queues 51..60 KB) are marked; after a drain to 25 KB
// (≤ 30) it is off, so the last 10 (26..35 KB, below high) are not: 40
// marks, the marker off, now = 205 events × 100 ns.
func TestCDrivesTheVendorPart(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler: cc not on PATH")
	}
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	dir := t.TempDir()
	lib := filepath.Join(dir, "libvendor.a")
	run(t, gobin, "build", "-buildmode=c-archive", "-o", lib, ".")
	prog := filepath.Join(dir, "drive")
	args := []string{"-std=c99", "-Wall", "-Wextra", "-Werror", "-I", filepath.Join("..", "..", "capi"), "-o", prog, filepath.Join("c", "drive.c"), lib, "-lpthread"}
	if runtime.GOOS == "linux" {
		args = append(args, "-ldl")
	}
	run(t, cc, args...)
	got := run(t, prog)
	want := fmt.Sprintf("fill 30, hold 10, after 0\nnow=%d\nmarking=0\nmarks=40\n", 205*100000) +
		"refused: acme cp: high = 70KB: want low..64MB (low = 80KB)\n"
	require.Equal(t, want, got)
}

func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}
