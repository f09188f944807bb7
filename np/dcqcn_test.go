package np

import (
	"encoding/binary"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

const dcqcnUs = units.Microsecond

// dcqcnPkt is one arriving data packet in a test scenario.
type dcqcnPkt struct {
	at units.Time
	ce bool
}

// dcqcnRun drives n with the packets in order, calling onTimer at every
// deadline that falls before (or at) the next packet and after the last one,
// and returns the times of the CNPs sent.
func dcqcnRun(t *testing.T, n *DCQCN, pkts []dcqcnPkt) []units.Time {
	t.Helper()
	var cnps []units.Time
	fire := func(until units.Time) {
		for d := n.NextDeadline(); d <= until; d = n.NextDeadline() {
			c, err := n.onTimer(d)
			require.NoError(t, err)
			require.True(t, c, "a due deadline sends its CNP")
			cnps = append(cnps, d)
		}
	}
	for _, p := range pkts {
		fire(p.at)
		deferred, c, err := n.onPacket(p.at, p.ce)
		require.NoError(t, err)
		require.False(t, deferred, "the timer ran at every deadline")
		if c {
			cnps = append(cnps, p.at)
		}
	}
	fire(units.MaxTime - 1)
	return cnps
}

// The paper's slot rule on a hand-worked sequence, N = 50 µs (survey section
// 4.1.2): the first mark sends at once and opens [0, 50); marks at 10 and 20
// share one CNP at 50, which opens [50, 100); the mark at 70 is inside it, so
// its CNP waits for 100, opening [100, 150); the mark at 130 waits for 150;
// [150, 200) passes with no mark, so the mark at 300 finds the flow quiet and
// sends at once. Unmarked packets never send.
func TestDCQCNSlotWorkedExample(t *testing.T) {
	n, err := NewDCQCN(DCQCNPaper())
	require.NoError(t, err)
	got := dcqcnRun(t, n, []dcqcnPkt{
		{0, true}, {5 * dcqcnUs, false}, {10 * dcqcnUs, true}, {20 * dcqcnUs, true},
		{70 * dcqcnUs, true}, {130 * dcqcnUs, true}, {260 * dcqcnUs, false}, {300 * dcqcnUs, true},
	})
	require.Equal(t, []units.Time{0, 50 * dcqcnUs, 100 * dcqcnUs, 150 * dcqcnUs, 300 * dcqcnUs}, got)
	s := n.State()
	require.Equal(t, uint64(8), s.Packets)
	require.Equal(t, uint64(6), s.Marked)
	require.Equal(t, uint64(5), s.CNPs)
}

// ConnectX's min_time_between_cnps = 4 µs: marks at 0, 1, 3.9, 4, 7, 8.5 µs
// send at 0, 4 and 8.5 (7 is 3 µs after 4, ignored; 8.5 is 4.5 µs after 4).
// Nothing is deferred.
func TestDCQCNMinIntervalWorkedExample(t *testing.T) {
	n, err := NewDCQCN(DCQCNConnectX())
	require.NoError(t, err)
	ns := units.Nanosecond
	got := dcqcnRun(t, n, []dcqcnPkt{
		{0, true}, {1000 * ns, true}, {3900 * ns, true}, {4000 * ns, true}, {7000 * ns, true}, {8500 * ns, true},
	})
	require.Equal(t, []units.Time{0, 4000 * ns, 8500 * ns}, got)
	require.Equal(t, uint64(3), n.State().Suppressed)
	require.Equal(t, units.MaxTime, n.NextDeadline())
}

// A caller that misses the deadline gets the pending CNP from its next
// call, as at the deadline (cc's rule 4): the new slot starts at the
// deadline, as if the timer had run on time. Marks at 0 and 10 µs (N = 50
// µs): CNP at 0, one deferred to 50. No timer at 50; a mark at 80 first
// sends the deferred CNP as at 50, which opens [50, 100), and its own mark
// falls in that slot: deferred to 100. A timer at 140 sends it as at 100,
// opening [100, 150); a mark at 160 finds the flow quiet and sends at
// once, opening [160, 210); a mark at 170 is deferred to 210, and a mark at
// 400 sends that one (as at 210) and, [210, 260) being over, its own.
func TestDCQCNSlotLateCaller(t *testing.T) {
	n, err := NewDCQCN(DCQCNPaper())
	require.NoError(t, err)
	step := func(at units.Time, wantDeferred, wantOwn bool, wantNext units.Time) {
		t.Helper()
		d, c, err := n.onPacket(at, true)
		require.NoError(t, err)
		require.Equal(t, wantDeferred, d, "at %v: the deferred CNP", at)
		require.Equal(t, wantOwn, c, "at %v: a CNP of its own", at)
		require.Equal(t, wantNext, n.NextDeadline(), "at %v", at)
	}
	step(0, false, true, units.MaxTime)
	step(10*dcqcnUs, false, false, 50*dcqcnUs)
	step(80*dcqcnUs, true, false, 100*dcqcnUs)
	require.Equal(t, 50*dcqcnUs, n.State().LastCNP)
	c, err := n.onTimer(99 * dcqcnUs)
	require.NoError(t, err)
	require.False(t, c, "early onTimer does nothing")
	c, err = n.onTimer(140 * dcqcnUs)
	require.NoError(t, err)
	require.True(t, c)
	require.Equal(t, 100*dcqcnUs, n.State().LastCNP)
	require.Equal(t, 150*dcqcnUs, n.State().SlotEnd)
	step(160*dcqcnUs, false, true, units.MaxTime)
	step(170*dcqcnUs, false, false, 210*dcqcnUs)
	step(400*dcqcnUs, true, true, units.MaxTime)
	require.Equal(t, 400*dcqcnUs, n.State().LastCNP)
	require.Equal(t, uint64(6), n.State().CNPs)
}

func TestDCQCNNPBadInput(t *testing.T) {
	for _, cfg := range []DCQCNConfig{
		{Mode: 0, Interval: 1},
		{Mode: 3, Interval: 1},
		{Mode: DCQCNSlot, Interval: -1},
		{Mode: DCQCNSlot, Interval: DCQCNMaxInterval + 1},
	} {
		_, err := NewDCQCN(cfg)
		require.ErrorIs(t, err, cc.ErrConfig, "%+v", cfg)
	}
	n, err := NewDCQCN(DCQCNPaper())
	require.NoError(t, err)
	_, _, err = n.onPacket(100, true)
	require.NoError(t, err)
	_, _, err = n.onPacket(120, true)
	require.NoError(t, err)
	before := n.State()
	_, _, err = n.onPacket(99, true)
	var to *cc.TimeOrderError
	require.ErrorAs(t, err, &to)
	require.Equal(t, "Receive", to.Event)
	require.Equal(t, units.Time(99), to.Now)
	require.Equal(t, units.Time(120), to.Last)
	_, err = n.onTimer(50)
	require.ErrorIs(t, err, cc.ErrTimeOrder)
	require.Equal(t, before, n.State())
	require.Equal(t, units.Time(120), n.Last())
	require.Equal(t, "slot", DCQCNSlot.String())
	require.Equal(t, "min-interval", DCQCNMinInterval.String())
	require.Equal(t, "DCQCNMode(9)", DCQCNMode(9).String())
}

// dcqcnDecode turns generated words into a packet sequence: each word gives a
// gap (0..2·interval+1 ps) and a CE bit.
func dcqcnDecode(words []uint64, interval units.Time) []dcqcnPkt {
	pkts := make([]dcqcnPkt, 0, len(words))
	now := units.Time(0)
	for _, w := range words {
		now += units.Time(w>>1) % (2*interval + 2)
		pkts = append(pkts, dcqcnPkt{at: now, ce: w&1 == 1})
	}
	return pkts
}

// Properties over random packet sequences, both modes, onTimer called on
// time:
//   - two CNPs are never closer than Interval;
//   - every CNP answers a mark: there is a marked packet after the previous
//     CNP and at or before this one;
//   - in slot mode every mark is answered within Interval: some CNP falls in
//     [t, t + Interval].
func TestDCQCNNPProperties(t *testing.T) {
	params := gopter.DefaultTestParametersWithSeed(2024)
	params.MinSuccessfulTests = 300
	props := gopter.NewProperties(params)
	check := func(mode DCQCNMode) func(interval int64, words []uint64) bool {
		return func(interval int64, words []uint64) bool {
			iv := units.Time(interval)
			n, err := NewDCQCN(DCQCNConfig{Mode: mode, Interval: iv})
			if err != nil {
				return false
			}
			pkts := dcqcnDecode(words, iv)
			cnps := dcqcnRun(t, n, pkts)
			for i := 1; i < len(cnps); i++ {
				if cnps[i]-cnps[i-1] < iv {
					return false
				}
			}
			prev := units.Time(-1)
			for _, c := range cnps {
				justified := false
				for _, p := range pkts {
					if p.ce && p.at > prev && p.at <= c {
						justified = true
					}
				}
				// The first CNP's mark may share its timestamp with a
				// previous CNP only when Interval = 0.
				if !justified {
					return false
				}
				prev = c
			}
			if mode == DCQCNSlot {
				for _, p := range pkts {
					if !p.ce {
						continue
					}
					answered := false
					for _, c := range cnps {
						if c >= p.at && c <= p.at+iv {
							answered = true
						}
					}
					if !answered {
						return false
					}
				}
			}
			return true
		}
	}
	for _, mode := range []DCQCNMode{DCQCNSlot, DCQCNMinInterval} {
		props.Property(mode.String(), prop.ForAll(check(mode),
			gen.Int64Range(1, int64(100*dcqcnUs)).WithLabel("interval"),
			gen.SliceOfN(60, gen.UInt64Range(0, 1<<62)).WithLabel("packets"),
		))
	}
	props.TestingRun(t)
}

// FuzzDCQCNNP drives the CNP path with arbitrary interleavings of packets
// and timer calls at arbitrary times, backwards included, deadlines often
// passed: no panic; a backwards call is an error that changes nothing;
// CNPs (a deferred one at its deadline, the others at their event's time)
// never closer than Interval.
func FuzzDCQCNNP(f *testing.F) {
	f.Add(uint8(1), int64(50000000), []byte{1, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0x40, 0, 0, 0, 0, 0, 0, 0}) // slot: mark, then late mark
	f.Add(uint8(2), int64(4000000), []byte{1, 0x10, 0, 0, 0, 0, 0, 0, 0})                             // min-interval, one mark
	f.Add(uint8(1), int64(0), []byte{1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0})           // interval 0: every mark
	f.Add(uint8(1), int64(1000), []byte{1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})           // time going backwards
	f.Add(uint8(7), int64(-5), []byte{})                                                              // invalid config
	f.Fuzz(func(t *testing.T, mode uint8, interval int64, ops []byte) {
		cfg := DCQCNConfig{Mode: DCQCNMode(mode), Interval: units.Time(interval)}
		n, err := NewDCQCN(cfg)
		if err != nil {
			require.Error(t, cfg.Validate())
			return
		}
		now := units.Time(0)
		last := units.Time(0)
		sent := false
		for steps := 0; len(ops) >= 9 && steps < 512; steps++ { // bounded: keep each input fast
			op := ops[0]
			delta := int64(binary.LittleEndian.Uint64(ops[1:9]))
			ops = ops[9:]
			next := now + units.Time(delta>>20) // ±2^43 ps steps, backwards allowed
			before := n.State()
			due := n.NextDeadline()
			var deferred, c bool
			if op&1 == 1 {
				deferred, c, err = n.onPacket(next, op&2 == 2)
			} else {
				deferred, err = n.onTimer(next)
			}
			if next < now { // negative times included: time starts at 0
				require.ErrorIs(t, err, cc.ErrTimeOrder)
				require.Equal(t, before, n.State())
				continue
			}
			require.NoError(t, err)
			now = next
			cnp := func(at units.Time) {
				if sent {
					require.GreaterOrEqual(t, at-last, cfg.Interval)
				}
				sent, last = true, at
			}
			if deferred {
				require.LessOrEqual(t, due, now)
				cnp(due)
			}
			if c {
				cnp(now)
			}
			if n.NextDeadline() != units.MaxTime {
				require.Equal(t, DCQCNSlot, cfg.Mode, "only slot mode defers")
			}
		}
	})
}

func TestDCQCNNPNoAllocs(t *testing.T) {
	for _, cfg := range []DCQCNConfig{DCQCNPaper(), DCQCNConnectX()} {
		n, err := NewDCQCN(cfg)
		require.NoError(t, err)
		now := units.Time(0)
		require.Zero(t, testing.AllocsPerRun(1000, func() {
			now += units.Microsecond
			_, _, _ = n.onPacket(now, true)
			if d := n.NextDeadline(); d <= now+units.Microsecond {
				now = d
				_, _ = n.onTimer(d)
			}
		}))
	}
}

// BenchmarkDCQCNNPOnPacket measures one marked packet (slot mode, a packet
// every 100 ns, so most marks are merged into a pending CNP).
func BenchmarkDCQCNNPOnPacket(b *testing.B) {
	n, _ := NewDCQCN(DCQCNPaper())
	now := units.Time(0)
	b.ReportAllocs()
	for b.Loop() {
		now += 100 * units.Nanosecond
		_, _, _ = n.onPacket(now, true)
	}
}
