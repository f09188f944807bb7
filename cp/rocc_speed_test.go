package cp

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// roccBitsAgree checks the flow map's valid-bit vectors against the slots:
// bit i of occ is slots[i].used, bit w of top is occ[w] ≠ 0, and the walk
// (next) visits exactly the used slots in ascending order.
func roccBitsAgree(t *testing.T, m *roccFlowMap) {
	t.Helper()
	var want []int
	for i := range m.slots {
		if m.slots[i].used != (m.occ[i>>6]>>(i&63)&1 == 1) {
			t.Fatalf("slot %d: used %v, valid bit %v", i, m.slots[i].used, !m.slots[i].used)
		}
		if m.slots[i].used {
			want = append(want, i)
		}
	}
	for w := range m.occ {
		require.Equal(t, m.occ[w] != 0, m.top[w>>6]>>(w&63)&1 == 1, "word %d", w)
	}
	var got []int
	for i := m.next(0); i < len(m.slots); i = m.next(i + 1) {
		got = append(got, i)
	}
	require.Equal(t, want, got)
	require.Len(t, got, m.n)
	j := len(m.slots) // next from every start: the first used slot at or after it
	for i := len(m.slots) - 1; i >= 0; i-- {
		if m.slots[i].used {
			j = i
		}
		if m.next(i) != j {
			require.Equal(t, j, m.next(i), "next(%d)", i)
		}
	}
}

// TestRoCCFlowMapValidBits drives both tables through seeded random
// enqueues, dequeues, touches (with evictions) and expiries, across table
// sizes from one word of valid bits to several top words, and checks the
// valid bits after every step.
func TestRoCCFlowMapValidBits(t *testing.T) {
	for _, capacity := range []int{1, 3, 40, 1024, 5000} {
		rng := rand.New(rand.NewPCG(uint64(capacity), 18))
		q, err := newRoCCQueueFlows(capacity)
		require.NoError(t, err)
		a, err := newRoCCAgedFlows(capacity, 50)
		require.NoError(t, err)
		type pkt struct {
			flow uint32
			size units.Bytes
		}
		var fifo []pkt
		steps, every := 3000, 1
		if capacity > 1000 {
			steps, every = 2000, 100 // the full check is O(slots) per step
		}
		for step := range steps {
			flow := rng.Uint32N(uint32(2*capacity + 2))
			if rng.IntN(3) > 0 || len(fifo) == 0 {
				size := units.Bytes(1 + rng.IntN(1500))
				_, err := q.Enqueue(flow, size)
				require.NoError(t, err)
				fifo = append(fifo, pkt{flow, size})
			} else {
				require.NoError(t, q.Dequeue(fifo[0].flow, fifo[0].size))
				fifo = fifo[1:]
			}
			now := units.Time(step)
			a.Touch(now, flow)
			if rng.IntN(50) == 0 {
				a.Expire(now)
			}
			if step%every == 0 {
				roccBitsAgree(t, &q.m)
				roccBitsAgree(t, &a.m)
			}
		}
		for _, p := range fifo { // drain: the table empties
			require.NoError(t, q.Dequeue(p.flow, p.size))
		}
		roccBitsAgree(t, &q.m)
		require.Zero(t, q.Len())
		a.Expire(units.MaxTime)
		roccBitsAgree(t, &a.m)
		require.Zero(t, a.Len())
	}
}

// TestRoCCTimerMessagesEachFlow: the messages Timer appends are, flow for
// flow and in the same order, what Message returns for each flow of
// AppendFlows, encoded as Put encodes it, for every kind of message.
func TestRoCCTimerMessagesEachFlow(t *testing.T) {
	for _, msg := range []RoCCMessage{RoCCSendRate, RoCCSendReport, RoCCSendReportF} {
		for _, table := range []RoCCFlowTableKind{RoCCQueueTable, RoCCAgedTable} {
			cfg := RoCC40G()
			cfg.Message, cfg.FlowTable, cfg.FlowMaxAge = msg, table, units.Second
			cfg.Start = units.Microsecond
			c, err := NewRoCC(cfg)
			require.NoError(t, err)
			rng := rand.New(rand.NewPCG(uint64(msg), uint64(table)))
			act := cc.NewActions(cfg.FlowCapacity)
			for round := range 20 {
				now := c.NextDeadline()
				for range rng.IntN(300) {
					// Before the deadline: the packets are in the table at
					// the update.
					p := cc.Packet{Flow: cc.FlowID(rng.Uint32()), Size: 1500}
					require.NoError(t, c.Enqueue(now-units.Microsecond, &p, cc.Queue{Len: units.Bytes(rng.IntN(400_000))}, act))
				}
				act.Reset()
				require.NoError(t, c.Timer(now, act))
				flows := c.AppendFlows(nil)
				require.Len(t, act.All(), len(flows), "round %d", round)
				for i, flow := range flows {
					want := cc.Feedback{Kind: cc.FeedbackRate, Flow: flow, From: c.id}
					c.CNP(flow).Put(&want.Data)
					got := act.At(i)
					require.Equal(t, cc.ActionFeedback, got.Kind)
					require.Equal(t, cc.ToSource, got.To)
					require.Equal(t, uint8(cc.ControlPrio), got.Prio)
					require.Equal(t, want, got.Feedback, "round %d, flow %d", round, flow)
				}
			}
		}
	}
}

