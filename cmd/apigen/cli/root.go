// Package cli is apigen's command line. Main takes its arguments and writers so that tests run
// it in process.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/apigen-dev/apigen/generators/loader"
	"github.com/apigen-dev/apigen/generators/model"
	"github.com/apigen-dev/apigen/generators/pipeline"
	"github.com/apigen-dev/apigen/generators/scaffold"
)

// Main runs apigen with args and returns the process exit code, with the zero Config.
func Main(args []string, stdout, stderr io.Writer) int { return Config{}.Main(args, stdout, stderr) }

// Config is what a process gives its runs of apigen beyond their arguments.
type Config struct {
	// StdCache has loads read the standard library's types from the go build cache's export
	// data (loader.Options.StdCache); nil, the default, loads them from source. apigen's
	// command keeps the loader's notes in the user cache directory; tests running the command
	// in process use their own or none.
	StdCache *loader.StdCache
	// Without turns pieces of the load's speed machinery off in generate (loader.Options.Without);
	// only the benchmark that measures them sets it (hack/bench/loadparts.sh).
	Without loader.Without
}

// Main runs apigen with args and returns the process exit code.
func (c Config) Main(args []string, stdout, stderr io.Writer) int {
	root := newRoot(stdout, stderr, c)
	root.SetArgs(args)
	// Cobra validates the command, flags and arguments before it calls RunE: an error before
	// that is a usage mistake, and the user is pointed to the command's help.
	started := false
	for _, c := range root.Commands() {
		if run := c.RunE; run != nil {
			c.RunE = func(cmd *cobra.Command, args []string) error {
				started = true
				return run(cmd, args)
			}
		}
	}
	cmd, err := root.ExecuteC()
	if err == nil {
		return 0
	}
	var silent silentError
	if !errors.As(err, &silent) {
		fmt.Fprintln(stderr, describe(err))
	}
	if !started {
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
	}
	return 1
}

// silentError ends a run with exit code 1 after the command already said why.
type silentError struct{}

func (silentError) Error() string { return "failed" }

func newRoot(stdout, stderr io.Writer, c Config) *cobra.Command {
	root := &cobra.Command{
		Use:   "apigen",
		Short: "Generate a Kubernetes aggregated API server from annotated Go types",
		Long: `apigen turns Go types in pkg/apis/<group>/<version>/, annotated with +apigen markers, into
a complete aggregated API server: registration, deepcopy, OpenAPI, REST storage and a server
that runs locally on embedded etcd or behind a kube-apiserver.`,
		Example: `  apigen init --repo example.com/wardle --domain example.com
  apigen new-api --group wardle --version v1alpha1 --kind Flunder
  apigen generate
  make run`,
		SilenceUsage:  true, // a failed run is not a usage mistake
		SilenceErrors: true, // Main prints errors itself, positioned and relative
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(newInit(c), newNewAPI(), newGenerate(c), newVerify(c), newMarkers(), newVersion())
	root.Version = versionText()
	root.SetVersionTemplate("{{.Version}}")
	root.InitDefaultVersionFlag()
	root.Flags().Lookup("version").Usage = "print apigen's version and build information, as apigen version does"
	// Flag help wraps at the width of the rest of the help text.
	root.SetUsageTemplate(strings.ReplaceAll(root.UsageTemplate(), ".FlagUsages |", ".FlagUsagesWrapped "+strconv.Itoa(helpWidth)+" |"))
	return root
}

// helpWidth is the column apigen's help text, flags included, wraps at.
const helpWidth = 100

// required marks flags as required, in their help text as well as for cobra's check.
func required(cmd *cobra.Command, names ...string) {
	for _, n := range names {
		cmd.Flags().Lookup(n).Usage += " (required)"
		_ = cmd.MarkFlagRequired(n)
	}
}

// describe formats an error for the terminal: model errors one per line with paths relative
// to the working directory, like a compiler.
func describe(err error) string {
	var list model.ErrorList
	var failure *pipeline.Failure
	if errors.As(err, &failure) {
		// The warnings of a run that failed: among its errors, or before an error that has
		// no position.
		if errors.As(failure.Err, &list) {
			return failure.Error()
		}
		return failure.Warnings.Error() + "\n" + describe(failure.Err)
	}
	switch {
	case errors.Is(err, loader.ErrMissingDependencies):
		return "apigen: " + err.Error() + " (apigen init --skip-deps leaves them out).\n" + fetchDependencies
	case !errors.As(err, &list):
		return "apigen: " + err.Error()
	}
	return list.Error()
}

// fetchDependencies says how to add what "apigen init" fetches unless --skip-deps.
var fetchDependencies = "Fetch the dependencies apigen init pins, then generate:\n" +
	"  go get " + strings.Join(scaffold.Dependencies(), " ") + "\n" +
	"  apigen generate"

// relativeTo rewrites the positions of model errors, which are relative to the project root,
// to be relative to the working directory.
func relativeTo(root string, err error) error {
	var failure *pipeline.Failure
	if errors.As(err, &failure) {
		return &pipeline.Failure{Err: relativeTo(root, failure.Err), Warnings: relativeList(root, failure.Warnings)}
	}
	var list model.ErrorList
	if !errors.As(err, &list) {
		return err
	}
	return relativeErrors{relativeList(root, list), err}
}

// relativeList is list with its positions, relative to the project root, made relative to
// the working directory; a file outside the project (a module in the module cache) keeps its
// absolute path, which reads better than a climb of "../".
func relativeList(root string, list model.ErrorList) model.ErrorList {
	wd, _ := os.Getwd()
	out := make(model.ErrorList, len(list))
	for i, e := range list {
		c := *e
		if c.Pos.Filename != "" {
			c.Pos.Filename = displayPath(root, wd, c.Pos.Filename)
		}
		out[i] = &c
	}
	return out
}

// displayPath is name (absolute, or relative to root) as the user at wd should read it.
func displayPath(root, wd, name string) string {
	abs := filepath.FromSlash(name)
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(root, abs)
	}
	if _, ok := loader.InRoot(root, abs); !ok {
		return abs
	}
	if rel, err := filepath.Rel(wd, abs); err == nil {
		return rel
	}
	return abs
}

// relativeErrors prints the errors with positions relative to the working directory and keeps
// the original error in the chain, for errors.As (a *kube.MissingConversions, say).
type relativeErrors struct {
	model.ErrorList
	cause error
}

func (e relativeErrors) Unwrap() []error { return []error{e.ErrorList, e.cause} }
