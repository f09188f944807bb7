package cp

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/pi"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// roccContractConfigs are the configurations the contract tests run:
// both flow tables, a table small enough to overflow, both message kinds
// and the OMNeT++ options.
func roccContractConfigs() map[string]RoCCConfig {
	out := map[string]RoCCConfig{}
	c := RoCC40G()
	c.FlowCapacity = 4
	out["queue4"] = c
	c.IdleGain = true
	c.Message = RoCCSendReportF
	c.Switch, c.Port = 0x0a000001, 9
	out["queue4/idle/report_f"] = c
	c = RoCC40G()
	c.FlowTable = RoCCAgedTable
	c.FlowCapacity = 5
	c.FlowMaxAge = 60 * units.Microsecond
	c.Message = RoCCSendReport
	out["aged5/report"] = c
	c = RoCC100G()
	c.InitialF, c.Rounding, c.RateFracBits = pi.InitialZero, pi.RoundFloor, 0
	out["100g/omnet"] = c
	return out
}

// TestRoCCContractRandom drives CPs through the contract with seeded
// random events (enqueues, sometimes of a bad size; FIFO dequeues,
// sometimes of a packet never queued; Timer calls on time or late; any
// event may find updates due): a refused event is a typed error that
// changes no register and appends nothing; a Timer call that runs one
// update appends the CP's message (CNP) to each flow of the table after
// the update, in its order (AppendFlows), to the source at control
// priority from the CP's identity; with the queue table, an event that
// runs k updates appends k messages per flow of the table before it; the
// queue view is the latest Enqueue's or Dequeue's.
func TestRoCCContractRandom(t *testing.T) {
	for name, cfg := range roccContractConfigs() {
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(roccSeed(t)), 11))
			con, err := NewRoCC(cfg)
			require.NoError(t, err)
			act := cc.NewActions(cfg.FlowCapacity)
			var fifo []roccFIFOPacket
			var qlen units.Bytes
			now := units.Time(0)
			refused := 0
			for i := range 4000 {
				now += units.Time(rng.IntN(int(15 * units.Microsecond)))
				before := con.AppendRegisters(nil)
				updates := con.State().Updates
				flows := len(con.AppendFlows(nil))
				timer := false
				var err error
				act.Reset()
				switch k := rng.IntN(10); {
				case k < 4: // enqueue, sometimes a bad size
					p := cc.Packet{Flow: cc.FlowID(rng.IntN(9)), Size: units.Bytes(rng.IntN(3000))}
					if rng.IntN(50) == 0 {
						p.Size = -1
					}
					q := qlen + max(p.Size, 0)
					if err = con.Enqueue(now, &p, cc.Queue{Len: q}, act); err == nil && p.Size > 0 {
						fifo = append(fifo, roccFIFOPacket{uint32(p.Flow), p.Size})
						qlen = q
					}
				case k < 7: // FIFO dequeue of the head, sometimes one never queued
					p := cc.Packet{Flow: cc.FlowID(rng.IntN(9)), Size: qlen + 1}
					legal := len(fifo) > 0 && rng.IntN(30) != 0
					if legal {
						p.Flow, p.Size = cc.FlowID(fifo[0].flow), fifo[0].size
					}
					err = con.Dequeue(now, &p, cc.Queue{Len: qlen - p.Size}, act)
					require.Equal(t, legal, err == nil, "event %d: %v", i, err)
					if legal {
						fifo = fifo[1:]
						qlen -= p.Size
					}
				default: // the update, on time or late
					now = max(now, con.NextDeadline())
					err = con.Timer(now, act)
					timer = true
				}
				if err != nil {
					refused++
					require.True(t, cc.Typed(err), "event %d: %v", i, err)
					require.Zero(t, act.Len(), "event %d: a failed event appends nothing", i)
					require.Equal(t, before, con.AppendRegisters(nil), "event %d: a failed event changes nothing", i)
					continue
				}
				ran := con.State().Updates - updates
				if cfg.FlowTable == RoCCQueueTable {
					require.Equal(t, int(ran)*flows, act.Len(), "event %d: %d updates, %d flows", i, ran, flows)
				}
				if timer && ran == 1 {
					want := []cc.Action{}
					for _, f := range con.AppendFlows(nil) {
						fb := cc.Feedback{Kind: cc.FeedbackRate, Flow: f, From: wire.RoCCFeedback{Switch: cfg.Switch, Port: cfg.Port}.CP()}
						con.CNP(f).Put(&fb.Data)
						want = append(want, cc.Action{Kind: cc.ActionFeedback, To: cc.ToSource, Prio: cc.ControlPrio, Feedback: fb})
					}
					require.Equal(t, want, slices.Clone(act.All()), "event %d: actions", i)
				}
				if ran == 0 {
					require.Zero(t, act.Len(), "event %d: no update, no message", i)
				}
				require.Equal(t, qlen, con.Queue(), "event %d: the queue view", i)
			}
			require.NotZero(t, con.State().Updates)
			require.NotZero(t, refused)
		})
	}
}

