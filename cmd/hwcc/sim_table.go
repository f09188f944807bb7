package main

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/hwcc/hwcc/harness"
	"github.com/hwcc/hwcc/units"
)

// maxTableRows is the most per-flow, queue and link rows the table prints.
// Past it, flows are summarised by percentiles and queues and links are
// reduced to the busiest; -json has every row.
const maxTableRows = 32

// writeTable prints the summary table of res to w.
func writeTable(w io.Writer, res *harness.Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	rep := &res.Report
	sc := res.Scenario
	from, to := units.Time(sc.MeasureFrom), units.Time(sc.MeasureTo)
	if to == 0 {
		to = units.Time(sc.Duration)
	}

	fmt.Fprintf(tw, "scenario\t%s", rep.Scenario)
	if sc.Description != "" {
		fmt.Fprintf(tw, ": %s", sc.Description)
	}
	fmt.Fprintf(tw, "\nalgorithm\t%s", rep.Algorithm)
	if len(sc.Params) > 0 {
		fmt.Fprint(tw, " (")
		for i, k := range sortedKeys(sc.Params) {
			if i > 0 {
				fmt.Fprint(tw, ", ")
			}
			fmt.Fprintf(tw, "%s=%s", k, sc.Params[k])
		}
		fmt.Fprint(tw, ")")
	}
	fmt.Fprintf(tw, "\nduration\t%s simulated, measured over [%s, %s), %.2fs wall\n",
		fmtTime(res.End), fmtTime(from), fmtTime(to), rep.WallSeconds)

	writeFlows(tw, res)
	writeQueues(tw, res)
	writeLinks(tw, rep)

	fmt.Fprint(tw, "\n")
	if sc.Switch.PFC {
		fmt.Fprintf(tw, "PFC pauses\t%d, %s paused (summed over ports)\n", rep.PFC.Pauses, fmtTime(units.Time(rep.PFC.PausedNs)*units.Nanosecond))
	} else {
		fmt.Fprintf(tw, "PFC pauses\toff\n")
	}
	fmt.Fprintf(tw, "drops\t%d frames, %s\n", rep.Drops, fmtBytes(float64(res.Counters.DropBytes)))
	active := 0
	for _, f := range res.Flows {
		if f.Active {
			active++
		}
	}
	switch active {
	case 0:
		fmt.Fprint(tw, "Jain's index\t- (no flow was active for the whole window)\n")
	case 1:
		fmt.Fprintf(tw, "Jain's index\t%.4f (one flow active for the whole window)\n", rep.Fairness.Jain)
	default:
		fmt.Fprintf(tw, "Jain's index\t%.4f over the %d flows active for the whole window\n", rep.Fairness.Jain, active)
	}
	fmt.Fprintf(tw, "events\t%d\n", rep.Events)
	if e := rep.Errors; e != nil {
		kinds := make([]string, 0, len(e.ByKind))
		for _, k := range slices.Sorted(maps.Keys(e.ByKind)) {
			kinds = append(kinds, fmt.Sprintf("%s %d", k, e.ByKind[k]))
		}
		fmt.Fprintf(tw, "errors\t%d refused by the state machines (%s); the first:\n", e.Count, strings.Join(kinds, ", "))
		for _, x := range e.First {
			fmt.Fprintf(tw, "\t  %s  %s: %s\n", fmtTime(units.Time(x.TimeNs)*units.Nanosecond), x.Where, x.Message)
		}
	}
	return tw.Flush()
}

// writeFlows prints one row per flow, or a summary past maxTableRows.
func writeFlows(tw *tabwriter.Writer, res *harness.Result) {
	flows := res.Report.Flows
	fmt.Fprintf(tw, "\nflows: %d\n", len(flows))
	if len(flows) == 0 {
		return
	}
	if len(flows) <= maxTableRows {
		fmt.Fprint(tw, "  id\tsrc->dst\tbytes\tthroughput\tFCT\tslowdown\n")
		for _, f := range flows {
			fct, sd := "-", "-"
			if f.FCTNs != nil {
				fct = fmtTime(units.Time(*f.FCTNs) * units.Nanosecond)
			}
			if f.Slowdown != nil {
				sd = strconv.FormatFloat(*f.Slowdown, 'f', 3, 64)
			}
			fmt.Fprintf(tw, "  %d\t%s->%s\t%s\t%s\t%s\t%s\n", f.ID, f.Src, f.Dst,
				fmtBytes(float64(f.Bytes)), fmtGbps(f.ThroughputBps), fct, sd)
		}
		return
	}
	// Many flows: percentiles of what each row would have shown.
	var bps, fct, sd []float64
	var bytes int64
	for _, f := range flows {
		bps = append(bps, f.ThroughputBps)
		bytes += f.Bytes
		if f.FCTNs != nil && f.Slowdown != nil {
			fct = append(fct, float64(*f.FCTNs))
			sd = append(sd, *f.Slowdown)
		}
	}
	fmt.Fprintf(tw, "  (%d per-flow rows omitted, more than %d; -json lists every flow)\n", len(flows), maxTableRows)
	fmt.Fprint(tw, "  \tp50\tp99\tmax\tmean\n")
	fmt.Fprintf(tw, "  throughput\t%s\t%s\t%s\t%s\n", fmtGbps(pct(bps, 50)), fmtGbps(pct(bps, 99)), fmtGbps(slices.Max(bps)), fmtGbps(mean(bps)))
	if len(fct) > 0 {
		ns := func(v float64) string { return fmtTime(units.Time(v) * units.Nanosecond) }
		fmt.Fprintf(tw, "  FCT\t%s\t%s\t%s\t%s\n", ns(pct(fct, 50)), ns(pct(fct, 99)), ns(slices.Max(fct)), ns(mean(fct)))
		f3 := func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
		fmt.Fprintf(tw, "  slowdown\t%s\t%s\t%s\t%s\n", f3(pct(sd, 50)), f3(pct(sd, 99)), f3(slices.Max(sd)), f3(mean(sd)))
	}
	fmt.Fprintf(tw, "  finished\t%d of %d, %s delivered\n", len(fct), len(flows), fmtBytes(float64(bytes)))
}

