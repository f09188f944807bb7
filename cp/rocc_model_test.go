package cp

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/commands"
	"github.com/leanovate/gopter/gen"
	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/pi"
	"github.com/hwcc/hwcc/units"
)

// roccSeed is the gopter seed: fixed (1) so that runs are reproducible,
// overridable with HWCC_GOPTER_SEED to explore other sequences.
func roccSeed(t testing.TB) int64 {
	if s := os.Getenv("HWCC_GOPTER_SEED"); s != "" {
		v, err := strconv.ParseInt(s, 10, 64)
		require.NoError(t, err)
		return v
	}
	return 1
}

// roccQUnits is the queue sample in ΔQ units computed independently of the
// quantiser: ⌊qlen/ΔQ⌋ saturated at 2^QueueBits − 1.
func roccQUnits(cfg RoCCConfig, qlen units.Bytes) uint32 {
	q := int64(qlen / cfg.DeltaQ)
	return uint32(min(q, int64(1)<<cfg.QueueBits-1))
}

// roccCheckUpdate checks one update of the CP: its registers are pi.Step's
// from the registers before it and Qcur (computed independently of the CP's
// quantiser by roccQUnits), it took pi.Step's branch, and F is in
// [Fmin, Fmax]. Package pi's tests check pi.Step against a float64 model
// of Algorithm 1; this checks that the CP runs it on the right inputs.
func roccCheckUpdate(p *pi.Params, before, after pi.Regs, br pi.Branch, qcur uint32) error {
	want, wantBr := pi.Step(p, before, qcur)
	if after != want || br != wantBr {
		return fmt.Errorf("update from %+v with Qcur %d: %+v (%v), pi.Step %+v (%v)", before, qcur, after, br, want, wantBr)
	}
	if fmin, fmax := p.FBounds(); after.F < fmin || after.F > fmax {
		return fmt.Errorf("F register %d outside [%d, %d]", after.F, fmin, fmax)
	}
	return nil
}

// roccCheckUpdates checks n updates on one queue sample qcur, from the
// registers before to those after, each with roccCheckUpdate; br is the
// branch the CP reports, the last update's.
func roccCheckUpdates(p *pi.Params, before, after pi.Regs, br pi.Branch, n uint64, qcur uint32) error {
	r, last := before, br
	for range n {
		next, b := pi.Step(p, r, qcur)
		if err := roccCheckUpdate(p, r, next, b, qcur); err != nil {
			return err
		}
		r, last = next, b
	}
	if r != after || last != br {
		return fmt.Errorf("registers %+v (%v) after %d updates on Qcur %d, pi.Step gives %+v (%v)", after, br, n, qcur, r, last)
	}
	return nil
}

// ---- gopter commands: the CP driven by ticks, enqueues and dequeues ----

const (
	roccTestFlows    = 12 // flow IDs 0..11
	roccTestCapacity = 8  // table capacity: new flows beyond it overflow
)

// roccCPModel is the model state: time, the deadline, the CP's queue view
// (set by ticks), and a reference model of the FIFO queue and the flow
// table (bytes per flow the table counts, in the table or not): a packet is
// counted iff its flow is in the table or the table has room when it
// arrives (RoCCQueueTable).
type roccCPModel struct {
	now, deadline units.Time
	view          units.Bytes
	// ran is the number of updates the last command ran (those due by its
	// time, rule 4 of package cc).
	ran       uint64
	fifo      []roccModelPacket // shared between states: copied on write
	bytes     [roccTestFlows]int64
	in        [roccTestFlows]bool
	n         int
	total     int64
	overflows uint64
	// lastErr is whether the model expected the last command to fail.
	lastErr bool
}

type roccCPSys struct {
	c   *RoCC
	cfg RoCCConfig
}

type roccCPResult struct {
	before, after pi.Regs
	updates       uint64 // the updates the command ran
	err           error
	state         RoCCState
	flows         []cc.FlowID
}

type roccCPCmd struct {
	kind int // 0 tick, 1 enqueue, 2 dequeue
	at   units.Time
	qlen units.Bytes
	flow uint32
	size units.Bytes
}

func (c roccCPCmd) String() string {
	switch c.kind {
	case 0:
		return fmt.Sprintf("Timer(%v) on queue %v", c.at, c.qlen)
	case 1:
		return fmt.Sprintf("Enqueue(%v, %d, %v)", c.at, c.flow, c.size)
	}
	return fmt.Sprintf("Dequeue(%v, %d, %v)", c.at, c.flow, c.size)
}

