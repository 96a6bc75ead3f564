package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/modfile"
	"sigs.k8s.io/yaml"
)

// preCommitHook is the part of a pre-commit hook definition (.pre-commit-hooks.yaml, or a
// local hook in .pre-commit-config.yaml) that decides what runs.
type preCommitHook struct {
	ID            string `json:"id"`
	Entry         string `json:"entry"`
	Language      string `json:"language"`
	PassFilenames *bool  `json:"pass_filenames"`
	Files         string `json:"files"`
}

// run runs the hook's entry in dir as the pre-commit framework does with pass_filenames: false:
// the entry split into words (shlex; our entries have no quotes), no file names appended.
func (h preCommitHook) run(dir string, env []string) *cmdResult {
	argv := strings.Fields(h.Entry)
	return runCmd(cmdOpts{Dir: dir, Env: env, Timeout: buildTimeout}, lookPathIn(argv[0], env), argv[1:]...)
}

// lookPathIn finds name in the last PATH of env (exec.Command searches the test's own PATH).
func lookPathIn(name string, env []string) string {
	path := os.Getenv("PATH")
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, name)
		if info, err := os.Stat(p); err == nil && !info.IsDir() && info.Mode()&0o111 != 0 {
			return p
		}
	}
	return name
}

// check fails the test unless the hook runs once per commit (no file names) and is triggered
// by Go files.
func (h preCommitHook) check(t *testing.T, where string, languages ...string) {
	t.Helper()
	if h.PassFilenames == nil || *h.PassFilenames {
		t.Errorf("%s: hook %s must set pass_filenames: false (apigen verify takes no arguments)", where, h.ID)
	}
	if !strings.Contains(strings.Join(languages, " "), h.Language) || h.Language == "" {
		t.Errorf("%s: hook %s has language %q, want one of %v", where, h.ID, h.Language, languages)
	}
	// pre-commit matches files with Python's re.search; these patterns are RE2-compatible.
	if re, err := regexp.Compile(h.Files); err != nil || !re.MatchString("pkg/apis/toys/v1/widget_types.go") || re.MatchString("README.md") {
		t.Errorf("%s: hook %s has files %q, want a pattern matching Go files only (%v)", where, h.ID, h.Files, err)
	}
}

