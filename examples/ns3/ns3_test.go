package ns3_test

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hwcc/hwcc/harness"
	_ "github.com/hwcc/hwcc/harness/algos"
)

// Tolerances both simulators must meet (README.md): every flow's
// throughput within tolFrac of the fair share C/N, and Jain's index at
// least minJain.
const (
	tolFrac = 0.10
	minJain = 0.99
)

// Defaults of rocc-dumbbell.cc, the rocc-fairness scenario's N and C.
const (
	senders  = 10
	linkGbps = 40.0
)

// result is what rocc-dumbbell prints at the end.
type result struct {
	fairGbps float64
	flows    map[int]float64
	jain     float64
	hasJain  bool
}

func parse(t *testing.T, out []byte) result {
	t.Helper()
	r := result{flows: map[int]float64{}}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("bad number %q: %v", s, err)
		}
		return v
	}
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 4 && f[0] == "flow" && f[2] == "throughput_gbps":
			id, err := strconv.Atoi(f[1])
			if err != nil {
				t.Fatalf("bad flow line %q", sc.Text())
			}
			r.flows[id] = num(f[3])
		case len(f) == 2 && f[0] == "jain":
			r.jain, r.hasJain = num(f[1]), true
		case len(f) > 0 && f[0] == "config":
			for i := 1; i+1 < len(f); i += 2 {
				if f[i] == "fair_share_gbps" {
					r.fairGbps = num(f[i+1])
				}
			}
		}
	}
	return r
}

// TestNS3RoCCFairness builds and runs rocc-dumbbell through run.sh (ns-3
// and hwcc's RoCC cp and rp) and checks the fair share.
func TestNS3RoCCFairness(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped under -short: builds libhwcc.a and an ns-3 program (about 30 s)")
	}
	if err := exec.Command("pkg-config", "--exists", "ns3-core").Run(); err != nil {
		t.Skip("ns-3 not installed (pkg-config --exists ns3-core failed); install libns3-dev libgsl-dev pkg-config, or run examples/ns3/run.sh")
	}
	if _, err := exec.LookPath("c++"); err != nil {
		t.Skip("no c++ compiler")
	}
	script, err := filepath.Abs("run.sh")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", script)
	cmd.Env = append(os.Environ(), "OUT="+t.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("run.sh: %v\nstderr:\n%s\nstdout:\n%s", err, stderr.String(), out)
	}
	r := parse(t, out)
	fair := linkGbps / senders
	if r.fairGbps != fair {
		t.Errorf("config fair_share_gbps = %v, want %v (defaults changed?)", r.fairGbps, fair)
	}
	if len(r.flows) != senders {
		t.Fatalf("got %d flow lines, want %d\n%s", len(r.flows), senders, out)
	}
	for id, g := range r.flows {
		if g < fair*(1-tolFrac) || g > fair*(1+tolFrac) {
			t.Errorf("ns-3: flow %d: %.4f Gb/s, want %.3f Gb/s ± %.0f%%", id, g, fair, tolFrac*100)
		}
	}
	if !r.hasJain || r.jain < minJain {
		t.Errorf("ns-3: jain = %v (present %v), want ≥ %v", r.jain, r.hasJain, minJain)
	}
	t.Logf("ns-3: flows %v Gb/s, jain %.6f", r.flows, r.jain)
}

// TestHwccSimRoCCFairness runs the same scenario in hwcc's own simulator
// (hwcc sim -scenario rocc-fairness) and checks the same fair share.
func TestHwccSimRoCCFairness(t *testing.T) {
	sc, err := harness.Builtin("rocc-fairness")
	if err != nil {
		t.Fatal(err)
	}
	res, err := harness.Run(sc, harness.Options{NoSeries: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Flows) != senders {
		t.Fatalf("hwcc sim: %d flows, want %d (the ns-3 defaults follow the scenario)", len(res.Flows), senders)
	}
	fair := linkGbps * 1e9 / senders
	for _, f := range res.Flows {
		if !f.Active {
			t.Errorf("hwcc sim: flow %v not active for the whole window", f.ID)
		}
		if f.Throughput < fair*(1-tolFrac) || f.Throughput > fair*(1+tolFrac) {
			t.Errorf("hwcc sim: flow %v: %.4f Gb/s, want %.3f Gb/s ± %.0f%%", f.ID, f.Throughput/1e9, fair/1e9, tolFrac*100)
		}
	}
	if j := res.Report.Fairness.Jain; j < minJain {
		t.Errorf("hwcc sim: jain = %v, want ≥ %v", j, minJain)
	}
}
