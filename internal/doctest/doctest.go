// Package doctest runs a documentation page as its reader would: the page's shell blocks in
// order, in one shell, with the files it shows written where it says. The quick start and the
// tutorials are run this way by their test and by hack/tutorials.sh, which builds the tutorial
// project from them, so the pages cannot drift from what the commands do.
//
// A page marks what a reader does by hand with an HTML comment on the line before a fenced
// block; the comments do not show when the page is rendered:
//
//	<!-- not run: why -->                     the next block is not run (installing a release)
//	<!-- file: path/in/project.go -->         the next block is that file's whole content,
//	                                          written relative to the shell's directory
//	<!-- patch -->                            the next block is a unified diff, applied with
//	                                          patch -p1 (an edit of a file shown before)
//	<!-- background: make run; ready: cmd --> in the next block, the line that starts with
//	                                          "make run" keeps running (a second terminal):
//	                                          it is started in the background and cmd is
//	                                          retried until it succeeds before the next line
//
// Every other ```sh block is run, with bash's -e and -u: the first command that fails stops the
// run, and a pipeline's status is its last command's, as in a reader's shell (so that
// "cmd 2>&1 | grep message" checks that cmd prints message, failing or not). A background
// command keeps running until the next one starts or its page ends, as a reader stops the
// server with Ctrl-C before starting it again or going on to the next page. $EDITOR is the
// reader's: the runner sets it to true, since the edits are the file blocks.
package doctest

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"
)

// Step is one fenced block of a page, with what its marker says to do with it.
type Step struct {
	Page, Lang, Body string
	Line             int    // the fence's line in the page, from 1
	Skip             string // the reason, when the block is not run
	File             string // the path the block is written to, for a file block
	Patch            bool   // the block is a diff to apply
	Background       string // the line prefix of the command that keeps running
	Ready            string // the command that succeeds once the background command is ready
}

var (
	marker = regexp.MustCompile(`^<!-- (not run|file|background|patch)(?:: (.*?))? -->$`)
	fence  = regexp.MustCompile("^```([a-z]*)")
)

// Parse returns the steps of a page: every ```sh block and every block marked with a file
// comment, in order. A marker that is not followed by a block is an error.
func Parse(page string, data []byte) ([]Step, error) {
	var steps []Step
	var pending *Step
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if m := marker.FindStringSubmatch(text); m != nil {
			pending = &Step{Page: page}
			switch m[1] {
			case "not run":
				pending.Skip = m[2]
			case "file":
				pending.File = strings.TrimSpace(m[2])
			case "patch":
				pending.Patch = true
			case "background":
				cmd, ready, ok := strings.Cut(m[2], "; ready: ")
				if !ok {
					return nil, fmt.Errorf("%s:%d: want <!-- background: <command>; ready: <command> -->", page, line)
				}
				pending.Background, pending.Ready = strings.TrimSpace(cmd), strings.TrimSpace(ready)
			}
			continue
		}
		m := fence.FindStringSubmatch(text)
		if m == nil {
			if pending != nil && strings.TrimSpace(text) != "" {
				return nil, fmt.Errorf("%s:%d: a doctest comment must come right before a fenced block", page, line-1)
			}
			continue
		}
		step := Step{Page: page, Lang: m[1], Line: line}
		if pending != nil {
			step = *pending
			step.Lang, step.Line = m[1], line
			pending = nil
		}
		var body strings.Builder
		closed := false
		for sc.Scan() {
			line++
			if strings.HasPrefix(sc.Text(), "```") {
				closed = true
				break
			}
			body.WriteString(sc.Text() + "\n")
		}
		if !closed {
			return nil, fmt.Errorf("%s:%d: the block is not closed", page, step.Line)
		}
		step.Body = body.String()
		if step.Background != "" && !strings.Contains("\n"+step.Body, "\n"+step.Background) {
			return nil, fmt.Errorf("%s:%d: no line of the block starts with %q", page, step.Line, step.Background)
		}
		if step.File != "" || step.Patch || step.Lang == "sh" {
			steps = append(steps, step)
		}
	}
	if pending != nil {
		return nil, fmt.Errorf("%s:%d: a doctest comment is not followed by a block", page, line)
	}
	return steps, sc.Err()
}

