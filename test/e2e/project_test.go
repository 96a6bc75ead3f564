package e2e

import (
	"context"
	"errors"
	"fmt"
	"go/format"
	"go/parser"
	"go/token"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/go/ast/astutil"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
)

const (
	heldoutRepo   = "example.com/heldout"
	heldoutDomain = "heldout.io"
	toysGroup     = "toys.heldout.io"
)

// kindCase is what the behaviour checks need to know about one kind of the held-out project.
type kindCase struct {
	Kind, Singular, Plural string
	Namespaced             bool
	ShortName              string // "" when the kind has none
	Spec                   map[string]any
}

var (
	widgetKind = kindCase{Kind: "Widget", Singular: "widget", Plural: "widgets", Namespaced: true, ShortName: "wd",
		Spec: map[string]any{"owner": "alice", "memory": "1Gi", "tags": []any{"a", "b"}}}
	gadgetKind = kindCase{Kind: "Gadget", Singular: "gadget", Plural: "gadgets", Namespaced: false,
		Spec: map[string]any{"color": "green"}}
)

func (kc kindCase) gvr() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: toysGroup, Version: "v1", Resource: kc.Plural}
}

// nsArgs is kubectl's namespace flag for namespaced kinds and nothing for cluster-scoped ones.
func (kc kindCase) nsArgs(ns string) []string {
	if kc.Namespaced {
		return []string{"-n", ns}
	}
	return nil
}

func (kc kindCase) client(dyn dynamic.Interface, ns string) dynamic.ResourceInterface {
	if kc.Namespaced {
		return dyn.Resource(kc.gvr()).Namespace(ns)
	}
	return dyn.Resource(kc.gvr())
}

// object builds a manifest: the kind's base spec plus spec.replicas, and status when given.
func (kc kindCase) object(name, ns string, labels map[string]any, replicas int64, status map[string]any) map[string]any {
	meta := map[string]any{"name": name}
	if kc.Namespaced {
		meta["namespace"] = ns
	}
	if labels != nil {
		meta["labels"] = labels
	}
	spec := map[string]any{"replicas": replicas}
	for k, v := range kc.Spec {
		spec[k] = v
	}
	obj := map[string]any{"apiVersion": toysGroup + "/v1", "kind": kc.Kind, "metadata": meta, "spec": spec}
	if status != nil {
		obj["status"] = status
	}
	return obj
}

