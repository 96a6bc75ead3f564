// Package markers defines apigen's comment markers as typed definitions and parses them.
//
// A marker is a comment line starting with "+". A definition has a name ("apigen:resource"),
// the level it may appear at (package, type or field) and a Go type for its argument, a
// struct whose fields are its named arguments:
//
//	// +apigen:resource:path=flunders,shortName=fl;flu,scope=Namespaced
//
// Arguments and values are read in controller-tools' grammar (parseArgs), the one controller-gen
// reads the same comment lines with. The argument type's method is the marker's effect on the
// model (effects.go), so that a marker is declared in one place. Names in apigen's own namespace that are not registered are errors, never silently skipped.
package markers

import (
	"errors"
	"fmt"
	"go/token"
	"maps"
	"reflect"
	"slices"
	"strings"
	sc "text/scanner"
	"unicode"

	"sigs.k8s.io/controller-tools/pkg/loader"
	ctmarkers "sigs.k8s.io/controller-tools/pkg/markers"

	"github.com/apigen-dev/apigen/generators/model"
)

// Target is where a marker may appear.
type Target int

const (
	// Package markers sit in a package's doc comment (doc.go).
	Package Target = iota
	// Type markers sit in the comment above a type declaration.
	Type
	// Field markers sit in the comment above a struct field.
	Field
)

func (t Target) String() string {
	return [...]string{"package", "type", "field"}[t]
}

// Namespace is apigen's own marker namespace; every name in it must be registered.
const Namespace = "apigen"

// Kubebuilder is controller-gen's namespace, whose markers apigen accepts: an unregistered one is
// parsed as a marker without effect, so the user is told.
const Kubebuilder = "kubebuilder"

// Definition describes one marker.
type Definition struct {
	// Name is the marker name without the leading "+", e.g. "apigen:resource".
	Name   string
	Target Target
	// Args is the type of the marker's argument, which carries the marker's effect as a
	// method (see ResourceEffect and its siblings); nil for a marker without effect that takes
	// no arguments. For a marker with named arguments it is a struct whose exported fields are
	// the arguments: the field tag `marker:"name"` names the argument and
	// `marker:"name,optional"` makes it optional, as in controller-tools, whose grammar reads
	// them (see parseArgs); `marker:"name,enum=A|B"` lists the values allowed, which apigen
	// checks itself. Supported field types: string, bool, int, []string ("a;b" or "{a,b}"),
	// and a pointer to one of them for an optional argument whose absence must be told from
	// an empty value. A flag marker with an effect has an empty struct.
	Args reflect.Type
	// Value is true for markers of the Kubernetes form "+name=value" (e.g. +groupName). Args
	// is then a string type, or a bool type (then "+name" alone means true, as +genclient is
	// written).
	Value bool
	// PassThrough markers are accepted with whatever follows their name (":Minimum=1",
	// "=5") and otherwise ignored: other tools' markers apigen tolerates but does not act on
	// yet, such as +kubebuilder:validation. Marker.Args is the text after the name, of the
	// string type Args when the marker has an effect.
	PassThrough bool
	// NoEffect, when set, says why the marker is accepted but changes nothing (yet): the
	// parser reports each such marker as a warning with its position, never silently.
	NoEffect string
	// Form describes what follows the name of a PassThrough marker that apigen does read
	// itself (a field default's value); empty for one it ignores.
	Form string
	// ClientGen is true for client-gen's tags: on a type that is no resource they shape only
	// its client, and are no error there.
	ClientGen bool
	// Help is a one-line description; Example shows a use.
	Help    string
	Example string

	// ct is the definition controller-tools makes of the argument type, whose grammar reads
	// the marker's arguments or value; nil for a marker that reads none, or reads them in
	// another tool's grammar (a pass-through marker's text, a client-gen tag's value).
	ct *ctmarkers.Definition
}

