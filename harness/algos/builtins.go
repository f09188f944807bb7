package algos

import "github.com/hwcc/hwcc/harness"

// builtinScenario is a built-in scenario's name and builder
// (harness.RegisterBuiltin).
type builtinScenario struct {
	name string
	fn   func() *harness.Scenario
}

// registerBuiltins registers the scenario builders, in order; a name
// clash between adapter files is a programming error.
func registerBuiltins(bs []builtinScenario) {
	for _, b := range bs {
		if err := harness.RegisterBuiltin(b.name, b.fn); err != nil {
			panic(err)
		}
	}
}
