package cp_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cc/cctest"
	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/units"
)

// tcdConfigs are the configurations the contract tests run: the preset
// at 40 and 100 Gb/s, judged at enqueue, max(Ton) = 0, and a step marker
// (Kmin = Kmax: every packet of a congested port marked).
func tcdConfigs() map[string]cp.TCDConfig {
	out := map[string]cp.TCDConfig{}
	out["dcqcn40"] = cp.TCDDCQCN(40 * units.Gbps)
	out["dcqcn100"] = cp.TCDDCQCN(100 * units.Gbps)
	c := cp.TCDDCQCN(40 * units.Gbps)
	c.Marker.MarkAt = cp.DCQCNMarkEnqueue
	out["enqueue"] = c
	c = cp.TCDDCQCN(40 * units.Gbps)
	c.MaxTOn = 0
	out["ton0"] = c
	c = cp.TCDDCQCN(40 * units.Gbps)
	c.Marker.Kmax = c.Marker.Kmin
	out["step"] = c
	return out
}

func TestTCDConformance(t *testing.T) {
	for name, cfg := range tcdConfigs() {
		t.Run(name, func(t *testing.T) {
			require.NoError(t, cctest.TestCP(func() (cc.CongestionPoint, error) { return cp.NewTCD(cfg) }, cctest.Options{}))
		})
	}
}

// TestTCDTransitionTable: every state, with and without an earlier pause,
// under each of the four inputs, goes where the table in TCD's doc (and
// docs/derivations.md) says: the table is written here as data, one row
// per input, the same next state from every state.
func TestTCDTransitionTable(t *testing.T) {
	cfg := cp.TCDDCQCN(40 * units.Gbps)
	k, ton := cfg.Threshold, cfg.MaxTOn
	const resumed = 1000 * units.Microsecond // OnSince of a port paused before
	type input struct {
		name   string
		paused bool
		q      units.Bytes
		at     units.Time // now, with OnSince = resumed
	}
	rows := []struct {
		in        input
		want      cp.TCDState // after an earlier pause
		wantFresh cp.TCDState // on a port never paused
	}{
		{input{"paused", true, k + 1, resumed + ton}, cp.TCDUndetermined, cp.TCDUndetermined},
		{input{"paused, short queue", true, 0, resumed + ton}, cp.TCDUndetermined, cp.TCDUndetermined},
		{input{"Q = K", false, k, resumed}, cp.TCDNonCongested, cp.TCDNonCongested},
		{input{"Q > K, ON < max(Ton)", false, k + 1, resumed + ton - 1}, cp.TCDUndetermined, cp.TCDCongested},
		{input{"Q > K, ON = max(Ton)", false, k + 1, resumed + ton}, cp.TCDCongested, cp.TCDCongested},
	}
	for _, from := range []cp.TCDState{cp.TCDNonCongested, cp.TCDUndetermined, cp.TCDCongested} {
		for _, row := range rows {
			for _, ever := range []bool{true, false} {
				r := cp.TCDRegs{State: from, EverPaused: ever, OnSince: resumed}
				if !ever {
					r.OnSince = 0
				}
				got := cfg.Next(r, row.in.at, cc.Queue{Len: row.in.q, Paused: row.in.paused})
				want := row.want
				if !ever {
					want = row.wantFresh
				}
				require.Equal(t, want, got.State, "from %v, %s, paused before %v", from, row.in.name, ever)
				require.Equal(t, row.in.paused, got.Paused)
				require.Equal(t, ever || row.in.paused, got.EverPaused)
				require.Equal(t, r.OnSince, got.OnSince, "no resume seen: ON keeps its start")
			}
		}
	}
	// A resume: the first event not paused after a paused one starts ON.
	r := cfg.Next(cp.TCDRegs{}, 5*units.Microsecond, cc.Queue{Len: k + 1, Paused: true})
	r = cfg.Next(r, 7*units.Microsecond, cc.Queue{Len: k + 1})
	require.Equal(t, 7*units.Microsecond, r.OnSince)
	require.Equal(t, cp.TCDUndetermined, r.State)
	r = cfg.Next(r, 7*units.Microsecond+ton, cc.Queue{Len: k + 1})
	require.Equal(t, cp.TCDCongested, r.State)
}

