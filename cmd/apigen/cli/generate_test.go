package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apigen-dev/apigen/generators/model"
	"github.com/apigen-dev/apigen/generators/pipeline"
)

// wardleCopy copies examples/wardle to a temp dir and makes it the working directory, with a
// result cache of its own (see isolateCache).
func wardleCopy(t *testing.T) string {
	t.Helper()
	isolateCache(t)
	src, err := filepath.Abs("../../../examples/wardle")
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "wardle")
	err = filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dst)
	return dst
}

// moduleCopy makes a temp dir with examples/wardle's go.mod and go.sum (so that loading needs
// nothing outside the module cache) and the given files, makes it the working directory with
// a result cache of its own, and returns it.
func moduleCopy(t *testing.T, files map[string]string) string {
	t.Helper()
	isolateCache(t)
	dir := t.TempDir()
	for _, name := range []string{"go.mod", "go.sum"} {
		files[name] = readTestFile(t, filepath.Join("..", "..", "..", "examples", "wardle", name))
	}
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	return dir
}

func readTestFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func run(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = Main(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestVerifyAndGenerate(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a whole project")
	}
	dir := wardleCopy(t)

	if code, out, errOut := run("verify"); code != 0 || out != "" || errOut != "" {
		t.Fatalf("verify on a current tree: exit %d, stdout %q, stderr %q; want 0 and silence", code, out, errOut)
	}

	// A new field makes the deepcopy, conversion and OpenAPI code, the kind's schema, the apply
	// configurations (the field and their schema) and the API reference stale.
	types := filepath.Join(dir, "pkg/apis/wardle/v1alpha1/flunder_types.go")
	src, _ := os.ReadFile(types)
	edited := strings.Replace(string(src), "type FlunderSpec struct {", "type FlunderSpec struct {\n\t// Size is new.\n\tSize *int32 `json:\"size,omitempty\"`\n", 1)
	if err := os.WriteFile(types, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	register := filepath.Join(dir, "pkg/apis/wardle/v1alpha1/zz_generated.register.go")
	if err := os.Chtimes(register, old, old); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run("verify")
	if code != 1 || !strings.Contains(out, "Size") || !strings.Contains(errOut, `run "apigen generate"`) {
		t.Fatalf("verify on a stale tree: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, want := range []string{"--- a/pkg/apis/wardle/v1alpha1/zz_generated.deepcopy.go", "--- a/pkg/apis/wardle/v1alpha1/zz_generated.conversion.go", "+++ b/pkg/generated/openapi/zz_generated.openapi.go",
		"+++ b/pkg/apis/wardle/v1alpha1/zz_generated.protobuf.go", "+  optional int32 size = 4;",
		"+++ b/pkg/generated/applyconfiguration/wardle/v1alpha1/flunderspec.go", "+++ b/docs/api-reference.md"} {
		if !strings.Contains(out, want) {
			t.Errorf("verify's diff lacks %q", want)
		}
	}

	code, out, errOut = run("generate")
	if code != 0 || !regexp.MustCompile(`^apigen: 9 written, \d+ unchanged, 0 deleted in [0-9.]+s\n$`).MatchString(out) {
		t.Fatalf("generate: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if fi, _ := os.Stat(register); !fi.ModTime().Equal(old) {
		t.Error("generate rewrote an unchanged file")
	}
	if code, out, _ := run("verify"); code != 0 || out != "" {
		t.Fatalf("verify after generate: exit %d, stdout %q", code, out)
	}

	// Removing a kind deletes its generated storage, and nothing else of the user's.
	if err := os.Remove(filepath.Join(dir, "pkg/apis/wardle/v1alpha1/fischer_types.go")); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = run("generate", "-v")
	if code != 0 || !strings.Contains(out, "deleted   pkg/registry/wardle/fischer/zz_generated.storage.go") {
		t.Fatalf("generate after removing a kind: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "pkg/registry/wardle/fischer")); !os.IsNotExist(err) {
		t.Error("the removed kind's registry directory is still there")
	}
}

// TestVerifyNamesARenumberedField renames a field's JSON name, which would give it another
// protobuf number than the one generated.proto records: verify fails, naming the field.
func TestVerifyNamesARenumberedField(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a whole project")
	}
	dir := wardleCopy(t)
	types := filepath.Join(dir, "pkg/apis/wardle/v1beta1/flunder_types.go")
	src, _ := os.ReadFile(types)
	edited := strings.Replace(string(src), "Name string `json:\"name\"`", "Name string `json:\"title\"`", 1)
	if edited == string(src) {
		t.Fatal("FlunderReference's Name field is not where the test looks")
	}
	if err := os.WriteFile(types, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run("verify")
	want := `pkg/apis/wardle/v1beta1/flunder_types.go:`
	if code == 0 || !strings.Contains(errOut, want) || !strings.Contains(errOut, `field Name of FlunderReference: its JSON name changed from "name" to "title"`) {
		t.Fatalf("verify after a JSON rename: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

func TestDumpModel(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a whole project")
	}
	wardleCopy(t)
	code, out, errOut := run("generate", "--dump-model")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var p struct {
		Module string
		Groups []struct {
			Name     string
			Versions []struct {
				Name      string
				Resources []struct {
					Kind string
					Pos  struct{ Filename string }
				}
			}
			Kinds []struct {
				Name, Plural, Scope, StorageVersion string
				Versions                            []string
				CustomStorage                       *struct{ Verbs []string }
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if p.Module != "example.com/wardle" || len(p.Groups) != 1 || p.Groups[0].Name != "wardle.example.com" {
		t.Fatalf("model: %s", out)
	}
	if len(p.Groups[0].Versions) != 2 {
		t.Fatalf("model: want two versions, got %s", out)
	}
	// Fischers are stored in v1alpha1, the only version that has them; Flunders in v1beta1.
	v, beta := p.Groups[0].Versions[0], p.Groups[0].Versions[1]
	if v.Name != "v1alpha1" || len(v.Resources) != 2 || v.Resources[1].Kind != "Flunder" ||
		v.Resources[1].Pos.Filename != "pkg/apis/wardle/v1alpha1/flunder_types.go" {
		t.Errorf("model: %s", out)
	}
	// v1beta1 also has ServerInfo.
	if beta.Name != "v1beta1" || len(beta.Resources) != 2 || beta.Resources[0].Kind != "Flunder" || beta.Resources[1].Kind != "ServerInfo" {
		t.Errorf("model: %s", out)
	}
	// Each kind once, sorted, with its scope, storage version and the versions that serve it;
	// ServerInfo served by storage of its own.
	if ks := p.Groups[0].Kinds; len(ks) != 3 ||
		ks[0].Name != "Fischer" || ks[0].Scope != "Cluster" || ks[0].StorageVersion != "v1alpha1" || !slices.Equal(ks[0].Versions, []string{"v1alpha1"}) ||
		ks[1].Name != "Flunder" || ks[1].Scope != "Namespaced" || ks[1].Plural != "flunders" || ks[1].StorageVersion != "v1beta1" ||
		!slices.Equal(ks[1].Versions, []string{"v1beta1", "v1alpha1"}) || ks[1].CustomStorage != nil ||
		ks[2].Name != "ServerInfo" || ks[2].StorageVersion != "v1beta1" || ks[2].CustomStorage == nil ||
		!slices.Equal(ks[2].CustomStorage.Verbs, []string{"get", "list", "watch"}) {
		t.Errorf("model kinds: %s", out)
	}
	if _, err := os.Stat("pkg/apis/wardle/v1alpha1/zz_generated.deepcopy.go"); err != nil {
		t.Error("--dump-model must not change the tree")
	}
}

// TestScaffoldConversions removes wardle's hand-written conversions: v1alpha1 then has no
// conversion code, so generate converts it as a CustomResourceDefinition with conversion
// strategy None (through JSON, in a generated file), warning at each field that cannot cross,
// and the project builds; with --scaffold-conversions it writes the stubs instead, which
// build, generates, and never overwrites the stub file again.
func TestScaffoldConversions(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a whole project")
	}
	dir := wardleCopy(t)
	conversion := filepath.Join(dir, "pkg/apis/wardle/v1alpha1/conversion.go")
	if err := os.Remove(conversion); err != nil {
		t.Fatal(err)
	}
	none := filepath.Join(dir, "pkg/apis/wardle/v1alpha1/zz_generated.conversion_none.go")

	code, _, errOut := run("generate")
	for _, want := range []string{
		`pkg/apis/wardle/v1alpha1/flunder_types.go:`,
		`warning: FlunderSpec.ReferenceType (JSON referenceType of FlunderSpec) is dropped converting v1alpha1 to v1beta1: v1beta1.FlunderSpec has no field "referenceType"`,
		"(write Convert_v1alpha1_FlunderSpec_To_v1beta1_FlunderSpec to keep it)",
	} {
		if code != 0 || !strings.Contains(errOut, want) {
			t.Errorf("generate without the conversions: exit %d, want 0 and %q in:\n%s", code, want, errOut)
		}
	}
	src, err := os.ReadFile(none)
	if err != nil {
		t.Fatal(err)
	}
	if want := "func Convert_v1beta1_FlunderSpec_To_v1alpha1_FlunderSpec(in *v1beta1.FlunderSpec, out *FlunderSpec, s conversion.Scope) error {"; !strings.Contains(string(src), want) {
		t.Errorf("%s lacks %q:\n%s", none, want, src)
	}
	if _, err := os.Stat(conversion); err == nil {
		t.Error("generate without --scaffold-conversions wrote conversion.go")
	}
	if code, out, errOut := run("verify"); code != 0 {
		t.Errorf("verify after generate: exit %d\n%s%s", code, out, errOut)
	}
	// The project's round-trip test leaves empty exactly the fields that cannot cross.
	rt := exec.Command("go", "test", "-count=1", "./pkg/apis/wardle/install/")
	rt.Dir = dir
	if out, err := rt.CombinedOutput(); err != nil {
		t.Errorf("the round-trip test with conversions as strategy None: %v\n%s", err, out)
	}

	code, out, errOut := run("generate", "--scaffold-conversions")
	if code != 0 || !strings.Contains(out, "wrote pkg/apis/wardle/v1alpha1/conversion.go with 2 conversion stubs") {
		t.Fatalf("generate --scaffold-conversions: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	stub, err := os.ReadFile(conversion)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"func Convert_v1alpha1_FlunderSpec_To_v1beta1_FlunderSpec(in *FlunderSpec, out *v1beta1.FlunderSpec, s conversion.Scope) error {",
		"autoConvert_v1alpha1_FlunderSpec_To_v1beta1_FlunderSpec(in, out, s)",
		`return fmt.Errorf("Convert_v1beta1_FlunderSpec_To_v1alpha1_FlunderSpec is not written yet")`,
		`"example.com/wardle/pkg/apis/wardle/v1beta1"`,
	} {
		if !strings.Contains(string(stub), want) {
			t.Errorf("conversion.go lacks %q:\n%s", want, stub)
		}
	}
	if _, err := os.Stat(none); err == nil {
		t.Error("the stubs replace the conversions through JSON, but generate kept " + filepath.Base(none))
	}
	if code, out, errOut := run("verify"); code != 0 {
		t.Errorf("verify after scaffolding: exit %d\n%s%s", code, out, errOut)
	}
	// The stubs are the user's now: a second scaffold leaves them alone.
	if err := os.WriteFile(conversion, append(stub, []byte("\n// edited\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := run("generate", "--scaffold-conversions"); code != 0 {
		t.Errorf("generate --scaffold-conversions with the functions written: exit %d\n%s", code, errOut)
	}
	if got, _ := os.ReadFile(conversion); !strings.HasSuffix(string(got), "// edited\n") {
		t.Error("a second --scaffold-conversions rewrote the user's conversion.go")
	}
	cmd := exec.Command("go", "build", "./...")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("go build with the scaffolded stubs: %v\n%s", err, out)
	}
}

// TestWarnings generates kubebuilder types whose markers apigen accepts without effect: every
// such marker is a positioned warning, once per marker with the number of other places, on
// generate and on verify, and the run still succeeds.
func TestWarnings(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a whole project")
	}
	src := "../../../testdata/models/kubebuilder_types/pkg/apis/batch/v1/"
	types, doc := readTestFile(t, src+"cronjob_types.go"), readTestFile(t, src+"doc.go")
	types = strings.Replace(types, "// +kubebuilder:storageversion\n",
		"// +kubebuilder:storageversion\n// +kubebuilder:metadata:labels=team=batch\n", 1)
	types = strings.Replace(types, "\t// +kubebuilder:default=false\n", "\t// +kubebuilder:default=false\n\t// +kubebuilder:validation:Minimun=0\n", 1)
	moduleCopy(t, map[string]string{"pkg/apis/batch/v1/cronjob_types.go": types, "pkg/apis/batch/v1/doc.go": doc})
	want := `pkg/apis/batch/v1/cronjob_types.go:14:2: warning: +kubebuilder:validation:Minimun has no effect: controller-gen knows no marker of this spelling and ignores it too; did you mean "+kubebuilder:validation:Minimum"?
pkg/apis/batch/v1/cronjob_types.go:34:1: warning: +kubebuilder:metadata has no effect: an aggregated API has no CustomResourceDefinition to label or annotate
`
	// With the result cache on too: a run with warnings is not recorded, so the next one
	// repeats them instead of answering from the cache in silence.
	for _, args := range [][]string{{"generate"}, {"verify"}, {"verify"}, {"generate", "--no-cache"}, {"generate", "--dump-model"}} {
		code, _, errOut := run(args...)
		if code != 0 || errOut != want {
			t.Errorf("apigen %s: exit %d, stderr:\n%s\nwant exit 0 and:\n%s", args[0], code, errOut, want)
		}
	}
}

// TestScaffoldSubresources declares custom subresources on wardle's Flunder with every verb a
// subresource's storage can serve: generate writes one user-owned stub per subresource that
// has none (and says so), the project builds with them, and an edited stub is never rewritten.
func TestScaffoldSubresources(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a whole project")
	}
	dir := wardleCopy(t)
	types := filepath.Join(dir, "pkg/apis/wardle/v1beta1/flunder_types.go")
	src := strings.Replace(readTestFile(t, types), "// +apigen:subresource:custom:name=approval,verbs=get;update;patch\n",
		"// +apigen:subresource:custom:name=approval,verbs=get;update;patch\n"+
			"// +apigen:subresource:custom:name=pod-logs,verbs=connect\n"+
			"// +apigen:subresource:custom:name=eviction,verbs=create;delete\n", 1)
	if err := os.WriteFile(types, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	approval := filepath.Join(dir, "pkg/registry/wardle/flunder/approval.go")
	edited := readTestFile(t, approval)
	code, out, errOut := run("generate")
	for _, name := range []string{"pod-logs", "eviction"} {
		if want := "apigen: wrote pkg/registry/wardle/flunder/" + name + ".go"; code != 0 || !strings.Contains(out, want) {
			t.Errorf("generate: exit %d, want %q in:\n%s%s", code, want, out, errOut)
		}
	}
	if strings.Contains(out, "approval.go") || readTestFile(t, approval) != edited {
		t.Errorf("generate rewrote the user's approval.go:\n%s", out)
	}
	for file, want := range map[string]string{
		"pod-logs.go": "func (r *PodLogsREST) Connect(ctx context.Context, name string, options runtime.Object, responder rest.Responder) (http.Handler, error) {",
		"eviction.go": "func NewEvictionREST(main *REST) rest.Storage { return &EvictionREST{main: main} }",
	} {
		if got := readTestFile(t, filepath.Join(dir, "pkg/registry/wardle/flunder", file)); !strings.Contains(got, want) {
			t.Errorf("%s lacks %q:\n%s", file, want, got)
		}
	}
	cmd := exec.Command("go", "build", "./...")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("go build with the scaffolded subresources: %v\n%s", err, out)
	}
	// Until it is written, a stub's verb answers as kube-apiserver answers a method a
	// resource does not support: 405 Method Not Allowed, here saying where to write it.
	stub := `package flunder_test

import (
	"context"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apiserver/pkg/registry/rest"

	"example.com/wardle/pkg/registry/wardle/flunder"
)

func TestEvictionStub(t *testing.T) {
	_, err := flunder.NewEvictionREST(nil).(rest.NamedCreater).Create(context.Background(), "x", nil, nil, nil)
	if !apierrors.IsMethodNotSupported(err) || !strings.Contains(err.Error(), "create of flunders/eviction is not implemented yet: write it in pkg/registry/wardle/flunder/eviction.go") {
		t.Errorf("the stub's Create: %v, want a 405 Method Not Allowed saying where to write it", err)
	}
}
`
	if err := os.WriteFile(filepath.Join(dir, "pkg/registry/wardle/flunder/stub_test.go"), []byte(stub), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command("go", "test", "-count=1", "-run", "TestEvictionStub", "./pkg/registry/wardle/flunder/")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("the eviction stub's test: %v\n%s", err, out)
	}
	if code, out, errOut := run("generate"); code != 0 || strings.Contains(out, "wrote pkg/registry") {
		t.Errorf("a second generate: exit %d, want 0 and no stub written:\n%s%s", code, out, errOut)
	}
}

// TestScaffoldCustomStorage declares a kind with +apigen:storage:custom and every verb a
// kind's storage can serve: generate writes its user-owned storage.go once (and says so), no
// etcd store for it, the project builds, the stub serves exactly the declared verbs (the check
// the server runs when it starts) and each verb fails until written.
func TestScaffoldCustomStorage(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a whole project")
	}
	dir := wardleCopy(t)
	types := `package v1beta1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Gadget is served by storage of its own.
// +apigen:resource:scope=Namespaced
// +apigen:storage:custom:verbs=get;list;watch;create;update;patch;delete;deletecollection
type Gadget struct {
	metav1.TypeMeta   ` + "`json:\",inline\"`" + `
	metav1.ObjectMeta ` + "`json:\"metadata,omitempty\"`" + `
}

// GadgetList is a list of Gadget.
type GadgetList struct {
	metav1.TypeMeta ` + "`json:\",inline\"`" + `
	metav1.ListMeta ` + "`json:\"metadata,omitempty\"`" + `

	Items []Gadget ` + "`json:\"items\"`" + `
}
`
	if err := os.WriteFile(filepath.Join(dir, "pkg/apis/wardle/v1beta1/gadget_types.go"), []byte(types), 0o644); err != nil {
		t.Fatal(err)
	}
	// The stub is planned output: verify names it as missing before generate writes it.
	code, out, errOut := run("verify")
	if want := "missing: pkg/registry/wardle/gadget/storage.go (yours to write; apigen generate writes a stub)"; code != 1 || !strings.Contains(out, want) {
		t.Errorf("verify before the stub exists: exit %d, want 1 and %q in:\n%s%s", code, want, out, errOut)
	}
	code, out, errOut = run("generate")
	if want := "apigen: wrote pkg/registry/wardle/gadget/storage.go"; code != 0 || !strings.Contains(out, want) {
		t.Fatalf("generate: exit %d, want %q in:\n%s%s", code, want, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "pkg/registry/wardle/gadget/zz_generated.storage.go")); !os.IsNotExist(err) {
		t.Errorf("an etcd store was generated for a kind with custom storage: %v", err)
	}
	if got, want := readTestFile(t, filepath.Join(dir, "pkg/apiserver/zz_generated.apiserver.go")),
		`server.CheckVerbs("gadgets", gadgetStorage, "create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")`; !strings.Contains(got, want) {
		t.Errorf("the install code lacks %q", want)
	}
	check := `package gadget_test

import (
	"context"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/registry/rest"

	"example.com/wardle/pkg/apiserver"
	"example.com/wardle/pkg/cmd/server"
	"example.com/wardle/pkg/registry/wardle/gadget"
)

func TestStub(t *testing.T) {
	s, err := gadget.NewStorage(apiserver.Scheme)
	if err != nil {
		t.Fatal(err)
	}
	if err := server.CheckVerbs("gadgets", s, "create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"); err != nil {
		t.Error(err)
	}
	// Until it is written, a verb answers as kube-apiserver answers a method a resource does
	// not support: 405 Method Not Allowed, here saying where to write it.
	_, err = s.(rest.Getter).Get(context.Background(), "x", &metav1.GetOptions{})
	if !apierrors.IsMethodNotSupported(err) || !strings.Contains(err.Error(), "get of gadgets is not implemented yet: write it in pkg/registry/wardle/gadget/storage.go") {
		t.Errorf("the stub's Get: %v, want a 405 Method Not Allowed saying where to write it", err)
	}
}
`
	if err := os.WriteFile(filepath.Join(dir, "pkg/registry/wardle/gadget/stub_test.go"), []byte(check), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "test", "./pkg/registry/wardle/gadget/")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("go test of the scaffolded storage: %v\n%s", err, out)
	}
	if code, out, errOut := run("generate"); code != 0 || strings.Contains(out, "wrote pkg/registry") {
		t.Errorf("a second generate: exit %d, want 0 and no stub written:\n%s%s", code, out, errOut)
	}
	if code, out, errOut := run("verify"); code != 0 {
		t.Errorf("verify with the stub written: exit %d, want 0:\n%s%s", code, out, errOut)
	}
}

// TestFailureWithWarnings: a run that fails after it found warnings prints each of them once:
// among its errors by position (missing conversions, Go type errors; see testdata/errors'
// error_and_warning cases), or before an error that has no position, as apigen prints one.
func TestFailureWithWarnings(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	at := func(line int) token.Position {
		return token.Position{Filename: "pkg/apis/toys/v1/toy_types.go", Line: line, Column: 1}
	}
	warnings := model.ErrorList{{Pos: at(6), Msg: "warning: +kubebuilder:metadata has no effect"}}
	for _, c := range []struct {
		err  error
		want string
	}{
		{model.ErrorList{{Pos: at(3), Msg: "first"}, {Pos: at(9), Msg: "second"}},
			"pkg/apis/toys/v1/toy_types.go:3:1: first\n" +
				"pkg/apis/toys/v1/toy_types.go:6:1: warning: +kubebuilder:metadata has no effect\n" +
				"pkg/apis/toys/v1/toy_types.go:9:1: second"},
		{errors.New("conversion: generator panicked"),
			"pkg/apis/toys/v1/toy_types.go:6:1: warning: +kubebuilder:metadata has no effect\n" +
				"apigen: conversion: generator panicked"},
	} {
		if got := describe(relativeTo(wd, &pipeline.Failure{Err: c.err, Warnings: warnings})); got != c.want {
			t.Errorf("a failure with warnings prints:\n%s\nwant:\n%s", got, c.want)
		}
	}
}

// TestRuntimeVersionNote: the copied server runtime names the apigen that wrote it, "(devel)"
// for a build from source; generate notes a copy written by another version (or by one from
// before the stamp) and writes it again with its own.
func TestRuntimeVersionNote(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a whole project")
	}
	dir := wardleCopy(t)
	server := filepath.Join(dir, "pkg/cmd/server/zz_generated.server.go")
	const stamp = "// Written by apigen (devel).\n"
	if src := readTestFile(t, server); !strings.Contains(src, stamp) {
		t.Fatalf("%s lacks %q", server, stamp)
	}
	for _, c := range []struct{ stamp, note string }{
		{"// Written by apigen v0.1.0.\n", "apigen: note: pkg/cmd/server was written by apigen v0.1.0; apigen (devel) writes it again (upgrading: docs/guides/upgrading.md)\n"},
		{"", "apigen: note: pkg/cmd/server was written by an apigen older than the version stamp; apigen (devel) writes it again (upgrading: docs/guides/upgrading.md)\n"},
	} {
		if err := os.WriteFile(server, []byte(strings.Replace(readTestFile(t, server), stamp, c.stamp, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := run("generate")
		if code != 0 || errOut != c.note || !strings.HasPrefix(out, "apigen: 1 written,") {
			t.Fatalf("generate with the stamp %q: exit %d\nstdout: %s\nstderr: %s\nwant stderr: %s", c.stamp, code, out, errOut, c.note)
		}
		if src := readTestFile(t, server); !strings.Contains(src, stamp) {
			t.Fatalf("generate did not stamp %s again", server)
		}
	}
	if code, out, errOut := run("generate"); code != 0 || errOut != "" || !strings.HasPrefix(out, "apigen: 0 written,") {
		t.Fatalf("generate on a current tree: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestSQLStorageNote: without +apigen:sql=true the server's SQL storage is deleted (an etcd-only
// stand-in written instead), and generate says why and how to keep it.
func TestSQLStorageNote(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a whole project")
	}
	dir := wardleCopy(t)
	doc := filepath.Join(dir, "pkg/apis/doc.go")
	if err := os.WriteFile(doc, []byte(strings.Replace(readTestFile(t, doc), "// +apigen:sql=true\n", "", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run("generate")
	const note = "apigen: note: deleted pkg/cmd/server/zz_generated.datastore.go: the server links SQL storage (kine, --datastore-endpoint) only when pkg/apis/doc.go says +apigen:sql=true; add it to keep it (docs/guides/sql-storage.md)\n"
	if code != 0 || errOut != note || !strings.HasPrefix(out, "apigen: 1 written,") || !strings.Contains(out, " 3 deleted ") {
		t.Fatalf("generate without +apigen:sql: exit %d\nstdout: %s\nstderr: %s\nwant stderr: %s", code, out, errOut, note)
	}
	for _, f := range []string{"zz_generated.datastore.go", "zz_generated.datastorewake.go"} {
		if _, err := os.Stat(filepath.Join(dir, "pkg/cmd/server", f)); !os.IsNotExist(err) {
			t.Errorf("%s is still there: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "pkg/cmd/server/zz_generated.etcdonly.go")); err != nil {
		t.Error(err)
	}
}

// TestWarningPaths: a position in the project reads relative to the working directory; one in
// another module (the module cache) reads as its absolute path, never as the project's root
// joined to it or as a climb of "../".
func TestWarningPaths(t *testing.T) {
	root := filepath.FromSlash("/src/proj")
	for _, c := range []struct{ wd, name, want string }{
		{root, "pkg/apis/toys/v1/toy_types.go", "pkg/apis/toys/v1/toy_types.go"},
		{filepath.Join(root, "pkg", "apis"), "pkg/apis/toys/v1/toy_types.go", "toys/v1/toy_types.go"},
		{filepath.Join(root, "pkg", "apis"), "cmd/apiserver/main.go", "../../cmd/apiserver/main.go"},
		{root, "/mod/cache/github.com/fluxcd/pkg/apis/meta@v1.30.2/reference_types.go", "/mod/cache/github.com/fluxcd/pkg/apis/meta@v1.30.2/reference_types.go"},
		{root, "../../mod/cache/k8s.io/api@v0.37.2/batch/v1/types.go", "/mod/cache/k8s.io/api@v0.37.2/batch/v1/types.go"},
	} {
		if got := filepath.ToSlash(displayPath(root, c.wd, c.name)); got != c.want {
			t.Errorf("displayPath(%q, %q, %q) = %q, want %q", root, c.wd, c.name, got, c.want)
		}
	}
}