func (c roccCPCmd) Run(s commands.SystemUnderTest) commands.Result {
	sys := s.(*roccCPSys)
	res := roccCPResult{before: sys.c.Regs()}
	updates := sys.c.State().Updates
	switch c.kind {
	case 0:
		_, res.err = roccTick(sys.c, c.at, c.qlen)
	case 1:
		res.err = roccEnqueue(sys.c, c.at, c.flow, c.size)
	case 2:
		res.err = roccDequeue(sys.c, c.at, c.flow, c.size)
	}
	res.after, res.state = sys.c.Regs(), sys.c.State()
	res.updates = res.state.Updates - updates
	res.flows = sys.c.AppendFlows(nil)
	return res
}

// expectErr is whether the model expects the command to fail.
func (c roccCPCmd) expectErr(m roccCPModel) bool {
	if c.at < m.now {
		return true
	}
	switch c.kind {
	case 2:
		// A dequeue is the FIFO's head, or more than the queue holds.
		return int64(c.size) > m.total
	}
	return false
}

func (c roccCPCmd) NextState(s commands.State) commands.State {
	m := s.(roccCPModel)
	m.ran = 0
	m.lastErr = c.expectErr(m)
	if m.lastErr {
		return m
	}
	m.now = c.at
	// Every event first runs the updates due by its time; a tick first
	// makes its queue the CP's view.
	if c.kind == 0 {
		m.view = c.qlen
	}
	for m.deadline <= c.at {
		m.deadline += roccTestPeriod
		m.ran++
	}
	switch c.kind {
	case 1:
		if c.size == 0 {
			break
		}
		counted := m.in[c.flow] || m.n < roccTestCapacity
		if !counted {
			m.overflows++
		}
		m.fifo = append(slices.Clip(m.fifo), roccModelPacket{key: c.flow, size: int64(c.size), counted: counted})
	case 2:
		if c.size > 0 {
			m.fifo = m.fifo[1:]
		}
	}
	m.bytes, m.in, m.n, m.total = [roccTestFlows]int64{}, [roccTestFlows]bool{}, 0, 0
	for _, p := range m.fifo {
		m.total += p.size
		if p.counted {
			if !m.in[p.key] {
				m.in[p.key] = true
				m.n++
			}
			m.bytes[p.key] += p.size
		}
	}
	return m
}

func (c roccCPCmd) PreCondition(commands.State) bool { return true }

const roccTestPeriod = 40 * units.Microsecond

func roccTestConfig() RoCCConfig {
	cfg := RoCC40G()
	cfg.FlowCapacity = roccTestCapacity
	cfg.Start = 5 * units.Microsecond
	return cfg
}

// roccCPPost is the postcondition of every command, given the model state
// after it (which records whether the command was expected to fail).
func roccCPPost(cfg RoCCConfig, p *pi.Params, c roccCPCmd, m roccCPModel, res roccCPResult) error {
	if (res.err != nil) != m.lastErr {
		return fmt.Errorf("%v: error %v, model expects an error: %v", c, res.err, m.lastErr)
	}
	if res.err != nil {
		if res.after != res.before {
			return fmt.Errorf("%v failed but changed the registers", c)
		}
		return nil
	}
	// The flow table holds exactly the model's flows.
	var want []cc.FlowID
	for f := range m.in {
		if m.in[f] {
			want = append(want, cc.FlowID(f))
		}
	}
	got := slices.Clone(res.flows)
	slices.Sort(got)
	if !slices.Equal(got, want) || res.state.Flows != m.n || res.state.FlowOverflows != m.overflows {
		return fmt.Errorf("flows %v (n=%d, overflows %d), model %v (n=%d, overflows %d)",
			got, res.state.Flows, res.state.FlowOverflows, want, m.n, m.overflows)
	}
	if res.state.Deadline != m.deadline {
		return fmt.Errorf("deadline %v, model %v", res.state.Deadline, m.deadline)
	}
	// The updates due by the event's time, each pi.Step on the queue view
	// (the tick's, or the previous one).
	if res.updates != m.ran {
		return fmt.Errorf("%v ran %d updates, model %d", c, res.updates, m.ran)
	}
	qcur := roccQUnits(cfg, m.view)
	if err := roccCheckUpdates(p, res.before, res.after, res.state.Branch, m.ran, qcur); err != nil {
		return fmt.Errorf("%v: %w", c, err)
	}
	if m.ran > 0 && res.state.QCur != qcur {
		return fmt.Errorf("%v: Qcur %d, want %d", c, res.state.QCur, qcur)
	}
	return nil
}

