package scaffold

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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

// TestInitAndNewAPI checks what init and new-api report and the properties of their files that
// other tools rely on; TestScaffoldGolden compares the files whole.
func TestInitAndNewAPI(t *testing.T) {
	root := t.TempDir()
	res, err := Init(root, InitOptions{Repo: "example.com/heldout", Domain: "heldout.io", Year: "2031"})
	if err != nil {
		t.Fatal(err)
	}
	want := "go.mod cmd/apiserver/main.go pkg/apis/doc.go hack/boilerplate.go.txt Makefile .gitignore .pre-commit-config.yaml config/default/kustomization.yaml Dockerfile .dockerignore config/audit/policy.yaml .golangci.yml README.md"
	if got := strings.Join(res.Written, " "); got != want {
		t.Errorf("written %q, want %q", got, want)
	}
	// make build stamps the version /version reports (test/e2e builds the same way).
	if got := read(t, root, "Makefile"); !strings.Contains(got, "LDFLAGS ?= -X example.com/heldout/pkg/cmd/server.version=$(VERSION)\n") ||
		!strings.Contains(got, "\tgo build -ldflags \"$(LDFLAGS)\" -o bin/apiserver ./cmd/apiserver\n") {
		t.Errorf("the Makefile does not stamp the version into pkg/cmd/server:\n%s", got)
	}
	// Without a replacement or a version, apigen is not a tool of the project: everything runs
	// the apigen on PATH, and go.mod does not mention it.
	if got := read(t, root, "go.mod"); strings.Contains(got, "apigen") {
		t.Errorf("go.mod mentions apigen without --apigen-module-replace or --apigen-version:\n%s", got)
	}
	checkRunsApigen(t, root, "apigen")

	// The doc.go of a new version is written once; the second kind of it reports it kept.
	newAPI(t, root, APIOptions{Group: "toys", Version: "v1", Kind: "Widget", Namespaced: true, Status: true})
	res, err = NewAPI(root, APIOptions{Group: "toys", Version: "v1", Kind: "Gadget"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(res.Skipped, " "); got != "pkg/apis/toys/v1/doc.go" {
		t.Errorf("skipped %q, want the existing doc.go", got)
	}
	if got := strings.Join(res.Written, " "); got != "pkg/apis/toys/v1/gadget_types.go pkg/apis/toys/v1/gadget_test.go" {
		t.Errorf("written %q, want the kind's types and its test", got)
	}
}

// TestNewAPIRefuses: new-api refuses, writing nothing, what would only fail at generate or in
// the server: types that redeclare names of the package, plural and reserved kinds, an invalid
// --plural, and a group that differs from the one already in its directory.
func TestNewAPIRefuses(t *testing.T) {
	root := newProject(t)
	api := func(kind string, edit func(*APIOptions)) APIOptions {
		o := APIOptions{Group: "toys", Version: "v1", Kind: kind, Namespaced: true, Status: true}
		if edit != nil {
			edit(&o)
		}
		return o
	}
	for _, o := range []APIOptions{api("Widget", nil), api("ThingList", nil)} {
		if _, err := NewAPI(root, o); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "pkg/apis/toys/v1/part.go"), []byte("package v1\n\n// Part is a helper type.\ntype Part struct{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := tree(t, root)
	for _, tc := range []struct {
		o    APIOptions
		want string
	}{
		{api("WidgetSpec", nil), "--kind WidgetSpec: type WidgetSpec is already declared at pkg/apis/toys/v1/widget_types.go:10:6; choose another kind name"},
		{api("Thing", nil), "--kind Thing: its list type ThingList is already declared at pkg/apis/toys/v1/thinglist_types.go:"},
		{api("Part", nil), "--kind Part: type Part is already declared at pkg/apis/toys/v1/part.go:4:6"},
		{api("Widgets", nil), "--kind Widgets looks plural: a kind names one object (--kind Widget), its resource is the plural (widgets); if Widgets is singular, pass --plural=widgetses"},
		{api("List", nil), "--kind List is reserved"},
		{api("Status", nil), "--kind Status is reserved"},
		{api("Resource", nil), "--kind Resource would clash with the Resource that apigen generate declares"},
		{api("Gizmo", func(o *APIOptions) { o.Plural = "Gizmos" }), `--plural "Gizmos" is not a valid resource name: lower-case letters, digits and '-', starting with a letter (like gizmos)`},
		{api("Gizmo", func(o *APIOptions) { o.Group = "toys.other.org" }), "group toys.other.org would live in pkg/apis/toys, which already holds group toys.heldout.io (+groupName at pkg/apis/toys/v1/doc.go:5:1); one directory holds one group"},
		{api("Gizmo", func(o *APIOptions) { o.Domain = "other.org" }), "which already holds group toys.heldout.io"},
	} {
		_, err := NewAPI(root, tc.o)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("new-api --kind %s (%+v): got %v, want an error containing %q", tc.o.Kind, tc.o, err, tc.want)
		}
	}
	if diff := cmp.Diff(before, tree(t, root)); diff != "" {
		t.Errorf("a refused new-api changed the project (-before +after):\n%s", diff)
	}

	// What is refused without a reason is accepted with one: a singular kind ending in s.
	if _, err := NewAPI(root, api("Bus", func(o *APIOptions) { o.Plural = "buses" })); err != nil {
		t.Errorf("new-api --kind Bus --plural buses: %v", err)
	}
	// The group already in the directory is fine given fully qualified.
	if _, err := NewAPI(root, api("Gizmo", func(o *APIOptions) { o.Group = "toys.heldout.io" })); err != nil {
		t.Errorf("new-api --group toys.heldout.io: %v", err)
	}
}

// newProject is what apigen init --repo example.com/heldout --domain heldout.io --skip-deps
// leaves in a new directory.
func newProject(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if _, err := Init(root, InitOptions{Repo: "example.com/heldout", Domain: "heldout.io", Year: "2031"}); err != nil {
		t.Fatal(err)
	}
	return root
}

// tree returns every file under root with its content.
func tree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		rel, _ := filepath.Rel(root, path)
		out[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestInitInExistingModule: init in a module that has some files of its own adds what is
// missing, keeps (and reports) what is there, takes the module path from go.mod, and adds
// apigen as a tool to the existing go.mod when asked; a --repo that contradicts go.mod is
// refused before anything is written.
func TestInitInExistingModule(t *testing.T) {
	root := t.TempDir()
	mine := map[string]string{
		"go.mod":     "module example.com/existing\n\ngo 1.26\n\nrequire golang.org/x/text v0.3.0\n",
		"Makefile":   "all:\n\techo mine\n",
		".gitignore": "/secrets/\n",
		"README.md":  "# existing\n",
	}
	for name, content := range mine {
		if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Init(root, InitOptions{Repo: "example.com/other", Domain: "existing.io", Year: "2031"}); err == nil ||
		!strings.Contains(err.Error(), "--repo example.com/other differs from the module of the existing go.mod, example.com/existing") {
		t.Errorf("init --repo contradicting go.mod: %v", err)
	}
	if got := len(tree(t, root)); got != len(mine) {
		t.Errorf("a refused init left %d files, want %d", got, len(mine))
	}

	res, err := Init(root, InitOptions{Domain: "existing.io", Year: "2031", ApigenVersion: "v0.3.0"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(res.Skipped, " "); got != "Makefile .gitignore README.md" {
		t.Errorf("kept %q, want the existing Makefile, .gitignore and README.md", got)
	}
	if got := strings.Join(res.Written, " "); got != "cmd/apiserver/main.go pkg/apis/doc.go hack/boilerplate.go.txt .pre-commit-config.yaml config/default/kustomization.yaml Dockerfile .dockerignore config/audit/policy.yaml .golangci.yml" {
		t.Errorf("written %q", got)
	}
	if got := strings.Join(res.Updated, " "); got != "go.mod" {
		t.Errorf("updated %q, want go.mod", got)
	}
	for _, name := range []string{"Makefile", ".gitignore", "README.md"} {
		if got := read(t, root, name); got != mine[name] {
			t.Errorf("%s was changed:\n%s", name, got)
		}
	}
	if got := read(t, root, "cmd/apiserver/main.go"); !strings.Contains(got, `"example.com/existing/pkg/cmd/server"`) {
		t.Errorf("main.go does not use go.mod's module path:\n%s", got)
	}
	mf, err := modfile.Parse("go.mod", []byte(read(t, root, "go.mod")), nil)
	if err != nil {
		t.Fatal(err)
	}
	var requires []string
	for _, r := range mf.Require {
		requires = append(requires, r.Mod.String())
	}
	if len(mf.Tool) != 1 || mf.Tool[0].Path != ApigenTool || strings.Join(requires, " ") != ApigenModule+"@v0.3.0 golang.org/x/text@v0.3.0" {
		t.Errorf("go.mod should keep its requirement and gain apigen as a tool at v0.3.0:\n%s", read(t, root, "go.mod"))
	}
}

// TestMakefile runs the scaffolded Makefile with make: make help lists every target with what
// it does, and make -n shows what each target runs: run starts the server with its defaults
// (state and kubeconfig in .apigen/), deploy makes the certificates first only when they are
// missing, undeploy deletes the APIServices before the rest, and fmt, vet, lint and docker-push
// run what their names say.
func TestMakefile(t *testing.T) {
	makeBin, err := exec.LookPath("make")
	if err != nil {
		t.Skip("no make on PATH")
	}
	root := newProject(t)
	// What apigen generate writes, for IMG.
	writeFile(t, root, "config/generated/deployment.yaml", "spec:\n  template:\n    spec:\n      containers:\n      - name: apiserver\n        image: example.com/heldout:v1\n")
	runMake := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(makeBin, append([]string{"--no-print-directory"}, args...)...)
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("make %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	help := runMake("help")
	for _, line := range strings.Split(help, "\n") {
		if len(line) > 100 {
			t.Errorf("make help has a line of %d columns:\n%s", len(line), line)
		}
	}
	for _, target := range []string{"help", "generate", "verify", "fmt", "vet", "lint", "test", "build", "run", "image", "docker-push", "certs", "deploy", "undeploy"} {
		if !regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(target) + ` +\S`).MatchString(help) {
			t.Errorf("make help does not describe %s:\n%s", target, help)
		}
	}
	for _, tc := range []struct{ target, want string }{
		// Outside a git repository the version is v0.0.0-dev.
		{"run", "go build -ldflags \"-X example.com/heldout/pkg/cmd/server.version=v0.0.0-dev\" -o bin/apiserver ./cmd/apiserver\n./bin/apiserver\n"},
		{"deploy", "go run ./cmd/apiserver certs\nkubectl apply -k config/default\n"},
		{"fmt", "go fmt ./...\n"},
		{"vet", "go vet ./...\n"},
		{"lint", "go run github.com/golangci/golangci-lint/v2/cmd/golangci-lint@" + GolangciLintVersion + " run ./...\n"},
		{"image", "docker build -t example.com/heldout:v1 .\n"},
		{"docker-push", "docker push example.com/heldout:v1\n"},
		{"undeploy", "kubectl delete -f config/generated/apiservice.yaml --ignore-not-found\nkubectl delete -k config/default --ignore-not-found\n"},
	} {
		if got := runMake("-n", tc.target); got != tc.want {
			t.Errorf("make -n %s runs:\n%s\nwant:\n%s", tc.target, got, tc.want)
		}
	}
	writeFile(t, root, "config/certs/kustomization.yaml", "kind: Component\n")
	if got, want := runMake("-n", "deploy"), "kubectl apply -k config/default\n"; got != want {
		t.Errorf("make -n deploy with certificates runs:\n%s\nwant:\n%s", got, want)
	}
}

func writeFile(t *testing.T, root, name, content string) {
	t.Helper()
	path := filepath.Join(root, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestGitignore asks git itself what a new project's .gitignore keeps out of "git status": the
// local mode's CA key, admin key and kubeconfig where the server puts them by default, the
// certs command's keys, built binaries, test binaries, coverage and editor files; and that it
// does not hide the sources.
func TestGitignore(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git on PATH")
	}
	root := newProject(t)
	if out, err := exec.Command(git, "-C", root, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	ignored := func(path string) bool {
		err := exec.Command(git, "-C", root, "check-ignore", "-q", "--no-index", path).Run()
		if exitErr, ok := err.(*exec.ExitError); ok && exitErr.ExitCode() == 1 {
			return false
		}
		if err != nil {
			t.Fatalf("git check-ignore %s: %v", path, err)
		}
		return true
	}
	for _, path := range []string{
		".apigen/kubeconfig", ".apigen/data/pki/ca.key", ".apigen/data/member/snap/db",
		"config/certs/ca.key", "config/certs/kustomization.yaml",
		"bin/apiserver", "apiserver", "pkg/apis/toys/v1/v1.test", "cover.out", "coverage.html",
		".idea/workspace.xml", ".vscode/settings.json", "pkg/apis/toys/v1/widget_types.go.swp", "go.work",
	} {
		if !ignored(path) {
			t.Errorf(".gitignore does not ignore %s", path)
		}
	}
	for _, path := range []string{
		"go.mod", "go.sum", "Makefile", "cmd/apiserver/main.go", "pkg/apis/toys/v1/widget_types.go",
		"pkg/apiserver/zz_generated.apiserver.go", "config/default/kustomization.yaml", "config/generated/deployment.yaml",
	} {
		if ignored(path) {
			t.Errorf(".gitignore ignores %s, which belongs in the repository", path)
		}
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
	before := tree(t, root)
	res, err := Init(root, InitOptions{Repo: "example.com/a", Domain: "a.io", Year: "2031"})
	if err != nil || len(res.Written) != 0 || len(res.Updated) != 0 || len(res.Skipped) != 13 {
		t.Errorf("second init: %+v, %v; want every file kept", res, err)
	}
	if diff := cmp.Diff(before, tree(t, root)); diff != "" {
		t.Errorf("second init changed the project (-before +after):\n%s", diff)
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
	want := Modules()
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
