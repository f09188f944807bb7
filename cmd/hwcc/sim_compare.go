package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/harness/plot"
	"github.com/hwcc/hwcc/units"
)

// Files `hwcc sim -out DIR` writes for a comparison, besides one directory
// per algorithm holding that run's files (see writeOut).
const (
	comparisonJSON   = "comparison.json"   // the -json comparison
	compareQueueSVG  = "compare_queue.svg" // each algorithm's bottleneck queue over time
	compareLongSVG   = "compare_long.svg"  // each algorithm's long-flow throughput over time
	compareQueueCSV  = "compare_queue.csv" // time_us,algorithm,queue_bytes
	compareQueueHead = "time_us,algorithm,queue_bytes"
)

// runCompare runs sc under each algorithm of sc.Compare and prints the
// side-by-side table (or the comparison as JSON).
func runCompare(sc *harness.Scenario, asJSON bool, out string, strict bool, stdout, stderr io.Writer) int {
	var prog *progress
	opts := harness.Options{NoSeries: out == "", ProgressEvery: simProgressEvery}
	start := time.Now()
	cmp := &harness.Comparison{Scenario: sc.Name}
	results := make([]*harness.Result, 0, len(sc.Compare))
	for _, algo := range sc.Compare {
		prog = newProgress(stderr, time.Now)
		if prog != nil {
			opts.Progress = prog.update
		}
		one, err := harness.New(sc.ForAlgorithm(algo), opts)
		if err != nil {
			fmt.Fprintf(stderr, "hwcc sim: %s: %v\n", algo, err)
			return exitUsage
		}
		res, err := one.Run()
		if prog != nil {
			prog.done()
		}
		if err != nil {
			fmt.Fprintf(stderr, "hwcc sim: %s: run failed: %v\n", algo, err)
			return exitFail
		}
		results = append(results, res)
		cmp.Rows = append(cmp.Rows, harness.Summarize(res))
	}
	cmp.WallSeconds = time.Since(start).Seconds()

	var err error
	if asJSON {
		err = writeComparisonJSON(stdout, cmp)
	} else {
		err = writeComparison(stdout, sc, cmp)
	}
	if err != nil {
		fmt.Fprintf(stderr, "hwcc sim: %v\n", err)
		return exitFail
	}
	if out != "" {
		files, err := writeCompareOut(out, cmp, results)
		if len(files) > 0 {
			fmt.Fprintf(stderr, "hwcc sim: wrote %s\n", strings.Join(files, ", "))
		}
		if err != nil {
			fmt.Fprintf(stderr, "hwcc sim: -out: %v\n", err)
			return exitFail
		}
	}
	return strictStatus(strict, stderr, results...)
}

func writeComparisonJSON(w io.Writer, cmp *harness.Comparison) error { return writeJSON(w, cmp) }