// TestRoCCContractTimeOrder: every event method refuses a time before the
// latest event with a *cc.TimeOrderError naming both times, and changes no
// register.
func TestRoCCContractTimeOrder(t *testing.T) {
	for name, cfg := range roccContractConfigs() {
		c, err := NewRoCC(cfg)
		require.NoError(t, err)
		act := cc.NewActions(8)
		p := cc.Packet{Flow: 3, Size: 1500}
		require.NoError(t, c.Enqueue(100*units.Microsecond, &p, cc.Queue{Len: 1500}, act))
		require.NoError(t, c.Timer(100*units.Microsecond, act))
		before := c.AppendRegisters(nil)
		last := 100 * units.Microsecond
		early := last - 1
		for _, call := range []struct {
			event string
			run   func() error
		}{
			{"Enqueue", func() error { return c.Enqueue(early, &p, cc.Queue{Len: 3000}, act) }},
			{"Dequeue", func() error { return c.Dequeue(early, &p, cc.Queue{}, act) }},
			{"Timer", func() error { return c.Timer(early, act) }},
		} {
			act.Reset()
			err := call.run()
			require.ErrorIs(t, err, cc.ErrTimeOrder, "%s %s", name, call.event)
			var te *cc.TimeOrderError
			require.ErrorAs(t, err, &te)
			require.Equal(t, cc.TimeOrderError{Part: "cp.RoCC", Event: call.event, Now: early, Last: last}, *te, name)
			require.Equal(t, before, c.AppendRegisters(nil), "%s %s", name, call.event)
			require.Zero(t, act.Len())
		}
		// Before time 0 too.
		fresh, err := NewRoCC(cfg)
		require.NoError(t, err)
		require.ErrorIs(t, fresh.Timer(-1, nil), cc.ErrTimeOrder)
		require.ErrorIs(t, fresh.Enqueue(-1, &p, cc.Queue{}, nil), cc.ErrTimeOrder)
	}
}

