package main

// The scale envelope's direct fill (-scale-direct-from): the objects beyond
// the threshold are not created through the API but written straight to the
// side's storage, as clones of one object per name length that was created
// through the API. Reads, a restart and an informer's sync do not depend on
// how the objects got into storage, and 10^6 creates through the API take
// 36 to 50 minutes per side; the fill rate the summary reports is that of the
// API writes alone.
//
// A clone is the template's stored value (JSON, protobuf or CBOR, as the
// server stores it) with its name and uid replaced by values of the same
// length (names f-%d of the same number of digits, a fresh uuid), so every
// length prefix in the encoding stays right; everything else, the spec and
// the creationTimestamp included, is the template's.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/apimachinery/pkg/util/uuid"

	"github.com/apigen-dev/apigen/test/cluster"
)

// rawStore is a side's storage, reached without its API server.
type rawStore interface {
	// get is the newest stored value of key, nil if there is none.
	get(ctx context.Context, key string) ([]byte, error)
	// keys is the keys under prefix that hold an object.
	keys(ctx context.Context, prefix string) (map[string]bool, error)
	// create writes new keys in one transaction; none of them may exist.
	create(ctx context.Context, kvs []rawKV) error
	// batch is how many keys create takes at most.
	batch() int
	close()
}

type rawKV struct {
	key   string
	value []byte
}

// etcdStore is an etcd, the embedded one of local mode over its unix socket
// or the cluster with its client certificate.
type etcdStore struct{ c *clientv3.Client }

func newEtcdStore(cfg clientv3.Config) (*etcdStore, error) {
	cfg.DialTimeout = 10 * time.Second
	c, err := clientv3.New(cfg)
	if err != nil {
		return nil, err
	}
	return &etcdStore{c}, nil
}

// localEtcdEndpoint is where local mode's embedded etcd listens: etcd.sock
// in the data dir, by its absolute path or, when that is too long for a unix
// socket, relative to the working directory (the server's is ours).
func localEtcdEndpoint(dataDir string) (string, error) {
	abs, err := filepath.Abs(filepath.Join(dataDir, "etcd.sock"))
	if err != nil {
		return "", err
	}
	if len(abs) > 103 {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		if abs, err = filepath.Rel(wd, abs); err != nil {
			return "", err
		}
	}
	return "unix:" + abs, nil
}

func (s *etcdStore) get(ctx context.Context, key string) ([]byte, error) {
	r, err := s.c.Get(ctx, key)
	if err != nil || len(r.Kvs) == 0 {
		return nil, err
	}
	return r.Kvs[0].Value, nil
}

func (s *etcdStore) keys(ctx context.Context, prefix string) (map[string]bool, error) {
	r, err := s.c.Get(ctx, prefix, clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		return nil, err
	}
	have := make(map[string]bool, len(r.Kvs))
	for _, kv := range r.Kvs {
		have[string(kv.Key)] = true
	}
	return have, nil
}

func (s *etcdStore) create(ctx context.Context, kvs []rawKV) error {
	var ifs []clientv3.Cmp
	var puts []clientv3.Op
	for _, kv := range kvs {
		ifs = append(ifs, clientv3.Compare(clientv3.CreateRevision(kv.key), "=", 0))
		puts = append(puts, clientv3.OpPut(kv.key, string(kv.value)))
	}
	r, err := s.c.Txn(ctx).If(ifs...).Then(puts...).Commit()
	if err != nil {
		return err
	}
	if !r.Succeeded {
		return fmt.Errorf("a key of %s … %s exists already", kvs[0].key, kvs[len(kvs)-1].key)
	}
	return nil
}

// batch: etcd's --max-txn-ops is 128 by default (its request limit, 1.5 MiB,
// is checked by create's caller).
func (s *etcdStore) batch() int { return 128 }
func (s *etcdStore) close()     { s.c.Close() }

// kineStore is kine's table in Postgres, written while no kine runs on it:
// each created row as kine writes a create (the template's row's columns but
// name and value), its id, which is its revision, from the table's sequence.
type kineStore struct {
	db   *pgxpool.Pool
	mu   sync.Mutex
	tmpl map[int]kineRow // the template's row, by the length of its key
}

type kineRow struct {
	created, deleted int32
	createRev        *int64
	prevRev, lease   *int64
	oldValue         []byte
}

func newKineStore(ctx context.Context, dsn string) (*kineStore, error) {
	db, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return nil, err
	}
	if err := db.Ping(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return &kineStore{db: db, tmpl: map[int]kineRow{}}, nil
}

func (s *kineStore) get(ctx context.Context, key string) ([]byte, error) {
	var r kineRow
	var value []byte
	err := s.db.QueryRow(ctx, `SELECT created, deleted, create_revision, prev_revision, lease, value, old_value
		FROM kine WHERE name = $1 ORDER BY id DESC LIMIT 1`, key).
		Scan(&r.created, &r.deleted, &r.createRev, &r.prevRev, &r.lease, &value, &r.oldValue)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if r.deleted != 0 {
		return nil, nil
	}
	s.mu.Lock()
	s.tmpl[len(key)] = r
	s.mu.Unlock()
	return value, nil
}

