package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Two public type sets that no one here wrote, copied at test time from their Go modules into
// a project apigen init made (pinned to our Kubernetes line), served unchanged.

// networkPolicyAPI is a kubebuilder CRD API (PROJECT file, apis/v1alpha1, controller-gen's
// deepcopy, register-gen's registration) with validation markers and a CEL rule.
const networkPolicyAPI = "sigs.k8s.io/network-policy-api@v0.1.1"

// TestKubebuilderTypes serves network-policy-api's AdminNetworkPolicy and
// BaselineAdminNetworkPolicy from its own apis/v1alpha1 files and PROJECT file, without a
// marker added: apigen finds the layout from PROJECT, keeps controller-gen's deepcopy and
// register-gen's registration, and the server round-trips the module's conformance objects with
// kubectl and refuses what its CRDs refuse (the priority's bound, the CEL rule on the name).
func TestKubebuilderTypes(t *testing.T) {
	tc := tools(t)
	work := t.TempDir()
	mod := moduleDir(t, work, networkPolicyAPI)
	proj := initProject(t, tc, work, "example.com/netpol")
	copyFiles(t, filepath.Join(mod, "apis", "v1alpha1"), filepath.Join(proj, "apis", "v1alpha1"))
	writeFile(t, filepath.Join(proj, "PROJECT"), readFile(t, filepath.Join(mod, "PROJECT")))
	before := snapshot(t, filepath.Join(proj, "apis"))

	mustSucceed(t, runCmd(cmdOpts{Dir: proj, Env: goEnv}, tc.apigen, "generate"))
	for name, content := range before {
		if after := readFile(t, filepath.Join(proj, "apis", name)); after != content {
			t.Errorf("apigen generate changed the API's own %s", name)
		}
	}
	k, stop := serve(t, tc, proj, work)
	defer stop()

	var created []string
	for _, dir := range []string{"admin_network_policy", "baseline_admin_network_policy"} {
		files, _ := filepath.Glob(filepath.Join(mod, "conformance", "base", dir, "*.yaml"))
		for _, file := range files {
			for _, doc := range strings.Split(readFile(t, file), "\n---") {
				obj := yamlToObject(t, doc)
				resource := map[string]string{"AdminNetworkPolicy": "adminnetworkpolicies", "BaselineAdminNetworkPolicy": "baselineadminnetworkpolicies"}[obj["kind"].(string)]
				name := field(obj, "metadata.name").(string)
				if r := k.run(doc, "create", "-f", "-"); r.ExitCode != 0 {
					if strings.Contains(r.Stderr, "AlreadyExists") && resource == "baselineadminnetworkpolicies" {
						k.okStdin(t, doc, "replace", "-f", "-") // every file has its own "default"
					} else {
						t.Errorf("kubectl create %s from %s:\n%s", name, filepath.Base(file), r)
						continue
					}
				}
				got := k.get(t, resource, name)
				if want, have := mustJSON(pruneEmpty(obj["spec"])), mustJSON(pruneEmpty(got.Object["spec"])); want != have {
					t.Errorf("%s %s from %s: spec read back\n%s\nwant\n%s", resource, name, filepath.Base(file), have, want)
				}
				created = append(created, resource+"/"+name)
			}
		}
	}
	if len(created) < 10 {
		t.Errorf("created only %v from the module's conformance objects", created)
	}

	// What the CRDs refuse, the server refuses with the CRDs' messages.
	example := readFile(t, filepath.Join(mod, "conformance", "base", "admin_network_policy", "core-egress-sctp-rules.yaml"))
	obj := yamlToObject(t, example)
	obj["metadata"] = map[string]any{"name": "too-high"}
	obj["spec"].(map[string]any)["priority"] = 1001
	r := k.fails(t, toYAML(t, obj), "create", "-f", "-")
	if !strings.Contains(r.Stderr, "spec.priority in body should be less than or equal to 1000") {
		t.Errorf("priority 1001: want the Maximum=1000 refusal:\n%s", r)
	}
	obj["metadata"] = map[string]any{"name": "two-subjects"}
	obj["spec"].(map[string]any)["priority"] = 10
	obj["spec"].(map[string]any)["subject"] = map[string]any{"namespaces": map[string]any{}, "pods": map[string]any{"namespaceSelector": map[string]any{}, "podSelector": map[string]any{}}}
	r = k.fails(t, toYAML(t, obj), "create", "-f", "-")
	if !strings.Contains(r.Stderr, "spec.subject: Too many: 2: must have at most 1 item") {
		t.Errorf("a subject with two selectors: want the MaxProperties=1 refusal:\n%s", r)
	}
	banp := yamlToObject(t, readFile(t, filepath.Join(mod, "conformance", "base", "baseline_admin_network_policy", "core-egress-sctp-rules.yaml")))
	banp["metadata"] = map[string]any{"name": "not-default"}
	r = k.fails(t, toYAML(t, banp), "create", "-f", "-")
	if !strings.Contains(r.Stderr, `Only one baseline admin network policy with metadata.name="default" can be created in the cluster`) {
		t.Errorf("a BaselineAdminNetworkPolicy not named default: want the CEL rule's message:\n%s", r)
	}
}

