package cc

import (
	"errors"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/hwcc/hwcc/units"
)

// Kind is the type of a parameter's value, which fixes its syntax.
type Kind uint8

// Parameter kinds.
const (
	// KindInt: a whole number, decimal or 0x hexadecimal, into any Go
	// integer field (range-checked against the field's width too).
	KindInt Kind = iota + 1
	// KindBool: on/off, true/false or 1/0.
	KindBool
	// KindFloat: a real number (configuration only: the part converts it
	// to its fixed-point form in New).
	KindFloat
	// KindTime: a time with unit, units.ParseTime ("40us", "1.5ms"; a bare
	// "0" needs none).
	KindTime
	// KindBytes: a size with unit, units.ParseBytes ("150KB", "64KiB").
	KindBytes
	// KindRate: a rate with unit, units.ParseRate ("40Gbps", "10Mbps").
	KindRate
	// KindChoice: one of the parameter's Choices, by name (any case).
	KindChoice
)

var kindNames = [...]string{"", "int", "bool", "float", "time", "bytes", "rate", "choice"}

// String returns the kind's name ("int", "time", ...).
func (k Kind) String() string {
	if k != 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind " + strconv.Itoa(int(k))
}

// Choice is one value of a KindChoice parameter: its name and the integer
// the field takes.
type Choice struct {
	Name  string
	Value int64
	Doc   string
}

// Param is the declarative description of one configuration parameter: what
// `hwcc algos` prints and what every front end (command line, JSON
// scenarios, replay headers, the C ABI) parses values by.
type Param struct {
	// Name is the parameter's key: lower case, no spaces ("t", "kmin").
	Name string
	// Kind is the value's type; a Spec infers it from the field.
	Kind Kind
	// Unit names the unit of a KindInt or KindFloat value ("ΔF units",
	// "Q10", "bits"); time, byte and rate values carry their own.
	Unit string
	// Default is the value in the default preset, formatted as it parses
	// (filled by the Spec).
	Default string
	// Min and Max bound the value, inclusive, in the kind's syntax; ""
	// leaves that side to the part's own validation.
	Min, Max string
	// Choices are the values of a KindChoice parameter.
	Choices []Choice
	// Doc says what it is; Source where its value comes from (a paper's
	// section, a vendor document).
	Doc, Source string
}

// Range returns the allowed values as error messages print them:
// "1us..10ms", "≥ 0B", "one of auto, 40g", "on or off".
func (p Param) Range() string {
	switch p.Kind {
	case KindBool:
		return "on or off"
	case KindChoice:
		names := make([]string, len(p.Choices))
		for i, c := range p.Choices {
			names[i] = c.Name
		}
		return "one of " + strings.Join(names, ", ")
	}
	what := "a " + p.Kind.String()
	switch p.Kind {
	case KindInt:
		what = "a whole number"
	case KindFloat:
		what = "a number"
	case KindTime:
		what = "a time"
	case KindBytes:
		what = "a size"
	case KindRate:
		what = "a rate"
	}
	switch {
	case p.Min != "" && p.Max != "":
		return what + " in " + p.Min + ".." + p.Max
	case p.Min != "":
		return what + " ≥ " + p.Min
	case p.Max != "":
		return what + " ≤ " + p.Max
	}
	return what
}

// value is a parsed parameter value: i for the integer kinds (time in ps,
// bytes, bit/s, choice values, bools as 0/1), f for floats.
type value struct {
	i int64
	f float64
}

// parse reads s in p's syntax. It checks the syntax only.
func (p Param) parse(s string) (value, error) {
	s = strings.TrimSpace(s)
	switch p.Kind {
	case KindInt:
		v, err := strconv.ParseInt(s, 0, 64)
		return value{i: v}, err
	case KindBool:
		switch strings.ToLower(s) {
		case "on", "true", "1", "yes":
			return value{i: 1}, nil
		case "off", "false", "0", "no":
			return value{i: 0}, nil
		}
		return value{}, errors.New("not on or off")
	case KindFloat:
		v, err := strconv.ParseFloat(s, 64)
		if err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
			err = errors.New("not finite")
		}
		return value{f: v}, err
	case KindTime:
		if s == "0" {
			return value{}, nil
		}
		v, err := units.ParseTime(s)
		return value{i: int64(v)}, err
	case KindBytes:
		if s == "0" {
			return value{}, nil
		}
		v, err := units.ParseBytes(s)
		return value{i: int64(v)}, err
	case KindRate:
		if s == "0" {
			return value{}, nil
		}
		v, err := units.ParseRate(s)
		return value{i: int64(v)}, err
	case KindChoice:
		for _, c := range p.Choices {
			if strings.EqualFold(s, c.Name) {
				return value{i: c.Value}, nil
			}
		}
		return value{}, errors.New("no such choice")
	}
	return value{}, errors.New("parameter of unknown kind")
}

