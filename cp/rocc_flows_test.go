package cp

import (
	"fmt"
	"slices"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/units"
)

// roccCollidingKeys returns n flow IDs that share one home slot and n more
// that share the next slot of a table of the given capacity: the worst case
// for linear probing and backward-shift deletion.
func roccCollidingKeys(t testing.TB, capacity, n int) []uint32 {
	m, err := newRoCCFlowMap(capacity)
	require.NoError(t, err)
	var a, b []uint32
	for k := uint32(0); len(a) < n || len(b) < n; k++ {
		switch m.home(k) {
		case 3:
			if len(a) < n {
				a = append(a, k)
			}
		case 4:
			if len(b) < n {
				b = append(b, k)
			}
		}
	}
	return append(a, b...)
}

type roccTableOp struct {
	enqueue bool
	key     int // index into the key pool
	size    int64
}

// TestRoCCQueueFlowsModel compares the queue table with a Go map over
// random enqueue/dequeue sequences, drawing flow IDs from a pool where half
// collide on one home slot and half on the next, and checks after every
// operation: every count, the set of flows, Len ≤ Cap, and that a full
// table refuses exactly the new flows.
func TestRoCCQueueFlowsModel(t *testing.T) {
	const capacity = 16
	pool := append(roccCollidingKeys(t, capacity, 8), 1000, 2000, 3000, 4000, 5000, 6000) // 22 keys > capacity
	params := gopter.DefaultTestParametersWithSeed(roccSeed(t))
	params.MinSuccessfulTests = 300
	props := gopter.NewProperties(params)
	props.Property("queue table = map model", prop.ForAll(
		func(ops []roccTableOp) (bool, error) {
			tab, err := NewRoCCQueueFlows(capacity)
			if err != nil {
				return false, err
			}
			model := map[uint32]int64{}
			for i, op := range ops {
				k := pool[op.key%len(pool)]
				if op.enqueue {
					full, err := tab.Enqueue(k, units.Bytes(op.size))
					if err != nil {
						return false, err
					}
					_, had := model[k]
					wantFull := !had && op.size > 0 && len(model) >= capacity
					if full != wantFull {
						return false, fmt.Errorf("op %d: full %v, model %v", i, full, wantFull)
					}
					if op.size > 0 && !wantFull {
						model[k] += op.size
					}
				} else {
					q, had := model[k]
					size := min(op.size, q) // a valid dequeue when the flow is there
					err := tab.Dequeue(k, units.Bytes(size))
					if had != (err == nil) {
						return false, fmt.Errorf("op %d: dequeue err %v, flow in model %v", i, err, had)
					}
					if had {
						if model[k] -= size; model[k] == 0 {
							delete(model, k)
						}
					}
				}
				if tab.Len() != len(model) || tab.Len() > tab.Cap() {
					return false, fmt.Errorf("op %d: Len %d, model %d", i, tab.Len(), len(model))
				}
				for _, k := range pool {
					q, ok := tab.Queued(k)
					if mq, mok := model[k]; ok != mok || int64(q) != mq {
						return false, fmt.Errorf("op %d: flow %d has %v (%v), model %d (%v)", i, k, q, ok, mq, mok)
					}
				}
				got := tab.AppendFlows(nil)
				slices.Sort(got)
				var want []uint32
				for k := range model {
					want = append(want, k)
				}
				slices.Sort(want)
				if !slices.Equal(got, want) {
					return false, fmt.Errorf("op %d: flows %v, model %v", i, got, want)
				}
			}
			return true, nil
		},
		gen.SliceOfN(120, gopter.CombineGens(gen.Bool(), gen.IntRange(0, 1000), gen.Int64Range(0, 3000)).Map(func(v []any) roccTableOp {
			return roccTableOp{enqueue: v[0].(bool), key: v[1].(int), size: v[2].(int64)}
		})).WithLabel("ops"),
	))
	props.TestingRun(t)
}

