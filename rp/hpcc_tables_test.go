package rp

import (
	"reflect"
	"runtime"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/hwtables"
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
// and the records of the path's hops, is one run of 104 + 24·nHop bytes,
// and in HPCCs built by NewHPCC it starts on a 64-byte boundary: 2 cache
// lines for 1 hop, 4 for 5. The runtime puts an object of more than 512
// bytes that holds pointers 8 bytes into a 64-byte aligned slot, after its
// header (HPCC's Memory), so the run's offset in the HPCC is 56 mod 64,
// and the HPCC with its header fills an 896-byte slot.
func TestHPCCLayout(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("the sizes and offsets here are a 64-bit platform's")
	}
	var h HPCC
	lawOff, ok := reflect.TypeFor[window.Window]().FieldByName("law")
	require.True(t, ok)
	start := unsafe.Offsetof(h.win) + lawOff.Offset
	require.Equal(t, unsafe.Offsetof(h.win)+unsafe.Sizeof(h.win), unsafe.Offsetof(h.tab),
		"the part's per-ACK fields follow the window's registers")
	require.Equal(t, unsafe.Offsetof(h.initialU)+1, unsafe.Offsetof(h.hops),
		"the hops' records follow the part's per-ACK fields")
	require.Equal(t, uintptr(56), start%64, "the per-ACK run starts at byte %d", start)
	require.Equal(t, uintptr(888), unsafe.Sizeof(h), "888 bytes and an 8-byte header: an 896-byte slot")

	// HPCCs built by NewHPCC, of several configurations, with other
	// allocations between them.
	var keep []any
	for k := range 64 {
		c := HPCCPaperSim(100 * units.Gbps)
		c.MultiRate = k%2 == 1
		c.InitialU = HPCCInitialU(k % 3)
		p, err := NewHPCC(c)
		require.NoError(t, err)
		keep = append(keep, p, make([]byte, 24*k+1), new([3]*int))
		run := uintptr(unsafe.Pointer(&p.win)) + lawOff.Offset
		require.Zero(t, run%64, "HPCC %d: the per-ACK run at %#x", k, run)
		for n, lines := range map[uintptr]uintptr{1: 2, 2: 3, 3: 3, 4: 4, 5: 4} {
			end := uintptr(unsafe.Pointer(&p.hops[0])) + n*unsafe.Sizeof(p.hops[0])
			require.Equal(t, 104+24*n, end-run)
			require.Equal(t, lines, (end-1)/64-run/64+1, "HPCC %d, %d hops", k, n)
		}
	}
	runtime.KeepAlive(keep)
}

// TestHPCCTablesLayout: in tables built on the heap, each speed code's
// constants lie in one cache line, and so do the scalars an ACK reads (law
// to maxHops).
func TestHPCCTablesLayout(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("the sizes and offsets here are a 64-bit platform's")
	}
	codec, err := inttel.NewCodec(inttel.DefaultConfig())
	require.NoError(t, err)
	var keep []any
	for k := range 16 {
		c := HPCCPaperSim(100 * units.Gbps)
		c.Window.T += units.Time(k) * units.Nanosecond
		tab, err := newHPCCTables(c.Window, codec)
		require.NoError(t, err)
		keep = append(keep, tab, make([]byte, 40*k+1))
		for code := range tab.speed {
			a := uintptr(unsafe.Pointer(&tab.speed[code]))
			require.Equal(t, a/64, (a+unsafe.Sizeof(tab.speed[code])-1)/64, "tables %d, speed code %d at %#x", k, code, a)
		}
		first, last := uintptr(unsafe.Pointer(&tab.law)), uintptr(unsafe.Pointer(&tab.maxHops))
		require.Equal(t, first/64, last/64, "tables %d: the scalars at %#x..%#x", k, first, last)
	}
	runtime.KeepAlive(keep)
}

// TestHPCCTablesKey: configurations that differ only in one field of the
// tables' key (hpccTablesKey: the window's Config, field by field, and the
// Codec's speeds, units and MaxHops) do not share tables, and equal ones
// do. Each field has a case here, and the test fails when the key or
// window.Config gains a field without one, so that the key keeps up with
// what newHPCCTables reads. (Two keys may still give equal tables, as
// Window.Max = 0 and Window.Max = Init do: such configurations merely do
// not share.)
func TestHPCCTablesKey(t *testing.T) {
	codec := func(mod func(*inttel.Config)) *inttel.Codec {
		c := inttel.DefaultConfig()
		mod(&c)
		k, err := inttel.NewCodec(c)
		require.NoError(t, err)
		return k
	}
	cases := map[string]func(*HPCCConfig){
		"T":              func(c *HPCCConfig) { c.Window.T++ },
		"Init":           func(c *HPCCConfig) { c.Window.Init-- },
		"Min":            func(c *HPCCConfig) { c.Window.Min++ },
		"Max":            func(c *HPCCConfig) { c.Window.Max++ },
		"AI":             func(c *HPCCConfig) { c.Window.AI++ },
		"Eta":            func(c *HPCCConfig) { c.Window.Eta-- },
		"MaxStage":       func(c *HPCCConfig) { c.Window.MaxStage-- },
		"Table":          func(c *HPCCConfig) { c.Window.Table = hwtables.DefaultCompact() },
		"NativeDivision": func(c *HPCCConfig) { c.Window.NativeDivision = true },
		"speeds": func(c *HPCCConfig) {
			c.Codec = codec(func(k *inttel.Config) { k.Speeds[len(k.Speeds)-1].Rate *= 2 })
		},
		"txUnit":  func(c *HPCCConfig) { c.Codec = codec(func(k *inttel.Config) { k.TxBytesUnit *= 2 }) },
		"qUnit":   func(c *HPCCConfig) { c.Codec = codec(func(k *inttel.Config) { k.QLenUnit *= 2 }) },
		"tsUnit":  func(c *HPCCConfig) { c.Codec = codec(func(k *inttel.Config) { k.TSUnit *= 2 }) },
		"maxHops": func(c *HPCCConfig) { c.Codec = codec(func(k *inttel.Config) { k.MaxHops-- }) },
	}
	fields := map[string]bool{}
	for f := range reflect.TypeFor[window.Config]().Fields() {
		fields[f.Name] = true
	}
	for f := range reflect.TypeFor[hpccTablesKey]().Fields() {
		if f.Name != "window" {
			fields[f.Name] = true
		}
	}
	for name := range cases {
		require.True(t, fields[name], "case %s is no field of the key", name)
	}
	for name := range fields {
		require.Contains(t, cases, name, "the key's field %s has no case", name)
	}

	build := func(mod func(*HPCCConfig)) *HPCC {
		c := HPCCPaperSim(100 * units.Gbps)
		c.Window.Table = hwtables.DefaultReciprocal()
		c.Codec = codec(func(*inttel.Config) {})
		mod(&c)
		h, err := NewHPCC(c)
		require.NoError(t, err)
		return h
	}
	none := func(*HPCCConfig) {}
	base := build(none)
	require.Same(t, base.tab, build(none).tab, "equal configurations (two Codecs of one Config)")
	for name, mod := range cases {
		a, b := build(mod), build(mod)
		require.NotSame(t, base.tab, a.tab, name)
		require.Same(t, a.tab, b.tab, name)
	}
}
