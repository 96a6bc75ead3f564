package parse_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apigen-dev/apigen/generators/loader"
	"github.com/apigen-dev/apigen/generators/model"
	"github.com/apigen-dev/apigen/generators/parse"
)

// project writes a module with the given files, reusing examples/wardle's go.mod and go.sum so
// that it loads from the module cache.
func project(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"go.mod", "go.sum"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "examples", "wardle", name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = string(data)
	}
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func load(t *testing.T, dir string) (*model.Project, error) {
	t.Helper()
	res, err := loader.Run(dir, loader.Options{})
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return parse.Project(res)
}

const header = "package v1\n\nimport (\n\t\"context\"\n\n\tmetav1 \"k8s.io/apimachinery/pkg/apis/meta/v1\"\n\t\"k8s.io/apimachinery/pkg/util/validation/field\"\n)\n\nvar _ = context.TODO\nvar _ field.ErrorList\n"

func TestModel(t *testing.T) {
	dir := project(t, map[string]string{
		"pkg/apis/toys/v1/doc.go": "// +groupName=toys.example.com\npackage v1\n",
		"pkg/apis/toys/v1/types.go": header + `
// +genclient

// Widget is a widget.
// +apigen:resource:shortName=wd;wdg,categories=all
// +apigen:subresource:status
type Widget struct {
	metav1.TypeMeta   ` + "`json:\",inline\"`" + `
	metav1.ObjectMeta ` + "`json:\"metadata,omitempty\"`" + `
	Spec   WidgetSpec   ` + "`json:\"spec,omitempty\"`" + `
	Status WidgetStatus ` + "`json:\"status,omitempty\"`" + `
}
type WidgetSpec struct{}
type WidgetStatus struct{}
type WidgetList struct {
	metav1.TypeMeta ` + "`json:\",inline\"`" + `
	metav1.ListMeta ` + "`json:\"metadata,omitempty\"`" + `
	Items []Widget ` + "`json:\"items\"`" + `
}
func (w *Widget) Validate(ctx context.Context) field.ErrorList { return nil }
func (w *Widget) Default() {}

// +kubebuilder:resource:scope=Cluster,path=policies
type Policy struct {
	metav1.TypeMeta   ` + "`json:\",inline\"`" + `
	metav1.ObjectMeta ` + "`json:\"metadata,omitempty\"`" + `
}
type PolicyList struct {
	metav1.TypeMeta ` + "`json:\",inline\"`" + `
	metav1.ListMeta ` + "`json:\"metadata,omitempty\"`" + `
	Items []Policy ` + "`json:\"items\"`" + `
}
`,
	})
	p, err := load(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Groups) != 1 || len(p.Groups[0].Versions) != 1 {
		t.Fatalf("want one group with one version, got %+v", p.Groups)
	}
	g, v := p.Groups[0], p.Groups[0].Versions[0]
	if g.Name != "toys.example.com" || g.Package != "toys" || v.Name != "v1" || v.Dir != "pkg/apis/toys/v1" {
		t.Errorf("group/version: got %+v / %+v", g, v)
	}
	var got []model.Resource
	for _, r := range v.Resources {
		if r.Of != g.Kind(r.Kind) {
			t.Errorf("%s: the resource's kind is not the group's", r.Kind)
		}
		// Positions are checked below, and so are the kinds.
		got = append(got, *r)
		got[len(got)-1].Of, got[len(got)-1].Declared = nil, nil
	}
	want := []model.Resource{
		{Kind: "Policy", ListKind: "PolicyList", Marker: "+kubebuilder:resource"},
		{Kind: "Widget", ListKind: "WidgetList", HasSpec: true, HasStatus: true, StatusType: "WidgetStatus",
			Subresources: model.Subresources{Status: true}, Hooks: model.Hooks{Validate: true, Default: true}, Marker: "+apigen:resource"},
	}
	if diff := cmp.Diff(want, got, cmpIgnorePos); diff != "" {
		t.Errorf("resources (-want +got):\n%s", diff)
	}
	var kinds []model.Kind
	for _, k := range g.Kinds {
		kinds = append(kinds, *k)
		kinds[len(kinds)-1].Storage, kinds[len(kinds)-1].Versions = nil, nil
	}
	wantKinds := []model.Kind{
		{Name: "Policy", Plural: "policies", Singular: "policy", ListKind: "PolicyList", Scope: model.Cluster},
		{Name: "Widget", Plural: "widgets", Singular: "widget", ShortNames: []string{"wd", "wdg"}, Categories: []string{"all"}, ListKind: "WidgetList", Scope: model.Namespaced},
	}
	if diff := cmp.Diff(wantKinds, kinds); diff != "" {
		t.Errorf("kinds (-want +got):\n%s", diff)
	}
	if pos := v.Resources[1].Pos; pos.Filename != "pkg/apis/toys/v1/types.go" || pos.Line != 16 {
		t.Errorf("Widget position: got %v, want pkg/apis/toys/v1/types.go:16 (its +apigen:resource line)", pos)
	}
	// Without +apigen:deploy the names come from the project name.
	if want := model.DefaultDeploy("wardle"); p.Deploy != want {
		t.Errorf("deploy = %+v, want the defaults %+v", p.Deploy, want)
	}
}