// Kind is what a type marker may ask of the kind it annotates, besides its resource.
type Kind interface {
	Warner
	// SelectableField resolves a JSON path (.spec.color) to the kind's Go fields.
	SelectableField(jsonPath string) (model.SelectableField, error)
	// ColumnPath says what is wrong with a print column's JSON path, nil when it names a field.
	ColumnPath(jsonPath string) error
	// Scale checks a scale subresource marker's paths against the kind's fields, reporting
	// each problem (and a second scale marker) itself, and returns the subresource, nil when
	// something is wrong.
	Scale(m *Marker) *model.Scale
	// ScaleFields checks a scale subresource's paths against the kind's fields as Scale does,
	// and says what is wrong instead of reporting it: for a scale subresource that no marker
	// of ours declares (client-gen's +genclient:method), which falls back to a warning.
	ScaleFields(a *Scale) (*model.Scale, error)
}

// Warner takes a marker's warnings: something the marker cannot do that the tools the types
// were written for accept without a word. Generation goes on without it.
type Warner interface {
	Warn(pos token.Position, format string, args ...any)
}

// Written is the marker's name as written, with the part of a pass-through marker's text that
// names it ("kubebuilder:validation:Minimum" for +kubebuilder:validation:Minimum=1).
func (m *Marker) Written() string {
	if v := reflect.ValueOf(m.Args); m.Def.PassThrough && v.Kind() == reflect.String {
		return markerName(m.Name + v.String())
	}
	return m.Name
}

// markerName is the name in a marker's text: up to its value or arguments. Controller-gen's
// value markers end in a capitalised name (validation:Minimum=1); an argument is lower case
// (subresource:scale:specpath=..., validation:XValidation:rule=...) and is not part of it.
func markerName(text string) string {
	name, _, hasValue := strings.Cut(text, "=")
	if i := strings.LastIndex(name, ":"); hasValue && strings.Count(name, ":") >= 2 && i+1 < len(name) && unicode.IsLower(rune(name[i+1])) {
		name = name[:i]
	}
	return name
}

// Marker is one parsed occurrence of a marker.
type Marker struct {
	Def *Definition
	// Name is the name as written, which may be an alias of Def.Name.
	Name string
	// Args is a pointer to a filled-in value of Def.Args for a struct; for Value markers it
	// is the value, of Def.Args's type when it has one; for PassThrough markers the text after
	// the name, likewise. Nil for a flag without effect.
	Args any
	Pos  token.Position
}

// Registry holds the known definitions, keyed by target then name. Aliases (kubebuilder's
// spellings) map to the same definition.
type Registry struct {
	defs map[Target]map[string]*Definition
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{defs: map[Target]map[string]*Definition{}}
}

// Register adds a definition under its name and any aliases.
func (r *Registry) Register(d *Definition, aliases ...string) {
	d.ct = grammar(d)
	if r.defs[d.Target] == nil {
		r.defs[d.Target] = map[string]*Definition{}
	}
	for _, name := range append([]string{d.Name}, aliases...) {
		if _, dup := r.defs[d.Target][name]; dup {
			panic(fmt.Sprintf("marker %q registered twice for %s", name, d.Target))
		}
		r.defs[d.Target][name] = d
	}
}

// Definitions returns every definition once, sorted by target then name.
func (r *Registry) Definitions() []*Definition {
	seen := map[*Definition]bool{}
	var out []*Definition
	for _, byName := range r.defs {
		for _, d := range byName {
			if !seen[d] {
				seen[d] = true
				out = append(out, d)
			}
		}
	}
	slices.SortFunc(out, func(a, b *Definition) int {
		if a.Target != b.Target {
			return int(a.Target) - int(b.Target)
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}

// Error is a problem in one marker, positioned at the comment it came from.
type Error struct {
	Pos token.Position
	Msg string
	// Def is the marker's definition when its name was recognised and only its arguments or
	// value are wrong, so that callers can tell "marker present but invalid" from "absent".
	Def *Definition
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Pos, e.Msg) }

// Parse parses one comment line at the given target. It returns (nil, nil) for a line that is
// not a marker or is a marker of another tool's namespace that apigen does not know (the +k8s:
// tags of declarative validation, which kube.Validation reads, and of the upstream generators,
// which they read themselves); it returns
// an error for an unknown marker in apigen's namespace or bad arguments to a known one.
//
// A kubebuilder marker that controller-gen does not recognise (a misspelling such as
// +kubebuilder:object:generate:false) is no error: controller-gen skips it, so the module
// builds with it; it is a marker without effect, which the parser reports as a warning.
func (r *Registry) Parse(line string, target Target, pos token.Position) (*Marker, error) {
	text := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "//"))
	if !strings.HasPrefix(text, "+") {
		return nil, nil
	}
	text = strings.TrimPrefix(text, "+")
	m, err := r.parse(text, target, pos)
	if err == nil || !strings.HasPrefix(text, Kubebuilder+":") {
		return m, err
	}
	if why, ignored := controllerGenIgnores(text, target); ignored {
		return ignoredMarker(text, target, pos, why), nil
	}
	return nil, err
}

