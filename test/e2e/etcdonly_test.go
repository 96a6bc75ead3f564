package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEtcdOnlyServer takes +apigen:sql=true out of a copy of examples/wardle, as a project that
// does not ask for SQL storage (what apigen init makes) has it: generate swaps SQL storage's
// runtime files for etcdonly.go and drops the external-datastore component; the server links
// neither kine nor a SQL driver and is smaller than wardle's; its --help names no --datastore
// flag and refuses one as unknown; it serves in local mode on its embedded etcd, with kubectl.
func TestEtcdOnlyServer(t *testing.T) {
	tc := tools(t)
	proj := filepath.Join(t.TempDir(), "wardle")
	copyTree(t, filepath.Join(tc.root, "examples", "wardle"), proj)
	doc := filepath.Join(proj, "pkg", "apis", "doc.go")
	src := readFile(t, doc)
	if !strings.Contains(src, "// +apigen:sql=true\n") {
		t.Fatalf("%s does not say +apigen:sql=true", doc)
	}
	writeFile(t, doc, strings.Replace(src, "// +apigen:sql=true\n", "", 1))
	r := mustSucceed(t, runCmd(cmdOpts{Dir: proj, Timeout: buildTimeout}, tc.apigen, "generate", "-v"))
	for _, want := range []string{"wrote     pkg/cmd/server/zz_generated.etcdonly.go", "deleted   pkg/cmd/server/zz_generated.datastore.go",
		"deleted   pkg/cmd/server/zz_generated.datastorewake.go", "deleted   config/generated/external-datastore/kustomization.yaml"} {
		if !strings.Contains(r.Stdout, want+"\n") {
			t.Errorf("generate without +apigen:sql does not say %q:\n%s", want, r.Stdout)
		}
	}

	bin := filepath.Join(t.TempDir(), "apiserver")
	buildServer(t, proj, bin)
	modules := mustSucceed(t, runCmd(cmdOpts{}, "go", "version", "-m", bin)).Stdout
	for _, m := range []string{"github.com/k3s-io/kine", "github.com/jackc/pgx", "github.com/go-sql-driver/mysql", "github.com/mattn/go-sqlite3", "modernc.org/sqlite"} {
		if strings.Contains(modules, "\t"+m) {
			t.Errorf("the etcd-only server links %s", m)
		}
	}
	withSQL := wardleServer(t, tc)
	if !strings.Contains(mustSucceed(t, runCmd(cmdOpts{}, "go", "version", "-m", withSQL)).Stdout, "\tgithub.com/k3s-io/kine") {
		t.Error("examples/wardle's server does not link kine")
	}
	small, err := os.Stat(bin)
	if err != nil {
		t.Fatal(err)
	}
	large, err := os.Stat(withSQL)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("server binary: %d bytes etcd-only, %d bytes with SQL storage", small.Size(), large.Size())
	if small.Size() >= large.Size() {
		t.Errorf("the etcd-only server (%d bytes) is not smaller than examples/wardle's (%d bytes)", small.Size(), large.Size())
	}

	work := t.TempDir()
	help := mustSucceed(t, runCmd(cmdOpts{Dir: work}, bin, "--help")).Stdout
	for _, word := range []string{"datastore", "kine", "SQL"} {
		if strings.Contains(help, word) {
			t.Errorf("the etcd-only server's --help speaks of %q:\n%s", word, help)
		}
	}
	if r := runCmd(cmdOpts{Dir: work}, bin, "--datastore-endpoint=sqlite://state.db"); r.ExitCode == 0 || !strings.Contains(r.Stderr, "unknown flag: --datastore-endpoint") {
		t.Errorf("the etcd-only server given --datastore-endpoint: %s", r)
	}

	dataDir, kubeconfig := filepath.Join(work, "data"), filepath.Join(work, "kubeconfig")
	startServer(t, bin, work, freePort(t), dataDir, kubeconfig, filepath.Join(work, "server.log"))
	k := &kubectl{bin: tc.kubectl, kubeconfig: kubeconfig, cacheDir: filepath.Join(work, "kube-cache")}
	k.okStdin(t, "apiVersion: "+wardleGroup+"/v1beta1\nkind: Flunder\nmetadata: {name: one, namespace: default}\nspec: {reference: {name: two, kind: Fischer}}\n", "create", "-f", "-")
	if out := k.ok(t, "get", "flunders.v1beta1."+wardleGroup, "one", "-n", "default", "-o", "name"); strings.TrimSpace(out) != "flunder."+wardleGroup+"/one" {
		t.Errorf("kubectl get of the created flunder: %q", out)
	}
	if _, err := os.Stat(filepath.Join(dataDir, "etcd")); err != nil {
		t.Errorf("the etcd-only server keeps no embedded etcd in its data dir: %v", err)
	}
}
