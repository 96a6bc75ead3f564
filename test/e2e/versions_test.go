package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/yaml"
)

// TestVersions serves examples/wardle's two versions as kube-apiserver serves the versions of a
// kind: one storage version (v1beta1) whose type is the hub, conversions to and from v1alpha1
// (one of them hand-written), defaults in every version, one version priority for discovery
// and the APIServices. It starts from a data directory written by the same project while it
// still stored Flunders in v1alpha1, so it also proves that changing the storage version keeps
// every stored object readable and writable, and it reads etcd itself to see which version
// each object is stored in.
func TestVersions(t *testing.T) {
	tc := tools(t)
	bin := loadServerBin(t)
	work := t.TempDir()

	// The same project as it was before Flunders moved to v1beta1: the storage version marker
	// on v1alpha1's Flunder, and no hooks on v1beta1's (the strategy would never call them).
	before := filepath.Join(work, "wardle-before")
	copyTree(t, filepath.Join(tc.root, "examples", "wardle"), before)
	v1alpha1Types := filepath.Join(before, "pkg/apis/wardle/v1alpha1/flunder_types.go")
	v1beta1Types := filepath.Join(before, "pkg/apis/wardle/v1beta1/flunder_types.go")
	// (Its selectable field and approval subresource go too: both must be the hub's.)
	beta := strings.Replace(readFile(t, v1beta1Types), "// +apigen:storageversion\n", "", 1)
	beta = strings.Replace(beta, "// +apigen:subresource:custom:name=approval,verbs=get;update;patch\n", "", 1)
	writeFile(t, v1beta1Types, strings.Replace(beta, "// +apigen:selectablefield:JSONPath=.spec.reference.kind\n", "", 1))
	writeFile(t, v1alpha1Types, strings.Replace(readFile(t, v1alpha1Types), "type Flunder struct", "// +apigen:storageversion\ntype Flunder struct", 1))
	if err := os.Remove(filepath.Join(before, "pkg/apis/wardle/v1beta1/flunder_hooks.go")); err != nil {
		t.Fatal(err)
	}
	mustSucceed(t, runCmd(cmdOpts{Dir: before, Env: goEnv}, tc.apigen, "generate"))
	beforeBin := filepath.Join(work, "apiserver-before")
	buildServer(t, before, beforeBin)

	dataDir, kubeconfig := filepath.Join(work, "data"), filepath.Join(work, "kubeconfig")
	k := &kubectl{bin: tc.kubectl, kubeconfig: kubeconfig, cacheDir: filepath.Join(work, "kube-cache")}
	const v1alpha1, v1beta1 = "flunders.v1alpha1." + wardleGroup, "flunders.v1beta1." + wardleGroup

	// Before: objects created in both versions are stored in v1alpha1.
	srv := startServer(t, beforeBin, before, freePort(t), dataDir, kubeconfig, filepath.Join(work, "before.log"))
	k.okStdin(t, flunderYAML("v1alpha1", "old-alpha", `{reference: other}`), "create", "-f", "-")
	k.okStdin(t, flunderYAML("v1beta1", "old-beta", `{reference: {name: old-alpha}}`), "create", "-f", "-")
	k.okStdin(t, flunderYAML("v1beta1", "old-migrated", `{reference: {name: old-alpha}}`), "create", "-f", "-")
	hashBefore := storageVersionHash(t, k, "v1beta1", "flunders")
	stopServer(t, srv)
	withEtcd(t, dataDir, func(ctx context.Context, c *clientv3.Client) {
		stored := storedVersions(ctx, t, c)
		for _, name := range []string{"old-alpha", "old-beta", "old-migrated"} {
			if got := stored[name]; got != wardleGroup+"/v1alpha1" {
				t.Errorf("before the switch, flunder %s is stored as %q, want %s/v1alpha1", name, got, wardleGroup)
			}
		}
		// An object in etcd that never went through a request: defaults apply when it is read.
		putRawFlunder(ctx, t, c, "raw", `{"reference":{"name":"old-alpha"}}`)
	})

	// After: examples/wardle as committed, Flunders stored in v1beta1, on the same data.
	srv = startServer(t, bin, work, freePort(t), dataDir, kubeconfig, filepath.Join(work, "after.log"))
	if hashAfter := storageVersionHash(t, k, "v1beta1", "flunders"); hashAfter == hashBefore || hashAfter == "" {
		t.Errorf("discovery's storageVersionHash of flunders is %q before and %q after the storage version changed; want two different hashes", hashBefore, hashAfter)
	}
	checkVersionPriority(t, k, filepath.Join(tc.root, "examples", "wardle", "config", "generated", "apiservice.yaml"))

	// Objects stored in the old version read in both versions, converted.
	wantSpec(t, k, v1beta1, "old-alpha", `{"reference":{"kind":"Flunder","name":"other"}}`)
	wantSpec(t, k, v1alpha1, "old-alpha", `{"reference":"other","referenceType":"Flunder"}`)
	wantSpec(t, k, v1alpha1, "old-beta", `{"reference":"old-alpha","referenceType":"Flunder"}`)
	wantSpec(t, k, v1beta1, "raw", `{"reference":{"kind":"Flunder","name":"old-alpha"}}`)

	// Create in each version and read in the other, with each version's defaults: v1alpha1's
	// Default hook and v1beta1's +kubebuilder:default on reference.kind.
	k.okStdin(t, flunderYAML("v1alpha1", "new-alpha", `{reference: a-fischer, referenceType: Fischer}`), "create", "-f", "-")
	k.okStdin(t, flunderYAML("v1alpha1", "new-alpha-defaulted", `{reference: new-alpha}`), "create", "-f", "-")
	k.okStdin(t, flunderYAML("v1beta1", "new-beta", `{reference: {name: new-alpha}}`), "create", "-f", "-")
	wantSpec(t, k, v1beta1, "new-alpha", `{"reference":{"kind":"Fischer","name":"a-fischer"}}`)
	wantSpec(t, k, v1beta1, "new-alpha-defaulted", `{"reference":{"kind":"Flunder","name":"new-alpha"}}`)
	wantSpec(t, k, v1alpha1, "new-beta", `{"reference":"new-alpha","referenceType":"Flunder"}`)

	// Update through the older version, including an object stored before the switch.
	k.ok(t, "patch", v1alpha1, "old-beta", "-n", "default", "--type=merge", "-p", `{"spec":{"reference":"a-fischer","referenceType":"Fischer"}}`)
	wantSpec(t, k, v1beta1, "old-beta", `{"reference":{"kind":"Fischer","name":"a-fischer"}}`)

	// The storage-version migration of docs/tutorials/versions.md: replacing an object
	// unchanged rewrites it in the new storage version.
	k.okStdin(t, k.ok(t, "get", v1beta1, "old-migrated", "-n", "default", "-o", "json"), "replace", "-f", "-")

	// Validation is the storage version's Validate hook, whichever version the request uses.
	r := k.fails(t, flunderYAML("v1alpha1", "narcissus", `{reference: narcissus}`), "create", "-f", "-")
	if !strings.Contains(r.Stderr, "spec.reference.name") || !strings.Contains(r.Stderr, "cannot refer to itself") {
		t.Errorf("a self-referring v1alpha1 Flunder: want the v1beta1 Validate hook's error on spec.reference.name, got:\n%s", r)
	}

	// Lists in either version hold every object, old and new.
	all := []string{"new-alpha", "new-alpha-defaulted", "new-beta", "old-alpha", "old-beta", "old-migrated", "raw"}
	for _, resource := range []string{v1alpha1, v1beta1} {
		if got := k.names(t, resource, "-n", "default"); !slices.Equal(got, all) {
			t.Errorf("kubectl get %s: %v, want %v", resource, got, all)
		}
	}

	checkPrintColumns(t, k)
	checkFieldSelectors(t, k)
	checkWatchInOtherVersion(t, k, kubeconfig)
	checkDefaultInOpenAPI(t, k)
	checkSchemaValidation(t, k)
	checkDeprecatedVersion(t, k)
	checkScale(t, k, kubeconfig)
	checkBanFlunder(t, k, "admission")
	checkApproval(t, k, work)
	checkServerInfo(t, k)
	checkKubectl(t, k)
	stopServer(t, srv)

	// etcd holds what the server wrote in its storage version; an object written before the
	// switch and not since stays in the old version until something writes it.
	var stored map[string]string
	withEtcd(t, dataDir, func(ctx context.Context, c *clientv3.Client) { stored = storedVersions(ctx, t, c) })
	want := map[string]string{
		"old-alpha":           wardleGroup + "/v1alpha1",
		"old-beta":            wardleGroup + "/v1beta1",
		"old-migrated":        wardleGroup + "/v1beta1",
		"raw":                 wardleGroup + "/v1beta1",
		"new-alpha":           wardleGroup + "/v1beta1",
		"new-alpha-defaulted": wardleGroup + "/v1beta1",
		"new-beta":            wardleGroup + "/v1beta1",
	}
	for name, version := range want {
		if stored[name] != version {
			t.Errorf("flunder %s is stored in etcd as %q, want %s", name, stored[name], version)
		}
	}
}