// TestRoCCContractActionsFull: an event whose updates cannot append one
// message per flow fails with cc.ErrActionsFull and changes nothing; with
// room it then succeeds as if the failure had not happened. A nil
// *cc.Actions is refused with cc.ErrNoActions (rule 3). The aged table
// reserves, update by update, for the flows left after each update's
// expiry.
func TestRoCCContractActionsFull(t *testing.T) {
	us := units.Microsecond
	cfg := RoCC40G()
	cfg.FlowCapacity = 8
	cfg.Start = 10 * us
	c, err := NewRoCC(cfg)
	require.NoError(t, err)
	twin, err := NewRoCC(cfg)
	require.NoError(t, err)
	var q units.Bytes
	none := cc.NewActions(0) // before the deadline an enqueue appends nothing
	for f := range cc.FlowID(3) {
		p := cc.Packet{Flow: f, Size: 1000}
		q += p.Size
		require.NoError(t, c.Enqueue(0, &p, cc.Queue{Len: q}, none))
		require.NoError(t, twin.Enqueue(0, &p, cc.Queue{Len: q}, none))
	}
	before := c.AppendRegisters(nil)
	require.ErrorIs(t, c.Timer(10*us, nil), cc.ErrNoActions)
	require.Equal(t, before, c.AppendRegisters(nil))
	small := cc.NewActions(2)
	small.MarkCE() // one slot taken already: 1 free for 3 flows
	err = c.Timer(10*us, small)
	require.ErrorIs(t, err, cc.ErrActionsFull)
	var fe *cc.ActionsFullError
	require.ErrorAs(t, err, &fe)
	require.Equal(t, 3, fe.Need)
	require.Equal(t, before, c.AppendRegisters(nil))
	require.Equal(t, 1, small.Len(), "nothing appended")
	// Two updates due (10 and 50 µs) need 6; a packet of a fourth flow at
	// 55 µs joins after them.
	p := cc.Packet{Flow: 3, Size: 1000}
	err = c.Enqueue(55*us, &p, cc.Queue{Len: q + 1000}, cc.NewActions(5))
	require.ErrorAs(t, err, &fe)
	require.Equal(t, 6, fe.Need)
	require.Equal(t, before, c.AppendRegisters(nil))
	act := cc.NewActions(6)
	require.NoError(t, c.Enqueue(55*us, &p, cc.Queue{Len: q + 1000}, act))
	act2 := cc.NewActions(6)
	require.NoError(t, twin.Timer(10*us, act2))
	require.NoError(t, twin.Timer(50*us, act2))
	require.NoError(t, twin.Enqueue(55*us, &p, cc.Queue{Len: q + 1000}, act2))
	require.Equal(t, act2.All(), act.All())
	require.Equal(t, twin.AppendRegisters(nil), c.AppendRegisters(nil))
	require.Equal(t, 4, c.State().Flows)

	// Aged table (MaxAge 70 µs, first update at 100 µs), flows seen at 10,
	// 40 and 80 µs; a Timer at 145 µs runs the updates at 100 µs (flow 1,
	// 90 µs old, expired: flows 2 and 3 told) and 140 µs (flow 2, 100 µs
	// old, expired too: flow 3 told): 3 messages, although the table held 3
	// flows at each.
	cfg.FlowTable, cfg.FlowMaxAge, cfg.Start = RoCCAgedTable, 70*us, 100*us
	a, err := NewRoCC(cfg)
	require.NoError(t, err)
	for i, f := range []cc.FlowID{1, 2, 3} {
		p := cc.Packet{Flow: f, Size: 1000}
		require.NoError(t, a.Enqueue([]units.Time{10 * us, 40 * us, 80 * us}[i], &p, cc.Queue{Len: 1000}, none))
	}
	require.Equal(t, 3, a.State().Flows)
	err = a.Timer(145*us, cc.NewActions(2))
	require.ErrorAs(t, err, &fe)
	require.Equal(t, 3, fe.Need)
	require.Equal(t, 3, a.State().Flows, "nothing expired by the refused event")
	three := cc.NewActions(3)
	require.NoError(t, a.Timer(145*us, three))
	var got []cc.FlowID
	for _, x := range three.All() {
		got = append(got, x.Feedback.Flow)
	}
	require.ElementsMatch(t, []cc.FlowID{2, 3}, got[:2], "the update at 100 µs")
	require.Equal(t, cc.FlowID(3), got[2], "the update at 140 µs")
	require.Equal(t, 1, a.State().Flows)
}

