package voq_test

import (
	"fmt"

	"github.com/hwcc/hwcc/voq"
)

// A sender-side ToR of HierCC ([HierCC] §3.2) with four
// destination hosts. Hosts 2 and 3 each have three 4000-byte packets
// queued; each VOQ starts with C0 = 10 KB of credit, so each may send
// while its balance is above zero: 10000 → 6000 → 2000 → −2000. The round
// robin alternates between the two; each packet leaves stamped with F_ij
// and S_ij. When host 2 gets a fourth packet, one credit from the
// receiver-side ToR (Δ = 1 KB) lifts its balance only to −1000; two more
// make 1000 > 0 and the packet leaves, overdrawing to −3000.
func ExampleManager() {
	m, err := voq.New(voq.HierCC(4, 4000))
	if err != nil {
		panic(err)
	}
	a, _ := m.Open(2)
	b, _ := m.Open(3)
	_ = m.FlowStart(a)
	_ = m.FlowStart(b)
	_ = m.FlowStart(b)
	for range 3 {
		_ = m.Enqueue(a, 4000)
		_ = m.Enqueue(b, 4000)
	}
	serve := func() {
		for {
			s, ok := m.Next()
			if !ok {
				return
			}
			stamp, err := m.Dequeue(s, 4000)
			if err != nil {
				panic(err)
			}
			st, _ := m.State(s)
			fmt.Printf("host %d: F=%d S=%d, balance %d\n", st.Key, stamp.Flows, stamp.Sent, st.Credit)
		}
	}
	serve()
	_ = m.Enqueue(a, 4000)
	_ = m.AddCredit(a, voq.PaperDelta)
	fmt.Println("host 2 after one credit, eligible:", m.Eligible(a))
	_ = m.AddCredit(a, 2*voq.PaperDelta)
	fmt.Println("after three credits, eligible:", m.Eligible(a))
	serve()
	fmt.Println(m.Totals())
	// Output:
	// host 2: F=1 S=4000, balance 6000
	// host 3: F=2 S=4000, balance 6000
	// host 2: F=1 S=8000, balance 2000
	// host 3: F=2 S=8000, balance 2000
	// host 2: F=1 S=12000, balance -2000
	// host 3: F=2 S=12000, balance -2000
	// host 2 after one credit, eligible: false
	// after three credits, eligible: true
	// host 2: F=1 S=16000, balance -3000
	// {28000 28000 0}
}
