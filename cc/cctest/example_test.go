package cctest_test

import (
	"errors"
	"fmt"
	"slices"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cc/cctest"
	"github.com/hwcc/hwcc/units"
)

// threshold is a user's own congestion point, the smallest worth checking:
// it marks a packet that joins a queue longer than k. skipTimeCheck is the
// bug the example's second run finds.
type threshold struct {
	k             units.Bytes
	time          cc.Monotonic
	marked        uint64
	skipTimeCheck bool
}

var _ cc.CongestionPoint = (*threshold)(nil)

// Enqueue marks the packet when the queue it joins is longer than k. A
// mark that does not fit act refuses the event, changing nothing; so does
// a nil act, since Enqueue can decide (cc's rule 3).
func (t *threshold) Enqueue(now units.Time, _ *cc.Packet, q cc.Queue, act *cc.Actions) error {
	if !t.skipTimeCheck {
		if err := t.time.Check("threshold", "Enqueue", now); err != nil {
			return err
		}
	}
	if act == nil {
		return cc.NoActions("threshold", "Enqueue")
	}
	mark := q.Len > t.k
	if mark {
		if err := act.Reserve("threshold", "Enqueue", 1); err != nil {
			return err
		}
	}
	t.time.Advance(now)
	if mark {
		act.MarkCE()
		t.marked++
	}
	return nil
}

// Dequeue only records the time.
func (t *threshold) Dequeue(now units.Time, _ *cc.Packet, _ cc.Queue, _ *cc.Actions) error {
	return t.time.Accept("threshold", "Dequeue", now)
}

// NextDeadline is units.MaxTime: the part has no timer.
func (t *threshold) NextDeadline() units.Time { return units.MaxTime }

// Timer only records the time.
func (t *threshold) Timer(now units.Time, _ *cc.Actions) error {
	return t.time.Accept("threshold", "Timer", now)
}

// AppendRegisters appends now and the marked counter.
func (t *threshold) AppendRegisters(dst []cc.Register) []cc.Register {
	return append(dst, t.time.Register(), cc.Reg("marked", 64, t.marked))
}

// rulesBroken lists the rules err's violations name, once each, sorted.
func rulesBroken(err error) []string {
	var rules []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var v *cctest.Violation
		if errors.As(e, &v) && !slices.Contains(rules, v.Rule) {
			rules = append(rules, v.Rule)
		}
	}
	slices.Sort(rules)
	return rules
}

// Checking a part of one's own against the contract: cctest.Test builds
// fresh parts with the constructor, drives them with generated event
// sequences (well formed and malformed) and reports every rule a part
// breaks. The threshold marker conforms; the same marker without its
// time-order check does not, and the report names the rule.
func ExampleTest() {
	for _, skip := range []bool{false, true} {
		err := cctest.Test(func() (cc.Part, error) {
			return &threshold{k: 20 * units.KB, skipTimeCheck: skip}, nil
		}, cctest.Options{})
		if err == nil {
			fmt.Println("skipTimeCheck", skip, "conforms")
			continue
		}
		fmt.Println("skipTimeCheck", skip, "breaks", rulesBroken(err))
	}
	// Output:
	// skipTimeCheck false conforms
	// skipTimeCheck true breaks [time-order]
}
