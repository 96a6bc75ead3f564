package kube

import (
	"bytes"
	"go/format"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"k8s.io/gengo/v2/generator"
	"k8s.io/klog/v2"

	"github.com/apigen-dev/apigen/generators/engine"
	"github.com/apigen-dev/apigen/generators/loader"
	"github.com/apigen-dev/apigen/generators/model"
)

const (
	fixture    = "testdata/fixture"
	fixtureMod = "example.com/fixture"
	widgetsPkg = fixtureMod + "/pkg/apis/widgets/v1alpha1"
	widgetsDir = "pkg/apis/widgets/v1alpha1"
)

var header = engine.GoHeader([]byte("/*\nCopyright YEAR The Fixture Authors.\n*/"), "2031")

// fixtureProject is the model apigen's parser would build for the fixture.
func fixtureProject() *model.Project {
	widget := &model.Kind{Name: "Widget", Plural: "widgets", Singular: "widget", Scope: model.Namespaced}
	v := &model.Version{
		Name:    "v1alpha1",
		Package: widgetsPkg,
		Dir:     widgetsDir,
		Resources: []*model.Resource{{
			Kind:         "Widget",
			Of:           widget,
			ListKind:     "WidgetList",
			HasSpec:      true,
			HasStatus:    true,
			Subresources: model.Subresources{Status: true},
		}},
	}
	widget.Storage, widget.Versions = v, []*model.Version{v}
	return &model.Project{
		Module: fixtureMod,
		Name:   "fixture",
		Groups: []*model.Group{{
			Name:     "widgets.example.com",
			Package:  "widgets",
			Versions: []*model.Version{v},
			Kinds:    []*model.Kind{widget},
		}},
	}
}

var (
	loadOnce sync.Once
	loaded   *loader.Result
	loadErr  error
)

// fixtureLoad loads the fixture once for every test in the package.
func fixtureLoad(t testing.TB) *loader.Result {
	t.Helper()
	loadOnce.Do(func() { loaded, loadErr = loader.Run(fixture, loader.Options{}) })
	if loadErr != nil {
		t.Fatal(loadErr)
	}
	return loaded
}