func flunderYAML(version, name, spec string) string {
	return fmt.Sprintf("apiVersion: %s/%s\nkind: Flunder\nmetadata: {name: %s, namespace: default, labels: {e2e: versions}}\nspec: %s\n",
		wardleGroup, version, name, spec)
}

// wantSpec reads a flunder in the version resource names and compares its spec as JSON.
func wantSpec(t *testing.T, k *kubectl, resource, name, want string) {
	t.Helper()
	obj := k.get(t, resource, name, "-n", "default")
	got := mustJSON(obj.Object["spec"])
	if got != want {
		t.Errorf("kubectl get %s %s: spec %s, want %s", resource, name, got, want)
	}
	if version := strings.Split(resource, ".")[1]; obj.GetAPIVersion() != wardleGroup+"/"+version {
		t.Errorf("kubectl get %s %s: apiVersion %s, want %s/%s", resource, name, obj.GetAPIVersion(), wardleGroup, version)
	}
}

func stopServer(t *testing.T, s *server) {
	t.Helper()
	if code, err := s.proc.Signal(os.Interrupt, stopTimeout); err != nil || code != 0 {
		t.Fatalf("after SIGINT the server should exit 0; got exit %d, %v\n%s", code, err, s.proc.Describe())
	}
}

// storageVersionHash is the hash discovery reports for resource in version.
func storageVersionHash(t *testing.T, k *kubectl, version, resource string) string {
	t.Helper()
	var list metav1.APIResourceList
	if err := json.Unmarshal([]byte(k.ok(t, "get", "--raw", "/apis/"+wardleGroup+"/"+version)), &list); err != nil {
		t.Fatal(err)
	}
	for _, r := range list.APIResources {
		if r.Name == resource {
			return r.StorageVersionHash
		}
	}
	t.Fatalf("discovery of %s/%s does not list %s", wardleGroup, version, resource)
	return ""
}

