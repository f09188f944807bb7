// Package algos registers hwcc's algorithms in the cc registry: for each,
// its parts (congestion, reaction and notification points), their presets,
// and a declarative description of every parameter (name, unit, default,
// range, source). Import it for its side effect:
//
//	import _ "github.com/hwcc/hwcc/algos"
//
// after which cc.New("rocc", "cp", "preset=40g") and the command's
// `hwcc algos` see every algorithm. The package holds registrations only:
// the state machines live in packages cp, rp and np, and nothing here runs
// on an event.
package algos
