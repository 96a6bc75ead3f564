//go:build !apigen_etcdonly

package server

import (
	"testing"
)

// The wake-up connections reach the database kine uses: kubernetes unless the
// endpoint names one, lower-cased on Postgres as kine does.
func TestKineWakeConfigs(t *testing.T) {
	for rest, want := range map[string]string{
		"u:p@db.example.com:5433":                        "kubernetes",
		"u:p@db.example.com:5433/":                       "kubernetes",
		"u:p@db.example.com:5433/Wardle?sslmode=disable": "wardle",
	} {
		cfg, err := kinePostgresConfig(rest, &datastoreOptions{})
		if err != nil {
			t.Fatalf("%s: %v", rest, err)
		}
		if cfg.Database != want || cfg.Host != "db.example.com" || cfg.Port != 5433 || cfg.User != "u" || cfg.Password != "p" {
			t.Errorf("%s: database %q on %s:%d as %s; want %q on db.example.com:5433 as u", rest, cfg.Database, cfg.Host, cfg.Port, cfg.User, want)
		}
	}
	for rest, want := range map[string]string{
		"root@tcp(db:3306)/":       "kubernetes",
		"root@tcp(db:3306)/wardle": "wardle",
	} {
		d := &datastoreOptions{}
		d.tls.CAFile = "ca.crt"
		cfg, err := kineMySQLConfig(rest, d)
		if err != nil {
			t.Fatalf("%s: %v", rest, err)
		}
		if cfg.DBName != want || cfg.Addr != "db:3306" || cfg.TLSConfig != "kine" {
			t.Errorf("%s: database %q on %s, TLS %q; want %q on db:3306 with kine's TLS configuration", rest, cfg.DBName, cfg.Addr, cfg.TLSConfig, want)
		}
	}
}

// A replica wakes its poll loop for a revision it has not seen, and for one not
// said; not for its own writes.
func TestWakeupsHeard(t *testing.T) {
	w := &wakeups{announce: make(chan struct{}, 1), wake: make(chan struct{}, 1)}
	woke := func() bool {
		select {
		case <-w.wake:
			return true
		default:
			return false
		}
	}
	w.wrote(5)
	if len(w.announce) != 1 || w.written.Load() != 5 {
		t.Errorf("a write at 5: announce pending %d, written %d; want 1, 5", len(w.announce), w.written.Load())
	}
	for _, tc := range []struct {
		rev  int64
		wake bool
	}{{4, false}, {5, false}, {6, true}, {0, true}} {
		w.heard(tc.rev)
		if got := woke(); got != tc.wake {
			t.Errorf("heard %d after writing 5: woke %v, want %v", tc.rev, got, tc.wake)
		}
	}
}