// writeJSON writes v as indented JSON, with <, > and & left as they are
// (scenario descriptions use arrows and ampersands).
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// writeComparison prints one row per algorithm.
func writeComparison(w io.Writer, sc *harness.Scenario, cmp *harness.Comparison) error {
	fmt.Fprintf(w, "scenario   %s: %s\n", sc.Name, sc.Description)
	fmt.Fprintf(w, "duration   %s simulated per algorithm, measured over [%s, %s), %.2fs wall in all\n\n",
		fmtTime(units.Time(sc.Duration)), fmtTime(units.Time(sc.MeasureFrom)), fmtTime(units.Time(measureTo(sc))), cmp.WallSeconds)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if sc.Workload.Poisson != nil {
		return writeFCTComparison(w, tw, cmp)
	}
	fmt.Fprintln(tw, "algorithm\tqueue p50\tqueue p99\tqueue max\tlong flow\tincast done\tJain\tPFC pauses\tdrops")
	for _, r := range cmp.Rows {
		done := "not finished"
		if r.IncastFCTNs != nil {
			done = fmtTime(units.Time(*r.IncastFCTNs) * units.Nanosecond)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%.4f\t%d\t%d\n", r.Algorithm,
			fmtBytes(float64(r.QueueP50Bytes)), fmtBytes(float64(r.QueueP99Bytes)), fmtBytes(float64(r.QueueMaxBytes)),
			fmtGbps(r.LongFlowBps), done, r.Jain, r.PFCPauses, r.Drops)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nqueue: the bottleneck switch port (largest mean queue) over the window; long flow: mean")
	fmt.Fprintln(w, "throughput of the long-lived flows over the window; incast done: first start to last finish")
	fmt.Fprintln(w, "of the sized flows. -algo NAME runs one of them with the full report; -json prints this table.")
	return writeTrimComparison(w, cmp)
}

// writeTrimComparison prints, when a row's fabric trimmed (switch
// flow_control trim), each row's sized flows' FCTs and its trims, NACKs
// and payload resent; nothing otherwise.
func writeTrimComparison(w io.Writer, cmp *harness.Comparison) error {
	trimmed := false
	for _, r := range cmp.Rows {
		trimmed = trimmed || r.Trims > 0
	}
	if !trimmed {
		return nil
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "algorithm	flows done	FCT mean	FCT p99	trims	NACKs	resent")
	for _, r := range cmp.Rows {
		fmt.Fprintf(tw, "%s\t%d/%d\t%s\t%s\t%d\t%d\t%s\n", r.Algorithm, r.Finished, r.Sized,
			fmtTime(units.Time(r.FCTMeanNs)*units.Nanosecond), fmtTime(units.Time(r.FCTP99Ns)*units.Nanosecond),
			r.Trims, r.Nacks, fmtBytes(float64(r.RetransmittedBytes)))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\ntrims: data frames cut to their header at a switch (flow_control trim); NACKs: the receivers'")
	fmt.Fprintln(w, "requests for them; resent: payload the senders sent again. FCTs over the finished sized flows.")
	return nil
}

// writeFCTComparison prints the rows of a scenario with Poisson arrivals:
// the flows' completion times and slowdowns.
func writeFCTComparison(w io.Writer, tw *tabwriter.Writer, cmp *harness.Comparison) error {
	fmt.Fprintln(tw, "algorithm\tflows done\tFCT mean\tFCT p99\tslowdown mean\tslowdown p99\tqueue max\tPFC pauses\tdrops")
	for _, r := range cmp.Rows {
		fmt.Fprintf(tw, "%s\t%d/%d\t%s\t%s\t%.2f\t%.2f\t%s\t%d\t%d\n", r.Algorithm, r.Finished, r.Sized,
			fmtTime(units.Time(r.FCTMeanNs)*units.Nanosecond), fmtTime(units.Time(r.FCTP99Ns)*units.Nanosecond),
			r.SlowdownMean, r.SlowdownP99, fmtBytes(float64(r.QueueMaxBytes)), r.PFCPauses, r.Drops)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nflows done: sized flows finished of those started; FCT and slowdown (FCT over the flow's FCT")
	fmt.Fprintln(w, "alone on the idle network) over the finished flows, p99 by nearest rank; queue max: the")
	fmt.Fprintln(w, "bottleneck switch port (largest mean queue). -algo NAME runs one with the full report.")
	return nil
}

func measureTo(sc *harness.Scenario) harness.Time {
	if sc.MeasureTo == 0 {
		return sc.Duration
	}
	return sc.MeasureTo
}

// writeCompareOut writes each run's files into DIR/ALGO, then the
// comparison JSON and the overlay plots and CSV into DIR.
func writeCompareOut(dir string, cmp *harness.Comparison, results []*harness.Result) ([]string, error) {
	var wrote []string
	for i, res := range results {
		files, err := writeOut(filepath.Join(dir, cmp.Rows[i].Algorithm), res)
		wrote = append(wrote, files...)
		if err != nil {
			return wrote, err
		}
	}
	queue := &plot.Chart{Title: "Bottleneck queue length", XLabel: "time (µs)", YLabel: "queue (KB)"}
	long := &plot.Chart{Title: "Long-flow throughput", XLabel: "time (µs)", YLabel: "throughput (Gb/s)"}
	var csv strings.Builder
	csv.WriteString(compareQueueHead + "\n")
	for i, res := range results {
		algo := cmp.Rows[i].Algorithm
		x := make([]float64, len(res.Series.Times))
		for j, t := range res.Series.Times {
			x[j] = float64(t) / float64(units.Microsecond)
		}
		for _, q := range res.Series.Queues {
			if fmt.Sprintf("%s:%d", q.Node, q.Port) != cmp.Rows[i].Bottleneck {
				continue
			}
			y := make([]float64, len(q.Bytes))
			for j, v := range q.Bytes {
				y[j] = float64(v) / float64(units.KB)
				fmt.Fprintf(&csv, "%s,%s,%d\n", microseconds(res.Series.Times[j]), algo, int64(v))
			}
			queue.Lines = append(queue.Lines, plot.Line{Label: algo, X: x, Y: y})
		}
		// The mean of the long-lived flows' throughput at each sample.
		var sum []float64
		n := 0
		for _, fs := range res.Series.Flows {
			if !isLongLived(res, fs.ID) {
				continue
			}
			if sum == nil {
				sum = make([]float64, len(fs.Bps))
			}
			for j, v := range fs.Bps {
				sum[j] += v / float64(units.Gbps)
			}
			n++
		}
		if n > 0 {
			for j := range sum {
				sum[j] /= float64(n)
			}
			long.Lines = append(long.Lines, plot.Line{Label: algo, X: x, Y: sum})
		}
	}
	steps := []struct {
		name  string
		write func(io.Writer) error
	}{
		{comparisonJSON, func(w io.Writer) error { return writeComparisonJSON(w, cmp) }},
		{compareQueueCSV, func(w io.Writer) error { _, err := io.WriteString(w, csv.String()); return err }},
		{compareQueueSVG, queue.WriteSVG},
		{compareLongSVG, long.WriteSVG},
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return wrote, err
	}
	for _, st := range steps {
		path := filepath.Join(dir, st.name)
		if err := writeFile(path, st.write); err != nil {
			return wrote, err
		}
		wrote = append(wrote, path)
	}
	return wrote, nil
}

func isLongLived(res *harness.Result, id harness.FlowID) bool {
	for _, f := range res.Flows {
		if f.ID == id {
			return f.Size == 0
		}
	}
	return false
}
