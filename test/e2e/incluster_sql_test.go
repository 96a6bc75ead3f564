package e2e

import (
	"context"
	"encoding/hex"
	"path/filepath"
	"strings"
	"testing"
)

// TestStorageMigrationOnPostgres is TestInACluster's storage-version migration with the
// server's objects in Postgres through kine: examples/wardle behind kube-apiserver on a
// Postgres database, kube-controller-manager's storage-version migrator rewriting the rows
// stored in v1alpha1 into v1beta1, checked in kine's table with psql.
func TestStorageMigrationOnPostgres(t *testing.T) {
	tc := tools(t)
	bins, err := controlPlane()
	if err != nil {
		t.Fatal(err)
	}
	psql := filepath.Join(postgresBinDir(t), "psql")
	endpoint, _ := startPostgres(t)
	a := newAggregation(t, tc, bins, 1)
	a.storage = []string{"--datastore-endpoint=" + endpoint}
	a.installWardle(t, tc, 1)
	c := withControllerManager(t, bins, a)
	c.checkStorageMigration(t, postgresStorage{psql: psql, endpoint: endpoint})
	if t.Failed() {
		t.Logf("kube-controller-manager:\n%s\nreplica:\n%s", c.kcm.Process.Describe(), a.replicas[0].Describe())
	}
}

// postgresStorage is kine's table on Postgres, read and written with psql.
type postgresStorage struct{ psql, endpoint string }

func (p postgresStorage) query(t *testing.T, sql string) string {
	t.Helper()
	r := runCmd(cmdOpts{Timeout: cmdTimeout}, p.psql, p.endpoint, "-v", "ON_ERROR_STOP=1", "-tAc", sql)
	if r.ExitCode != 0 {
		t.Fatalf("psql: %s", r)
	}
	return r.Stdout
}

// stored reads each key's newest row, as kine does.
func (p postgresStorage) stored(_ context.Context, t *testing.T, ns string) map[string]string {
	t.Helper()
	out := map[string]string{}
	rows := p.query(t, `SELECT name || ' ' || (convert_from(value, 'UTF8')::json->>'apiVersion') FROM kine
		WHERE id IN (SELECT MAX(id) FROM kine WHERE name LIKE '%/`+wardleGroup+`/flunders/`+ns+`/%' GROUP BY name) AND deleted = 0`)
	for _, row := range strings.Split(strings.TrimSpace(rows), "\n") {
		if key, version, ok := strings.Cut(row, " "); ok {
			out[key] = version
		}
	}
	return out
}

// put appends a row for key as kine writes an update: the next revision, the previous row's
// revision and value beside the new value.
func (p postgresStorage) put(_ context.Context, t *testing.T, key string, data []byte) {
	t.Helper()
	out := p.query(t, `INSERT INTO kine(name, created, deleted, create_revision, prev_revision, lease, value, old_value)
		SELECT name, 0, 0, COALESCE(NULLIF(create_revision, 0), id), id, lease, decode('`+hex.EncodeToString(data)+`', 'hex'), value
		FROM kine WHERE id = (SELECT MAX(id) FROM kine WHERE name = '`+key+`') AND deleted = 0`)
	if !strings.Contains(out, "INSERT 0 1") {
		t.Fatalf("psql: no row written for %s: %s", key, out)
	}
}
