package rp

import (
	"reflect"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	inttel "github.com/hwcc/hwcc/int"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/window"
)

// TestHPCCTablesShared: HPCCs of equal configurations share one set of
// tables, also through two Codecs of one Config and a nil Codec (the
// default); a configuration that differs in T, in the window law or in the
// Codec gets its own. Sharing changes nothing an HPCC computes: a flow run
// beside others that share its tables, and after a clear of the cache,
// ends in the registers of a flow run alone.
func TestHPCCTablesShared(t *testing.T) {
	c1, err := inttel.NewCodec(inttel.DefaultConfig())
	require.NoError(t, err)
	c2, err := inttel.NewCodec(inttel.DefaultConfig())
	require.NoError(t, err)
	build := func(mod func(*HPCCConfig)) *HPCC {
		c := HPCCPaperSim(100 * units.Gbps)
		mod(&c)
		h, err := NewHPCC(c)
		require.NoError(t, err)
		return h
	}
	a := build(func(c *HPCCConfig) { c.Codec = c1 })
	b := build(func(c *HPCCConfig) { c.Codec = c2; c.MultiRate = true; c.InitialU = HPCCInitialUOne })
	d := build(func(*HPCCConfig) {})
	require.Same(t, a.tab, b.tab)
	require.Same(t, a.tab, d.tab)
	require.Same(t, c1, a.Config().Codec, "Config keeps the caller's Codec")
	require.Same(t, c2, b.Config().Codec)
	require.True(t, b.Config().MultiRate && b.Config().InitialU == HPCCInitialUOne && !a.Config().MultiRate)

	cfg := inttel.DefaultConfig()
	cfg.TSUnit = 2 * units.Nanosecond
	c3, err := inttel.NewCodec(cfg)
	require.NoError(t, err)
	for name, mod := range map[string]func(*HPCCConfig){
		"T":     func(c *HPCCConfig) { c.Window.T++ },
		"AI":    func(c *HPCCConfig) { c.Window.AI++ },
		"Codec": func(c *HPCCConfig) { c.Codec = c3 },
	} {
		require.NotSame(t, a.tab, build(mod).tab, name)
	}

	// The same ACKs into a flow alone and into flows that share tables,
	// with the cache cleared between their constructions.
	evs := hpccBenchTrace(t)
	run := func(h *HPCC) []cc.Register {
		for i := range 300 {
			require.NoError(t, hpccBenchAck(h, evs, i))
		}
		return h.AppendRegisters(nil)
	}
	want := run(build(func(*HPCCConfig) {}))
	hpccTableCache.Lock()
	hpccTableCache.m = nil
	hpccTableCache.Unlock()
	x, y := build(func(*HPCCConfig) {}), build(func(*HPCCConfig) {})
	require.Same(t, x.tab, y.tab)
	require.NotSame(t, a.tab, x.tab)
	require.Equal(t, want, run(x))
	require.Equal(t, want, run(y))
}

// TestHPCCTablesConcurrent builds and runs HPCCs of a few configurations on
// several goroutines at once (run it with -race): each configuration's
// HPCCs share one set of tables and compute what a flow alone computes.
func TestHPCCTablesConcurrent(t *testing.T) {
	evs := hpccBenchTrace(t)
	cfgs := make([]HPCCConfig, 3)
	want := make([][]cc.Register, len(cfgs))
	for k := range cfgs {
		cfgs[k] = HPCCPaperSim(100 * units.Gbps)
		cfgs[k].Window.T += units.Time(k) * units.Nanosecond
		h, err := NewHPCC(cfgs[k])
		require.NoError(t, err)
		for i := range 200 {
			require.NoError(t, hpccBenchAck(h, evs, i))
		}
		want[k] = h.AppendRegisters(nil)
	}
	const workers = 8
	got := make([][]*HPCC, workers)
	var wg sync.WaitGroup
	for g := range workers {
		wg.Go(func() {
			for k := range 30 {
				h, err := NewHPCC(cfgs[(g+k)%len(cfgs)])
				if err != nil {
					t.Error(err)
					return
				}
				for i := range 200 {
					if err := hpccBenchAck(h, evs, i); err != nil {
						t.Error(err)
						return
					}
				}
				got[g] = append(got[g], h)
			}
		})
	}
	wg.Wait()
	tabs := map[units.Time]*hpccTables{}
	for g := range got {
		for k, h := range got[g] {
			c := cfgs[(g+k)%len(cfgs)]
			require.Equal(t, want[(g+k)%len(cfgs)], h.AppendRegisters(nil))
			if tab, ok := tabs[c.Window.T]; ok {
				require.Same(t, tab, h.tab)
			}
			tabs[c.Window.T] = h.tab
		}
	}
}

// TestHPCCTablesBounded: the cache keeps at most hpccTableCacheCap
// configurations, however many are built.
func TestHPCCTablesBounded(t *testing.T) {
	for k := range 3 * hpccTableCacheCap {
		c := HPCCPaperSim(100 * units.Gbps)
		c.Window.T += units.Time(k) * units.Nanosecond
		_, err := NewHPCC(c)
		require.NoError(t, err)
		hpccTableCache.Lock()
		n := len(hpccTableCache.m)
		hpccTableCache.Unlock()
		require.LessOrEqual(t, n, hpccTableCacheCap)
	}
}

// TestHPCCLayout: what an ACK reads and writes of its flow's HPCC, the
// window's registers (from its law pointer to its end), the part's own
// and the records of the path's hops, is one run that starts on a 64-byte
// boundary: 104 + 24·nHop bytes, 2 cache lines for 1 hop and 4 for 5. The
// Go allocator places an object of 512 bytes or more on a 64-byte boundary
// (its size classes from 512 up are multiples of 64), which the HPCC is.
func TestHPCCLayout(t *testing.T) {
	var h HPCC
	lawOff, ok := reflect.TypeFor[window.Window]().FieldByName("law")
	require.True(t, ok)
	start := unsafe.Offsetof(h.win) + lawOff.Offset
	require.Equal(t, unsafe.Offsetof(h.win)+unsafe.Sizeof(h.win), unsafe.Offsetof(h.tab),
		"the part's per-ACK fields follow the window's registers")
	require.Equal(t, unsafe.Offsetof(h.initialU)+1, unsafe.Offsetof(h.hops),
		"the hops' records follow the part's per-ACK fields")
	require.Zero(t, start%64, "the per-ACK run starts at byte %d", start)
	require.GreaterOrEqual(t, unsafe.Sizeof(h), uintptr(512))
	require.LessOrEqual(t, unsafe.Sizeof(h), uintptr(896))
	for n, lines := range map[uintptr]uintptr{1: 2, 2: 3, 3: 3, 4: 4, 5: 4} {
		end := unsafe.Offsetof(h.hops) + n*unsafe.Sizeof(h.hops[0])
		require.Equal(t, 104+24*n, end-start)
		require.Equal(t, lines, (end-start+63)/64, "%d hops", n)
	}
}