// roccCPCheckedCmd attaches the postcondition's parameters to a command.
type roccCPCheckedCmd struct {
	roccCPCmd
	cfg *RoCCConfig
	p   *pi.Params
}

func (w roccCPCheckedCmd) PostCondition(s commands.State, r commands.Result) *gopter.PropResult {
	if err := roccCPPost(*w.cfg, w.p, w.roccCPCmd, s.(roccCPModel), r.(roccCPResult)); err != nil {
		return &gopter.PropResult{Status: gopter.PropFalse, Error: err}
	}
	return &gopter.PropResult{Status: gopter.PropTrue}
}

func roccCPCommands(t *testing.T, cfg RoCCConfig) *commands.ProtoCommands {
	c, err := NewRoCC(cfg)
	require.NoError(t, err)
	p := c.Params()
	return &commands.ProtoCommands{
		NewSystemUnderTestFunc: func(commands.State) commands.SystemUnderTest {
			c, err := NewRoCC(cfg)
			if err != nil {
				panic(err)
			}
			return &roccCPSys{c: c, cfg: cfg}
		},
		InitialStateGen: gen.Const(roccCPModel{deadline: cfg.Start}),
		GenCommandFunc: func(s commands.State) gopter.Gen {
			m := s.(roccCPModel)
			wrap := func(c roccCPCmd) commands.Command { return roccCPCheckedCmd{roccCPCmd: c, cfg: &cfg, p: p} }
			base := max(m.now, m.deadline)
			// Queue lengths: mostly around the thresholds (0..450 KB, Qmax is
			// 360 KB), often nearly empty (below 30 KB, around IdleGain's
			// Qref/8 = 31 ΔQ = 18.6 KB), sometimes beyond the 16-bit register
			// (39.3 MB) to saturate it; kept for several ticks at times by
			// the shrinker.
			qlen := gen.Weighted([]gen.WeightedGen{
				{Weight: 6, Gen: gen.Int64Range(0, 450_000)},
				{Weight: 2, Gen: gen.Int64Range(0, 30_000)},
				// Exactly Qref, Qmid, Qmax (150, 300, 360 KB) ± one ΔQ.
				{Weight: 3, Gen: gopter.CombineGens(gen.OneConstOf(int64(150_000), int64(300_000), int64(360_000)), gen.Int64Range(-600, 600)).
					Map(func(v []any) int64 { return v[0].(int64) + v[1].(int64) })},
				{Weight: 1, Gen: gen.Int64Range(39_000_000, 50_000_000)},
			}).Map(func(v int64) units.Bytes { return units.Bytes(v) })
			tick := gopter.CombineGens(
				gen.Weighted([]gen.WeightedGen{
					{Weight: 8, Gen: gen.Const(int64(0))},
					{Weight: 2, Gen: gen.Int64Range(1, int64(3*roccTestPeriod))},
					{Weight: 1, Gen: gen.Const(int64(-1))}, // early: only records now, or before the last event: refused
				}),
				qlen,
			).Map(func(v []any) commands.Command {
				return wrap(roccCPCmd{kind: 0, at: base + units.Time(v[0].(int64)), qlen: v[1].(units.Bytes)})
			})
			at := gen.Int64Range(-1, int64(10*units.Microsecond)) // −1: out of order
			enq := gopter.CombineGens(at, gen.UInt32Range(0, roccTestFlows-1), gen.Int64Range(0, 9000)).
				Map(func(v []any) commands.Command {
					return wrap(roccCPCmd{kind: 1, at: m.now + units.Time(v[0].(int64)), flow: v[1].(uint32), size: units.Bytes(v[2].(int64))})
				})
			// A dequeue is the head of the FIFO (legal: never refused) or,
			// sometimes, more bytes than the queue holds (refused).
			deq := gopter.CombineGens(at, gen.UInt32Range(0, roccTestFlows-1), gen.Int64Range(1, 9000), gen.IntRange(0, 3)).
				Map(func(v []any) commands.Command {
					c := roccCPCmd{kind: 2, at: m.now + units.Time(v[0].(int64)), flow: v[1].(uint32), size: units.Bytes(m.total + v[2].(int64))}
					if v[3].(int) > 0 && len(m.fifo) > 0 {
						c.flow, c.size = m.fifo[0].key, units.Bytes(m.fifo[0].size)
					}
					return wrap(c)
				})
			return gen.Weighted([]gen.WeightedGen{
				{Weight: 4, Gen: tick},
				{Weight: 4, Gen: enq},
				{Weight: 3, Gen: deq},
			})
		},
	}
}

