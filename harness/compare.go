package harness

import (
	"fmt"
	"github.com/hwcc/hwcc/cc"
	"math"
	"slices"
	"strings"

	"github.com/hwcc/hwcc/units"
)

// Comparison is one scenario run under several algorithms, a row each: the
// side-by-side table `hwcc sim` prints for a scenario with a Compare list
// (the default scenario, "compare", is one).
type Comparison struct {
	Scenario string          `json:"scenario"`
	Rows     []ComparisonRow `json:"rows"`
	// WallSeconds is the wall-clock time of all the runs, the only
	// non-deterministic field: the command fills it, the harness leaves 0.
	WallSeconds float64 `json:"wall_seconds"`
}

// ComparisonRow summarises one algorithm's run of the scenario.
//
// The queue columns are those of the bottleneck: the switch egress port
// whose time-weighted mean queue over the measurement window is the largest
// in that run (the first such port in report order on a tie). Long-flow
// throughput is the mean over the long-lived flows of their throughput over
// the window. The incast completion time is from the first sized flow's
// start to the last one's finish, null if any has not finished. Units are
// in the field names (bytes, bit/s, ns); PFC pauses and paused time, drops
// and events are run-wide totals, as in Report.
type ComparisonRow struct {
	Algorithm     string  `json:"algorithm"`
	Bottleneck    string  `json:"bottleneck"` // "node:port"
	QueueP50Bytes int64   `json:"queue_p50_bytes"`
	QueueP99Bytes int64   `json:"queue_p99_bytes"`
	QueueMaxBytes int64   `json:"queue_max_bytes"`
	LongFlowBps   float64 `json:"long_flow_bps"`
	IncastFCTNs   *int64  `json:"incast_fct_ns"`
	Jain          float64 `json:"jain"`
	// The sized flows: how many started and finished, and over those
	// that finished the mean and 99th-percentile (nearest rank) of their
	// FCT and of their slowdown (FCT over the ideal FCT, see Result).
	Sized        int     `json:"sized"`
	Finished     int     `json:"finished"`
	FCTMeanNs    int64   `json:"fct_mean_ns"`
	FCTP99Ns     int64   `json:"fct_p99_ns"`
	SlowdownMean float64 `json:"slowdown_mean"`
	SlowdownP99  float64 `json:"slowdown_p99"`
	PFCPauses    int64   `json:"pfc_pauses"`
	PFCPausedNs  int64   `json:"pfc_paused_ns"`
	Drops        int64   `json:"drops"`
	Events       uint64  `json:"events"`
	// The trimming fabric's totals (Report.Trims, Nacks,
	// RetransmittedBytes); absent when nothing was trimmed.
	Trims              int64 `json:"trims,omitempty"`
	Nacks              int64 `json:"nacks,omitempty"`
	RetransmittedBytes int64 `json:"retransmitted_bytes,omitempty"`
}

// ForAlgorithm returns a copy of s that runs algorithm algo, with the
// parameters meant for it: a key "algo.name" in s.Params becomes "name" for
// algo and is dropped for every other algorithm; a key without a registered
// algorithm's prefix goes to every algorithm. The copy's Compare list is
// empty, so it is an ordinary single run.
func (s *Scenario) ForAlgorithm(algo string) *Scenario {
	c := *s
	c.Algorithm = algo
	c.Compare = nil
	c.Params = nil
	c.extra = append([]Param(nil), s.extra...)
	registered := cc.Names()
	for k, v := range s.Params {
		prefix, name, ok := strings.Cut(k, ".")
		if ok && slices.Contains(registered, prefix) {
			if prefix == algo {
				c.setParam(name, v)
			}
			continue
		}
		c.setParam(k, v)
	}
	return &c
}

func (s *Scenario) setParam(k, v string) {
	if s.Params == nil {
		s.Params = map[string]string{}
	}
	s.Params[k] = v
}

