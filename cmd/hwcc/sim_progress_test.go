package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/units"
)

// TestProgressLine drives the status line with a fake clock: silent for the
// first progressDelay, then one line redrawn at most every progressRedraw,
// erased at the end.
func TestProgressLine(t *testing.T) {
	clock := time.Unix(0, 0)
	now := func() time.Time { return clock }
	var buf bytes.Buffer
	p := newProgressOn(&buf, now)
	end := 10 * units.Millisecond

	clock = clock.Add(progressDelay / 2)
	p.update(units.Millisecond, end)
	require.Empty(t, buf.String(), "a short run shows nothing")

	clock = clock.Add(progressDelay)
	p.update(5*units.Millisecond, end)
	require.Contains(t, buf.String(), " 50.0%")
	n := buf.Len()

	clock = clock.Add(progressRedraw / 2)
	p.update(6*units.Millisecond, end)
	require.Equal(t, n, buf.Len(), "no redraw within progressRedraw")

	clock = clock.Add(progressRedraw)
	p.update(7*units.Millisecond, end)
	require.Contains(t, buf.String(), " 70.0%")

	p.done()
	require.True(t, strings.HasSuffix(buf.String(), "\r"), "the line is erased")
}

// TestProgressOffWhenNotATerminal: a buffer (like a pipe or a CI log) gets
// no progress display.
func TestProgressOffWhenNotATerminal(t *testing.T) {
	require.Nil(t, newProgress(&bytes.Buffer{}, time.Now))
}
