package e2e

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/apigen-dev/apigen/test/cluster"
)

// wardleDatastoreEnv is where examples/wardle's server reads --datastore-endpoint from when
// the flag is not given (<NAME>_DATASTORE_ENDPOINT).
const wardleDatastoreEnv = "WARDLE_DATASTORE_ENDPOINT"

// sqlBackend is a database for --datastore-endpoint: start returns the endpoint of a fresh
// database, stopped by the test, and the database's server when it has one (nil for SQLite).
type sqlBackend struct {
	name  string
	start func(t *testing.T) (string, *dbServer)
}

var sqlBackends = []sqlBackend{
	{"sqlite", func(t *testing.T) (string, *dbServer) {
		return "sqlite://" + filepath.Join(t.TempDir(), "state.db"), nil
	}},
	{"postgres", startPostgres},
	{"mariadb", startMariaDB},
}

// dbServer is a database server process (cluster.Database) the test can stop and start
// again on the same data.
type dbServer struct{ *cluster.Database }

func (d *dbServer) stop(t *testing.T) {
	t.Helper()
	if err := d.Stop(); err != nil {
		t.Errorf("stopping the database: %v", err)
	}
}

// restart starts the stopped database again on the same data and port.
func (d *dbServer) restart(t *testing.T) {
	t.Helper()
	if err := d.Start(); err != nil {
		t.Fatal(err)
	}
}

// TestSQLStorage runs examples/wardle in local mode on SQL databases through kine
// (--datastore-endpoint) instead of the embedded etcd (SQLite, Postgres and MariaDB), and runs on each the checks that hold
// whatever the storage: create, get, list, watch, patch, apply and delete, 409 on a stale
// resourceVersion, pagination with continue tokens, label and field selectors, a watch from a
// resourceVersion, streaming lists ending in the initial-events bookmark, an informer with
// client-go's defaults, the status and scale subresources, and two versions of one kind. The
// endpoint comes from the environment (never the command line), and kine listens on a socket
// in the private data dir, as the embedded etcd does.
func TestSQLStorage(t *testing.T) {
	bin := loadServerBin(t)
	tc := tools(t)
	for _, b := range sqlBackends {
		t.Run(b.name, func(t *testing.T) {
			endpoint, db := b.start(t)
			t.Setenv(wardleDatastoreEnv, endpoint)
			work := t.TempDir()
			dataDir, kubeconfig := filepath.Join(work, "data"), filepath.Join(work, "kubeconfig")
			srv := startServer(t, bin, work, freePort(t), dataDir, kubeconfig, filepath.Join(work, "server.log"))
			k := &kubectl{bin: tc.kubectl, kubeconfig: kubeconfig, cacheDir: filepath.Join(work, "kube-cache")}

			checkStoragePrivate(t, srv, "kine.sock")
			if _, err := os.Stat(filepath.Join(dataDir, "etcd")); !os.IsNotExist(err) {
				t.Errorf("with %s set the server started the embedded etcd too (%v)", wardleDatastoreEnv, err)
			}
			if out := k.ok(t, "get", "--raw", "/readyz?verbose"); !strings.Contains(out, "[+]etcd-readiness ok") {
				t.Errorf("/readyz does not report the storage's check:\n%s", out)
			}
			checkSQLBasics(t, k)
			checkKubectl(t, k)
			checkWatchInOtherVersion(t, k, kubeconfig)
			checkScale(t, k, kubeconfig)
			if db != nil {
				checkDatabaseDown(t, k, srv, db)
			}
			stopServer(t, srv)
			cmdline := strings.Join(srv.proc.Args, " ")
			if _, secret, ok := strings.Cut(endpoint, "://"); ok && strings.Contains(cmdline, secret) {
				t.Errorf("the endpoint is on the server's command line: %s", cmdline)
			}

			// Everything is in the database: a fresh data dir on the same database has it.
			srv = startServer(t, bin, work, freePort(t), filepath.Join(work, "data-2"), kubeconfig, filepath.Join(work, "server-2.log"))
			if got := k.names(t, "flunders", "-n", "sql", "-l", "app=sql"); !slices.Equal(got, []string{"one", "two"}) {
				t.Errorf("after a restart on a new data dir and the same database: flunders %v, want [one two]", got)
			}
			stopServer(t, srv)
		})
	}
}

