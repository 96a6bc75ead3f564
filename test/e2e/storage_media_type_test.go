package e2e

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3" // kine's own SQLite driver
	clientv3 "go.etcd.io/etcd/client/v3"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
)

// selfDescribedCBOR starts everything the server stores as CBOR (RFC 8949 tag 55799).
var selfDescribedCBOR = []byte{0xd9, 0xd9, 0xf7}

// protobufMagic starts everything the server stores as protobuf (Kubernetes' envelope).
var protobufMagic = []byte("k8s\x00")

// storedAs is a media type the server can store in, with how its stored bytes start.
type storedAs struct {
	mediaType, name string
	prefix          []byte
}

var (
	asCBOR     = storedAs{"application/cbor", "self-described CBOR", selfDescribedCBOR}
	asProtobuf = storedAs{"application/vnd.kubernetes.protobuf", "protobuf", protobufMagic}
)

// TestStorageMediaType switches examples/wardle's storage from the default JSON to CBOR
// (--storage-media-type=application/cbor) on existing data, in etcd and in SQLite through
// kine, and to protobuf (application/vnd.kubernetes.protobuf, with the methods apigen
// generates) in etcd: what was stored before stays readable, listable, watchable and writable,
// new and rewritten objects are stored in the new media type (read from the storage itself),
// and switching back reads them. A media type the server does not know is refused at start-up
// (one the types cannot be stored in is too: templates/server's TestStorageMediaTypeFlag).
func TestStorageMediaType(t *testing.T) {
	bin := loadServerBin(t)
	tc := tools(t)

	t.Run("refused", func(t *testing.T) {
		work := t.TempDir()
		dataDir := filepath.Join(work, "data")
		// klog quotes the error: its quotes are escaped.
		stderr := func(r *cmdResult) string { return strings.ReplaceAll(r.Stderr, `\"`, `"`) }
		r := runCmd(cmdOpts{Dir: work}, bin, "--storage-media-type=application/xml", "--data-dir="+dataDir)
		if w := `--storage-media-type "application/xml" is not supported; want one of application/json, application/yaml, application/cbor`; r.ExitCode == 0 || !strings.Contains(stderr(r), w) {
			t.Errorf("want a failed start whose error contains %q, got:\n%s", w, r)
		}
		if _, err := os.Stat(dataDir); !os.IsNotExist(err) {
			t.Errorf("the refused server created its data dir (%v)", err)
		}
	})

	etcdValues := func(t *testing.T, dataDir string) map[string][]byte {
		out := map[string][]byte{}
		withEtcd(t, dataDir, func(ctx context.Context, c *clientv3.Client) {
			for name, kv := range storedFlunders(ctx, t, c) {
				out[name] = kv.value
			}
		})
		return out
	}
	t.Run("etcd protobuf", func(t *testing.T) { checkStorageSwitch(t, bin, tc, nil, etcdValues, asProtobuf) })
	t.Run("etcd", func(t *testing.T) { checkStorageSwitch(t, bin, tc, nil, etcdValues, asCBOR) })

	t.Run("sqlite", func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "state.db")
		env := []string{wardleDatastoreEnv + "=sqlite://" + db}
		checkStorageSwitch(t, bin, tc, env, func(t *testing.T, _ string) map[string][]byte {
			return sqliteFlunders(t, db)
		}, asCBOR)
	})
}

