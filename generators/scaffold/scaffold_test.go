package scaffold

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
	"sigs.k8s.io/yaml"
)

// checkRunsApigen checks that the Makefile, the //go:generate line and the pre-commit hook all
// run apigen as command.
func checkRunsApigen(t *testing.T, root, command string) {
	t.Helper()
	if got := read(t, root, "Makefile"); !strings.Contains(got, "\nAPIGEN ?= "+command+"\n") {
		t.Errorf("Makefile should default APIGEN to %q:\n%s", command, got)
	}
	if got := read(t, root, "pkg/apis/doc.go"); !strings.Contains(got, "\n//go:generate "+command+" generate\n") {
		t.Errorf("pkg/apis/doc.go should have //go:generate %s generate:\n%s", command, got)
	}
	var config struct {
		Repos []struct {
			Repo  string
			Hooks []struct {
				ID            string
				Name          string
				Entry         string
				Language      string
				PassFilenames *bool `json:"pass_filenames"`
				Files         string
			}
		}
	}
	if err := yaml.UnmarshalStrict([]byte(read(t, root, ".pre-commit-config.yaml")), &config); err != nil {
		t.Fatalf(".pre-commit-config.yaml: %v", err)
	}
	if len(config.Repos) != 1 || config.Repos[0].Repo != "local" || len(config.Repos[0].Hooks) != 1 {
		t.Fatalf(".pre-commit-config.yaml should have one local repo with one hook: %+v", config)
	}
	h := config.Repos[0].Hooks[0]
	if h.ID != "apigen-verify" || h.Entry != command+" verify" || h.Language != "system" || h.PassFilenames == nil || *h.PassFilenames || h.Files == "" {
		t.Errorf(".pre-commit-config.yaml hook: %+v, want apigen-verify running %q verify, language system, pass_filenames false", h, command)
	}
}

func TestInitTool(t *testing.T) {
	for _, tc := range []struct {
		name             string
		o                InitOptions
		require, replace string
	}{
		{"replace", InitOptions{ApigenReplace: "/src/apigen checkout"}, "v0.0.0-00010101000000-000000000000", "/src/apigen checkout"},
		{"version", InitOptions{ApigenVersion: "v0.3.0"}, "v0.3.0", ""},
		{"both", InitOptions{ApigenReplace: "/src/apigen", ApigenVersion: "v0.3.0"}, "v0.0.0-00010101000000-000000000000", "/src/apigen"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			o := tc.o
			o.Repo, o.Domain, o.Year = "example.com/tooled", "tooled.io", "2031"
			if _, err := Init(root, o); err != nil {
				t.Fatal(err)
			}
			gomod := read(t, root, "go.mod")
			f, err := modfile.Parse("go.mod", []byte(gomod), nil)
			if err != nil {
				t.Fatalf("go.mod does not parse: %v\n%s", err, gomod)
			}
			if len(f.Tool) != 1 || f.Tool[0].Path != ApigenTool {
				t.Errorf("go.mod should have the tool directive %s:\n%s", ApigenTool, gomod)
			}
			if len(f.Require) != 1 || f.Require[0].Mod.Path != ApigenModule || f.Require[0].Mod.Version != tc.require {
				t.Errorf("go.mod should require %s %s:\n%s", ApigenModule, tc.require, gomod)
			}
			switch {
			case tc.replace == "" && len(f.Replace) != 0:
				t.Errorf("go.mod should have no replace directive:\n%s", gomod)
			case tc.replace != "" && (len(f.Replace) != 1 || f.Replace[0].Old.Path != ApigenModule || f.Replace[0].New.Path != tc.replace):
				t.Errorf("go.mod should replace %s with %s:\n%s", ApigenModule, tc.replace, gomod)
			}
			checkRunsApigen(t, root, "go tool apigen")
		})
	}
	if _, err := Init(t.TempDir(), InitOptions{Repo: "example.com/a", Domain: "a.io", ApigenReplace: "../apigen"}); err == nil || !strings.Contains(err.Error(), "absolute") {
		t.Errorf("a relative replacement: got %v, want an error asking for an absolute path", err)
	}
}

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
	want := "go.mod cmd/apiserver/main.go pkg/apis/doc.go hack/boilerplate.go.txt Makefile .gitignore .pre-commit-config.yaml config/default/kustomization.yaml Dockerfile .dockerignore config/audit/policy.yaml"
	if got := strings.Join(res.Written, " "); got != want {
		t.Errorf("written %q, want %q", got, want)
	}
	// make build stamps the version /version reports (test/e2e builds the same way).
	if got := read(t, root, "Makefile"); !strings.Contains(got, "LDFLAGS ?= -X example.com/heldout/pkg/cmd/server.version=$(VERSION)\n") ||
		!strings.Contains(got, "\tgo build -ldflags \"$(LDFLAGS)\" -o bin/apiserver ./cmd/apiserver\n") {
		t.Errorf("the Makefile does not stamp the version into pkg/cmd/server:\n%s", got)
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
	for _, target := range []string{"generate:", "verify:", "build:", "run:", "test:", "image:", "certs:", "deploy:"} {
		if !strings.Contains(read(t, root, "Makefile"), "\n"+target) {
			t.Errorf("Makefile has no %s target", target)
		}
	}
	// Without a replacement or a version, apigen is not a tool of the project: everything runs
	// the apigen on PATH, and go.mod does not mention it.
	if got := read(t, root, "go.mod"); strings.Contains(got, "apigen") {
		t.Errorf("go.mod mentions apigen without --apigen-module-replace or --apigen-version:\n%s", got)
	}
	checkRunsApigen(t, root, "apigen")

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

	// Each kind gets an example test against the in-process server, in the external test
	// package next to its types.
	widgetTest := read(t, root, "pkg/apis/toys/v1/widget_test.go")
	for _, want := range []string{
		"package v1_test\n",
		`"example.com/heldout/pkg/apis/toys/v1"`,
		`"example.com/heldout/pkg/apiserver"`,
		`"example.com/heldout/pkg/cmd/server/servertest"`,
		"func TestWidget(t *testing.T) {",
		"servertest.Start(t, apiserver.APIs())",
		`client.Resource(v1.SchemeGroupVersion.WithResource("widgets")).Namespace("default")`,
		"&v1.Widget{",
	} {
		if !strings.Contains(widgetTest, want) {
			t.Errorf("widget_test.go lacks %q:\n%s", want, widgetTest)
		}
	}
	gadgetTest := read(t, root, "pkg/apis/toys/v1/gadget_test.go")
	if !strings.Contains(gadgetTest, `WithResource("gadgets"))`+"\n") || strings.Contains(gadgetTest, "Namespace") {
		t.Errorf("gadget_test.go should use the cluster-scoped resource gadgets:\n%s", gadgetTest)
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