// TestNewProject is the newcomer's path: init, new-api, edit the types, generate, verify,
// build, run in local mode and use the API with kubectl and client-go.
func TestNewProject(t *testing.T) {
	tc := tools(t)
	work := t.TempDir()
	proj := filepath.Join(work, "heldout")
	if err := os.Mkdir(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	apigen := func(args ...string) *cmdResult {
		return runCmd(cmdOpts{Dir: proj, Env: goEnv}, tc.apigen, args...)
	}
	typesDir := filepath.Join(proj, "pkg", "apis", "toys", "v1")
	widgetFile := filepath.Join(typesDir, "widget_types.go")
	gadgetFile := filepath.Join(typesDir, "gadget_types.go")

	// --- 1. scaffold ---------------------------------------------------------------------
	initArgs := []string{"init", "--repo", heldoutRepo, "--domain", heldoutDomain}
	// init fetches the pinned modules: allow a cold module cache the time of a build.
	r := mustSucceed(t, runCmd(cmdOpts{Dir: proj, Env: goEnv, Timeout: buildTimeout}, tc.apigen, initArgs...))
	t.Logf("apigen init took %s", r.Took.Round(time.Millisecond))
	initFiles := snapshot(t, proj)
	if len(initFiles) == 0 {
		t.Fatal("apigen init wrote no files")
	}
	widgetArgs := []string{"new-api", "--group", "toys", "--version", "v1", "--kind", "Widget"}
	mustSucceed(t, apigen(widgetArgs...))
	mustSucceed(t, apigen("new-api", "--group", "toys", "--version", "v1", "--kind", "Gadget", "--namespaced=false"))
	for _, kind := range []string{"Widget", "Gadget"} {
		path := filepath.Join(typesDir, strings.ToLower(kind)+"_types.go")
		src := readFile(t, path)
		for _, want := range []string{"+apigen:resource", "+apigen:subresource:status",
			"type " + kind + " struct", "type " + kind + "Spec struct", "type " + kind + "Status struct", "type " + kind + "List struct"} {
			if !strings.Contains(src, want) {
				t.Errorf("scaffolded %s lacks %q:\n%s", path, want, src)
			}
		}
	}
	if doc := readFile(t, filepath.Join(typesDir, "doc.go")); !regexp.MustCompile(`(?m)^// \+groupName=toys\.heldout\.io$`).MatchString(doc) {
		t.Errorf("scaffolded doc.go lacks \"// +groupName=toys.heldout.io\":\n%s", doc)
	}

	// Scaffolding never overwrites: init again keeps every file it wrote (and says so),
	// new-api Widget again refuses.
	checkInitKeeps(t, proj, tc.apigen, initArgs, initFiles)
	editWidgetTypes(t, widgetFile)
	editGadgetTypes(t, gadgetFile)
	checkRefuses(t, proj, apigen, widgetArgs, []string{"pkg/apis/toys/v1/widget_types.go"})

	// --- 2. generate and verify ----------------------------------------------------------
	r = mustSucceed(t, apigen("generate"))
	t.Logf("apigen generate took %s", r.Took.Round(time.Millisecond))
	checkVerifyClean(t, apigen, "right after generate")

	stale := strings.Replace(readFile(t, widgetFile), "\t// Selector picks the pods of the widget.\n",
		"\t// Note is a free-form note.\n\t// +optional\n\tNote string `json:\"note,omitempty\"`\n\n\t// Selector picks the pods of the widget.\n", 1)
	writeFile(t, widgetFile, stale)
	before := snapshot(t, proj)
	r = apigen("verify")
	if r.ExitCode != 1 {
		t.Errorf("apigen verify after adding a field to WidgetSpec: want exit 1, got:\n%s", r)
	}
	out := r.Output()
	if !regexp.MustCompile(`(?m)^--- .*\n\+\+\+ `).MatchString(out) || !regexp.MustCompile(`(?m)^@@ `).MatchString(out) {
		t.Errorf("apigen verify on a stale tree should print a unified diff (---/+++/@@), got:\n%s", r)
	}
	if !regexp.MustCompile(`(?m)^\+.*\bnote\b`).MatchString(out) {
		t.Errorf("apigen verify's diff should show the new field \"note\" as added lines, got:\n%s", r)
	}
	if !strings.Contains(out, "apigen generate") {
		t.Errorf("apigen verify on a stale tree should tell the user to run \"apigen generate\", got:\n%s", r)
	}
	if d := diffSnapshots(before, snapshot(t, proj)); len(d) > 0 {
		t.Errorf("apigen verify changed the project (it must only compare):\n%s", strings.Join(d, "\n"))
	}
	mustSucceed(t, apigen("generate"))
	checkVerifyClean(t, apigen, "after regenerating")

	// --- 3. build ------------------------------------------------------------------------
	serverBin := filepath.Join(work, "apiserver")
	buildServer(t, proj, serverBin)
	if gomod := readFile(t, filepath.Join(proj, "go.mod")); strings.Contains(gomod, "apigen") {
		t.Errorf("the project's go.mod mentions apigen; a generated project must not depend on it:\n%s", gomod)
	}
	deps := runCmd(cmdOpts{Dir: proj, Env: append(goEnv, "GOFLAGS=-mod=mod"), Timeout: buildTimeout}, "go", "list", "-deps", "./cmd/apiserver")
	mustSucceed(t, deps)
	for _, p := range strings.Fields(deps.Stdout) {
		if strings.HasPrefix(p, modulePath) {
			t.Errorf("the generated server imports %s; it must depend only on k8s.io, etcd and the standard library", p)
		}
	}

	// --- 4. run in local mode ------------------------------------------------------------
	port := freePort(t)
	dataDir := filepath.Join(work, "data")
	kubeconfig := filepath.Join(work, "kubeconfig")
	srv := startServer(t, serverBin, proj, port, dataDir, kubeconfig, filepath.Join(work, "server-1.log"))
	if !strings.Contains(srv.proc.Log(), kubeconfig) {
		t.Errorf("the server's output should name the kubeconfig it wrote (%s):\n%s", kubeconfig, srv.proc.Describe())
	}
	if info, err := os.Stat(kubeconfig); err == nil && info.Mode().Perm()&0o077 != 0 {
		t.Errorf("the admin kubeconfig %s holds a private key but has mode %v; want no group/other access", kubeconfig, info.Mode().Perm())
	}
	checkLoopbackOnly(t, srv)

	k := &kubectl{bin: tc.kubectl, kubeconfig: kubeconfig, cacheDir: filepath.Join(work, "kube-cache")}
	dyn := dynamicFor(t, kubeconfig)
	kinds := []kindCase{widgetKind, gadgetKind}

	// --- 5. behaviours -------------------------------------------------------------------
	t.Run("api-resources", func(t *testing.T) { testAPIResources(t, k) })
	for _, kc := range kinds {
		t.Run("lifecycle/"+kc.Kind, func(t *testing.T) { testLifecycle(t, k, dyn, kc, work) })
		t.Run("status/"+kc.Kind, func(t *testing.T) { testStatus(t, k, kc) })
		t.Run("invalid-name/"+kc.Kind, func(t *testing.T) { testInvalidName(t, k, dyn, kc) })
		t.Run("watch-kubectl/"+kc.Kind, func(t *testing.T) { testKubectlWatch(t, k, kc, work) })
		t.Run("watch-client-go/"+kc.Kind, func(t *testing.T) { testClientGoWatch(t, dyn, kc) })
		t.Run("server-side-apply/"+kc.Kind, func(t *testing.T) { testServerSideApply(t, k, kc, work) })
	}
	t.Run("widget-fields", func(t *testing.T) { testWidgetFields(t, k, dyn, work) })
	t.Run("explain", func(t *testing.T) { testExplain(t, k) })
	t.Run("anonymous", func(t *testing.T) { testAnonymous(t, srv) })
	t.Run("restart", func(t *testing.T) { testRestart(t, srv, k, work) })
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// checkInitKeeps runs init again in the project it scaffolded: it succeeds, reports every
// user-owned file it would write as kept, and changes none of them.
func checkInitKeeps(t *testing.T, proj, apigenBin string, args []string, initFiles map[string]string) {
	t.Helper()
	r := runCmd(cmdOpts{Dir: proj, Env: goEnv, Timeout: buildTimeout}, apigenBin, args...)
	if r.ExitCode != 0 {
		t.Errorf("apigen %s in the project it scaffolded: want exit 0, got:\n%s", strings.Join(args, " "), r)
	}
	for _, f := range []string{"go.mod", "cmd/apiserver/main.go", "pkg/apis/doc.go", "hack/boilerplate.go.txt", "Makefile",
		".gitignore", ".pre-commit-config.yaml", "config/default/kustomization.yaml", "Dockerfile", ".dockerignore"} {
		if !strings.Contains(r.Stdout, "kept      "+f+" (exists)\n") {
			t.Errorf("apigen %s again does not say it kept %s:\n%s", strings.Join(args, " "), f, r)
		}
		if f == "go.mod" {
			continue // go mod tidy may record what the new kinds' tests import
		}
		if got := readFile(t, filepath.Join(proj, f)); got != initFiles[f] {
			t.Errorf("apigen %s again changed %s", strings.Join(args, " "), f)
		}
	}
}

// checkRefuses runs a scaffolding command whose files exist and expects a non-zero exit, an
// error naming one of the existing files, and an unchanged tree.
func checkRefuses(t *testing.T, proj string, apigen func(...string) *cmdResult, args, existing []string) {
	t.Helper()
	before := snapshot(t, proj)
	r := apigen(args...)
	if r.ExitCode == 0 {
		t.Errorf("apigen %s over existing files should refuse (non-zero exit), got:\n%s", strings.Join(args, " "), r)
	}
	named := false
	for _, f := range existing {
		if strings.Contains(r.Output(), f) || strings.Contains(r.Output(), filepath.Base(f)) {
			named = true
		}
	}
	if !named {
		t.Errorf("apigen %s refused but its message does not name the existing file (one of %v):\n%s", strings.Join(args, " "), existing, r)
	}
	if d := diffSnapshots(before, snapshot(t, proj)); len(d) > 0 {
		t.Errorf("apigen %s changed the project although it refused:\n%s", strings.Join(args, " "), strings.Join(d, "\n"))
	}
}

func checkVerifyClean(t *testing.T, apigen func(...string) *cmdResult, when string) {
	t.Helper()
	r := apigen("verify")
	if r.ExitCode != 0 || r.Stdout != "" || r.Stderr != "" {
		t.Errorf("apigen verify %s: want exit 0 and no output, got:\n%s", when, r)
	}
}

// ---------------------------------------------------------------------------------------
// Editing the scaffolded types the way a user does.

// bt stands for a backquote in the Go source below.
const bt = "§"

const widgetSpecSrc = `type WidgetSpec struct {
	// WidgetCommon is embedded: its fields appear directly in the spec.
	WidgetCommon §json:",inline"§

	// Replicas is the number of widget copies to run.
	// +optional
	Replicas *int32 §json:"replicas,omitempty"§

	// Paused stops reconciling the widget.
	// +optional
	Paused *bool §json:"paused,omitempty"§

	// Tags are free-form words.
	// +optional
	// +listType=atomic
	Tags []string §json:"tags,omitempty"§

	// Ports the widget exposes.
	// +optional
	// +listType=map
	// +listMapKey=name
	Ports []WidgetPort §json:"ports,omitempty"§

	// Settings are key/value options.
	// +optional
	Settings map[string]string §json:"settings,omitempty"§

	// Memory is how much memory the widget may use.
	// +optional
	Memory resource.Quantity §json:"memory,omitempty"§

	// MaxUnavailable is a number or a percentage.
	// +optional
	MaxUnavailable *intstr.IntOrString §json:"maxUnavailable,omitempty"§

	// StartAfter is when the widget may start.
	// +optional
	StartAfter metav1.Time §json:"startAfter,omitempty"§

	// Resources are the compute resources of the widget.
	// +optional
	Resources corev1.ResourceRequirements §json:"resources,omitempty"§

	// Payload is opaque binary data.
	// +optional
	Payload []byte §json:"payload,omitempty"§

	// DesiredPhase is the phase the widget should reach.
	// +optional
	DesiredPhase WidgetPhase §json:"desiredPhase,omitempty"§

	// Selector picks the pods of the widget.
	// +optional
	Selector *metav1.LabelSelector §json:"selector,omitempty"§
}`

const widgetStatusSrc = `type WidgetStatus struct {
	// Phase is the phase the widget is in.
	// +optional
	Phase WidgetPhase §json:"phase,omitempty"§

	// ObservedGeneration is the generation this status describes.
	// +optional
	ObservedGeneration int64 §json:"observedGeneration,omitempty"§

	// Message is a human-readable status message.
	// +optional
	Message string §json:"message,omitempty"§

	// Conditions are the latest observations of the widget's state.
	// +optional
	// +patchMergeKey=type
	// +patchStrategy=merge
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition §json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"§

	// LastUpdated is when the status last changed.
	// +optional
	LastUpdated *metav1.Time §json:"lastUpdated,omitempty"§
}`

const widgetExtraSrc = `
// WidgetPhase is the lifecycle phase of a Widget.
// +enum
type WidgetPhase string

const (
	// WidgetPending means the widget has not started.
	WidgetPending WidgetPhase = "Pending"
	// WidgetReady means the widget is serving.
	WidgetReady WidgetPhase = "Ready"
	// WidgetFailed means the widget gave up.
	WidgetFailed WidgetPhase = "Failed"
)

// WidgetCommon holds the fields every widget-like type shares.
type WidgetCommon struct {
	// Owner is who is responsible for the widget.
	// +optional
	Owner string §json:"owner,omitempty"§

	// Priority orders widgets; higher first.
	// +optional
	Priority int32 §json:"priority,omitempty"§
}

// WidgetPort is a named port of a Widget.
type WidgetPort struct {
	// Name of the port.
	Name string §json:"name"§

	// Port number.
	Port int32 §json:"port"§

	// Target is a port number or a port name.
	// +optional
	Target intstr.IntOrString §json:"target,omitempty"§
}
`

const gadgetSpecSrc = `type GadgetSpec struct {
	// Color of the gadget.
	// +optional
	Color string §json:"color,omitempty"§

	// Replicas is the number of gadgets to run.
	// +optional
	Replicas *int32 §json:"replicas,omitempty"§
}`

const gadgetStatusSrc = `type GadgetStatus struct {
	// Message is a human-readable status message.
	// +optional
	Message string §json:"message,omitempty"§

	// Ready is true when the gadget works.
	// +optional
	Ready bool §json:"ready,omitempty"§
}`

func goSrc(s string) string { return strings.ReplaceAll(s, bt, "`") }

// replaceStruct replaces the declaration `type NAME struct {...}` (not its doc comment).
func replaceStruct(t *testing.T, path, src, name, decl string) string {
	t.Helper()
	re := regexp.MustCompile(`(?s)type ` + name + ` struct \{.*?\n\}`)
	if n := len(re.FindAllStringIndex(src, -1)); n != 1 {
		t.Fatalf("%s: found %d declarations of %s to edit, want 1:\n%s", path, n, name, src)
	}
	return re.ReplaceAllLiteralString(src, goSrc(decl))
}

// editWidgetTypes gives WidgetSpec and WidgetStatus many Kubernetes-style fields and adds
// shortName=wd to the resource marker.
func editWidgetTypes(t *testing.T, path string) {
	t.Helper()
	src := readFile(t, path)
	src = replaceStruct(t, path, src, "WidgetSpec", widgetSpecSrc)
	src = replaceStruct(t, path, src, "WidgetStatus", widgetStatusSrc)
	marker := regexp.MustCompile(`(?m)^//\s*\+apigen:resource(:[^\n]*)?$`)
	locs := marker.FindAllStringSubmatchIndex(src, -1)
	if len(locs) != 1 {
		t.Fatalf("%s: found %d +apigen:resource markers, want 1:\n%s", path, len(locs), src)
	}
	line := src[locs[0][0]:locs[0][1]]
	if strings.Contains(line, "shortName") {
		t.Errorf("new-api without a short name wrote one: %q", line)
	}
	sep := ","
	if locs[0][2] < 0 {
		sep = ":"
	}
	src = src[:locs[0][1]] + sep + "shortName=wd" + src[locs[0][1]:]
	src += goSrc(widgetExtraSrc)
	writeFile(t, path, addImports(t, path, src, map[string]string{
		"metav1": "k8s.io/apimachinery/pkg/apis/meta/v1",
		"corev1": "k8s.io/api/core/v1",
		"":       "k8s.io/apimachinery/pkg/api/resource",
		"intstr": "k8s.io/apimachinery/pkg/util/intstr",
	}))
}

func editGadgetTypes(t *testing.T, path string) {
	t.Helper()
	src := readFile(t, path)
	src = replaceStruct(t, path, src, "GadgetSpec", gadgetSpecSrc)
	src = replaceStruct(t, path, src, "GadgetStatus", gadgetStatusSrc)
	writeFile(t, path, addImports(t, path, src, nil))
}

// addImports adds imports (name → path; "" for none) as an editor would, and gofmts.
func addImports(t *testing.T, path, src string, imports map[string]string) string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
	if err != nil {
		t.Fatalf("the edited %s does not parse: %v\n%s", path, err, src)
	}
	for name, p := range imports {
		if name == "" {
			astutil.AddImport(fset, f, p)
		} else {
			astutil.AddNamedImport(fset, f, name, p)
		}
	}
	var b strings.Builder
	if err := format.Node(&b, fset, f); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// ---------------------------------------------------------------------------------------
// Behaviours.

func testAPIResources(t *testing.T, k *kubectl) {
	out := k.ok(t, "api-resources", "--api-group="+toysGroup, "-o", "wide")
	rows := parseTable(out)
	byName := map[string]map[string]string{}
	for _, r := range rows {
		byName[r["NAME"]] = r
	}
	if len(rows) != 2 {
		t.Errorf("kubectl api-resources --api-group=%s: want exactly widgets and gadgets, got %d rows:\n%s", toysGroup, len(rows), out)
	}
	wantVerbs := []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
	for _, kc := range []kindCase{widgetKind, gadgetKind} {
		row, ok := byName[kc.Plural]
		if !ok {
			t.Errorf("kubectl api-resources does not list %s:\n%s", kc.Plural, out)
			continue
		}
		want := map[string]string{"SHORTNAMES": kc.ShortName, "APIVERSION": toysGroup + "/v1",
			"NAMESPACED": fmt.Sprint(kc.Namespaced), "KIND": kc.Kind}
		for col, w := range want {
			if row[col] != w {
				t.Errorf("kubectl api-resources: %s %s = %q, want %q:\n%s", kc.Plural, col, row[col], w, out)
			}
		}
		verbs := strings.FieldsFunc(strings.Trim(row["VERBS"], "[]"), func(r rune) bool { return r == ' ' || r == ',' })
		slices.Sort(verbs)
		if !slices.Equal(verbs, wantVerbs) {
			t.Errorf("kubectl api-resources: %s verbs = %v, want %v:\n%s", kc.Plural, verbs, wantVerbs, out)
		}
	}
}

// testLifecycle: create from YAML, get, list, selectors, replace, patches, generation, delete.
func testLifecycle(t *testing.T, k *kubectl, dyn dynamic.Interface, kc kindCase, work string) {
	ns := "lifecycle"
	nsa := kc.nsArgs(ns)
	get := func(name string) *unstructured.Unstructured {
		t.Helper()
		return k.get(t, append([]string{kc.Plural, name}, nsa...)...)
	}
	a := kc.object("lc-a", ns, map[string]any{"app": "lc", "color": "red"}, 1, map[string]any{"message": "set by create"})
	b := kc.object("lc-b", ns, map[string]any{"app": "lc", "color": "blue"}, 1, nil)
	c := kc.object("lc-c", ns, map[string]any{"app": "lc"}, 1, nil)
	file := writeFile(t, filepath.Join(work, kc.Plural+"-lifecycle.yaml"), toYAML(t, a, b, c))
	out := k.ok(t, "create", "-f", file)
	for _, name := range []string{"lc-a", "lc-b", "lc-c"} {
		if want := fmt.Sprintf("%s.%s/%s created", kc.Singular, toysGroup, name); !strings.Contains(out, want) {
			t.Errorf("kubectl create -f: output lacks %q:\n%s", want, out)
		}
	}

	// What the server filled in.
	yamlOut := k.ok(t, append([]string{"get", kc.Plural, "lc-a", "-o", "yaml"}, nsa...)...)
	obj := yamlToObject(t, yamlOut)
	for _, f := range []string{"metadata.uid", "metadata.resourceVersion", "metadata.creationTimestamp"} {
		if s, _ := field(obj, f).(string); s == "" {
			t.Errorf("kubectl get -o yaml: %s is empty:\n%s", f, yamlOut)
		}
	}
	if ts, _ := field(obj, "metadata.creationTimestamp").(string); ts != "" {
		if created, err := time.Parse(time.RFC3339, ts); err != nil || time.Since(created) > 10*time.Minute || time.Until(created) > time.Minute {
			t.Errorf("creationTimestamp %q is not a time of this run (err %v)", ts, err)
		}
	}
	if gotNS, _ := field(obj, "metadata.namespace").(string); kc.Namespaced && gotNS != ns || !kc.Namespaced && gotNS != "" {
		t.Errorf("metadata.namespace = %q (namespaced: %v)", gotNS, kc.Namespaced)
	}
	if g := field(obj, "metadata.generation"); g != int64(1) {
		t.Errorf("metadata.generation on create = %v, want 1:\n%s", g, yamlOut)
	}
	if d := cmp.Diff(pruneEmpty(a["spec"]), pruneEmpty(field(obj, "spec"))); d != "" {
		t.Errorf("spec as stored differs from the spec created (-sent +stored):\n%s", d)
	}
	if st := field(obj, "status"); !isEmptyValue(st) {
		t.Errorf("status given in a create must be reset, stored status = %s", mustJSON(st))
	}

	// Listing: table, short name, all namespaces.
	table := k.ok(t, append([]string{"get", kc.Plural, "-l", "app=lc"}, nsa...)...)
	var listed []string
	for _, r := range parseTable(table) {
		listed = append(listed, r["NAME"])
	}
	if !slices.Equal(listed, []string{"lc-a", "lc-b", "lc-c"}) {
		t.Errorf("kubectl get %s: want a table listing lc-a lc-b lc-c, got:\n%s", kc.Plural, table)
	}
	if header := strings.Fields(strings.SplitN(table, "\n", 2)[0]); !slices.Equal(header, []string{"NAME", "AGE"}) {
		t.Errorf("kubectl get %s without print columns: want the columns NAME AGE (as for built-in kinds and CRDs), got %v:\n%s", kc.Plural, header, table)
	}
	if kc.ShortName != "" {
		if got := k.names(t, append([]string{kc.ShortName, "-l", "app=lc"}, nsa...)...); !slices.Equal(got, listed) {
			t.Errorf("kubectl get %s (short name): %v, want %v", kc.ShortName, got, listed)
		}
	}
	if kc.Namespaced {
		all := k.ok(t, "get", kc.Plural, "-A", "-l", "app=lc")
		if rows := parseTable(all); len(rows) != 3 || rows[0]["NAMESPACE"] != ns {
			t.Errorf("kubectl get %s -A: want 3 rows in namespace %s, got:\n%s", kc.Plural, ns, all)
		}
		if got := k.names(t, kc.Plural, "-n", "elsewhere", "-l", "app=lc"); len(got) != 0 {
			t.Errorf("kubectl get %s -n elsewhere lists objects of namespace %s: %v", kc.Plural, ns, got)
		}
	}

	// Label and field selectors.
	for sel, want := range map[string][]string{
		"app=lc,color=red":           {"lc-a"},
		"app=lc,color=blue":          {"lc-b"},
		"app=lc,!color":              {"lc-c"},
		"app=lc,color in (red,blue)": {"lc-a", "lc-b"},
		"app=lc,color=green":         {},
	} {
		if got := k.names(t, append([]string{kc.Plural, "-l", sel}, nsa...)...); !slices.Equal(got, want) {
			t.Errorf("kubectl get %s -l %q = %v, want %v", kc.Plural, sel, got, want)
		}
	}
	if got := k.names(t, append([]string{kc.Plural, "--field-selector", "metadata.name=lc-c"}, nsa...)...); !slices.Equal(got, []string{"lc-c"}) {
		t.Errorf("kubectl get %s --field-selector metadata.name=lc-c = %v, want [lc-c]", kc.Plural, got)
	}
	ctx := context.Background()
	list, err := kc.client(dyn, ns).List(ctx, metav1.ListOptions{LabelSelector: "app=lc,color=red"})
	if err != nil {
		t.Errorf("client-go list with a label selector: %v", err)
	} else if n := itemNames(list); !slices.Equal(n, []string{"lc-a"}) {
		t.Errorf("client-go list -l app=lc,color=red = %v, want [lc-a]", n)
	}
	list, err = kc.client(dyn, ns).List(ctx, metav1.ListOptions{FieldSelector: "metadata.name=lc-b"})
	if err != nil {
		t.Errorf("client-go list with a field selector: %v", err)
	} else if n := itemNames(list); !slices.Equal(n, []string{"lc-b"}) {
		t.Errorf("client-go list metadata.name=lc-b = %v, want [lc-b]", n)
	}

	// Generation: labels and annotations do not bump it.
	rv := get("lc-a").GetResourceVersion()
	k.ok(t, append([]string{"label", kc.Plural, "lc-a", "tier=gold"}, nsa...)...)
	k.ok(t, append([]string{"annotate", kc.Plural, "lc-a", "note=hello"}, nsa...)...)
	o := get("lc-a")
	if o.GetLabels()["tier"] != "gold" || o.GetAnnotations()["note"] != "hello" || o.GetResourceVersion() == rv {
		t.Errorf("kubectl label/annotate did not take effect: labels %v annotations %v rv %s→%s", o.GetLabels(), o.GetAnnotations(), rv, o.GetResourceVersion())
	}
	if o.GetGeneration() != 1 {
		t.Errorf("a label/annotation-only change bumped metadata.generation to %d; want 1", o.GetGeneration())
	}

	// Replace: the spec changes, the status in the body is ignored, generation bumps.
	old := o.DeepCopy()
	repl := o.DeepCopy()
	_ = unstructured.SetNestedField(repl.Object, int64(2), "spec", "replicas")
	_ = unstructured.SetNestedField(repl.Object, "set by replace", "status", "message")
	replFile := writeFile(t, filepath.Join(work, kc.Plural+"-replace.json"), mustJSON(repl.Object))
	if out := k.ok(t, "replace", "-f", replFile); !strings.Contains(out, "replaced") {
		t.Errorf("kubectl replace: output lacks \"replaced\": %s", out)
	}
	o = get("lc-a")
	if field(o.Object, "spec.replicas") != int64(2) || o.GetGeneration() != 2 {
		t.Errorf("after kubectl replace with spec.replicas=2: replicas %v generation %d, want 2 and 2", field(o.Object, "spec.replicas"), o.GetGeneration())
	}
	if m := field(o.Object, "status.message"); m != nil {
		t.Errorf("status in a replace of the main resource must be ignored; status.message = %v", m)
	}
	// A replace based on an old resourceVersion is a conflict.
	_ = unstructured.SetNestedField(old.Object, int64(9), "spec", "replicas")
	staleFile := writeFile(t, filepath.Join(work, kc.Plural+"-stale.json"), mustJSON(old.Object))
	if r := k.fails(t, "", "replace", "-f", staleFile); r.ExitCode != 0 && !strings.Contains(r.Stderr, "the object has been modified") {
		t.Errorf("kubectl replace with a stale resourceVersion: want a conflict (\"the object has been modified\"), got:\n%s", r)
	}

	// Merge patch, JSON patch, and a no-op patch.
	k.ok(t, append([]string{"patch", kc.Plural, "lc-a", "--type=merge", "-p", `{"spec":{"replicas":3}}`}, nsa...)...)
	if o = get("lc-a"); field(o.Object, "spec.replicas") != int64(3) || o.GetGeneration() != 3 {
		t.Errorf("after a merge patch of spec.replicas=3: replicas %v generation %d, want 3 and 3", field(o.Object, "spec.replicas"), o.GetGeneration())
	}
	k.ok(t, append([]string{"patch", kc.Plural, "lc-a", "--type=json", "-p", `[{"op":"replace","path":"/spec/replicas","value":4}]`}, nsa...)...)
	if o = get("lc-a"); field(o.Object, "spec.replicas") != int64(4) || o.GetGeneration() != 4 {
		t.Errorf("after a JSON patch of /spec/replicas=4: replicas %v generation %d, want 4 and 4", field(o.Object, "spec.replicas"), o.GetGeneration())
	}
	k.ok(t, append([]string{"patch", kc.Plural, "lc-a", "--type=merge", "-p", `{"spec":{"replicas":4}}`}, nsa...)...)
	if o = get("lc-a"); o.GetGeneration() != 4 {
		t.Errorf("a patch that changes nothing bumped metadata.generation to %d; want 4", o.GetGeneration())
	}
	if d := cmp.Diff(pruneEmpty(a["spec"]), pruneEmpty(withReplicas(field(o.Object, "spec"), 1))); d != "" {
		t.Errorf("patching spec.replicas changed other spec fields (-created +now):\n%s", d)
	}

	// Delete.
	if out := k.ok(t, append([]string{"delete", kc.Plural, "lc-b"}, nsa...)...); !strings.Contains(out, `"lc-b" deleted`) {
		t.Errorf("kubectl delete: output lacks %q: %s", `"lc-b" deleted`, out)
	}
	r := k.fails(t, "", append([]string{"get", kc.Plural, "lc-b"}, nsa...)...)
	if r.ExitCode != 0 && !strings.Contains(r.Stderr, "(NotFound)") {
		t.Errorf("kubectl get of a deleted object: want NotFound, got:\n%s", r)
	}
	if got := k.names(t, append([]string{kc.Plural, "-l", "app=lc"}, nsa...)...); !slices.Equal(got, []string{"lc-a", "lc-c"}) {
		t.Errorf("after deleting lc-b: %v, want [lc-a lc-c]", got)
	}
}

func withReplicas(spec any, n int64) any {
	m, ok := spec.(map[string]any)
	if !ok {
		return spec
	}
	c := map[string]any{}
	for k, v := range m {
		c[k] = v
	}
	c["replicas"] = n
	return c
}

func itemNames(l *unstructured.UnstructuredList) []string {
	names := []string{}
	for _, it := range l.Items {
		names = append(names, it.GetName())
	}
	slices.Sort(names)
	return names
}

// testStatus: the status subresource changes only status; spec and generation stay.
func testStatus(t *testing.T, k *kubectl, kc kindCase) {
	ns := "status"
	nsa := kc.nsArgs(ns)
	obj := kc.object("st-1", ns, nil, 1, nil)
	k.okStdin(t, toYAML(t, obj), "create", "-f", "-")
	out := k.ok(t, append([]string{"patch", kc.Plural, "st-1", "--subresource=status", "--type=merge",
		"-p", `{"status":{"message":"set by status"},"spec":{"replicas":42},"metadata":{"labels":{"via":"status"}}}`}, nsa...)...)
	if !strings.Contains(out, "patched") {
		t.Errorf("kubectl patch --subresource=status: output lacks \"patched\": %s", out)
	}
	o := k.get(t, append([]string{kc.Plural, "st-1"}, nsa...)...)
	if m := field(o.Object, "status.message"); m != "set by status" {
		t.Errorf("after a status patch: status.message = %v, want \"set by status\"", m)
	}
	if r := field(o.Object, "spec.replicas"); r != int64(1) {
		t.Errorf("a status patch changed spec.replicas to %v; the status subresource must change only status", r)
	}
	if o.GetGeneration() != 1 {
		t.Errorf("a status patch bumped metadata.generation to %d; want 1", o.GetGeneration())
	}
	// A spec change through the main resource keeps the status.
	k.ok(t, append([]string{"patch", kc.Plural, "st-1", "--type=merge", "-p", `{"spec":{"replicas":5},"status":{"message":"via main"}}`}, nsa...)...)
	o = k.get(t, append([]string{kc.Plural, "st-1"}, nsa...)...)
	if field(o.Object, "status.message") != "set by status" || field(o.Object, "spec.replicas") != int64(5) || o.GetGeneration() != 2 {
		t.Errorf("after a main-resource patch of spec and status: status.message %v spec.replicas %v generation %d; want \"set by status\", 5, 2",
			field(o.Object, "status.message"), field(o.Object, "spec.replicas"), o.GetGeneration())
	}
}

// testInvalidName: a name that is not a DNS subdomain is refused with 422 Invalid.
func testInvalidName(t *testing.T, k *kubectl, dyn dynamic.Interface, kc kindCase) {
	obj := kc.object("Bad_Name", "default", nil, 1, nil)
	r := k.fails(t, toYAML(t, obj), "create", "-f", "-")
	if r.ExitCode != 0 && (!strings.Contains(r.Stderr, "Invalid value") || !strings.Contains(r.Stderr, "Bad_Name")) {
		t.Errorf("kubectl create of %s \"Bad_Name\": want an \"Invalid value\" error naming it, got:\n%s", kc.Kind, r)
	}
	_, err := kc.client(dyn, "default").Create(context.Background(), &unstructured.Unstructured{Object: obj}, metav1.CreateOptions{})
	var status *apierrors.StatusError
	switch {
	case err == nil:
		t.Errorf("client-go created %s \"Bad_Name\"; want 422 Invalid", kc.Kind)
	case !apierrors.IsInvalid(err):
		t.Errorf("client-go create of %s \"Bad_Name\": want 422 Invalid, got %v", kc.Kind, err)
	default:
		if errors.As(err, &status) && status.ErrStatus.Code != http.StatusUnprocessableEntity {
			t.Errorf("client-go create of %s \"Bad_Name\": code %d, want 422", kc.Kind, status.ErrStatus.Code)
		}
	}
	if got := k.names(t, append([]string{kc.Plural}, kc.nsArgs("default")...)...); slices.Contains(got, "Bad_Name") {
		t.Errorf("the invalid object was stored anyway: %v", got)
	}
}

// testKubectlWatch: kubectl get -w --output-watch-events sees ADDED, MODIFIED, DELETED.
func testKubectlWatch(t *testing.T, k *kubectl, kc kindCase, work string) {
	ns := "watch-kubectl"
	nsa := kc.nsArgs(ns)
	prefix := "kw-" + kc.Singular
	k.okStdin(t, toYAML(t, kc.object(prefix+"-sentinel", ns, nil, 1, nil)), "create", "-f", "-")
	logPath := filepath.Join(work, "kubectl-watch-"+kc.Plural+".log")
	w := startProcess(t, cmdOpts{}, logPath, k.bin, k.args(append([]string{"get", kc.Plural, "-w", "--output-watch-events"}, nsa...)...)...)
	defer w.Kill()
	waitFor := func(what string, re *regexp.Regexp) {
		t.Helper()
		err := poll(eventTimeout, func() error {
			if re.MatchString(w.Log()) {
				return nil
			}
			if w.Exited() {
				return stopPolling{fmt.Errorf("kubectl -w exited")}
			}
			return fmt.Errorf("no line matching %s", re)
		})
		if err != nil {
			t.Fatalf("kubectl get %s -w --output-watch-events: %s not seen: %v\n%s", kc.Plural, what, err, w.Describe())
		}
	}
	event := func(typ, name string) *regexp.Regexp {
		return regexp.MustCompile(`(?m)^` + typ + `\s+` + regexp.QuoteMeta(name) + `\s`)
	}
	waitFor("the existing object", event("ADDED", prefix+"-sentinel"))
	name := prefix + "-x"
	k.okStdin(t, toYAML(t, kc.object(name, ns, nil, 1, nil)), "create", "-f", "-")
	waitFor("ADDED after create", event("ADDED", name))
	k.ok(t, append([]string{"patch", kc.Plural, name, "--type=merge", "-p", `{"spec":{"replicas":2}}`}, nsa...)...)
	waitFor("MODIFIED after patch", event("MODIFIED", name))
	k.ok(t, append([]string{"delete", kc.Plural, name}, nsa...)...)
	waitFor("DELETED after delete", event("DELETED", name))
}

// testClientGoWatch: a client-go watch from a list's resourceVersion sees the same events.
func testClientGoWatch(t *testing.T, dyn dynamic.Interface, kc kindCase) {
	ns := "watch-client-go"
	ctx, cancel := context.WithTimeout(context.Background(), 2*eventTimeout)
	defer cancel()
	client := kc.client(dyn, ns)
	list, err := client.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("client-go list %s: %v", kc.Plural, err)
	}
	w, err := client.Watch(ctx, metav1.ListOptions{ResourceVersion: list.GetResourceVersion()})
	if err != nil {
		t.Fatalf("client-go watch %s: %v", kc.Plural, err)
	}
	defer w.Stop()
	name := "cw-" + kc.Singular
	if _, err := client.Create(ctx, &unstructured.Unstructured{Object: kc.object(name, ns, nil, 1, nil)}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("client-go create: %v", err)
	}
	if _, err := client.Patch(ctx, name, types.MergePatchType, []byte(`{"spec":{"replicas":7}}`), metav1.PatchOptions{}); err != nil {
		t.Fatalf("client-go merge patch: %v", err)
	}
	if err := client.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("client-go delete: %v", err)
	}
	var seen []string
	timeout := time.After(eventTimeout)
loop:
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Errorf("client-go watch closed early; saw %v", seen)
				break loop
			}
			u, isObj := ev.Object.(*unstructured.Unstructured)
			if !isObj {
				t.Errorf("client-go watch delivered %s %T: %v", ev.Type, ev.Object, ev.Object)
				continue
			}
			if u.GetName() != name {
				continue
			}
			seen = append(seen, string(ev.Type))
			if ev.Type == watch.Modified && field(u.Object, "spec.replicas") != int64(7) {
				t.Errorf("MODIFIED event carries spec.replicas %v, want 7", field(u.Object, "spec.replicas"))
			}
			if ev.Type == watch.Deleted {
				break loop
			}
		case <-timeout:
			t.Errorf("client-go watch: no DELETED event for %s within %v", name, eventTimeout)
			break loop
		}
	}
	if want := []string{"ADDED", "MODIFIED", "DELETED"}; !slices.Equal(seen, want) {
		t.Errorf("client-go watch events for %s = %v, want %v", name, seen, want)
	}
}