// TestKubernetesAPITypes serves k8s.io/api's coordination/v1 (Lease) from its own doc.go,
// register.go and types.go, copied unchanged (+genclient declares Lease): its package tags sit in blocks
// separated from the package clause by a blank line, its type tags in a block above the doc
// comment, and it registers itself.
func TestKubernetesAPITypes(t *testing.T) {
	tc := tools(t)
	work := t.TempDir()
	proj := initProject(t, tc, work, "example.com/coordination")
	r := mustSucceed(t, runCmd(cmdOpts{Dir: proj, Env: goEnv}, "go", "list", "-m", "-json", "k8s.io/api"))
	var api struct{ Dir string }
	if err := json.Unmarshal([]byte(r.Stdout), &api); err != nil || api.Dir == "" {
		t.Fatalf("go list -m k8s.io/api: %v\n%s", err, r)
	}
	dst := filepath.Join(proj, "pkg", "apis", "coordination", "v1")
	for _, name := range []string{"doc.go", "register.go", "types.go"} {
		writeFile(t, filepath.Join(dst, name), readFile(t, filepath.Join(api.Dir, "coordination", "v1", name)))
	}
	// No marker added: Lease's +genclient makes it a resource, as client-gen and kube-apiserver
	// take it.
	if types := readFile(t, filepath.Join(dst, "types.go")); !strings.Contains(types, "// +genclient\n") {
		t.Fatalf("k8s.io/api's coordination/v1 no longer tags its kinds with +genclient:\n%.2000s", types)
	}

	mustSucceed(t, runCmd(cmdOpts{Dir: proj, Env: goEnv}, tc.apigen, "generate"))
	if _, err := os.Stat(filepath.Join(dst, "zz_generated.register.go")); err == nil {
		t.Error("apigen generated a register file although register.go registers the package")
	}
	k, stop := serve(t, tc, proj, work)
	defer stop()

	const lease = `apiVersion: coordination.k8s.io/v1
kind: Lease
metadata: {name: leader, namespace: default}
spec: {holderIdentity: node-a, leaseDurationSeconds: 15, acquireTime: "2026-01-02T03:04:05.000000Z", leaseTransitions: 1}
`
	k.okStdin(t, lease, "create", "-f", "-")
	got := k.get(t, "leases", "leader", "-n", "default")
	if want, have := mustJSON(yamlToObject(t, lease)["spec"]), mustJSON(got.Object["spec"]); want != have {
		t.Errorf("Lease spec read back %s, want %s", have, want)
	}
	k.ok(t, "patch", "lease", "leader", "-n", "default", "--type=merge", "-p", `{"spec":{"holderIdentity":"node-b"}}`)
	if h := field(k.get(t, "leases", "leader", "-n", "default").Object, "spec.holderIdentity"); h != "node-b" {
		t.Errorf("holderIdentity after patch: %v", h)
	}
	if out := k.ok(t, "explain", "leases.spec.holderIdentity"); !strings.Contains(out, "holderIdentity contains the identity of the holder of a current lease") {
		t.Errorf("kubectl explain does not show k8s.io/api's field documentation:\n%s", out)
	}
}

// moduleDir downloads a module at an exact version and returns its directory.
func moduleDir(t *testing.T, work, modVersion string) string {
	t.Helper()
	r := mustSucceed(t, runCmd(cmdOpts{Dir: work, Env: goEnv, Timeout: buildTimeout}, "go", "mod", "download", "-json", modVersion))
	var mod struct{ Dir string }
	if err := json.Unmarshal([]byte(r.Stdout), &mod); err != nil || mod.Dir == "" {
		t.Fatalf("go mod download %s: %v\n%s", modVersion, err, r)
	}
	return mod.Dir
}

// initProject runs apigen init for module repo in work/project.
func initProject(t *testing.T, tc *toolchain, work, repo string) string {
	t.Helper()
	proj := filepath.Join(work, "project")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	mustSucceed(t, runCmd(cmdOpts{Dir: proj, Env: goEnv, Timeout: buildTimeout}, tc.apigen, "init", "--repo", repo, "--domain", "example.com"))
	return proj
}

// copyFiles copies the Go files of a module's directory (read-only in the module cache).
func copyFiles(t *testing.T, from, to string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(from, "*.go"))
	sort.Strings(files)
	if len(files) == 0 {
		t.Fatalf("no Go files in %s", from)
	}
	for _, f := range files {
		writeFile(t, filepath.Join(to, filepath.Base(f)), readFile(t, f))
	}
}

// serve builds the project's server, starts it in local mode and returns kubectl for it.
func serve(t *testing.T, tc *toolchain, proj, work string) (*kubectl, func()) {
	t.Helper()
	bin := filepath.Join(work, "apiserver")
	buildServer(t, proj, bin)
	kubeconfig := filepath.Join(work, "kubeconfig")
	srv := startServer(t, bin, proj, freePort(t), filepath.Join(work, "data"), kubeconfig, filepath.Join(work, "server.log"))
	return &kubectl{bin: tc.kubectl, kubeconfig: kubeconfig, cacheDir: filepath.Join(work, "kube-cache")}, func() { stopServer(t, srv) }
}
