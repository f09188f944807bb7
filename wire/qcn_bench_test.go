package wire

import (
	"testing"
)

func BenchmarkCNMDecode(b *testing.B) {
	buf := CNM{QntzFb: 40, CPID: 7, QOffset: 3, QDelta: -4, Prio: 5}.Append(nil)
	b.ReportAllocs()
	for b.Loop() {
		_, _ = DecodeCNM(buf)
	}
}

func BenchmarkCNMEncode(b *testing.B) {
	m := CNM{QntzFb: 40, CPID: 7, QOffset: 3, QDelta: -4, Prio: 5}
	var out [CNMLen]byte
	b.ReportAllocs()
	for b.Loop() {
		m.Put(&out)
	}
}
