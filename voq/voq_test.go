package voq

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// small is a 4-destination ToR with 1500-byte packets and the paper's C0.
func small(mode Eligibility) Config {
	c := HierCC(4, 1500)
	c.Eligibility = mode
	return c
}

func mustNew(t testing.TB, c Config) *Manager {
	t.Helper()
	m, err := New(c)
	require.NoError(t, err)
	return m
}

func mustOpen(t testing.TB, m *Manager, k Key) Slot {
	t.Helper()
	s, err := m.Open(k)
	require.NoError(t, err)
	return s
}

// requireRefused checks that err is a *cc.EventError matching sentinel.
func requireRefused(t *testing.T, err, sentinel error) {
	t.Helper()
	require.Error(t, err)
	var ev *cc.EventError
	require.True(t, errors.As(err, &ev), "%v is not a *cc.EventError", err)
	require.ErrorIs(t, err, sentinel)
	require.ErrorIs(t, err, cc.ErrEvent)
	require.True(t, cc.Typed(err))
}

func TestConfigValidate(t *testing.T) {
	require.NoError(t, HierCC(320, 1500).Validate())
	require.NoError(t, HierCC(MaxKeys, MaxPacket).Validate())
	require.NoError(t, RoundRobin(64, 9000).Validate())
	ok := small(CreditPositive)
	for _, tc := range []struct {
		field string
		edit  func(*Config)
	}{
		{"Keys", func(c *Config) { c.Keys = 0 }},
		{"Keys", func(c *Config) { c.Keys = MaxKeys + 1 }},
		{"Slots", func(c *Config) { c.Slots = 0 }},
		{"Slots", func(c *Config) { c.Slots = c.Keys + 1 }},
		{"Eligibility", func(c *Config) { c.Eligibility = IgnoreCredit + 1 }},
		{"MaxPacket", func(c *Config) { c.MaxPacket = 0 }},
		{"MaxPacket", func(c *Config) { c.MaxPacket = MaxPacket + 1 }},
		{"QueueLimit", func(c *Config) { c.QueueLimit = c.MaxPacket - 1 }},
		{"QueueLimit", func(c *Config) { c.QueueLimit = MaxQueueLimit + 1 }},
		{"MaxCredit", func(c *Config) { c.MaxCredit = c.MaxPacket - 1 }},
		{"MaxCredit", func(c *Config) { c.MaxCredit = MaxCreditLimit + 1 }},
		{"InitialCredit", func(c *Config) { c.InitialCredit = -1 }},
		{"InitialCredit", func(c *Config) { c.InitialCredit = c.MaxCredit + 1 }},
	} {
		c := ok
		tc.edit(&c)
		_, err := New(c)
		var ce *cc.ConfigError
		require.ErrorAs(t, err, &ce, tc.field)
		require.ErrorIs(t, err, cc.ErrConfig)
		require.Equal(t, tc.field, ce.Field)
		require.NotEmpty(t, ce.Range)
	}
}

// TestOpenClose: slots are handed out from 0 up; an open key keeps its
// slot; a full table refuses new keys and evicts nothing; Close needs an
// idle VOQ and frees its slot for the next Open (LIFO), which starts
// afresh at C0 and S = 0.
func TestOpenClose(t *testing.T) {
	c := small(CreditPositive)
	c.Slots = 3
	m := mustNew(t, c)
	for i, k := range []Key{3, 0, 2} {
		require.Equal(t, Slot(i), mustOpen(t, m, k))
	}
	require.Equal(t, Slot(1), mustOpen(t, m, 0)) // already open
	_, err := m.Open(1)
	requireRefused(t, err, ErrFull)
	_, err = m.Open(4) // keys are 0..3
	requireRefused(t, err, ErrKey)
	_, ok := m.Lookup(1)
	require.False(t, ok)
	require.Equal(t, 3, m.Len())

	require.NoError(t, m.Enqueue(0, 1000))
	_, err = m.Dequeue(0, 1000)
	require.NoError(t, err)
	require.NoError(t, m.FlowStart(0))
	requireRefused(t, m.Close(0), ErrBusy) // a flow
	require.NoError(t, m.FlowEnd(0))
	require.NoError(t, m.Enqueue(0, 1))
	requireRefused(t, m.Close(0), ErrBusy) // a byte
	_, err = m.Dequeue(0, 1)
	require.NoError(t, err)
	require.NoError(t, m.Close(0))
	requireRefused(t, m.Close(0), ErrSlot)
	_, ok = m.Lookup(3)
	require.False(t, ok)

	s := mustOpen(t, m, 1)
	require.Equal(t, Slot(0), s) // the freed slot
	st, err := m.State(s)
	require.NoError(t, err)
	require.Equal(t, State{Key: 1, Credit: PaperC0}, st)
	_, err = m.State(99)
	requireRefused(t, err, ErrSlot)
}

