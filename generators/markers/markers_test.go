package markers

import (
	"fmt"
	"go/token"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apigen-dev/apigen/generators/model"
)

var pos = token.Position{Filename: "pkg/apis/wardle/v1/types.go", Line: 7, Column: 1}

func TestParseResource(t *testing.T) {
	reg := Apigen()
	m, err := reg.Parse("// +apigen:resource:path=flunders,singular=flunder,shortName=fl;flu,scope=Cluster,categories={all,wardle}", Type, pos)
	if err != nil {
		t.Fatal(err)
	}
	want := &Resource{Path: "flunders", Singular: "flunder", ShortName: []string{"fl", "flu"}, Scope: "Cluster", Categories: []string{"all", "wardle"}}
	if diff := cmp.Diff(want, m.Args); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
	if m.Def.Name != ResourceMarker || m.Pos != pos {
		t.Errorf("got %s at %v", m.Def.Name, m.Pos)
	}
}

func TestKubebuilderAliases(t *testing.T) {
	reg := Apigen()
	for line, want := range map[string]string{
		"// +kubebuilder:resource:path=flunders,scope=Namespaced": ResourceMarker,
		"// +kubebuilder:subresource:status":                      StatusSubresourceMarker,
		"// +kubebuilder:storageversion":                          StorageVersionMarker,
	} {
		m, err := reg.Parse(line, Type, pos)
		if err != nil || m == nil || m.Def.Name != want {
			t.Errorf("%s: got %+v, %v; want %s", line, m, err, want)
		}
	}
}

func TestKubebuilderPassThrough(t *testing.T) {
	for _, tc := range []struct {
		line   string
		target Target
	}{
		{"// +kubebuilder:validation:Minimum=1", Field},
		{"// +kubebuilder:validation:Enum=a;b", Type},
		{"// +kubebuilder:validation:Optional", Package},
		{"// +kubebuilder:default=5", Field},
		{`// +kubebuilder:default:="x"`, Field},
		{"// +kubebuilder:object:root=true", Type},
	} {
		if m, err := Apigen().Parse(tc.line, tc.target, pos); m == nil || err != nil {
			t.Errorf("%s: got %+v, %v; want it accepted", tc.line, m, err)
		}
	}
	// A bool marker needs its value, as controller-gen says ("missing argument").
	for _, line := range []string{"// +kubebuilder:object:root", "// +kubebuilder:object:generate"} {
		if _, err := Apigen().Parse(line, Type, pos); err == nil || !strings.Contains(err.Error(), "true or false") {
			t.Errorf("%s: got %v; want it refused for want of a value", line, err)
		}
	}
}