// TestRoCCTimerNoAllocs: the CP's update, on a queue view set by the test
// (roccTick) and on the view of its latest event, through the
// contract with its messages (Timer), allocates nothing, with no flow, one
// flow and a full table, for both tables.
func TestRoCCTimerNoAllocs(t *testing.T) {
	for _, table := range []RoCCFlowTableKind{RoCCQueueTable, RoCCAgedTable} {
		for _, n := range []int{0, 1, 1024} {
			cfg := RoCC40G()
			cfg.FlowTable, cfg.FlowMaxAge = table, units.Second
			c, err := NewRoCC(cfg)
			require.NoError(t, err)
			for f := range cc.FlowID(n) {
				require.NoError(t, c.Enqueue(0, &cc.Packet{Flow: f, Size: 1500}, cc.Queue{Len: 150 * units.KB}, roccScratch))
			}
			act := cc.NewActions(n)
			i := 0
			allocs := testing.AllocsPerRun(200, func() {
				i++
				if _, err := roccTick(c, c.NextDeadline(), units.Bytes(i*7919%420_000)); err != nil {
					t.Fatal(err)
				}
				act.Reset()
				if err := c.Timer(c.NextDeadline(), act); err != nil {
					t.Fatal(err)
				}
			})
			require.Zero(t, allocs, "%v table, %d flows", table, n)
			require.Equal(t, n, act.Len())
		}
	}
}

// BenchmarkRoCCContractTimerFlows is the contract's update with n flows in
// the queue table (of 1024): the update and n messages encoded and
// appended. ns/flow is the whole event's time divided by n; ns/msg is the
// time above BenchmarkRoCCContractTimer's empty-table update, measured in
// the same run (the "0" case), divided by n: the per-flow cost apart from
// the rate update.
func BenchmarkRoCCContractTimerFlows(b *testing.B) {
	var base float64 // ns/op with no flow
	for _, n := range []int{0, 1, 16, 256, 1024} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			c, err := NewRoCC(RoCC40G())
			if err != nil {
				b.Fatal(err)
			}
			act := cc.NewActions(max(n, 1))
			for f := range cc.FlowID(n) {
				if err := c.Enqueue(0, &cc.Packet{Flow: f, Size: 1500}, cc.Queue{Len: 150 * units.KB}, act); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				act.Reset()
				if err := c.Timer(c.NextDeadline(), act); err != nil {
					b.Fatal(err)
				}
			}
			op := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			if n == 0 {
				base = op
				return
			}
			b.ReportMetric(op/float64(n), "ns/flow")
			if base > 0 {
				b.ReportMetric((op-base)/float64(n), "ns/msg")
			}
		})
	}
}

// TestRoCCOnTimerQueueUnits: OnTimer's inline copy of QueueUnits' multiply
// path gives the Qcur (State().QCur, and Qold after the update) and the
// Saturated count QueueUnits gives, for every ΔQ among powers of two, the
// presets' 80 B and odd values that RoCC40G's thresholds accept in the
// 16-bit register (from 7 B up), at seeded random queue lengths, the
// units' edges and beyond saturation.
func TestRoCCOnTimerQueueUnits(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 77))
	accepted := 0
	for _, dq := range []units.Bytes{1, 2, 3, 7, 64, 80, 100, 600, 1000, 4096, 12345} {
		cfg := RoCC40G()
		cfg.DeltaQ = dq
		qb := cfg.QueueBits
		c, err := NewRoCC(cfg)
		if err != nil {
			continue // thresholds that do not fit the register at this ΔQ
		}
		accepted++
		_, _, _, qtop := c.Params().Thresholds()
		top := units.Bytes(qtop+1) * dq
		for range 3000 {
			var qlen units.Bytes
			switch rng.IntN(4) {
			case 0:
				qlen = units.Bytes(rng.Int64N(int64(2 * top)))
			case 1:
				qlen = top + units.Bytes(rng.IntN(3)) - 1
			case 2:
				qlen = units.Bytes(rng.Int64N(int64(qtop)+1))*dq + units.Bytes(rng.IntN(2))*(dq-1)
			default:
				qlen = units.Bytes(rng.Int64N(math.MaxInt64))
			}
			want, sat := c.Params().QueueUnits(qlen)
			before := c.State().Saturated
			_, err := roccTick(c, c.NextDeadline(), qlen)
			require.NoError(t, err)
			s := c.State()
			require.Equal(t, want, s.QCur, "ΔQ %d, %d bits, qlen %d", dq, qb, qlen)
			require.Equal(t, want, c.Regs().QOld, "ΔQ %d, %d bits, qlen %d", dq, qb, qlen)
			wantSat := before
			if sat {
				wantSat++
			}
			require.Equal(t, wantSat, s.Saturated, "ΔQ %d, %d bits, qlen %d", dq, qb, qlen)
		}
	}
	require.GreaterOrEqual(t, accepted, 8)
}
