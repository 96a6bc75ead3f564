package main

import (
	"testing"
	"time"
)

func TestSplitByReplica(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	// Replica 0 served the create c1 and the watch w0; replica 1 the create c2
	// and the watch w1; nothing names w2.
	served := map[string]int{"c1": 0, "w0": 0, "c2": 1, "w1": 1}
	ds := []delivered{
		{"w0", "c1", ms(2)},  // same
		{"w1", "c1", ms(40)}, // cross
		{"w0", "c2", ms(30)}, // cross
		{"w1", "c2", ms(3)},  // same
		{"w2", "c1", ms(9)},  // the watch unnamed
		{"w0", "c3", ms(9)},  // the create unnamed
	}
	cross, same, unattributed := splitByReplica(ds, served)
	if want := (latencySplit{N: 2, P50: ms(30), P99: ms(40)}); cross != want {
		t.Errorf("cross-replica: %+v, want %+v", cross, want)
	}
	if want := (latencySplit{N: 2, P50: ms(2), P99: ms(3)}); same != want {
		t.Errorf("same-replica: %+v, want %+v", same, want)
	}
	if unattributed != 2 {
		t.Errorf("unattributed: %d, want 2", unattributed)
	}
}

func TestOtherDatabase(t *testing.T) {
	for endpoint, want := range map[string]string{
		"postgres://kine@127.0.0.1:5432/kine?sslmode=disable": "postgres://kine@127.0.0.1:5432/kine3?sslmode=disable",
		"mysql://root@tcp(127.0.0.1:3306)/kine":               "mysql://root@tcp(127.0.0.1:3306)/kine3",
	} {
		if got := otherDatabase(endpoint, "kine3"); got != want {
			t.Errorf("otherDatabase(%q): %q, want %q", endpoint, got, want)
		}
	}
}
