package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apigen-dev/apigen/generators/scaffold"
)

// TestModuleWithoutAPIs: generate in a module without pkg/apis says what is missing and what
// to run, instead of go/packages' "pattern ./pkg/apis/...: lstat ..." message.
func TestModuleWithoutAPIs(t *testing.T) {
	isolateCache(t)
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/plain\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run("generate")
	if code != 1 || out != "" {
		t.Fatalf("exit %d, stdout %q; want 1 and no output", code, out)
	}
	for _, want := range []string{"apigen: " + dir + " has no pkg/apis directory", `"apigen new-api --group <group> --version v1alpha1 --kind <Kind>"`, `"apigen init --domain <domain>"`} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if strings.Contains(errOut, "pattern") || strings.Contains(errOut, "lstat") {
		t.Errorf("stderr shows go/packages' message:\n%s", errOut)
	}
}

// TestSkipDeps: init --skip-deps says the dependencies are not fetched and how to fetch them,
// and generate then says the same, instead of one go/packages error per package.
func TestSkipDeps(t *testing.T) {
	isolateCache(t)
	t.Chdir(t.TempDir())
	fetch := "  go get " + strings.Join(scaffold.Dependencies(), " ") + "\n"
	code, out, errOut := run("init", "--repo", "example.com/heldout", "--domain", "heldout.io", "--skip-deps")
	if code != 0 {
		t.Fatalf("init --skip-deps: exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "dependencies not fetched (--skip-deps)") || !strings.Contains(out, fetch) {
		t.Errorf("init --skip-deps does not say how to fetch the dependencies:\n%s", out)
	}
	code, out, errOut = run("generate")
	if code != 1 || out != "" {
		t.Fatalf("generate after init --skip-deps: exit %d, stdout %q; want 1 and no output", code, out)
	}
	want := "apigen: go.mod lacks the Kubernetes dependencies: it does not require k8s.io/apimachinery, which the API types and the generated server need (apigen init --skip-deps leaves them out).\n" +
		"Fetch the dependencies apigen init pins, then generate:\n" + fetch + "  apigen generate\n"
	if errOut != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", errOut, want)
	}
}

// TestScaffoldedTypesExplain: the types new-api writes carry descriptions for the kind, its
// spec and its status out of the box, in the OpenAPI the server serves to kubectl explain.
func TestScaffoldedTypesExplain(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a project")
	}
	dir := moduleCopy(t, map[string]string{})
	if code, out, errOut := run("new-api", "--group", "toys.example.com", "--version", "v1", "--kind", "Widget"); code != 0 {
		t.Fatalf("new-api: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := run("generate"); code != 0 {
		t.Fatalf("generate: exit %d\n%s%s", code, out, errOut)
	}
	data, err := os.ReadFile(filepath.Join(dir, "pkg/generated/openapi/zz_generated.openapi.go"))
	if err != nil {
		t.Fatal(err)
	}
	openapi := string(data)
	for _, want := range []string{
		`Description: "Widget is an object of the widgets API.`,
		`Description: "Spec is the desired state of the Widget, set by its users."`,
		`Description: "Status is the observed state of the Widget, written through the /status subresource."`,
		`Description: "WidgetSpec is the desired state of a Widget."`,
		`Description: "Items are the Widget objects of the list."`,
	} {
		if !strings.Contains(openapi, want) {
			t.Errorf("the generated OpenAPI lacks %s", want)
		}
	}
}

// TestYearWithoutYEAR: --year is not accepted without effect: when the header file has no
// YEAR (the boilerplate apigen init writes has the year itself), generate and verify say so.
func TestYearWithoutYEAR(t *testing.T) {
	isolateCache(t)
	dir := t.TempDir()
	t.Chdir(dir)
	for name, content := range map[string]string{
		"go.mod":                  "module example.com/plain\n\ngo 1.26\n",
		"hack/boilerplate.go.txt": "/*\nCopyright 2031.\n*/\n",
		"hack/yearly.go.txt":      "/*\nCopyright YEAR.\n*/\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const warning = "apigen: warning: --year=2032 has no effect: hack/boilerplate.go.txt has no YEAR to replace\n"
	for _, command := range []string{"generate", "verify"} {
		// The module has no pkg/apis, so the run fails right after the flags are checked.
		if _, _, errOut := run(command, "--year=2032"); !strings.HasPrefix(errOut, warning) {
			t.Errorf("%s --year=2032 with a boilerplate without YEAR: stderr\n%s\nwant it to start with\n%s", command, errOut, warning)
		}
		if _, _, errOut := run(command, "--year=2032", "--header-file=hack/yearly.go.txt"); strings.Contains(errOut, "warning") {
			t.Errorf("%s --year with a header that has YEAR warns:\n%s", command, errOut)
		}
	}
}

// TestInitInKubebuilderProject: apigen init inside a kubebuilder project adds the server
// beside it and changes none of the project's files (its go.mod gains requirements only when
// the dependencies are fetched, which --skip-deps leaves out here).
func TestInitInKubebuilderProject(t *testing.T) {
	isolateCache(t)
	dir := t.TempDir()
	t.Chdir(dir)
	project := map[string]string{
		"go.mod":                            "module example.com/cronjob\n\ngo 1.26\n",
		"PROJECT":                           "domain: tutorial.kubebuilder.io\nlayout:\n- go.kubebuilder.io/v4\nprojectName: cronjob\nrepo: example.com/cronjob\nversion: \"3\"\n",
		"Makefile":                          "manifests:\n\tcontroller-gen rbac:roleName=manager-role crd webhook paths=./...\n",
		"Dockerfile":                        "FROM golang:1.26\n",
		"README.md":                         "# cronjob\n",
		".gitignore":                        "bin/\n",
		"hack/boilerplate.go.txt":           "/*\nCopyright 2026.\n*/\n",
		"cmd/main.go":                       "package main\n\nfunc main() {}\n",
		"config/default/kustomization.yaml": "namespace: cronjob-system\n",
		"api/v1/groupversion_info.go":       "// +groupName=batch.tutorial.kubebuilder.io\npackage v1\n",
	}
	for name, content := range project {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut := run("init", "--domain", "tutorial.kubebuilder.io", "--skip-deps")
	if code != 0 {
		t.Fatalf("init: exit %d\n%s%s", code, out, errOut)
	}
	for name, content := range project {
		if got := readTestFile(t, name); got != content {
			t.Errorf("init changed the project's %s:\n%s", name, got)
		}
	}
	for _, name := range []string{"cmd/apiserver/main.go", "pkg/apis/doc.go"} {
		if _, err := os.Stat(name); err != nil {
			t.Errorf("init did not add %s: %v", name, err)
		}
	}
}