// format writes v in p's syntax (the inverse of parse).
func (p Param) format(v value) string {
	switch p.Kind {
	case KindInt:
		return strconv.FormatInt(v.i, 10)
	case KindBool:
		if v.i != 0 {
			return "on"
		}
		return "off"
	case KindFloat:
		return strconv.FormatFloat(v.f, 'g', -1, 64)
	case KindTime:
		return units.Time(v.i).String()
	case KindBytes:
		return units.Bytes(v.i).String()
	case KindRate:
		return units.Rate(v.i).String()
	case KindChoice:
		for _, c := range p.Choices {
			if c.Value == v.i {
				return c.Name
			}
		}
		return strconv.FormatInt(v.i, 10)
	}
	return "?"
}

// inRange reports whether v lies in [Min, Max] (an unparsable bound, which
// Spec.Check refuses at registration, bounds nothing).
func (p Param) inRange(v value) bool {
	if p.Kind == KindBool || p.Kind == KindChoice {
		return true
	}
	if p.Min != "" {
		if lo, err := p.parse(p.Min); err == nil && less(p.Kind, v, lo) {
			return false
		}
	}
	if p.Max != "" {
		if hi, err := p.parse(p.Max); err == nil && less(p.Kind, hi, v) {
			return false
		}
	}
	return true
}

func less(k Kind, a, b value) bool {
	if k == KindFloat {
		return a.f < b.f
	}
	return a.i < b.i
}

// Setting is one name=value pair, as given by a user.
type Setting struct {
	Name, Value string
}

// ParseSettings splits "name=value, name=value" (commas or newlines between
// pairs, spaces around names and values ignored) into settings, in order.
// An empty string gives none.
func ParseSettings(s string) ([]Setting, error) {
	var out []Setting
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == '\n' || r == ';' }) {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		name, val, ok := strings.Cut(f, "=")
		name, val = strings.TrimSpace(name), strings.TrimSpace(val)
		if !ok || name == "" {
			return nil, &ConfigError{Field: f, Range: "name=value"}
		}
		out = append(out, Setting{Name: strings.ToLower(name), Value: val})
	}
	return out, nil
}

