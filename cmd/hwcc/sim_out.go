package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/harness/plot"
	"github.com/hwcc/hwcc/units"
)

// Files `hwcc sim -out DIR` writes.
const (
	queuesCSV      = "queues.csv"     // time_us,node,port,link,queue_bytes
	throughputCSV  = "throughput.csv" // time_us,flow,src,dst,throughput_gbps
	queuesSVG      = "queues.svg"     // queue length over time
	throughputSVG  = "throughput.svg" // per-flow throughput over time
	reportJSON     = "report.json"    // the -json report, wall_seconds included
	scenarioJSON   = "scenario.json"  // the scenario as run: hwcc sim -scenario DIR/scenario.json reruns it
	queuesHeader   = "time_us,node,port,link,queue_bytes"
	throughputHead = "time_us,flow,src,dst,throughput_gbps"
)

// writeOut writes the time series, plots, report and scenario of res into
// dir, creating it if missing. It returns the paths it wrote, in order,
// also when it stops at an error.
func writeOut(dir string, res *harness.Result) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	s := &res.Series
	steps := []struct {
		name  string
		write func(io.Writer) error
	}{
		{queuesCSV, func(w io.Writer) error { return writeQueuesCSV(w, s) }},
		{throughputCSV, func(w io.Writer) error { return writeThroughputCSV(w, s) }},
		{queuesSVG, plot.QueueChart(s).WriteSVG},
		{throughputSVG, plot.ThroughputChart(s).WriteSVG},
		{reportJSON, res.Report.WriteJSON},
		{scenarioJSON, func(w io.Writer) error { return writeJSON(w, res.Scenario) }},
	}
	var wrote []string
	for _, st := range steps {
		path := filepath.Join(dir, st.name)
		if err := writeFile(path, st.write); err != nil {
			return wrote, err
		}
		wrote = append(wrote, path)
	}
	return wrote, nil
}

// writeFile fills path with write, buffered, through a temporary file
// beside it (outFile): an existing file is replaced only once the new one
// is complete.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := openOut("-out", path)
	if err != nil {
		return err
	}
	defer f.abort()
	bw := bufio.NewWriter(f)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.commit()
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// microseconds formats a sample time in µs, exactly as far as float64
// allows (shortest representation that reads back the same).
func microseconds(t units.Time) string {
	return strconv.FormatFloat(float64(t)/float64(units.Microsecond), 'f', -1, 64)
}

// writeQueuesCSV writes one row per switch egress port and sample: the
// queue length in wire bytes at the sample instant.
func writeQueuesCSV(w io.Writer, s *harness.Series) error {
	if _, err := fmt.Fprintln(w, queuesHeader); err != nil {
		return err
	}
	for _, q := range s.Queues {
		for i, b := range q.Bytes {
			if i >= len(s.Times) {
				break
			}
			if _, err := fmt.Fprintf(w, "%s,%s,%d,%s,%d\n", microseconds(s.Times[i]), q.Node, q.Port, q.Link, int64(b)); err != nil {
				return err
			}
		}
	}
	return nil
}

// csvRateStep is the resolution of throughput_gbps in bit/s (1 kb/s, six
// decimals of Gb/s): rounding to it drops the float noise of bytes·8/interval
// (49.33919999999999 prints as 49.3392) and keeps far more precision than a
// sample over one interval has.
const csvRateStep = 1e3

// writeThroughputCSV writes one row per flow and sample: the flow's
// throughput in Gb/s of wire bits over the interval ending at time_us.
func writeThroughputCSV(w io.Writer, s *harness.Series) error {
	if _, err := fmt.Fprintln(w, throughputHead); err != nil {
		return err
	}
	for _, f := range s.Flows {
		for i, bps := range f.Bps {
			if i >= len(s.Times) {
				break
			}
			gbps := strconv.FormatFloat(math.Round(bps/csvRateStep)*csvRateStep/float64(units.Gbps), 'f', -1, 64)
			if _, err := fmt.Fprintf(w, "%s,%d,%s,%s,%s\n", microseconds(s.Times[i]), f.ID, f.Src, f.Dst, gbps); err != nil {
				return err
			}
		}
	}
	return nil
}