func TestPrintColumn(t *testing.T) {
	m, err := Apigen().Parse("// +kubebuilder:printcolumn:name=Age,type=date,JSONPath=.metadata.creationTimestamp,priority=1", Type, pos)
	if err != nil {
		t.Fatal(err)
	}
	want := &PrintColumn{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp", Priority: 1}
	if diff := cmp.Diff(want, m.Args); diff != "" || m.Def.Name != PrintColumnMarker {
		t.Errorf("%s (-want +got):\n%s", m.Def.Name, diff)
	}
}

func TestGroupName(t *testing.T) {
	m, err := Apigen().Parse("// +groupName=wardle.example.com", Package, pos)
	if err != nil || m == nil || m.Args != GroupName("wardle.example.com") {
		t.Fatalf("got %+v, %v", m, err)
	}
}

func TestForeignMarkersAreIgnored(t *testing.T) {
	for _, line := range []string{"// +genclient:fakeClient", "// +k8s:deepcopy-gen=package", "// +optional", "// plain comment"} {
		if m, err := Apigen().Parse(line, Type, pos); m != nil || err != nil {
			t.Errorf("%s: got %+v, %v; want it ignored", line, m, err)
		}
	}
}

// client-gen's tags are Kubernetes' resource markers: +genclient and the tags that shape the
// server are parsed, in the forms client-gen accepts them in, and only those.
func TestGenClientTags(t *testing.T) {
	for line, want := range map[string]any{
		"// +genclient":                          &GenClientTag{},
		"// +genclient:nonNamespaced":            &NonNamespacedTag{},
		"// +genclient:onlyVerbs=create":         OnlyVerbsTag("create"),
		"// +genclient:method=GetScale,verb=get": MethodTag("=GetScale,verb=get"),
	} {
		m, err := Apigen().Parse(line, Type, pos)
		if err != nil || m == nil || !reflect.DeepEqual(m.Args, want) {
			t.Errorf("%s: got %+v, %v; want args %v", line, m, err, want)
		}
	}
	// client-gen refuses a value ("+genclient=false is invalid, use //+genclient ... or omit
	// it"): a type it would fail on is not quietly left out.
	for _, line := range []string{"// +genclient=false", "// +genclient=true"} {
		if _, err := Apigen().Parse(line, Type, pos); err == nil || !strings.Contains(err.Error(), "takes no arguments") {
			t.Errorf("%s: got %v; want it refused as taking no arguments", line, err)
		}
	}
}

// A kubebuilder marker apigen does not implement, or implements without effect, is parsed
// with the reason, so that the user is warned, named as controller-gen names it.
func TestMarkersWithoutEffect(t *testing.T) {
	for line, want := range map[string]string{
		"// +kubebuilder:metadata:labels=team=toys":                 "kubebuilder:metadata",
		"// +kubebuilder:validation:Minimun=1":                      "kubebuilder:validation:Minimun",
		"// +kubebuilder:validation:XValidations:rule=\"self > 0\"": "kubebuilder:validation:XValidations",
	} {
		m, err := Apigen().Parse(line, Type, pos)
		if err != nil || m == nil || m.Def.NoEffect == "" || m.Written() != want {
			t.Errorf("%s: got %+v, %v; want a marker without effect named %s", line, m, err, want)
		}
	}
	// Implemented ones carry no such reason.
	for _, line := range []string{"// +kubebuilder:resource:path=toys", "// +kubebuilder:object:root=true", "// +kubebuilder:storageversion",
		"// +kubebuilder:printcolumn:name=A,type=string,JSONPath=.a", "// +kubebuilder:selectablefield:JSONPath=.spec.a",
		"// +kubebuilder:deprecatedversion:warning=\"old\"", "// +kubebuilder:validation:Minimum=1",
		"// +kubebuilder:validation:XValidation:rule=\"self > 0\",message=\"positive\"", "// +kubebuilder:validation:items:Pattern=`^a`",
		"// +kubebuilder:validation:MaxItems=3", "// +listType=map", "// +kubebuilder:validation:Enum=a;b",
		"// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.n", "// +kubebuilder:skipversion",
		"// +kubebuilder:object:generate=false", "// +kubebuilder:object:generate=true"} {
		if m, err := Apigen().Parse(line, Type, pos); err != nil || m == nil || m.Def.NoEffect != "" {
			t.Errorf("%s: got %+v, %v; want an implemented marker", line, m, err)
		}
	}
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		line   string
		target Target
		want   string
	}{
		{"// +apigen:resorce:path=flunders", Type, `unknown marker "+apigen:resorce" (did you mean "+apigen:resource"?)`},
		{"// +apigen:subresource:stats", Type, `unknown marker "+apigen:subresource:stats" (did you mean "+apigen:subresource:status"?)`},
		{"// +apigen:resource:pth=flunders", Type, `+apigen:resource: unknown argument "pth" (did you mean "path"?)`},
		{"// +apigen:resource:path", Type, `argument "path" has no value`},
		{"// +apigen:resource:path=a,path=b", Type, `argument "path" given twice`},
		{"// +apigen:subresource:status:x=y", Type, `takes no arguments`},
		{"// +apigen:resource:path=flunders", Package, `marker "+apigen:resource" belongs on a type, not a package`},
		{"// +groupName=", Package, `expected a value`},
		{"// +apigen:resource:scope=Sideways", Type, `argument scope=Sideways: want one of Namespaced, Cluster`},
		{"// +apigen:printcolumn:name=A,type=string,JSONPath=.a,priority=high", Type, `argument priority=high: want an integer`},
		{"// +apigen:printcolumn:name=A,type=text,JSONPath=.a", Type, `want one of integer, number, string, boolean, date`},
		{"// +apigen:printcolumn:name=A", Type, `missing required argument(s) JSONPath, type`},
		{"// +kubebuilder:object:root=yes", Type, `want true or false, found "yes"`},
	} {
		_, err := Apigen().Parse(tc.line, tc.target, pos)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", tc.line, err, tc.want)
			continue
		}
		if !strings.HasPrefix(err.Error(), pos.String()+": ") {
			t.Errorf("%s: error %q does not start with the position", tc.line, err)
		}
	}
}

