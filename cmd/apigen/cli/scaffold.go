package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/apigen-dev/apigen/generators/engine"
	"github.com/apigen-dev/apigen/generators/pipeline"
	"github.com/apigen-dev/apigen/generators/scaffold"
)

func newInit() *cobra.Command {
	var o scaffold.InitOptions
	var skipDeps bool
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Start a new API server project in the current directory",
		Long: `init writes go.mod, cmd/apiserver/main.go, pkg/apis/doc.go (with the domain), the license
boilerplate, a Makefile and .gitignore; it never overwrites a file. It then fetches the pinned
Kubernetes dependencies, generates the (still empty) server and tidies go.mod, so that
"go build ./cmd/apiserver" works at once.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			root, err := os.Getwd()
			if err != nil {
				return err
			}
			res, err := scaffold.Init(root, o)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			printScaffold(out, res)
			if skipDeps {
				return nil
			}
			fmt.Fprintln(out, "fetching dependencies (go get)...")
			if err := goCommand(root, cmd.ErrOrStderr(), append([]string{"get"}, scaffold.Dependencies()...)...); err != nil {
				return err
			}
			if err := generateAll(root, out); err != nil {
				return err
			}
			if err := goCommand(root, cmd.ErrOrStderr(), "mod", "tidy"); err != nil {
				return err
			}
			fmt.Fprintln(out, "next: apigen new-api --group <group> --version v1alpha1 --kind <Kind>")
			return nil
		},
	}
	cmd.Flags().StringVar(&o.Repo, "repo", "", "Go module path of the new project (required), e.g. example.com/wardle")
	cmd.Flags().StringVar(&o.Domain, "domain", "", "domain of the API groups (required): --group wardle becomes wardle.<domain>")
	cmd.Flags().StringVar(&o.Year, "year", strconv.Itoa(time.Now().Year()), "copyright year in hack/boilerplate.go.txt")
	cmd.Flags().BoolVar(&skipDeps, "skip-deps", false, "only write the files: no go get, generate or go mod tidy")
	_ = cmd.MarkFlagRequired("repo")
	_ = cmd.MarkFlagRequired("domain")
	return cmd
}

func newNewAPI() *cobra.Command {
	o := scaffold.APIOptions{Namespaced: true, Status: true}
	cmd := &cobra.Command{
		Use:   "new-api",
		Short: "Add a kind: its types file, and doc.go when the version is new",
		Long: `new-api writes pkg/apis/<group>/<version>/<kind>_types.go with the +apigen:resource marker,
Spec, Status and List types, and the version's doc.go with +groupName when it does not exist yet.
It never overwrites a types file. Edit the types, then run apigen generate.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			root, err := pipeline.FindRoot(".")
			if err != nil {
				return err
			}
			res, err := scaffold.NewAPI(root, o)
			if err != nil {
				return err
			}
			printScaffold(cmd.OutOrStdout(), res)
			fmt.Fprintln(cmd.OutOrStdout(), "next: edit the types, then run apigen generate")
			return nil
		},
	}
	cmd.Flags().StringVar(&o.Group, "group", "", "API group: a short name (wardle, given the project's domain) or fully qualified (wardle.example.com)")
	cmd.Flags().StringVar(&o.Domain, "domain", "", "domain for a short --group (default: +apigen:domain in pkg/apis/doc.go)")
	cmd.Flags().StringVar(&o.Version, "version", "", "API version, e.g. v1alpha1")
	cmd.Flags().StringVar(&o.Kind, "kind", "", "kind, e.g. Flunder")
	cmd.Flags().StringVar(&o.Plural, "plural", "", "resource name in URLs (default: lower-case plural of the kind)")
	cmd.Flags().BoolVar(&o.Namespaced, "namespaced", true, "objects live in a namespace (false: cluster-scoped)")
	cmd.Flags().BoolVar(&o.Status, "status", true, "give the kind a Status and a /status subresource")
	for _, f := range []string{"group", "version", "kind"} {
		_ = cmd.MarkFlagRequired(f)
	}
	return cmd
}

func printScaffold(w io.Writer, res scaffold.Result) {
	for _, p := range res.Written {
		fmt.Fprintf(w, "created   %s\n", p)
	}
	for _, p := range res.Skipped {
		fmt.Fprintf(w, "kept      %s (exists)\n", p)
	}
}

// generateAll runs generate in root and writes the result.
func generateAll(root string, out io.Writer) error {
	res, err := pipeline.Run(root, pipeline.Options{})
	if err != nil {
		return relativeTo(root, err)
	}
	plan, err := engine.NewPlan(root, res.Output)
	if err != nil {
		return err
	}
	sum, err := plan.Apply()
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "generated %d files\n", len(sum.Written))
	return nil
}

// goCommand runs the go command in dir; its chatter is shown only when it fails.
func goCommand(dir string, stderr io.Writer, args ...string) error {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	if err := cmd.Run(); err != nil {
		stderr.Write(output.Bytes())
		return fmt.Errorf("go %s in %s: %w", args[0], filepath.Base(dir), err)
	}
	return nil
}
