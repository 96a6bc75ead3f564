//go:build !apigen_etcdonly

package server

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	kineserver "github.com/k3s-io/kine/pkg/server"
)

// Bad endpoints fail before anything starts, with an error that names where the
// endpoint came from and never quotes it (it may hold a password).
func TestDatastoreEndpointErrors(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		env  string
		want string
	}{
		{[]string{"--datastore-endpoint=etcd://secret@db"}, "", `--datastore-endpoint: unknown scheme "etcd"; want one of sqlite, postgres, postgresql, mysql`},
		{[]string{"--datastore-endpoint=secret@db:5432"}, "", "--datastore-endpoint: want <scheme>://..."},
		{[]string{"--datastore-endpoint=sqlite://"}, "", "--datastore-endpoint: sqlite:// needs the database file's path"},
		{[]string{"--datastore-endpoint=postgres://u:secret@db:port/x"}, "", "--datastore-endpoint: not a postgres URL: "},
		{[]string{"--datastore-endpoint=mysql://u:secret@db/x"}, "", "--datastore-endpoint: not a mysql DSN"},
		{[]string{"--datastore-endpoint-file=" + empty}, "", "--datastore-endpoint-file " + empty + ": the file is empty"},
		{[]string{"--datastore-endpoint-file=" + filepath.Join(dir, "missing")}, "", "--datastore-endpoint-file: open "},
		{[]string{"--datastore-endpoint=sqlite://x", "--datastore-endpoint-file=" + empty}, "", "mutually exclusive"},
		{nil, "ftp://secret@db", `$TEST_DATASTORE_ENDPOINT: unknown scheme "ftp"`},
		{[]string{"--datastore-cafile=ca.crt"}, "", "--datastore-cafile applies to --datastore-endpoint, which is not given"},
		{[]string{"--datastore-endpoint=sqlite://x", "--datastore-cafile=" + empty}, "", "--datastore-cafile applies to postgres and mysql, not to sqlite"},
		{[]string{"--datastore-endpoint=postgres://db/x", "--etcd-servers=https://etcd:2379"}, "", "--etcd-servers applies to etcd, and --datastore-endpoint chose a SQL database"},
		{[]string{"--datastore-endpoint=postgres://db/x", "--datastore-certfile=" + empty}, "", "--datastore-certfile and --datastore-keyfile go together"},
	} {
		t.Setenv("TEST_DATASTORE_ENDPOINT", tc.env)
		cmd := NewCommand(context.Background(), emptyAPIs())
		cmd.SetArgs(append(tc.args, "--data-dir", filepath.Join(dir, "data"), "--write-kubeconfig", filepath.Join(dir, "kubeconfig")))
		cmd.SilenceUsage, cmd.SilenceErrors = true, true
		err := cmd.Execute()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q (env %q): got %v\nwant an error containing %s", tc.args, tc.env, err, tc.want)
			continue
		}
		if strings.Contains(err.Error(), "secret") {
			t.Errorf("%q (env %q): the error quotes the endpoint: %v", tc.args, tc.env, err)
		}
	}
}

