package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/apigen-dev/apigen/generators/engine"
	"github.com/apigen-dev/apigen/generators/golang"
	"github.com/apigen-dev/apigen/generators/kube"
	"github.com/apigen-dev/apigen/generators/loader"
	"github.com/apigen-dev/apigen/generators/markers"
	"github.com/apigen-dev/apigen/generators/pipeline"
)

type generateFlags struct {
	headerFile string
	year       string
	noCache    bool
	// scaffoldConversions is generate's --scaffold-conversions.
	scaffoldConversions bool
	// stdCache is the process's (Config.StdCache).
	stdCache *loader.StdCache
	// without is the process's (Config.Without).
	without loader.Without
}

func (f *generateFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.headerFile, "header-file", "", "boilerplate for the top of generated Go files (default "+pipeline.DefaultHeaderFile+" when present)")
	cmd.Flags().StringVar(&f.year, "year", "", "replaces the word YEAR in the header file, for a boilerplate shared with the Kubernetes generators; the one apigen init writes has the year itself (the clock is never read, so output is reproducible)")
	cmd.Flags().BoolVar(&f.noCache, "no-cache", false, "always load and compare, even when an earlier run had the very same inputs (as does APIGEN_CACHE=off)")
}

// warnUnusedYear says so when --year is given but the header file has no YEAR to replace (the
// boilerplate apigen init writes has the year itself), rather than accept it without effect.
func (f *generateFlags) warnUnusedYear(root string, w io.Writer) {
	if f.year == "" {
		return
	}
	path, _ := pipeline.HeaderPath(root, f.headerFile)
	data, err := os.ReadFile(path)
	if err != nil || bytes.Contains(data, []byte("YEAR")) {
		return // a missing --header-file is reported by the run itself
	}
	rel, err := filepath.Rel(root, path)
	if err != nil {
		rel = path
	}
	fmt.Fprintf(w, "apigen: warning: --year=%s has no effect: %s has no YEAR to replace\n", f.year, filepath.ToSlash(rel))
}

// plan runs the pipeline for the project at root and compares its output with the tree; the
// run's warnings go to warn.
func (f *generateFlags) plan(root string, warn io.Writer) (*engine.Plan, error) {
	return planAt(root, pipeline.Options{HeaderFile: f.headerFile, Year: f.year, ScaffoldConversions: f.scaffoldConversions, StdCache: f.stdCache, Without: f.without}, warn)
}

// planAt runs the pipeline for the project at root and compares its output with the tree;
// generate, verify and init all start here. Warnings (markers without effect) go to warn, as
// file:line:col: warning: ..., relative to the working directory.
func planAt(root string, o pipeline.Options, warn io.Writer) (*engine.Plan, error) {
	res, err := pipeline.Run(root, o)
	if err != nil {
		return nil, relativeTo(root, err)
	}
	if len(res.Project.Warnings) > 0 {
		fmt.Fprintln(warn, relativeTo(root, res.Project.Warnings))
	}
	plan, err := engine.NewPlan(root, res.Output)
	if plan != nil {
		// The result cache keys on the load's reads and on the comparison's alike.
		plan.Warnings, plan.Project, plan.Reads = res.Project.Warnings, res.Project, loader.MergeReads(res.Reads, plan.Reads)
	}
	return plan, err
}

// reportStubs says which user-owned stubs a run wrote, and what the user must do with each.
func reportStubs(w io.Writer, plan *engine.Plan, scaffolded []string) {
	for _, p := range scaffolded {
		fmt.Fprintf(w, "apigen: wrote %s%s\n", p, plan.Output().ScaffoldNote(p))
	}
}

