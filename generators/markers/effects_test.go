package markers

import (
	"go/token"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/apigen-dev/apigen/generators/model"
)

// TestEveryMarkerHasOneHome lists every registered marker with what it changes: the model
// fields its own effect sets (found by applying its Example to a fresh project, group,
// resource or version), or why it has none. A new marker fails this test until its line is
// added, so the list stays the map of where each marker goes.
func TestEveryMarkerHasOneHome(t *testing.T) {
	// Markers whose effect is their argument type's: the model fields the Example changes.
	effects := map[string]string{
		"apigen:clients":              "Project.Clients",
		"apigen:deploy":               "Project.Deploy",
		"apigen:domain":               "Project.Domain",
		"apigen:sql":                  "Project.SQL",
		"groupName":                   "Group.Name",
		"apigen:resource":             "Kind.Plural, Kind.Singular, Kind.ShortNames, Kind.Categories, Kind.Scope",
		"kubebuilder:object:root":     "Kind.Plural, Kind.Singular",
		"genclient":                   "Resource.Subresources, Resource.BuiltInStyle, Kind.Plural, Kind.Singular",
		"apigen:deprecatedversion":    "Resource.Deprecated, Resource.Deprecation",
		"apigen:printcolumn":          "Resource.PrintColumns",
		"apigen:selectablefield":      "Resource.SelectableFields",
		"apigen:storage:custom":       "Kind.CustomStorage",
		"apigen:storageversion":       "Resource.StorageVersionMarked",
		"apigen:subresource:custom":   "Resource.Subresources",
		"apigen:subresource:scale":    "Resource.Subresources",
		"apigen:subresource:status":   "Resource.Subresources",
		"genclient:method":            "a warning (its subresource is not served)",
		"genclient:noStatus":          "Resource.Subresources",
		"genclient:nonNamespaced":     "Kind.Scope",
		"genclient:onlyVerbs":         "Resource.Subresources, Kind.CustomStorage",
		"genclient:readonly":          "Resource.Subresources, Kind.CustomStorage",
		"resourceName":                "Kind.Plural",
		"default":                     "Version.Defaults",
		"kubebuilder:default":         "Version.Defaults",
		"kubebuilder:skipversion":     "Version.Skipped",
		"kubebuilder:unservedversion": "Version.Skipped",
	}
	// Markers without an effect of their own that another marker's reads.
	readBy := map[string]string{
		"genclient:noVerbs": "GenClientTag.DeclaresWith: +genclient does not make the type a resource",
		"apigen:protobuf":   "protobuf.New: the kinds it marks get no protobuf methods",
	}
	for _, d := range Apigen().Definitions() {
		name := d.Target.String() + " " + d.Name
		want, listed := effects[d.Name]
		switch {
		case hasEffect(d):
			if !listed {
				t.Errorf("%s has an effect; add the model fields it changes to the list", name)
				continue
			}
			if got := changedFields(t, d); got != want {
				t.Errorf("%s (%s) changes %s, want %s", name, d.Example, got, want)
			}
		case listed && d.NoEffect == "":
			t.Errorf("%s is listed with an effect but has none", name)
		case readBy[d.Name] != "":
		case d.NoEffect != "":
			// Reported as a warning wherever it is used (TestMarkersWithoutEffect).
		case d.PassThrough:
			// Read by controller-tools for the schema (validation, pruning, list types,
			// CEL) or by the upstream generators (client-gen's tags).
		default:
			if d.Name != "kubebuilder:object:generate" {
				t.Errorf("%s has no effect, is read by no one and is not reported; give it a home", name)
			}
		}
	}
}

// hasEffect reports whether a definition's argument type carries an effect.
func hasEffect(d *Definition) bool {
	if d.Args == nil {
		return false
	}
	ptr := reflect.PointerTo(d.Args)
	for _, effect := range []reflect.Type{
		reflect.TypeFor[ProjectEffect](), reflect.TypeFor[GroupEffect](), reflect.TypeFor[Declaration](),
		reflect.TypeFor[FallbackDeclaration](), reflect.TypeFor[ResourceEffect](), reflect.TypeFor[FieldEffect](),
		reflect.TypeFor[Exclusion](),
	} {
		if ptr.Implements(effect) {
			return true
		}
	}
	return false
}

