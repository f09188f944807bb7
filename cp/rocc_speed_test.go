package cp

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/hwtables"
	"github.com/hwcc/hwcc/units"
)

// TestRoCCQueueUnitsDivider: QueueUnits (a compare, then a multiply by
// ⌈2^64/ΔQ⌉, or for ΔQ = 1 a shift by 0 and for a huge ΔQ a division)
// returns what the queue quantiser's QuantizeSat returns, for ΔQ of every
// kind (1, powers of
// two, the presets' 64 and 80 B, odd and prime values, values around 2^k,
// ΔQ so large that the multiply would not be exact) and every register
// width, at the edges of each unit, of saturation and of int64, and at
// seeded random lengths.
func TestRoCCQueueUnitsDivider(t *testing.T) {
	deltas := []uint64{1, 2, 3, 5, 7, 63, 64, 65, 80, 100, 1000, 1500, 4095, 4096, 4097,
		1<<20 - 1, 1<<20 + 1, 999_983, 1<<24 + 3, 1<<30 + 7, 1<<40 + 9, 1 << 44}
	rng := rand.New(rand.NewPCG(18, 3))
	for range 40 {
		deltas = append(deltas, rng.Uint64N(1<<uint(1+rng.IntN(47)))+1)
	}
	kinds := map[string]int{}
	for _, d := range deltas {
		for w := uint(RoCCMinQueueBits); w <= RoCCMaxQueueBits; w++ {
			q, err := fixedpoint.NewQuantizer(d, w, fixedpoint.Floor)
			if err != nil {
				continue // (2^w − 1)·ΔQ does not fit: NewRoCCParams refuses it too
			}
			p := &RoCCParams{queue: q, qtop: uint32(q.Max())}
			p.initQueueDivider(d)
			switch {
			case p.qrecip != 0:
				kinds["multiply"]++
			case p.qpow2:
				kinds["shift"]++
			default:
				kinds["divide"]++
			}
			top := (uint64(p.qtop) + 1) * d // may wrap for huge ΔQ; only used below 2^63
			lens := []uint64{0, 1, d - 1, d, d + 1, 2*d - 1, 2 * d, math.MaxInt64, math.MaxInt64 - 1}
			if hi, _ := bits.Mul64(uint64(p.qtop)+1, d); hi == 0 && top <= math.MaxInt64 {
				lens = append(lens, top-1, top, top+1, top-d, top-d-1)
			}
			for range 200 {
				lens = append(lens, rng.Uint64N(min(4*uint64(p.qtop+1)*d, math.MaxInt64)))
				k := rng.Uint64N(uint64(p.qtop) + 2)
				if hi, lo := bits.Mul64(k, d); hi == 0 && lo < math.MaxInt64 {
					lens = append(lens, lo, lo+d-1, max(lo, 1)-1)
				}
			}
			for _, v := range lens {
				if v > math.MaxInt64 {
					continue
				}
				want, wantSat := q.QuantizeSat(v)
				got, gotSat := p.QueueUnits(units.Bytes(v))
				require.Equal(t, want, uint64(got), "ΔQ %d, %d bits, qlen %d", d, w, v)
				require.Equal(t, wantSat, gotSat, "ΔQ %d, %d bits, qlen %d", d, w, v)
			}
			got, sat := p.QueueUnits(-5)
			require.Zero(t, got)
			require.False(t, sat)
		}
	}
	// Every path ran.
	require.NotZero(t, kinds["shift"])
	require.NotZero(t, kinds["multiply"])
	require.NotZero(t, kinds["divide"])
}

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
		q, err := NewRoCCQueueFlows(capacity)
		require.NoError(t, err)
		a, err := NewRoCCAgedFlows(capacity, 50)
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
			c, err := NewRoCC(cfg)
			require.NoError(t, err)
			rng := rand.New(rand.NewPCG(uint64(msg), uint64(table)))
			act := cc.NewActions(cfg.FlowCapacity)
			for round := range 20 {
				now := c.NextDeadline()
				for range rng.IntN(300) {
					p := cc.Packet{Flow: cc.FlowID(rng.Uint32()), Size: 1500}
					require.NoError(t, c.Enqueue(now, &p, cc.Queue{Len: units.Bytes(rng.IntN(400_000))}, nil))
				}
				act.Reset()
				require.NoError(t, c.Timer(now, act))
				flows := c.AppendFlows(nil)
				require.Len(t, act.All(), len(flows), "round %d", round)
				for i, flow := range flows {
					want := cc.Feedback{Kind: cc.FeedbackRate, Flow: cc.FlowID(flow), From: c.id}
					c.Message(flow).Put(&want.Data)
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

// TestRoCCTimerNoAllocs: the CP's update, alone (OnTimer) and through the
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
				require.NoError(t, c.Enqueue(0, &cc.Packet{Flow: f, Size: 1500}, cc.Queue{Len: 150 * units.KB}, nil))
			}
			act := cc.NewActions(n)
			i := 0
			allocs := testing.AllocsPerRun(200, func() {
				i++
				if _, err := c.OnTimer(c.NextDeadline(), units.Bytes(i*7919%420_000)); err != nil {
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
			for f := range cc.FlowID(n) {
				if err := c.Enqueue(0, &cc.Packet{Flow: f, Size: 1500}, cc.Queue{Len: 150 * units.KB}, nil); err != nil {
					b.Fatal(err)
				}
			}
			act := cc.NewActions(max(n, 1))
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

// TestRoCCFeedbackPutIsAppend: Put (two 64-bit words) writes the bytes
// Append appends, for seeded random messages of every field value range,
// Type above 15 included (its high bits are lost alike).
func TestRoCCFeedbackPutIsAppend(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 16))
	for i := range 20000 {
		f := RoCCFeedback{
			Type: RoCCFeedbackType(rng.Uint32()), Seq: uint8(rng.Uint32()), Port: uint16(rng.Uint32()),
			Switch: rng.Uint32(), Rate: uint16(rng.Uint32()), QDepth: uint16(rng.Uint32()), Flow: rng.Uint32(),
		}
		if i < 16 {
			f.Type = RoCCFeedbackType(i)
		}
		var b [RoCCFeedbackLen]byte
		f.Put(&b)
		require.Equal(t, f.Append(nil), b[:], "%+v", f)
	}
}

// roccPaperLoopShift is AUTO_TUNE as Algorithm 1 lines 15–21 write it:
// level doubles from 2 while F < Fmax/level (compared as F·level < Fmax,
// exact in integers for F, Fmax < 2^32) and level < 64; s = log2(level/2).
func roccPaperLoopShift(f, fmax uint64) uint {
	level := uint64(2)
	for f*level < fmax && level < 64 {
		level *= 2
	}
	return uint(bits.Len64(level/2) - 1)
}

// TestRoCCShiftIsPaperLoop: Params().Shift (five comparators in
// hwtables.RoCCAutoTune) is the paper's AUTO_TUNE loop for every F register
// value of every preset, with 8 and 0 fraction bits, up to 2·Fmax, and at
// the region bounds ± 1 of seeded random Fmax.
func TestRoCCShiftIsPaperLoop(t *testing.T) {
	n := 0
	for name, cfg := range roccPresets() {
		for _, k := range []uint{0, 8} {
			cfg.RateFracBits = k
			p, err := NewRoCCParams(cfg)
			require.NoError(t, err, name)
			_, fmax := p.FBounds()
			for f := range 2*fmax + 2 {
				if got, want := p.Shift(f), roccPaperLoopShift(uint64(f), uint64(fmax)); got != want {
					t.Fatalf("%s, k = %d, F = %d: Shift %d, the paper's loop %d", name, k, f, got, want)
				}
				n++
			}
		}
	}
	require.Greater(t, n, 4_000_000)
	rng := rand.New(rand.NewPCG(18, 5))
	for range 2000 {
		fmax := uint64(rng.Uint32N(math.MaxUint32) + 1)
		p := &RoCCParams{}
		var err error
		p.tune, err = hwtables.NewRoCCAutoTune(fmax)
		require.NoError(t, err)
		for _, b := range p.tune.Bounds() {
			for _, f := range []uint64{b - 1, b, b + 1} {
				if f <= math.MaxUint32 {
					require.Equal(t, roccPaperLoopShift(f, fmax), p.Shift(uint32(f)), "Fmax %d, F %d", fmax, f)
				}
			}
		}
	}
}

// TestRoCCRoundShiftBranchless: roccRoundShift (the sign applied by masks)
// is the sign-branching form sign(n)·⌊(|n| + 2^(sh−1))/2^sh⌋ over its whole
// domain's edges (|n| < 2^62, sh < 62) and seeded random values.
func TestRoCCRoundShiftBranchless(t *testing.T) {
	ref := func(n int64, sh uint) int64 {
		if sh == 0 {
			return n
		}
		half := int64(1) << (sh - 1)
		if n < 0 {
			return -((-n + half) >> sh)
		}
		return (n + half) >> sh
	}
	rng := rand.New(rand.NewPCG(18, 62))
	for sh := uint(0); sh < 62; sh++ {
		edges := []int64{0, 1, -1, 1<<62 - 1, -(1<<62 - 1)}
		if sh > 0 {
			h := int64(1) << (sh - 1)
			edges = append(edges, h, -h, h-1, -(h - 1), h+1, -(h + 1), 3*h, -3*h)
		}
		for range 2000 {
			v := rng.Int64N(1 << 62)
			edges = append(edges, v, -v, v>>rng.IntN(62), -(v >> rng.IntN(62)))
		}
		for _, n := range edges {
			if got, want := roccRoundShift(n, sh), ref(n, sh); got != want {
				t.Fatalf("n = %d, sh = %d: %d, want %d", n, sh, got, want)
			}
		}
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
			_, err := c.OnTimer(c.NextDeadline(), qlen)
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
