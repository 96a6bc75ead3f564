package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apigen-dev/apigen/test/cluster"
)

func TestCloneValue(t *testing.T) {
	uid := "0b6c5a35-3d0e-4f4e-9d55-7e0d1c7c1a11"
	newUID := "9f1d8c2b-5a44-4c1e-8e3a-2b7f6d0e4c22"
	js := []byte(`{"metadata":{"name":"f-100","uid":"` + uid + `","labels":{"serverload/index":"100"}},"spec":{"reference":"ref-100"}}`)
	got, err := cloneValue(js, "f-100", uid, "f-257", newUID)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"metadata":{"name":"f-257","uid":"` + newUID + `","labels":{"serverload/index":"100"}},"spec":{"reference":"ref-100"}}`
	if string(got) != want {
		t.Errorf("JSON clone:\n got %s\nwant %s", got, want)
	}
	// Protobuf: ObjectMeta's name (field 1, length 5), then generation
	// (field 7, tag '8') right after the uid (field 5, length 36).
	pb := []byte("k8s\x00\x0a\x05f-100\x2a\x24" + uid + "\x38\x01\x0a\x07ref-100")
	got, err = cloneValue(pb, "f-100", uid, "f-257", newUID)
	if err != nil {
		t.Fatal(err)
	}
	if want := "k8s\x00\x0a\x05f-257\x2a\x24" + newUID + "\x38\x01\x0a\x07ref-100"; string(got) != want {
		t.Errorf("protobuf clone:\n got %q\nwant %q", got, want)
	}
	if !bytes.Contains(pb, []byte("\x0a\x05f-100")) {
		t.Fatal("the template changed")
	}
	for _, c := range []struct{ v, name, newName, err string }{
		{`{"name":"f-10","x":"f-10"}`, "f-10", "f-11", "more than once"},
		{`{"name":"f-1000"}`, "f-100", "f-101", "is not in"},
		{`{"name":"f-10"}`, "f-10", "f-100", "same lengths"},
	} {
		_, err := cloneValue([]byte(c.v+uid), c.name, uid, c.newName, newUID)
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s as %s in %s: %v, want an error saying %q", c.name, c.newName, c.v, err, c.err)
		}
	}
}

// TestScaleDirectFill fills examples/wardle's server in local mode, on
// embedded etcd and on Postgres through kine, to 300 objects with
// -scale-direct-from 100 (one template through the API, 199 clones written
// to storage), then to 350 (50 more clones), restarts it and checks through
// the API: exactly that many objects, each of its own name and uid, a clone
// with the template's spec, and an update of a clone.
func TestScaleDirectFill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds examples/wardle and starts its server, and Postgres; skipped in -short mode")
	}
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	// The servers' logs stay for a failure.
	dir, err := os.MkdirTemp("", "serverload-direct-")
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if t.Failed() {
			t.Logf("the servers' logs are in %s", dir)
		} else {
			os.RemoveAll(dir)
		}
	}()
	bin, err := buildWardle(filepath.Join(root, "examples", "wardle"), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer func(v int) { scaleOpts.directFrom = v }(scaleOpts.directFrom)
	scaleOpts.directFrom = 100
	o := &options{prepareWorkers: 8}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	b := &bench{dir: dir}
	k := *flunderKind
	k.Pad = strings.Repeat("x", 300)

	d, err := cluster.StartPostgres(cluster.DatabaseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	local := func(name, endpoint string) func(context.Context, string, *cluster.MemoryCgroup) (*running, func(), error) {
		data := filepath.Join(dir, name+"-data")
		return func(ctx context.Context, logName string, _ *cluster.MemoryCgroup) (*running, func(), error) {
			r, err := b.startLocal(ctx, name, bin, data, endpoint, logName, storageProc{})
			if err != nil {
				return nil, nil, err
			}
			r.k = &k
			return r, r.stop, nil
		}
	}
	sides := []scaleSide{
		{name: scEmbedded, start: local(scEmbedded, ""), raw: localEtcdRaw(filepath.Join(dir, scEmbedded+"-data")), rawPrefixes: wardleKeyPrefixes},
		{name: scPostgres, start: local(scPostgres, d.Endpoint), raw: kineRaw(d.Endpoint), rawPrefixes: wardleKeyPrefixes, rawStopped: true},
	}
	for _, s := range sides {
		t.Run(s.name, func(t *testing.T) {
			for _, step := range []struct{ n, added, direct int }{{300, 300, 199}, {350, 50, 50}} {
				res := &scaleResult{}
				if err := fillScale(ctx, o, s, step.n, res); err != nil {
					t.Fatalf("filling to %d: %v", step.n, err)
				}
				if res.Added != step.added || res.Direct != step.direct {
					t.Errorf("filling to %d: %d added, %d written to storage; want %d and %d", step.n, res.Added, res.Direct, step.added, step.direct)
				}
				checkFilled(ctx, t, s, step.n)
			}
		})
	}
}

// checkFilled restarts s and checks its namespace through the API.
func checkFilled(ctx context.Context, t *testing.T, s scaleSide, n int) {
	t.Helper()
	r, stop, err := s.start(ctx, fmt.Sprintf("%s-%d-check", s.name, n), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	// As scaleOne does: /readyz can answer before a create is admitted.
	if err := waitAdmits(ctx, r.target, 1); err != nil {
		t.Fatal(err)
	}
	// The unpaged list: on kine, a paged list the server serves from storage
	// before its watch cache is filled fails now and then ("illegal resource
	// version from storage: 0"), however the objects got there.
	list, err := r.list(ctx, scaleNS)
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	names, uids := map[string]bool{}, map[string]bool{}
	for _, o := range list.Items {
		names[o.Name], uids[string(o.UID)] = true, true
	}
	for i := range n {
		if !names[fmt.Sprintf("f-%d", i)] {
			t.Errorf("f-%d is not listed", i)
		}
	}
	if len(list.Items) != n || len(names) != n || len(uids) != n {
		t.Errorf("list: %d objects, %d names and %d uids, want %d of each", len(list.Items), len(names), len(uids), n)
	}

	tmpl, err := r.get(ctx, scaleNS, "f-100")
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("f-%d", n-1)
	clone, err := r.get(ctx, scaleNS, name)
	if err != nil {
		t.Fatal(err)
	}
	if clone.Name != name || len(clone.UID) != 36 || clone.UID == tmpl.UID {
		t.Errorf("clone %s: name %s, uid %s (the template's %s)", name, clone.Name, clone.UID, tmpl.UID)
	}
	if !jsonEqual(clone.Spec, tmpl.Spec) || clone.Annotations["serverload/pad"] != tmpl.Annotations["serverload/pad"] {
		t.Errorf("clone %s: spec %s, want the template's %s", name, clone.Spec, tmpl.Spec)
	}
	clone.Spec = r.k.Spec(n-1, 1)
	upd, err := r.update(ctx, clone)
	if err != nil {
		t.Fatalf("update of %s: %v", name, err)
	}
	// The server defaults spec.referenceType: the reference is what was sent.
	if want := fmt.Sprintf("ref-%d-u1", n-1); upd.ResourceVersion == clone.ResourceVersion || reference(upd.Spec) != want {
		t.Errorf("update of %s: resourceVersion %s → %s, spec %s", name, clone.ResourceVersion, upd.ResourceVersion, upd.Spec)
	}
	got, err := r.get(ctx, scaleNS, name)
	if err != nil {
		t.Fatal(err)
	}
	if got.ResourceVersion != upd.ResourceVersion || got.UID != clone.UID || !jsonEqual(got.Spec, upd.Spec) {
		t.Errorf("%s after its update: resourceVersion %s, uid %s, spec %s", name, got.ResourceVersion, got.UID, got.Spec)
	}
}

func reference(spec json.RawMessage) string {
	var s struct{ Reference string }
	_ = json.Unmarshal(spec, &s)
	return s.Reference
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}
