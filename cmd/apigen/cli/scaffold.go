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
	"golang.org/x/mod/modfile"

	"github.com/apigen-dev/apigen/generators/golang"
	"github.com/apigen-dev/apigen/generators/loader"
	"github.com/apigen-dev/apigen/generators/pipeline"
	"github.com/apigen-dev/apigen/generators/scaffold"
)

func newInit(c Config) *cobra.Command {
	var o scaffold.InitOptions
	var skipDeps bool
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Start an API server project here, or add what is missing to an existing module",
		Long: `init writes go.mod, cmd/apiserver/main.go, pkg/apis/doc.go (with the domain, the deployment
names and a //go:generate line), the license boilerplate, a Makefile, .gitignore, a
.pre-commit-config.yaml, config/default/kustomization.yaml (what "kubectl apply -k" deploys), a
Dockerfile and .dockerignore. It never overwrites a file: in an existing module or repository it
adds what is missing and keeps, saying so, what is there. It then fetches the pinned Kubernetes
dependencies, generates the (still empty) server and tidies go.mod, so that
"go build ./cmd/apiserver" works at once.

apigen as a tool of the project. When go.mod can name an apigen to build, init adds the tool
directive (what "go get -tool github.com/apigen-dev/apigen/cmd/apigen@<version>" adds), and the
Makefile, "go generate ./..." and the pre-commit hook all run "go tool apigen": everyone who
clones the project gets the same generator, at the version go.mod pins. Which apigen go.mod
names, first match wins:
  --apigen-module-replace=<dir>  a local checkout of apigen (unpublished or modified builds):
                                 go.mod requires apigen at v0.0.0-00010101000000-000000000000 and
                                 replaces it with <dir>, so nothing is downloaded for apigen;
                                 the path is machine-specific, so change it before sharing.
  --apigen-version=<version>     a published release (downloaded by the go command);
  this binary's own version      when it is a release ("go install ...@v0.3.0").
Otherwise (a development build, as "go build ./cmd/apigen" makes) go.mod is left without apigen,
and the Makefile, //go:generate and the hook run the apigen on your PATH. apigen's dependencies
join go.mod's requirements with the tool directive, as any tool's do; the generated server never
imports apigen.`,
		Example: `  mkdir wardle && cd wardle
  apigen init --repo example.com/wardle --domain example.com
  apigen init --repo example.com/wardle --domain example.com --apigen-version=v0.3.0
  apigen init --domain example.com   # in an existing module: adds what is missing`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			root, err := os.Getwd()
			if err != nil {
				return err
			}
			if o.ApigenReplace != "" {
				if o.ApigenReplace, err = apigenCheckout(o.ApigenReplace); err != nil {
					return err
				}
			} else if o.ApigenVersion == "" {
				o.ApigenVersion = golang.ReleasedVersion()
			}
			res, err := scaffold.Init(root, o)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			printScaffold(out, res)
			switch {
			case o.ApigenReplace != "":
				fmt.Fprintf(out, "apigen is a tool of this module (go tool apigen), built from %s\n", o.ApigenReplace)
			case o.ApigenVersion != "":
				fmt.Fprintf(out, "apigen is a tool of this module (go tool apigen) at %s\n", o.ApigenVersion)
			default:
				fmt.Fprintln(out, "apigen is not in go.mod (this is a development build; see --apigen-module-replace): make and go generate run apigen from PATH")
			}
			if skipDeps {
				fmt.Fprintln(out, "dependencies not fetched (--skip-deps). "+fetchDependencies)
				return nil
			}
			fmt.Fprintln(out, "fetching dependencies (go get)...")
			if err := goCommand(root, cmd.ErrOrStderr(), append([]string{"get"}, scaffold.Dependencies()...)...); err != nil {
				return err
			}
			if err := generateAll(root, out, cmd.ErrOrStderr(), c.StdCache); err != nil {
				return err
			}
			if err := goCommand(root, cmd.ErrOrStderr(), "mod", "tidy"); err != nil {
				return err
			}
			fmt.Fprintln(out, "next: apigen new-api --group <group> --version v1alpha1 --kind <Kind>")
			return nil
		},
	}
	cmd.Flags().StringVar(&o.Repo, "repo", "", "Go module path of the new project, e.g. example.com/wardle (required without a go.mod; in an existing module it defaults to, and must equal, go.mod's)")
	cmd.Flags().StringVar(&o.Domain, "domain", "", "domain of the API groups: --group wardle becomes wardle.<domain>")
	cmd.Flags().StringVar(&o.Year, "year", strconv.Itoa(time.Now().Year()), "copyright year written into hack/boilerplate.go.txt, once (the file is yours; generate copies it into every generated Go file as it is)")
	cmd.Flags().BoolVar(&skipDeps, "skip-deps", false, "only write the files: no go get, generate or go mod tidy")
	cmd.Flags().StringVar(&o.ApigenReplace, "apigen-module-replace", "", "make apigen a tool of the project built from this local apigen checkout (a replace directive; see above)")
	cmd.Flags().StringVar(&o.ApigenVersion, "apigen-version", "", "make apigen a tool of the project at this published version (default: this binary's version, when it is a release)")
	required(cmd, "domain")
	return cmd
}

func newNewAPI() *cobra.Command {
	o := scaffold.APIOptions{Namespaced: true, Status: true}
	cmd := &cobra.Command{
		Use:   "new-api",
		Short: "Add a kind: its types file, and doc.go when the version is new",
		Long: `new-api writes pkg/apis/<group>/<version>/<kind>_types.go with the +apigen:resource marker,
Spec, Status and List types, and the version's doc.go with +groupName when it does not exist yet.
It never overwrites a types file. Edit the types, then run apigen generate.

It refuses, before writing anything, what would only fail later: a kind whose types (Kind,
KindSpec, KindStatus, KindList) are already declared in the package, a plural or reserved kind
(List, Status), an invalid --plural, and a group other than the one already in pkg/apis/<group>.`,
		Example: `  apigen new-api --group wardle --version v1alpha1 --kind Flunder
  apigen new-api --group wardle --version v1alpha1 --kind Fischer --namespaced=false
  apigen new-api --group batch.example.org --version v1 --kind Bus --plural buses --status=false`,
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
	required(cmd, "group", "version", "kind")
	return cmd
}

// apigenCheckout returns the absolute path of dir after checking that it holds apigen's module.
func apigenCheckout(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	data, err := os.ReadFile(filepath.Join(abs, "go.mod"))
	if err != nil {
		return "", fmt.Errorf("--apigen-module-replace %s: not a checkout of apigen: %v", dir, err)
	}
	if m := modfile.ModulePath(data); m != scaffold.ApigenModule {
		return "", fmt.Errorf("--apigen-module-replace %s: its go.mod is module %q, not %s", dir, m, scaffold.ApigenModule)
	}
	return abs, nil
}

func printScaffold(w io.Writer, res scaffold.Result) {
	for _, p := range res.Written {
		fmt.Fprintf(w, "created   %s\n", p)
	}
	for _, p := range res.Updated {
		fmt.Fprintf(w, "updated   %s\n", p)
	}
	for _, p := range res.Skipped {
		fmt.Fprintf(w, "kept      %s (exists)\n", p)
	}
}

// generateAll runs generate in root, with the standard library's types from export data
// (stdCache; nil: from source), and writes the result; warnings go to warn.
func generateAll(root string, out, warn io.Writer, stdCache *loader.StdCache) error {
	plan, err := planAt(root, pipeline.Options{StdCache: stdCache}, warn)
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
