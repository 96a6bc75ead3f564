package cli

import (
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/code-generator/cmd/validation-gen/validators"

	"github.com/apigen-dev/apigen/generators/kube"
	"github.com/apigen-dev/apigen/generators/markers"
)

func newMarkers() *cobra.Command {
	return &cobra.Command{
		Use:   "markers",
		Short: "List every marker apigen understands",
		Long: `markers prints every comment marker apigen reads, grouped by where it goes (package doc
comments, type declarations, struct fields), with its arguments, the kubebuilder spellings it
also accepts, what it does and an example. controller-gen's schema markers
(+kubebuilder:validation:..., XValidation CEL rules, +listType, +optional, +nullable, ...) mean
what they mean in a CRD: the server enforces them. A +kubebuilder: marker apigen does not
implement is a warning where it is used; an unknown +apigen: marker is an error. The +k8s:
tags of declarative validation come last, with validation-gen's own docs: the server runs
them as kube-apiserver runs a built-in type's. Other tools' tags (+genclient:..., the
upstream generators' +k8s: tags) are theirs.`,
		Example: `  apigen markers | less`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			printMarkers(cmd.OutOrStdout(), markers.Apigen())
			fmt.Fprintln(cmd.OutOrStdout())
			printValidationTags(cmd.OutOrStdout(), kube.ValidationTagDocs())
			return nil
		},
	}
}

// printMarkers writes the registry's definitions, grouped by target and sorted by name. A
// marker accepted at several levels (kubebuilder's validation markers) is shown once, under
// the first, with the others named; text is wrapped at helpWidth.
func printMarkers(w io.Writer, reg *markers.Registry) {
	heading := map[markers.Target]string{
		markers.Package: "Package markers (in the package's doc comment, usually doc.go)",
		markers.Type:    "Type markers (in the comment above a type declaration)",
		markers.Field:   "Field markers (in the comment above a struct field)",
	}
	targets := map[string][]string{}
	for _, d := range reg.Definitions() {
		targets[d.Name] = append(targets[d.Name], d.Target.String())
	}
	shown := map[string]bool{}
	last := markers.Target(-1)
	for _, d := range reg.Definitions() {
		if shown[d.Name] {
			continue
		}
		shown[d.Name] = true
		if d.Target != last {
			if last >= 0 {
				fmt.Fprintln(w)
			}
			fmt.Fprintf(w, "%s\n", heading[d.Target])
			last = d.Target
		}
		fmt.Fprintf(w, "\n  +%s\n", d.Name)
		item := func(label, text string) {
			fmt.Fprint(w, wrap(text, "      "+label, "               "))
		}
		fmt.Fprint(w, wrap(d.Help, "      ", "      "))
		if t := targets[d.Name]; len(t) > 1 {
			item("where:   ", "in "+strings.Join(t[:len(t)-1], ", ")+" and "+t[len(t)-1]+" comments")
		}
		switch {
		case d.Form != "":
			item("form:    ", d.Form)
		case d.PassThrough:
			item("form:    ", fmt.Sprintf("+%s followed by anything (not checked)", d.Name))
		case d.Value && d.Args != nil && d.Args.Kind() == reflect.Bool:
			item("value:   ", fmt.Sprintf("%s (optional; +%s alone means true)", d.Args.Kind(), d.Name))
		case d.Value:
			item("value:   ", "string")
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
			item("arg:     ", fmt.Sprintf("%s=<%s>%s", a.Name, desc, opt))
		}
		if aliases := reg.Aliases(d); len(aliases) > 0 {
			for i, a := range aliases {
				aliases[i] = "+" + a
			}
			item("alias:   ", strings.Join(aliases, ", "))
		}
		if d.NoEffect != "" {
			item("effect:  ", "none, a warning where it is used: "+d.NoEffect)
		}
		// An example is one marker line: it is not wrapped, but gets a line of its own.
		if d.Example != "" {
			fmt.Fprintf(w, "      example:\n      // %s\n", d.Example)
		}
	}
}

// printValidationTags writes declarative validation's tags, as validation-gen documents them:
// what each does, where it may be written, its stability and how it is written, with the
// values it takes.
func printValidationTags(w io.Writer, docs []validators.TagDoc) {
	fmt.Fprint(w, wrap("Declarative validation tags (validation-gen's; enforced as kube-apiserver enforces a "+
		"built-in type's, stable and beta rules enforced, alpha ones only logged)", "", ""))
	for _, d := range docs {
		fmt.Fprintf(w, "\n  +%s\n", d.Tag)
		item := func(label, text string) {
			fmt.Fprint(w, wrap(text, "      "+label, "               "))
		}
		fmt.Fprint(w, wrap(strings.TrimSuffix(strings.TrimSpace(d.Description), "."), "      ", "      "))
		scopes := make([]string, 0, len(d.Scopes))
		for _, s := range d.Scopes {
			scopes = append(scopes, string(s))
		}
		item("where:   ", "on "+strings.Join(scopes, ", "))
		item("level:   ", strings.ToLower(string(d.StabilityLevel)))
		item("form:    ", tagForm(d))
		for _, a := range d.Args {
			if a.Name != "" && a.Description != "" && !strings.HasPrefix(a.Description, "<") {
				item("arg:     ", a.Name+": "+a.Description)
			}
		}
		for _, p := range d.Payloads {
			if p.Description != "<none>" && p.Docs != "" {
				item("value:   ", p.Description+": "+p.Docs)
			}
		}
	}
}

// tagForm is how a tag is written: its documented usage, or its name with its arguments and
// payloads.
func tagForm(d validators.TagDoc) string {
	if d.Usage != "" {
		return d.Usage
	}
	form := "+" + d.Tag
	if len(d.Args) > 0 {
		args := make([]string, 0, len(d.Args))
		for _, a := range d.Args {
			arg := a.Description // a positional argument's, such as <option>
			if a.Name != "" {
				arg = a.Name + ": <" + string(a.Type) + ">"
			}
			if !a.Required {
				arg = "[" + arg + "]"
			}
			args = append(args, arg)
		}
		form += "(" + strings.Join(args, ", ") + ")"
	}
	var values []string
	optional := false
	for _, p := range d.Payloads {
		if p.Description == "<none>" {
			optional = true
			continue
		}
		values = append(values, p.Description)
	}
	if len(values) == 0 && d.PayloadsType != "" {
		values = []string{"<" + string(d.PayloadsType) + ">"} // +k8s:update=NoModify
	}
	switch {
	case len(values) == 0:
	case len(values) > 3:
		values = []string{"<one of the values below>"}
		fallthrough
	default:
		value := "=" + strings.Join(values, " | ")
		if optional || !d.PayloadsRequired {
			value = "[" + value + "]"
		}
		form += value
	}
	return form
}

// wrap breaks text into lines of at most helpWidth columns at spaces, the first starting with
// first and the others with indent.
func wrap(text, first, indent string) string {
	var b strings.Builder
	line := first
	empty := true
	for _, word := range strings.Fields(text) {
		if !empty && len(line)+1+len(word) > helpWidth {
			b.WriteString(line + "\n")
			line, empty = indent, true
		}
		if !empty {
			line += " "
		}
		line += word
		empty = false
	}
	b.WriteString(line + "\n")
	return b.String()
}
