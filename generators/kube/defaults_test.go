package kube

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	gengotypes "k8s.io/gengo/v2/types"

	"github.com/apigen-dev/apigen/generators/engine"
	"github.com/apigen-dev/apigen/generators/loader"
	"github.com/apigen-dev/apigen/generators/model"
)

// knobs is a type with field defaults, added to a copy of the fixture.
const knobs = `package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Knobs has defaults of every shape.
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type Knobs struct {
	metav1.TypeMeta ` + "`json:\",inline\"`" + `

	Replicas *int32   ` + "`json:\"replicas,omitempty\"`" + `
	Count    int32    ` + "`json:\"count,omitempty\"`" + `
	Color    string   ` + "`json:\"color,omitempty\"`" + `
	Tags     []string ` + "`json:\"tags,omitempty\"`" + `
	// +default="kept"
	Mode string ` + "`json:\"mode,omitempty\"`" + `
}
`

// knobsTest runs in the generated package: what the defaults do to decoded objects.
const knobsTest = `package v1alpha1

import (
	"encoding/json"
	"reflect"
	"testing"
)

func decode(t *testing.T, s string) *Knobs {
	var k Knobs
	if err := json.Unmarshal([]byte(s), &k); err != nil {
		t.Fatal(err)
	}
	SetObjectDefaults_Knobs(&k)
	return &k
}

func TestDefaults(t *testing.T) {
	// Absent fields are defaulted, whatever their shape.
	k := decode(t, "{}")
	if k.Replicas == nil || *k.Replicas != 3 || k.Count != 3 || k.Color != "blue" || !reflect.DeepEqual(k.Tags, []string{"a", "b"}) || k.Mode != "kept" {
		t.Errorf("absent fields: %+v (replicas %v)", k, k.Replicas)
	}
	// An explicit zero is kept in a pointer, as a CRD keeps it; a non-pointer field cannot tell
	// it from absent and is defaulted.
	k = decode(t, ` + "`" + `{"replicas": 0, "count": 0, "color": ""}` + "`" + `)
	if k.Replicas == nil || *k.Replicas != 0 {
		t.Errorf("explicit replicas: 0 became %v", k.Replicas)
	}
	if k.Count != 3 || k.Color != "blue" {
		t.Errorf("explicit zero non-pointer fields: count %d color %q, want the defaults", k.Count, k.Color)
	}
	// Set values are kept.
	k = decode(t, ` + "`" + `{"replicas": 5, "count": 7, "color": "red", "tags": ["x"], "mode": "m"}` + "`" + `)
	if *k.Replicas != 5 || k.Count != 7 || k.Color != "red" || !reflect.DeepEqual(k.Tags, []string{"x"}) || k.Mode != "m" {
		t.Errorf("set fields changed: %+v", k)
	}
}
`