// testServerSideApply: kubectl apply --server-side creates, updates, tracks field owners.
func testServerSideApply(t *testing.T, k *kubectl, kc kindCase, work string) {
	ns := "ssa"
	nsa := kc.nsArgs(ns)
	apply := func(replicas int64, extra ...string) *cmdResult {
		file := writeFile(t, filepath.Join(work, fmt.Sprintf("%s-ssa-%d.yaml", kc.Plural, replicas)), toYAML(t, kc.object("ssa-1", ns, nil, replicas, nil)))
		return k.run("", append([]string{"apply", "--server-side", "-f", file}, extra...)...)
	}
	replicas := func() any {
		return field(k.get(t, append([]string{kc.Plural, "ssa-1"}, nsa...)...).Object, "spec.replicas")
	}
	if r := mustSucceed(t, apply(1)); !strings.Contains(r.Stdout, "serverside-applied") {
		t.Errorf("kubectl apply --server-side: output lacks \"serverside-applied\":\n%s", r)
	}
	o := k.get(t, append([]string{kc.Plural, "ssa-1", "--show-managed-fields"}, nsa...)...)
	applied := false
	for _, mf := range o.GetManagedFields() {
		if mf.Manager == "kubectl" && mf.Operation == metav1.ManagedFieldsOperationApply {
			applied = true
		}
	}
	if !applied {
		t.Errorf("after kubectl apply --server-side: no managedFields entry {manager: kubectl, operation: Apply}: %s", mustJSON(o.GetManagedFields()))
	}
	mustSucceed(t, apply(2))
	if r := replicas(); r != int64(2) {
		t.Errorf("second server-side apply with replicas 2: spec.replicas = %v", r)
	}
	r := apply(3, "--field-manager=intruder")
	if r.ExitCode == 0 || !strings.Contains(strings.ToLower(r.Stderr), "conflict") {
		t.Errorf("server-side apply by another manager of a field kubectl owns: want a conflict error, got:\n%s", r)
	}
	if v := replicas(); v != int64(2) {
		t.Errorf("a conflicting apply changed spec.replicas to %v", v)
	}
	mustSucceed(t, apply(3, "--field-manager=intruder", "--force-conflicts"))
	if v := replicas(); v != int64(3) {
		t.Errorf("apply --force-conflicts with replicas 3: spec.replicas = %v", v)
	}
}