// checkSQLBasics creates, lists with label and field selectors, watches from a list's
// resourceVersion, patches the status subresource and applies server-side, on v1beta1
// Flunders in namespace sql, and streams them as informers do.
func checkSQLBasics(t *testing.T, k *kubectl) {
	t.Helper()
	const ns = "sql"
	flunder := func(name, labels, spec string) string {
		return fmt.Sprintf("apiVersion: %s/v1beta1\nkind: Flunder\nmetadata: {name: %s, namespace: %s, labels: {%s}}\nspec: %s\n", wardleGroup, name, ns, labels, spec)
	}
	gvr := schema.GroupVersionResource{Group: wardleGroup, Version: "v1beta1", Resource: "flunders"}
	client := dynamicFor(t, k.kubeconfig).Resource(gvr).Namespace(ns)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	list, err := client.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("listing flunders: %v", err)
	}
	w, err := client.Watch(ctx, metav1.ListOptions{ResourceVersion: list.GetResourceVersion()})
	if err != nil {
		t.Fatalf("watching flunders from resourceVersion %s: %v", list.GetResourceVersion(), err)
	}
	defer w.Stop()

	k.okStdin(t, flunder("one", "app: sql, color: red", "{reference: {name: two, kind: Fischer}, replicas: 1}"), "create", "-f", "-")
	k.okStdin(t, flunder("two", "app: sql, color: blue", "{reference: {name: one}, replicas: 1}"), "create", "-f", "-")
	for sel, want := range map[string][]string{"app=sql": {"one", "two"}, "app=sql,color=red": {"one"}, "app=sql,color notin (red)": {"two"}} {
		if got := k.names(t, "flunders", "-n", ns, "-l", sel); !slices.Equal(got, want) {
			t.Errorf("kubectl get flunders -l %q: %v, want %v", sel, got, want)
		}
	}
	for sel, want := range map[string][]string{"metadata.name=two": {"two"}, "spec.reference.kind=Fischer": {"one"}} {
		if got := k.names(t, "flunders", "-n", ns, "--field-selector", sel); !slices.Equal(got, want) {
			t.Errorf("kubectl get flunders --field-selector %q: %v, want %v", sel, got, want)
		}
	}

	// The status subresource changes the status only; the main resource keeps it.
	k.ok(t, "patch", "flunder", "one", "-n", ns, "--subresource=status", "--type=merge", "-p", `{"status":{"replicas":3},"spec":{"replicas":9}}`)
	one := k.get(t, "flunder", "one", "-n", ns)
	if field(one.Object, "status.replicas") != int64(3) || field(one.Object, "spec.replicas") != int64(1) {
		t.Errorf("after a status patch: status.replicas %v spec.replicas %v; want 3 and 1", field(one.Object, "status.replicas"), field(one.Object, "spec.replicas"))
	}

	// Server-side apply, then the events in order.
	mustSucceed(t, k.run(flunder("two", "app: sql, color: blue", "{reference: {name: one}, replicas: 2}"), "apply", "--server-side", "--force-conflicts", "-f", "-"))
	if two := k.get(t, "flunder", "two", "-n", ns); field(two.Object, "spec.replicas") != int64(2) {
		t.Errorf("after server-side apply of replicas 2: %v", field(two.Object, "spec.replicas"))
	}
	k.okStdin(t, flunder("three", "app: gone", "{reference: {name: one}}"), "create", "-f", "-")
	k.ok(t, "delete", "flunder", "three", "-n", ns)
	want := []string{"ADDED one", "ADDED two", "MODIFIED one", "MODIFIED two", "ADDED three", "DELETED three"}
	var seen []string
	for len(seen) < len(want) {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("the watch ended after %v", seen)
			}
			if u, isObj := ev.Object.(*unstructured.Unstructured); isObj && ev.Type != watch.Bookmark {
				seen = append(seen, string(ev.Type)+" "+u.GetName())
			}
		case <-time.After(eventTimeout):
			t.Fatalf("watch from resourceVersion %s: saw %v, want %v", list.GetResourceVersion(), seen, want)
		}
	}
	if !slices.Equal(seen, want) {
		t.Errorf("watch from resourceVersion %s: saw %v, want %v", list.GetResourceVersion(), seen, want)
	}

	checkStreamingList(t, k, "flunders", []string{ns + "/one", ns + "/two"})
}