// Script returns the bash script that runs the pages' steps in order. It stops at the first
// command that fails, saying at which block of which page; a background command's output goes to
// $DOCTEST_LOGS/<n>.log, and the script writes its last working directory (the project the
// pages made) to $DOCTEST_LOGS/workdir.
func Script(pages ...[]Step) string {
	var b strings.Builder
	b.WriteString(`set -eu # no pipefail, as in a reader's shell: a pipeline's status is its last command's
background=() # each in a session and process group of its own (setsid), which stop_background ends
stop_background() {
	local pid
	for pid in "${background[@]}"; do
		kill -TERM -- "-$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
		# make exits at once; the server it started takes a moment to stop and free its port.
		local deadline=$((SECONDS + 60))
		while kill -0 -- "-$pid" 2>/dev/null; do
			if ((SECONDS > deadline)); then kill -KILL -- "-$pid" 2>/dev/null || true; fi
			sleep 0.2
		done
	done
	background=()
}
trap 'pwd > "$DOCTEST_LOGS/workdir"; stop_background' EXIT
trap 'exit 143' TERM INT
wait_ready() { # wait_ready <pid> <log> <command>: retry the command until it succeeds
	local deadline=$((SECONDS + ${DOCTEST_READY_SECONDS:-300}))
	until eval "$3" >/dev/null 2>&1; do
		if ! kill -0 "$1" 2>/dev/null; then
			echo "doctest: the background command exited; its output:" >&2; cat "$2" >&2; return 1
		fi
		if ((SECONDS > deadline)); then
			echo "doctest: not ready after ${DOCTEST_READY_SECONDS:-300}s: $3; the background command's output:" >&2; cat "$2" >&2; return 1
		fi
		sleep 1
	done
}
`)
	n := 0
	for _, steps := range pages {
		for _, s := range steps {
			fmt.Fprintf(&b, "\n# %s:%d\n", s.Page, s.Line)
			switch {
			case s.Skip != "":
				fmt.Fprintf(&b, "# not run: %s\n", s.Skip)
			case s.File != "":
				fmt.Fprintf(&b, "echo %s >&2\nmkdir -p \"$(dirname %s)\"\ncat > %s <<'DOCTEST_EOF'\n%sDOCTEST_EOF\n",
					shellQuote("doctest: "+s.Page+": writing "+s.File), shellQuote(s.File), shellQuote(s.File), s.Body)
			case s.Patch:
				fmt.Fprintf(&b, "echo %s >&2\npatch -p1 --forward --no-backup-if-mismatch <<'DOCTEST_EOF'\n%sDOCTEST_EOF\n",
					shellQuote(fmt.Sprintf("doctest: %s:%d: patch", s.Page, s.Line)), s.Body)
			default:
				fmt.Fprintf(&b, "echo %s >&2\n", shellQuote(fmt.Sprintf("doctest: %s:%d", s.Page, s.Line)))
				body := s.Body
				if s.Background != "" {
					before, rest, _ := strings.Cut("\n"+body, "\n"+s.Background)
					cmd, after, _ := strings.Cut(s.Background+rest, "\n")
					cmd, _, _ = strings.Cut(cmd, " #") // the comment a reader reads
					n++
					log := fmt.Sprintf("\"$DOCTEST_LOGS/%d.log\"", n)
					body = strings.TrimPrefix(before, "\n") + "\n" +
						fmt.Sprintf("stop_background\nsetsid %s >%s 2>&1 &\nbackground+=($!)\nwait_ready $! %s %s\n", cmd, log, log, shellQuote(s.Ready)) +
						after
				}
				b.WriteString(body)
			}
		}
		b.WriteString("stop_background\n")
	}
	return b.String()
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// Run runs script with bash in dir, with env added to the environment and the logs of its
// background commands in logs. It returns the directory the script ended in and what it printed.
// When ctx ends the script is stopped, and it stops its background commands.
func Run(ctx context.Context, script, dir, logs string, env []string) (workdir string, out []byte, err error) {
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), env...), "DOCTEST_LOGS="+logs)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = time.Minute
	out, err = cmd.CombinedOutput()
	wd, rerr := os.ReadFile(filepath.Join(logs, "workdir"))
	if rerr != nil && err == nil {
		err = rerr
	}
	return strings.TrimSpace(string(wd)), out, err
}

// Pages are the pages that make the tutorial project, in the order a reader follows them, and
// Project is where the project they make is kept, relative to the repository's root.
var (
	Pages   = []string{"docs/quickstart.md", "docs/tutorials/first-api.md", "docs/tutorials/versions.md"}
	Project = "examples/toys"
)

// ParseFiles reads and parses pages, relative to root.
func ParseFiles(root string, pages ...string) ([][]Step, error) {
	var all [][]Step
	for _, page := range pages {
		data, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			return nil, err
		}
		steps, err := Parse(page, data)
		if err != nil {
			return nil, err
		}
		all = append(all, steps)
	}
	return all, nil
}

// Skipped reports whether rel, a slash-separated path in a project, is local state rather
// than part of the project: what the scaffolded .gitignore keeps out of git.
func Skipped(rel string) bool {
	first, _, _ := strings.Cut(rel, "/")
	return first == ".apigen" || first == "bin" || rel == "apiserver"
}

// Files returns the files of the project in dir, by slash-separated path, without its local
// state.
func Files(dir string) (map[string][]byte, error) {
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		rel = filepath.ToSlash(rel)
		if rel != "." && Skipped(rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		data, err := os.ReadFile(path)
		files[rel] = data
		return err
	})
	return files, err
}
