package kube

import (
	"io"
	"maps"
	"reflect"
	"slices"

	"k8s.io/gengo/v2"
	"k8s.io/gengo/v2/generator"
	"k8s.io/gengo/v2/types"
)

// openapi-gen's definitions generator builds its enum context afresh for every type, twice:
// newOpenAPITypeWriter calls parseEnums, which walks every package of the context's universe
// for +enum types and every constant for their values, once in Init per type of the
// context's order (for the GetOpenAPIDefinitions entry) and once in GenerateType. The run is
// quadratic in the project's size: each version package declares enums, so even the narrowed
// universe (enumUniverse) grows with the project. kube-openapi keeps that context private, so
// apigen cannot hand it over; instead each call gets a context whose universe holds only what
// that call's enum lookups can reach, from one scan per run (enumScope). The upstream fix,
// one enum context per run, is hack/patches/kube-openapi-enum-context-once.patch.
//
// What the writer reads from the context, in kube-openapi's pkg/generators (openapi.go,
// enum.go; markers.go, extension.go and union.go read only the types' comments):
//   - Namers, through generator.NewSnippetWriter: unchanged.
//   - Order, in Init: unchanged.
//   - Universe, in parseEnums: Type("string") of the builtins (isEnumType compares with that
//     very *Type), and every package's Types and Constants.
//   - Universe, in shouldUseOpenAPIModelName: Package(path).Comments of the type being named
//     (Init) or referred to (GenerateType).
//
// So every package of the run's universe stays, under its own key, as a stand-in that
// shares everything with the package but its Types and Constants (the builtins keep their
// string type: gengo also files every unnamed type of the load, thousands of slices, maps and
// pointers, under the builtins' "" and parseEnums walks them all): there parseEnums finds,
// in GenerateType, only the enum types the definition may look up and their values, and in
// Init, whose entries look up none, nothing. Nothing else reads a package's Types or
// Constants through the context on these paths. A kube-openapi that keeps its enum context
// is left alone (keepsEnumContext).

// enumTypes reports openapi-gen's enum test (isEnumType) over u: a named type whose
// underlying type is the builtin string and that carries +enum.
func enumTypes(u types.Universe) func(*types.Type) bool {
	stringType := u.Type(types.Name{Name: "string"})
	return func(t *types.Type) bool {
		return t.Kind == types.Alias && t.Underlying == stringType &&
			gengo.ExtractCommentTags("+", t.CommentLines)["enum"] != nil
	}
}

// enumScope is one scan of a run's universe for what parseEnums finds.
type enumScope struct {
	// bare has every package of the universe with no types and no constants, but for the
	// builtins' string type.
	bare types.Universe
	// enums has, by universe key, each package that declares an enum type or a constant of
	// one, with only those types and constants.
	enums types.Universe
	// where lists, for each enum type, the keys of the packages that declare it or a
	// constant of it: where parseEnums finds the type and its values.
	where map[types.Name][]string
}

func newEnumScope(u types.Universe) *enumScope {
	isEnum := enumTypes(u)
	stringType := u.Type(types.Name{Name: "string"})
	s := &enumScope{bare: types.Universe{}, enums: types.Universe{}, where: map[types.Name][]string{}}
	standIn := func(key string, pkg *types.Package) *types.Package {
		if p := s.enums[key]; p != nil {
			return p
		}
		p := *pkg
		p.Types, p.Constants = map[string]*types.Type{}, map[string]*types.Type{}
		s.enums[key] = &p
		return &p
	}
	for _, key := range slices.Sorted(maps.Keys(u)) {
		pkg := u[key]
		for name, t := range pkg.Types {
			if isEnum(t) {
				standIn(key, pkg).Types[name] = t
				s.where[t.Name] = append(s.where[t.Name], key)
			}
		}
	}
	for _, key := range slices.Sorted(maps.Keys(u)) {
		pkg := u[key]
		for name, c := range pkg.Constants {
			// parseEnums matches a constant to its enum type by the type's name.
			if c.Underlying == nil {
				continue
			}
			if keys, ok := s.where[c.Underlying.Name]; ok {
				standIn(key, pkg).Constants[name] = c
				if !slices.Contains(keys, key) {
					s.where[c.Underlying.Name] = append(keys, key)
				}
			}
		}
	}
	for key, pkg := range u {
		p := *pkg
		p.Types, p.Constants = map[string]*types.Type{}, map[string]*types.Type{}
		if key == "" {
			p.Types["string"] = stringType // the universe's own, for isEnumType
		}
		s.bare[key] = &p
	}
	return s
}

