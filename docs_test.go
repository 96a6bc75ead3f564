package apigen_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/apigen-dev/apigen/cmd/apigen/cli"
)

// trackedFiles lists the repository's files as git tracks them, skipping the test when the
// tree is not a git checkout (a module downloaded from the proxy).
func trackedFiles(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("git", "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("git ls-files: %v (not a git checkout?)", err)
	}
	var files []string
	for _, f := range strings.Split(string(out), "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	return files
}

// processWords are words that tell of how a change was made rather than of the product: the
// work's sessions, the people beside it, its branch names and the paths of one machine. Each
// is narrow enough to leave the product's own words alone (an HTTP session, a test helper).
var processWords = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\b(this|last|next|earlier|previous|another|that) session\b`),
	regexp.MustCompile(`(?i)\bsessions? [0-9]+`),
	regexp.MustCompile(`(?i)\bthe other helpe[r]s?\b`),
	// (Brackets keep the patterns from matching their own text.)
	regexp.MustCompile(`(?i)\b(other|another|two) (helpe[r]s|enginee[r]s)'? ?(builds?|tests?|runs?|work)\b`),
	regexp.MustCompile(`(?i)\banother enginee[r]`),
	regexp.MustCompile(`\bh3[0-9][a-z]+\b`),
	regexp.MustCompile(`/tmp/h[0-9]`),
	regexp.MustCompile(`/work/[a-z]`),
	regexp.MustCompile(`/root/[A-Za-z.]`),
}

// TestProcessWords pins what processWords catch and what they leave alone.
func TestProcessWords(t *testing.T) {
	caught := func(line string) bool {
		return slices.ContainsFunc(processWords, func(re *regexp.Regexp) bool { return re.MatchString(line) })
	}
	for _, line := range []string{
		// Split, so that this file passes its own test.
		"as measured this " + "session", "session" + " 35's changes", "the other " + "helper said",
		"two other " + "engineers' builds and tests", "another " + "engineer's builds", "on h" + "35cold",
		"APIGEN=/tmp/h" + "34enum/apigen", "main's in /wor" + "k/main", "/roo" + "t/go/pkg/mod",
	} {
		if !caught(line) {
			t.Errorf("%q is not caught", line)
		}
	}
	for _, line := range []string{
		"an HTTP session", "the session type of the load generator", "a test helper", "helper functions",
		"an engineering trade-off", "h2c", "sha256 h1:abc", `bytes.Contains(src, []byte("/root/"))`,
	} {
		if caught(line) {
			t.Errorf("%q is caught", line)
		}
	}
}

// TestTreeSpeaksOfTheProduct fails on a tracked file, Go included, that speaks of how it was
// made (see processWords): those notes belong in commit messages and issues.
func TestTreeSpeaksOfTheProduct(t *testing.T) {
	for _, f := range trackedFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			if os.IsNotExist(err) { // deleted in the working tree
				continue
			}
			t.Fatal(err)
		}
		if bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0 {
			continue // binary
		}
		for i, line := range strings.Split(string(data), "\n") {
			for _, re := range processWords {
				if m := re.FindString(line); m != "" {
					t.Errorf("%s:%d: %q speaks of how the tree was made, not of the product (%s)", f, i+1, m, re)
				}
			}
		}
	}
}

