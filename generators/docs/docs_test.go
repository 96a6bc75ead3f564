package docs_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/apigen-dev/apigen/generators/docs"
	"github.com/apigen-dev/apigen/generators/engine"
	"github.com/apigen-dev/apigen/generators/model"
	"github.com/apigen-dev/apigen/generators/pipeline"
)

// TestReference: examples/wardle's reference says what a reader looks for: each version's
// kinds with their URL, scope, subresources, columns and field selectors, and each field
// with its type, doc comment, enum values and default.
func TestReference(t *testing.T) {
	_, project, err := pipeline.Model("../../examples/wardle", nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := engine.Run(&engine.Context{Project: project}, []engine.Generator{docs.Generator()})
	if err != nil {
		t.Fatal(err)
	}
	src, ok := out.Get(docs.File)
	if !ok {
		t.Fatalf("no %s in %q", docs.File, out.Paths())
	}
	doc := string(src)
	if !engine.IsGenerated(docs.File, src) {
		t.Errorf("%s does not carry the generated header:\n%.200s", docs.File, doc)
	}
	for _, want := range []string{
		"Versions, most preferred first: `v1beta1`, `v1alpha1`.",
		"- Resource: `flunders` (namespaced), singular `flunder`, list kind `FlunderList`: `/apis/wardle.example.com/v1beta1/namespaces/{namespace}/flunders`",
		"- Resource: `fischers` (cluster-scoped), singular `fischer`, list kind `FischerList`: `/apis/wardle.example.com/v1alpha1/fischers`",
		"- Subresources: `status`, `scale` (autoscaling/v1 Scale of `.spec.replicas`), `approval` (get, patch, update)",
		"- Field selectors: `metadata.name`, `metadata.namespace`, `spec.reference.kind`",
		"- Resource: `serverinfos` (cluster-scoped), singular `serverinfo`, list kind `ServerInfoList`: `/apis/wardle.example.com/v1beta1/serverinfos`\n- Not stored: served by the project's own storage, with the verbs get, list, watch\n",
		"| Kind | string | `.spec.reference.kind` | `-o wide` |  |",
		"| `kind` | ReferenceType (string): one of `Fischer`, `Flunder` | Kind is the kind of the referenced object. | `\"Flunder\"` |  |",
		"| `name` (required) | string | Name is the name of the referenced flunder or fischer. |  | length at most 253; pattern `^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$` |",
		"| `conditions` | []`meta/v1.Condition` | Conditions are the latest observations of the Flunder's state. |  | list of `map` keyed by `type` |",
		"| `reference` | [FlunderReference](#v1beta1-flunderreference) |",
		"<a id=\"v1beta1-flunderreference\"></a>**FlunderReference**",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("the reference lacks %q:\n%s", want, doc)
		}
	}
	if strings.Contains(doc, "+apigen") || strings.Contains(doc, "+optional") || strings.Contains(doc, "apiVersion") {
		t.Errorf("the reference shows markers or TypeMeta:\n%s", doc)
	}
}

// TestReferenceOwnsItsDirectory: a project without groups has no reference, and the
// directory of the one an earlier run wrote is still searched for stale files.
func TestReferenceOwnsItsDirectory(t *testing.T) {
	out, err := engine.Run(&engine.Context{Project: &model.Project{}}, []engine.Generator{docs.Generator()})
	if err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 {
		t.Errorf("a reference without groups: %q", out.Paths())
	}
	if roots := out.Roots(); !slices.Equal(roots, []string{"docs"}) {
		t.Errorf("Roots = %q, want docs", roots)
	}
}
