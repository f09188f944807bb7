// Package plot draws the time series of a harness run (harness.Series) as
// SVG line charts with gonum.org/v1/plot: the queue length of the switch
// egress ports over time and the throughput of each flow over time, the two
// kinds of figure the congestion-control papers show ([RoCC]
// §VI-A, Figs. 6–11; [HPCC] §5, Figs. 9–11).
//
// It is kept apart from the harness core and from the algorithm packages so
// that neither depends on gonum: only the hwcc command (`hwcc sim -out DIR`)
// and programs that want figures import it.
//
// A Chart is a plain description (title, axis labels, named lines of x and
// y values); QueueChart and ThroughputChart build one from a Series, and
// Chart.WriteSVG renders it. A chart shows at most MaxLines lines so that it
// stays legible; when a series has more, the chart says how many it shows
// and which ones (the busiest queues, the first flows), and the CSV files
// the command writes hold every series.
//
// Rendering is deterministic: the same Chart gives the same SVG bytes.
// Bad input (lines whose x and y lengths differ, NaN or infinite values) is
// an error naming the line, never a panic.
package plot