// TestRoCCContractTimerMessage checks the message of an update field by
// field: one ActionFeedback per flow, to the source at control priority,
// FeedbackRate from the CP's identity, carrying the codec's 16 bytes.
func TestRoCCContractTimerMessage(t *testing.T) {
	cfg := RoCC40G()
	cfg.Switch, cfg.Port = 0x0a000001, 3
	cfg.Start = 40 * units.Microsecond
	for _, m := range []RoCCMessage{RoCCSendRate, RoCCSendReport, RoCCSendReportF} {
		cfg.Message = m
		c, err := NewRoCC(cfg)
		require.NoError(t, err)
		p := cc.Packet{Flow: 42, Size: 1500}
		act := cc.NewActions(1)
		require.NoError(t, c.Enqueue(0, &p, cc.Queue{Len: 300 * units.KB}, act))
		require.NoError(t, c.Timer(40*units.Microsecond, act))
		require.Equal(t, 1, act.Len())
		a := act.At(0)
		require.Equal(t, cc.ActionFeedback, a.Kind)
		require.Equal(t, cc.ToSource, a.To)
		require.Equal(t, cc.ControlPrio, a.Prio)
		require.Equal(t, cc.FeedbackRate, a.Feedback.Kind)
		require.Equal(t, cc.FlowID(42), a.Feedback.Flow)
		require.Equal(t, uint64(0x0a000001_0003), a.Feedback.From)
		fb, err := wire.DecodeRoCCFeedback(a.Feedback.Data[:])
		require.NoError(t, err)
		// The queue of 300 KB = 500 ΔQ grew by Qmid from Qold = 0: line 5
		// halves F from Fmax = 4000 to 2000 ΔF (ExampleRoCC).
		want := wire.RoCCFeedback{Type: wire.RoCCRateFeedback, Seq: 1, Port: 3, Switch: 0x0a000001, Rate: 2000, QDepth: 500, Flow: 42}
		switch m {
		case RoCCSendReport:
			want.Type, want.Rate = wire.RoCCReportFeedback, 0
		case RoCCSendReportF:
			want.Type, want.Rate = wire.RoCCReportFeedback, 4000 // F before the update
		}
		require.Equal(t, want, fb, "%v", m)
	}
}

// TestRoCCContractBadInput: nil packets, negative sizes and queue lengths
// are *cc.EventError and change nothing; none panics.
func TestRoCCContractBadInput(t *testing.T) {
	c, err := NewRoCC(RoCC40G())
	require.NoError(t, err)
	before := c.AppendRegisters(nil)
	act := cc.NewActions(4)
	for _, err := range []error{
		c.Enqueue(1, nil, cc.Queue{}, act),
		c.Dequeue(1, nil, cc.Queue{}, act),
		c.Enqueue(1, &cc.Packet{Size: -1}, cc.Queue{}, act),
		c.Enqueue(1, &cc.Packet{Size: 1}, cc.Queue{Len: -1}, act),
		c.Dequeue(1, &cc.Packet{Size: 1}, cc.Queue{}, act), // never queued
		c.Enqueue(1, &cc.Packet{Size: roccFlowBytesMax + 1}, cc.Queue{}, act),
		c.Enqueue(1, &cc.Packet{Size: 1}, cc.Queue{}, nil),
	} {
		require.ErrorIs(t, err, cc.ErrEvent)
		require.Equal(t, before, c.AppendRegisters(nil))
	}
}

