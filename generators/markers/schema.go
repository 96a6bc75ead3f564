package markers

import (
	"maps"
	"slices"
	"strings"

	crdmarkers "sigs.k8s.io/controller-tools/pkg/crd/markers"
	ctmarkers "sigs.k8s.io/controller-tools/pkg/markers"
)

// notServed are controller-gen's markers that shape a CustomResourceDefinition rather than a
// schema and that apigen does not implement: they stay markers without effect, reported as
// such, instead of being taken for schema markers.
var notServed = map[string]string{
	"kubebuilder:metadata": "an aggregated API has no CustomResourceDefinition to label or annotate",
	"kubebuilder:skip":     "apigen serves every package under pkg/apis",
	"versionName":          "apigen takes the version from the package's directory name",
}

// registerSchemaMarkers adds controller-gen's schema markers (validation, CEL rules, list and
// map types, required and optional, defaults, ...) that apigen has not registered itself.
// controller-tools reads them when it builds each kind's schema (generators/schema), so they
// have the meaning they have for a CRD; here they are accepted, listed by apigen markers with
// controller-gen's own help, and never reported as markers without effect.
func registerSchemaMarkers(r *Registry) {
	for _, d := range crdmarkers.AllDefinitions {
		target, ok := targets[d.Target]
		if !ok || Declarative(d.Name) {
			continue
		}
		if _, known := r.defs[target][d.Name]; known {
			continue
		}
		def := &Definition{Name: d.Name, Target: target, PassThrough: true, Form: form(d.Definition)}
		if why, ok := notServed[d.Name]; ok {
			def.NoEffect = why
		}
		if d.Help != nil {
			def.Help = firstParagraph(d.Help.Summary + " " + d.Help.Details)
		}
		r.Register(def)
	}
}

// Declarative reports whether a marker is one of declarative validation's +k8s: tags, some of
// which controller-tools defines too (required, optional, minimum, maximum, maxItems, enum,
// listType, listMapKey, immutable) with a CRD's meaning: apigen gives them validation-gen's
// (kube.Validation), keeps them out of the schema (generators/schema) and lists them, with
// validation-gen's docs, apart from the schema markers (apigen markers). Parse leaves them,
// as every +k8s: tag, to their generators.
func Declarative(name string) bool { return strings.HasPrefix(name, "k8s:") }

var targets = map[ctmarkers.TargetType]Target{
	ctmarkers.DescribesPackage: Package,
	ctmarkers.DescribesType:    Type,
	ctmarkers.DescribesField:   Field,
}

// form is how a controller-gen marker is written, from its definition: a value, named
// arguments (required ones first, optional ones in brackets), or nothing.
func form(d *ctmarkers.Definition) string {
	switch {
	case d.Empty():
		return "+" + d.Name
	case d.AnonymousField():
		return "+" + d.Name + "=<" + d.Fields[""].TypeString() + ">"
	}
	var required, optional []string
	for _, name := range slices.Sorted(maps.Keys(d.Fields)) {
		if d.Fields[name].Optional {
			optional = append(optional, "["+name+"]")
		} else {
			required = append(required, name+"=<"+d.Fields[name].TypeString()+">")
		}
	}
	return "+" + d.Name + ":" + strings.Join(append(required, optional...), ", ")
}

// firstParagraph is controller-gen's help text up to its first blank line, on one line and
// without the final period, as apigen's own help reads.
func firstParagraph(text string) string {
	text, _, _ = strings.Cut(strings.TrimSpace(text), "\n\n")
	return strings.TrimSuffix(strings.Join(strings.Fields(text), " "), ".")
}