func generate(t testing.TB, load *loader.Result, p *model.Project) *engine.Output {
	t.Helper()
	ctx := &engine.LoadContext{Context: engine.Context{Project: p, GoHeader: header}, Load: load}
	out, err := engine.RunUpstream(ctx, []engine.Upstream{DeepCopy(), OpenAPI()})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestFixture(t *testing.T) {
	load := fixtureLoad(t)
	out := generate(t, load, fixtureProject())

	deepcopyPath := widgetsDir + "/zz_generated.deepcopy.go"
	modelNamePath := widgetsDir + "/zz_generated.model_name.go"
	openapiPath := "pkg/generated/openapi/zz_generated.openapi.go"
	if got, want := strings.Join(out.Paths(), " "), deepcopyPath+" "+modelNamePath+" "+openapiPath; got != want {
		t.Fatalf("paths = %s, want %s", got, want)
	}

	for _, name := range out.Paths() {
		src, _ := out.Get(name)
		if !bytes.HasPrefix(src, header) || !bytes.HasPrefix(src[len(header):], []byte("package ")) {
			t.Errorf("%s does not start with the header and then the package clause:\n%.400s", name, src)
		}
		if formatted, err := format.Source(src); err != nil || !bytes.Equal(formatted, src) {
			t.Errorf("%s is not gofmt-clean (err %v)", name, err)
		}
		if !engine.IsGenerated(name, src) {
			t.Errorf("%s is not recognised as generated", name)
		}
		if bytes.Contains(src, []byte(load.Root)) || bytes.Contains(src, []byte("/root/")) {
			t.Errorf("%s contains an absolute path", name)
		}
	}

	dc, _ := out.Get(deepcopyPath)
	for _, want := range []string{
		"package v1alpha1\n",
		"func (in *Widget) DeepCopyInto(out *Widget) {",
		"func (in *Widget) DeepCopyObject() runtime.Object {",
		"func (in *WidgetList) DeepCopyObject() runtime.Object {",
		"func (in *WidgetSpec) DeepCopy() *WidgetSpec {",
		"in.Resources.DeepCopyInto(&out.Resources)",
	} {
		if !bytes.Contains(dc, []byte(want)) {
			t.Errorf("deepcopy output lacks %q", want)
		}
	}
	if bytes.Contains(dc, []byte("Gadget")) {
		t.Error("deepcopy output mentions Gadget, from the stale generated file the load must ignore")
	}
	if n := bytes.Count(dc, []byte("DeepCopyObject() runtime.Object {")); n != 2 {
		t.Errorf("deepcopy output has %d DeepCopyObject methods, want 2 (Widget and WidgetList only)", n)
	}

	oa, _ := out.Get(openapiPath)
	defs := definitions(oa)
	for _, want := range []string{
		// the version package, named by the model names apigen has it generate
		"v1alpha1.Widget{}.OpenAPIModelName()",
		"v1alpha1.WidgetList{}.OpenAPIModelName()",
		"v1alpha1.WidgetSpec{}.OpenAPIModelName()",
		"v1alpha1.WidgetStatus{}.OpenAPIModelName()",
		"v1alpha1.Common{}.OpenAPIModelName()",
		"v1alpha1.Port{}.OpenAPIModelName()",
		// a package outside pkg/apis without tags: tagged by apigen
		`"` + fixtureMod + `/pkg/shared.Endpoint"`,
		// referenced types from packages that name their models themselves, and what they
		// refer to in turn
		"v1.ResourceRequirements{}.OpenAPIModelName()",
		"v1.ResourceClaim{}.OpenAPIModelName()",
		"resource.Quantity{}.OpenAPIModelName()",
		"intstr.IntOrString{}.OpenAPIModelName()",
		"runtime.RawExtension{}.OpenAPIModelName()",
		// what the generic server needs whatever the types are: all of metav1 and version
		"metav1.Condition{}.OpenAPIModelName()",
		"metav1.LabelSelector{}.OpenAPIModelName()",
		"metav1.Time{}.OpenAPIModelName()",
		"metav1.Duration{}.OpenAPIModelName()",
		"metav1.Status{}.OpenAPIModelName()",
		"metav1.WatchEvent{}.OpenAPIModelName()",
		"metav1.APIGroupList{}.OpenAPIModelName()",
		"version.Info{}.OpenAPIModelName()",
	} {
		if !defs[want] {
			t.Errorf("openapi output has no definition %s", want)
		}
	}
	// Only the referenced part of core/v1.
	if defs["v1.Pod{}.OpenAPIModelName()"] {
		t.Error("openapi output defines v1.Pod, which nothing refers to")
	}
	for _, want := range []string{
		"package openapi\n",
		"\tv1 \"k8s.io/api/core/v1\"\n",
		"func GetOpenAPIDefinitions(ref common.ReferenceCallback) map[string]common.OpenAPIDefinition {",
		`[]interface{}{"Blue", "Red"}`, // the enum's values
	} {
		if !bytes.Contains(oa, []byte(want)) {
			t.Errorf("openapi output lacks %q", want)
		}
	}

	// The injected tags are gone afterwards.
	if pkg := load.Universe[widgetsPkg]; hasTag(pkg.Comments, "k8s:deepcopy-gen") || hasTag(pkg.Comments, openAPITag) {
		t.Errorf("injected package tags left in the universe: %q", pkg.Comments)
	}
	if ty := load.Universe[fixtureMod+"/pkg/shared"].Types["Endpoint"]; hasTag(ty.CommentLines, openAPITag) {
		t.Errorf("injected type tag left in the universe: %q", ty.CommentLines)
	}
	if core := load.Universe["k8s.io/api/core/v1"]; !hasTagValue(core.Comments, openAPITag, openAPIKeepTag) {
		t.Errorf("core/v1's own package tag was not put back: %q", core.Comments)
	}

	t.Run("deterministic", func(t *testing.T) {
		// Once more on the same load, and once on a new load of the same project.
		fresh, err := loader.Run(fixture, loader.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for i, again := range []*engine.Output{generate(t, load, fixtureProject()), generate(t, fresh, fixtureProject())} {
			if !slices.Equal(again.Paths(), out.Paths()) {
				t.Errorf("run %d: paths %q, want %q", i+2, again.Paths(), out.Paths())
			}
			for _, name := range out.Paths() {
				a, _ := out.Get(name)
				b, _ := again.Get(name)
				if !bytes.Equal(a, b) {
					t.Errorf("run %d: %s differs from the first run", i+2, name)
				}
			}
		}
	})

	t.Run("compiles", func(t *testing.T) {
		if testing.Short() {
			t.Skip("builds the fixture with the go command")
		}
		buildWith(t, out)
	})
}

// TestUserTags checks that tags the user wrote are honoured, not duplicated.
func TestUserTags(t *testing.T) {
	load := fixtureLoad(t)
	pkg := load.Universe[widgetsPkg]
	widget := pkg.Types["Widget"]
	oldPkg, oldWidget := pkg.Comments, widget.CommentLines
	defer func() { pkg.Comments, widget.CommentLines = oldPkg, oldWidget }()
	pkg.Comments = append(pkg.Comments[:len(pkg.Comments):len(pkg.Comments)], "+k8s:deepcopy-gen=package", "+k8s:openapi-gen=true")
	widget.CommentLines = append(widget.CommentLines[:len(widget.CommentLines):len(widget.CommentLines)],
		"+k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object")

	var edits tagEdits
	edits.addPackageTag(pkg, "k8s:deepcopy-gen", "package")
	edits.addPackageTag(pkg, openAPITag, openAPIKeepTag)
	edits.addTypeTag(widget, "k8s:deepcopy-gen:interfaces", runtimeObject)
	if len(edits.undo) != 0 {
		t.Fatalf("%d tags added although the user wrote them", len(edits.undo))
	}

	out := generate(t, load, fixtureProject())
	dc, _ := out.Get(widgetsDir + "/zz_generated.deepcopy.go")
	if n := bytes.Count(dc, []byte("func (in *Widget) DeepCopyObject()")); n != 1 {
		t.Errorf("Widget has %d DeepCopyObject methods, want 1", n)
	}
}

// TestObjectGenerateFalse: a type that controller-gen leaves out of deepcopy
// (+kubebuilder:object:generate=false, written above it or in its doc) gets no methods, so that
// its hand-written ones are the only ones; the other types still get theirs.
func TestObjectGenerateFalse(t *testing.T) {
	load := fixtureLoad(t)
	status := load.Universe[widgetsPkg].Types["WidgetStatus"]
	old := status.SecondClosestCommentLines
	defer func() { status.SecondClosestCommentLines = old }()
	status.SecondClosestCommentLines = append(slices.Clip(old), "+kubebuilder:object:generate=false")

	dc, _ := generate(t, load, fixtureProject()).Get(widgetsDir + "/zz_generated.deepcopy.go")
	if bytes.Contains(dc, []byte("func (in *WidgetStatus)")) {
		t.Error("WidgetStatus, marked +kubebuilder:object:generate=false, got deepcopy methods")
	}
	if !bytes.Contains(dc, []byte("func (in *WidgetSpec) DeepCopy() *WidgetSpec {")) {
		t.Error("WidgetSpec lost its deepcopy methods")
	}
	if got := status.SecondClosestCommentLines; len(got) != len(old)+1 {
		t.Errorf("the run left WidgetStatus's comments changed: %q", got)
	}
}

// TestModelNames: a version package that opts in to OpenAPI model names with
// +k8s:openapi-model-package gets openapi-gen's zz_generated.model_name.go, and the
// definitions use it.
func TestModelNames(t *testing.T) {
	load := fixtureLoad(t)
	pkg := load.Universe[widgetsPkg]
	old := pkg.Comments
	defer func() { pkg.Comments = old }()
	pkg.Comments = append(slices.Clip(old), "+k8s:openapi-model-package=com.example.widgets.v1alpha1")

	out := generate(t, load, fixtureProject())
	modelNames := widgetsDir + "/zz_generated.model_name.go"
	mn, ok := out.Get(modelNames)
	if !ok {
		t.Fatalf("no %s in %q", modelNames, out.Paths())
	}
	if !bytes.HasPrefix(mn, header) || !bytes.Contains(mn, []byte("func (in Widget) OpenAPIModelName() string {\n\treturn \"com.example.widgets.v1alpha1.Widget\"")) {
		t.Errorf("%s:\n%s", modelNames, mn)
	}
	oa, _ := out.Get("pkg/generated/openapi/zz_generated.openapi.go")
	if defs := definitions(oa); !defs["v1alpha1.Widget{}.OpenAPIModelName()"] {
		t.Errorf("the definitions do not use the model names: %q", slices.Sorted(maps.Keys(defs)))
	}
	if !testing.Short() {
		buildWith(t, out)
	}
}

// TestNoGroups is a project as apigen init leaves it: no version packages. The OpenAPI
// definitions the generic server needs are still generated.
func TestNoGroups(t *testing.T) {
	load := fixtureLoad(t)
	out := generate(t, load, &model.Project{Module: fixtureMod, Name: "fixture"})
	if got := strings.Join(out.Paths(), " "); got != "pkg/generated/openapi/zz_generated.openapi.go" {
		t.Fatalf("paths = %s", got)
	}
	oa, _ := out.Get("pkg/generated/openapi/zz_generated.openapi.go")
	defs := definitions(oa)
	for _, want := range []string{"v1.ObjectMeta{}.OpenAPIModelName()", "runtime.RawExtension{}.OpenAPIModelName()", "version.Info{}.OpenAPIModelName()"} {
		if !defs[want] {
			t.Errorf("openapi output has no definition %s", want)
		}
	}
	if bytes.Contains(oa, []byte(widgetsPkg)) {
		t.Error("openapi output has definitions of a package that is not in the model")
	}
}

// TestModelErrors reports a model that does not match the load.
func TestModelErrors(t *testing.T) {
	load := fixtureLoad(t)
	for _, tc := range []struct {
		name string
		edit func(*model.Version)
		want string
	}{
		{"missing kind", func(v *model.Version) { v.Resources[0].Kind = "Gizmo" }, "type Gizmo of resource Gizmo not found in package " + widgetsPkg},
		{"wrong dir", func(v *model.Version) { v.Dir = "pkg/apis/widgets/v1" }, "package " + widgetsPkg + " of version v1alpha1 is in " + widgetsDir + ", not in pkg/apis/widgets/v1"},
		{"not loaded", func(v *model.Version) { v.Package = fixtureMod + "/pkg/apis/widgets/v1" }, "package " + fixtureMod + "/pkg/apis/widgets/v1 of version v1alpha1 is not in the load"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := fixtureProject()
			tc.edit(p.Groups[0].Versions[0])
			for _, g := range []engine.Upstream{DeepCopy(), OpenAPI()} {
				if tc.name == "missing kind" && g.Name() == "openapi" {
					continue // openapi does not look at kinds
				}
				ctx := &engine.LoadContext{Context: engine.Context{Project: p, GoHeader: header}, Load: load}
				_, err := engine.RunUpstream(ctx, []engine.Upstream{g})
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("%s: err = %v, want %q", g.Name(), err, tc.want)
				}
			}
		})
	}
}