const richWidget = `apiVersion: toys.heldout.io/v1
kind: Widget
metadata:
  name: NAME
  namespace: fields
  labels:
    app: fields
spec:
  owner: alice
  priority: 3
  replicas: 2
  paused: true
  tags: [a, b]
  ports:
  - name: http
    port: 80
    target: 8080
  - name: metrics
    port: 9090
    target: metrics
  settings:
    mode: fast
    level: "7"
  memory: 1Gi
  maxUnavailable: 25%
  startAfter: "2024-01-02T03:04:05Z"
  resources:
    limits:
      cpu: "2"
      memory: 1Gi
    requests:
      cpu: 500m
  payload: aGVsbG8=
  desiredPhase: Ready
  selector:
    matchLabels:
      tier: gold
status:
  phase: Failed
  message: set by create
`

// testWidgetFields: every kind of field survives a round trip (create and server-side
// apply), and conditions can be written through the status subresource.
func testWidgetFields(t *testing.T, k *kubectl, dyn dynamic.Interface, work string) {
	ctx := context.Background()
	for _, how := range []string{"create", "apply-server-side"} {
		name := "rich-" + how
		manifest := strings.Replace(richWidget, "NAME", name, 1)
		sent := yamlToObject(t, manifest)
		file := writeFile(t, filepath.Join(work, name+".yaml"), manifest)
		args := []string{"create", "-f", file}
		if how == "apply-server-side" {
			args = []string{"apply", "--server-side", "-f", file}
		}
		if r := k.run("", args...); r.ExitCode != 0 {
			t.Errorf("kubectl %s of a Widget with every kind of field failed:\n%s", how, r)
			continue
		}
		o := k.get(t, "widgets", name, "-n", "fields")
		if d := cmp.Diff(pruneEmpty(sent["spec"]), pruneEmpty(field(o.Object, "spec"))); d != "" {
			t.Errorf("kubectl %s of a Widget with every kind of field: stored spec differs (-sent +stored):\n%s", how, d)
		}
		if st := field(o.Object, "status"); !isEmptyValue(st) {
			t.Errorf("kubectl %s: status must be reset on create, stored status = %s", how, mustJSON(st))
		}
	}

	// Conditions through client-go's UpdateStatus.
	client := dyn.Resource(widgetKind.gvr()).Namespace("fields")
	o, err := client.Get(ctx, "rich-create", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("client-go get: %v", err)
	}
	now := metav1.Now().Rfc3339Copy().UTC().Format(time.RFC3339)
	conds := []any{map[string]any{"type": "Ready", "status": "True", "reason": "AllGood", "message": "ok",
		"lastTransitionTime": now, "observedGeneration": int64(1)}}
	_ = unstructured.SetNestedSlice(o.Object, conds, "status", "conditions")
	_ = unstructured.SetNestedField(o.Object, "Ready", "status", "phase")
	_ = unstructured.SetNestedField(o.Object, int64(1), "status", "observedGeneration")
	_ = unstructured.SetNestedField(o.Object, now, "status", "lastUpdated")
	_ = unstructured.SetNestedField(o.Object, int64(99), "spec", "replicas")
	if _, err := client.UpdateStatus(ctx, o, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("client-go UpdateStatus with conditions: %v", err)
	}
	o, err = client.Get(ctx, "rich-create", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"phase": "Ready", "observedGeneration": int64(1), "conditions": conds, "lastUpdated": now}
	if d := cmp.Diff(pruneEmpty(want), pruneEmpty(field(o.Object, "status"))); d != "" {
		t.Errorf("status after UpdateStatus differs (-sent +stored):\n%s", d)
	}
	if r := field(o.Object, "spec.replicas"); r != int64(2) || o.GetGeneration() != 1 {
		t.Errorf("UpdateStatus changed spec.replicas to %v / generation to %d; want 2 and 1", r, o.GetGeneration())
	}

	// A field of the wrong type is refused.
	bad := strings.Replace(strings.Replace(richWidget, "NAME", "rich-bad", 1), "replicas: 2", "replicas: lots", 1)
	if r := k.fails(t, bad, "create", "-f", "-"); r.ExitCode != 0 && !strings.Contains(r.Stderr, "replicas") {
		t.Errorf("creating a Widget with spec.replicas: lots should fail naming the field, got:\n%s", r)
	}
}

