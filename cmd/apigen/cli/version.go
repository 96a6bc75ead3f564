package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/apigen-dev/apigen/generators/scaffold"
)

func newVersion() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print apigen's version, how it was built and what generated projects depend on",
		Long: `version prints apigen's module version (a release such as v0.3.0, a pseudo-version, or
(devel) for a build from a checkout), the commit it was built from when the go command recorded
one, the Go toolchain, and the versions of Kubernetes and etcd that apigen init pins in new
projects. apigen --version prints the same.`,
		Example: "  apigen version",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprint(cmd.OutOrStdout(), versionText())
			return err
		},
	}
}

// versionText describes this binary from the build information the go command embeds.
func versionText() string {
	var b strings.Builder
	info, ok := debug.ReadBuildInfo()
	if !ok {
		fmt.Fprintf(&b, "apigen (no build information)\n")
	} else {
		fmt.Fprintf(&b, "apigen %s\n", info.Main.Version)
		module := info.Main.Path
		if r := info.Main.Replace; r != nil {
			module += " => " + strings.TrimSpace(r.Path+" "+r.Version)
		}
		fmt.Fprintf(&b, "  module:     %s\n", module)
		settings := map[string]string{}
		for _, s := range info.Settings {
			settings[s.Key] = s.Value
		}
		if rev := settings["vcs.revision"]; rev != "" {
			commit := rev
			if t := settings["vcs.time"]; t != "" {
				commit += " (" + t + ")"
			}
			if settings["vcs.modified"] == "true" {
				commit += ", with uncommitted changes"
			}
			fmt.Fprintf(&b, "  commit:     %s\n", commit)
		}
	}
	fmt.Fprintf(&b, "  go:         %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(&b, "  new projects get: k8s.io/* %s, etcd %s, go %s\n", scaffold.KubernetesVersion, scaffold.EtcdVersion, scaffold.GoVersion)
	return b.String()
}
