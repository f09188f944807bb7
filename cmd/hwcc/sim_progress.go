package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/hwcc/hwcc/units"
)

// Progress display: a run that lasts more than progressDelay of wall time
// shows one status line on a terminal's stderr, redrawn at most every
// progressRedraw, and erased when the run ends, so that short runs and
// their output look the same with or without a terminal.
const (
	progressDelay  = 500 * time.Millisecond
	progressRedraw = 250 * time.Millisecond
)

// progress draws the status line. Its clock is injected so that tests can
// drive it.
type progress struct {
	w     io.Writer
	now   func() time.Time
	start time.Time
	last  time.Time
	width int // length of the line on screen, 0 if none
}

// newProgress returns a progress display on w if w is a terminal (a
// character device: not a file, a pipe or a test buffer), else nil: CI logs
// and redirected output never see progress lines.
func newProgress(w io.Writer, now func() time.Time) *progress {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	st, err := f.Stat()
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return newProgressOn(w, now)
}

// newProgressOn returns a progress display on w whatever w is.
func newProgressOn(w io.Writer, now func() time.Time) *progress {
	return &progress{w: w, now: now, start: now()}
}

// update is the harness.Options.Progress callback: sim is the simulated
// time reached, end the run's end.
func (p *progress) update(sim, end units.Time) {
	t := p.now()
	if t.Sub(p.start) < progressDelay || (p.width > 0 && t.Sub(p.last) < progressRedraw) {
		return
	}
	p.last = t
	pct := 100.0
	if end > 0 {
		pct = 100 * float64(sim) / float64(end)
	}
	line := fmt.Sprintf("hwcc sim: %5.1f%%  simulated %s of %s  (%.1fs)",
		pct, fmtTime(sim), fmtTime(end), t.Sub(p.start).Seconds())
	// Pad over a longer previous line; \r returns to the line's start.
	pad := max(p.width-len(line), 0)
	fmt.Fprintf(p.w, "\r%s%s", line, strings.Repeat(" ", pad))
	p.width = len(line)
}

// done erases the status line, if one was drawn.
func (p *progress) done() {
	if p.width > 0 {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.width))
		p.width = 0
	}
}
