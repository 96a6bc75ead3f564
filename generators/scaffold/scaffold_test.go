package scaffold

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
)

func read(t *testing.T, root, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestInitAndNewAPI(t *testing.T) {
	root := t.TempDir()
	res, err := Init(root, InitOptions{Repo: "example.com/heldout", Domain: "heldout.io", Year: "2031"})
	if err != nil {
		t.Fatal(err)
	}
	want := "go.mod cmd/apiserver/main.go pkg/apis/doc.go hack/boilerplate.go.txt Makefile .gitignore"
	if got := strings.Join(res.Written, " "); got != want {
		t.Errorf("written %q, want %q", got, want)
	}
	if got := read(t, root, "go.mod"); !strings.HasPrefix(got, "module example.com/heldout\n\ngo "+GoVersion+"\n") {
		t.Errorf("go.mod:\n%s", got)
	}
	if got := read(t, root, "cmd/apiserver/main.go"); !strings.Contains(got, `"example.com/heldout/pkg/cmd/server"`) || !strings.Contains(got, "yours to edit") {
		t.Errorf("main.go:\n%s", got)
	}
	if got := read(t, root, "hack/boilerplate.go.txt"); !strings.Contains(got, "Copyright 2031.") {
		t.Errorf("boilerplate:\n%s", got)
	}
	for _, target := range []string{"generate:", "verify:", "build:", "run:"} {
		if !strings.Contains(read(t, root, "Makefile"), "\n"+target) {
			t.Errorf("Makefile has no %s target", target)
		}
	}

	// A short group takes the domain init recorded; the doc.go of a new version is written once.
	if _, err := NewAPI(root, APIOptions{Group: "toys", Version: "v1", Kind: "Widget", Namespaced: true, Status: true}); err != nil {
		t.Fatal(err)
	}
	res, err = NewAPI(root, APIOptions{Group: "toys", Version: "v1", Kind: "Gadget", Namespaced: false, Status: false})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(res.Skipped, " "); got != "pkg/apis/toys/v1/doc.go" {
		t.Errorf("skipped %q, want the existing doc.go", got)
	}
	if got := read(t, root, "pkg/apis/toys/v1/doc.go"); !strings.Contains(got, "// +groupName=toys.heldout.io\npackage v1\n") {
		t.Errorf("doc.go:\n%s", got)
	}
	widget := read(t, root, "pkg/apis/toys/v1/widget_types.go")
	for _, want := range []string{"+apigen:resource:path=widgets,scope=Namespaced", "+apigen:subresource:status", "type WidgetStatus struct", "type WidgetList struct", "Items []Widget `json:\"items\"`"} {
		if !strings.Contains(widget, want) {
			t.Errorf("widget_types.go lacks %q:\n%s", want, widget)
		}
	}
	gadget := read(t, root, "pkg/apis/toys/v1/gadget_types.go")
	if !strings.Contains(gadget, "scope=Cluster") || strings.Contains(gadget, "Status") {
		t.Errorf("gadget_types.go should be cluster-scoped without status:\n%s", gadget)
	}

	// A fully qualified group needs no domain.
	if _, err := NewAPI(root, APIOptions{Group: "ships.other.org", Version: "v1beta1", Kind: "Ship"}); err != nil {
		t.Fatal(err)
	}
	if got := read(t, root, "pkg/apis/ships/v1beta1/doc.go"); !strings.Contains(got, "+groupName=ships.other.org") {
		t.Errorf("doc.go:\n%s", got)
	}
}

func TestNeverOverwrites(t *testing.T) {
	root := t.TempDir()
	if _, err := Init(root, InitOptions{Repo: "example.com/a", Domain: "a.io", Year: "2031"}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "Makefile"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Init(root, InitOptions{Repo: "example.com/a", Domain: "a.io", Year: "2031"}); err == nil || !strings.Contains(err.Error(), "go.mod") {
		t.Errorf("second init: got %v, want a refusal naming go.mod", err)
	}
	if got := read(t, root, "Makefile"); got != "mine\n" {
		t.Errorf("Makefile was overwritten: %q", got)
	}
	o := APIOptions{Group: "toys", Version: "v1", Kind: "Widget", Namespaced: true, Status: true}
	if _, err := NewAPI(root, o); err != nil {
		t.Fatal(err)
	}
	types := filepath.Join(root, "pkg/apis/toys/v1/widget_types.go")
	if err := os.WriteFile(types, []byte("package v1\n// edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := NewAPI(root, o); err == nil || !strings.Contains(err.Error(), "pkg/apis/toys/v1/widget_types.go") {
		t.Errorf("second new-api: got %v, want a refusal naming the types file", err)
	}
	if got := read(t, root, "pkg/apis/toys/v1/widget_types.go"); got != "package v1\n// edited\n" {
		t.Errorf("types file was overwritten: %q", got)
	}
}

func TestBadInput(t *testing.T) {
	root := t.TempDir()
	for _, tc := range []struct {
		o    APIOptions
		want string
	}{
		{APIOptions{Group: "toys", Version: "v1", Kind: "Widget"}, "no domain for a short --group"},
		{APIOptions{Group: "Toys.x.io", Version: "v1", Kind: "Widget"}, "--group"},
		{APIOptions{Group: "toys.x.io", Version: "1", Kind: "Widget"}, "--version"},
		{APIOptions{Group: "toys.x.io", Version: "v1", Kind: "widget"}, "--kind"},
	} {
		if _, err := NewAPI(root, tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want an error about %s", tc.o, err, tc.want)
		}
	}
	if _, err := Init(root, InitOptions{Repo: "example.com/a", Domain: "nodot", Year: "2031"}); err == nil {
		t.Error("a domain without a dot was accepted")
	}
	if entries, _ := os.ReadDir(root); len(entries) != 0 {
		t.Errorf("bad input wrote %d entries", len(entries))
	}
}

// TestVersionsMatchApigen keeps the versions new projects are pinned to equal to the ones apigen
// itself is built and tested with.
func TestVersionsMatchApigen(t *testing.T) {
	data, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	mf, err := modfile.Parse("go.mod", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"k8s.io/apiserver":          KubernetesVersion,
		"k8s.io/api":                KubernetesVersion,
		"k8s.io/kube-openapi":       KubeOpenAPIVersion,
		"go.etcd.io/etcd/server/v3": EtcdVersion,
	}
	for _, r := range mf.Require {
		if v, ok := want[r.Mod.Path]; ok {
			if r.Mod.Version != v {
				t.Errorf("%s: apigen uses %s, new projects get %s", r.Mod.Path, r.Mod.Version, v)
			}
			delete(want, r.Mod.Path)
		}
	}
	for p := range want {
		t.Errorf("%s is not in apigen's go.mod", p)
	}
}