// TestRoCCContractRegisters: every register fits its width, and the order
// and names never change.
func TestRoCCContractRegisters(t *testing.T) {
	for name, cfg := range roccContractConfigs() {
		c, err := NewRoCC(cfg)
		require.NoError(t, err)
		names := func(rs []cc.Register) []string {
			var out []string
			for _, r := range rs {
				require.True(t, r.Fits(), "%s: %v", name, r)
				out = append(out, r.Name)
			}
			return out
		}
		first := names(c.AppendRegisters(nil))
		require.Equal(t, []string{"now", "f", "f_prev", "qold", "qcur", "shift", "branch", "seq", "deadline", "updates",
			"saturated", "flow_overflows", "flows", "untracked_bytes", "enq_pos", "deq_pos", "evictions", "qlen"}, first)
		act := cc.NewActions(cfg.FlowCapacity)
		for i := range 50 {
			now := units.Time(i) * 7 * units.Microsecond
			p := cc.Packet{Flow: cc.FlowID(i % 7), Size: 1500}
			act.Reset()
			require.NoError(t, c.Enqueue(now, &p, cc.Queue{Len: units.Bytes(i) * 40 * units.KB}, act))
			require.NoError(t, c.Timer(now, act))
			require.Equal(t, first, names(c.AppendRegisters(nil)))
		}
	}
	// The widths the doc states: F is RateBits + RateFracBits = 24 bits,
	// the queue registers 16, the occupancy of a 1024-flow table 11.
	c, err := NewRoCC(RoCC40G())
	require.NoError(t, err)
	widths := map[string]uint8{}
	for _, r := range c.AppendRegisters(nil) {
		widths[r.Name] = r.Width
	}
	require.Equal(t, map[string]uint8{"now": 64, "f": 24, "f_prev": 24, "qold": 16, "qcur": 16, "shift": 3, "branch": 2, "seq": 8,
		"deadline": 64, "updates": 64, "saturated": 64, "flow_overflows": 64, "flows": 11, "untracked_bytes": 64,
		"enq_pos": 64, "deq_pos": 64, "evictions": 64, "qlen": 64}, widths)
}

// TestRoCCContractNoAllocs: no contract event allocates on success, nor
// AppendRegisters with room.
func TestRoCCContractNoAllocs(t *testing.T) {
	for name, cfg := range roccContractConfigs() {
		c, err := NewRoCC(cfg)
		require.NoError(t, err)
		act := cc.NewActions(cfg.FlowCapacity)
		regs := make([]cc.Register, 0, 64)
		now := units.Time(0)
		allocs := testing.AllocsPerRun(500, func() {
			now = max(now+units.Microsecond, c.NextDeadline())
			p := cc.Packet{Flow: cc.FlowID(now / units.Microsecond % 3), Size: 1500}
			if err := c.Enqueue(now, &p, cc.Queue{Len: 1500}, act); err != nil {
				t.Fatal(err)
			}
			act.Reset()
			if err := c.Timer(now, act); err != nil {
				t.Fatal(err)
			}
			if err := c.Dequeue(now, &p, cc.Queue{}, act); err != nil {
				t.Fatal(err)
			}
			regs = c.AppendRegisters(regs[:0])
		})
		require.Zero(t, allocs, name)
	}
}

// BenchmarkRoCCContractEnqueueDequeue is one contract Enqueue and one
// Dequeue in a queue table of 1024 entries holding 512 flows.
func BenchmarkRoCCContractEnqueueDequeue(b *testing.B) {
	c, err := NewRoCC(RoCC40G())
	if err != nil {
		b.Fatal(err)
	}
	act := cc.NewActions(1) // the update due at 0 runs at the first enqueue, with no flow to tell
	for f := range cc.FlowID(512) {
		if err := c.Enqueue(0, &cc.Packet{Flow: f, Size: 1500}, cc.Queue{Len: 1500}, act); err != nil {
			b.Fatal(err)
		}
	}
	var p cc.Packet
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		p.Flow, p.Size = cc.FlowID(i&1023), 1500
		_ = c.Enqueue(0, &p, cc.Queue{Len: 1500}, act)
		_ = c.Dequeue(0, &p, cc.Queue{}, act)
	}
}

