package voq

import (
	"testing"

	"github.com/hwcc/hwcc/units"
)

// benchSlots VOQs are open in every benchmark, so the ring and the table
// are larger than one cache line of descriptors.
const benchSlots = 1024

func benchManager(b *testing.B, mode Eligibility) *Manager {
	b.Helper()
	c := HierCC(benchSlots, MaxPacket)
	c.Eligibility = mode
	m, err := New(c)
	if err != nil {
		b.Fatal(err)
	}
	for k := range benchSlots {
		if _, err := m.Open(Key(k)); err != nil {
			b.Fatal(err)
		}
	}
	return m
}

// BenchmarkEnqueue: one packet joins a VOQ (rotating over 1024 VOQs; each
// VOQ can take 2^32 − 1 bytes, far more than a run enqueues).
func BenchmarkEnqueue(b *testing.B) {
	m := benchManager(b, CreditPositive)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := m.Enqueue(Slot(i&(benchSlots-1)), 64); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDequeue: the VOQ Next names loses one 64-byte packet and
// spends its credit; every VOQ starts full (2^32 − 1 bytes) and with the
// largest balance, enough for 2^25 packets each.
func BenchmarkDequeue(b *testing.B) {
	for _, mode := range []Eligibility{CreditPositive, IgnoreCredit} {
		b.Run(mode.String(), func(b *testing.B) {
			m := benchManager(b, mode)
			for k := range benchSlots {
				s := Slot(k)
				if err := m.AddCredit(s, MaxCreditLimit-PaperC0); err != nil {
					b.Fatal(err)
				}
				for range 65537 / 64 { // a sixty-fourth of the limit is plenty
					if err := m.Enqueue(s, MaxPacket); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				s, _ := m.Next()
				if _, err := m.Dequeue(s, 64); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkNext: the round robin's choice with 1024 eligible VOQs.
func BenchmarkNext(b *testing.B) {
	m := benchManager(b, CreditPositive)
	for k := range benchSlots {
		_ = m.Enqueue(Slot(k), 1000)
	}
	b.ReportAllocs()
	var sink Slot
	for b.Loop() {
		s, _ := m.Next()
		sink += s
	}
	_ = sink
}

// BenchmarkAddCredit: one credit packet (Δ = 1 KB) to an idle VOQ with
// data, which joins the round robin; a dequeue takes it out again.
func BenchmarkAddCredit(b *testing.B) {
	c := HierCC(benchSlots, 1000)
	c.InitialCredit = 0
	m, _ := New(c)
	for k := range benchSlots {
		s, _ := m.Open(Key(k))
		_ = m.Enqueue(s, 1000)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		s := Slot(i & (benchSlots - 1))
		if err := m.AddCredit(s, PaperDelta); err != nil {
			b.Fatal(err)
		}
		if _, err := m.Dequeue(s, 1000); err != nil {
			b.Fatal(err)
		}
		_ = m.Enqueue(s, 1000)
	}
}

// BenchmarkPacket: one packet's whole path at a HierCC ToR: it joins its
// VOQ, Next picks a VOQ, its head leaves with a stamp, a credit returns.
func BenchmarkPacket(b *testing.B) {
	m := benchManager(b, CreditPositive)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := m.Enqueue(Slot(i*7&(benchSlots-1)), 1000); err != nil {
			b.Fatal(err)
		}
		s, ok := m.Next()
		if !ok {
			b.Fatal("no VOQ eligible")
		}
		if _, err := m.Dequeue(s, units.Bytes(1000)); err != nil {
			b.Fatal(err)
		}
		if err := m.AddCredit(s, PaperDelta); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpenClose: a key gets a slot and gives it back.
func BenchmarkOpenClose(b *testing.B) {
	c := HierCC(benchSlots, 1500)
	m, _ := New(c)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		s, err := m.Open(Key(i & (benchSlots - 1)))
		if err != nil {
			b.Fatal(err)
		}
		if err := m.Close(s); err != nil {
			b.Fatal(err)
		}
	}
}
