package main

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// refuser is a reaction point that takes nine packets and refuses every
// one after (a refusal changes nothing, so its count stays at nine): a
// state machine that reports errors, for -strict.
type refuser struct {
	clock cc.Monotonic
	sent  uint64
}

func (r *refuser) NextDeadline() units.Time { return units.MaxTime }
func (r *refuser) Timer(now units.Time, _ *cc.Actions) error {
	return r.clock.Accept("test.refuser", "Timer", now)
}
func (r *refuser) AppendRegisters(dst []cc.Register) []cc.Register {
	return append(dst, r.clock.Register(), cc.Reg("sent", 64, r.sent))
}
func (r *refuser) Sent(now units.Time, _ *cc.Packet, _ *cc.Actions) error {
	if err := r.clock.Check("test.refuser", "Sent", now); err != nil {
		return err
	}
	if r.sent == 9 {
		return &cc.EventError{Part: "test.refuser", Event: "Sent", Reason: "no more than nine packets"}
	}
	r.clock.Advance(now)
	r.sent++
	return nil
}
func (r *refuser) Feedback(now units.Time, _ *cc.Feedback, _ *cc.Actions) error {
	return r.clock.Accept("test.refuser", "Feedback", now)
}
func (r *refuser) Limits() cc.Limits { return cc.Limits{} }

var registerRefuser sync.Once

// TestSimStrict: a run whose state machine refuses events lists the errors
// in its report and, under -strict, exits 1; a clean run exits 0.
func TestSimStrict(t *testing.T) {
	registerRefuser.Do(func() {
		cc.MustRegisterAlgorithm(cc.Algorithm{
			Name: "test-refuser", Title: "refuser", Paper: "none", Doc: "refuses every packet after the ninth",
			Parts: []cc.PartSpec{{Name: "rp", Role: cc.RoleRP, Doc: "the refusing sender", Config: &cc.Spec[struct{}]{
				Presets: []cc.Preset[struct{}]{{Name: "only", Config: func(cc.Env) struct{} { return struct{}{} }}},
				New:     func(struct{}) (cc.Part, error) { return &refuser{}, nil },
			}}},
		})
	})
	args := []string{"sim", "-scenario", "single-flow", "-set", "duration=50us", "-algo", "test-refuser"}
	code, out, errOut := runArgs(args...)
	require.Equal(t, exitOK, code, errOut)
	require.Regexp(t, `(?m)^errors\s+\d+ refused by the state machines \(event \d+\); the first:`, out)
	require.Contains(t, out, "flow 0: test.refuser Sent: no more than nine packets")

	code, _, errOut = runArgs(append(args, "-strict")...)
	require.Equal(t, exitFail, code)
	require.Contains(t, errOut, "-strict: test-refuser:")

	code, out, errOut = runArgs("sim", "-scenario", "single-flow", "-set", "duration=50us", "-algo", "dctcp", "-strict")
	require.Equal(t, exitOK, code, errOut)
	require.NotContains(t, out, "refused by the state machines")

	code, out, _ = runArgs(append(args, "-json")...)
	require.Equal(t, exitOK, code)
	require.Contains(t, out, `"by_kind": {`)
	require.Contains(t, out, `"event": `)
}