// docPages are the Markdown pages users read: README.md, the repository's other top-level
// pages and everything under docs/.
func docPages(t *testing.T) []string {
	t.Helper()
	pages := []string{"README.md", "CONTRIBUTING.md", "CHANGELOG.md"}
	err := filepath.WalkDir("docs", func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			pages = append(pages, filepath.ToSlash(path))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return pages
}

var (
	mdFence   = regexp.MustCompile("(?s)\n```.*?\n```")
	mdCode    = regexp.MustCompile("`[^`]+`")
	mdLink    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	mdHeading = regexp.MustCompile(`(?m)^#{1,6} +(.+?) *#*$`)
	slugDrop  = regexp.MustCompile(`[^\p{L}\p{N} _-]`)
)

// prose is a Markdown page without its code blocks and code spans, where a "](" is no link.
func prose(text string) string {
	return mdCode.ReplaceAllString(mdFence.ReplaceAllString("\n"+text, "\n"), "")
}

// anchors are the fragment names GitHub gives a page's headings: lower case, punctuation but
// hyphens and underscores dropped, spaces as hyphens, and -1, -2, ... on repeats.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, m := range mdHeading.FindAllStringSubmatch(mdFence.ReplaceAllString("\n"+text, "\n"), -1) {
		slug := strings.ReplaceAll(slugDrop.ReplaceAllString(strings.ToLower(m[1]), ""), " ", "-")
		if n := seen[slug]; n > 0 {
			out[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
	}
	return out
}

// TestDocLinks follows every relative link of README.md and docs/ to its file, and every
// fragment to a heading of the page it names.
func TestDocLinks(t *testing.T) {
	for _, page := range docPages(t) {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(prose(string(data)), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, fragment, _ := strings.Cut(target, "#")
			path := page
			if file != "" {
				path = filepath.Join(filepath.Dir(page), file)
			}
			info, err := os.Stat(path)
			if err != nil {
				t.Errorf("%s: link %q: %v", page, target, err)
				continue
			}
			if fragment == "" || info.IsDir() || !strings.HasSuffix(path, ".md") {
				continue
			}
			linked, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !anchors(string(linked))[fragment] {
				t.Errorf("%s: link %q: %s has no heading #%s", page, target, path, fragment)
			}
		}
	}
}

// runCLI runs apigen in process and returns what it printed; it fails on a non-zero exit.
func runCLI(t *testing.T, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := (cli.Config{StdCache: stdCache}).Main(args, &stdout, &stderr); code != 0 {
		t.Fatalf("apigen %s: exit %d\n%s", strings.Join(args, " "), code, stderr.String())
	}
	return stdout.String()
}

// checkGenerated compares the part of a doc page between its BEGIN and END comments with want,
// and rewrites it with -update.
func checkGenerated(t *testing.T, page, name, want string) {
	t.Helper()
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	begin, end := "<!-- BEGIN "+name+" -->\n", "<!-- END "+name+" -->"
	before, rest, ok := strings.Cut(string(data), begin)
	got, after, ok2 := strings.Cut(rest, end)
	if !ok || !ok2 {
		t.Fatalf("%s has no %q ... %q block", page, begin, end)
	}
	if got == want {
		return
	}
	if *update {
		if err := os.WriteFile(page, []byte(before+begin+want+end+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s is stale (-want +got; go test -run %s -update . rewrites it):\n%s", page, t.Name(), cmp.Diff(want, got))
}

// TestMarkersReference keeps docs/reference/markers.md's full list equal to what
// apigen markers prints, from the same registry.
func TestMarkersReference(t *testing.T) {
	checkGenerated(t, "docs/reference/markers.md", "apigen markers", "```\n"+runCLI(t, "markers")+"```\n")
}

// TestCommandsReference keeps docs/reference/apigen.md equal to the help of every command of
// apigen's cobra tree, as apigen <command> --help prints it.
func TestCommandsReference(t *testing.T) {
	root := runCLI(t, "--help")
	var commands []string
	_, list, _ := strings.Cut(root, "Available Commands:\n")
	for _, line := range strings.Split(list, "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			break
		}
		if name := fields[0]; name != "help" && name != "completion" {
			commands = append(commands, name)
		}
	}
	slices.Sort(commands)
	var b strings.Builder
	fmt.Fprintf(&b, "## apigen\n\n```\n%s```\n", root)
	for _, c := range commands {
		fmt.Fprintf(&b, "\n## apigen %s\n\n```\n%s```\n", c, runCLI(t, c, "--help"))
	}
	// init's --year defaults to the clock's year: the page says so rather than name one.
	year := fmt.Sprintf("(default %q)", strconv.Itoa(time.Now().Year()))
	checkGenerated(t, "docs/reference/apigen.md", "apigen --help", strings.ReplaceAll(b.String(), year, "(default: this year)"))
}

// TestServerFlagsReference keeps docs/reference/server-flags.md equal to the --help of
// examples/wardle's server and of its certs command, built as a user builds it.
func TestServerFlagsReference(t *testing.T) {
	if testing.Short() {
		t.Skip("builds examples/wardle's server")
	}
	bin := filepath.Join(t.TempDir(), "apiserver")
	build := exec.Command("go", "build", "-o", bin, "./cmd/apiserver")
	build.Dir = filepath.Join("examples", "wardle")
	build.Env = append(os.Environ(), "GOWORK=off", "GOTOOLCHAIN=local")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/apiserver in examples/wardle: %v\n%s", err, out)
	}
	help := func(args ...string) string {
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(bin, args...)
		cmd.Dir = t.TempDir() // --help must write nothing, but if it did, not into the tree
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil || stderr.Len() != 0 {
			t.Fatalf("apiserver %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
		return stdout.String()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## apiserver\n\n```\n%s```\n", help("--help"))
	fmt.Fprintf(&b, "\n## apiserver certs\n\n```\n%s```\n", help("certs", "--help"))
	checkGenerated(t, "docs/reference/server-flags.md", "apiserver --help", b.String())
}

// TestContributingListsEveryTarget: CONTRIBUTING.md names every target of the Makefile, so a
// new target is documented where contributors look.
func TestContributingListsEveryTarget(t *testing.T) {
	makefile, err := os.ReadFile("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	contributing, err := os.ReadFile("CONTRIBUTING.md")
	if err != nil {
		t.Fatal(err)
	}
	targets := regexp.MustCompile(`(?m)^([a-z][a-z-]*):`).FindAllStringSubmatch(string(makefile), -1)
	if len(targets) == 0 {
		t.Fatal("found no target in the Makefile")
	}
	for _, m := range targets {
		if m[1] == "all" { // the default goal, build
			continue
		}
		if !strings.Contains(string(contributing), "`make "+m[1]+"`") {
			t.Errorf("CONTRIBUTING.md does not list `make %s`", m[1])
		}
	}
}

// TestUpgradeChecklist: every file of the loader that holds assumptions about another tool
// (generators/loader/assume_*.go) has a test of its own (TestAssume... in its _test.go), and
// CONTRIBUTING.md's "Upgrading a dependency" names the file and each of those tests, so the
// checklist lists all there is to check on an upgrade.
func TestUpgradeChecklist(t *testing.T) {
	contributing, err := os.ReadFile("CONTRIBUTING.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(contributing), "\n## Upgrading a dependency\n")
	if !ok {
		t.Fatal(`CONTRIBUTING.md has no "Upgrading a dependency" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	files, err := filepath.Glob("generators/loader/assume_*.go")
	if err != nil {
		t.Fatal(err)
	}
	files = slices.DeleteFunc(files, func(name string) bool { return strings.HasSuffix(name, "_test.go") })
	if len(files) == 0 {
		t.Fatal("no generators/loader/assume_*.go")
	}
	testFunc := regexp.MustCompile(`(?m)^func (TestAssume\w+)\(t \*testing\.T\)`)
	for _, name := range files {
		if !strings.Contains(section, "("+filepath.ToSlash(name)+")") {
			t.Errorf("CONTRIBUTING.md's upgrade checklist does not name %s", name)
		}
		src, err := os.ReadFile(strings.TrimSuffix(name, ".go") + "_test.go")
		if err != nil {
			t.Errorf("%s has no test file: %v", name, err)
			continue
		}
		tests := testFunc.FindAllStringSubmatch(string(src), -1)
		if len(tests) == 0 {
			t.Errorf("%s_test.go declares no TestAssume... test", strings.TrimSuffix(name, ".go"))
		}
		for _, m := range tests {
			if !strings.Contains(section, "`"+m[1]+"`") {
				t.Errorf("CONTRIBUTING.md's upgrade checklist does not name %s (%s)", m[1], name)
			}
		}
	}
}

// generatedPattern names each generated file of the examples as docs/reference/generated-files.md
// lists it: the first pattern that matches rewrites the path, which the page must list.
var generatedPattern = []struct {
	re   *regexp.Regexp
	name string
}{
	{regexp.MustCompile(`^pkg/apis/[^/]+/install/[^/]+$`), "pkg/apis/<group>/install/$0"},
	{regexp.MustCompile(`^pkg/apis/[^/]+/[^/]+/[^/]+$`), "pkg/apis/<group>/<version>/$0"},
	{regexp.MustCompile(`^pkg/registry/[^/]+/[^/]+/[^/]+$`), "pkg/registry/<group>/<kind>/$0"},
	{regexp.MustCompile(`^pkg/generated/(clientset|listers|informers|applyconfiguration)/.*`), "pkg/generated/{clientset,listers,informers,applyconfiguration}/"},
	{regexp.MustCompile(`^pkg/cmd/server/zz_generated\.[^/]+\.go$`), "pkg/cmd/server/zz_generated.*.go"},
	{regexp.MustCompile(`^pkg/cmd/server/servertest/.*`), "pkg/cmd/server/servertest/"},
	{regexp.MustCompile(`^config/generated/[^/]+\.yaml$`), "config/generated/*.yaml"},
	{regexp.MustCompile(`^config/generated/([^/]+)/.*`), "config/generated/$1/"},
}

// TestGeneratedFilesReference holds docs/reference/generated-files.md to what apigen generated in
// the examples: every generated file of theirs is listed (under its pattern), and every listed
// path is one of them, but for the few the examples do not need (each with its reason).
func TestGeneratedFilesReference(t *testing.T) {
	notInExamples := map[string]string{
		"pkg/apis/<group>/<version>/zz_generated.validations.go":     "validation-gen's, for +k8s: tags, which the examples do not use (test/e2e's declarative validation projects do)",
		"pkg/apis/<group>/<version>/zz_generated.conversion_none.go": "for versions without conversion code, which the examples write (testdata/builds/strategy_none and the matrix's Flux row have none)",
	}
	page, err := os.ReadFile("docs/reference/generated-files.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, _ := strings.Cut(string(page), "## What apigen writes\n\n```\n")
	block, _, _ = strings.Cut(block, "```")
	listed := map[string]bool{}
	for _, line := range strings.Split(block, "\n") {
		if f := strings.Fields(line); len(f) > 0 && !strings.HasPrefix(line, " ") {
			listed[f[0]] = false
		}
	}
	if len(listed) == 0 {
		t.Fatal("docs/reference/generated-files.md has no list under \"What apigen writes\"")
	}
	for _, file := range trackedFiles(t) {
		example, rel, ok := strings.Cut(strings.TrimPrefix(file, "examples/"), "/")
		if !ok || !strings.HasPrefix(file, "examples/") {
			continue
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if head := data[:min(len(data), 1024)]; !bytes.Contains(head, []byte("Code generated by apigen. DO NOT EDIT.")) {
			continue
		}
		name := rel
		for _, p := range generatedPattern {
			if m := p.re.FindStringSubmatchIndex(rel); m != nil {
				last := rel[strings.LastIndex(rel, "/")+1:]
				name = string(p.re.ExpandString(nil, strings.ReplaceAll(p.name, "$0", last), rel, m))
				break
			}
		}
		if _, ok := listed[name]; !ok {
			t.Errorf("examples/%s/%s is generated; docs/reference/generated-files.md does not list %s", example, rel, name)
			continue
		}
		listed[name] = true
	}
	for name, seen := range listed {
		why, known := notInExamples[name]
		switch {
		case !seen && !known:
			t.Errorf("docs/reference/generated-files.md lists %s, which apigen generated in no example", name)
		case seen && known:
			t.Errorf("%s is generated in an example now; remove it from notInExamples (%s)", name, why)
		}
	}
}