func (s *kineStore) keys(ctx context.Context, prefix string) (map[string]bool, error) {
	// The newest row of each name under prefix, unless it is a deletion.
	rows, err := s.db.Query(ctx, `SELECT name FROM kine k WHERE starts_with(name, $1) AND deleted = 0
		AND id = (SELECT MAX(id) FROM kine WHERE name = k.name)`, prefix)
	if err != nil {
		return nil, err
	}
	have := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return nil, err
		}
		have[name] = true
	}
	return have, rows.Err()
}

// create copies kvs into the table in one transaction; each takes the row of
// the template of its name's length (get read it) but for name and value.
func (s *kineStore) create(ctx context.Context, kvs []rawKV) error {
	rows := make([][]any, 0, len(kvs))
	for _, kv := range kvs {
		s.mu.Lock()
		r, ok := s.tmpl[len(kv.key)]
		s.mu.Unlock()
		if !ok {
			return fmt.Errorf("%s: no template row of its length read", kv.key)
		}
		rows = append(rows, []any{kv.key, r.created, r.deleted, r.createRev, r.prevRev, r.lease, kv.value, r.oldValue})
	}
	n, err := s.db.CopyFrom(ctx, pgx.Identifier{"kine"},
		[]string{"name", "created", "deleted", "create_revision", "prev_revision", "lease", "value", "old_value"}, pgx.CopyFromRows(rows))
	if err != nil {
		return err
	}
	if int(n) != len(kvs) {
		return fmt.Errorf("copied %d rows, want %d", n, len(kvs))
	}
	return nil
}

func (s *kineStore) batch() int { return 2000 }

func (s *kineStore) close() { s.db.Close() }

// template is an object created through the API whose stored value the
// objects of its name's length are cloned from.
type template struct {
	index     int
	name, uid string
}

// directTemplates makes sure that the first object of each name length in
// [from, n) exists, created through the API, and returns them.
func directTemplates(ctx context.Context, t *target, ns string, from, n int) ([]template, error) {
	var out []template
	for i := from; i < n; i = nextLength(i) {
		name := fmt.Sprintf("f-%d", i)
		if err := createRetrying(ctx, t, t.k.newObject(ns, name, i)); err != nil {
			return nil, fmt.Errorf("template %s: %w", name, err)
		}
		o, err := t.get(ctx, ns, name)
		if err != nil {
			return nil, fmt.Errorf("template %s: %w", name, err)
		}
		out = append(out, template{index: i, name: name, uid: string(o.UID)})
	}
	return out, nil
}

// nextLength is the first index after i whose name f-%d is longer.
func nextLength(i int) int {
	p := 10
	for p <= i {
		p *= 10
	}
	return p
}

// directFill writes the objects f-from … f-(n-1) of namespace ns that do not
// exist yet into st, under the first of prefixes (…/<resource>/) that holds
// the templates, as clones of the templates, from workers transactions at
// once; it returns how many it wrote.
func directFill(ctx context.Context, st rawStore, prefixes []string, ns string, tmpls []template, from, n, workers int) (int, error) {

	if len(tmpls) == 0 {
		return 0, nil
	}
	var prefix string
	values := map[int][]byte{} // by name length
	for _, p := range prefixes {
		v, err := st.get(ctx, p+ns+"/"+tmpls[0].name)
		if err != nil {
			return 0, err
		}
		if v != nil {
			prefix = p + ns + "/"
			break
		}
	}
	if prefix == "" {
		return 0, fmt.Errorf("template %s/%s is under none of %s in storage", ns, tmpls[0].name, strings.Join(prefixes, ", "))
	}
	for _, tm := range tmpls {
		v, err := st.get(ctx, prefix+tm.name)
		if err != nil {
			return 0, err
		}
		if v == nil {
			return 0, fmt.Errorf("template %s%s: not in storage", prefix, tm.name)
		}
		// A first clone, checked before any is written.
		if _, err := cloneValue(v, tm.name, tm.uid, tm.name, string(uuid.NewUUID())); err != nil {
			return 0, fmt.Errorf("template %s%s: %w", prefix, tm.name, err)
		}
		values[len(tm.name)] = v
		log.Printf("direct fill: %s%s, %d B of %s, the template of f-%d … (uid %s)", prefix, tm.name, len(v), storedEncoding(v), tm.index, tm.uid)
	}
	have, err := st.keys(ctx, prefix)
	if err != nil {
		return 0, err
	}
	var todo []int
	for i := from; i < n; i++ {
		if !have[prefix+fmt.Sprintf("f-%d", i)] {
			todo = append(todo, i)
		}
	}
	byLength := map[int]template{}
	for _, tm := range tmpls {
		byLength[len(tm.name)] = tm
	}
	// Batches of st.batch() keys, and at most 1 MiB of values (etcd takes
	// requests of 1.5 MiB).
	var batches [][]int
	var cur []int
	size := 0
	for _, i := range todo {
		l := len(values[len(fmt.Sprintf("f-%d", i))])
		if len(cur) == st.batch() || (len(cur) > 0 && size+l > 1<<20) {
			batches = append(batches, cur)
			cur, size = nil, 0
		}
		cur, size = append(cur, i), size+l
	}
	if len(cur) > 0 {
		batches = append(batches, cur)
	}
	var written atomic.Int64
	_, firstErr := eachParallel(ctx, workers, len(batches), true, func(j int) error {
		kvs := make([]rawKV, 0, len(batches[j]))
		for _, i := range batches[j] {
			name := fmt.Sprintf("f-%d", i)
			tm := byLength[len(name)]
			v, err := cloneValue(values[len(name)], tm.name, tm.uid, name, string(uuid.NewUUID()))
			if err != nil {
				return err
			}
			kvs = append(kvs, rawKV{prefix + name, v})
		}
		if err := st.create(ctx, kvs); err != nil {
			return err
		}
		written.Add(int64(len(kvs)))
		return nil
	})
	if firstErr != nil {
		return int(written.Load()), fmt.Errorf("writing to storage: %w", firstErr)
	}
	return int(written.Load()), ctx.Err()
}

