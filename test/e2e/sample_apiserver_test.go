package e2e

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSampleAPIServerTypes serves k8s.io/sample-apiserver's own API packages, copied from its
// Go module at test time: hand-written internal types in pkg/apis/wardle, their own
// register.go files and install package, v1alpha1 (Flunder, Fischer) with its hand-written
// conversion and defaults, and v1beta1 (Flunder). Nothing is added: apigen must find the
// resources from client-gen's tags, use the internal types as the hub and the user's
// registration, generate the rest, and the server must round-trip objects through both versions.
func TestSampleAPIServerTypes(t *testing.T) {
	tc := tools(t)
	work := t.TempDir()

	r := mustSucceed(t, runCmd(cmdOpts{Dir: filepath.Join(tc.root, "hack", "tools", "sample-apiserver"), Env: goEnv, Timeout: buildTimeout},
		"go", "mod", "download", "-json", "k8s.io/sample-apiserver"))
	var mod struct{ Dir string }
	if err := json.Unmarshal([]byte(r.Stdout), &mod); err != nil || mod.Dir == "" {
		t.Fatalf("go mod download k8s.io/sample-apiserver: %v\n%s", err, r)
	}

	// A project with sample-apiserver's module path, so its import paths and +k8s tags hold.
	proj := filepath.Join(work, "sample")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	mustSucceed(t, runCmd(cmdOpts{Dir: proj, Env: goEnv, Timeout: buildTimeout}, tc.apigen, "init", "--repo", "k8s.io/sample-apiserver", "--domain", "example.com"))

	// Every hand-written file of pkg/apis/wardle, unchanged, but the fuzzer (test support
	// with dependencies of its own) and tests.
	src := filepath.Join(mod.Dir, "pkg", "apis", "wardle")
	var copied []string
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			if rel == "fuzzer" {
				return filepath.SkipDir
			}
			return nil
		}
		name := d.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || strings.HasPrefix(name, "zz_generated.") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		copied = append(copied, rel)
		writeFile(t, filepath.Join(proj, "pkg", "apis", "wardle", rel), string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"types.go", "register.go", "install/install.go", "v1alpha1/conversion.go", "v1alpha1/defaults.go", "v1beta1/types.go"} {
		if !slices.Contains(copied, filepath.FromSlash(want)) {
			t.Fatalf("sample-apiserver's pkg/apis/wardle has no %s (copied %v)", want, copied)
		}
	}

	// Nothing is added: client-gen's +genclient tags declare the kinds, Fischer's
	// +genclient:nonNamespaced its scope. Flunders, declared in both versions, are stored in the
	// most preferred, v1beta1, as kube-apiserver stores its built-in kinds (sample-apiserver's
	// own server stores them in v1alpha1 through its EncodeVersioner, server code rather than
	// the types).
	before := snapshot(t, filepath.Join(proj, "pkg", "apis"))
	mustSucceed(t, runCmd(cmdOpts{Dir: proj, Env: goEnv}, tc.apigen, "generate"))
	for name, content := range before {
		if after := readFile(t, filepath.Join(proj, "pkg", "apis", name)); after != content {
			t.Errorf("apigen generate changed sample-apiserver's %s", name)
		}
	}
	// The user's registration and install package are used, not duplicated.
	for _, rel := range []string{"pkg/apis/wardle/install/zz_generated.install.go", "pkg/apis/wardle/v1alpha1/zz_generated.register.go", "pkg/apis/wardle/v1beta1/zz_generated.register.go"} {
		if _, err := os.Stat(filepath.Join(proj, rel)); err == nil {
			t.Errorf("apigen generated %s although the package registers itself", rel)
		}
	}
	for _, rel := range []string{"pkg/apis/wardle/zz_generated.deepcopy.go", "pkg/apis/wardle/v1alpha1/zz_generated.conversion.go", "pkg/apis/wardle/v1beta1/zz_generated.conversion.go", "pkg/apis/wardle/v1alpha1/zz_generated.defaults.go"} {
		if _, err := os.Stat(filepath.Join(proj, rel)); err != nil {
			t.Errorf("apigen did not generate %s: %v", rel, err)
		}
	}
	storage := readFile(t, filepath.Join(proj, "pkg/registry/wardle/flunder/zz_generated.storage.go"))
	if !strings.Contains(storage, `"k8s.io/sample-apiserver/pkg/apis/wardle"`) || !strings.Contains(storage, "*wardle.Flunder") {
		t.Errorf("the Flunder strategy does not work on the internal type wardle.Flunder:\n%.2000s", storage)
	}
	if r := runCmd(cmdOpts{Dir: proj, Env: goEnv}, tc.apigen, "verify"); r.ExitCode != 0 {
		t.Errorf("apigen verify right after generate:\n%s", r)
	}

	bin := filepath.Join(work, "apiserver")
	buildServer(t, proj, bin)
	kubeconfig := filepath.Join(work, "kubeconfig")
	srv := startServer(t, bin, proj, freePort(t), filepath.Join(work, "data"), kubeconfig, filepath.Join(work, "server.log"))
	k := &kubectl{bin: tc.kubectl, kubeconfig: kubeconfig, cacheDir: filepath.Join(work, "kube-cache")}

	// sample-apiserver's install prefers v1beta1.
	var group struct {
		PreferredVersion struct{ Version string } `json:"preferredVersion"`
	}
	if err := json.Unmarshal([]byte(k.ok(t, "get", "--raw", "/apis/"+wardleGroup)), &group); err != nil || group.PreferredVersion.Version != "v1beta1" {
		t.Errorf("preferred version %q (%v), want v1beta1", group.PreferredVersion.Version, err)
	}

	// v1alpha1's hand-written defaults and conversion to the internal types, and v1beta1's
	// generated one, in both directions.
	const v1alpha1, v1beta1 = "flunders.v1alpha1." + wardleGroup, "flunders.v1beta1." + wardleGroup
	k.okStdin(t, "apiVersion: wardle.example.com/v1alpha1\nkind: Flunder\nmetadata: {name: alpha, namespace: default}\nspec: {reference: some-flunder}\n", "create", "-f", "-")
	k.okStdin(t, "apiVersion: wardle.example.com/v1beta1\nkind: Flunder\nmetadata: {name: beta, namespace: default}\nspec: {fischerReference: some-fischer, referenceType: Fischer}\n", "create", "-f", "-")
	wantSpec(t, k, v1beta1, "alpha", `{"flunderReference":"some-flunder","referenceType":"Flunder"}`)
	wantSpec(t, k, v1alpha1, "alpha", `{"reference":"some-flunder","referenceType":"Flunder"}`)
	wantSpec(t, k, v1alpha1, "beta", `{"reference":"some-fischer","referenceType":"Fischer"}`)
	k.ok(t, "patch", v1alpha1, "beta", "-n", "default", "--type=merge", "-p", `{"spec":{"reference":"other-flunder","referenceType":"Flunder"}}`)
	wantSpec(t, k, v1beta1, "beta", `{"flunderReference":"other-flunder","referenceType":"Flunder"}`)
	for _, resource := range []string{v1alpha1, v1beta1} {
		if got := k.names(t, resource, "-n", "default"); !slices.Equal(got, []string{"alpha", "beta"}) {
			t.Errorf("kubectl get %s: %v, want [alpha beta]", resource, got)
		}
	}

	// Fischers exist in v1alpha1 only, cluster-scoped.
	k.okStdin(t, "apiVersion: wardle.example.com/v1alpha1\nkind: Fischer\nmetadata: {name: fritz}\ndisallowedFlunders: [alpha]\n", "create", "-f", "-")
	if f := k.get(t, "fischers", "fritz"); f.GetNamespace() != "" || !strings.Contains(mustJSON(f.Object["disallowedFlunders"]), "alpha") {
		t.Errorf("Fischer fritz: namespace %q, disallowedFlunders %v", f.GetNamespace(), f.Object["disallowedFlunders"])
	}
	if r := k.run("", "get", "fischers.v1beta1."+wardleGroup); r.ExitCode == 0 {
		t.Errorf("v1beta1 serves fischers, which only v1alpha1 declares:\n%s", r)
	}
	stopServer(t, srv)
}
