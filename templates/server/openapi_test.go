package server

import (
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	openapicommon "k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// toy is a kind of a test group; its definition is named like openapi-gen names a type of
// a project's API package.
type toy struct {
	metav1.TypeMeta
	metav1.ObjectMeta
}

func (t *toy) DeepCopyObject() runtime.Object { c := *t; return &c }
func (*toy) OpenAPIModelName() string         { return "com.example.toys.v1.Toy" }

// TestConstrainedDefinitions: a kind's schema constraints reach the definitions of the
// project's types, through references, items and map values, those of the project's other
// packages the kinds use too (shared's, named by import path); another module's type takes
// the constraints of its fields (its own markers') but not those of one use; Kubernetes' own
// types (metav1's) are left as they are. The required fields are the schema's, also where it has none
// and openapi-gen listed one (+required beside +kubebuilder:validation:Optional).
func TestConstrainedDefinitions(t *testing.T) {
	scheme := runtime.NewScheme()
	gvk := schema.GroupVersionKind{Group: "toys.example.com", Version: "v1", Kind: "Toy"}
	scheme.AddKnownTypeWithName(gvk, &toy{})
	str := spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"string"}}}
	defs := func(ref openapicommon.ReferenceCallback) map[string]openapicommon.OpenAPIDefinition {
		return map[string]openapicommon.OpenAPIDefinition{
			"com.example.toys.v1.Toy": {Schema: spec.Schema{SchemaProps: spec.SchemaProps{
				Type: []string{"object"},
				Properties: map[string]spec.Schema{
					"metadata": {SchemaProps: spec.SchemaProps{Ref: ref("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")}},
					"spec":     {SchemaProps: spec.SchemaProps{AllOf: []spec.Schema{{SchemaProps: spec.SchemaProps{Ref: ref("com.example.toys.v1.ToySpec")}}}}},
				},
			}}},
			"com.example.toys.v1.ToySpec": {Schema: spec.Schema{SchemaProps: spec.SchemaProps{
				Type: []string{"object"},
				Properties: map[string]spec.Schema{
					"replicas": {SchemaProps: spec.SchemaProps{Type: []string{"integer"}}},
					"names":    {SchemaProps: spec.SchemaProps{Type: []string{"array"}, Items: &spec.SchemaOrArray{Schema: &str}}},
					"origin":   {SchemaProps: spec.SchemaProps{Ref: ref("example.com/toys/pkg/apis/shared.Origin")}},
					"policy":   {SchemaProps: spec.SchemaProps{Ref: ref("github.com/example/common/v2.Policy")}},
				},
			}}},
			"example.com/toys/pkg/apis/shared.Origin": {Schema: spec.Schema{SchemaProps: spec.SchemaProps{
				Type:       []string{"object"},
				Required:   []string{"batch"},
				Properties: map[string]spec.Schema{"batch": {SchemaProps: spec.SchemaProps{Type: []string{"integer"}}}},
			}}},
			"github.com/example/common/v2.Policy": {Schema: spec.Schema{SchemaProps: spec.SchemaProps{
				Type:       []string{"object"},
				Properties: map[string]spec.Schema{"resolution": {SchemaProps: spec.SchemaProps{Type: []string{"string"}}}},
			}}},
			"io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta": {Schema: spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"}}}},
		}
	}
	schemas := Schemas{gvk: `{"type":"object","properties":{
		"metadata":{"type":"object","maxProperties":1},
		"spec":{"type":"object","required":["replicas"],
			"x-kubernetes-validations":[{"rule":"self.replicas <= 10","message":"too many"}],
			"properties":{
				"replicas":{"type":"integer","minimum":1,"maximum":10},
				"names":{"type":"array","maxItems":3,"items":{"type":"string","pattern":"^[a-z]+$"}},
				"origin":{"type":"object","properties":{"batch":{"type":"integer","minimum":1}}},
				"policy":{"type":"object","maxProperties":1,
					"properties":{"resolution":{"type":"string","enum":["Required","Optional"]}}}}}}}`}

	// As kube-openapi's builders write a reference: the name escaped as a JSON pointer.
	ref := func(name string) spec.Ref {
		return spec.MustCreateRef("#/definitions/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(name))
	}
	got := schemas.constrain(scheme, []string{"example.com/toys/pkg/apis/shared"}, defs)(ref)

	toySpec := got["com.example.toys.v1.ToySpec"].Schema
	replicas := toySpec.Properties["replicas"]
	if replicas.Minimum == nil || *replicas.Minimum != 1 || replicas.Maximum == nil || *replicas.Maximum != 10 {
		t.Errorf("spec.replicas: minimum %v, maximum %v; want 1 and 10", replicas.Minimum, replicas.Maximum)
	}
	names := toySpec.Properties["names"]
	if names.MaxItems == nil || *names.MaxItems != 3 || names.Items.Schema.Pattern != "^[a-z]+$" {
		t.Errorf("spec.names: maxItems %v, items pattern %q; want 3 and ^[a-z]+$", names.MaxItems, names.Items.Schema.Pattern)
	}
	if len(toySpec.Required) != 1 || toySpec.Required[0] != "replicas" {
		t.Errorf("ToySpec required %v, want [replicas]", toySpec.Required)
	}
	rules, _ := json.Marshal(toySpec.Extensions["x-kubernetes-validations"])
	if string(rules) != `[{"message":"too many","rule":"self.replicas \u003c= 10"}]` {
		t.Errorf("ToySpec x-kubernetes-validations %s, want the CEL rule", rules)
	}
	origin := got["example.com/toys/pkg/apis/shared.Origin"].Schema
	if batch := origin.Properties["batch"]; batch.Minimum == nil || *batch.Minimum != 1 {
		t.Errorf("shared Origin.batch: minimum %v, want 1", batch.Minimum)
	}
	if len(origin.Required) != 0 {
		t.Errorf("shared Origin required %v, want none, as the schema has it", origin.Required)
	}
	policy := got["github.com/example/common/v2.Policy"].Schema
	if enum := policy.Properties["resolution"].Enum; len(enum) != 2 || enum[0] != "Required" || enum[1] != "Optional" {
		t.Errorf("another module's Policy.resolution: enum %v, want its own marker's [Required Optional]", enum)
	}
	if policy.MaxProperties != nil {
		t.Errorf("another module's Policy got maxProperties %d: a constraint of one use must not change a shared type", *policy.MaxProperties)
	}
	if meta := got["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"].Schema; meta.MaxProperties != nil {
		t.Errorf("metav1's ObjectMeta got maxProperties %d: constraints of one use must not change a shared type", *meta.MaxProperties)
	}
}

// TestRequiredInFieldOrder: the published required fields are the schema's set, in the order
// openapi-gen lists them (the fields' order, as kube-apiserver publishes them), where
// controller-gen sorts them; a name only the schema requires comes last.
func TestRequiredInFieldOrder(t *testing.T) {
	for _, c := range []struct{ openapiGen, schema, want []string }{
		{[]string{"type", "status"}, []string{"status", "type"}, []string{"type", "status"}},
		{[]string{"type", "status"}, []string{"status"}, []string{"status"}},
		{[]string{"type"}, []string{"reason", "type"}, []string{"type", "reason"}},
		{nil, nil, []string{}},
	} {
		if got := inOrderOf(c.openapiGen, c.schema); strings.Join(got, ",") != strings.Join(c.want, ",") || got == nil {
			t.Errorf("inOrderOf(%v, %v) = %v, want %v", c.openapiGen, c.schema, got, c.want)
		}
	}
}