// ignoredMarker is a kubebuilder marker accepted without effect, for the reason why.
func ignoredMarker(text string, target Target, pos token.Position, why string) *Marker {
	written := markerName(text)
	return &Marker{Def: &Definition{Name: written, Target: target, PassThrough: true, NoEffect: why}, Name: written, Pos: pos}
}

// parse is Parse of a marker's text without its "+".
func (r *Registry) parse(text string, target Target, pos token.Position) (*Marker, error) {
	name, def, rest := r.lookup(text, target)
	if def == nil {
		switch ns, _, _ := strings.Cut(text, ":"); ns {
		case Namespace:
			return nil, r.unknown(text, target, pos)
		case Kubebuilder:
			// controller-gen's markers mean something to a kubebuilder user: one apigen does
			// not know is accepted, and reported as having no effect.
			why, ignored := controllerGenIgnores(text, target)
			if !ignored {
				why = "apigen does not implement it"
			}
			return ignoredMarker(text, target, pos, why), nil
		}
		return nil, nil
	}
	if def.Name == GenClient && strings.HasPrefix(rest, ":") {
		return nil, nil // another of client-gen's tags, which client-gen reads itself
	}
	m := &Marker{Def: def, Name: name, Pos: pos}
	fail := func(format string, args ...any) error {
		return &Error{Pos: pos, Msg: fmt.Sprintf("+%s: ", name) + fmt.Sprintf(format, args...), Def: def}
	}
	switch {
	case def.PassThrough:
		// The text as written, which the marker's effect reads in its own tool's grammar: a
		// field default with controller-tools' own definition of +kubebuilder:default or of
		// +default (defaults.go), a client method as client-gen reads +genclient:method. The
		// others are read by controller-tools itself when it builds the schema
		// (generators/schema), or by no one.
		m.Args = typed(def, rest)
	case def.Value && def.Args.Kind() == reflect.Bool:
		// No value is no true: controller-gen refuses +kubebuilder:object:root alone
		// ("missing argument").
		if rest == "" {
			return nil, fail("expected true or false, as in %s", def.Example)
		}
		v, ok := strings.CutPrefix(rest, "=")
		b, err := parseValue(def, v)
		if !ok || err != nil {
			return nil, fail("want true or false, found %q", strings.TrimPrefix(rest, "="))
		}
		m.Args = typed(def, b)
	case def.Value:
		v, ok := strings.CutPrefix(rest, "=")
		if !ok || v == "" {
			return nil, fail("expected a value, as in %s", def.Example)
		}
		s, err := parseValue(def, v)
		if err != nil {
			return nil, fail("%s is not a value: %v", v, err)
		}
		m.Args = typed(def, s)
	case def.ct == nil || def.ct.Empty():
		if rest != "" {
			return nil, fail("takes no arguments, found %q", rest[1:])
		}
		if def.Args != nil {
			m.Args = reflect.New(def.Args).Interface()
		}
	default:
		args, err := parseArgs(def, strings.TrimPrefix(rest, ":"))
		if err != nil {
			return nil, fail("%v", err)
		}
		m.Args = args
	}
	return m, nil
}

// typed converts a value or pass-through text to the definition's argument type, which
// carries the marker's effect; it stays as it is for a marker without one.
func typed(def *Definition, v any) any {
	if def.Args == nil {
		return v
	}
	return reflect.ValueOf(v).Convert(def.Args).Interface()
}