// TestCreditPaper follows one HierCC VOQ (C0 = 10 KB = 10 000 B) sending
// 1500-byte packets. CreditPositive: a packet leaves while the balance is
// above zero, so k packets leave with 10000 − 1500(k−1) > 0, k ≤ 7, and
// the balance ends at 10000 − 7·1500 = −500; one credit (Δ = 1000 B)
// brings it to 500 > 0 and one more packet leaves (−1000). Under
// CreditCoversHead a packet needs 1500 B of balance: 10000 − 1500(k−1) ≥
// 1500 gives k ≤ 6, ending at 1000; a credit makes 2000 and one more
// packet leaves (500).
func TestCreditPaper(t *testing.T) {
	for _, tc := range []struct {
		mode        Eligibility
		first       int
		after       units.Bytes
		afterCredit units.Bytes
	}{
		{CreditPositive, 7, -500, -1000},
		{CreditCoversHead, 6, 1000, 500},
	} {
		t.Run(tc.mode.String(), func(t *testing.T) {
			m := mustNew(t, small(tc.mode))
			s := mustOpen(t, m, 2)
			for range 20 {
				require.NoError(t, m.Enqueue(s, 1500))
			}
			served := func() int {
				n := 0
				for {
					ns, ok := m.Next()
					if !ok {
						return n
					}
					require.Equal(t, s, ns)
					_, err := m.Dequeue(s, 1500)
					require.NoError(t, err)
					require.NoError(t, m.SetHead(s, 1500))
					n++
				}
			}
			require.Equal(t, tc.first, served())
			st, _ := m.State(s)
			require.Equal(t, tc.after, st.Credit)
			_, err := m.Dequeue(s, 1500)
			requireRefused(t, err, ErrNotEligible)
			require.NoError(t, m.AddCredit(s, PaperDelta))
			require.Equal(t, 1, served())
			st, _ = m.State(s)
			require.Equal(t, tc.afterCredit, st.Credit)
			require.Equal(t, uint32(1500*(tc.first+1)), st.Sent)
			require.Equal(t, units.Bytes(1500*(20-tc.first-1)), st.Queued)
		})
	}
}

// TestCreditBounds: the balance reaches MaxCredit exactly and no further;
// the CreditPositive overdraft reaches −(MaxPacket−1) and no further.
func TestCreditBounds(t *testing.T) {
	c := small(CreditPositive)
	c.MaxCredit = MaxCreditLimit
	c.InitialCredit = 1
	m := mustNew(t, c)
	s := mustOpen(t, m, 0)
	requireRefused(t, m.AddCredit(s, 0), ErrSize)
	requireRefused(t, m.AddCredit(s, MaxCreditLimit+1), ErrSize)
	requireRefused(t, m.AddCredit(s, MaxCreditLimit), ErrCreditOverflow) // 1 + (2^31−1)
	require.NoError(t, m.AddCredit(s, MaxCreditLimit-1))
	requireRefused(t, m.AddCredit(s, 1), ErrCreditOverflow)
	st, _ := m.State(s)
	require.Equal(t, units.Bytes(MaxCreditLimit), st.Credit)

	c.MaxPacket = MaxPacket
	m = mustNew(t, c)
	s = mustOpen(t, m, 0)
	require.NoError(t, m.Enqueue(s, MaxPacket))
	require.NoError(t, m.Enqueue(s, MaxPacket))
	_, err := m.Dequeue(s, MaxPacket) // balance 1 > 0: may overdraw
	require.NoError(t, err)
	st, _ = m.State(s)
	require.Equal(t, units.Bytes(1-MaxPacket), st.Credit)
	require.False(t, m.Eligible(s))
	_, err = m.Dequeue(s, 1)
	requireRefused(t, err, ErrNotEligible)
	regs := m.AppendSlotRegisters(nil, s)
	require.Equal(t, "credit", regs[3].Name)
	require.Equal(t, int64(1-MaxPacket), regs[3].Int())
	require.True(t, regs[3].Fits())
}

