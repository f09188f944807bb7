package rtl

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	inttel "github.com/hwcc/hwcc/int"
	"github.com/hwcc/hwcc/trace"

	_ "github.com/hwcc/hwcc/algos" // the parts the traces name
)

// TestParamsCurrent: sv/rtl_params.sv is what WriteParams writes now
// (regenerate with go generate ./examples/rtl).
func TestParamsCurrent(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, WriteParams(&b))
	got, err := os.ReadFile(filepath.Join("sv", "rtl_params.sv"))
	require.NoError(t, err)
	require.Equal(t, b.String(), string(got), "sv/rtl_params.sv is stale: run go generate ./examples/rtl")
}

// TestSettingsBuildParts: hwcc accepts the settings the benches give it.
func TestSettingsBuildParts(t *testing.T) {
	_, err := cc.NewCP("rocc", "cp", RoCC.Settings())
	require.NoError(t, err)
	settings, err := cc.ParseSettings(INT.Settings())
	require.NoError(t, err)
	_, err = cc.NewIn(&cc.Env{Rate: INTRate}, "hpcc", "rp", settings)
	require.NoError(t, err)
}

// TestQueueDividerExact: the RoCC block's constant divider is floor
// division at every byte count the quantiser does not saturate, checked
// exhaustively against Go's division.
func TestQueueDividerExact(t *testing.T) {
	d := uint64(RoCC.DeltaQ)
	limit := uint64(1) << RoCC.QueueBits * d // the first count that saturates
	m, s, err := queueDivider(d, limit)
	require.NoError(t, err)
	for v := uint64(0); v < limit; v++ {
		if got := v * m >> s; got != v/d {
			t.Fatalf("(%d * %d) >> %d = %d, want %d", v, m, s, got, v/d)
		}
	}
}

// bench is the built simulator and the files its runs read.
type bench struct {
	dir  string // the build directory: tb's working directory (recip.memh)
	tb   string // the Verilator binary
	hwcc string // the hwcc command
}

var (
	buildOnce sync.Once
	built     *bench
	buildErr  error
)

// build runs run.sh build once per test binary, or skips the test where
// the tools are missing.
func build(t *testing.T) *bench {
	t.Helper()
	if testing.Short() {
		t.Skip("skipped under -short: builds hwcc, its C archive and a Verilator simulator (about 40 s of CPU)")
	}
	for _, tool := range []string{"verilator", "cc", "c++", "make"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed: the RTL benches need verilator (Debian: apt-get install verilator), C and C++ compilers and make", tool)
		}
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "hwcc-rtl-")
		if err != nil {
			buildErr = err
			return
		}
		script, _ := filepath.Abs("run.sh")
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "bash", script, "build")
		cmd.Env = append(os.Environ(), "OUT="+dir, "CGO_ENABLED=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = errors.New("run.sh build: " + err.Error() + "\n" + string(out))
			return
		}
		built = &bench{dir: dir, tb: filepath.Join(dir, "obj", "tb"), hwcc: filepath.Join(dir, "hwcc")}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return built
}

// TestMain removes the build directory.
func TestMain(m *testing.M) {
	code := m.Run()
	if built != nil {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// run runs the simulator with plusargs and returns its output and whether
// it exited 0.
func (b *bench) run(t *testing.T, args ...string) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, b.tb, args...)
	cmd.Dir = b.dir
	start := time.Now()
	out, err := cmd.CombinedOutput()
	t.Logf("tb %s: %v", strings.Join(args, " "), time.Since(start).Round(time.Millisecond))
	if ctx.Err() != nil {
		t.Fatalf("tb %s: timed out\n%s", strings.Join(args, " "), out)
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("tb %s: %v", strings.Join(args, " "), err)
	}
	return string(out), err == nil
}

// passLine matches a bench's last line, "PASS bench=NAME events=N
// cycles=C" and its coverage counts name=value.
var passLine = regexp.MustCompile(`(?m)^PASS bench=(\w+) (.*)$`)

// pass runs a bench that must pass and returns its counts.
func (b *bench) pass(t *testing.T, name string, args ...string) map[string]int64 {
	t.Helper()
	out, ok := b.run(t, append([]string{"+bench=" + name}, args...)...)
	m := passLine.FindStringSubmatch(out)
	if !ok || m == nil || m[1] != name {
		t.Fatalf("bench %s did not pass:\n%s", name, out)
	}
	counts := map[string]int64{}
	for _, f := range strings.Fields(m[2]) {
		k, v, _ := strings.Cut(f, "=")
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			counts[k] = n
		}
	}
	t.Logf("%s", m[0])
	return counts
}

// mismatch is a bench's report of a register that differs.
type mismatch struct {
	cycle     int64
	register  string
	rtl, hwcc int64
	event     int
	inputs    string
}

var mismatchLine = regexp.MustCompile(`(?m)^MISMATCH cycle (\d+) register (.+?) rtl (-?\d+) hwcc (-?\d+) event (\d+) inputs: (.+)$`)