func TestCheckDatastoreEndpoint(t *testing.T) {
	for in, want := range map[string]string{
		"sqlite://state.db": "sqlite://state.db?_journal_mode=WAL&_busy_timeout=30000&_synchronous=NORMAL&_txlock=immediate&_stmt_cache_size=20&cache=shared",
		"sqlite:///var/db/state.db?_journal_mode=WAL&_busy_timeout=30000&_synchronous=NORMAL&_txlock=immediate&_stmt_cache_size=20&cache=shared": "sqlite:///var/db/state.db?_journal_mode=WAL&_busy_timeout=30000&_synchronous=NORMAL&_txlock=immediate&_stmt_cache_size=20&cache=shared",
		// A parameter of the user's keeps kine's other defaults, which kine alone would drop.
		"sqlite://state.db?_synchronous=FULL":             "sqlite://state.db?_synchronous=FULL&_journal_mode=WAL&_busy_timeout=30000&_txlock=immediate&_stmt_cache_size=20&cache=shared",
		"sqlite://state.db?_journal=DELETE&_timeout=5000": "sqlite://state.db?_journal=DELETE&_timeout=5000&_synchronous=NORMAL&_txlock=immediate&_stmt_cache_size=20&cache=shared",
		"postgres://u@db:5432/kine?sslmode=verify-full":   "postgres://u@db:5432/kine?sslmode=verify-full",
		"mysql://u:p@tcp(db:3306)/kine":                   "mysql://u:p@tcp(db:3306)/kine",
	} {
		if got, err := checkDatastoreEndpoint(in); err != nil || got != want {
			t.Errorf("checkDatastoreEndpoint(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

// Local mode on SQLite: kine instead of the embedded etcd, on a socket in the
// private data dir; /readyz includes the storage's check, answered through kine.
func TestLocalModeSQLite(t *testing.T) {
	dir := t.TempDir()
	dataDir, kubeconfig := filepath.Join(dir, "data"), filepath.Join(dir, "kubeconfig")
	db := filepath.Join(dir, "state.db")
	srv := start(t, "--data-dir", dataDir, "--write-kubeconfig", kubeconfig, "--secure-port", "0", "--datastore-endpoint=sqlite://"+db)
	client := srv.waitReady(t, kubeconfig)
	_, host := kubeconfigClient(t, kubeconfig)
	if code, body := get(t, client, host+"/readyz?verbose"); code != http.StatusOK || !strings.Contains(body, "[+]etcd-readiness ok") {
		t.Errorf("GET /readyz?verbose: %d\n%s\nwant 200 with the storage's check", code, body)
	}
	for path, want := range map[string]os.FileMode{dataDir: os.ModeDir | 0o700, filepath.Join(dataDir, kineSocket): os.ModeSocket | 0o600} {
		if fi, err := os.Stat(path); err != nil || fi.Mode() != want {
			t.Errorf("%s: %v, %v; want mode %v", path, fi, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dataDir, "etcd")); !os.IsNotExist(err) {
		t.Errorf("with --datastore-endpoint, local mode started etcd too (%s: %v)", filepath.Join(dataDir, "etcd"), err)
	}
	if fi, err := os.Stat(db); err != nil || fi.Size() == 0 {
		t.Errorf("the SQLite database %s: %v, %v", db, fi, err)
	}
	if err := srv.stop(t); err != nil {
		t.Fatalf("stopping: %v", err)
	}
}

// createBackend is a kine backend whose Create reports success at revision rev
// and whose Get finds stored (or nothing).
type createBackend struct {
	kineserver.Backend
	rev    int64
	stored *kineserver.KeyValue
}

func (b createBackend) Create(context.Context, string, []byte, int64) (int64, error) {
	return b.rev, nil
}

func (b createBackend) Get(_ context.Context, key string, rev int64, _ bool) (int64, *kineserver.KeyValue, error) {
	return rev, b.stored, nil
}

// A create kine reports as done is acknowledged only when the key's row is there
// at the revision reported: kine v0.17.5 reports a failed insert of a new key as
// done when the read after it succeeds.
func TestCheckedCreates(t *testing.T) {
	for _, tc := range []struct {
		stored *kineserver.KeyValue
		ok     bool
	}{
		{&kineserver.KeyValue{Key: "/k", ModRevision: 7}, true},
		{nil, false},
		{&kineserver.KeyValue{Key: "/k", ModRevision: 5}, false}, // an older row: not this create's
	} {
		rev, err := checkedCreates{createBackend{rev: 7, stored: tc.stored}}.Create(context.Background(), "/k", nil, 0)
		if tc.ok && (err != nil || rev != 7) || !tc.ok && err == nil {
			t.Errorf("stored %+v: Create = %d, %v; want success %v", tc.stored, rev, err, tc.ok)
		}
	}
}