// changedFields applies a definition's Example to a fresh element of the model (the project,
// a group, a resource, a version) and names the top-level fields it changed (a resource's
// and its kind's), or says it warned. client-gen's tags act on a kind that +genclient declares, with a status subresource.
func changedFields(t *testing.T, d *Definition) string {
	t.Helper()
	m, err := Apigen().Parse("// "+d.Example, d.Target, token.Position{Filename: "doc.go", Line: 1})
	if err != nil || m == nil {
		t.Fatalf("%s: its Example %q does not parse: %v", d.Name, d.Example, err)
	}
	// element is what the marker applies to; declared is the kind as a resource it applies to
	// declares it (Resource.Declared: names, scope, custom storage).
	var element, declared any
	kind := &fakeKind{}
	var apply func() error
	switch effect := m.Args.(type) {
	case ProjectEffect:
		p := model.NewProject("example.com/wardle")
		element, apply = p, func() error { return effect.ApplyToProject(m, p) }
	case GroupEffect:
		g := &model.Group{}
		element, apply = g, func() error { return effect.ApplyToGroup(m, g) }
	case FieldEffect:
		v := &model.Version{}
		element, apply = v, func() error {
			return effect.ApplyToField(m, StructField{Type: "FlunderSpec", Names: []string{"Color"}}, v, kind)
		}
	case Exclusion:
		v := &model.Version{Name: "v1alpha1"}
		r := &model.Resource{Kind: "Flunder", ListKind: "FlunderList"}
		element, apply = v, func() error { effect.ExcludeFromVersion(m, r, v, kind); return nil }
	default:
		r := &model.Resource{Kind: "Flunder", Declared: &model.Kind{Name: "Flunder", Scope: model.Namespaced}, HasSpec: true, HasStatus: true, StatusType: "FlunderStatus"}
		if d.ClientGen {
			// as +genclient's declaration leaves the kind
			r.Marker, r.BuiltInStyle, r.Subresources.Status, r.Declared.Plural = "+"+GenClient, true, true, "flunders"
		}
		element, declared = r, r.Declared
		apply = func() error {
			switch effect := m.Args.(type) {
			case Declaration:
				effect.DeclareResource(m, r)
			case FallbackDeclaration:
				effect.DeclareFallback(m, r)
			case ResourceEffect:
				return effect.ApplyToResource(m, r, kind)
			}
			return nil
		}
	}
	elements := []any{element}
	if declared != nil {
		elements = append(elements, declared)
	}
	var befores []reflect.Value
	for _, e := range elements {
		befores = append(befores, reflect.ValueOf(reflect.ValueOf(e).Elem().Interface())) // a copy
	}
	if err := apply(); err != nil {
		t.Fatalf("%s: %v", d.Example, err)
	}
	var changed []string
	for n, e := range elements {
		before, after := befores[n], reflect.ValueOf(e).Elem()
		for i := range before.NumField() {
			f := before.Type().Field(i)
			if f.Name == "Pos" {
				continue
			}
			if !reflect.DeepEqual(before.Field(i).Interface(), after.Field(i).Interface()) {
				changed = append(changed, before.Type().Name()+"."+f.Name)
			}
		}
	}
	if len(changed) == 0 && kind.warned {
		return "a warning (its subresource is not served)"
	}
	return strings.Join(changed, ", ")
}

// fakeKind answers a type marker's questions as a kind whose every path exists, and records
// whether the marker warned.
type fakeKind struct{ warned bool }

func (*fakeKind) SelectableField(jsonPath string) (model.SelectableField, error) {
	return model.SelectableField{JSONPath: jsonPath}, nil
}
func (*fakeKind) ColumnPath(string) error    { return nil }
func (*fakeKind) Scale(*Marker) *model.Scale { return &model.Scale{} }
func (*fakeKind) ScaleFields(a *Scale) (*model.Scale, error) {
	return &model.Scale{SpecReplicasPath: a.SpecPath, StatusReplicasPath: a.StatusPath, LabelSelectorPath: a.SelectorPath}, nil
}
func (k *fakeKind) Warn(token.Position, string, ...any) {
	k.warned = true
}