func newGenerate(c Config) *cobra.Command {
	flags := generateFlags{stdCache: c.StdCache, without: c.Without}
	var dumpModel, verbose bool
	cmd := &cobra.Command{
		Use:   "generate",
		Short: "Regenerate code from the types in pkg/apis",
		Long: `generate loads pkg/apis once, builds the model from its markers and writes every generated
file. Files are written only when all generators succeeded and only when their content changed;
generated files that are no longer produced are deleted; files without apigen's
"Code generated" header are never overwritten. Like verify, it skips the load and writes nothing
when an earlier run with byte-identical inputs left the tree current (--no-cache: load anyway).`,
		Example: `  apigen generate
  apigen generate -v --no-cache
  apigen generate --dump-model > model.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			start := time.Now()
			if dumpModel {
				root, err := pipeline.FindRoot(".")
				if err != nil {
					return err
				}
				_, project, err := pipeline.Model(root, flags.stdCache)
				if err != nil {
					return relativeTo(root, err)
				}
				if len(project.Warnings) > 0 {
					fmt.Fprintln(cmd.ErrOrStderr(), relativeTo(root, project.Warnings))
				}
				data, err := project.JSON()
				if err != nil {
					return err
				}
				_, err = cmd.OutOrStdout().Write(data)
				return err
			}
			root, err := pipeline.FindRoot(".")
			if err != nil {
				return err
			}
			flags.warnUnusedYear(root, cmd.ErrOrStderr())
			noteRuntimeVersion(root, cmd.ErrOrStderr())
			cache, cached, hit := openCache(root, &flags, logIf(verbose, cmd.ErrOrStderr()))
			var sum engine.Summary
			if hit {
				// The tree is what this run would write: every file unchanged.
				sum.Unchanged = cached
			} else {
				plan, err := flags.plan(root, cmd.ErrOrStderr())
				if err != nil {
					return err
				}
				if sum, err = plan.Apply(); err != nil {
					return err
				}
				reportStubs(cmd.OutOrStdout(), plan, sum.Scaffolded)
				noteSQLStorage(cmd.ErrOrStderr(), sum.Deleted)
				cache.record(plan, sum.Written, sum.Deleted, sum.Scaffolded)
			}
			if verbose {
				for _, p := range sum.Written {
					fmt.Fprintf(cmd.OutOrStdout(), "wrote     %s\n", p)
				}
				for _, p := range sum.Deleted {
					fmt.Fprintf(cmd.OutOrStdout(), "deleted   %s\n", p)
				}
				for _, p := range sum.Unchanged {
					fmt.Fprintf(cmd.OutOrStdout(), "unchanged %s\n", p)
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "apigen: %d written, %d unchanged, %d deleted in %.2fs\n",
				len(sum.Written), len(sum.Unchanged), len(sum.Deleted), time.Since(start).Seconds())
			return nil
		},
	}
	flags.register(cmd)
	cmd.Flags().BoolVar(&flags.scaffoldConversions, "scaffold-conversions", false,
		"when conversion-gen leaves conversion functions to you, write them as stubs into <version dir>/"+kube.ConversionStubFile+
			" (never overwritten) and generate; each stub fails at run time until you finish it")
	cmd.Flags().BoolVar(&dumpModel, "dump-model", false, "print the model as JSON instead of writing files")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "list every file written, deleted or unchanged, and say whether the result cache answered")
	return cmd
}

// noteRuntimeVersion says so when the project's copy of the server runtime was written by
// another apigen version than this one (its stamp, golang.WrittenBy): a note, since generate
// rewrites it, that points at what else an upgrade asks for.
func noteRuntimeVersion(root string, w io.Writer) {
	was, ok := golang.WrittenBy(root)
	now := golang.RuntimeVersion()
	if !ok || was == now {
		return
	}
	by := "apigen " + was
	if was == "" {
		by = "an apigen older than the version stamp"
	}
	fmt.Fprintf(w, "apigen: note: %s was written by %s; apigen %s writes it again (upgrading: docs/guides/upgrading.md)\n",
		path.Dir(golang.RuntimeStampFile), by, now)
}

// noteSQLStorage says why the runtime's SQL storage was deleted, when it was: a project
// written before SQL storage was opt-in loses it on upgrade unless it asks for it.
func noteSQLStorage(w io.Writer, deleted []string) {
	if slices.Contains(deleted, golang.SQLStorageFile) {
		fmt.Fprintf(w, "apigen: note: deleted %s: the server links SQL storage (kine, --datastore-endpoint) only when pkg/apis/doc.go says +%s=true; add it to keep it (docs/guides/sql-storage.md)\n",
			golang.SQLStorageFile, markers.SQLMarker)
	}
}

func newVerify(c Config) *cobra.Command {
	flags := generateFlags{stdCache: c.StdCache, without: c.Without}
	var verbose bool
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Fail, with a diff, when generated files are out of date",
		Long: `verify runs exactly what generate runs but writes nothing. When the tree is current it prints
nothing and exits 0; otherwise it prints a unified diff, names missing and stale files and exits 1.
Use it in CI and as a pre-commit check.

When every input (apigen itself, the flags, the go environment, go.mod, go.sum, the module's Go
files, the generated files, and every other file the earlier run read, such as the header file)
is byte for byte that of an earlier verify or generate that left the tree current, verify
answers from a cache in the user cache directory without loading.
--no-cache or APIGEN_CACHE=off turns this off. A run that loads reads the standard library's
types from the go command's build cache, which changes no output; APIGEN_STDCACHE=off turns
that off.`,
		Example: `  apigen verify || echo "run apigen generate"`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			root, err := pipeline.FindRoot(".")
			if err != nil {
				return err
			}
			flags.warnUnusedYear(root, cmd.ErrOrStderr())
			cache, _, hit := openCache(root, &flags, logIf(verbose, cmd.ErrOrStderr()))
			if hit {
				return nil
			}
			plan, err := flags.plan(root, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			if plan.Current() {
				cache.record(plan)
				return nil
			}
			fmt.Fprint(cmd.OutOrStdout(), plan.Diff())
			fmt.Fprintf(cmd.ErrOrStderr(), "apigen: %d generated file(s) out of date; run \"apigen generate\"\n", len(plan.Changed)+len(plan.Stale))
			return silentError{}
		},
	}
	flags.register(cmd)
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "say whether the result cache answered, and why not")
	return cmd
}

// logIf is w when verbose, and io.Discard otherwise.
func logIf(verbose bool, w io.Writer) io.Writer {
	if verbose {
		return w
	}
	return io.Discard
}