// checkVersionPriority wants one order of versions from the server's scheme (discovery lists
// versions in the scheme's priority, the first preferred) and in the generated APIServices'
// versionPriority: v1beta1 before v1alpha1, whatever version stores what.
func checkVersionPriority(t *testing.T, k *kubectl, apiservices string) {
	t.Helper()
	var group metav1.APIGroup
	if err := json.Unmarshal([]byte(k.ok(t, "get", "--raw", "/apis/"+wardleGroup)), &group); err != nil {
		t.Fatal(err)
	}
	var discovered []string
	for _, v := range group.Versions {
		discovered = append(discovered, v.Version)
	}
	want := []string{"v1beta1", "v1alpha1"}
	if !slices.Equal(discovered, want) || group.PreferredVersion.Version != "v1beta1" {
		t.Errorf("discovery of %s: versions %v, preferred %s; want %v, preferred v1beta1", wardleGroup, discovered, group.PreferredVersion.Version, want)
	}
	priority := map[string]int{}
	for _, doc := range strings.Split(readFile(t, apiservices), "\n---\n") {
		var a struct {
			Spec struct {
				Version         string `json:"version"`
				VersionPriority int    `json:"versionPriority"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal([]byte(doc), &a); err != nil {
			t.Fatal(err)
		}
		if a.Spec.Version != "" {
			priority[a.Spec.Version] = a.Spec.VersionPriority
		}
	}
	if len(priority) != 2 || priority["v1beta1"] <= priority["v1alpha1"] {
		t.Errorf("generated APIServices' versionPriority %v: want v1beta1 above v1alpha1, as the server prefers", priority)
	}
}

// checkPrintColumns wants each version's +apigen:printcolumn columns in kubectl get, the
// priority-1 ones only with -o wide, evaluated on the object in that version; Fischers have
// none and print NAME and AGE, as a CRD without columns does.
func checkPrintColumns(t *testing.T, k *kubectl) {
	t.Helper()
	k.okStdin(t, "apiVersion: wardle.example.com/v1alpha1\nkind: Fischer\nmetadata: {name: fritz}\n", "create", "-f", "-")
	for _, tc := range []struct {
		args   []string
		header []string
		row    map[string]string
	}{
		{[]string{"flunders.v1beta1." + wardleGroup, "new-alpha"}, []string{"NAME", "REFERENCE", "AGE"}, map[string]string{"REFERENCE": "a-fischer"}},
		{[]string{"flunders.v1beta1." + wardleGroup, "new-alpha", "-o", "wide"}, []string{"NAME", "REFERENCE", "KIND", "AGE"}, map[string]string{"REFERENCE": "a-fischer", "KIND": "Fischer"}},
		{[]string{"flunders.v1alpha1." + wardleGroup, "new-alpha", "-o", "wide"}, []string{"NAME", "REFERENCE", "TYPE", "AGE"}, map[string]string{"REFERENCE": "a-fischer", "TYPE": "Fischer"}},
		{[]string{"fischers"}, []string{"NAME", "AGE"}, nil},
	} {
		out := k.ok(t, append(append([]string{"get"}, tc.args...), "-n", "default")...)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if got := strings.Fields(lines[0]); !slices.Equal(got, tc.header) {
			t.Errorf("kubectl get %s: columns %v, want %v\n%s", strings.Join(tc.args, " "), got, tc.header, out)
			continue
		}
		rows := parseTable(out)
		for col, want := range tc.row {
			if len(rows) != 1 || rows[0][col] != want {
				t.Errorf("kubectl get %s: %s = %q, want %q\n%s", strings.Join(tc.args, " "), col, rows[0][col], want, out)
			}
		}
	}
}

// checkFieldSelectors filters v1beta1 lists on the selectable field spec.reference.kind, and
// wants any other field refused with the supported ones named, and v1alpha1, which does not
// declare it, to refuse it too.
func checkFieldSelectors(t *testing.T, k *kubectl) {
	t.Helper()
	v1beta1 := "flunders.v1beta1." + wardleGroup
	if got := k.names(t, v1beta1, "-n", "default", "--field-selector", "spec.reference.kind=Fischer"); !slices.Equal(got, []string{"new-alpha", "old-beta"}) {
		t.Errorf("kubectl get %s --field-selector spec.reference.kind=Fischer: %v, want [new-alpha old-beta]", v1beta1, got)
	}
	// raw was stored without a kind: it is selected on its defaulted value.
	if got := k.names(t, v1beta1, "-n", "default", "--field-selector", "spec.reference.kind!=Fischer"); !slices.Equal(got, []string{"new-alpha-defaulted", "new-beta", "old-alpha", "old-migrated", "raw"}) {
		t.Errorf("kubectl get %s --field-selector spec.reference.kind!=Fischer: %v", v1beta1, got)
	}
	r := k.run("", "get", v1beta1, "-n", "default", "--field-selector", "spec.bogus=1")
	if r.ExitCode == 0 || !strings.Contains(r.Stderr, "BadRequest") || !strings.Contains(r.Stderr, "supported: metadata.name, metadata.namespace, spec.reference.kind") {
		t.Errorf("an unsupported field selector: want a 400 naming the supported fields, got:\n%s", r)
	}
	if r := k.run("", "get", "flunders.v1alpha1."+wardleGroup, "-n", "default", "--field-selector", "spec.reference.kind=Fischer"); r.ExitCode == 0 {
		t.Errorf("v1alpha1 does not declare spec.reference.kind selectable, yet the selector was accepted:\n%s", r)
	}
	checkFieldSelectorWatch(t, k)
}

// checkFieldSelectorWatch watches v1beta1 Flunders with a selector on the selectable field
// (served from the watch cache) while two are created, one matching: only that one is seen.
func checkFieldSelectorWatch(t *testing.T, k *kubectl) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	gvr := schema.GroupVersionResource{Group: wardleGroup, Version: "v1beta1", Resource: "flunders"}
	w, err := dynamicFor(t, k.kubeconfig).Resource(gvr).Namespace("default").Watch(ctx, metav1.ListOptions{FieldSelector: "spec.reference.kind=Fischer"})
	if err != nil {
		t.Fatalf("watch with a field selector: %v", err)
	}
	defer w.Stop()
	k.okStdin(t, flunderYAML("v1beta1", "watched-flunder", `{reference: {name: a-flunder, kind: Flunder}}`), "create", "-f", "-")
	k.okStdin(t, flunderYAML("v1beta1", "watched-fischer", `{reference: {name: a-fischer, kind: Fischer}}`), "create", "-f", "-")
	for ev := range w.ResultChan() {
		u, ok := ev.Object.(*unstructured.Unstructured)
		if !ok {
			t.Fatalf("watch event %s: %T", ev.Type, ev.Object)
		}
		switch u.GetName() {
		case "watched-flunder":
			t.Errorf("a watch selecting spec.reference.kind=Fischer saw %s (%s)", u.GetName(), ev.Type)
		case "watched-fischer":
			for _, name := range []string{"watched-flunder", "watched-fischer"} {
				k.ok(t, "delete", "flunders.v1beta1."+wardleGroup, name, "-n", "default")
			}
			return
		}
	}
	t.Errorf("the watch ended before watched-fischer was added: %v", ctx.Err())
}

// checkWatchInOtherVersion watches v1alpha1 while a Flunder is created, modified and deleted
// through v1beta1, and wants every event's object converted to v1alpha1.
func checkWatchInOtherVersion(t *testing.T, k *kubectl, kubeconfig string) {
	t.Helper()
	dyn := dynamicFor(t, kubeconfig)
	gvr := schema.GroupVersionResource{Group: wardleGroup, Version: "v1alpha1", Resource: "flunders"}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	w, err := dyn.Resource(gvr).Namespace("default").Watch(ctx, metav1.ListOptions{LabelSelector: "e2e=watched"})
	if err != nil {
		t.Fatalf("watching v1alpha1 flunders: %v", err)
	}
	defer w.Stop()
	watched := strings.Replace(flunderYAML("v1beta1", "watched", `{reference: {name: other}}`), "e2e: versions", "e2e: watched", 1)
	k.okStdin(t, watched, "create", "-f", "-")
	k.ok(t, "patch", "flunders.v1beta1."+wardleGroup, "watched", "-n", "default", "--type=merge", "-p", `{"spec":{"reference":{"kind":"Fischer","name":"f"}}}`)
	k.ok(t, "delete", "flunders.v1beta1."+wardleGroup, "watched", "-n", "default")
	want := []struct {
		event     watch.EventType
		reference string
		refType   string
	}{{watch.Added, "other", "Flunder"}, {watch.Modified, "f", "Fischer"}, {watch.Deleted, "f", "Fischer"}}
	for _, w8 := range want {
		select {
		case ev := <-w.ResultChan():
			u, ok := ev.Object.(*unstructured.Unstructured)
			if !ok {
				t.Fatalf("watch event %s carries %T", ev.Type, ev.Object)
			}
			ref, _, _ := unstructured.NestedString(u.Object, "spec", "reference")
			refType, _, _ := unstructured.NestedString(u.Object, "spec", "referenceType")
			if ev.Type != w8.event || u.GetAPIVersion() != wardleGroup+"/v1alpha1" || ref != w8.reference || refType != w8.refType {
				t.Errorf("watch event in v1alpha1: %s %s reference %q referenceType %q; want %s %s/v1alpha1 %q %q",
					ev.Type, u.GetAPIVersion(), ref, refType, w8.event, wardleGroup, w8.reference, w8.refType)
			}
		case <-time.After(eventTimeout):
			t.Fatalf("no %s event in v1alpha1 after %v", w8.event, eventTimeout)
		}
	}
}

// checkDefaultInOpenAPI wants v1beta1's +kubebuilder:default in the served OpenAPI v3 schema,
// where kubectl and server-side apply read it.
func checkDefaultInOpenAPI(t *testing.T, k *kubectl) {
	t.Helper()
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					Default any `json:"default"`
				} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal([]byte(k.ok(t, "get", "--raw", "/openapi/v3/apis/"+wardleGroup+"/v1beta1")), &doc); err != nil {
		t.Fatal(err)
	}
	found := false
	for name, s := range doc.Components.Schemas {
		if strings.HasSuffix(name, ".v1beta1.FlunderReference") {
			found = true
			if got := s.Properties["kind"].Default; got != "Flunder" {
				t.Errorf("OpenAPI v3 %s: kind has default %v, want Flunder", name, got)
			}
		}
	}
	if !found {
		t.Errorf("OpenAPI v3 of %s/v1beta1 has no FlunderReference schema", wardleGroup)
	}
	if out := k.ok(t, "explain", "flunders.spec.reference", "--api-version="+wardleGroup+"/v1beta1"); !strings.Contains(out, "kind\t<string>") || !strings.Contains(out, "name\t<string> -required-") {
		t.Errorf("kubectl explain flunders.spec.reference in v1beta1 lacks kind and name:\n%s", out)
	}
}

// checkSchemaValidation: v1beta1's validation markers on reference.name are enforced in
// v1beta1 with kube-apiserver's CRD messages (v1alpha1's schema has no such rule, as each
// version of a CRD has its own schema), and the served OpenAPI shows them.
func checkSchemaValidation(t *testing.T, k *kubectl) {
	t.Helper()
	r := k.fails(t, flunderYAML("v1beta1", "invalid-name", `{reference: {name: Not_A_Name}}`), "create", "-f", "-")
	if want := `spec.reference.name: Invalid value: "Not_A_Name": spec.reference.name in body should match '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$'`; !strings.Contains(r.Stderr, want) {
		t.Errorf("a v1beta1 Flunder whose reference name breaks its Pattern: want\n%s\ngot:\n%s", want, r)
	}
	long := strings.Repeat("a", 254)
	r = k.fails(t, flunderYAML("v1beta1", "long-name", `{reference: {name: `+long+`}}`), "create", "-f", "-")
	if want := "spec.reference.name: Too long: may not be more than 253 bytes"; !strings.Contains(r.Stderr, want) {
		t.Errorf("a v1beta1 Flunder whose reference name breaks its MaxLength: want %q, got:\n%s", want, r)
	}
	k.okStdin(t, flunderYAML("v1alpha1", "alpha-any-name", `{reference: Not_A_Name}`), "create", "-f", "-")

	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					MaxLength int    `json:"maxLength"`
					Pattern   string `json:"pattern"`
				} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal([]byte(k.ok(t, "get", "--raw", "/openapi/v3/apis/"+wardleGroup+"/v1beta1")), &doc); err != nil {
		t.Fatal(err)
	}
	for name, s := range doc.Components.Schemas {
		if strings.HasSuffix(name, ".v1beta1.FlunderReference") {
			if got := s.Properties["name"]; got.MaxLength != 253 || got.Pattern == "" {
				t.Errorf("OpenAPI v3 %s: name has maxLength %d and pattern %q, want 253 and the marker's pattern", name, got.MaxLength, got.Pattern)
			}
		}
	}
}

// checkDeprecatedVersion: v1alpha1 Flunders are +apigen:deprecatedversion; every request to
// them gets kube-apiserver's default warning for a deprecated CRD version, which kubectl
// prints, and their OpenAPI operations are deprecated. v1beta1 gets no warning.
func checkDeprecatedVersion(t *testing.T, k *kubectl) {
	t.Helper()
	want := "Warning: wardle.example.com/v1alpha1 Flunder is deprecated; use wardle.example.com/v1beta1 Flunder"
	if r := k.run("", "get", "flunders.v1alpha1."+wardleGroup, "-n", "default"); r.Err != nil || !strings.Contains(r.Stderr, want) {
		t.Errorf("kubectl get of v1alpha1 flunders: want %q on stderr, got:\n%s", want, r)
	}
	if r := k.run("", "get", "flunders.v1beta1."+wardleGroup, "-n", "default"); r.Err != nil || strings.Contains(r.Stderr, "Warning") {
		t.Errorf("kubectl get of v1beta1 flunders: want no warning, got:\n%s", r)
	}
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal([]byte(k.ok(t, "get", "--raw", "/openapi/v3/apis/"+wardleGroup+"/v1alpha1")), &doc); err != nil {
		t.Fatal(err)
	}
	for path, ops := range doc.Paths {
		var get struct {
			Deprecated bool `json:"deprecated"`
		}
		if raw, ok := ops["get"]; ok && json.Unmarshal(raw, &get) == nil {
			if want := strings.Contains(path, "/flunders"); get.Deprecated != want {
				t.Errorf("OpenAPI v3 of v1alpha1: GET %s deprecated=%v, want %v", path, get.Deprecated, want)
			}
		}
	}
}

// withEtcd starts an etcd of its own on a stopped server's data and hands f a client.
func withEtcd(t *testing.T, dataDir string, f func(ctx context.Context, c *clientv3.Client)) {
	t.Helper()
	cfg := embed.NewConfig()
	cfg.Dir = filepath.Join(dataDir, "etcd")
	client := url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", freePort(t))}
	peer := url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", freePort(t))}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peer}, []url.URL{peer}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.LogLevel = "error"
	cfg.LogOutputs = []string{filepath.Join(dataDir, "e2e-etcd.log")}
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		t.Fatalf("starting etcd on the server's data: %v", err)
	}
	defer e.Close()
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(time.Minute):
		t.Fatal("etcd on the server's data was not ready after a minute")
	}
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{client.String()}, DialTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	f(ctx, c)
}

// storedFlunders returns the etcd keys of the flunders in namespace default, by name.
func storedFlunders(ctx context.Context, t *testing.T, c *clientv3.Client) map[string]*mvccKV {
	t.Helper()
	resp, err := c.Get(ctx, "/registry/", clientv3.WithPrefix())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*mvccKV{}
	for _, kv := range resp.Kvs {
		key := string(kv.Key)
		if strings.Contains(key, "/"+wardleGroup+"/flunders/default/") {
			out[key[strings.LastIndex(key, "/")+1:]] = &mvccKV{key, kv.Value}
		}
	}
	return out
}

type mvccKV struct {
	key   string
	value []byte
}

// storedVersions returns the apiVersion each flunder is encoded in in etcd, by name.
func storedVersions(ctx context.Context, t *testing.T, c *clientv3.Client) map[string]string {
	t.Helper()
	out := map[string]string{}
	for name, kv := range storedFlunders(ctx, t, c) {
		var obj metav1.TypeMeta
		if err := json.Unmarshal(kv.value, &obj); err != nil {
			t.Errorf("etcd key %s is not JSON: %v", kv.key, err)
			continue
		}
		out[name] = obj.APIVersion
	}
	return out
}

// putRawFlunder writes a v1beta1 Flunder straight into etcd, next to old-beta, without the
// defaults a request would have had applied.
func putRawFlunder(ctx context.Context, t *testing.T, c *clientv3.Client, name, spec string) {
	t.Helper()
	near, ok := storedFlunders(ctx, t, c)["old-beta"]
	if !ok {
		t.Fatal("old-beta is not in etcd")
	}
	key := near.key[:strings.LastIndex(near.key, "/")+1] + name
	obj := fmt.Sprintf(`{"apiVersion":%q,"kind":"Flunder","metadata":{"name":%q,"namespace":"default","uid":"5f0c1c9e-0000-4000-8000-000000000001","creationTimestamp":"2026-01-01T00:00:00Z","generation":1,"labels":{"e2e":"versions"}},"spec":%s}`,
		wardleGroup+"/v1beta1", name, spec)
	if _, err := c.Put(ctx, key, obj); err != nil {
		t.Fatal(err)
	}
}