// TestRoCCCPModelProperties drives the CP with arbitrary sequences of
// ticks (on time, late, early; each sets the queue view), enqueues and
// dequeues (any of which may find updates due), and checks after every
// event: it ran the updates due by its time, each pi.Step on the registers
// and the quantised queue view, with F in [Fmin, Fmax]; a refused event
// changed nothing; the flow table equals its model; deadlines on the
// Start + i·T grid. Algorithm 1 as printed and with IdleGain.
func TestRoCCCPModelProperties(t *testing.T) {
	for _, idle := range []bool{false, true} {
		t.Run(fmt.Sprintf("IdleGain=%v", idle), func(t *testing.T) {
			cfg := roccTestConfig()
			cfg.IdleGain = idle
			params := gopter.DefaultTestParametersWithSeed(roccSeed(t))
			params.MinSuccessfulTests = 200
			params.MaxSize = 80
			props := gopter.NewProperties(params)
			props.Property("Algorithm 1 and the flow table match their models", commands.Prop(roccCPCommands(t, cfg)))
			props.TestingRun(t)
		})
	}
}

// ---- fuzzing ----

// FuzzRoCCCP drives a CP (queue table of 4 flows) with an arbitrary event
// sequence, 4 bytes per event, and checks every update against the float
// model and the invariants: no panic, F in [Fmin, Fmax], branch and region
// as the model, F within the tracking bound, table size ≤ capacity.
func FuzzRoCCCP(f *testing.F) {
	// Event: byte 0 low 2 bits = kind (0 tick, 1 enqueue, 2 dequeue, 3 tick
	// 1 ps early), high 6 bits = time step; bytes 1–2 = queue length in
	// 1 KB or packet size in bytes; byte 3 = flow id.
	f.Add([]byte{0, 0x00, 0x96, 0, 0, 0x01, 0x2c, 0})                   // two ticks, queue 150 KB (Qref) then 300 KB
	f.Add([]byte{1, 0x05, 0xdc, 1, 0, 0x01, 0x68, 0, 2, 0x05, 0xdc, 1}) // enqueue 1500 B, tick at Qmax, dequeue
	f.Add([]byte{0, 0xff, 0xff, 0, 3, 0, 0, 0})                         // 65 MB: saturated sample, then an early tick
	f.Add([]byte{0xfc, 0x00, 0x00, 0, 0xfc, 0x00, 0x00, 0})             // late ticks on an empty queue
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, idle := range []bool{false, true} {
			roccFuzzCP(t, data, idle)
		}
	})
}

// roccFuzzCP is FuzzRoCCCP's body for one setting of IdleGain.
func roccFuzzCP(t *testing.T, data []byte, idle bool) {
	cfg := RoCC40G()
	cfg.FlowCapacity = 4
	cfg.IdleGain = idle
	c, err := NewRoCC(cfg)
	if err != nil {
		t.Fatal(err)
	}
	p := c.Params()
	now := units.Time(0)
	for len(data) >= 4 {
		ev := data[:4]
		data = data[4:]
		v := int64(ev[1])<<8 | int64(ev[2])
		now += units.Time(ev[0]>>2) * units.Microsecond
		before, updates, view := c.Regs(), c.State().Updates, c.Queue()
		var err error
		switch ev[0] & 3 {
		case 0, 3:
			at := max(now, c.NextDeadline())
			if ev[0]&3 == 3 {
				at-- // just before the deadline: no update, or before the last event: refused
			}
			if _, err = roccTick(c, at, units.Bytes(v)*units.KB); err == nil {
				now, view = at, units.Bytes(v)*units.KB
			} else if at >= now {
				t.Fatalf("Timer(%v) after %v: %v", at, now, err)
			}
		case 1:
			err = roccEnqueue(c, now, uint32(ev[3]&7), units.Bytes(v))
		case 2:
			err = roccDequeue(c, now, uint32(ev[3]&7), units.Bytes(v))
		}
		n := c.State().Updates - updates
		if err != nil && (n != 0 || c.Regs() != before) {
			t.Fatalf("a refused event ran %d updates", n)
		}
		if err := roccCheckUpdates(p, before, c.Regs(), c.State().Branch, n, roccQUnits(cfg, view)); err != nil {
			t.Fatal(err)
		}
		if n := c.State().Flows; n > cfg.FlowCapacity || n != len(c.AppendFlows(nil)) {
			t.Fatalf("flows %d, capacity %d", n, cfg.FlowCapacity)
		}
	}
}
