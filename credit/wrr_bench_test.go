package credit_test

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/credit"
)

// wrrBusy returns a scheduler with n eligible entries of weights 1..8.
func wrrBusy(t testing.TB, n int) *credit.WRR {
	w := newWRR(t, credit.WRRConfig{Entries: n, Credit: 1000, C0: 1<<31 - 1})
	for i := range n {
		_, err := w.Observe(0, i, 1<<30, uint16(1+i%8))
		require.NoError(t, err)
	}
	return w
}

// TestWRRNoAllocs: Grant, Observe and Remove allocate nothing.
func TestWRRNoAllocs(t *testing.T) {
	w := wrrBusy(t, 64)
	i := 0
	allocs := testing.AllocsPerRun(1000, func() {
		i++
		_, _, _ = w.Grant(0)
		_, _ = w.Observe(0, i%64, uint32(1<<30+i*1000), uint16(i%9))
		if i%10 == 0 {
			_ = w.Remove(0, i%64)
		}
		_, _ = w.Entry(i % 64)
	})
	require.Zero(t, allocs)
}

func BenchmarkWRRGrant(b *testing.B) {
	for _, n := range []int{4, 1024, 65536} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			w := wrrBusy(b, n)
			b.ReportAllocs()
			for b.Loop() {
				_, _, _ = w.Grant(0)
			}
		})
	}
}

func BenchmarkWRRObserve(b *testing.B) {
	w := wrrBusy(b, 1024)
	b.ReportAllocs()
	s := uint32(1 << 30)
	for i := 0; b.Loop(); i++ {
		s += 1000
		_, _ = w.Observe(0, i&1023, s, uint16(i&15)) // S and F change; F moves entries between lists
	}
}