// checkDatabaseDown stops the database under the running server: /readyz fails (its etcd
// check goes through kine to the database) and a write fails; started again, the server is
// ready again by itself and writes succeed, with every object written before still there.
func checkDatabaseDown(t *testing.T, k *kubectl, srv *server, db *dbServer) {
	t.Helper()
	readyz := func() (int, string, error) { return restGet(restConfig(t, k.kubeconfig), "/readyz?verbose") }
	before := k.names(t, "flunders", "-n", "sql")
	db.stop(t)
	if err := poll(time.Minute, func() error {
		if code, body, err := readyz(); err == nil && code == http.StatusOK {
			return fmt.Errorf("GET /readyz: 200 with the database stopped:\n%s", body)
		}
		return nil
	}); err != nil {
		t.Errorf("the server stayed ready with its database stopped: %v", err)
	}
	code, body, _ := readyz()
	t.Logf("database stopped: GET /readyz answers %d:\n%s", code, body)
	if !strings.Contains(body, "[-]etcd") {
		t.Errorf("with the database stopped, /readyz does not name the storage's check as failing:\n%s", body)
	}
	if r := k.run(fmt.Sprintf("apiVersion: %s/v1beta1\nkind: Flunder\nmetadata: {name: while-down, namespace: sql}\nspec: {reference: {name: one}}\n", wardleGroup),
		"create", "--request-timeout=20s", "-f", "-"); r.ExitCode == 0 {
		t.Errorf("a create succeeded with the database stopped:\n%s", r)
	}

	db.restart(t)
	if err := poll(2*time.Minute, func() error {
		if srv.proc.Exited() {
			return stopPolling{fmt.Errorf("the server exited")}
		}
		code, body, err := readyz()
		if err != nil || code != http.StatusOK {
			return fmt.Errorf("GET /readyz: %d %v\n%s", code, err, body)
		}
		return nil
	}); err != nil {
		t.Fatalf("the server did not become ready again after the database was back: %v\n%s", err, srv.proc.Describe())
	}
	k.okStdin(t, fmt.Sprintf("apiVersion: %s/v1beta1\nkind: Flunder\nmetadata: {name: after-down, namespace: sql}\nspec: {reference: {name: one}}\n", wardleGroup), "create", "-f", "-")
	after := k.names(t, "flunders", "-n", "sql")
	for _, name := range append(before, "after-down") {
		if !slices.Contains(after, name) {
			t.Errorf("after the database came back: flunders %v lack %s", after, name)
		}
	}
	if slices.Contains(after, "while-down") {
		t.Errorf("the create refused while the database was down was stored after all: %v", after)
	}
	k.ok(t, "delete", "flunder", "after-down", "-n", "sql")
}

