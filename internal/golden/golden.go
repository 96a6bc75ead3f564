// Package golden compares generated output, whole, with a txtar archive under testdata: the
// goldens of apigen's emitters per layout and of the scaffolded projects.
package golden

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"
)

// Compare reports every file of got that differs from, is missing from or is not in the
// archive at file; with update it rewrites the archive instead. how says how to accept the
// output (the go test command with -update).
func Compare(t *testing.T, file string, got *txtar.Archive, update bool, how string) {
	t.Helper()
	if update {
		if err := os.WriteFile(file, txtar.Format(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	want, have := files(txtar.Parse(data)), files(got)
	for name, w := range want {
		g, ok := have[name]
		if !ok {
			t.Errorf("%s is no longer generated", name)
			continue
		}
		if diff := cmp.Diff(w, g); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
	for name := range have {
		if _, ok := want[name]; !ok {
			t.Errorf("%s is generated and not in %s", name, file)
		}
	}
	if t.Failed() {
		t.Logf("%s accepts the output; review its diff", how)
	}
}

func files(a *txtar.Archive) map[string]string {
	m := make(map[string]string, len(a.Files))
	for _, f := range a.Files {
		m[f.Name] = string(f.Data)
	}
	return m
}