// lookup finds the longest registered name that text starts with, followed by the end of
// text, ":" (arguments) or "=" (a value).
func (r *Registry) lookup(text string, target Target) (name string, def *Definition, rest string) {
	for n, d := range r.defs[target] {
		if !strings.HasPrefix(text, n) || len(n) <= len(name) {
			continue
		}
		after := text[len(n):]
		// A value after a marker that takes none is found too, so that it is refused
		// ("+genclient=false"), as controller-gen and client-gen refuse it.
		if after == "" || after[0] == ':' || (after[0] == '=' && (d.Value || d.PassThrough || d.ct == nil || d.ct.Empty())) {
			name, def, rest = n, d, after
		}
	}
	return name, def, rest
}

// unknown builds the error for an unregistered name in apigen's namespace, with the nearest
// registered name as a suggestion, and a hint when the marker exists at another level.
func (r *Registry) unknown(text string, target Target, pos token.Position) error {
	written, _, _ := strings.Cut(text, "=")
	for _, t := range []Target{Package, Type, Field} {
		if t == target {
			continue
		}
		if n, d, _ := r.lookup(text, t); d != nil {
			return &Error{Pos: pos, Msg: fmt.Sprintf("marker %q belongs on a %s, not a %s", "+"+n, t, target)}
		}
	}
	best, bestDist := "", 1<<30
	for n := range r.defs[target] {
		// Compare with as many ":"-segments of what was written as the candidate has.
		segs := strings.Count(n, ":") + 1
		parts := strings.SplitN(written, ":", segs+1)
		cand := strings.Join(parts[:min(segs, len(parts))], ":")
		if d := levenshtein(cand, n); d < bestDist || (d == bestDist && n < best) {
			best, bestDist = n, d
		}
	}
	// Show what was written as far as a name goes: as many ":"-segments as the suggestion
	// has, or, without one, the namespace and one name ("+apigen:optional", arguments cut).
	suggested := best != "" && bestDist <= max(2, len(best)/3)
	segs := 2
	if suggested {
		segs = strings.Count(best, ":") + 1
	}
	parts := strings.SplitN(written, ":", segs+1)
	shown := strings.Join(parts[:min(segs, len(parts))], ":")
	msg := fmt.Sprintf("unknown marker %q", "+"+shown)
	if suggested {
		msg += fmt.Sprintf(" (did you mean %q?)", "+"+best)
	}
	return &Error{Pos: pos, Msg: msg}
}

// grammar is the definition controller-tools makes of d's argument type (MakeDefinition), whose
// grammar then reads d's arguments or value (parseArgs, parseValue): the grammar controller-gen
// reads the same comment lines with, so that kubebuilder's markers mean the same to both
// tools. It is nil for a marker that takes no arguments, or reads its text in another tool's
// grammar: a pass-through marker, and a client-gen tag's value ("+genclient:onlyVerbs=get,list"),
// which client-gen takes as written (gengo's ExtractCommentTags).
func grammar(d *Definition) *ctmarkers.Definition {
	switch {
	case d.Value && d.Args == nil:
		panic(fmt.Sprintf("marker %q: a value marker needs the value's type", d.Name))
	case d.Args == nil || d.PassThrough:
		return nil
	case d.Value && d.ClientGen && d.Args.Kind() == reflect.String:
		return nil
	case !d.Value && d.Args.Kind() != reflect.Struct:
		panic(fmt.Sprintf("marker %q: arguments of type %s are no struct", d.Name, d.Args))
	}
	ct, err := ctmarkers.MakeDefinition(d.Name, ctTargets[d.Target], reflect.Zero(d.Args).Interface())
	if err != nil {
		panic(fmt.Sprintf("marker %q: %v", d.Name, err))
	}
	// controller-tools reads the tags' names and "optional"; apigen's own reading of them
	// (argFields, for enum= and help) must name the same arguments.
	if !d.Value {
		fields := argFields(d.Args)
		for name, f := range fields {
			arg, ok := ct.Fields[name]
			if !ok || ct.FieldNames[name] != d.Args.Field(f.index).Name || arg.Optional != f.optional {
				panic(fmt.Sprintf("marker %q: controller-tools reads argument %q otherwise (%+v)", d.Name, name, arg))
			}
		}
		if len(fields) != len(ct.Fields) {
			panic(fmt.Sprintf("marker %q: every exported field of %s needs a marker tag", d.Name, d.Args))
		}
	}
	return ct
}