// TestGuard turns klog.Fatal and panics in upstream code into errors.
func TestGuard(t *testing.T) {
	err := guard("fake-gen", func() error {
		klog.Fatalf("Hit an unsupported type %q", "chan int")
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), `fake-gen failed`) || !strings.Contains(err.Error(), `Hit an unsupported type "chan int"`) {
		t.Errorf("err = %v", err)
	}
	err = guard("fake-gen", func() error { panic("boom") })
	if err == nil || !strings.Contains(err.Error(), "fake-gen panicked: boom") {
		t.Errorf("err = %v", err)
	}
}

// TestAssemble: files are assembled with our header and sorted imports, formatted in memory,
// and refused (with the numbered source) when they do not format or belong elsewhere.
func TestAssemble(t *testing.T) {
	g := newGoFiles("x-gen", header, map[string]string{"example.com/x": "pkg/x"}, nil)
	file := func(pkgPath, body string) *generator.File {
		f := &generator.File{Name: "zz_generated.x.go", PackageName: "x", PackagePath: pkgPath, Header: []byte("// Code generated by x-gen. DO NOT EDIT.\n\n"),
			Imports: map[string]struct{}{`b "example.com/b"`: {}, "example.com/a": {}, "fmt": {}}}
		f.Body.WriteString(body)
		return f
	}

	if err := g.AssembleFile(file("example.com/x", "var _ = fmt.Sprint\nvar _ = a.A\nvar _ = b.B\n"), "/ignored/path"); err != nil {
		t.Fatal(err)
	}
	if err := g.wait(); err != nil {
		t.Fatal(err)
	}
	want := string(header) + "package x\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/a\"\n\tb \"example.com/b\"\n)\n\nvar _ = fmt.Sprint\nvar _ = a.A\nvar _ = b.B\n"
	if got := string(g.files["pkg/x/zz_generated.x.go"]); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}

	if err := g.AssembleFile(file("example.com/x", ""), ""); err == nil || !strings.Contains(err.Error(), "writes pkg/x/zz_generated.x.go twice") {
		t.Errorf("err = %v", err)
	}
	delete(g.files, "pkg/x/zz_generated.x.go")
	if err := g.AssembleFile(file("example.com/x", "func {\n"), ""); err != nil {
		t.Fatal(err) // formatting fails later, in wait
	}
	err := g.wait()
	if err == nil || !strings.Contains(err.Error(), "pkg/x/zz_generated.x.go") || !regexp.MustCompile(`\d+\tfunc \{`).MatchString(err.Error()) {
		t.Errorf("err = %v", err)
	}
	err = g.AssembleFile(file("k8s.io/api/core/v1", ""), "")
	if err == nil || !strings.Contains(err.Error(), "x-gen wants to write zz_generated.x.go for package k8s.io/api/core/v1") {
		t.Errorf("err = %v", err)
	}
	for name, src := range g.files {
		if src != nil {
			t.Errorf("%s kept after errors", name)
		}
	}
}