// TestSentWraps: S_ij is bytes sent modulo 2^32. 65537 packets of 65535 B
// are 2^32 − 1 bytes; one more makes (2^32 − 1 + 65535) mod 2^32 = 65534.
func TestSentWraps(t *testing.T) {
	m := mustNew(t, RoundRobin(1, MaxPacket))
	s := mustOpen(t, m, 0)
	var stamp Stamp
	for i := range 65538 {
		require.NoError(t, m.Enqueue(s, MaxPacket))
		var err error
		stamp, err = m.Dequeue(s, MaxPacket)
		require.NoError(t, err)
		if i == 65536 {
			require.Equal(t, uint32(1<<32-1), stamp.Sent)
		}
	}
	require.Equal(t, uint32(65534), stamp.Sent)
	// The 64-bit model counters do not wrap here: 65538·65535 bytes.
	require.Equal(t, Totals{Enqueued: 65538 * 65535, Dequeued: 65538 * 65535}, m.Totals())
}

// TestQueueLimit: a VOQ holds up to QueueLimit bytes, at the widest
// 2^32 − 1 = 65537·65535; one more byte is refused.
func TestQueueLimit(t *testing.T) {
	m := mustNew(t, RoundRobin(2, MaxPacket))
	s := mustOpen(t, m, 1)
	for range 65537 {
		require.NoError(t, m.Enqueue(s, MaxPacket))
	}
	requireRefused(t, m.Enqueue(s, 1), ErrQueueLimit)
	st, _ := m.State(s)
	require.Equal(t, units.Bytes(MaxQueueLimit), st.Queued)
	regs := m.AppendSlotRegisters(nil, s)
	require.Equal(t, uint64(1<<32-1), regs[1].Value)
	require.True(t, regs[1].Fits())
}

// TestFlowCount: F_ij counts 0..65535 and refuses beyond either end.
func TestFlowCount(t *testing.T) {
	m := mustNew(t, small(CreditPositive))
	s := mustOpen(t, m, 0)
	requireRefused(t, m.FlowEnd(s), ErrFlows)
	for range MaxFlows {
		require.NoError(t, m.FlowStart(s))
	}
	requireRefused(t, m.FlowStart(s), ErrFlows)
	require.NoError(t, m.Enqueue(s, 100))
	stamp, err := m.Dequeue(s, 100)
	require.NoError(t, err)
	require.Equal(t, Stamp{Flows: MaxFlows, Sent: 100}, stamp)
	require.NoError(t, m.FlowEnd(s))
	st, _ := m.State(s)
	require.Equal(t, uint16(MaxFlows-1), st.Flows)
}

// TestRoundRobin: three backlogged VOQs are served a, b, c, a, b, c; a
// VOQ that runs out of credit drops out and rejoins behind the others
// when credit arrives; one that becomes backlogged joins the tail.
func TestRoundRobin(t *testing.T) {
	c := small(CreditPositive)
	c.InitialCredit = 3000
	m := mustNew(t, c)
	a, b, d := mustOpen(t, m, 0), mustOpen(t, m, 1), mustOpen(t, m, 2)
	for _, s := range []Slot{a, b, d} {
		for range 4 {
			require.NoError(t, m.Enqueue(s, 1500))
		}
	}
	pkt := units.Bytes(1500) // serve dequeues packets of up to pkt bytes
	serve := func(n int) []Slot {
		var got []Slot
		for range n {
			s, ok := m.Next()
			if !ok {
				break
			}
			s2, _ := m.Next()
			require.Equal(t, s, s2, "Next changes nothing")
			st, _ := m.State(s)
			_, err := m.Dequeue(s, min(st.Queued, pkt))
			require.NoError(t, err)
			got = append(got, s)
		}
		return got
	}
	require.Equal(t, []Slot{a, b, d, a, b, d}, serve(6))
	require.Zero(t, m.Active()) // 3000 − 2·1500 = 0 each
	require.NoError(t, m.AddCredit(d, 1))
	require.NoError(t, m.AddCredit(a, 1))
	require.Equal(t, []Slot{d, a}, serve(5))
	require.NoError(t, m.AddCredit(b, 3000))
	require.NoError(t, m.AddCredit(a, 3000))
	require.Equal(t, []Slot{b, a}, serve(2))
	// Now a: empty, balance 1; b: one packet, balance 1500; ring [b].
	e := mustOpen(t, m, 3)
	require.NoError(t, m.Enqueue(e, 100))  // joins: [b e]
	require.NoError(t, m.Enqueue(a, 1500)) // balance 1 > 0, joins: [b e a]
	require.Equal(t, []Slot{b, e, a}, serve(5))
	// Dequeuing a VOQ that Next did not choose sends it to the tail too.
	require.NoError(t, m.AddCredit(b, 3000))
	require.NoError(t, m.AddCredit(a, 3000))
	for _, s := range []Slot{e, e, b, b, a, a} {
		require.NoError(t, m.Enqueue(s, 100))
	}
	ns, _ := m.Next() // ring [e b a]
	require.Equal(t, e, ns)
	_, err := m.Dequeue(b, 100) // ring [e a b]
	require.NoError(t, err)
	pkt = 100
	require.Equal(t, []Slot{e, a, b, e, a}, serve(6))
}

