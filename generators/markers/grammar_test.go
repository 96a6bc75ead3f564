package markers

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	crdmarkers "sigs.k8s.io/controller-tools/pkg/crd/markers"
	ctmarkers "sigs.k8s.io/controller-tools/pkg/markers"
)

// TestOneGrammar parses marker lines with apigen's registry and with controller-tools' own
// definitions of the same markers (controller-gen's, or, for apigen's own markers, the one
// controller-tools makes of the argument type), and wants the same values: a comment line
// means the same to apigen as to controller-gen. Lists ("a;b", "{a,b}"), quoted strings with
// commas and semicolons, bools, negative ints, optional pointer arguments given empty or left
// out, and value markers.
func TestOneGrammar(t *testing.T) {
	crd := func(name string) *ctmarkers.Definition {
		for _, d := range crdmarkers.AllDefinitions {
			if d.Name == name {
				return d.Definition
			}
		}
		t.Fatalf("controller-tools defines no %s", name)
		return nil
	}
	own := func(name string, target ctmarkers.TargetType, args any) *ctmarkers.Definition {
		return ctmarkers.Must(ctmarkers.MakeDefinition(name, target, args))
	}
	// controller-gen's deepcopy generator defines these two (pkg/deepcopy/gen.go).
	objectRoot := own("kubebuilder:object:root", ctmarkers.DescribesType, false)
	objectGenerate := own("kubebuilder:object:generate", ctmarkers.DescribesPackage, false)
	for _, tc := range []struct {
		line   string
		target Target
		ct     *ctmarkers.Definition
	}{
		{"+kubebuilder:resource:path=flunders,singular=flunder,shortName=fl;flu,scope=Cluster,categories={all,wardle}", Type, crd("kubebuilder:resource")},
		{"+kubebuilder:resource:shortName={fl, flu},categories=all", Type, crd("kubebuilder:resource")},
		{"+kubebuilder:resource:path=`flunders`,categories=\"all\";wardle", Type, crd("kubebuilder:resource")},
		{"+kubebuilder:resource", Type, crd("kubebuilder:resource")},
		{"+kubebuilder:printcolumn:name=\"Last Seen\",type=date,JSONPath=`.status.times[?(@.a,@.b)]`,priority=1", Type, crd("kubebuilder:printcolumn")},
		{`+kubebuilder:printcolumn:name=Replicas,type=integer,JSONPath=.spec.replicas,format=int32,priority=-1,description="wanted, not seen; yet"`, Type, crd("kubebuilder:printcolumn")},
		{"+kubebuilder:printcolumn:JSONPath=.spec.a b,type=string,name=A B", Type, crd("kubebuilder:printcolumn")},
		{`+kubebuilder:deprecatedversion:warning="v1alpha1 is deprecated; use v1, please"`, Type, crd("kubebuilder:deprecatedversion")},
		{"+kubebuilder:deprecatedversion:warning=", Type, crd("kubebuilder:deprecatedversion")},
		{"+kubebuilder:deprecatedversion", Type, crd("kubebuilder:deprecatedversion")},
		{`+kubebuilder:selectablefield:JSONPath=".spec.color"`, Type, crd("kubebuilder:selectablefield")},
		{"+kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.selector", Type, crd("kubebuilder:subresource:scale")},
		{"+groupName=wardle.example.com", Package, crd("groupName")},
		{`+groupName="wardle.example.com"`, Package, crd("groupName")},
		{"+kubebuilder:object:root=true", Type, objectRoot},
		{"+kubebuilder:object:root=false", Type, objectRoot},
		{"+kubebuilder:object:generate=true", Package, objectGenerate},
		{`+apigen:deploy:namespace=apis,name=toys,image="registry:5000/toys@sha256:ab"`, Package, own(DeployMarker, ctmarkers.DescribesPackage, Deploy{})},
		{"+apigen:deploy:image=", Package, own(DeployMarker, ctmarkers.DescribesPackage, Deploy{})},
		{"+apigen:clients:enabled=false,dir=pkg/client", Package, own(ClientsMarker, ctmarkers.DescribesPackage, Clients{})},
		{"+apigen:subresource:custom:name=approval,verbs={get,update,patch}", Type, own(CustomSubresourceMarker, ctmarkers.DescribesType, CustomSubresource{})},
		{"+apigen:storage:custom:verbs=get;list;watch", Type, own(CustomStorageMarker, ctmarkers.DescribesType, CustomStorage{})},
		{"+apigen:domain=example.com", Package, own(DomainMarker, ctmarkers.DescribesPackage, "")},
		// Where apigen's own grammar read otherwise: a quoted list item holds its comma, a
		// quoted string is one item, and an empty value takes what follows it up to the end.
		{`+kubebuilder:resource:categories={"a,b",c}`, Type, crd("kubebuilder:resource")},
		{`+kubebuilder:resource:shortName="fl;flu"`, Type, crd("kubebuilder:resource")},
		{"+apigen:deploy:image=,name=toys", Package, own(DeployMarker, ctmarkers.DescribesPackage, Deploy{})},
	} {
		m, err := Apigen().Parse("// "+tc.line, tc.target, pos)
		if err != nil || m == nil {
			t.Errorf("%s: apigen: %v, %v", tc.line, m, err)
			continue
		}
		want, err := tc.ct.Parse(tc.line)
		if err != nil {
			t.Errorf("%s: controller-tools: %v", tc.line, err)
			continue
		}
		if diff := cmp.Diff(argValues(tc.ct, want), argValues(tc.ct, m.Args)); diff != "" {
			t.Errorf("%s: apigen reads otherwise than controller-tools (-controller-tools +apigen):\n%s", tc.line, diff)
		}
	}
}