// TestTCDWithoutPFCIsDCQCN: with no pause ever reported, TCD marks exactly
// the packets DCQCN's marker marks (same seed, same events): the
// threshold is the marker's Kmin, below which DCQCN neither marks nor
// draws, and a port never paused is congested above it.
func TestTCDWithoutPFCIsDCQCN(t *testing.T) {
	for name, cfg := range tcdConfigs() {
		t.Run(name, func(t *testing.T) {
			tc, err := cp.NewTCD(cfg)
			require.NoError(t, err)
			dc, err := cp.NewDCQCN(cfg.Marker)
			require.NoError(t, err)
			rng := rand.New(rand.NewPCG(9, 9))
			a, b := cc.NewActions(1), cc.NewActions(1)
			var now units.Time
			for range 20000 {
				now += units.Time(rng.Int64N(int64(units.Microsecond)))
				q := cc.Queue{Len: units.Bytes(rng.Int64N(int64(2 * cfg.Marker.Kmax)))}
				a.Reset()
				b.Reset()
				if rng.IntN(2) == 0 {
					require.NoError(t, tc.Enqueue(now, nil, q, a))
					require.NoError(t, dc.Enqueue(now, nil, q, b))
				} else {
					require.NoError(t, tc.Dequeue(now, nil, q, a))
					require.NoError(t, dc.Dequeue(now, nil, q, b))
				}
				require.Equal(t, b.All(), a.All())
			}
			require.Equal(t, dc.State().Marked, tc.Marker().Marked)
			require.Positive(t, tc.Marker().Marked)
		})
	}
}

// TestTCDMarksOnlyWhenCongested: under random queues and pauses, a mark
// comes only from an event at the judging point that leaves the queue
// Congested; a Congested packet above Kmax is always marked; Undetermined
// and NonCongested packets take no draw (the marker judges only the
// Congested ones: its packet count is judged_c).
func TestTCDMarksOnlyWhenCongested(t *testing.T) {
	params := gopter.DefaultTestParametersWithSeed(77)
	params.MinSuccessfulTests = 50
	props := gopter.NewProperties(params)
	props.Property("marks only in the congested state", prop.ForAll(
		func(seed uint64, pausePct int, tonUs int64, enq bool) bool {
			cfg := cp.TCDDCQCN(40 * units.Gbps)
			cfg.MaxTOn = units.Time(tonUs) * units.Microsecond
			if enq {
				cfg.Marker.MarkAt = cp.DCQCNMarkEnqueue
			}
			tc, err := cp.NewTCD(cfg)
			if err != nil {
				return false
			}
			rng := rand.New(rand.NewPCG(seed, 1))
			act := cc.NewActions(1)
			var now units.Time
			paused := false
			for range 600 {
				now += units.Time(rng.Int64N(int64(5 * units.Microsecond)))
				if rng.IntN(100) < pausePct {
					paused = !paused
				}
				q := cc.Queue{Len: units.Bytes(rng.Int64N(int64(2 * cfg.Marker.Kmax))), Paused: paused}
				act.Reset()
				atEnq := rng.IntN(2) == 0
				if atEnq {
					err = tc.Enqueue(now, nil, q, act)
				} else {
					err = tc.Dequeue(now, nil, q, act)
				}
				if err != nil {
					return false
				}
				judged := atEnq == (cfg.Marker.MarkAt == cp.DCQCNMarkEnqueue)
				congested := tc.State() == cp.TCDCongested
				if act.Len() > 0 && (!judged || !congested) {
					return false
				}
				if judged && congested && q.Len > cfg.Marker.Kmax && act.Len() != 1 {
					return false
				}
			}
			return tc.Marker().Packets == tc.Regs().Judged[cp.TCDCongested]
		},
		gen.UInt64().WithLabel("seed"),
		gen.IntRange(0, 60).WithLabel("pause_toggle_pct"),
		gen.Int64Range(0, 50).WithLabel("max_ton_us"),
		gen.Bool().WithLabel("mark_at_enqueue"),
	))
	props.TestingRun(t)
}

