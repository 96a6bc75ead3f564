// Command tutorials makes the tutorial project, examples/toys, by running the shell blocks of
// the quick start and the tutorials, as a reader would, with bin/apigen and bin/kubectl:
// the project the pages make replaces examples/toys. hack/tutorials.sh runs it
// (make tutorials); test/e2e's TestTutorials runs the pages the same way and fails when the
// project they make differs from examples/toys.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/apigen-dev/apigen/internal/doctest"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "tutorials:", err)
		os.Exit(1)
	}
}

func run() error {
	root, err := os.Getwd()
	if err != nil {
		return err
	}
	pages, err := doctest.ParseFiles(root, doctest.Pages...)
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "apigen-tutorials-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	logs := filepath.Join(work, "logs")
	dir := filepath.Join(work, "run")
	for _, d := range []string{logs, dir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return err
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	env := []string{
		"PATH=" + filepath.Join(root, "bin") + string(os.PathListSeparator) + os.Getenv("PATH"),
		"EDITOR=true", "GOWORK=off", "GOTOOLCHAIN=local",
		// kubectl's discovery cache is per host and port: another server on 127.0.0.1:8443
		// before this one must not answer for it.
		"KUBECACHEDIR=" + filepath.Join(work, "kubecache"),
	}
	workdir, out, err := doctest.Run(ctx, doctest.Script(pages...), dir, logs, env)
	os.Stderr.Write(out)
	if err != nil {
		return fmt.Errorf("running %v: %w", doctest.Pages, err)
	}
	files, err := doctest.Files(workdir)
	if err != nil {
		return err
	}
	project := filepath.Join(root, doctest.Project)
	if err := os.RemoveAll(project); err != nil {
		return err
	}
	for rel, data := range files {
		path := filepath.Join(project, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return err
		}
	}
	fmt.Printf("wrote %s: %d files, from %v\n", doctest.Project, len(files), doctest.Pages)
	return nil
}