// TestOneGrammarRejects lists lines that controller-tools' grammar rejects, and wants apigen to
// reject them too.
func TestOneGrammarRejects(t *testing.T) {
	for _, tc := range []struct {
		line   string
		target Target
	}{
		{"+kubebuilder:printcolumn:name=A,type=string,JSONPath=.a,priority=+1", Type},
		{"+kubebuilder:printcolumn:name=A,type=string,JSONPath=.a,priority=1.5", Type},
		{"+kubebuilder:printcolumn:name=A,type=string,JSONPath=.a,", Type},
		{"+kubebuilder:resource:path=a,,scope=Cluster", Type},
		{"+kubebuilder:object:root=True", Type},
		{`+kubebuilder:object:root="true"`, Type},
		{"+apigen:clients:enabled=1", Package},
		{"+groupName=wardle.example.com,x", Package},
		{`+kubebuilder:resource:path="flunders`, Type},
	} {
		if m, err := Apigen().Parse("// "+tc.line, tc.target, pos); err == nil {
			t.Errorf("%s: apigen reads %+v, controller-tools rejects it", tc.line, m.Args)
		}
	}
}

// argValues is a marker's value by argument name, as the definition names them, with
// pointers followed (nil for one left out) and numbers as int64, so that controller-gen's
// types and apigen's compare.
func argValues(d *ctmarkers.Definition, v any) map[string]any {
	out := map[string]any{}
	rv := reflect.Indirect(reflect.ValueOf(v))
	for name, field := range d.FieldNames {
		f := rv
		if field != "" {
			f = rv.FieldByName(field)
		}
		if f.Kind() == reflect.Pointer {
			if f.IsNil() {
				out[name] = nil
				continue
			}
			f = f.Elem()
		}
		switch f.Kind() {
		case reflect.Int, reflect.Int32, reflect.Int64:
			out[name] = f.Int()
		case reflect.String:
			out[name] = f.String()
		case reflect.Bool:
			out[name] = f.Bool()
		case reflect.Slice:
			out[name] = strings.Join(f.Interface().([]string), "|") + "/" + map[bool]string{true: "nil", false: "set"}[f.IsNil()]
		default:
			out[name] = f.Interface()
		}
	}
	return out
}