// testExplain: the OpenAPI schema reaches kubectl explain, with the Go doc comments.
func testExplain(t *testing.T, k *kubectl) {
	for _, c := range []struct {
		what string
		want []string
		why  string
	}{
		{"widgets", []string{"Widget is an object of the widgets API."}, "the Widget type's doc comment (the scaffold promises explain shows it)"},
		{"widgets.spec", []string{"Spec is the desired state of the Widget", toysGroup, "owner", "priority", "replicas", "paused", "tags", "ports", "settings",
			"memory", "maxUnavailable", "startAfter", "resources", "payload", "desiredPhase", "selector"}, "every spec field, the embedded struct's inlined"},
		{"widgets.spec.replicas", []string{"Replicas is the number of widget copies to run."}, "the field's doc comment"},
		{"widgets.spec.desiredPhase", []string{"Pending", "Ready", "Failed"}, "the +enum values"},
		{"widgets.status.conditions", []string{"lastTransitionTime", "observedGeneration"}, "metav1.Condition's fields"},
		{"gadgets.spec", []string{"Gadget", "color", "replicas"}, "Gadget's spec fields"},
	} {
		r := k.run("", "explain", c.what)
		if r.ExitCode != 0 {
			t.Errorf("kubectl explain %s failed:\n%s", c.what, r)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(r.Stdout, w) {
				t.Errorf("kubectl explain %s: lacks %q (%s):\n%s", c.what, w, c.why, r.Stdout)
			}
		}
	}
}