// postgresBinDir is cluster.PostgresBinDir (Debian's postgres binaries, installed when
// missing and the test runs as root), skipping the test when there are none.
func postgresBinDir(t *testing.T) string {
	t.Helper()
	d, err := cluster.PostgresBinDir()
	if errors.Is(err, cluster.ErrNoDatabase) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// startPostgres starts a fresh postgres cluster on 127.0.0.1 and a free port
// (cluster.StartPostgres) and stops it when the test ends. It returns a kine endpoint for the
// database kine, which kine creates, and the server, which can be started again on the same
// data and port.
func startPostgres(t *testing.T) (string, *dbServer) { return startDatabase(t, cluster.StartPostgres) }

// startMariaDB starts a fresh MariaDB server on 127.0.0.1 and a free port
// (cluster.StartMariaDB: kine connects as root without a password and creates its database
// kine itself) and stops it when the test ends. It returns a kine endpoint and the server,
// which can be started again on the same data and port.
func startMariaDB(t *testing.T) (string, *dbServer) { return startDatabase(t, cluster.StartMariaDB) }

// startDatabase starts a database server with start, skipping the test when it is not
// installed and cannot be, and stops it and removes its data when the test ends.
func startDatabase(t *testing.T, start func(cluster.DatabaseOptions) (*cluster.Database, error)) (string, *dbServer) {
	t.Helper()
	d := cluster.StartForTest(t, start)
	return d.Endpoint, &dbServer{d}
}

// TestExternalDatastoreComponent builds examples/wardle's config/default with the
// external-datastore component, as docs/guides/sql-storage.md shows it, with kubectl kustomize: no object of the
// bundled etcd is left, and the Deployment runs in cluster mode (--cluster) with the endpoint and
// the database's CA read from the mounted Secret, neither in its arguments nor its environment.
func TestExternalDatastoreComponent(t *testing.T) {
	tc := tools(t)
	proj := filepath.Join(t.TempDir(), "wardle")
	copyTree(t, filepath.Join(tc.root, "examples", "wardle"), proj)
	writeFile(t, filepath.Join(proj, "config", "sql", "kustomization.yaml"),
		"apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- ../generated\ncomponents:\n- ../generated/external-datastore\n")
	k := &kubectl{bin: tc.kubectl, kubeconfig: filepath.Join(proj, "no-kubeconfig"), cacheDir: filepath.Join(proj, "kube-cache")}
	bundled := parseManifests(t, k.ok(t, "kustomize", filepath.Join(proj, "config", "generated")))
	m := parseManifests(t, k.ok(t, "kustomize", filepath.Join(proj, "config", "sql")))

	etcd := bundled.statefulSet(t).Name
	for _, obj := range m.objs {
		if obj.GetLabels()["app.kubernetes.io/instance"] == etcd {
			t.Errorf("with external-datastore, the build still has %s %s of the bundled etcd", obj.GetKind(), obj.GetName())
		}
	}
	if kinds := m.kinds(); kinds["StatefulSet"]+kinds["CronJob"]+kinds["NetworkPolicy"]+kinds["PersistentVolumeClaim"] != 0 {
		t.Errorf("with external-datastore: %v; want no StatefulSet, CronJob, NetworkPolicy or claim", kinds)
	}
	d := m.deployment(t)
	pod := d.Spec.Template.Spec
	c := pod.Containers[0]
	wantArgs := []string{"--cluster", "--datastore-endpoint-file=/var/run/datastore/endpoint", "--datastore-cafile=/var/run/datastore/ca.crt"}
	if !slices.Equal(c.Args[:3], wantArgs) || slices.ContainsFunc(c.Args, func(a string) bool { return strings.HasPrefix(a, "--etcd-") }) {
		t.Errorf("with external-datastore, the server's args are %q; want %q first and no --etcd- flag", c.Args, wantArgs)
	}
	for _, want := range bundled.deployment(t).Spec.Template.Spec.Containers[0].Args {
		if !strings.HasPrefix(want, "--etcd-") && !slices.Contains(c.Args, want) {
			t.Errorf("with external-datastore, the server lost its argument %s: %q", want, c.Args)
		}
	}
	if len(c.Env) != 0 {
		t.Errorf("with external-datastore, the server's env is %+v; want none (no ETCD_SERVERS)", c.Env)
	}
	mounts := map[string]string{}
	for _, vm := range c.VolumeMounts {
		mounts[vm.Name] = vm.MountPath
	}
	volumes := map[string]string{}
	for _, v := range pod.Volumes {
		if v.Secret != nil {
			volumes[v.Name] = v.Secret.SecretName
		}
	}
	if mounts["datastore"] != "/var/run/datastore" || volumes["datastore"] != d.Name+"-datastore" || mounts["etcd-client"] != "" || volumes["etcd-client"] != "" {
		t.Errorf("with external-datastore: mounts %v, secret volumes %v; want the Secret %s-datastore at /var/run/datastore and no etcd client Secret", mounts, volumes, d.Name)
	}
}