// fail runs a bench's wrong variant, which must stop at a mismatch, and
// returns it.
func (b *bench) fail(t *testing.T, name string, args ...string) mismatch {
	t.Helper()
	out, ok := b.run(t, append([]string{"+bench=" + name, "+wrong"}, args...)...)
	require.False(t, ok, "the wrong variant of %s passed:\n%s", name, out)
	require.NotContains(t, out, "PASS bench=")
	m := mismatchLine.FindStringSubmatch(out)
	require.NotNil(t, m, "the wrong variant of %s failed without a mismatch report:\n%s", name, out)
	atoi := func(s string) int64 { n, err := strconv.ParseInt(s, 10, 64); require.NoError(t, err); return n }
	r := mismatch{cycle: atoi(m[1]), register: m[2], rtl: atoi(m[3]), hwcc: atoi(m[4]), event: int(atoi(m[5])), inputs: m[6]}
	require.NotEqual(t, r.rtl, r.hwcc)
	t.Logf("%s", m[0])
	return r
}

// TestRecip: recip_unit agrees with hwtables' Lookup and DivFast on every
// divisor of the table's domain, 0..2^22 + 1 and the corners beyond; its
// wrong variant (the quotient rounded to nearest) is caught.
func TestRecip(t *testing.T) {
	b := build(t)
	c := b.pass(t, "recip", "+stride=1")
	// Every n in [0, 2^22 + 1], then 6 corners × 7 values of a.
	require.EqualValues(t, 1<<22+2+6*7, c["events"])
	m := b.fail(t, "recip")
	require.Equal(t, "q", m.register)
	// Rounding to nearest adds at most one to the truncated quotient.
	require.Equal(t, m.hwcc+1, m.rtl)
}

// TestDelta: int_delta agrees with inttel's TSDelta and TxBytesDelta on
// every 16th difference of each field (run.sh sweeps all of them); its
// wrong variant (2^24 - 1 added on a wrap) is caught.
func TestDelta(t *testing.T) {
	b := build(t)
	c := b.pass(t, "delta", "+stride=16")
	require.EqualValues(t, (1<<24+1<<20)/16+8, c["events"])
	m := b.fail(t, "delta")
	// One TS unit (1 ns) short, on a pair that wrapped.
	require.Equal(t, m.hwcc-int64(INT.TSUnit), m.rtl)
	require.Contains(t, m.register, "TSDelta")
}

// TestRoCC: rocc_cp agrees with hwcc's rocc cp register by register on
// 20 000 random events that take every branch of Algorithm 1 and every
// AUTO_TUNE region; its wrong variant (line 8 truncated) is caught, and
// the trace it writes replays the mismatch in hwcc.
func TestRoCC(t *testing.T) {
	b := build(t)
	c := b.pass(t, "rocc", "+events=20000", "+seed=1")
	require.EqualValues(t, 20000, c["events"])
	for _, k := range []string{"pi", "md_min", "md_half", "saturated"} {
		require.Positive(t, c[k], "no update took %s: the stimulus no longer reaches it", k)
	}
	require.EqualValues(t, 0b111111, c["regions"], "the PI did not run in every AUTO_TUNE region (bit s: shift s)")

	tr := filepath.Join(b.dir, "rocc-wrong.trace")
	m := b.fail(t, "rocc", "+trace="+tr)
	require.Equal(t, "f", m.register, "line 8's rounding shows first in F")
	replayShows(t, b, tr, m)
}

// TestINT: int_wrap agrees with hwcc's hpcc rp and inttel's deltas on
// 20 000 random ACKs that reach every guard; its wrong variant (an
// off-by-one in the TS wrap) is caught, and its trace replays in hwcc.
func TestINT(t *testing.T) {
	b := build(t)
	c := b.pass(t, "int", "+events=20000", "+seed=1")
	require.EqualValues(t, 20000, c["events"])
	for _, k := range []string{"path_changes", "reseeds", "zero_intervals", "stale", "no_sample", "wraps"} {
		require.Positive(t, c[k], "the stimulus no longer reaches %s", k)
	}
	tr := filepath.Join(b.dir, "int-wrong.trace")
	m := b.fail(t, "int", "+trace="+tr)
	replayShows(t, b, tr, m)
}

// TestTracePasses: a passing bench's trace replays in hwcc replay to the
// state the bench ended in: the last event's updates and f are the values
// the bench's block held at its end.
func TestTracePasses(t *testing.T) {
	b := build(t)
	tr := filepath.Join(b.dir, "rocc.trace")
	c := b.pass(t, "rocc", "+events=2000", "+seed=7", "+trace="+tr)
	_, events, err := readTrace(tr)
	require.NoError(t, err)
	require.Len(t, events, 2000)
	out := filepath.Join(b.dir, "rocc.out")
	got, err := exec.Command(b.hwcc, "replay", tr, "-o", out).CombinedOutput()
	require.NoError(t, err, "hwcc replay: %s", got)
	outs := readOutputs(t, out)
	require.Len(t, outs, 2000)
	for _, r := range []string{"updates", "f"} {
		v, ok := outs[len(outs)-1].register(t, r)
		require.True(t, ok)
		require.EqualValues(t, c[r], v, "register %s after the last event", r)
	}
}

