package window

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/units"
)

// benchUs is a fixed set of normalised inflights covering both branches.
func benchUs() []fixedpoint.UQ32_32 {
	rng := rand.New(rand.NewPCG(7, 8))
	us := make([]fixedpoint.UQ32_32, 1024)
	for i := range us {
		us[i] = randomU(rng)
	}
	return us
}

// BenchmarkComputeWind measures the window law (Algorithm 1 lines 11–20)
// with the reciprocal table and with the native divide, in one binary.
func BenchmarkComputeWind(b *testing.B) {
	us := benchUs()
	for _, mode := range []struct {
		name   string
		native bool
	}{{"table", false}, {"native", true}} {
		b.Run(mode.name, func(b *testing.B) {
			c := paperSim()
			c.MaxStage = 0 // every update takes the MI branch, the one that divides
			c.NativeDivision = mode.native
			l, err := NewLaw(c)
			require.NoError(b, err)
			ref := l.InitialReference()
			b.ReportAllocs()
			var sink units.Bytes
			for i := 0; b.Loop(); i++ {
				sink += l.ComputeWind(&ref, us[i&1023]|1, i&7 == 0)
			}
			_ = sink
		})
	}
}

// BenchmarkDividerQuo isolates one division: table versus native.
func BenchmarkDividerQuo(b *testing.B) {
	for _, mode := range []struct {
		name   string
		native bool
	}{{"table", false}, {"native", true}} {
		b.Run(mode.name, func(b *testing.B) {
			d := NewDivider(nil, mode.native)
			b.ReportAllocs()
			var sink uint64
			for i := uint64(0); b.Loop(); i++ {
				sink += d.Quo(0x0123456789abcdef^i, 3000000+i&0xffffff)
			}
			_ = sink
		})
	}
}

// BenchmarkWindowOnAck measures NewAck for a given U (lines 21–27).
func BenchmarkWindowOnAck(b *testing.B) {
	us := benchUs()
	w, err := New(paperSim())
	require.NoError(b, err)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		seq := uint64(i) * 1000
		w.OnAck(us[i&1023], seq, seq+100000)
		_ = w.CanSend(units.Bytes(i & 0xffff))
	}
}

// TestNoAllocs: nothing on the per-ACK path allocates.
func TestNoAllocs(t *testing.T) {
	us := benchUs()
	for _, native := range []bool{false, true} {
		c := paperSim()
		c.NativeDivision = native
		w, err := New(c)
		require.NoError(t, err)
		l := w.Law()
		ref := l.InitialReference()
		d := l.Divider()
		i := 0
		allocs := testing.AllocsPerRun(1000, func() {
			i++
			u := us[i&1023]
			l.ComputeWind(&ref, u, i&1 == 0)
			w.OnAck(u, uint64(i), uint64(i+10))
			w.UpdateHops(us[i&1000:i&1000+5], 0b10101, i&3 == 0, uint64(i))
			_ = w.CanSend(units.Bytes(i))
			_ = w.Rate()
			_ = d.Quo(uint64(i)<<40, uint64(i)<<20|1)
			_ = d.Quo128(uint64(i), uint64(i)<<3, uint64(i)<<30|7)
			_ = w.State()
		})
		require.Zero(t, allocs, "native=%v", native)
	}
}

// BenchmarkQuoLanes times five divisions of HPCC's per-hop form (a 128-bit
// numerator over Δts of about 8 µs in ps) through a Quo128 per lane and
// through the lanes form.
func BenchmarkQuoLanes(b *testing.B) {
	d := NewDivider(nil, false)
	var l Lanes
	for i := range 5 {
		l.Hi[i], l.Lo[i], l.N[i] = 1, uint64(i)<<40, 8192000+uint64(i)*1000
	}
	b.Run("quo128", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for i := range 5 {
				l.Q[i] = d.Quo128(l.Hi[i], l.Lo[i], l.N[i])
			}
		}
	})
	b.Run("lanes", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			d.QuoLanes(&l, 5)
		}
	})
}