// TestWhatControllerGenIgnores feeds kubebuilder marker spellings through controller-gen's
// registry (every generator's markers, as cmd/controller-gen registers them) and through
// apigen's: a spelling controller-gen skips (its registry has no definition for it, so the
// module builds) is accepted by apigen as a marker without effect, a warning that names what
// was probably meant, never an error; one controller-gen reads means the same to apigen
// (TestOneGrammar), and one controller-gen refuses, apigen refuses too.
func TestWhatControllerGenIgnores(t *testing.T) {
	ct := controllerGen()
	for _, tc := range []struct {
		line    string
		target  Target
		ignored bool
		// meant is what the warning suggests, empty for no suggestion.
		meant string
	}{
		// As real modules write it on interface types.
		{"+kubebuilder:object:generate:false", Type, true, "+kubebuilder:object:generate=false"},
		{"+kubebuilder:object:generate:true", Package, true, "+kubebuilder:object:generate=true"},
		{"+kubebuilder:object:root:true", Type, true, "+kubebuilder:object:root=true"},
		{"+kubebuilder:subresource:status:true", Type, true, "+kubebuilder:subresource:status"},
		{"+kubebuilder:storageversion:true", Type, true, "+kubebuilder:storageversion"},
		{"+kubebuilder:validaton:Minimum=1", Field, true, "+kubebuilder:validation:Minimum"},
		{"+kubebuilder:scaffold:imports", Type, true, ""},
		{"+kubebuilder:object:generate=false", Type, false, ""},
		{"+kubebuilder:object:generate=true", Package, false, ""},
		{"+kubebuilder:object:root=true", Type, false, ""},
		{"+kubebuilder:subresource:status", Type, false, ""},
		{"+kubebuilder:resource:path=toys,scope=Namespaced", Type, false, ""},
		{"+kubebuilder:validation:Minimum=1", Field, false, ""},
		{"+kubebuilder:deprecatedversion:warning=old", Type, false, ""},
	} {
		def := ct.Lookup(tc.line, ctTargets[tc.target])
		m, err := Apigen().Parse("// "+tc.line, tc.target, pos)
		switch {
		case (def == nil) != tc.ignored:
			t.Errorf("%s: controller-gen ignores it: %v, the case says %v", tc.line, def == nil, tc.ignored)
		case def == nil && (err != nil || m == nil || m.Def.NoEffect == ""):
			t.Errorf("%s: controller-gen ignores it, apigen: %+v, %v; want a marker without effect", tc.line, m, err)
		case def == nil && !strings.Contains(m.Def.NoEffect, "controller-gen knows no marker of this spelling and ignores it too"):
			t.Errorf("%s: the warning %q does not say controller-gen ignores it too", tc.line, m.Def.NoEffect)
		case def == nil && tc.meant != "" && !strings.Contains(m.Def.NoEffect, fmt.Sprintf("did you mean %q?", tc.meant)):
			t.Errorf("%s: the warning %q does not suggest %s", tc.line, m.Def.NoEffect, tc.meant)
		case def == nil && tc.meant == "" && strings.Contains(m.Def.NoEffect, "did you mean"):
			t.Errorf("%s: the warning %q suggests something", tc.line, m.Def.NoEffect)
		case def == nil && m.Written() != strings.TrimPrefix(tc.line, "+") && !strings.HasPrefix(tc.line, "+"+m.Written()+"="):
			t.Errorf("%s: the warning names %q", tc.line, "+"+m.Written())
		case def != nil:
			_, ctErr := def.Parse(tc.line)
			if (ctErr != nil) != (err != nil) {
				t.Errorf("%s: controller-gen reads it (error %v), apigen: %v", tc.line, ctErr, err)
			}
		}
	}
	// What controller-gen reads and refuses, apigen refuses too.
	if _, err := ct.Lookup("+kubebuilder:object:root=yes", ctmarkers.DescribesType).Parse("+kubebuilder:object:root=yes"); err == nil {
		t.Error("controller-gen reads +kubebuilder:object:root=yes")
	}
	if _, err := Apigen().Parse("// +kubebuilder:object:root=yes", Type, pos); err == nil {
		t.Error("apigen accepts +kubebuilder:object:root=yes, which controller-gen refuses")
	}
}

// Every kubebuilder marker apigen defines is one controller-gen recognises at the same level,
// so that apigen never gives an effect to a spelling controller-gen skips.
func TestKubebuilderMarkersAreControllerGens(t *testing.T) {
	for _, d := range Apigen().Definitions() {
		if !strings.HasPrefix(d.Name, Kubebuilder+":") {
			continue
		}
		if _, ignored := controllerGenIgnores(d.Name, d.Target); ignored && d.NoEffect == "" {
			t.Errorf("+%s on a %s: apigen gives it an effect, controller-gen does not recognise it", d.Name, d.Target)
		}
	}
}