// TestDefaulter runs defaulter-gen over a type with +kubebuilder:default and +default fields
// and runs the generated defaulter on decoded objects: pointer and non-pointer fields, lists,
// and explicit zero values.
func TestDefaulter(t *testing.T) {
	if testing.Short() {
		t.Skip("loads and builds a copy of the fixture")
	}
	dir := copyFixture(t)
	typesFile := filepath.Join(dir, widgetsDir, "knobs.go")
	if err := os.WriteFile(typesFile, []byte(knobs), 0o644); err != nil {
		t.Fatal(err)
	}
	load, err := loader.Run(dir, loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := fixtureProject()
	v := p.Groups[0].Versions[0]
	for _, d := range [][2]string{{"Replicas", "3"}, {"Count", "3"}, {"Color", `"blue"`}, {"Tags", `["a","b"]`}} {
		v.Defaults = append(v.Defaults, &model.FieldDefault{Type: "Knobs", Field: d[0], JSON: d[1], Marker: "+kubebuilder:default"})
	}
	out, err := engine.RunUpstream(&engine.LoadContext{Context: engine.Context{Project: p, GoHeader: header}, Load: load}, []engine.Upstream{DeepCopy(), Defaulter(), OpenAPI()})
	if err != nil {
		t.Fatal(err)
	}
	defaults, ok := out.Get(widgetsDir + "/" + DefaultsFile)
	if !ok || !strings.Contains(string(defaults), "func SetObjectDefaults_Knobs(in *Knobs)") {
		t.Fatalf("no object defaulter for Knobs:\n%s", defaults)
	}
	openapi, _ := out.Get("pkg/generated/openapi/zz_generated.openapi.go")
	if !strings.Contains(string(openapi), `Default: "blue"`) {
		t.Errorf("the OpenAPI schema lacks the +kubebuilder:default of Knobs.Color")
	}
	writeOutput(t, dir, out)
	if err := os.WriteFile(filepath.Join(dir, widgetsDir, "knobs_test.go"), []byte(knobsTest), 0o644); err != nil {
		t.Fatal(err)
	}
	goCmd(t, dir, "test", "./"+widgetsDir)
	// The tags were injected for the run only.
	for _, m := range load.Universe[widgetsPkg].Types["Knobs"].Members {
		if m.Name != "Mode" && hasTag(m.CommentLines, defaultTag) {
			t.Errorf("Knobs.%s keeps the +default tag injected for the run", m.Name)
		}
	}
}

// TestObjectDefaulters checks that the defaulter run records in the model which kinds get a
// SetObjectDefaults_ function, exactly those its file declares, for the generated Default hook
// to call: none when nothing is defaulted, Widget once a field of its spec has a default.
func TestObjectDefaulters(t *testing.T) {
	load := fixtureLoad(t)
	for _, defaulted := range []bool{false, true, false} {
		p := fixtureProject()
		v := p.Groups[0].Versions[0]
		widget := v.Kind("Widget")
		widget.ObjectDefaulter = !defaulted // the run sets it either way
		if defaulted {
			v.Defaults = []*model.FieldDefault{{Type: "WidgetSpec", Field: "Replicas", JSON: "1", Marker: "+default"}}
		}
		out, err := engine.RunUpstream(&engine.LoadContext{Context: engine.Context{Project: p, GoHeader: header}, Load: load}, []engine.Upstream{Defaulter()})
		if err != nil {
			t.Fatal(err)
		}
		src, _ := out.Get(widgetsDir + "/" + DefaultsFile)
		declared := strings.Contains(string(src), "\nfunc SetObjectDefaults_Widget(in *Widget) {")
		if widget.ObjectDefaulter != defaulted || declared != defaulted {
			t.Errorf("with a default %v: ObjectDefaulter %v, SetObjectDefaults_Widget declared %v:\n%s", defaulted, widget.ObjectDefaulter, declared, src)
		}
	}
}

// defaulterGenStructDefault is defaulter-gen's output for defaults on a struct held by value
// (Status), on a pointer (Limits) and on a list held by value (Tags).
const defaulterGenStructDefault = `package v1

import (
	json "encoding/json"
)

func SetObjectDefaults_Toy(in *Toy) {
	if in.Status == nil {
		if err := json.Unmarshal([]byte(` + "`{\"observedGeneration\":-1}`" + `), &in.Status); err != nil {
			panic(err)
		}
	}
	if in.Spec.Limits == nil {
		if err := json.Unmarshal([]byte(` + "`{}`" + `), in.Spec.Limits); err != nil {
			panic(err)
		}
	}
	if in.Spec.Tags == nil {
		if err := json.Unmarshal([]byte(` + "`[\"a\"]`" + `), &in.Spec.Tags); err != nil {
			panic(err)
		}
	}
}
`

// TestZeroValues: only the defaults of the struct fields named test the zero value, through
// package reflect imported under a name the package leaves free.
func TestZeroValues(t *testing.T) {
	fields := map[string]bool{"Status": true}
	got, err := testZeroValues("zz_generated.defaults.go", []byte(defaulterGenStructDefault), fields, nil)
	if err != nil {
		t.Fatal(err)
	}
	src := string(got)
	for _, want := range []string{"\t\"reflect\"\n", "if reflect.ValueOf(in.Status).IsZero() {", "if in.Spec.Limits == nil {", "if in.Spec.Tags == nil {"} {
		if !strings.Contains(src, want) {
			t.Errorf("no %q in:\n%s", want, src)
		}
	}
	pkg := &gengotypes.Package{Variables: map[string]*gengotypes.Type{"reflect": {}}}
	got, err = testZeroValues("zz_generated.defaults.go", []byte(defaulterGenStructDefault), fields, pkg)
	if err != nil || !strings.Contains(string(got), `reflect1 "reflect"`) || !strings.Contains(string(got), "reflect1.ValueOf(in.Status)") {
		t.Errorf("with a package variable named reflect: %v\n%s", err, got)
	}
	if got, err := testZeroValues("zz_generated.defaults.go", []byte(defaulterGenStructDefault), map[string]bool{"Other": true}, nil); got != nil || err != nil {
		t.Errorf("no field of the file: %v\n%s", err, got)
	}
}
