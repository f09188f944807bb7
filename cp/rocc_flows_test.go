package cp

import (
	"fmt"
	"slices"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// roccCollidingKeys returns n flow IDs that share one home slot and n more
// that share the next slot of a table of the given capacity: the worst case
// for linear probing and backward-shift deletion.
func roccCollidingKeys(t testing.TB, capacity, n int) []uint32 {
	m, err := newRoCCFlowMap("test", capacity)
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

// roccModelPacket is one packet of TestRoCCQueueFlowsModel's queue, with
// whether the table should have counted it.
type roccModelPacket struct {
	key     uint32
	size    int64
	counted bool
}

// TestRoCCQueueFlowsModel compares the queue table with a model written
// from its documented overflow behaviour over random enqueue sequences and
// FIFO dequeues, drawing flow IDs from a pool where half collide on one home
// slot and half on the next (22 keys for 16 entries): a packet is counted
// iff its flow is in the table or the table has room when it arrives; the
// table is the set of flows with counted bytes queued, each with those
// bytes; a flow with uncounted packets queued is Partial; Untracked is the
// uncounted bytes and Bytes all of them; every dequeue is accepted.
func TestRoCCQueueFlowsModel(t *testing.T) {
	const capacity = 16
	pool := append(roccCollidingKeys(t, capacity, 8), 1000, 2000, 3000, 4000, 5000, 6000) // 22 keys > capacity
	params := gopter.DefaultTestParametersWithSeed(roccSeed(t))
	params.MinSuccessfulTests = 300
	props := gopter.NewProperties(params)
	props.Property("queue table = FIFO model", prop.ForAll(
		func(ops []roccTableOp) (bool, error) {
			tab, err := newRoCCQueueFlows(capacity)
			if err != nil {
				return false, err
			}
			var fifo []roccModelPacket
			for i, op := range ops {
				// The model table before the event: flows with counted bytes.
				counted := map[uint32]int64{}
				uncounted := map[uint32]int64{}
				var total, untracked int64
				for _, p := range fifo {
					total += p.size
					if p.counted {
						counted[p.key] += p.size
					} else {
						uncounted[p.key] += p.size
						untracked += p.size
					}
				}
				if op.enqueue {
					k := pool[op.key%len(pool)]
					_, in := counted[k]
					full, err := tab.Enqueue(k, units.Bytes(op.size))
					if err != nil {
						return false, err
					}
					if op.size > 0 {
						c := in || len(counted) < capacity
						fifo = append(fifo, roccModelPacket{k, op.size, c})
						if full != !c {
							return false, fmt.Errorf("op %d: full %v, model counts it %v", i, full, c)
						}
					} else if full {
						return false, fmt.Errorf("op %d: an empty packet reported full", i)
					}
				} else if len(fifo) > 0 {
					h := fifo[0]
					fifo = fifo[1:]
					if err := tab.Dequeue(h.key, units.Bytes(h.size)); err != nil {
						return false, fmt.Errorf("op %d: legal dequeue of %+v refused: %v", i, h, err)
					}
				}
				counted, uncounted, total, untracked = map[uint32]int64{}, map[uint32]int64{}, 0, 0
				for _, p := range fifo {
					total += p.size
					if p.counted {
						counted[p.key] += p.size
					} else {
						uncounted[p.key] += p.size
						untracked += p.size
					}
				}
				if tab.Len() != len(counted) || tab.Len() > tab.Cap() {
					return false, fmt.Errorf("op %d: Len %d, model %d", i, tab.Len(), len(counted))
				}
				if int64(tab.Bytes()) != total || int64(tab.Untracked()) != untracked {
					return false, fmt.Errorf("op %d: Bytes %v Untracked %v, model %d %d", i, tab.Bytes(), tab.Untracked(), total, untracked)
				}
				for _, k := range pool {
					q, ok := tab.Queued(k)
					if mq, mok := counted[k]; ok != mok || int64(q) != mq {
						return false, fmt.Errorf("op %d: flow %d has %v (%v), model %d (%v)", i, k, q, ok, mq, mok)
					}
					if ok && uncounted[k] > 0 && !tab.Partial(k) {
						return false, fmt.Errorf("op %d: flow %d has %d uncounted bytes queued and is not Partial", i, k, uncounted[k])
					}
				}
				got := tab.AppendFlows(nil)
				slices.Sort(got)
				var want []uint32
				for k := range counted {
					want = append(want, k)
				}
				slices.Sort(want)
				if !slices.Equal(got, want) {
					return false, fmt.Errorf("op %d: flows %v, model %v", i, got, want)
				}
			}
			return true, nil
		},
		gen.SliceOfN(150, gopter.CombineGens(gen.IntRange(0, 9), gen.IntRange(0, 1000), gen.Int64Range(0, 3000)).Map(func(v []any) roccTableOp {
			return roccTableOp{enqueue: v[0].(int) < 6, key: v[1].(int), size: v[2].(int64)}
		})).WithLabel("ops"),
	))
	props.TestingRun(t)
}

// TestRoCCQueueFlowsOverflowHand walks the table's overflow case (a flow
// entered while uncounted bytes are queued) by hand in a table of one entry: flow 2's first packet arrives while flow 1
// fills the table (uncounted), flow 1 leaves, flow 2's second packet
// enters it. The uncounted 500 B packet leaves first and is not charged to
// flow 2's 300 B count (which would refuse it: 500 > 300); the counted one
// then empties the entry.
func TestRoCCQueueFlowsOverflowHand(t *testing.T) {
	tab, err := newRoCCQueueFlows(1)
	require.NoError(t, err)
	full, err := tab.Enqueue(1, 1000) // positions 0..999, counted
	require.NoError(t, err)
	require.False(t, full)
	full, err = tab.Enqueue(2, 500) // 1000..1499: the table is full
	require.NoError(t, err)
	require.True(t, full)
	require.Equal(t, units.Bytes(500), tab.Untracked())
	require.NoError(t, tab.Dequeue(1, 1000))
	require.Zero(t, tab.Len())
	full, err = tab.Enqueue(2, 300) // 1500..1799: entered, but 500 B of it are ahead
	require.NoError(t, err)
	require.False(t, full)
	q, ok := tab.Queued(2)
	require.True(t, ok)
	require.Equal(t, units.Bytes(300), q)
	require.True(t, tab.Partial(2), "500 uncounted bytes of flow 2 are still queued")
	require.NoError(t, tab.Dequeue(2, 500), "the uncounted packet: position 1000 < 1500")
	require.Zero(t, tab.Untracked())
	require.False(t, tab.Partial(2), "the queue drained to the entry's position")
	q, _ = tab.Queued(2)
	require.Equal(t, units.Bytes(300), q)
	require.NoError(t, tab.Dequeue(2, 300))
	require.Zero(t, tab.Len())
	require.Zero(t, tab.Bytes())
	enq, deq := tab.Positions()
	require.Equal(t, [2]uint64{1800, 1800}, [2]uint64{enq, deq})
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
			tab, err := newRoCCAgedFlows(capacity, maxAge)
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
		tab, err := newRoCCQueueFlows(64)
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
	_, err := newRoCCQueueFlows(0)
	var ce *cc.ConfigError
	require.ErrorAs(t, err, &ce)
	require.Equal(t, "FlowCapacity", ce.Field)
	require.ErrorContains(t, err, "FlowCapacity = 0: want 1..1048576")
	_, err = newRoCCAgedFlows(10, 0)
	require.ErrorAs(t, err, &ce)
	require.Equal(t, "FlowMaxAge", ce.Field)
	tab, err := newRoCCQueueFlows(4)
	require.NoError(t, err)
	_, err = tab.Enqueue(1, -1)
	require.Error(t, err)
	_, err = tab.Enqueue(1, roccFlowBytesMax)
	require.NoError(t, err)
	_, err = tab.Enqueue(1, 1)
	require.ErrorContains(t, err, "32-bit counter")
	require.ErrorIs(t, err, cc.ErrEvent)
	// Flow 2 was never queued: no uncounted byte is.
	require.ErrorContains(t, tab.Dequeue(2, 1), "which is not counted, but only 0B of uncounted packets are queued")
	require.ErrorContains(t, tab.Dequeue(1, -1), "want ≥ 0")
	require.ErrorContains(t, tab.Dequeue(1, roccFlowBytesMax+1), "which has 4.294967295GB queued")
	require.NoError(t, tab.Dequeue(7, 0), "an empty dequeue changes nothing")
}

// roccFIFOPacket is one packet of the model queue.
type roccFIFOPacket struct {
	flow uint32
	size units.Bytes
}

// roccFIFOOp is one step of TestRoCCQueueTableOverflowFIFO: an enqueue of
// size bytes of flow, or (enqueue false) a dequeue of the model queue's head.
type roccFIFOOp struct {
	enqueue bool
	flow    uint32
	size    units.Bytes
}

// roccPartial reports whether the CP marks flow's entry as possibly missing
// bytes that were queued before the flow was entered. (Before the fix the
// table had no such mark, and this returned false.)
func roccPartial(c *RoCC, flow uint32) bool { return c.queue.Partial(flow) }

// TestRoCCQueueTableOverflowFIFO: more flows than the queue table holds
// pass through one FIFO queue, and no legal dequeue is refused. The CP is fed the
// enqueues and the FIFO dequeues of a model queue (every dequeue is legal),
// and after every event:
//
//   - every legal dequeue is accepted;
//   - the table holds at most Cap flows, and only flows with bytes queued
//     (a flow with nothing queued gets no feedback);
//   - a tracked flow's count is the model's bytes of that flow in the queue,
//     unless the CP marks it partial, and never more;
//   - a flow with bytes queued whose latest enqueue found the flow in the
//     table or the table with room (it was trackable) is in the table.
func TestRoCCQueueTableOverflowFIFO(t *testing.T) {
	const capacity, flows = 4, 12
	params := gopter.DefaultTestParametersWithSeed(roccSeed(t))
	params.MinSuccessfulTests = 500
	props := gopter.NewProperties(params)
	props.Property("the table stays consistent with the FIFO queue after overflow", prop.ForAll(
		func(ops []roccFIFOOp) (bool, error) {
			cfg := RoCC40G()
			cfg.FlowCapacity = capacity
			c, err := NewRoCC(cfg)
			if err != nil {
				return false, err
			}
			var fifo []roccFIFOPacket
			var bytes [flows]units.Bytes
			var trackable [flows]bool
			now := units.Time(0)
			for i, op := range ops {
				now += units.Nanosecond
				if op.enqueue {
					_, had := c.queue.Queued(op.flow)
					room := had || c.queue.Len() < c.queue.Cap()
					if err := roccEnqueue(c, now, op.flow, op.size); err != nil {
						return false, fmt.Errorf("op %d: enqueue %+v: %v", i, op, err)
					}
					fifo = append(fifo, roccFIFOPacket{op.flow, op.size})
					bytes[op.flow] += op.size
					trackable[op.flow] = room
				} else {
					if len(fifo) == 0 {
						continue
					}
					h := fifo[0]
					fifo = fifo[1:]
					if err := roccDequeue(c, now, h.flow, h.size); err != nil {
						return false, fmt.Errorf("op %d: legal FIFO dequeue of %v for flow %d refused: %v", i, h.size, h.flow, err)
					}
					bytes[h.flow] -= h.size
				}
				if c.queue.Len() > capacity {
					return false, fmt.Errorf("op %d: %d flows in a table of %d", i, c.queue.Len(), capacity)
				}
				for f := range uint32(flows) {
					q, in := c.queue.Queued(f)
					switch {
					case in && bytes[f] == 0:
						return false, fmt.Errorf("op %d: flow %d is in the table with %v counted and nothing queued", i, f, q)
					case in && q > bytes[f]:
						return false, fmt.Errorf("op %d: flow %d counts %v, more than its %v queued", i, f, q, bytes[f])
					case in && q != bytes[f] && !roccPartial(c, f):
						return false, fmt.Errorf("op %d: flow %d counts %v of its %v queued and is not marked partial", i, f, q, bytes[f])
					case !in && bytes[f] > 0 && trackable[f]:
						return false, fmt.Errorf("op %d: flow %d has %v queued, was trackable at its latest enqueue, and is not in the table", i, f, bytes[f])
					}
				}
			}
			return true, nil
		},
		gen.SliceOfN(200, gopter.CombineGens(gen.IntRange(0, 9), gen.UInt32Range(0, flows-1), gen.Int64Range(1, 3000)).Map(func(v []any) roccFIFOOp {
			// Enqueues a little more often than dequeues, so that the queue
			// holds many flows at times.
			return roccFIFOOp{enqueue: v[0].(int) < 5, flow: v[1].(uint32), size: units.Bytes(v[2].(int64))}
		})).WithLabel("ops"),
	))
	props.TestingRun(t)
}

// TestRoCCQueueFlowsHugeEnqueueRefused: an enqueue whose size would carry a
// flow's byte count past its register is refused, however large (the sum
// could overflow int64 and be accepted with a negative count, after which
// the flow's legal dequeue would be refused).
func TestRoCCQueueFlowsHugeEnqueueRefused(t *testing.T) {
	c, err := NewRoCC(RoCC40G())
	require.NoError(t, err)
	require.NoError(t, roccEnqueue(c, 1, 7, 1000))
	for _, size := range []units.Bytes{units.MaxBytes, units.MaxBytes - 10, 1 << 62} {
		require.ErrorIs(t, roccEnqueue(c, 2, 7, size), cc.ErrEvent, "%v", size)
	}
	require.NoError(t, roccDequeue(c, 3, 7, 1000), "the legal dequeue")
	require.Empty(t, c.AppendFlows(nil), "the flow left the table")
}