// Compare runs sc once under each algorithm of algos (sc.Compare if algos
// is empty) and returns the comparison and each run's Result, in order. The
// runs are independent and deterministic: the same scenario and seed give
// the same Comparison. opts.Progress, if set, sees each run in turn.
func Compare(sc *Scenario, algos []string, opts Options) (*Comparison, []*Result, error) {
	if sc == nil {
		return nil, nil, fmt.Errorf("harness: nil scenario")
	}
	if len(algos) == 0 {
		algos = sc.Compare
	}
	if len(algos) == 0 {
		return nil, nil, fmt.Errorf("scenario %s: compare: no algorithms to compare", sc.Name)
	}
	cmp := &Comparison{Scenario: sc.Name}
	results := make([]*Result, 0, len(algos))
	for _, a := range algos {
		r, err := Run(sc.ForAlgorithm(a), opts)
		if err != nil {
			return nil, nil, fmt.Errorf("compare %s: %w", a, err)
		}
		results = append(results, r)
		cmp.Rows = append(cmp.Rows, Summarize(r))
	}
	return cmp, results, nil
}

// Summarize reduces one run to its comparison row.
func Summarize(r *Result) ComparisonRow {
	rep := &r.Report
	row := ComparisonRow{
		Algorithm: rep.Algorithm, Jain: rep.Fairness.Jain,
		PFCPauses: rep.PFC.Pauses, PFCPausedNs: rep.PFC.PausedNs,
		Drops: rep.Drops, Events: rep.Events,
		Trims: rep.Trims, Nacks: rep.Nacks, RetransmittedBytes: rep.RetransmittedBytes,
	}
	best := -1
	for i, q := range rep.Queues {
		if best < 0 || q.MeanBytes > rep.Queues[best].MeanBytes {
			best = i
		}
	}
	if best >= 0 {
		q := rep.Queues[best]
		row.Bottleneck = fmt.Sprintf("%s:%d", q.Node, q.Port)
		row.QueueP50Bytes, row.QueueP99Bytes, row.QueueMaxBytes = q.P50Bytes, q.P99Bytes, q.MaxBytes
	}
	var longSum float64
	var longN int
	first, last := units.MaxTime, units.Time(-1)
	sized, finished := 0, 0
	for _, f := range r.Flows {
		if f.Size == 0 {
			longSum += f.Throughput
			longN++
			continue
		}
		sized++
		first = min(first, f.Start)
		if f.Finish >= 0 {
			finished++
			last = max(last, f.Finish)
		}
	}
	if longN > 0 {
		row.LongFlowBps = longSum / float64(longN)
	}
	if sized > 0 && finished == sized {
		ns := int64((last - first) / units.Nanosecond)
		row.IncastFCTNs = &ns
	}
	row.Sized, row.Finished = sized, finished
	if finished > 0 {
		fcts := make([]units.Time, 0, finished)
		slows := make([]float64, 0, finished)
		var sum units.Time
		var ssum float64
		for _, f := range r.Flows {
			if f.Size == 0 || f.Finish < 0 {
				continue
			}
			sd := float64(f.FCT) / float64(f.Ideal)
			fcts = append(fcts, f.FCT)
			slows = append(slows, sd)
			sum += f.FCT
			ssum += sd
		}
		slices.Sort(fcts)
		slices.Sort(slows)
		k := nearestRank(len(fcts), 0.99)
		row.FCTMeanNs = int64(sum / units.Time(len(fcts)) / units.Nanosecond)
		row.FCTP99Ns = int64(fcts[k] / units.Nanosecond)
		row.SlowdownMean = ssum / float64(len(slows))
		row.SlowdownP99 = slows[k]
	}
	return row
}

// nearestRank is the index of the p-quantile of n sorted values by the
// nearest-rank method: the ⌈p·n⌉-th smallest.
func nearestRank(n int, p float64) int {
	k := int(math.Ceil(p*float64(n))) - 1
	return max(min(k, n-1), 0)
}
