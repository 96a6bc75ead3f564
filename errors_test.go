package apigen_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apigen-dev/apigen/cmd/apigen/cli"
)

// TestErrors runs "apigen generate" on every malformed project in testdata/errors and wants
// exit code 1, exactly the messages in the case's stderr.txt, no usage text and an untouched
// tree; -update rewrites stderr.txt instead (review the diff). A case holds only the files it
// needs; the test adds examples/wardle's go.mod and go.sum, so its module is
// example.com/wardle. A file named x.go.txt is copied as x.go: it lets a case hold Go that
// does not parse without making the repository's gofmt check fail.
func TestErrors(t *testing.T) { runCases(t, "testdata/errors", 1) }

// TestWarningCases runs "apigen generate" on every project in testdata/warnings, whose input
// the tools it was written for accept (an older controller-gen, openapi-gen, kube-apiserver):
// generation succeeds, and stderr is exactly the positioned warnings in stderr.txt.
func TestWarningCases(t *testing.T) { runCases(t, "testdata/warnings", 0) }

// runCases runs "apigen generate" on each case under dir and wants exit code wantCode and
// stderr.txt; a failing run must leave the tree as it was.
func runCases(t *testing.T, dir string, wantCode int) {
	cases, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatalf("no cases in %s", dir)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	// Runs with warnings or errors are never cached, but a lookup would still read the user's
	// result cache.
	t.Setenv("APIGEN_CACHE", "off")
	for _, dir := range cases {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			root := t.TempDir()
			copyCase(t, dir, root)
			before := snapshot(t, root)

			var stdout, stderr bytes.Buffer
			if err := os.Chdir(root); err != nil {
				t.Fatal(err)
			}
			code := (cli.Config{StdCache: stdCache}).Main([]string{"generate"}, &stdout, &stderr)
			if err := os.Chdir(wd); err != nil {
				t.Fatal(err)
			}

			got := stderr.String() // paths must already be relative to the working directory
			wantFile := filepath.Join(dir, "stderr.txt")
			if *update {
				if err := os.WriteFile(wantFile, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			} else {
				want, err := os.ReadFile(wantFile)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(string(want), got); diff != "" {
					t.Errorf("stderr (-want +got; go test -run %s -update rewrites it):\n%s", strings.Split(t.Name(), "/")[0], diff)
				}
			}
			if code != wantCode {
				t.Errorf("exit code %d, want %d", code, wantCode)
			}
			if strings.Contains(stderr.String(), "Usage:") {
				t.Errorf("stderr shows usage text:\n%s", stderr.String())
			}
			if wantCode == 0 {
				return
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout is not empty:\n%s", stdout.String())
			}
			if diff := cmp.Diff(before, snapshot(t, root)); diff != "" {
				t.Errorf("a failed run changed the tree (-before +after):\n%s", diff)
			}
		})
	}
}

// copyCase copies a case and examples/wardle's go.mod and go.sum into root, writing x.go.txt
// as x.go and leaving out stderr.txt.
func copyCase(t *testing.T, dir, root string) {
	t.Helper()
	copyTree(t, dir, root)
	if err := os.Remove(filepath.Join(root, "stderr.txt")); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go.txt") {
			return err
		}
		return os.Rename(path, strings.TrimSuffix(path, ".txt"))
	})
	if err != nil {
		t.Fatal(err)
	}
	useWardleModule(t, root)
}

// snapshot returns every file and directory under root with its content ("" for directories).
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			out[filepath.ToSlash(rel)+"/"] = ""
			return nil
		}
		data, err := os.ReadFile(path)
		out[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestMarkersCommand checks that "apigen markers" lists markers, arguments and aliases.
func TestMarkersCommand(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := (cli.Config{StdCache: stdCache}).Main([]string{"markers"}, &stdout, &stderr); code != 0 || stderr.Len() != 0 {
		t.Fatalf("exit code %d, stderr:\n%s", code, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{
		"Package markers",
		"Type markers",
		"  +groupName\n",
		"  +apigen:resource\n",
		"arg:     scope=<one of Namespaced, Cluster> (optional)",
		"alias:   +kubebuilder:resource\n",
		"  +apigen:subresource:status\n",
		"alias:   +kubebuilder:printcolumn\n",
		"arg:     JSONPath=<string>\n",
		"alias:   +kubebuilder:selectablefield\n",
		"example:\n      // +apigen:storageversion\n",
		"  +kubebuilder:validation:Minimum\n      specifies the minimum numeric value",
		"  +kubebuilder:validation:XValidation\n",
		"form:    +kubebuilder:validation:XValidation:rule=<string>, [fieldPath], [message],",
		"where:   in type and field comments\n",
		"  +kubebuilder:skipversion\n",
		"effect:  none, a warning where it is used: an aggregated API has no CustomResourceDefinition",
		// Declarative validation's tags, with validation-gen's docs, once each: not also as
		// controller-tools' schema markers of the same names, whose meaning apigen does not give them.
		"Declarative validation tags (validation-gen's;",
		"  +k8s:maxLength\n      Indicates that a string field has a limit on its length in characters",
		"  +k8s:immutable\n      Indicates that a field may not be updated\n",
		"form:    +k8s:format=<one of the values below>\n",
		"value:   k8s-short-name: This field holds a Kubernetes \"short name\"",
		"form:    +k8s:alpha([since: <string>])=<validation-tag>\n",
		"level:   beta\n",
		"  +k8s:supportsSubresource\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("apigen markers output lacks %q", want)
		}
	}
	// Each marker once (validation markers are accepted at two levels), and no line
	// longer than 100 columns.
	seen := map[string]bool{}
	for i, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "  +") {
			if seen[line] {
				t.Errorf("apigen markers lists %s twice", strings.TrimSpace(line))
			}
			seen[line] = true
		}
		if len(line) > 100 {
			t.Errorf("apigen markers line %d has %d columns, more than 100:\n%s", i+1, len(line), line)
		}
	}
}