var ctTargets = map[Target]ctmarkers.TargetType{
	Package: ctmarkers.DescribesPackage,
	Type:    ctmarkers.DescribesType,
	Field:   ctmarkers.DescribesField,
}

// parseValue reads a value marker's value (the text after "="), in controller-tools' grammar
// when def has it, as written otherwise (a client-gen tag's).
func parseValue(def *Definition, v string) (any, error) {
	if def.ct == nil {
		return v, nil
	}
	out, err := def.ct.Parse("+" + def.Name + "=" + v)
	if err != nil {
		return nil, errors.New(scanMessage(err))
	}
	return out, nil
}

// scanMessage is what controller-tools' parser says is wrong, without its positions in its
// own input ("(at <input>:1:4)"): the marker's error gives the comment's.
func scanMessage(err error) string {
	var msgs []string
	var walk func(error)
	walk = func(err error) {
		var list loader.ErrList
		var scan *ctmarkers.ScannerError
		switch {
		case errors.As(err, &list):
			for _, e := range list {
				walk(e)
			}
		case errors.As(err, &scan):
			msgs = append(msgs, scan.Msg)
		default:
			msgs = append(msgs, err.Error())
		}
	}
	walk(err)
	return strings.Join(msgs, "; ")
}

// parseArgs fills a new value of def.Args from its arguments ("path=flunders,shortName=fl;flu"),
// read as controller-tools' Definition.Parse reads them: with its scanner, argument by argument
// (a name, "=", a value, then "," or the end), each value by controller-tools' Argument.Parse
// for the field's type. It walks the arguments itself, rather than calling Definition.Parse on
// the whole text, to say which argument is wrong, with apigen's messages and suggestions, and
// to reject what Definition.Parse lets through: an argument given twice (the last would win), a
// name without "=" at the end (+apigen:resource:path, read as +apigen:resource), and a value
// that the tag's enum= does not allow.
func parseArgs(def *Definition, text string) (any, error) {
	ct := def.ct
	out := reflect.New(def.Args)
	var scanErrs []string
	s := argScanner(text, func(_ *sc.Scanner, msg string) { scanErrs = append(scanErrs, msg) })
	fields := argFields(def.Args)
	seen := map[string]bool{}
	for more := s.Peek() != sc.EOF; more; {
		switch tok := s.Scan(); {
		case tok == sc.EOF:
			return nil, errors.New(`expected an argument name after ","`)
		case tok != sc.Ident || len(scanErrs) > 0:
			return nil, fmt.Errorf("expected an argument name, found %q", s.TokenText())
		}
		key := s.TokenText()
		if s.Scan() != '=' {
			return nil, fmt.Errorf("argument %q has no value (want %s=...)", key, key)
		}
		arg, ok := ct.Fields[key]
		if !ok {
			names := slices.Sorted(maps.Keys(ct.Fields))
			msg := fmt.Sprintf("unknown argument %q", key)
			if s := suggest(key, names); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			return nil, fmt.Errorf("%s; known arguments: %s", msg, strings.Join(names, ", "))
		}
		if seen[key] {
			return nil, fmt.Errorf("argument %q given twice", key)
		}
		seen[key] = true
		start := s.Pos().Offset
		field := out.Elem().FieldByName(ct.FieldNames[key])
		arg.Parse(s, text, field)
		end := s.Pos().Offset
		more = s.Peek() != sc.EOF
		if len(scanErrs) == 0 && more && s.Scan() != ',' {
			scanErrs = append(scanErrs, fmt.Sprintf("expected \",\" or the end after the value, found %q", s.TokenText()))
		}
		written := strings.TrimSpace(text[start:end])
		if len(scanErrs) > 0 {
			if i := strings.IndexByte(text[start:], ','); i >= 0 {
				end = start + i
			} else {
				end = len(text)
			}
			written = strings.TrimSpace(text[start:end])
			switch arg.Type {
			case ctmarkers.IntType:
				return nil, fmt.Errorf("argument %s=%s: want an integer", key, written)
			case ctmarkers.BoolType:
				return nil, fmt.Errorf("argument %s=%s: want true or false", key, written)
			}
			return nil, fmt.Errorf("argument %s=%s: %s", key, written, strings.Join(scanErrs, "; "))
		}
		if enum := fields[key].enum; len(enum) > 0 && !slices.Contains(enum, reflect.Indirect(field).String()) {
			return nil, fmt.Errorf("argument %s=%s: want one of %s", key, written, strings.Join(enum, ", "))
		}
	}
	var missing []string
	for name, arg := range ct.Fields {
		if !arg.Optional && !seen[name] {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return nil, fmt.Errorf("missing required argument(s) %s", strings.Join(missing, ", "))
	}
	return out.Interface(), nil
}

// argScanner is controller-tools' scanner of a marker's arguments (its parserScanner).
func argScanner(text string, onError func(*sc.Scanner, string)) *sc.Scanner {
	s := &sc.Scanner{}
	s.Init(strings.NewReader(text))
	s.Mode = sc.ScanIdents | sc.ScanInts | sc.ScanFloats | sc.ScanStrings | sc.ScanRawStrings | sc.SkipComments
	s.Error = onError
	return s
}

type argField struct {
	index    int
	optional bool
	// enum lists the allowed values, from the tag option "enum=A|B".
	enum []string
}

// parseTag reads a `marker:"name,optional,enum=A|B"` tag.
func parseTag(tag string) (string, argField) {
	name, opts, _ := strings.Cut(tag, ",")
	var f argField
	for _, o := range strings.Split(opts, ",") {
		switch {
		case o == "optional":
			f.optional = true
		case strings.HasPrefix(o, "enum="):
			f.enum = strings.Split(strings.TrimPrefix(o, "enum="), "|")
		}
	}
	return name, f
}

// argFields maps argument names to struct fields.
func argFields(t reflect.Type) map[string]argField {
	out := map[string]argField{}
	for i := range t.NumField() {
		name, f := parseTag(t.Field(i).Tag.Get("marker"))
		if name == "" {
			continue
		}
		f.index = i
		out[name] = f
	}
	return out
}

// Arg describes one argument of a definition, for help output.
type Arg struct {
	Name     string
	Type     string // "string", "bool", "int" or "list" (values separated by ";")
	Optional bool
	// Enum lists the allowed values, if they are fixed.
	Enum []string
}

// Arguments returns a definition's arguments in declaration order.
func (d *Definition) Arguments() []Arg {
	if d.Args == nil || d.Args.Kind() != reflect.Struct {
		return nil
	}
	var out []Arg
	for i := range d.Args.NumField() {
		sf := d.Args.Field(i)
		name, f := parseTag(sf.Tag.Get("marker"))
		if name == "" {
			continue
		}
		ft := sf.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		typ := ft.Kind().String()
		if ft.Kind() == reflect.Slice {
			typ = "list"
		}
		out = append(out, Arg{Name: name, Type: typ, Optional: f.optional, Enum: f.enum})
	}
	return out
}

// ArgNames returns a definition's argument names with ",optional" where it applies, in
// declaration order, for help output.
func (d *Definition) ArgNames() []string {
	var out []string
	for _, a := range d.Arguments() {
		if a.Optional {
			out = append(out, a.Name+",optional")
		} else {
			out = append(out, a.Name)
		}
	}
	return out
}

// Aliases returns the other names a definition is registered under (kubebuilder's
// spellings), sorted.
func (r *Registry) Aliases(d *Definition) []string {
	var out []string
	for name, def := range r.defs[d.Target] {
		if def == d && name != d.Name {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// suggest returns the candidate nearest to s, if it is near enough to be a likely typo.
func suggest(s string, candidates []string) string {
	best, bestDist := "", 1<<30
	for _, c := range candidates {
		if d := levenshtein(strings.ToLower(s), strings.ToLower(c)); d < bestDist {
			best, bestDist = c, d
		}
	}
	if bestDist <= max(2, len(best)/3) {
		return best
	}
	return ""
}

// levenshtein is the edit distance of a and b, counting a swap of two adjacent characters
// ("nmae" for "name") as one edit, the commonest typo.
func levenshtein(a, b string) int {
	prevprev, prev := make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prevprev[j-2]+1)
			}
		}
		prevprev, prev = prev, cur
	}
	return prev[len(b)]
}