// TestDeploy reads +apigen:deploy from pkg/apis/doc.go: what it leaves out keeps its default,
// except the image, which follows the name.
func TestDeploy(t *testing.T) {
	dir := project(t, map[string]string{
		"pkg/apis/doc.go": "// Package apis.\n//\n// +apigen:domain=example.com\n// +apigen:deploy:name=toys-server\npackage apis\n",
	})
	p, err := load(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	want := model.Deploy{Namespace: "wardle-system", Name: "toys-server", Image: "toys-server:latest"}
	if diff := cmp.Diff(want, p.Deploy, cmpIgnorePos); diff != "" {
		t.Errorf("deploy (-want +got):\n%s", diff)
	}
	if pos := p.Deploy.Pos; pos.Filename != "pkg/apis/doc.go" || pos.Line != 4 {
		t.Errorf("deploy position: got %v, want pkg/apis/doc.go:4", pos)
	}
}

// TestClients reads +apigen:clients from pkg/apis/doc.go: clients are on under pkg/generated
// unless it says otherwise, and a directory outside pkg/ is an error at the marker.
func TestClients(t *testing.T) {
	for _, tc := range []struct {
		marker string
		want   model.Clients
		err    string
	}{
		{"", model.Clients{Enabled: true, Dir: "pkg/generated"}, ""},
		{"// +apigen:clients:enabled=false\n", model.Clients{Enabled: false, Dir: "pkg/generated"}, ""},
		{"// +apigen:clients:dir=pkg/client\n", model.Clients{Enabled: true, Dir: "pkg/client"}, ""},
		{"// +apigen:clients:dir=../client\n", model.Clients{}, `pkg/apis/doc.go:3:1: +apigen:clients:dir="../client" must be a clean directory under pkg/`},
		{"// +apigen:clients:dir=client\n", model.Clients{}, `+apigen:clients:dir="client" must be a clean directory under pkg/`},
	} {
		dir := project(t, map[string]string{"pkg/apis/doc.go": "// Package apis.\n//\n" + tc.marker + "package apis\n"})
		p, err := load(t, dir)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.marker, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, p.Clients, cmpIgnorePos); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tc.marker, diff)
		}
	}
}

var cmpIgnorePos = cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Pos" }, cmp.Ignore())

func TestErrorsAreAllReportedWithPositions(t *testing.T) {
	dir := project(t, map[string]string{
		"pkg/apis/toys/v1/doc.go":    "// +groupName=toys.example.com\npackage v1\n",
		"pkg/apis/other/v1/types.go": header + "\n// +apigen:resource\ntype Orphan struct {\n\tmetav1.TypeMeta\n\tmetav1.ObjectMeta\n}\n",
		"pkg/apis/toys/v1/types.go": header + `
// +apigen:resorce:path=widgets
type Widget struct{}

// +apigen:resource:path=things,scop=Cluster
type Thing struct{}

// +apigen:resource
type Nolist struct {
	metav1.TypeMeta
	metav1.ObjectMeta
}

// +apigen:resource
type NotAStruct string

// +apigen:resource
type Hooked struct {
	metav1.TypeMeta
	metav1.ObjectMeta
}
type HookedList struct {
	metav1.TypeMeta
	metav1.ListMeta
	Items []Hooked ` + "`json:\"items\"`" + `
}
func (h *Hooked) Validate() error { return nil }
`,
	})
	_, err := load(t, dir)
	if err == nil {
		t.Fatal("want errors, got none")
	}
	want := strings.Join([]string{
		`pkg/apis/other/v1/types.go:1:1: package example.com/wardle/pkg/apis/other/v1 has resources but no +groupName; add "// +groupName=other.<your domain>" to its doc.go`,
		`pkg/apis/other/v1/types.go:13:1: +apigen:resource is set on Orphan, which has no list type, and its etcd store lists and watches it (a kind that is never listed, such as a review, can have storage of its own instead: +apigen:storage:custom:verbs=create); add: type OrphanList struct { metav1.TypeMeta ` + "`json:\",inline\"`; metav1.ListMeta `json:\"metadata,omitempty\"`; Items []Orphan `json:\"items\"` }",
		`pkg/apis/toys/v1/types.go:13:1: unknown marker "+apigen:resorce" (did you mean "+apigen:resource"?)`,
		`pkg/apis/toys/v1/types.go:16:1: +apigen:resource: unknown argument "scop" (did you mean "scope"?); known arguments: categories, path, scope, shortName, singular`,
		`pkg/apis/toys/v1/types.go:19:1: +apigen:resource is set on Nolist, which has no list type, and its etcd store lists and watches it (a kind that is never listed, such as a review, can have storage of its own instead: +apigen:storage:custom:verbs=create); add: type NolistList struct { metav1.TypeMeta ` + "`json:\",inline\"`; metav1.ListMeta `json:\"metadata,omitempty\"`; Items []Nolist `json:\"items\"` }",
		`pkg/apis/toys/v1/types.go:25:1: +apigen:resource is set on NotAStruct, which is not a struct type; a resource is a struct embedding metav1.TypeMeta and metav1.ObjectMeta`,
		// Hooked.Validate() error is not a hook: a warning, which a failing run reports too.
		`pkg/apis/toys/v1/types.go:38:18: warning: method Hooked.Validate has signature func() error, so the generated strategy does not call it; a Validate hook is func(context.Context) k8s.io/apimachinery/pkg/util/validation/field.ErrorList (rename the method if it is not meant as one)`,
	}, "\n")
	if diff := cmp.Diff(want, err.Error()); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}