// SettingsOf returns the settings of m sorted by name, so that errors are
// reported in a deterministic order.
func SettingsOf(m map[string]string) []Setting {
	out := make([]Setting, 0, len(m))
	for k, v := range m {
		out = append(out, Setting{Name: strings.ToLower(strings.TrimSpace(k)), Value: v})
	}
	for i := 1; i < len(out); i++ { // insertion sort: a handful of entries
		for j := i; j > 0 && out[j].Name < out[j-1].Name; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// The settings every Spec reads before its parameters.
const (
	// SettingPreset selects a Spec's preset by name.
	SettingPreset = "preset"
	// SettingLink gives the line rate its presets scale to.
	SettingLink = "link"
)

// Field binds a Param to one field of a configuration struct C: Ptr returns
// a pointer to the field in c. The field's Go type fixes the Kind:
// units.Time, units.Bytes and units.Rate fields are KindTime, KindBytes and
// KindRate; bool is KindBool; float32 and float64 KindFloat; any integer
// type KindInt, or KindChoice when Choices are given.
type Field[C any] struct {
	Param
	Ptr func(c *C) any
}

// Preset is a named starting configuration. Config receives the
// environment the part runs in, its Rate the link rate (the "link" setting,
// else the environment's, else the Spec's Link), for presets that scale
// with it (a window of link × base RTT, thresholds that scale with the
// port); a zero field is unknown and the preset uses its own default.
type Preset[C any] struct {
	Name, Doc, Source string
	Config            func(env Env) C
}

// OfLink adapts a preset function of the link rate (rp.DCQCNConnectX) to
// Preset.Config.
func OfLink[C any](f func(link units.Rate) C) func(Env) C {
	return func(env Env) C { return f(env.Rate) }
}

// Fixed adapts a preset function of nothing (cp.RoCC40G) to Preset.Config.
func Fixed[C any](f func() C) func(Env) C {
	return func(Env) C { return f() }
}

// Spec describes the configuration C of one part declaratively and builds
// the part from string settings: the preset named by "preset" (default:
// the first), scaled to "link" (default: Link), then every other setting
// applied to its Field, each parsed by its kind and checked against its
// range, then New. New's own validation has the last word; its errors
// should be *ConfigError naming the field.
type Spec[C any] struct {
	Presets []Preset[C]
	// Link is the default link rate passed to presets; 0 means the presets
	// take none and the part has no "link" setting.
	Link   units.Rate
	Fields []Field[C]
	New    func(cfg C) (Part, error)
	// Env, if set, derives configuration from where the part runs (the
	// port's rate, the switch's ID, the flow's base RTT): the paper's rules
	// that depend on the environment (RoCC's Fmax = the port's rate, HPCC's
	// T from the base RTT). It runs after the preset and before the
	// settings, so an explicit setting wins. It must ignore zero fields.
	Env func(cfg *C, env Env)
}

// Env is what a simulator or a firmware model knows about where a part
// runs. A zero field is unknown. Package harness fills it for every part it
// builds; BuildIn passes it to the Spec's Env hook, and its Rate is the
// default "link" of presets that scale with one.
type Env struct {
	// Rate is a congestion point's port rate, or a reaction or
	// notification point's NIC line rate.
	Rate units.Rate
	// Node is the switch (CP) or host (RP, NP); Port the CP's egress port
	// number on its switch; SwitchID a 12-bit ID unique among the
	// network's switches (INT's pathID, [HPCC] §4.1).
	Node     NodeID
	Port     uint16
	SwitchID uint16
	// BaseRTT is a flow's round trip on its idle path, data and ACK
	// (with the INT bytes the algorithm adds), or the network's largest
	// when the algorithm takes one value for every flow (the harness gives
	// HPCC that: Eqn (1)'s one T), and for a switch point the network's
	// largest (Mercury's baseRTT); Bottleneck the smallest link rate on
	// the flow's path; Hops the switches on it.
	BaseRTT    units.Time
	Bottleneck units.Rate
	Hops       int
	// Payload is a full data packet's payload (the MSS).
	Payload units.Bytes
	// Size is a flow's length in payload bytes when the caller knows it in
	// advance (a message or RDMA write), 0 when it does not (a long-lived
	// or open-ended flow). A reaction point that must tell its destination
	// when the flow ends (ExpressPass's credit stop) reads it.
	Size units.Bytes
	// Ports is a switch point's port count (its ports are 0..Ports−1);
	// SwitchPorts, when the caller knows them, describes each (len Ports,
	// in the same numbering): what a switch's configuration says about
	// its ports, which face a server and at what rate.
	Ports       int
	SwitchPorts []SwitchPort
	// Index numbers the part among the parts of its role in one network,
	// from 1 (0: unknown): a harness's queue or flow number, for a part
	// that needs a distinct, reproducible value per instance (an LFSR's
	// seed).
	Index int
	// Start is when a flow's parts come into being (0: at time 0, or
	// unknown): a caller that builds a flow's parts when the flow starts,
	// as a simulator does, gives the time here, so that a part whose
	// first deadline is "at once" (ExpressPass's credit request) counts it
	// from Start rather than from time 0, where its clock begins, and rule
	// 4 does not have it catch up expiries from before the flow existed.
	Start units.Time
}

// SwitchPort is one port of a switch point's switch, as the switch's
// configuration knows it.
type SwitchPort struct {
	// Rate is the port's line rate.
	Rate units.Rate
	// Edge: the port faces a host (a server port), whose node is Host; a
	// port toward another switch is not an edge port and its Host is 0.
	Edge bool
	Host NodeID
}

// Description is a part's configuration as `hwcc algos` lists it.
type Description struct {
	// Presets are the preset names with their docs; the first is the
	// default.
	Presets []Preset[struct{}]
	// Link is the default link rate, 0 when the part takes none.
	Link units.Rate
	// Params are the parameters with Kind and Default filled in.
	Params []Param
}

// Configurer is the untyped view of a Spec that the registry holds.
type Configurer interface {
	// Describe returns the presets and the parameters with their defaults.
	Describe() Description
	// Build parses settings and returns the part; part names it in errors.
	// env, if not nil, is where the part runs (see Env).
	Build(part string, env *Env, settings []Setting) (Part, error)
	// Check validates the description itself (names, kinds, bounds,
	// defaults within range); RegisterAlgorithm calls it.
	Check() error
	// Has reports whether name is one of the part's settings (a parameter,
	// "preset", or "link" when the part takes one).
	Has(name string) bool
	// Validate checks settings without building the part: every name is
	// known, every value parses and lies in its parameter's range. What
	// only New can tell (a value that depends on another, or on where the
	// part runs) it leaves to Build.
	Validate(part string, settings []Setting) error
}

// kindOf returns the Kind of the field f points to in a zero C, or 0.
func kindOf(ptr any, choices bool) Kind {
	switch ptr.(type) {
	case *units.Time:
		return KindTime
	case *units.Bytes:
		return KindBytes
	case *units.Rate:
		return KindRate
	}
	rv := reflect.ValueOf(ptr)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return 0
	}
	switch rv.Elem().Kind() {
	case reflect.Bool:
		return KindBool
	case reflect.Float32, reflect.Float64:
		return KindFloat
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if choices {
			return KindChoice
		}
		return KindInt
	}
	return 0
}

// get reads the field ptr points to.
func get(ptr any) value {
	rv := reflect.ValueOf(ptr).Elem()
	switch rv.Kind() {
	case reflect.Bool:
		if rv.Bool() {
			return value{i: 1}
		}
		return value{}
	case reflect.Float32, reflect.Float64:
		return value{f: rv.Float()}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		u := rv.Uint()
		if u > math.MaxInt64 {
			u = math.MaxInt64
		}
		return value{i: int64(u)}
	default:
		return value{i: rv.Int()}
	}
}

// set writes v to the field ptr points to, or says why it does not fit.
func set(ptr any, v value) error {
	rv := reflect.ValueOf(ptr).Elem()
	switch rv.Kind() {
	case reflect.Bool:
		rv.SetBool(v.i != 0)
	case reflect.Float32, reflect.Float64:
		if rv.OverflowFloat(v.f) {
			return errors.New("out of the field's range")
		}
		rv.SetFloat(v.f)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if v.i < 0 || rv.OverflowUint(uint64(v.i)) {
			return errors.New("does not fit the field's " + strconv.Itoa(rv.Type().Bits()) + "-bit register")
		}
		rv.SetUint(uint64(v.i))
	default:
		if rv.OverflowInt(v.i) {
			return errors.New("does not fit the field's " + strconv.Itoa(rv.Type().Bits()) + "-bit register")
		}
		rv.SetInt(v.i)
	}
	return nil
}

// param returns f's Param with its Kind inferred.
func (s *Spec[C]) param(f Field[C]) Param {
	var zero C
	p := f.Param
	p.Kind = kindOf(f.Ptr(&zero), len(f.Choices) > 0)
	return p
}

// Describe implements Configurer.
func (s *Spec[C]) Describe() Description {
	d := Description{Link: s.Link}
	for _, pr := range s.Presets {
		d.Presets = append(d.Presets, Preset[struct{}]{Name: pr.Name, Doc: pr.Doc, Source: pr.Source})
	}
	var def C
	if len(s.Presets) > 0 && s.Presets[0].Config != nil {
		def = s.Presets[0].Config(Env{Rate: s.Link})
	}
	for _, f := range s.Fields {
		p := s.param(f)
		if p.Kind != 0 {
			p.Default = p.format(get(f.Ptr(&def)))
		}
		d.Params = append(d.Params, p)
	}
	return d
}

// Check implements Configurer.
func (s *Spec[C]) Check() error {
	bad := func(field, why string) error { return &ConfigError{Part: "spec", Field: field, Range: why} }
	if len(s.Presets) == 0 {
		return bad("presets", "at least one preset")
	}
	if s.New == nil {
		return bad("New", "a constructor")
	}
	seen := map[string]bool{SettingPreset: true, SettingLink: true}
	for _, pr := range s.Presets {
		if pr.Name == "" || pr.Config == nil || strings.ToLower(pr.Name) != pr.Name {
			return bad("preset "+pr.Name, "a lower-case name and a Config")
		}
	}
	d := s.Describe()
	for i, f := range s.Fields {
		p := d.Params[i]
		if p.Name == "" || strings.ToLower(p.Name) != p.Name || strings.ContainsAny(p.Name, " =,;\n") {
			return bad("param "+p.Name, "a lower-case name without spaces, '=', ',' or ';'")
		}
		if seen[p.Name] {
			return bad("param "+p.Name, "a name used once (preset and link are reserved)")
		}
		seen[p.Name] = true
		if f.Ptr == nil || p.Kind == 0 {
			return bad("param "+p.Name, "a pointer to a time, bytes, rate, bool, float or integer field")
		}
		for _, b := range []string{p.Min, p.Max} {
			if b == "" {
				continue
			}
			if _, err := p.parse(b); err != nil {
				return bad("param "+p.Name, "bounds that parse as "+p.Kind.String())
			}
		}
		if v, err := p.parse(p.Default); err != nil || !p.inRange(v) {
			return bad("param "+p.Name, "a default ("+p.Default+") in "+p.Range())
		}
	}
	return nil
}

// Config returns the configuration settings give, without building the
// part: the preset, scaled to the link rate, with every setting applied
// and range-checked. part names the part in errors.
func (s *Spec[C]) Config(part string, settings []Setting) (C, error) {
	return s.ConfigIn(part, nil, settings)
}

// ConfigIn is Config for a part that runs in env (nil: unknown): the
// preset scales to env.Rate unless "link" is set, then the Spec's Env hook
// derives what depends on env, then the settings apply.
func (s *Spec[C]) ConfigIn(part string, env *Env, settings []Setting) (C, error) {
	var cfg C
	if len(s.Presets) == 0 {
		return cfg, &ConfigError{Part: part, Field: SettingPreset, Range: "a part with presets"}
	}
	preset, link := s.Presets[0], s.Link
	var where Env
	if env != nil {
		where = *env
		if env.Rate > 0 {
			link = env.Rate
		}
	}
	seen := make(map[string]bool, len(settings))
	for _, st := range settings {
		if seen[st.Name] {
			return cfg, &ConfigError{Part: part, Field: st.Name, Value: st.Value, Range: "one value (given twice)"}
		}
		seen[st.Name] = true
		switch st.Name {
		case SettingPreset:
			found := false
			for _, pr := range s.Presets {
				if strings.EqualFold(strings.TrimSpace(st.Value), pr.Name) {
					preset, found = pr, true
				}
			}
			if !found {
				names := make([]string, len(s.Presets))
				for i, pr := range s.Presets {
					names[i] = pr.Name
				}
				return cfg, &ConfigError{Part: part, Field: st.Name, Value: st.Value, Range: "one of " + strings.Join(names, ", ")}
			}
		case SettingLink:
			if s.Link == 0 {
				return cfg, s.unknown(part, st)
			}
			lp := Param{Name: SettingLink, Kind: KindRate, Min: "1bps"}
			v, err := lp.parse(st.Value)
			if err != nil || !lp.inRange(v) {
				return cfg, &ConfigError{Part: part, Field: st.Name, Value: st.Value, Range: lp.Range(), Err: err}
			}
			link = units.Rate(v.i)
		}
	}
	where.Rate = link
	cfg = preset.Config(where)
	if env != nil && s.Env != nil {
		s.Env(&cfg, *env)
	}
	for _, st := range settings {
		if st.Name == SettingPreset || st.Name == SettingLink {
			continue
		}
		i := s.index(st.Name)
		if i < 0 {
			return cfg, s.unknown(part, st)
		}
		f := s.Fields[i]
		p := s.param(f)
		v, err := p.parse(st.Value)
		if err != nil || !p.inRange(v) {
			// err, when the value did not parse, says why ("missing
			// unit"); one out of range has only the range to say.
			return cfg, &ConfigError{Part: part, Field: p.Name, Value: st.Value, Range: p.Range(), Err: err}
		}
		if err := set(f.Ptr(&cfg), v); err != nil {
			return cfg, &ConfigError{Part: part, Field: p.Name, Value: st.Value, Range: p.Range(), Err: err}
		}
	}
	return cfg, nil
}

// Build implements Configurer.
func (s *Spec[C]) Build(part string, env *Env, settings []Setting) (Part, error) {
	cfg, err := s.ConfigIn(part, env, settings)
	if err != nil {
		return nil, err
	}
	p, err := s.New(cfg)
	if err != nil {
		var ce *ConfigError
		if errors.As(err, &ce) {
			if ce.Part == "" {
				ce.Part = part
			}
			return nil, err
		}
		return nil, &ConfigError{Part: part, Field: "config", Err: err}
	}
	if p == nil {
		return nil, &ConfigError{Part: part, Field: "config", Range: "a constructor that returns a part"}
	}
	return p, nil
}

// Has implements Configurer.
func (s *Spec[C]) Has(name string) bool {
	return name == SettingPreset || (name == SettingLink && s.Link != 0) || s.index(name) >= 0
}

// Validate implements Configurer.
func (s *Spec[C]) Validate(part string, settings []Setting) error {
	_, err := s.ConfigIn(part, nil, settings)
	return err
}

func (s *Spec[C]) index(name string) int {
	for i, f := range s.Fields {
		if f.Name == name {
			return i
		}
	}
	return -1
}

func (s *Spec[C]) unknown(part string, st Setting) error {
	names := []string{SettingPreset}
	if s.Link != 0 {
		names = append(names, SettingLink)
	}
	for _, f := range s.Fields {
		names = append(names, f.Name)
	}
	return &ConfigError{Part: part, Field: st.Name, Value: st.Value, Range: "a known parameter (" + strings.Join(names, ", ") + ")", Err: ErrUnknown}
}