// TestGenClientScaleMethod: a +genclient:method that calls /scale with autoscaling/v1's Scale
// serves it from the fields kube-apiserver's workloads use; one with a Scale of another
// package's warns; on a kind an apigen marker declares, the method shapes only the client.
func TestGenClientScaleMethod(t *testing.T) {
	for _, c := range []struct {
		marker, resourceMarker string
		want                   *model.Scale
		warned                 bool
	}{
		{"+genclient:method=GetScale,verb=get,subresource=scale,result=k8s.io/api/autoscaling/v1.Scale", "+genclient",
			&model.Scale{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas", LabelSelectorPath: ".spec.selector", Pos: token.Position{Filename: "doc.go", Line: 1}}, false},
		{"+genclient:method=GetScale,verb=get,subresource=scale,result=Scale", "+genclient", nil, true},
		{"+genclient:method=GetScale,verb=get,subresource=scale,result=k8s.io/api/autoscaling/v1.Scale", "+apigen:resource", nil, false},
	} {
		m, err := Apigen().Parse("// "+c.marker, Type, token.Position{Filename: "doc.go", Line: 1})
		if err != nil {
			t.Fatal(err)
		}
		r := &model.Resource{Kind: "Flunder", Marker: c.resourceMarker, BuiltInStyle: c.resourceMarker == "+genclient"}
		kind := &fakeKind{}
		if err := m.Args.(ResourceEffect).ApplyToResource(m, r, kind); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(r.Subresources.Scale, c.want) || kind.warned != c.warned {
			t.Errorf("%s on a kind %s declares: scale %+v, warned %v; want %+v, warned %v", c.marker, c.resourceMarker, r.Subresources.Scale, kind.warned, c.want, c.warned)
		}
	}
}

// TestOwnStorageMarker: every declaration names the marker of its own family that serves the
// kind from storage of the user's, and that marker, on a kind the declaration declares, does:
// the hint about a kind without a list type (parse's noListHint) takes it from there.
func TestOwnStorageMarker(t *testing.T) {
	reg := Apigen()
	seen := 0
	for _, d := range reg.Definitions() {
		if d.Args == nil {
			continue
		}
		own, ok := reflect.New(d.Args).Interface().(OwnStorage)
		if !ok {
			continue
		}
		seen++
		decl, err := reg.Parse("// "+d.Example, d.Target, token.Position{Filename: "doc.go", Line: 1})
		if err != nil {
			t.Fatalf("%s: %v", d.Example, err)
		}
		text := own.OwnStorageMarker("create")
		m, err := reg.Parse("// "+text, Type, token.Position{Filename: "doc.go", Line: 2})
		if err != nil || m == nil {
			t.Fatalf("%s: its own-storage marker %q does not parse: %v", d.Name, text, err)
		}
		r := &model.Resource{Kind: "Review", Declared: &model.Kind{Name: "Review", Scope: model.Namespaced}, HasSpec: true, HasStatus: true}
		switch effect := decl.Args.(type) {
		case Declaration:
			effect.DeclareResource(decl, r)
		case FallbackDeclaration:
			effect.DeclareFallback(decl, r)
		}
		r.Marker = "+" + decl.Name
		effect, ok := m.Args.(ResourceEffect)
		if !ok {
			t.Fatalf("%s: %q has no effect on a resource", d.Name, text)
		}
		if err := effect.ApplyToResource(m, r, &fakeKind{}); err != nil {
			t.Fatalf("%s: %q: %v", d.Name, text, err)
		}
		if r.Declared.CustomStorage == nil || !slices.Equal(r.Declared.CustomStorage.Verbs, []string{"create"}) {
			t.Errorf("%s: %q leaves the kind's storage %+v, want storage of its own with the verb create", d.Name, text, r.Declared.CustomStorage)
		}
	}
	if seen < 2 {
		t.Errorf("found %d declarations, want +apigen:resource's and +genclient's at least", seen)
	}
}