// FuzzParse checks that no comment line makes the parser panic.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"// +apigen:resource:path=flunders,shortName=fl;flu,categories={a,b}",
		`// +apigen:resource:path="a,b",scope=Cluster`,
		"// +groupName=wardle.example.com",
		"// +apigen:subresource:status",
		"// +apigen:",
		"// +",
	} {
		f.Add(s)
	}
	reg := Apigen()
	f.Fuzz(func(t *testing.T, line string) {
		for _, target := range []Target{Package, Type, Field} {
			_, _ = reg.Parse(line, target, pos)
		}
	})
}

// TestQuotedValues covers kubebuilder's quoting: "..." and raw `...` values, which may hold
// commas.
func TestQuotedValues(t *testing.T) {
	m, err := Apigen().Parse("// +kubebuilder:printcolumn:name=\"Last Seen\",type=date,JSONPath=`.status.times[?(@.a,@.b)]`,priority=1", Type, pos)
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("%+v", m.Args)
	for _, want := range []string{"Last Seen", ".status.times[?(@.a,@.b)]"} {
		if !strings.Contains(got, want) {
			t.Errorf("args %s lack %q", got, want)
		}
	}
}

// Optional pointer arguments tell an argument given empty from one left out.
func TestParseDeploy(t *testing.T) {
	str := func(s string) *string { return &s }
	for line, want := range map[string]*Deploy{
		"// +apigen:deploy": {},
		"// +apigen:deploy:namespace=apis,name=toys,image=example.com/toys:v0.1.0": {Namespace: str("apis"), Name: str("toys"), Image: str("example.com/toys:v0.1.0")},
		"// +apigen:deploy:image=":                               {Image: str("")},
		`// +apigen:deploy:image="registry:5000/toys@sha256:ab"`: {Image: str("registry:5000/toys@sha256:ab")},
	} {
		m, err := Apigen().Parse(line, Package, pos)
		if err != nil {
			t.Errorf("%s: %v", line, err)
			continue
		}
		if diff := cmp.Diff(want, m.Args); diff != "" {
			t.Errorf("%s: args (-want +got):\n%s", line, diff)
		}
	}
	if _, err := Apigen().Parse("// +apigen:deploy:nmespace=apis", Package, pos); err == nil || !strings.Contains(err.Error(), `did you mean "namespace"?`) {
		t.Errorf("misspelt argument: %v", err)
	}
	var def *Definition
	for _, d := range Apigen().Definitions() {
		if d.Name == DeployMarker {
			def = d
		}
	}
	if got := fmt.Sprint(def.Arguments()); got != "[{namespace string true []} {name string true []} {image string true []}]" {
		t.Errorf("arguments = %s", got)
	}
}

