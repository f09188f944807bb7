package trace_test

import (
	"bytes"
	"fmt"
	"strings"

	_ "github.com/hwcc/hwcc/algos" // the registered parts a trace names
	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/trace"
	"github.com/hwcc/hwcc/units"
)

// Recording the events of one part as a golden-model trace, replaying the
// trace to the part's outputs, and checking a firmware model's outputs
// against them: here a DCQCN reaction point that sends, takes a CNP and
// runs its timer.
func Example() {
	h := trace.Header{Algorithm: "dcqcn", Part: "rp", Role: cc.RoleRP, Env: cc.Env{Rate: 100 * units.Gbps}}
	var tr bytes.Buffer
	w, err := trace.NewWriter(&tr, h)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, ev := range []cc.Event{
		{Kind: cc.EventSent, At: 1 * units.Microsecond, Packet: cc.Packet{Payload: 1000, Size: 1082}},
		{Kind: cc.EventFeedback, At: 2 * units.Microsecond, Feedback: cc.Feedback{Kind: cc.FeedbackCNP}},
		{Kind: cc.EventTimer, At: 60 * units.Microsecond},
	} {
		if err := w.Write(&ev); err != nil {
			fmt.Println(err)
			return
		}
	}
	fmt.Println(w.Events(), "events recorded")

	// Replay: one output line per event (decisions, registers, deadline,
	// limits), the golden model's answer.
	var out bytes.Buffer
	if err := trace.Replay(bytes.NewReader(tr.Bytes()), &out); err != nil {
		fmt.Println(err)
		return
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	fmt.Println(len(lines), "outputs")

	// A model whose outputs equal the replay's matches; one whose rate
	// after the CNP differs is caught at that event.
	m, err := trace.ReplayDiff(bytes.NewReader(tr.Bytes()), strings.NewReader(out.String()), nil)
	fmt.Println("same outputs:", m, err)
	bad := strings.Replace(out.String(), `"rate":50`, `"rate":51`, 1)
	m, err = trace.ReplayDiff(bytes.NewReader(tr.Bytes()), strings.NewReader(bad), nil)
	fmt.Println("first difference:", m.Event, m.Field, err)
	// Output:
	// 3 events recorded
	// 3 outputs
	// same outputs: <nil> <nil>
	// first difference: 2 limits.rate <nil>
}
