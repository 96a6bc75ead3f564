package e2e

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/apigen-dev/apigen/internal/doctest"
)

// TestTutorials runs the quick start and the tutorials from the pages themselves, as a
// reader would: their shell blocks in order, in one shell, in an empty directory, with the apigen
// built from this tree and bin/kubectl on PATH, the Go files they show written where they say,
// and `make run` kept running in the background until the next one or the page's end (the
// comments that say so are in the pages; internal/doctest says how they read). Every command
// must succeed: the project is initialised, generated, built and served, and kubectl creates,
// lists, scales and explains a Widget, and sees the tutorial's Go hook refuse one; a v2 with a
// renamed field gets its conversion written, serves the same object in both versions, and
// becomes the storage version, the hook moving with it. Then the
// project the pages made must be examples/toys, file for file (hack/tutorials.sh remakes it), so
// that the code the pages show is the code that is built, tested and verified there.
func TestTutorials(t *testing.T) {
	tc := tools(t)
	pages, err := doctest.ParseFiles(tc.root, doctest.Pages...)
	if err != nil {
		t.Fatal(err)
	}
	// The pages run the server as a reader does, on its default port.
	if err := poll(2*time.Minute, func() error {
		l, err := net.Listen("tcp", "127.0.0.1:8443")
		if err == nil {
			l.Close()
		}
		return err
	}); err != nil {
		t.Fatalf("127.0.0.1:8443, where the pages' make run listens, stayed busy: %v", err)
	}

	work := t.TempDir()
	logs, dir := filepath.Join(work, "logs"), filepath.Join(work, "run")
	for _, d := range []string{logs, dir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Dir(tc.apigen) + string(os.PathListSeparator) + filepath.Dir(tc.kubectl) +
		string(os.PathListSeparator) + os.Getenv("PATH")
	// kubectl's discovery cache is per host and port: another server that listened on
	// 127.0.0.1:8443 before this one must not answer for it.
	env := append([]string{"PATH=" + path, "EDITOR=true", "KUBECACHEDIR=" + filepath.Join(work, "kubecache")}, goEnv...)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	start := time.Now()
	workdir, out, err := doctest.Run(ctx, doctest.Script(pages...), dir, logs, env)
	t.Logf("ran %v in %s", doctest.Pages, time.Since(start).Round(time.Second))
	if err != nil {
		t.Fatalf("running the pages' commands: %v\n%s", err, out)
	}
	if workdir == dir {
		t.Fatalf("the pages never changed into the project they make:\n%s", out)
	}

	got, err := doctest.Files(workdir)
	if err != nil {
		t.Fatal(err)
	}
	want, err := doctest.Files(filepath.Join(tc.root, doctest.Project))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for name := range got {
		names = append(names, name)
	}
	for name := range want {
		if _, ok := got[name]; !ok {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		g, inGot := got[name]
		w, inWant := want[name]
		switch {
		case !inWant:
			t.Errorf("the pages make %s, which %s lacks (hack/tutorials.sh remakes it)", name, doctest.Project)
		case !inGot:
			t.Errorf("%s has %s, which the pages do not make (hack/tutorials.sh remakes it)", doctest.Project, name)
		case withoutYear(g) != withoutYear(w):
			t.Errorf("%s differs from what the pages make (hack/tutorials.sh remakes it): %s", filepath.Join(doctest.Project, name), firstDifference(withoutYear(w), withoutYear(g)))
		}
	}
}

// copyrightYear is the year apigen init writes into hack/boilerplate.go.txt, and the generated
// files copy: this year's, so a project made in another year differs only there.
var copyrightYear = regexp.MustCompile(`Copyright [0-9]{4}\.`)

func withoutYear(data []byte) string {
	return copyrightYear.ReplaceAllString(string(data), "Copyright YEAR.")
}