// TestToolProject is the pre-commit user's path with apigen as a tool of the project: init with
// --apigen-module-replace (apigen is not published, so the tool directive points at this
// checkout), go generate ./..., the pre-commit hooks on a current and a stale tree, and make test
// running each kind's scaffolded tests: the generated typed client, apply configurations and
// informer against the in-process server, and the generated fake clientset.
func TestToolProject(t *testing.T) {
	tc := tools(t)
	proj := filepath.Join(t.TempDir(), "tooled")
	if err := os.Mkdir(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	// The pre-commit framework would have installed apigen (language: golang) on the hook's PATH.
	env := append(append([]string{}, goEnv...), "PATH="+filepath.Dir(tc.apigen)+string(os.PathListSeparator)+os.Getenv("PATH"))
	apigen := func(args ...string) *cmdResult {
		return runCmd(cmdOpts{Dir: proj, Env: env, Timeout: buildTimeout}, tc.apigen, args...)
	}

	// --- 1. init with apigen as a tool, new-api -------------------------------------------
	r := mustSucceed(t, apigen("init", "--repo", "example.com/tooled", "--domain", "tooled.io", "--apigen-module-replace", tc.root))
	t.Logf("apigen init took %s", r.Took.Round(time.Millisecond))
	gomod := readFile(t, filepath.Join(proj, "go.mod"))
	f, err := modfile.Parse("go.mod", []byte(gomod), nil)
	if err != nil {
		t.Fatal(err)
	}
	hasTool := len(f.Tool) == 1 && f.Tool[0].Path == modulePath+"/cmd/apigen"
	hasReplace := len(f.Replace) == 1 && f.Replace[0].Old.Path == modulePath && f.Replace[0].New.Path == tc.root
	if !hasTool || !hasReplace {
		t.Fatalf("go.mod should have the tool directive %s/cmd/apigen and replace %s => %s:\n%s", modulePath, modulePath, tc.root, gomod)
	}
	mustSucceed(t, apigen("new-api", "--group", "toys", "--version", "v1", "--kind", "Widget"))
	mustSucceed(t, apigen("new-api", "--group", "toys", "--version", "v1", "--kind", "Gadget", "--namespaced=false", "--status=false"))
	// A kind whose resource client-go's fake clientset would guess wrong ("toies").
	mustSucceed(t, apigen("new-api", "--group", "toys", "--version", "v1", "--kind", "Toy"))

	// --- 2. go generate ./... runs go tool apigen generate --------------------------------
	r = mustSucceed(t, runCmd(cmdOpts{Dir: proj, Env: env, Timeout: buildTimeout}, "go", "generate", "./..."))
	t.Logf("go generate ./... took %s", r.Took.Round(time.Millisecond))
	for _, p := range []string{"pkg/apis/toys/v1/zz_generated.register.go", "pkg/registry/toys/widget/zz_generated.storage.go", "pkg/cmd/server/servertest/zz_generated.servertest.go"} {
		if _, err := os.Stat(filepath.Join(proj, p)); err != nil {
			t.Errorf("go generate ./... did not generate %s: %v\n%s", p, err, r)
		}
	}

	// --- 3. pre-commit hooks: exit 0 on a current tree, 1 on a stale one --------------------
	var offered []preCommitHook
	if err := yaml.Unmarshal([]byte(readFile(t, filepath.Join(tc.root, ".pre-commit-hooks.yaml"))), &offered); err != nil {
		t.Fatalf(".pre-commit-hooks.yaml: %v", err)
	}
	hooks := map[string]preCommitHook{}
	for _, h := range offered {
		hooks[h.ID] = h
	}
	verify, generate := hooks["apigen-verify"], hooks["apigen-generate"]
	if verify.Entry != "apigen verify" || generate.Entry != "apigen generate" {
		t.Fatalf(".pre-commit-hooks.yaml should offer apigen-verify (entry: apigen verify) and apigen-generate (entry: apigen generate), got %+v", offered)
	}
	verify.check(t, ".pre-commit-hooks.yaml", "golang", "system")
	generate.check(t, ".pre-commit-hooks.yaml", "golang", "system")

	var config struct {
		Repos []struct {
			Repo  string          `json:"repo"`
			Hooks []preCommitHook `json:"hooks"`
		} `json:"repos"`
	}
	if err := yaml.Unmarshal([]byte(readFile(t, filepath.Join(proj, ".pre-commit-config.yaml"))), &config); err != nil {
		t.Fatalf("scaffolded .pre-commit-config.yaml: %v", err)
	}
	if len(config.Repos) != 1 || config.Repos[0].Repo != "local" || len(config.Repos[0].Hooks) != 1 {
		t.Fatalf("scaffolded .pre-commit-config.yaml should have one local hook, got %+v", config)
	}
	local := config.Repos[0].Hooks[0]
	if local.Entry != "go tool apigen verify" {
		t.Errorf("the scaffolded local hook should run the project's tool, go tool apigen verify; it runs %q", local.Entry)
	}
	local.check(t, "scaffolded .pre-commit-config.yaml", "system")

	for name, h := range map[string]preCommitHook{"apigen-verify": verify, "local apigen-verify": local} {
		if r := h.run(proj, env); r.ExitCode != 0 || r.Stdout != "" {
			t.Errorf("hook %s on a current project: want exit 0 and no output, got:\n%s", name, r)
		}
	}
	widgetFile := filepath.Join(proj, "pkg/apis/toys/v1/widget_types.go")
	current := readFile(t, widgetFile)
	stale := strings.Replace(current, "\tFoo string `json:\"foo,omitempty\"`\n",
		"\tFoo string `json:\"foo,omitempty\"`\n\n\t// Note is a free-form note.\n\t// +optional\n\tNote string `json:\"note,omitempty\"`\n", 1)
	if stale == current {
		t.Fatalf("the scaffolded widget_types.go has no Foo field to add a field after:\n%s", current)
	}
	writeFile(t, widgetFile, stale)
	for name, h := range map[string]preCommitHook{"apigen-verify": verify, "local apigen-verify": local} {
		r := h.run(proj, env)
		if r.ExitCode != 1 || !regexp.MustCompile(`(?m)^\+.*\bnote\b`).MatchString(r.Stdout) {
			t.Errorf("hook %s on a stale project: want exit 1 and a diff adding \"note\", got:\n%s", name, r)
		}
	}
	mustSucceed(t, generate.run(proj, env))
	if r := verify.run(proj, env); r.ExitCode != 0 {
		t.Errorf("apigen-verify after the apigen-generate hook: want exit 0, got:\n%s", r)
	}
	if _, err := exec.LookPath("make"); err == nil {
		if r := runCmd(cmdOpts{Dir: proj, Env: env}, "make", "verify"); r.ExitCode != 0 {
			t.Errorf("the scaffolded make verify on a current project: want exit 0, got:\n%s", r)
		}
	}

	// --- 4. make test: the scaffolded per-kind tests against the in-process server ---------
	name, args := "go", []string{"test", "./..."}
	if _, err := exec.LookPath("make"); err == nil {
		name, args = "make", []string{"test"}
	}
	r = mustSucceed(t, runCmd(cmdOpts{Dir: proj, Env: env, Timeout: buildTimeout}, name, args...))
	t.Logf("%s %s took %s", name, strings.Join(args, " "), r.Took.Round(time.Millisecond))
	if !regexp.MustCompile(`(?m)^ok\s+example\.com/tooled/pkg/apis/toys/v1\s`).MatchString(r.Stdout) {
		t.Errorf("the scaffolded tests in pkg/apis/toys/v1 did not run and pass:\n%s", r)
	}
	v := mustSucceed(t, runCmd(cmdOpts{Dir: proj, Env: env, Timeout: buildTimeout}, "go", "test", "-v", "-run", "TestWidget|TestGadget|TestToy", "./pkg/apis/toys/v1"))
	for _, test := range []string{"TestWidget", "TestGadget", "TestToy", "TestWidgetFake", "TestGadgetFake", "TestToyFake"} {
		if !strings.Contains(v.Stdout, "--- PASS: "+test+" ") {
			t.Errorf("the scaffolded %s did not pass:\n%s", test, v)
		}
	}
}