// definitions returns the keys of the map GetOpenAPIDefinitions returns, as written.
func definitions(src []byte) map[string]bool {
	defs := map[string]bool{}
	_, body, _ := strings.Cut(string(src), "return map[string]common.OpenAPIDefinition{\n")
	body, _, _ = strings.Cut(body, "\n\t}\n}\n")
	for _, line := range strings.Split(body, "\n") {
		if key, _, ok := strings.Cut(strings.TrimSpace(line), ":"); ok {
			defs[key] = true
		}
	}
	return defs
}

// buildWith writes out into a copy of the fixture and builds and vets it.
func buildWith(t *testing.T, out *engine.Output) {
	t.Helper()
	dir := copyFixture(t)
	writeOutput(t, dir, out)
	goCmd(t, dir, "build", "./...")
	goCmd(t, dir, "vet", "./...")
}

// writeOutput writes generated files into the project at dir.
func writeOutput(t *testing.T, dir string, out *engine.Output) {
	t.Helper()
	for _, name := range out.Paths() {
		src, _ := out.Get(name)
		file := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func copyFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	err := filepath.WalkDir(fixture, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(fixture, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func goCmd(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	// Offline: everything the fixture needs is in the module cache.
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=readonly", "GOPROXY=off", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// TestModelPackageName checks the model names apigen gives version packages are the ones the
// server's scheme derives for types without OpenAPIModelName (runtime.Scheme's
// toOpenAPIDefinitionName), so definitions and kinds meet.
func TestModelPackageName(t *testing.T) {
	for in, want := range map[string]string{
		"example.com/wardle/pkg/apis/wardle/v1alpha1": "com.example.wardle.pkg.apis.wardle.v1alpha1",
		"k8s.io/api/core/v1":                          "io.k8s.api.core.v1",
		"localmodule/pkg/apis/toys/v1":                "localmodule.pkg.apis.toys.v1",
	} {
		if got := restFriendlyName(in); got != want {
			t.Errorf("restFriendlyName(%q) = %q, want %q", in, got, want)
		}
	}
}
