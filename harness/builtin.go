package harness

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/hwcc/hwcc/units"
)

// Built-in scenarios.

var builtins = struct {
	sync.Mutex
	m map[string]func() *Scenario
}{m: map[string]func() *Scenario{}}

// RegisterBuiltin adds a built-in scenario: fn returns a fresh Scenario on
// every call (Set modifies it). It returns an error if the name is taken.
func RegisterBuiltin(name string, fn func() *Scenario) error {
	builtins.Lock()
	defer builtins.Unlock()
	if _, ok := builtins.m[name]; ok || name == "" || fn == nil {
		return fmt.Errorf("harness: built-in scenario %q already registered or invalid", name)
	}
	builtins.m[name] = fn
	return nil
}

// Builtin returns a fresh copy of the built-in scenario name, or an error
// listing the built-in names.
func Builtin(name string) (*Scenario, error) {
	builtins.Lock()
	fn, ok := builtins.m[name]
	builtins.Unlock()
	if !ok {
		return nil, fmt.Errorf("harness: no built-in scenario %q (built-ins: %s)", name, strings.Join(BuiltinNames(), ", "))
	}
	s := fn()
	s.Name = name
	return s, nil
}

// BuiltinNames returns the built-in scenario names, sorted.
func BuiltinNames() []string {
	builtins.Lock()
	defer builtins.Unlock()
	n := make([]string, 0, len(builtins.m))
	for k := range builtins.m {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

func init() {
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	// single-flow: one flow of `size` (default 1 MB) from h1 to h0 over a
	// two-host star at 100 Gb/s with 1 µs links.
	must(RegisterBuiltin("single-flow", func() *Scenario {
		s := DefaultScenario()
		s.Description = "one flow of `size` (default 1MB) from h1 to h0 across one switch"
		s.Workload.FanIn = &FanInSpec{Senders: 1, Size: Bytes(units.MB)}
		return s
	}))
	// line-rate-2to1: `senders` (default 2) long-lived flows at line rate
	// into h0 through one switch; the measurement window skips the first
	// 100 µs.
	must(RegisterBuiltin("line-rate-2to1", func() *Scenario {
		s := DefaultScenario()
		s.Description = "`senders` (default 2) hosts send at line rate into one receiver across one switch"
		s.Workload.FanIn = &FanInSpec{Senders: 2}
		s.MeasureFrom = Time(100 * units.Microsecond)
		return s
	}))
}