// storedEncoding names the encoding of a stored value.
func storedEncoding(v []byte) string {
	switch {
	case bytes.HasPrefix(v, []byte("k8s\x00")):
		return "protobuf"
	case bytes.HasPrefix(v, []byte{0xd9, 0xd9, 0xf7}):
		return "CBOR"
	case bytes.HasPrefix(v, []byte("{")):
		return "JSON"
	}
	return "an unknown encoding"
}

// cloneValue is the stored value v of the object named name with uid, as
// that of newName with newUID, each replaced where it is, which must be
// once: the uid anywhere, the name where it stands alone (not inside a
// longer word, as f-100 is in ref-100 and in f-1000).
func cloneValue(v []byte, name, uid, newName, newUID string) ([]byte, error) {
	if len(newName) != len(name) || len(newUID) != len(uid) {
		return nil, fmt.Errorf("%s (uid %s) as %s (uid %s): not of the same lengths", name, uid, newName, newUID)
	}
	at := func(s string, alone bool) (int, error) {
		pos := -1
		for i := 0; ; {
			j := bytes.Index(v[i:], []byte(s))
			if j < 0 {
				break
			}
			j += i
			end := j + len(s)
			if !alone || (j == 0 || !wordByte(v[j-1])) && (end == len(v) || !wordByte(v[end])) {
				if pos >= 0 {
					return 0, fmt.Errorf("%q is more than once in the stored value", s)
				}
				pos = j
			}
			i = j + 1
		}
		if pos < 0 {
			return 0, fmt.Errorf("%q is not in the stored value", s)
		}
		return pos, nil
	}
	np, err := at(name, true)
	if err != nil {
		return nil, err
	}
	up, err := at(uid, false)
	if err != nil {
		return nil, err
	}
	out := bytes.Clone(v)
	copy(out[np:], newName)
	copy(out[up:], newUID)
	return out, nil
}

// wordByte: a byte a name or uid may hold (lower-case DNS labels, digits,
// '-' and '.').
func wordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.'
}

// wardleKeyPrefixes are where examples/wardle's flunders may be in etcd or
// kine under its default prefix /registry/wardle: by group and resource, or
// by resource alone.
var wardleKeyPrefixes = []string{"/registry/wardle/wardle.example.com/flunders/", "/registry/wardle/flunders/"}

// localEtcdRaw is the embedded etcd of local mode on dataDir (its server running).
func localEtcdRaw(dataDir string) func(context.Context) (rawStore, error) {
	return func(context.Context) (rawStore, error) {
		ep, err := localEtcdEndpoint(dataDir)
		if err != nil {
			return nil, err
		}
		return newEtcdStore(clientv3.Config{Endpoints: []string{ep}})
	}
}

// clusterEtcdRaw is the etcd cluster, reached with its client certificate.
func clusterEtcdRaw(e *cluster.Etcd) func(context.Context) (rawStore, error) {
	return func(context.Context) (rawStore, error) {
		tlsConfig, err := e.TLSConfig()
		if err != nil {
			return nil, err
		}
		return newEtcdStore(clientv3.Config{Endpoints: e.Endpoints, TLS: tlsConfig})
	}
}

// kineRaw is kine's table in the database of dsn (no kine running on it).
func kineRaw(dsn string) func(context.Context) (rawStore, error) {
	return func(ctx context.Context) (rawStore, error) { return newKineStore(ctx, dsn) }
}
