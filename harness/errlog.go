package harness

import (
	"errors"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// ErrorSink records the errors a run's state machines return. The generic
// adapter hands every event's error to it; the run goes on (a state
// machine's refusal is a finding about the algorithm or the harness, not a
// reason to stop), and the report lists them (Report.Errors). The zero
// value drops what it is given.
type ErrorSink struct {
	log   *errLog
	where string
}

// Add records err of an event at now for flow (−1 when the event has no
// flow, a CP's timer say).
func (e ErrorSink) Add(now units.Time, flow FlowID, err error) {
	if e.log == nil || err == nil {
		return
	}
	e.log.add(now, flow, e.where, err)
}

// maxErrorSamples is how many errors the report lists in full.
const maxErrorSamples = 5

// errLog counts errors by kind and keeps the first few.
type errLog struct {
	count   int64
	byKind  map[string]int64
	samples []ErrorSample
}

func (l *errLog) add(now units.Time, flow FlowID, where string, err error) {
	if l.byKind == nil {
		l.byKind = map[string]int64{}
	}
	l.count++
	l.byKind[errorKind(err)]++
	if len(l.samples) < maxErrorSamples {
		l.samples = append(l.samples, ErrorSample{TimeNs: int64(now / units.Nanosecond), Flow: int(flow), Where: where, Message: err.Error()})
	}
}

// errorKind names the contract's error kind of err.
func errorKind(err error) string {
	for _, k := range []struct {
		sentinel error
		name     string
	}{
		{cc.ErrTimeOrder, "time-order"}, {cc.ErrEvent, "event"}, {cc.ErrDecode, "decode"},
		{cc.ErrActionsFull, "actions-full"}, {cc.ErrConfig, "config"},
	} {
		if errors.Is(err, k.sentinel) {
			return k.name
		}
	}
	return "other"
}

// report returns the log as the report shows it, nil when empty.
func (l *errLog) report() *ErrorReport {
	if l.count == 0 {
		return nil
	}
	r := &ErrorReport{Count: l.count, ByKind: map[string]int64{}, First: append([]ErrorSample(nil), l.samples...)}
	for k, v := range l.byKind {
		r.ByKind[k] = v
	}
	return r
}

// ErrorReport is the state machines' errors over a run: how many of each
// kind (time-order, event, decode, actions-full, config, other) and the
// first few in full.
type ErrorReport struct {
	Count  int64            `json:"count"`
	ByKind map[string]int64 `json:"by_kind"`
	First  []ErrorSample    `json:"first"`
}

// ErrorSample is one error: when, for which flow (−1: none), in which part
// ("s0:1 cp", "flow 3 rp") and what it says.
type ErrorSample struct {
	TimeNs  int64  `json:"time_ns"`
	Flow    int    `json:"flow"`
	Where   string `json:"where"`
	Message string `json:"message"`
}