// laneLine names a lane's delta in a mismatch report.
var laneLine = regexp.MustCompile(`^lane(\d+)\.(dts_ps|dtx_bytes) `)

// laneShows checks a lane's delta, which is not a register of the part,
// from the replay: the hop's record stored before the failing event (the
// replay's registers hopI.ts or hopI.tx_bytes after the event before it;
// 0 before the first) and the record the failing ACK echoes (its INT
// stack in the trace) give, by inttel's TSDelta or TxBytesDelta, the value
// the bench reported as hwcc's.
func laneShows(t *testing.T, outs []output, events []cc.Event, m mismatch) {
	t.Helper()
	l := laneLine.FindStringSubmatch(m.register)
	require.NotNil(t, l, "register %q", m.register)
	hop, _ := strconv.Atoi(l[1])
	field := map[string]string{"dts_ps": "ts", "dtx_bytes": "tx_bytes"}[l[2]]
	var older uint64
	if m.event > 1 {
		var ok bool
		older, ok = outs[m.event-2].register(t, "hop"+l[1]+"."+field)
		require.True(t, ok)
	}
	ev := events[m.event-1]
	require.True(t, ev.HasTel)
	var h inttel.Header
	require.NoError(t, inttel.ReadHeader(ev.Tel.Bytes(), &h))
	require.Greater(t, int(h.NHop), hop)
	codec, err := INT.Codec()
	require.NoError(t, err)
	var want int64
	if field == "ts" {
		want = int64(codec.TSDelta(inttel.Hop{TS: uint32(older)}, h.Hops[hop]))
	} else {
		want = int64(codec.TxBytesDelta(inttel.Hop{TxBytes: uint32(older)}, h.Hops[hop]))
	}
	require.Equal(t, want, m.hwcc, "inttel from the replay, event %d, %s", m.event, m.register)
	require.NotEqual(t, want, m.rtl)
}

func readTrace(path string) (trace.Header, []cc.Event, error) {
	f, err := os.Open(path)
	if err != nil {
		return trace.Header{}, nil, err
	}
	defer f.Close()
	return trace.ReadAll(f)
}

// output is one line of hwcc replay's outputs, the fields read here.
type output struct {
	N         int               `json:"n"`
	Err       string            `json:"err"`
	Registers []json.RawMessage `json:"registers"`
}

func readOutputs(t *testing.T, path string) []output {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var outs []output
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var o output
		require.NoError(t, json.Unmarshal(sc.Bytes(), &o))
		outs = append(outs, o)
	}
	require.NoError(t, sc.Err())
	return outs
}

// register returns the value of register name in o.
func (o output) register(t *testing.T, name string) (uint64, bool) {
	for _, raw := range o.Registers {
		var r []json.RawMessage
		require.NoError(t, json.Unmarshal(raw, &r))
		var n string
		require.NoError(t, json.Unmarshal(r[0], &n))
		if n == name {
			var v json.Number
			require.NoError(t, json.Unmarshal(r[2], &v))
			u, err := strconv.ParseUint(string(v), 10, 64)
			if err != nil { // a signed register, sign-extended
				i, err := strconv.ParseInt(string(v), 10, 64)
				require.NoError(t, err)
				u = uint64(i)
			}
			return u, true
		}
	}
	return 0, false
}

// replayShows checks that the trace a failing bench wrote holds the events
// up to the mismatch, and that both hwcc replay and package trace give, at
// the failing event, the value the bench reported as hwcc's.
func replayShows(t *testing.T, b *bench, path string, m mismatch) {
	t.Helper()
	h, events, err := readTrace(path)
	require.NoError(t, err)
	require.Len(t, events, m.event, "the trace holds the events up to the failing one")
	t.Logf("trace %s: %s %s, %d events", filepath.Base(path), h.Algorithm, h.Part, len(events))

	// hwcc replay, the command.
	out := path + ".out"
	got, err := exec.Command(b.hwcc, "replay", path, "-o", out).CombinedOutput()
	require.NoError(t, err, "hwcc replay: %s", got)
	outs := readOutputs(t, out)
	require.Len(t, outs, m.event)
	last := outs[m.event-1]
	require.Empty(t, last.Err)
	if strings.HasPrefix(m.register, "lane") {
		laneShows(t, outs, events, m)
		return
	}
	v, ok := last.register(t, m.register)
	require.True(t, ok, "hwcc replay's event %d has no register %s", m.event, m.register)
	require.Equal(t, uint64(m.hwcc), v, "hwcc replay, event %d, register %s", m.event, m.register)
	require.NotEqual(t, uint64(m.rtl), v)

	// Package trace, from Go.
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var buf bytes.Buffer
	require.NoError(t, trace.Replay(f, &buf))
	require.NoError(t, os.WriteFile(path+".go.out", buf.Bytes(), 0o644))
	goOuts := readOutputs(t, path+".go.out")
	v, ok = goOuts[m.event-1].register(t, m.register)
	require.True(t, ok)
	require.Equal(t, uint64(m.hwcc), v, "trace.Replay, event %d, register %s", m.event, m.register)
}
