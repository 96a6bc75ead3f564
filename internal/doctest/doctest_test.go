package doctest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const page = "# A page\n\n" +
	"<!-- not run: installs a release -->\n```sh\nexit 3\n```\n\n" +
	"```sh\nmkdir proj && cd proj\necho one > a.txt\n```\n\n" +
	"Prose, and a block in another language, which is not run:\n\n```go\npanic(1)\n```\n\n" +
	"<!-- file: dir/b.txt -->\n```text\nwritten $NOT_EXPANDED\n```\n\n" +
	"<!-- background: sh -c; ready: test -f started -->\n```sh\n" +
	"sh -c 'touch started; sleep 600'   # keeps running\ncat dir/b.txt > c.txt\n```\n\n" +
	"```sh\nfalse | cat   # a pipeline's status is its last command's\n```\n\n" +
	"<!-- patch -->\n```diff\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1,2 @@\n one\n+two\n```\n"

// TestRun runs a page: blocks in order in one shell, a skipped block left out, a file written
// verbatim, a background command started, waited for and stopped at the page's end.
func TestRun(t *testing.T) {
	steps, err := Parse("page.md", []byte(page))
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 6 || !steps[5].Patch || steps[0].Skip != "installs a release" || steps[2].File != "dir/b.txt" ||
		steps[3].Background != "sh -c" || steps[3].Ready != "test -f started" || steps[1].Line != 8 {
		t.Fatalf("steps: %+v", steps)
	}
	dir, logs := t.TempDir(), t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	workdir, out, err := Run(ctx, Script(steps), dir, logs, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if workdir != filepath.Join(dir, "proj") {
		t.Errorf("workdir %s, want %s/proj", workdir, dir)
	}
	files, err := Files(workdir)
	if err != nil {
		t.Fatal(err)
	}
	if string(files["a.txt"]) != "one\ntwo\n" || string(files["c.txt"]) != "written $NOT_EXPANDED\n" {
		t.Errorf("files: %q", files)
	}
	if !strings.Contains(string(out), "doctest: page.md:8") {
		t.Errorf("the output does not say which block ran:\n%s", out)
	}
}

// TestRunFails: the first failing command stops the run, and a background command that exits
// before it is ready fails it with its output.
func TestRunFails(t *testing.T) {
	for name, page := range map[string]string{
		"command":    "```sh\nfalse\ntouch after\n```\n",
		"background": "<!-- background: sh; ready: false -->\n```sh\nsh -c 'echo gone; exit 1'\n```\n",
	} {
		t.Run(name, func(t *testing.T) {
			steps, err := Parse("page.md", []byte(page))
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			_, out, err := Run(context.Background(), Script(steps), dir, t.TempDir(), nil)
			if err == nil {
				t.Fatalf("the run succeeded:\n%s", out)
			}
			if _, err := os.Stat(filepath.Join(dir, "after")); err == nil {
				t.Error("a command after the failing one ran")
			}
			if name == "background" && !strings.Contains(string(out), "gone") {
				t.Errorf("the background command's output is not shown:\n%s", out)
			}
		})
	}
}

// TestParseErrors: a marker must be followed by its block, and a background command must be a
// line of it.
func TestParseErrors(t *testing.T) {
	for _, page := range []string{
		"<!-- not run: x -->\ntext\n```sh\n```\n",
		"<!-- file: a -->\n",
		"<!-- background: make run -->\n```sh\nmake run\n```\n",
		"<!-- background: make run; ready: true -->\n```sh\nmake build\n```\n",
		"```sh\nunclosed\n",
	} {
		if _, err := Parse("page.md", []byte(page)); err == nil {
			t.Errorf("no error for %q", page)
		}
	}
}
