package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/apigen-dev/apigen/generators/markers"
)

func newMarkers() *cobra.Command {
	return &cobra.Command{
		Use:   "markers",
		Short: "List every marker apigen understands",
		Long: `markers prints every comment marker apigen reads, grouped by where it goes (package doc
comments, type declarations, struct fields), with its arguments, the kubebuilder spellings it
also accepts, what it does and an example. Markers of other tools (+genclient, +k8s:..., +optional,
+listType, ...) are ignored; an unknown +apigen: marker is an error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			printMarkers(cmd.OutOrStdout(), markers.Apigen())
			return nil
		},
	}
}

// printMarkers writes the registry's definitions, grouped by target and sorted by name.
func printMarkers(w io.Writer, reg *markers.Registry) {
	heading := map[markers.Target]string{
		markers.Package: "Package markers (in the package's doc comment, usually doc.go)",
		markers.Type:    "Type markers (in the comment above a type declaration)",
		markers.Field:   "Field markers (in the comment above a struct field)",
	}
	last := markers.Target(-1)
	for _, d := range reg.Definitions() {
		if d.Target != last {
			if last >= 0 {
				fmt.Fprintln(w)
			}
			fmt.Fprintf(w, "%s\n", heading[d.Target])
			last = d.Target
		}
		fmt.Fprintf(w, "\n  +%s\n", d.Name)
		fmt.Fprintf(w, "      %s\n", d.Help)
		switch {
		case d.Form != "":
			fmt.Fprintf(w, "      form:    %s\n", d.Form)
		case d.PassThrough:
			fmt.Fprintf(w, "      form:    +%s followed by anything (not checked)\n", d.Name)
		case d.Value && d.Args != nil:
			fmt.Fprintf(w, "      value:   %s (optional; +%s alone means true)\n", d.Args.Kind(), d.Name)
		case d.Value:
			fmt.Fprintf(w, "      value:   string\n")
		}
		for _, a := range d.Arguments() {
			desc := a.Type
			if len(a.Enum) > 0 {
				desc = "one of " + strings.Join(a.Enum, ", ")
			}
			if a.Type == "list" {
				desc = "list, a;b or {a,b}"
			}
			opt := ""
			if a.Optional {
				opt = " (optional)"
			}
			fmt.Fprintf(w, "      arg:     %s=<%s>%s\n", a.Name, desc, opt)
		}
		if aliases := reg.Aliases(d); len(aliases) > 0 {
			for i, a := range aliases {
				aliases[i] = "+" + a
			}
			fmt.Fprintf(w, "      alias:   %s\n", strings.Join(aliases, ", "))
		}
		fmt.Fprintf(w, "      example: // %s\n", d.Example)
	}
}