// checkStorageSwitch runs the server (with env added to its environment) on one storage four
// times: JSON, the media type as, as again and JSON again, and reads what is stored with
// stored after the second and the third.
func checkStorageSwitch(t *testing.T, bin string, tc *toolchain, env []string, stored func(t *testing.T, dataDir string) map[string][]byte, as storedAs) {
	work := t.TempDir()
	dataDir, kubeconfig := filepath.Join(work, "data"), filepath.Join(work, "kubeconfig")
	k := &kubectl{bin: tc.kubectl, kubeconfig: kubeconfig, cacheDir: filepath.Join(work, "kube-cache")}
	const resource = "flunders.v1beta1." + wardleGroup
	run := func(log string, extra ...string) *server {
		t.Helper()
		port := freePort(t)
		args := append([]string{"--secure-port=" + fmt.Sprint(port), "--data-dir=" + dataDir, "--write-kubeconfig=" + kubeconfig}, extra...)
		s := &server{bin: bin, dir: work, port: port, dataDir: dataDir, kubeconfig: kubeconfig}
		s.proc = startProcess(t, cmdOpts{Dir: work, Env: env}, filepath.Join(work, log), bin, args...)
		s.waitReady(t, kubeconfig)
		return s
	}
	switched := "--storage-media-type=" + as.mediaType

	srv := run("json.log")
	k.okStdin(t, flunderYAML("v1beta1", "old", `{reference: {name: a}}`), "create", "-f", "-")
	stopServer(t, srv)

	srv = run("switched.log", switched)
	wantSpec(t, k, resource, "old", `{"reference":{"kind":"Flunder","name":"a"}}`)
	k.okStdin(t, flunderYAML("v1beta1", "new", `{reference: {name: b}}`), "create", "-f", "-")
	wantSpec(t, k, resource, "new", `{"reference":{"kind":"Flunder","name":"b"}}`)
	if got := k.names(t, resource, "-n", "default"); !slices.Equal(got, []string{"new", "old"}) {
		t.Errorf("kubectl get flunders: %v, want [new old]", got)
	}
	stopServer(t, srv)
	values := stored(t, dataDir)
	if v := values["old"]; !json.Valid(v) {
		t.Errorf("old, stored before the switch and not written since, is not JSON: %q", v)
	}
	if v := values["new"]; !bytes.HasPrefix(v, as.prefix) {
		t.Errorf("new, created with %s, is not stored as %s: %q", switched, as.name, v)
	}

	// Watch and update both, from a list's resourceVersion and from the watch cache (0).
	srv = run("switched-2.log", switched)
	gvr := schema.GroupVersionResource{Group: wardleGroup, Version: "v1beta1", Resource: "flunders"}
	client := dynamicFor(t, kubeconfig).Resource(gvr).Namespace("default")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	list, err := client.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range list.Items {
		names = append(names, o.GetName())
	}
	if !slices.Equal(names, []string{"new", "old"}) {
		t.Errorf("list: %v, want [new old]", names)
	}
	fromList, err := client.Watch(ctx, metav1.ListOptions{ResourceVersion: list.GetResourceVersion()})
	if err != nil {
		t.Fatal(err)
	}
	defer fromList.Stop()
	fromCache, err := client.Watch(ctx, metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		t.Fatal(err)
	}
	defer fromCache.Stop()
	wantEvents(t, fromCache, map[string]string{"new": "ADDED b", "old": "ADDED a"})
	for name, ref := range map[string]string{"old": "c", "new": "d"} {
		k.ok(t, "patch", resource, name, "-n", "default", "--type=merge", "-p", `{"spec":{"reference":{"name":"`+ref+`"}}}`)
	}
	for _, w := range []watch.Interface{fromList, fromCache} {
		wantEvents(t, w, map[string]string{"old": "MODIFIED c", "new": "MODIFIED d"})
	}
	stopServer(t, srv)
	values = stored(t, dataDir)
	for _, name := range []string{"old", "new"} {
		if v := values[name]; !bytes.HasPrefix(v, as.prefix) {
			t.Errorf("%s, updated with %s, is not stored as %s: %q", name, switched, as.name, v)
		}
	}

	// Back to the default: what was stored in the new media type reads, and is written as JSON again.
	srv = run("json-2.log")
	wantSpec(t, k, resource, "old", `{"reference":{"kind":"Flunder","name":"c"}}`)
	wantSpec(t, k, resource, "new", `{"reference":{"kind":"Flunder","name":"d"}}`)
	stopServer(t, srv)
}

// wantEvents reads w until it has seen, for each name, one event of the given type whose
// spec.reference.name is the given one ("ADDED a").
func wantEvents(t *testing.T, w watch.Interface, want map[string]string) {
	t.Helper()
	got := map[string]string{}
	timeout := time.After(time.Minute)
	for len(got) < len(want) {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("the watch ended; saw %v, want %v", got, want)
			}
			u, ok := ev.Object.(*unstructured.Unstructured)
			if !ok {
				t.Fatalf("watch event %s: %T %v", ev.Type, ev.Object, ev.Object)
			}
			ref, _, _ := unstructured.NestedString(u.Object, "spec", "reference", "name")
			if e := string(ev.Type) + " " + ref; e == want[u.GetName()] {
				got[u.GetName()] = e
			}
		case <-timeout:
			t.Fatalf("after a minute the watch has sent %v, want %v", got, want)
		}
	}
}

// sqliteFlunders returns the latest value kine stored for each flunder of namespace default.
func sqliteFlunders(t *testing.T, path string) map[string][]byte {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT name, value FROM kine WHERE id IN (SELECT MAX(id) FROM kine GROUP BY name)`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][]byte{}
	for rows.Next() {
		var name string
		var value []byte
		if err := rows.Scan(&name, &value); err != nil {
			t.Fatal(err)
		}
		if i := strings.Index(name, "/"+wardleGroup+"/flunders/default/"); i >= 0 {
			out[name[strings.LastIndex(name, "/")+1:]] = value
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