// forType returns the universe for the writer of t's definition: bare, with the packages
// where each enum t's definition may look up is found. The lookups (kube-openapi's
// enumContext.EnumType, which looks through one pointer) are of t's members' types, of the
// members of the members it inlines (generateMembers), and of the elements of their slices,
// arrays and maps (generateProperty, generateMapProperty, generateSliceProperty). forType
// takes every type name reachable from t's members through pointers, aliases, slices,
// arrays, maps and embedded members: a superset, which is sound, since a name that is no
// enum is found in neither universe, and an enum's type and values are found whole.
func (s *enumScope) forType(t *types.Type) types.Universe {
	u := maps.Clone(s.bare)
	if t.Kind != types.Struct { // openapi-gen writes definitions of structs only
		return u
	}
	seen := map[*types.Type]bool{}
	var property func(*types.Type)
	property = func(x *types.Type) {
		for x != nil && !seen[x] {
			seen[x] = true
			for _, key := range s.where[x.Name] {
				u[key] = s.enums[key]
			}
			switch x.Kind {
			case types.Pointer, types.Slice, types.Array:
				x = x.Elem
			case types.Map:
				property(x.Key)
				x = x.Elem
			case types.Alias:
				x = x.Underlying
			default:
				return
			}
		}
	}
	inlined := map[*types.Type]bool{}
	var members func(*types.Type)
	members = func(x *types.Type) {
		for x != nil && (x.Kind == types.Pointer || x.Kind == types.Alias) {
			if x.Kind == types.Pointer {
				x = x.Elem
			} else {
				x = x.Underlying
			}
		}
		if x == nil || inlined[x] {
			return
		}
		inlined[x] = true
		for _, m := range x.Members {
			property(m.Type)
			if m.Embedded {
				members(m.Type)
			}
		}
	}
	members(t)
	return u
}

// enumScopedTarget gives the generator of its target's file (openapi-gen's definitions) an
// enumScope.
type enumScopedTarget struct {
	generator.Target
	file string
}

func (t enumScopedTarget) Generators(c *generator.Context) []generator.Generator {
	gens := t.Target.Generators(c)
	var scope *enumScope
	for i, g := range gens {
		if g.FileType() == generator.GoFileType && g.Filename() == t.file && !keepsEnumContext(g) {
			if scope == nil {
				scope = newEnumScope(c.Universe) // the run's universe: one scan per run
			}
			gens[i] = enumScopedGenerator{Generator: g, scope: scope}
		}
	}
	return gens
}

// keepsEnumContext reports whether openapi-gen's generator keeps an enum context of its own,
// in a field of kube-openapi's enumContext type, as
// hack/patches/kube-openapi-enum-context-once.patch has it do: such a generator builds the
// context once, from the universe of its first writer (Init's, which enumScope leaves without
// enums), so it must see the run's universe, and its scan is paid once anyway. Were upstream
// to keep it some other way, TestOpenAPINarrowedUniverse would fail: the definitions would
// list no enum values.
func keepsEnumContext(g generator.Generator) bool {
	t := reflect.TypeOf(g)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return false
	}
	for f := range t.Fields() {
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Name() == "enumContext" && ft.PkgPath() == "k8s.io/kube-openapi/pkg/generators" {
			return true
		}
	}
	return false
}

// enumScopedGenerator runs Init and GenerateType with a context whose universe is narrowed
// for the enum scan; every other method gets the context gengo passes.
type enumScopedGenerator struct {
	generator.Generator
	scope *enumScope
}

// Init writes GetOpenAPIDefinitions, whose entries look up no enum (generateCall).
func (g enumScopedGenerator) Init(c *generator.Context, w io.Writer) error {
	scoped := *c
	scoped.Universe = maps.Clone(g.scope.bare)
	return g.Generator.Init(&scoped, w)
}

func (g enumScopedGenerator) GenerateType(c *generator.Context, t *types.Type, w io.Writer) error {
	scoped := *c
	scoped.Universe = g.scope.forType(t)
	return g.Generator.GenerateType(&scoped, t, w)
}