// writeQueues prints the switch egress queues that held data at some time
// in the window, the maxTableRows with the highest p99 when there are more.
func writeQueues(tw *tabwriter.Writer, res *harness.Result) {
	qs := res.Report.Queues
	type portKey struct {
		node string
		port int
	}
	link := make(map[portKey]string, len(res.Ports))
	for _, p := range res.Ports {
		link[portKey{p.Node, p.Port}] = p.Link
	}
	var busy []int
	for i, q := range qs {
		if q.MaxBytes > 0 {
			busy = append(busy, i)
		}
	}
	shown := busiest(busy, func(i int) float64 { return float64(qs[i].P99Bytes) })
	fmt.Fprintf(tw, "\nqueues: %d switch egress ports, %d held data in the window", len(qs), len(busy))
	if len(shown) < len(busy) {
		fmt.Fprintf(tw, " (the %d with the highest p99 shown)", len(shown))
	}
	fmt.Fprint(tw, "\n")
	if len(shown) == 0 {
		return
	}
	fmt.Fprint(tw, "  port\tlink\tmean\tp50\tp99\tmax\n")
	for _, i := range shown {
		q := qs[i]
		fmt.Fprintf(tw, "  %s:%d\t%s\t%s\t%s\t%s\t%s\n", q.Node, q.Port, link[portKey{q.Node, q.Port}],
			fmtBytes(q.MeanBytes), fmtBytes(float64(q.P50Bytes)), fmtBytes(float64(q.P99Bytes)), fmtBytes(float64(q.MaxBytes)))
	}
}

// writeLinks prints the link directions that carried traffic in the window,
// the maxTableRows busiest when there are more.
func writeLinks(tw *tabwriter.Writer, rep *harness.Report) {
	var used []int
	for i, l := range rep.Links {
		if l.Utilization > 0 {
			used = append(used, i)
		}
	}
	shown := busiest(used, func(i int) float64 { return rep.Links[i].Utilization })
	fmt.Fprintf(tw, "\nlinks: %d directions, %d carried traffic in the window", len(rep.Links), len(used))
	if len(shown) < len(used) {
		fmt.Fprintf(tw, " (the %d busiest shown)", len(shown))
	}
	fmt.Fprint(tw, "\n")
	if len(shown) == 0 {
		return
	}
	fmt.Fprint(tw, "  link\tutilisation\n")
	for _, i := range shown {
		fmt.Fprintf(tw, "  %s\t%.1f%%\n", rep.Links[i].Name, 100*rep.Links[i].Utilization)
	}
}

// busiest returns the maxTableRows indices of idx with the largest key (ties
// to the earlier index), in their original order; all of idx if there are
// no more.
func busiest(idx []int, key func(int) float64) []int {
	if len(idx) <= maxTableRows {
		return idx
	}
	s := slices.Clone(idx)
	slices.SortStableFunc(s, func(a, b int) int { return cmp.Compare(key(b), key(a)) })
	s = s[:maxTableRows]
	slices.Sort(s)
	return s
}

// pct returns the p-th percentile of v by nearest rank: the smallest value
// with at least p % of the values at or below it. v must not be empty; it
// is not modified.
func pct(v []float64, p float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	return s[min(max(rank, 1), len(s))-1]
}

func mean(v []float64) float64 {
	var sum float64
	for _, x := range v {
		sum += x
	}
	return sum / float64(len(v))
}

// fmtGbps formats a rate in bit/s as Gb/s with three decimals.
func fmtGbps(bps float64) string { return strconv.FormatFloat(bps/1e9, 'f', 3, 64) + " Gb/s" }

// fmtBytes formats a byte count in the largest decimal unit it reaches
// (B, KB, MB, GB), with two decimals above bytes.
func fmtBytes(b float64) string {
	switch a := math.Abs(b); {
	case a >= float64(units.GB):
		return strconv.FormatFloat(b/float64(units.GB), 'f', 2, 64) + "GB"
	case a >= float64(units.MB):
		return strconv.FormatFloat(b/float64(units.MB), 'f', 2, 64) + "MB"
	case a >= float64(units.KB):
		return strconv.FormatFloat(b/float64(units.KB), 'f', 2, 64) + "KB"
	}
	return strconv.FormatFloat(b, 'f', 0, 64) + "B"
}

// fmtTime formats a time in the largest unit it reaches (s, ms, us, ns, ps)
// with three decimals; zero is "0s".
func fmtTime(t units.Time) string {
	if t == 0 {
		return "0s"
	}
	for _, u := range []struct {
		name string
		size units.Time
	}{{"s", units.Second}, {"ms", units.Millisecond}, {"us", units.Microsecond}, {"ns", units.Nanosecond}} {
		if t >= u.size || -t >= u.size {
			return strconv.FormatFloat(float64(t)/float64(u.size), 'f', 3, 64) + u.name
		}
	}
	return strconv.FormatInt(int64(t), 10) + "ps"
}