// testAnonymous: without a client certificate the API answers 401.
func testAnonymous(t *testing.T, srv *server) {
	cfg := restConfig(t, srv.kubeconfig)
	for _, path := range []string{"/apis/toys.heldout.io/v1/namespaces/default/widgets", "/apis/toys.heldout.io/v1/gadgets"} {
		status, body, err := anonymousGet(fmt.Sprintf("https://127.0.0.1:%d%s", srv.port, path))
		if err != nil {
			t.Errorf("anonymous GET %s: %v", path, err)
		} else if status != http.StatusUnauthorized {
			t.Errorf("anonymous GET %s: status %d, want 401:\n%s", path, status, body)
		}
		if status, body, err := restGet(cfg, path); err != nil || status != http.StatusOK {
			t.Errorf("GET %s with the admin kubeconfig: %d %v, want 200:\n%s", path, status, err, body)
		}
	}
}

// objectKey names an object in a restart comparison.
func listAll(t *testing.T, dyn dynamic.Interface) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, kc := range []kindCase{widgetKind, gadgetKind} {
		list, err := dyn.Resource(kc.gvr()).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatalf("client-go list %s: %v", kc.Plural, err)
		}
		for _, it := range list.Items {
			key := fmt.Sprintf("%s %s/%s", kc.Plural, it.GetNamespace(), it.GetName())
			out[key] = fmt.Sprintf("uid=%s rv=%s generation=%d spec=%s status=%s", it.GetUID(), it.GetResourceVersion(),
				it.GetGeneration(), mustJSON(field(it.Object, "spec")), mustJSON(field(it.Object, "status")))
		}
	}
	return out
}

