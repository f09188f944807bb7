package cc_test

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
)

// marker is an event that makes n decisions, reserving them first as the
// contract asks, and counts its runs.
type marker struct {
	n, runs int
}

func (m *marker) run(a *cc.Actions) error {
	m.runs++
	if err := a.Reserve("test.Part", "Timer", m.n); err != nil {
		return err
	}
	for range m.n {
		a.MarkCE()
	}
	return nil
}

// TestRunGrowing: an event that fits runs once in the buffer it is given,
// reset first; one that does not gets 2·(Cap + Need) (capped at the limit)
// and runs again, as often as it keeps asking while the limit allows; at
// the limit the part's error comes back; another error comes back at once.
func TestRunGrowing(t *testing.T) {
	act := cc.NewActions(2)
	act.MarkCE() // left over from an earlier event: Reset drops it
	m := &marker{n: 2}
	require.NoError(t, cc.RunGrowing(&act, 100, m.run))
	require.Equal(t, [3]int{1, 2, 2}, [3]int{m.runs, act.Len(), act.Cap()}, "fits: one run, same buffer")

	// Needs 5 with 2 free: Need = 5, the buffer grows to 2·(2+5) = 14.
	m = &marker{n: 5}
	require.NoError(t, cc.RunGrowing(&act, 100, m.run))
	require.Equal(t, [3]int{2, 5, 14}, [3]int{m.runs, act.Len(), act.Cap()})

	// Needs 200, limit 100: 2·(14+200) capped at 100, still short: the
	// part's *ActionsFullError, after two runs.
	m = &marker{n: 200}
	err := cc.RunGrowing(&act, 100, m.run)
	var full *cc.ActionsFullError
	require.True(t, errors.As(err, &full), "%v", err)
	require.Equal(t, cc.ActionsFullError{Part: "test.Part", Event: "Timer", Need: 200, Free: 100}, *full)
	require.Equal(t, [2]int{2, 100}, [2]int{m.runs, act.Cap()})

	// A part whose need grows with the buffer (not the contract's, but a
	// driver must not loop forever): runs until the limit.
	grow := 0
	act = cc.NewActions(1)
	err = cc.RunGrowing(&act, 64, func(a *cc.Actions) error { grow++; return a.Reserve("p", "e", a.Cap()+1) })
	require.ErrorIs(t, err, cc.ErrActionsFull)
	// Caps 1 → 2·(1+2) = 6 → 2·(6+7) = 26 → 2·(26+27) = 106, capped at 64.
	require.Equal(t, [2]int{4, 64}, [2]int{grow, act.Cap()})

	// A Need so large that 2·(Cap + Need) overflows an int: the buffer
	// saturates at the limit (not a wrapped size), one more run.
	runs := 0
	act = cc.NewActions(2)
	err = cc.RunGrowing(&act, 64, func(a *cc.Actions) error {
		runs++
		return &cc.ActionsFullError{Part: "p", Event: "e", Need: math.MaxInt, Free: a.Free()}
	})
	require.ErrorIs(t, err, cc.ErrActionsFull)
	require.Equal(t, [2]int{2, 64}, [2]int{runs, act.Cap()})

	// A Need of 0 (or below) with no room at all would not grow the
	// buffer: the loop ends after the first run instead of spinning.
	runs = 0
	act = cc.NewActions(0)
	err = cc.RunGrowing(&act, 64, func(a *cc.Actions) error {
		runs++
		return &cc.ActionsFullError{Part: "p", Event: "e", Need: -5, Free: a.Free()}
	})
	require.ErrorIs(t, err, cc.ErrActionsFull)
	require.Equal(t, [2]int{1, 0}, [2]int{runs, act.Cap()})

	// Any other error: one run, the buffer kept.
	other := errors.New("refused")
	act = cc.NewActions(2)
	runs = 0
	require.Same(t, other, cc.RunGrowing(&act, 100, func(*cc.Actions) error { runs++; return other }))
	require.Equal(t, [2]int{1, 2}, [2]int{runs, act.Cap()})
}

// TestRunGrowingNoAllocs: an event that fits, or fails with an error
// other than a full buffer, costs no allocation.
func TestRunGrowingNoAllocs(t *testing.T) {
	act := cc.NewActions(4)
	m := &marker{n: 3}
	run := m.run
	require.Zero(t, testing.AllocsPerRun(1000, func() {
		if err := cc.RunGrowing(&act, cc.ActionsLimit, run); err != nil {
			t.Fatal(err)
		}
	}))
	refused := errors.New("refused")
	require.Zero(t, testing.AllocsPerRun(1000, func() {
		if err := cc.RunGrowing(&act, cc.ActionsLimit, func(*cc.Actions) error { return refused }); err != refused {
			t.Fatal(err)
		}
	}))
}
