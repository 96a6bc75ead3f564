package kube

import (
	"maps"
	"slices"
	"testing"

	oaargs "k8s.io/kube-openapi/cmd/openapi-gen/args"
	oagen "k8s.io/kube-openapi/pkg/generators"

	"k8s.io/gengo/v2/generator"
	"k8s.io/gengo/v2/types"
)

// TestEnumScopeWrapsDefinitions shows that enumScopedTarget finds openapi-gen's definitions
// generator among GetOpenAPITargets' generators (by its file), and only it: were upstream to
// rename the file, the run would still be right (TestOpenAPINarrowedUniverse) but scan the
// universe once per type again. (Built against a kube-openapi that keeps its enum context,
// hack/patches', it scopes none, by design: keepsEnumContext.)
func TestEnumScopeWrapsDefinitions(t *testing.T) {
	args := oaargs.New()
	args.OutputPkg, args.OutputFile, args.ReportFilename = "example.com/x/openapi", openAPIFile, "-"
	c := &generator.Context{Universe: types.Universe{}, FileTypes: map[string]generator.FileType{}}
	var scoped, others int
	for _, tgt := range oagen.GetOpenAPITargets(c, args, nil) {
		for _, g := range (enumScopedTarget{Target: tgt, file: args.OutputFile}).Generators(c) {
			if _, ok := g.(enumScopedGenerator); ok {
				scoped++
			} else {
				others++
			}
		}
	}
	if scoped != 1 || others != 1 {
		t.Errorf("enumScopedTarget scoped %d of openapi-gen's generators and left %d; want the definitions' alone (1 and 1, the other the API rule report)", scoped, others)
	}
}

// TestEnumScopeForType shows which packages a definition's universe holds whole enough for
// parseEnums: with their enum types and values only, the packages that declare an enum its
// properties reach (through an inlined member, pointers, slices, maps and a named slice) or a
// value of one; every other package is there with no types or constants, but the builtins
// with their string type, which parseEnums compares with.
func TestEnumScopeForType(t *testing.T) {
	u := types.Universe{}
	str := u.Type(types.Name{Name: "string"})
	enum := func(pkg, name string) *types.Type {
		e := u.Type(types.Name{Package: pkg, Name: name})
		e.Kind, e.Underlying, e.CommentLines = types.Alias, str, []string{"+enum"}
		return e
	}
	constant := func(pkg, name string, of *types.Type) {
		v := name
		u.Package(pkg).Constants[name] = &types.Type{Name: types.Name{Package: pkg, Name: name}, Kind: types.DeclarationOf, Underlying: of, ConstValue: &v}
	}
	strct := func(pkg, name string, members ...types.Member) *types.Type {
		s := u.Type(types.Name{Package: pkg, Name: name})
		s.Kind, s.Members = types.Struct, members
		return s
	}
	color, size := enum("a/colors", "Color"), enum("a/sizes", "Size")
	constant("a/colors", "Red", color)
	constant("a/more", "Green", color)
	constant("a/sizes", "Small", size)
	plain := u.Type(types.Name{Package: "a/colors", Name: "Plain"})
	plain.Kind, plain.Underlying = types.Alias, str
	ptr := &types.Type{Name: types.Name{Name: "*a/colors.Color"}, Kind: types.Pointer, Elem: color}
	palette := strct("a/colors", "Palette", types.Member{Name: "Primary", Type: ptr})
	deep := &types.Type{Name: types.Name{Name: "map[string][]*a/colors.Color"}, Kind: types.Map, Key: str,
		Elem: &types.Type{Name: types.Name{Name: "[]*a/colors.Color"}, Kind: types.Slice, Elem: ptr}}

	inlined := strct("a/api", "Inlined", types.Member{Name: "Palette", Embedded: true, Type: palette, Tags: `json:",inline"`})
	nested := strct("a/api", "Nested", types.Member{Name: "Deep", Type: deep})
	sized := strct("a/api", "Sized", types.Member{Name: "Size", Type: size}, types.Member{Name: "Ref", Type: palette})
	none := strct("a/api", "None", types.Member{Name: "Plain", Type: plain})

	s := newEnumScope(u)
	colors := []string{"a/colors", "a/more"}
	for _, tc := range []struct {
		t    *types.Type
		want []string // the packages with enums or values in the definition's universe
	}{
		{inlined, colors},
		{nested, colors},
		{sized, []string{"a/sizes"}}, // Ref refers to Palette, which it does not inline
		{none, nil},
		{color, nil}, // not a struct: no definition
	} {
		got := s.forType(tc.t)
		if !slices.Equal(slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(u))) {
			t.Errorf("%v: the universe has packages %v, want every one of %v", tc.t, slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(u)))
		}
		var withEnums []string
		for key, p := range got {
			if key == "" {
				if len(p.Types) != 1 || p.Types["string"] != str {
					t.Errorf("%v: the builtins hold %v, want the universe's own string alone", tc.t, slices.Sorted(maps.Keys(p.Types)))
				}
				continue
			}
			if p.Path != u[key].Path {
				t.Errorf("%v: package %q stands in for %q", tc.t, p.Path, key)
			}
			if len(p.Types)+len(p.Constants) > 0 {
				withEnums = append(withEnums, key)
			}
			for _, e := range p.Types {
				if e != color && e != size {
					t.Errorf("%v: %v, no enum, is in the universe", tc.t, e)
				}
			}
		}
		if slices.Sort(withEnums); !slices.Equal(withEnums, tc.want) {
			t.Errorf("%v: packages with enums or values %v, want %v", tc.t, withEnums, tc.want)
		}
	}
}