// TestTCDRefusals: a refused event is typed and changes nothing.
func TestTCDRefusals(t *testing.T) {
	cfg := cp.TCDDCQCN(40 * units.Gbps)
	cfg.Marker.Kmax = cfg.Marker.Kmin // a step: above Kmin every judged packet is marked
	tc, err := cp.NewTCD(cfg)
	require.NoError(t, err)
	act := cc.NewActions(1)
	require.NoError(t, tc.Dequeue(10*units.Microsecond, nil, cc.Queue{Len: 1}, act))
	before := tc.AppendRegisters(nil)
	for name, err := range map[string]error{
		"late":  tc.Timer(units.Microsecond, act),
		"queue": tc.Dequeue(20*units.Microsecond, nil, cc.Queue{Len: -1}, act),
		"noact": tc.Dequeue(20*units.Microsecond, nil, cc.Queue{Len: cfg.Threshold + 1}, nil),
		"full":  tc.Dequeue(20*units.Microsecond, nil, cc.Queue{Len: cfg.Threshold + 1}, cc.NewActions(0)),
	} {
		require.Error(t, err, name)
		require.True(t, cc.Typed(err), name)
		require.True(t, slices.Equal(before, tc.AppendRegisters(nil)), name)
	}
	// Enqueue does not judge (MarkAt dequeue): a nil act is fine.
	require.NoError(t, tc.Enqueue(20*units.Microsecond, nil, cc.Queue{Len: cfg.Threshold + 1}, nil))
}

func TestTCDValidate(t *testing.T) {
	for field, mut := range map[string]func(*cp.TCDConfig){
		"Threshold": func(c *cp.TCDConfig) { c.Threshold = -1 },
		"MaxTOn":    func(c *cp.TCDConfig) { c.MaxTOn = cp.TCDMaxTime + 1 },
		"Kmax":      func(c *cp.TCDConfig) { c.Marker.Kmax = c.Marker.Kmin - 1 },
	} {
		c := cp.TCDDCQCN(40 * units.Gbps)
		mut(&c)
		_, err := cp.NewTCD(c)
		var ce *cc.ConfigError
		require.ErrorAs(t, err, &ce, field)
		require.Equal(t, field, ce.Field)
	}
}

// FuzzTCD drives a congestion point (judged at dequeue or enqueue, max(Ton)
// from the first byte) with cctest.FromBytes events: besides fuzzDrive's
// rules, every decision is one mark, at the judging point, of a queue left
// Congested.
func FuzzTCD(f *testing.F) {
	f.Add(append([]byte{0}, make([]byte, 64)...))
	f.Add(append([]byte{0x11}, slices.Repeat([]byte{1, 2, 0, 10, 0, 0, 0, 3, 0, 0, 0xff, 0x30, 0, 0, 0, 0}, 8)...))
	f.Add(append([]byte{0x20}, slices.Repeat([]byte{0, 0, 0x10, 0, 0, 4, 5, 0, 0, 0, 0xff, 0xff, 0, 0, 0, 0, 1, 0, 0x10, 0, 0, 4, 5, 0, 0, 0, 0xff, 0xff, 0, 0, 0, 0}, 4)...))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		cfg := cp.TCDDCQCN(25 * units.Gbps)
		cfg.Marker.MarkAt = cp.DCQCNMarkAt(data[0] & 1)
		cfg.MaxTOn = units.Time(data[0]>>4) * 5 * units.Microsecond
		tc, err := cp.NewTCD(cfg)
		if err != nil {
			t.Fatal(err)
		}
		fuzzDrive(t, tc, cctest.FromBytes(data[1:], cc.RoleCP), func(ev *cctest.Event, act *cc.Actions) {
			if act.Len() == 0 {
				return
			}
			at := cp.DCQCNMarkEnqueue
			if ev.Kind == cc.EventDequeue {
				at = cp.DCQCNMarkDequeue
			}
			if act.Len() != 1 || act.At(0).Kind != cc.ActionMarkCE || ev.Kind == cc.EventTimer || at != cfg.Marker.MarkAt || tc.State() != cp.TCDCongested {
				t.Fatalf("%v: decided %v in state %v", ev, act.All(), tc.State())
			}
		})
	})
}