// TestMissingListSuggestionCompiles pastes the list type that the missing_list_type case
// suggests into its types file: generate must then succeed, json tags and all.
func TestMissingListSuggestionCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a project twice")
	}
	t.Setenv("APIGEN_CACHE", "off")
	root := t.TempDir()
	copyCase(t, "testdata/errors/missing_list_type", root)
	t.Chdir(root)
	var stdout, stderr bytes.Buffer
	if code := (cli.Config{StdCache: stdCache}).Main([]string{"generate"}, &stdout, &stderr); code != 1 {
		t.Fatalf("generate without a list type: exit %d, want 1", code)
	}
	_, suggestion, ok := strings.Cut(strings.TrimSpace(stderr.String()), "; add: ")
	if !ok {
		t.Fatalf("no suggestion in:\n%s", stderr.String())
	}
	types := filepath.Join(root, "pkg/apis/toys/v1/toy_types.go")
	src, err := os.ReadFile(types)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(types, append(src, "\n"+suggestion+"\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	stderr.Reset()
	if code := (cli.Config{StdCache: stdCache}).Main([]string{"generate"}, &stdout, &stderr); code != 0 {
		t.Fatalf("generate with the suggested list type pasted: exit %d:\n%s", code, stderr.String())
	}
}

// TestErrorsReference keeps docs/reference/errors.md equal to what testdata/errors and
// testdata/warnings hold: for each case, what apigen generate prints (its stderr.txt, which
// TestErrors and TestWarningCases check against the real run), the input files the messages
// point at, and what to do (the case's fix.md, or the message's own remedy when it has none).
func TestErrorsReference(t *testing.T) {
	var b strings.Builder
	for _, section := range []struct{ title, dir, intro string }{
		{"Errors", "testdata/errors", "`apigen generate` exits 1, prints the errors and changes no file."},
		{"Warnings", "testdata/warnings", "`apigen generate` prints the warnings and generates: the input is one that the tool it was written for accepts."},
	} {
		fmt.Fprintf(&b, "## %s\n\n%s\n", section.title, section.intro)
		cases, err := filepath.Glob(filepath.Join(section.dir, "*"))
		if err != nil {
			t.Fatal(err)
		}
		for _, dir := range cases {
			writeCase(t, &b, dir)
		}
		b.WriteString("\n")
	}
	checkGenerated(t, "docs/reference/errors.md", "testdata cases", strings.TrimSuffix(b.String(), "\n"))
}

// positionedFile is the file a message starts with, as in pkg/apis/toys/v1/toy_types.go:6:1.
var positionedFile = regexp.MustCompile(`(?m)^(?:apigen: [a-z]+: )?([^\s:]+\.go):[0-9]+:[0-9]+: `)

// writeCase writes one case of the errors reference.
func writeCase(t *testing.T, b *strings.Builder, dir string) {
	t.Helper()
	name := filepath.Base(dir)
	title := strings.ToUpper(name[:1]) + strings.ReplaceAll(name[1:], "_", " ")
	stderr, err := os.ReadFile(filepath.Join(dir, "stderr.txt"))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(b, "\n### %s\n\n", title)
	if len(stderr) == 0 {
		b.WriteString("`apigen generate` prints nothing:\n")
	} else {
		fmt.Fprintf(b, "```\n%s```\n", stderr)
	}
	// The files the messages point at, in the order they first appear; the case's directory
	// has the rest (doc.go files with +groupName, mostly).
	var files []string
	for _, m := range positionedFile.FindAllStringSubmatch(string(stderr), -1) {
		if !slices.Contains(files, m[1]) {
			files = append(files, m[1])
		}
	}
	if len(files) == 0 {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (strings.HasSuffix(path, ".go") || strings.HasSuffix(path, ".go.txt")) {
				rel, _ := filepath.Rel(dir, path)
				files = append(files, strings.TrimSuffix(filepath.ToSlash(rel), ".txt"))
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range files {
		src, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f)))
		if os.IsNotExist(err) {
			src, err = os.ReadFile(filepath.Join(dir, filepath.FromSlash(f)+".txt"))
		}
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		fmt.Fprintf(b, "\n<details><summary><code>%s</code></summary>\n\n```go\n%s```\n\n</details>\n", f, ensureNewline(string(src)))
	}
	fix, err := os.ReadFile(filepath.Join(dir, "fix.md"))
	switch {
	case err == nil:
		fmt.Fprintf(b, "\n**What to do:** %s", ensureNewline(strings.TrimSpace(string(fix))))
	case os.IsNotExist(err):
		b.WriteString("\n**What to do:** what the message says.\n")
	default:
		t.Fatal(err)
	}
	fmt.Fprintf(b, "\nThe whole case: [%s](../../%s).\n", filepath.ToSlash(dir), filepath.ToSlash(dir))
}

func ensureNewline(s string) string {
	if s != "" && !strings.HasSuffix(s, "\n") {
		return s + "\n"
	}
	return s
}