// +genclient:onlyVerbs on a kind +genclient declares is +apigen:storage:custom with those
// verbs (client-gen's spelling taken as the server's) and no status subresource, as
// kube-apiserver serves a review; on a kind another marker declares it shapes only the client.
func TestGenClientOnlyVerbs(t *testing.T) {
	m, err := Apigen().Parse("// +genclient:onlyVerbs=create,get,deleteCollection,updateStatus", Type, pos)
	if err != nil {
		t.Fatal(err)
	}
	r := &model.Resource{Kind: "Review", Declared: &model.Kind{Name: "Review"}, Marker: "+genclient", BuiltInStyle: true, HasStatus: true, Subresources: model.Subresources{Status: true}}
	apply := func(m *Marker, r *model.Resource) error { return m.Args.(ResourceEffect).ApplyToResource(m, r, nil) }
	if err := apply(m, r); err != nil || r.Declared.CustomStorage == nil ||
		!slices.Equal(r.Declared.CustomStorage.Verbs, []string{"create", "deletecollection", "get"}) || r.Subresources.Status {
		t.Errorf("got %v, %+v, status subresource %v", err, r.Declared.CustomStorage, r.Subresources.Status)
	}
	if err := apply(m, r); err == nil || !strings.Contains(err.Error(), "already has custom storage") {
		t.Errorf("a second custom storage: %v", err)
	}
	other := &model.Resource{Kind: "Widget", Declared: &model.Kind{Name: "Widget"}, Marker: "+apigen:resource"}
	if err := apply(m, other); err != nil || other.Declared.CustomStorage != nil {
		t.Errorf("on an apigen resource: %v, %+v", err, other.Declared.CustomStorage)
	}
	bad, _ := Apigen().Parse("// +genclient:onlyVerbs=create,proxy", Type, pos)
	if err := apply(bad, &model.Resource{Kind: "Review", Declared: &model.Kind{Name: "Review"}, Marker: "+genclient", BuiltInStyle: true}); err == nil || !strings.Contains(err.Error(), `"proxy" is not one of`) {
		t.Errorf("an unknown verb: %v", err)
	}
}

// +genclient:readonly is client-gen's +genclient:onlyVerbs=get,list,watch: a kind +genclient
// declares is served by storage the user writes with those verbs (k8s.io/metrics' kinds, which
// metrics-server serves from memory).
func TestGenClientReadonly(t *testing.T) {
	m, err := Apigen().Parse("// +genclient:readonly", Type, pos)
	if err != nil {
		t.Fatal(err)
	}
	r := &model.Resource{Kind: "NodeMetrics", Declared: &model.Kind{Name: "NodeMetrics"}, Marker: "+genclient", BuiltInStyle: true}
	if err := m.Args.(ResourceEffect).ApplyToResource(m, r, nil); err != nil || r.Declared.CustomStorage == nil ||
		!slices.Equal(r.Declared.CustomStorage.Verbs, []string{"get", "list", "watch"}) {
		t.Errorf("got %v, %+v", err, r.Declared.CustomStorage)
	}
}

// +resourceName names the resource the generated clients call, so the server serves it under
// that name; a resource marker's explicit path that differs is an error, not a silent choice.
func TestResourceName(t *testing.T) {
	m, err := Apigen().Parse("// +resourceName=nodes", Type, pos)
	if err != nil {
		t.Fatal(err)
	}
	apply := func(r *model.Resource) error { return m.Args.(ResourceEffect).ApplyToResource(m, r, nil) }
	r := &model.Resource{Kind: "NodeMetrics", Declared: &model.Kind{Name: "NodeMetrics", Plural: "nodemetricses"}}
	if err := apply(r); err != nil || r.Declared.Plural != "nodes" {
		t.Errorf("with the default plural: %v, plural %q", err, r.Declared.Plural)
	}
	same := &model.Resource{Kind: "NodeMetrics", Declared: &model.Kind{Name: "NodeMetrics", Plural: "nodes"}}
	if err := apply(same); err != nil || same.Declared.Plural != "nodes" {
		t.Errorf("with the same path: %v, plural %q", err, same.Declared.Plural)
	}
	other := &model.Resource{Kind: "NodeMetrics", Declared: &model.Kind{Name: "NodeMetrics", Plural: "nodemetrics"}}
	if err := apply(other); err == nil || !strings.Contains(err.Error(), "+resourceName=nodes: the resource marker serves NodeMetrics as nodemetrics") || other.Declared.Plural != "nodemetrics" {
		t.Errorf("with another explicit path: %v, plural %q", err, other.Declared.Plural)
	}
}
