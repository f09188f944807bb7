package cc

import (
	"slices"
	"strings"
	"sync"
)

// PartSpec is one part of an algorithm in the registry.
type PartSpec struct {
	// Name is the part's key within its algorithm: "cp", "rp", "np", or a
	// variant such as "hostcp".
	Name string
	Role Role
	// Doc says what the part models (one sentence).
	Doc string
	// Config describes its configuration and builds it (a *Spec[C]).
	Config Configurer
}

// Algorithm is a registered algorithm: its name, its paper, and its parts.
type Algorithm struct {
	// Name is the registry key: lower case, no spaces ("rocc", "dcqcn").
	Name string
	// Title is the algorithm's name as its paper writes it ("RoCC").
	Title string
	// Paper cites the paper and the sections implemented.
	Paper string
	// Doc says what it is (one sentence).
	Doc string
	// Parts are the algorithm's parts. They share their preset names
	// where they can, so that one "preset" setting configures every part
	// of a run alike.
	Parts []PartSpec
	// Deploy is how the parts run in a network (which part where, and
	// what they need of it): what a simulator reads to run the algorithm.
	Deploy Deployment
}

// Part returns the part named name, or an error wrapping ErrUnknown that
// lists the algorithm's parts.
func (a Algorithm) Part(name string) (PartSpec, error) {
	for _, p := range a.Parts {
		if p.Name == name {
			return p, nil
		}
	}
	names := make([]string, len(a.Parts))
	for i, p := range a.Parts {
		names[i] = p.Name
	}
	return PartSpec{}, &ConfigError{Part: a.Name, Field: "part", Value: name, Range: "one of " + strings.Join(names, ", "), Err: ErrUnknown}
}

// registry holds the algorithms. It is written by init functions (package
// algos registers hwcc's own) and read afterwards; the lock makes a late
// Register safe too.
var registry = struct {
	sync.RWMutex
	m map[string]Algorithm
}{m: map[string]Algorithm{}}

// RegisterAlgorithm adds a to the registry. It checks the entry: a lower-case name
// not taken, at least one part, part names unique, every role valid,
// every Config's own Check, and its Deploy. It is meant for init functions.
func RegisterAlgorithm(a Algorithm) error {
	bad := func(field, want string) error {
		return &ConfigError{Part: "register " + a.Name, Field: field, Range: want}
	}
	if a.Name == "" || strings.ToLower(a.Name) != a.Name || strings.ContainsAny(a.Name, " \t\n=,;") {
		return bad("name", "a lower-case name without spaces, '=', ',' or ';'")
	}
	if len(a.Parts) == 0 {
		return bad("parts", "at least one part")
	}
	for i, p := range a.Parts {
		if p.Name == "" || strings.ToLower(p.Name) != p.Name || strings.ContainsAny(p.Name, " \t\n=,;") {
			return bad("part "+p.Name, "a lower-case name")
		}
		for _, q := range a.Parts[:i] {
			if q.Name == p.Name {
				return bad("part "+p.Name, "a name used once")
			}
		}
		if p.Role < RoleCP || p.Role > RoleSW {
			return bad("part "+p.Name, "a role")
		}
		if p.Config == nil {
			return bad("part "+p.Name, "a Config")
		}
		if err := p.Config.Check(); err != nil {
			return &ConfigError{Part: "register " + a.Name + " " + p.Name, Field: "config", Err: err}
		}
	}
	if err := a.checkDeploy(); err != nil {
		return err
	}
	registry.Lock()
	defer registry.Unlock()
	if _, ok := registry.m[a.Name]; ok {
		return bad("name", "a name not yet registered")
	}
	registry.m[a.Name] = a
	return nil
}

// MustRegisterAlgorithm is RegisterAlgorithm for init functions: an error there is a
// programming error in the registering package, so it panics.
func MustRegisterAlgorithm(a Algorithm) {
	if err := RegisterAlgorithm(a); err != nil {
		panic(err)
	}
}

// Lookup returns the algorithm registered as name, or an error wrapping
// ErrUnknown that lists the registered names.
func Lookup(name string) (Algorithm, error) {
	registry.RLock()
	a, ok := registry.m[name]
	registry.RUnlock()
	if !ok {
		return Algorithm{}, &ConfigError{Field: "algorithm", Value: name, Range: "one of " + strings.Join(Names(), ", "), Err: ErrUnknown}
	}
	return a, nil
}

// Names returns the registered algorithms' names, sorted.
func Names() []string {
	registry.RLock()
	defer registry.RUnlock()
	names := make([]string, 0, len(registry.m))
	for n := range registry.m {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Algorithms returns every registered algorithm, sorted by name.
func Algorithms() []Algorithm {
	names := Names()
	out := make([]Algorithm, 0, len(names))
	registry.RLock()
	defer registry.RUnlock()
	for _, n := range names {
		out = append(out, registry.m[n])
	}
	return out
}

// New builds part of algorithm algo from settings written
// "name=value, name=value" (see ParseSettings): the registry's one path
// from strings to a validated part.
func New(algo, part, settings string) (Part, error) {
	st, err := ParseSettings(settings)
	if err != nil {
		return nil, err
	}
	return NewWith(algo, part, st)
}

// NewWith is New with the settings already split.
func NewWith(algo, part string, settings []Setting) (Part, error) {
	return NewIn(nil, algo, part, settings)
}

// NewIn is NewWith for a part that runs in env (see Env): a simulator's
// or firmware model's one call to build any registered part where it runs.
func NewIn(env *Env, algo, part string, settings []Setting) (Part, error) {
	a, err := Lookup(algo)
	if err != nil {
		return nil, err
	}
	ps, err := a.Part(part)
	if err != nil {
		return nil, err
	}
	p, err := ps.Config.Build(algo+" "+part, env, settings)
	if err != nil {
		return nil, err
	}
	if !ps.Role.Plays(p) {
		return nil, &ConfigError{Part: algo + " " + part, Field: "role", Range: "a part that is a " + ps.Role.String()}
	}
	return p, nil
}

// NewCP is New for a part registered as a congestion point.
func NewCP(algo, part, settings string) (CongestionPoint, error) {
	p, err := newRole(algo, part, settings, RoleCP)
	if err != nil {
		return nil, err
	}
	return p.(CongestionPoint), nil
}

// NewRP is New for a part registered as a reaction point.
func NewRP(algo, part, settings string) (ReactionPoint, error) {
	p, err := newRole(algo, part, settings, RoleRP)
	if err != nil {
		return nil, err
	}
	return p.(ReactionPoint), nil
}

// NewNP is New for a part registered as a notification point.
func NewNP(algo, part, settings string) (NotificationPoint, error) {
	p, err := newRole(algo, part, settings, RoleNP)
	if err != nil {
		return nil, err
	}
	return p.(NotificationPoint), nil
}

// NewSW is New for a part registered as a switch point.
func NewSW(algo, part, settings string) (SwitchPoint, error) {
	p, err := newRole(algo, part, settings, RoleSW)
	if err != nil {
		return nil, err
	}
	return p.(SwitchPoint), nil
}

func newRole(algo, part, settings string, r Role) (Part, error) {
	a, err := Lookup(algo)
	if err != nil {
		return nil, err
	}
	ps, err := a.Part(part)
	if err != nil {
		return nil, err
	}
	if ps.Role != r {
		return nil, &ConfigError{Part: algo + " " + part, Field: "role", Value: ps.Role.Short(), Range: "a " + r.String()}
	}
	return New(algo, part, settings)
}
