package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const wardleGroup = "wardle.example.com"

// TestWardleExample checks the committed example: its generated files are current and are
// exactly what the built apigen produces from scratch, and it builds, starts and serves
// Flunders (namespaced, with status) and Fischers (cluster-scoped); its generated clients are
// byte for byte upstream's, and its controller reconciles Flunders on the running server.
func TestWardleExample(t *testing.T) {
	tc := tools(t)
	src := filepath.Join(tc.root, "examples", "wardle")
	if _, err := os.Stat(src); os.IsNotExist(err) {
		t.Skipf("examples/wardle does not exist yet (%s)", src)
	}
	if _, err := os.Stat(filepath.Join(src, "go.mod")); err != nil {
		t.Fatalf("examples/wardle has no go.mod; a generated project is its own module: %v", err)
	}

	// In place: verify must pass on the committed tree.
	r := runCmd(cmdOpts{Dir: src, Env: goEnv}, tc.apigen, "verify")
	if r.ExitCode != 0 || r.Stdout != "" || r.Stderr != "" {
		t.Errorf("apigen verify in examples/wardle: want exit 0 and no output (committed files current), got:\n%s", r)
	}

	// In a copy: delete every generated file, regenerate, compare with the committed tree.
	work := t.TempDir()
	proj := filepath.Join(work, "wardle")
	copyTree(t, src, proj)
	committed := snapshot(t, proj)
	var removed []string
	for rel, content := range committed {
		if generatedHeader.MatchString(content) {
			if err := os.Remove(filepath.Join(proj, rel)); err != nil {
				t.Fatal(err)
			}
			removed = append(removed, rel)
		}
	}
	if len(removed) == 0 {
		t.Fatalf("examples/wardle holds no file with the header %q", generatedHeader)
	}
	mustSucceed(t, runCmd(cmdOpts{Dir: proj, Env: goEnv}, tc.apigen, "generate"))
	if d := diffSnapshots(committed, snapshot(t, proj)); len(d) > 0 {
		t.Errorf("regenerating examples/wardle from scratch (%d generated files removed) differs from the committed tree:\n%s",
			len(removed), strings.Join(d, "\n"))
	}

	// Build, start, use.
	serverBin := filepath.Join(work, "apiserver")
	buildServer(t, proj, serverBin)
	port := freePort(t)
	kubeconfig := filepath.Join(work, "kubeconfig")
	srv := startServer(t, serverBin, proj, port, filepath.Join(work, "data"), kubeconfig, filepath.Join(work, "server.log"))
	k := &kubectl{bin: tc.kubectl, kubeconfig: kubeconfig, cacheDir: filepath.Join(work, "kube-cache")}

	out := k.ok(t, "api-resources", "--api-group="+wardleGroup, "-o", "wide")
	rows := map[string]map[string]string{}
	for _, row := range parseTable(out) {
		rows[row["NAME"]] = row
	}
	version := ""
	for _, want := range []struct{ plural, kind, namespaced string }{
		{"flunders", "Flunder", "true"},
		{"fischers", "Fischer", "false"},
	} {
		row, ok := rows[want.plural]
		if !ok {
			t.Fatalf("kubectl api-resources --api-group=%s does not list %s:\n%s", wardleGroup, want.plural, out)
		}
		if row["KIND"] != want.kind || row["NAMESPACED"] != want.namespaced {
			t.Errorf("kubectl api-resources: %s is kind %q namespaced %q, want %q %q:\n%s", want.plural, row["KIND"], row["NAMESPACED"], want.kind, want.namespaced, out)
		}
		version = row["APIVERSION"]
	}
	if !strings.HasPrefix(version, wardleGroup+"/") {
		t.Fatalf("kubectl api-resources: APIVERSION %q is not in group %s", version, wardleGroup)
	}
	discovery := k.ok(t, "get", "--raw", "/apis/"+version)
	if !strings.Contains(discovery, `"flunders/status"`) {
		t.Errorf("discovery of %s lacks flunders/status:\n%s", version, discovery)
	}

	flunder := fmt.Sprintf("apiVersion: %s\nkind: Flunder\nmetadata:\n  name: my-flunder\n  namespace: default\n  labels:\n    e2e: wardle\n", version)
	fischer := fmt.Sprintf("apiVersion: %s\nkind: Fischer\nmetadata:\n  name: my-fischer\n  labels:\n    e2e: wardle\n", version)
	if out := k.okStdin(t, flunder, "create", "-f", "-"); !strings.Contains(out, "flunder."+wardleGroup+"/my-flunder created") {
		t.Errorf("kubectl create Flunder: unexpected output %q", out)
	}
	if out := k.okStdin(t, fischer, "create", "-f", "-"); !strings.Contains(out, "fischer."+wardleGroup+"/my-fischer created") {
		t.Errorf("kubectl create Fischer: unexpected output %q", out)
	}
	if got := k.names(t, "flunders", "-n", "default", "-l", "e2e=wardle"); !slices.Equal(got, []string{"my-flunder"}) {
		t.Errorf("kubectl get flunders: %v, want [my-flunder]", got)
	}
	if got := k.names(t, "fischers", "-l", "e2e=wardle"); !slices.Equal(got, []string{"my-fischer"}) {
		t.Errorf("kubectl get fischers: %v, want [my-fischer]", got)
	}
	if f := k.get(t, "fischers", "my-fischer"); f.GetNamespace() != "" || f.GetUID() == "" {
		t.Errorf("Fischer my-fischer: namespace %q uid %q; want cluster-scoped with a uid", f.GetNamespace(), f.GetUID())
	}

	// The generated clients are upstream's, and cmd/controller reconciles through them.
	checkClientsMatchUpstream(t, tc.root, src, k, work)
	checkController(t, proj, kubeconfig, k, work)

	if code, err := srv.proc.Signal(os.Interrupt, stopTimeout); err != nil || code != 0 {
		t.Errorf("after SIGINT the wardle server should exit 0; got exit %d, %v\n%s", code, err, srv.proc.Describe())
	}
}