// BenchmarkRoCCContractTimer is the contract's update with an empty flow
// table (no message), the queue view set by a 0-byte Dequeue just before
// each deadline.
func BenchmarkRoCCContractTimer(b *testing.B) {
	c, err := NewRoCC(RoCC40G())
	if err != nil {
		b.Fatal(err)
	}
	var q cc.Queue
	var p cc.Packet
	act := cc.NewActions(1)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		now := c.NextDeadline()
		q.Len = units.Bytes((i * 7919) % 420_000)
		_ = c.Dequeue(now-1, &p, q, act) // records the queue view (a 0-byte packet) before the deadline
		if err := c.Timer(now, act); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRoCCContractTimer16Flows is the contract's update with 16 flows
// in the table: 16 messages encoded and appended.
func BenchmarkRoCCContractTimer16Flows(b *testing.B) {
	c, err := NewRoCC(RoCC40G())
	if err != nil {
		b.Fatal(err)
	}
	act := cc.NewActions(16)
	for f := range cc.FlowID(16) {
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
}

// BenchmarkRoCCContractAppendRegisters appends the CP's 19 registers.
func BenchmarkRoCCContractAppendRegisters(b *testing.B) {
	c, err := NewRoCC(RoCC40G())
	if err != nil {
		b.Fatal(err)
	}
	regs := make([]cc.Register, 0, 32)
	b.ReportAllocs()
	for b.Loop() {
		regs = c.AppendRegisters(regs[:0])
	}
}

// roccOnTime calls c's Timer at every deadline at or before now, appending
// the messages to act, as a caller that never lets a deadline pass.
func roccOnTime(t *testing.T, c *RoCC, now units.Time, act *cc.Actions) {
	t.Helper()
	for d := c.NextDeadline(); d <= now; d = c.NextDeadline() {
		require.NoError(t, c.Timer(d, act))
	}
}

// TestRoCCLateTimers (rule 4 of package cc): a CP whose timer is left to
// its next event (late) holds, after every event, the registers of one
// whose Timer is called at every deadline (onTime), and has made the same
// decisions in the same order: every missed update runs, each as at its
// own deadline on the queue view of the latest Enqueue or Dequeue, each
// sending to the flows of the table at its time. Seeded random enqueues,
// FIFO dequeues and Timer calls, with gaps from nothing to 60 periods, for
// both tables (the aged one expiring flows between updates) and every
// message kind.
func TestRoCCLateTimers(t *testing.T) {
	for name, cfg := range roccContractConfigs() {
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(roccSeed(t)), 4))
			onTime, err := NewRoCC(cfg)
			require.NoError(t, err)
			late, err := NewRoCC(cfg)
			require.NoError(t, err)
			actX, actY := cc.NewActions(1<<16), cc.NewActions(1<<16)
			var fifo []roccFIFOPacket
			var qlen units.Bytes
			now := units.Time(0)
			for i := range 3000 {
				switch g := rng.IntN(20); {
				case g == 0:
					now += units.Time(rng.Int64N(int64(60 * cfg.Period)))
				case g < 4:
					now += units.Time(rng.Int64N(int64(2 * cfg.Period)))
				default:
					now += units.Time(rng.IntN(int(5 * units.Microsecond)))
				}
				// The decisions of this event (and, on time, of the timers
				// before it): equal event by event is equal in sum.
				actX.Reset()
				actY.Reset()
				roccOnTime(t, onTime, now, actX)
				var p cc.Packet
				var q cc.Queue
				var run func(c *RoCC, act *cc.Actions) error
				switch k := rng.IntN(10); {
				case k < 5 || len(fifo) == 0:
					p = cc.Packet{Flow: cc.FlowID(rng.IntN(9)), Size: units.Bytes(1 + rng.IntN(3000))}
					qlen += p.Size
					fifo = append(fifo, roccFIFOPacket{uint32(p.Flow), p.Size})
					q.Len = qlen
					run = func(c *RoCC, act *cc.Actions) error { pk := p; return c.Enqueue(now, &pk, q, act) }
				case k < 9:
					p = cc.Packet{Flow: cc.FlowID(fifo[0].flow), Size: fifo[0].size}
					fifo = fifo[1:]
					qlen -= p.Size
					q.Len = qlen
					run = func(c *RoCC, act *cc.Actions) error { pk := p; return c.Dequeue(now, &pk, q, act) }
				default:
					run = func(c *RoCC, act *cc.Actions) error { return c.Timer(now, act) }
				}
				require.NoError(t, run(onTime, actX), "event %d", i)
				require.NoError(t, run(late, actY), "event %d", i)
				require.Equal(t, onTime.AppendRegisters(nil), late.AppendRegisters(nil), "event %d", i)
				if !slices.Equal(actX.All(), actY.All()) {
					require.Equal(t, actX.All(), actY.All(), "event %d: the decisions since the last", i)
				}
				require.Greater(t, late.NextDeadline(), now, "event %d: nothing left overdue", i)
			}
			require.Greater(t, onTime.State().Updates, uint64(3000), "many updates ran late")
		})
	}
}