// TestCreditCoversHead: after a dequeue that leaves data the head length
// is unknown and the VOQ waits for SetHead; a dequeue must be of the head
// packet; a head longer than the balance waits for credit.
func TestCreditCoversHead(t *testing.T) {
	c := small(CreditCoversHead)
	c.InitialCredit = 2000
	m := mustNew(t, c)
	s := mustOpen(t, m, 0)
	require.NoError(t, m.Enqueue(s, 1200))
	require.NoError(t, m.Enqueue(s, 900))
	require.True(t, m.Eligible(s))
	_, err := m.Dequeue(s, 900) // not the head
	requireRefused(t, err, ErrNotEligible)
	_, err = m.Dequeue(s, 1200)
	require.NoError(t, err)
	require.False(t, m.Eligible(s)) // head unknown
	requireRefused(t, m.SetHead(s, 901), ErrUnderrun)
	requireRefused(t, m.SetHead(s, 0), ErrSize)
	require.NoError(t, m.SetHead(s, 900)) // balance 800 < 900
	require.False(t, m.Eligible(s))
	require.NoError(t, m.AddCredit(s, 99))
	require.False(t, m.Eligible(s))
	require.NoError(t, m.AddCredit(s, 1))
	require.True(t, m.Eligible(s))
	_, err = m.Dequeue(s, 900)
	require.NoError(t, err)
	st, _ := m.State(s)
	require.Equal(t, State{Key: 0, Sent: 2100}, st)
}

// TestRefusalsChangeNothing: every refused event leaves every register,
// the round robin and the totals as they were.
func TestRefusalsChangeNothing(t *testing.T) {
	c := small(CreditPositive)
	c.Slots = 2
	c.QueueLimit = 2500
	m := mustNew(t, c)
	a, b := mustOpen(t, m, 0), mustOpen(t, m, 1)
	require.NoError(t, m.Enqueue(a, 1500))
	require.NoError(t, m.Enqueue(b, 1000))
	require.NoError(t, m.AddCredit(b, units.Bytes(MaxCreditLimit)-PaperC0))
	snap := func() []cc.Register {
		r := m.AppendRegisters(nil)
		r = m.AppendSlotRegisters(r, a)
		return m.AppendSlotRegisters(r, b)
	}
	before := snap()
	for name, f := range map[string]func() error{
		"open full":      func() error { _, err := m.Open(2); return err },
		"open key":       func() error { _, err := m.Open(1 << 30); return err },
		"enqueue slot":   func() error { return m.Enqueue(7, 100) },
		"enqueue size 0": func() error { return m.Enqueue(a, 0) },
		"enqueue size":   func() error { return m.Enqueue(a, 1501) },
		"enqueue limit":  func() error { return m.Enqueue(a, 1001) },
		"dequeue under":  func() error { _, err := m.Dequeue(b, 1001); return err },
		"dequeue size":   func() error { _, err := m.Dequeue(b, -5); return err },
		"dequeue slot":   func() error { _, err := m.Dequeue(1<<31, 5); return err },
		"credit over":    func() error { return m.AddCredit(b, 1) },
		"credit size":    func() error { return m.AddCredit(a, -1) },
		"sethead under":  func() error { return m.SetHead(b, 1001) },
		"flow end":       func() error { return m.FlowEnd(a) },
		"close busy":     func() error { return m.Close(a) },
	} {
		err := f()
		require.Error(t, err, name)
		require.True(t, cc.Typed(err), name)
		require.Equal(t, before, snap(), name)
	}
	// a's balance: 10000 − 7·1500 = −500 after seven packets; the eighth
	// is refused and changes nothing either.
	for range 7 {
		_, err := m.Dequeue(a, 1500)
		require.NoError(t, err)
		require.NoError(t, m.Enqueue(a, 1500))
	}
	before = snap()
	_, err := m.Dequeue(a, 1500)
	requireRefused(t, err, ErrNotEligible)
	require.Equal(t, before, snap())
	st, _ := m.State(a)
	require.Equal(t, units.Bytes(-500), st.Credit)
}

