package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// perturb adds 1 to the value of register reg on the k-th line of the
// outputs file in and writes the result to out; it returns the old and
// the new value.
func perturb(t *testing.T, in, out string, k int, reg string) (old, changed string) {
	b, err := os.ReadFile(in)
	require.NoError(t, err)
	lines := strings.Split(string(b), "\n")
	require.Greater(t, len(lines), k)
	re := regexp.MustCompile(`\["` + regexp.QuoteMeta(reg) + `",(\d+),(-?\d+)\]`)
	m := re.FindStringSubmatchIndex(lines[k-1])
	require.NotNil(t, m, "register %s on line %d: %s", reg, k, lines[k-1])
	old = lines[k-1][m[4]:m[5]]
	changed = "9" + strings.TrimPrefix(old, "-")
	lines[k-1] = lines[k-1][:m[4]] + changed + lines[k-1][m[5]:]
	require.NoError(t, os.WriteFile(out, []byte(strings.Join(lines, "\n")), 0o644))
	return old, changed
}

// TestSimTraceReplayRoundTrip records one part of a run, replays it, and
// checks that -diff passes against its own outputs and finds a register
// perturbed at a chosen event: a reaction point (DCQCN), a congestion
// point (HPCC) and a switch point (HierCC).
func TestSimTraceReplayRoundTrip(t *testing.T) {
	for _, c := range []struct {
		name string
		sim  []string
		reg  string
	}{
		{"rp", []string{"-scenario", "dcqcn-incast", "-algo", "dcqcn", "-set", "duration=1.2ms", "-trace-part", "flow:0:rp"}, "rc"},
		{"cp", []string{"-scenario", "dcqcn-incast", "-algo", "hpcc", "-set", "duration=300us", "-set", "measure_from=0s", "-trace-part", "port:s0:0"}, "last_qlen"},
		{"sw", []string{"-scenario", "hiercc-burst", "-algo", "hiercc", "-set", "duration=150us", "-trace-part", "switch:tor0"}, "tx.enqueued"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			tr, o1, o2 := filepath.Join(dir, "T"), filepath.Join(dir, "O1"), filepath.Join(dir, "O2")
			code, _, errOut := runArgs(append([]string{"sim", "-trace", tr}, c.sim...)...)
			require.Equal(t, exitOK, code, errOut)
			require.Contains(t, errOut, "wrote trace")

			code, out, errOut := runArgs("replay", tr, "-o", o1)
			require.Equal(t, exitOK, code, errOut)
			require.Empty(t, out)
			b, err := os.ReadFile(o1)
			require.NoError(t, err)
			events := strings.Count(string(b), "\n")
			require.Greater(t, events, 20)

			code, _, errOut = runArgs("replay", tr, "-diff", o1)
			require.Equal(t, exitOK, code, errOut)
			require.Contains(t, errOut, "outputs match")

			k := events * 2 / 3
			old, changed := perturb(t, o1, o2, k, c.reg)
			code, _, errOut = runArgs("replay", "-diff", o2, tr)
			require.Equal(t, exitFail, code)
			want := "event " + itoa(k) + " (line " + itoa(k+1) + "): register " + c.reg + ": got " + old + ", want " + changed
			require.Contains(t, errOut, want)
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestSimTraceRefusals(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "T")
	code, _, errOut := runArgs("sim", "-trace", tr, "-trace-part", "flow:0:rp")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "pick one with -algo")
	code, _, errOut = runArgs("sim", "-scenario", "dcqcn-incast", "-trace", tr)
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "go together")
	code, _, errOut = runArgs("sim", "-scenario", "dcqcn-incast", "-trace", tr, "-trace-part", "flow:x")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "flow:N:rp")
	// A part the network lacks is refused before the run, with the names
	// it has (dcqcn-incast: a long flow and 7 incast flows, 9 hosts on s0);
	// no trace file is left behind.
	code, _, errOut = runArgs("sim", "-scenario", "dcqcn-incast", "-set", "duration=1.2ms", "-trace", tr, "-trace-part", "port:nosuch:0")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, `trace part port:nosuch:0: no switch "nosuch"; this run has flows 0..7 (flow:N:rp, flow:N:np) and switches s0 (ports 0..8) (port:NODE:P, switch:NODE)`)
	_, err := os.Stat(tr)
	require.ErrorIs(t, err, os.ErrNotExist)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, entries, "no temporary file is left")
}

func TestReplayErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad")
	require.NoError(t, os.WriteFile(bad, []byte(`{"hwcc_trace":2,"algorithm":"dcqcn","part":"rp","role":"RP"}`+"\n"+`{"t":1,"ev":"sent","packet":{"seq":"x"}}`+"\n"), 0o644))
	code, _, errOut := runArgs("replay", bad)
	require.Equal(t, exitFail, code)
	require.Contains(t, errOut, "line 2: field packet.seq")
	code, _, errOut = runArgs("replay")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "no trace FILE")
	code, out, _ := runArgs("replay", "-h")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "usage: hwcc replay FILE")
	_, ok := registeredVerb("replay")
	require.True(t, ok, "replay is a registered verb")
}

// TestReplayStreams: `hwcc replay` of a long trace keeps its memory
// constant in the number of events (the outputs are written, and compared
// with -diff, as they are made). A 160 000-event trace gives about 50 MB
// of outputs; the heap in use, sampled every 5 ms during the replay, stays
// under 24 MB for both -o and -diff (a replay that held every output line
// would reach the outputs' size). The trace is a DCQCN reaction
// point's sends, a CNP every 100 of them and the timer each µs.
func TestReplayStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("a 160 000-event replay")
	}
	const events = 160000
	dir := t.TempDir()
	tr := filepath.Join(dir, "long.trace")
	f, err := os.Create(tr)
	require.NoError(t, err)
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, `{"hwcc_trace":2,"algorithm":"dcqcn","part":"rp","role":"RP","env":{"rate":100000000000}}`)
	for i := range events {
		t := int64(i+1) * 100000 // 100 ns apart, in ps
		switch {
		case i%100 == 99:
			fmt.Fprintf(w, `{"t":%d,"ev":"feedback","feedback":{"kind":"cnp"}}`+"\n", t)
		case i%10 == 9:
			fmt.Fprintf(w, `{"t":%d,"ev":"timer"}`+"\n", t)
		default:
			fmt.Fprintf(w, `{"t":%d,"ev":"sent","packet":{"seq":%d,"payload":1000,"size":1082}}`+"\n", t, i*1000)
		}
	}
	require.NoError(t, w.Flush())
	require.NoError(t, f.Close())
	out := filepath.Join(dir, "long.out")

	peak := func(run func()) uint64 {
		runtime.GC()
		var maxHeap atomic.Uint64
		done := make(chan struct{})
		go func() {
			var ms runtime.MemStats
			for {
				select {
				case <-done:
					return
				case <-time.After(5 * time.Millisecond):
					runtime.ReadMemStats(&ms)
					if ms.HeapInuse > maxHeap.Load() {
						maxHeap.Store(ms.HeapInuse)
					}
				}
			}
		}()
		run()
		close(done)
		return maxHeap.Load()
	}
	const bound = 24 << 20
	h := peak(func() {
		code, _, errOut := runArgs("replay", tr, "-o", out)
		require.Equal(t, exitOK, code, errOut)
	})
	st, err := os.Stat(out)
	require.NoError(t, err)
	require.Greater(t, st.Size(), int64(2*bound), "the outputs are larger than the bound, so holding them would break it")
	require.Less(t, h, uint64(bound), "heap in use during replay -o")
	h = peak(func() {
		code, _, errOut := runArgs("replay", tr, "-diff", out)
		require.Equal(t, exitOK, code, errOut)
		require.Contains(t, errOut, "outputs match")
	})
	require.Less(t, h, uint64(bound), "heap in use during replay -diff")
}