// TestRoCCCatchUpFixedPoint: an event 10^5 periods late with no flow in
// the table runs every update; once F stops changing the rest are taken
// in closed form, which must leave the registers one update at a time
// would: for queues that drive F to Fmax (empty), to Fmin (above Qref, and
// saturating the Qcur register), hold it (at Qref), and with IdleGain and
// the OMNeT++ arithmetic.
func TestRoCCCatchUpFixedPoint(t *testing.T) {
	omnet := RoCC40G()
	omnet.InitialF, omnet.Rounding, omnet.RateFracBits = pi.InitialZero, pi.RoundFloor, 0
	idle := RoCC40G()
	idle.IdleGain = true
	aged := RoCC40G()
	aged.FlowTable, aged.FlowMaxAge = RoCCAgedTable, 3*aged.Period
	const n = 100_000
	for name, cfg := range map[string]RoCCConfig{"40g": RoCC40G(), "omnet": omnet, "idle": idle, "aged": aged} {
		for _, q := range []units.Bytes{0, 150 * units.KB, 200 * units.KB, 50 * units.MB} {
			onTime, err := NewRoCC(cfg)
			require.NoError(t, err)
			late, err := NewRoCC(cfg)
			require.NoError(t, err)
			act := cc.NewActions(4)
			// A packet joins and leaves before the first update; the aged
			// table keeps its flow for 3 periods: 3 messages.
			p := cc.Packet{Flow: 5, Size: q}
			for _, c := range []*RoCC{onTime, late} {
				require.NoError(t, c.Enqueue(0, &p, cc.Queue{Len: q}, act))
				require.NoError(t, c.Dequeue(0, &p, cc.Queue{Len: q}, act))
			}
			end := units.Time(n) * cfg.Period
			act.Reset()
			roccOnTime(t, onTime, end, act)
			lateAct := cc.NewActions(4)
			require.NoError(t, late.Timer(end, lateAct))
			require.Equal(t, onTime.AppendRegisters(nil), late.AppendRegisters(nil), "%s, queue %v", name, q)
			require.Equal(t, act.All(), lateAct.All(), "%s, queue %v", name, q)
			require.Equal(t, uint64(n+1), late.State().Updates, "%s, queue %v", name, q)
		}
	}
}

// TestRoCCNilActions (rule 3 of package cc): every event of the CP can
// decide (an update due by its time sends messages), so each refuses a nil
// *cc.Actions with cc.ErrNoActions, whether or not this call would decide
// (before the deadline, with no flow), changing nothing.
func TestRoCCNilActions(t *testing.T) {
	us := units.Microsecond
	for _, at := range []units.Time{5 * us, 40 * us} { // before the deadline of 40 µs, at it
		c, err := NewRoCC(RoCC40G())
		require.NoError(t, err)
		p := cc.Packet{Flow: 1, Size: 1500}
		require.NoError(t, c.Enqueue(0, &p, cc.Queue{Len: 1500}, cc.NewActions(1)))
		before := c.AppendRegisters(nil)
		for name, err := range map[string]error{
			"Enqueue": c.Enqueue(at, &p, cc.Queue{Len: 3000}, nil),
			"Dequeue": c.Dequeue(at, &p, cc.Queue{}, nil),
			"Timer":   c.Timer(at, nil),
		} {
			var ee *cc.EventError
			require.ErrorAs(t, err, &ee, name)
			require.ErrorIs(t, err, cc.ErrNoActions, name)
			require.Equal(t, cc.EventError{Part: "cp.RoCC", Event: name, Reason: "nil actions, and this event can decide", Err: cc.ErrNoActions}, *ee)
			require.Equal(t, before, c.AppendRegisters(nil), "%s at %v", name, at)
		}
	}
}