// TestReset: Reset gives back the state after New.
func TestReset(t *testing.T) {
	m := mustNew(t, small(CreditPositive))
	fresh := m.AppendRegisters(nil)
	s := mustOpen(t, m, 3)
	require.NoError(t, m.Enqueue(s, 700))
	require.NoError(t, m.FlowStart(s))
	m.Reset()
	require.Equal(t, fresh, m.AppendRegisters(nil))
	_, ok := m.Lookup(3)
	require.False(t, ok)
	require.Equal(t, Slot(0), mustOpen(t, m, 2))
	_, ok = m.Next()
	require.False(t, ok)
}

// TestAppendRegisters: names, widths and values of both snapshots, every
// value fitting its width, no allocation when dst has room.
func TestAppendRegisters(t *testing.T) {
	m := mustNew(t, small(CreditPositive))
	s := mustOpen(t, m, 2)
	require.NoError(t, m.Enqueue(s, 1500))
	require.NoError(t, m.Enqueue(s, 700))
	require.NoError(t, m.FlowStart(s))
	_, err := m.Dequeue(s, 1500)
	require.NoError(t, err)
	got := map[string]int64{}
	regs := m.AppendSlotRegisters(m.AppendRegisters(nil), s)
	for _, r := range regs {
		require.True(t, r.Fits(), "%v", r)
		got[r.Name] = r.Int()
	}
	require.Len(t, regs, 13)
	// "queued" and "active" name a summary register and a slot register;
	// both hold 700 B and 1 here.
	require.Equal(t, map[string]int64{
		"open": 1, "active": 1, "rr_head": int64(s), "enqueued": 2200, "dequeued": 1500, "queued": 700,
		"key": 2, "sent": 1500, "credit": int64(PaperC0) - 1500, "flows": 1, "head": 0,
	}, got)
	require.Empty(t, m.AppendSlotRegisters(nil, 3))
	m2 := mustNew(t, small(CreditPositive))
	require.Equal(t, uint64(1<<32-1), m2.AppendRegisters(nil)[2].Value) // rr_head: none

	buf := make([]cc.Register, 0, 32)
	allocs := testing.AllocsPerRun(100, func() { buf = m.AppendSlotRegisters(m.AppendRegisters(buf[:0]), s) })
	require.Zero(t, allocs)
}

// TestNoAllocs: no per-event method allocates.
func TestNoAllocs(t *testing.T) {
	for _, mode := range []Eligibility{CreditPositive, CreditCoversHead, IgnoreCredit} {
		m := mustNew(t, small(mode))
		s := mustOpen(t, m, 1)
		allocs := testing.AllocsPerRun(200, func() {
			o, _ := m.Open(3)
			_ = m.FlowStart(s)
			_ = m.Enqueue(s, 1000)
			_ = m.Enqueue(s, 1000)
			_ = m.AddCredit(s, 2000)
			if n, ok := m.Next(); ok {
				_, _ = m.Dequeue(n, 1000)
			}
			_ = m.SetHead(s, 1000)
			_, _ = m.Dequeue(s, 1000)
			_ = m.FlowEnd(s)
			_ = m.Eligible(s)
			_, _ = m.State(s)
			_, _ = m.Lookup(1)
			_ = m.Close(o)
		})
		require.Zero(t, allocs, mode.String())
		st, _ := m.State(s)
		require.Zero(t, st.Queued, "every iteration succeeded")
	}
}