// testRestart: SIGINT stops the server cleanly; started again on the same data dir it has
// every object, and the kubeconfig written by the first run still works.
func testRestart(t *testing.T, srv *server, k *kubectl, work string) {
	before := listAll(t, dynamicFor(t, srv.kubeconfig))
	if len(before) == 0 {
		t.Fatal("no objects to compare across the restart")
	}
	oldKubeconfig := writeFile(t, filepath.Join(work, "kubeconfig.first-run"), readFile(t, srv.kubeconfig))
	code, err := srv.proc.Signal(os.Interrupt, stopTimeout)
	if err != nil || code != 0 {
		t.Errorf("after SIGINT the server should exit 0; got exit %d, %v\n%s", code, err, srv.proc.Describe())
	}
	if strings.Contains(srv.proc.Log(), "panic:") {
		t.Errorf("the server panicked while stopping:\n%s", srv.proc.Describe())
	}
	srv2 := startServer(t, srv.bin, srv.dir, srv.port, srv.dataDir, srv.kubeconfig, filepath.Join(work, "server-2.log"))
	srv2.waitReady(t, oldKubeconfig)
	after := listAll(t, dynamicFor(t, oldKubeconfig))
	if d := cmp.Diff(before, after); d != "" {
		t.Errorf("objects differ across a restart on the same data dir (-before +after):\n%s", d)
	}
	k2 := &kubectl{bin: k.bin, kubeconfig: oldKubeconfig, cacheDir: k.cacheDir + "-2"}
	if got := k2.names(t, "widgets", "-n", "lifecycle", "-l", "app=lc"); !slices.Equal(got, []string{"lc-a", "lc-c"}) {
		t.Errorf("kubectl with the first run's kubeconfig after restart: widgets %v, want [lc-a lc-c]", got)
	}
	k2.okStdin(t, toYAML(t, gadgetKind.object("after-restart", "", nil, 1, nil)), "create", "-f", "-")
	if got := k2.names(t, "gadgets", "--field-selector", "metadata.name=after-restart"); !slices.Equal(got, []string{"after-restart"}) {
		t.Errorf("a Gadget created after the restart is not listed: %v", got)
	}
	if code, err := srv2.proc.Signal(os.Interrupt, stopTimeout); err != nil || code != 0 {
		t.Errorf("after SIGINT the restarted server should exit 0; got exit %d, %v\n%s", code, err, srv2.proc.Describe())
	}
}