// TestRoCCAgedFlowsModel compares the aged table with a map of last-seen
// times: Touch at strictly increasing times (so the least recently seen
// flow is unique), Expire at random times.
func TestRoCCAgedFlowsModel(t *testing.T) {
	const capacity = 12
	const maxAge = 50
	pool := append(roccCollidingKeys(t, capacity, 6), 7, 8, 9, 10, 11, 12)
	params := gopter.DefaultTestParametersWithSeed(roccSeed(t))
	params.MinSuccessfulTests = 300
	props := gopter.NewProperties(params)
	props.Property("aged table = map model", prop.ForAll(
		func(ops []roccTableOp) (bool, error) {
			tab, err := NewRoCCAgedFlows(capacity, maxAge)
			if err != nil {
				return false, err
			}
			model := map[uint32]units.Time{}
			now := units.Time(0)
			for i, op := range ops {
				now += 1 + units.Time(op.size%10)
				if op.enqueue {
					k := pool[op.key%len(pool)]
					_, had := model[k]
					wantEvict := !had && len(model) >= capacity
					if wantEvict {
						oldest, first := uint32(0), true
						for f, seen := range model {
							if first || seen < model[oldest] {
								oldest, first = f, false
							}
						}
						delete(model, oldest)
					}
					model[k] = now
					if evicted := tab.Touch(now, k); evicted != wantEvict {
						return false, fmt.Errorf("op %d: evicted %v, model %v", i, evicted, wantEvict)
					}
				} else {
					tab.Expire(now)
					for f, seen := range model {
						if now-seen >= maxAge {
							delete(model, f)
						}
					}
				}
				if tab.Len() != len(model) {
					return false, fmt.Errorf("op %d: Len %d, model %d", i, tab.Len(), len(model))
				}
				for _, k := range pool {
					seen, ok := tab.LastSeen(k)
					if ms, mok := model[k]; ok != mok || seen != ms {
						return false, fmt.Errorf("op %d: flow %d seen %v (%v), model %v (%v)", i, k, seen, ok, ms, mok)
					}
				}
			}
			return true, nil
		},
		gen.SliceOfN(150, gopter.CombineGens(gen.Weighted([]gen.WeightedGen{
			{Weight: 4, Gen: gen.Const(true)}, {Weight: 1, Gen: gen.Const(false)},
		}), gen.IntRange(0, 1000), gen.Int64Range(0, 100)).Map(func(v []any) roccTableOp {
			return roccTableOp{enqueue: v[0].(bool), key: v[1].(int), size: v[2].(int64)}
		})).WithLabel("ops"),
	))
	props.TestingRun(t)
}

func TestRoCCFlowTablesDeterministicOrder(t *testing.T) {
	// The same updates give the same iteration order, whatever the run.
	build := func() []uint32 {
		tab, err := NewRoCCQueueFlows(64)
		require.NoError(t, err)
		for i := range uint32(200) {
			_, _ = tab.Enqueue(i*2654435761, 100)
			if _, ok := tab.Queued(i * 2654435761); ok && i%3 == 0 {
				require.NoError(t, tab.Dequeue(i*2654435761, 100))
			}
		}
		var order []uint32
		tab.ForEach(func(flow uint32, q units.Bytes) { order = append(order, flow) })
		require.Equal(t, order, tab.AppendFlows(nil))
		return order
	}
	require.Equal(t, build(), build())
}

func TestRoCCFlowTablesReject(t *testing.T) {
	_, err := NewRoCCQueueFlows(0)
	require.ErrorContains(t, err, "capacity = 0, want [1, 1048576]")
	_, err = NewRoCCAgedFlows(10, 0)
	require.ErrorContains(t, err, "maxAge")
	tab, err := NewRoCCQueueFlows(4)
	require.NoError(t, err)
	_, err = tab.Enqueue(1, -1)
	require.Error(t, err)
	_, err = tab.Enqueue(1, roccFlowBytesMax)
	require.NoError(t, err)
	_, err = tab.Enqueue(1, 1)
	require.ErrorContains(t, err, "32-bit counter")
	require.ErrorContains(t, tab.Dequeue(2, 1), "not in the table")
	require.ErrorContains(t, tab.Dequeue(1, -1), "want [0,")
}
