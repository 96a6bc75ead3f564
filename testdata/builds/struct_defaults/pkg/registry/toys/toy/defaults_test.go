package toy

import (
	"encoding/json"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apimachinery/pkg/runtime"

	"example.com/wardle/pkg/apis/toys/install"
	v1 "example.com/wardle/pkg/apis/toys/v1"
)

// TestDefaultsAsACRD defaults objects as the server does (the scheme's defaulters, run on every
// decode) and as kube-apiserver defaults a CustomResourceDefinition with the same schema
// (structural defaulting, the schema apigen embeds for validation), and compares spec and
// status.
func TestDefaultsAsACRD(t *testing.T) {
	structural := structuralSchema(t)
	scheme := runtime.NewScheme()
	install.Install(scheme)
	for _, tc := range []struct{ name, in string }{
		{"status and spec fields absent", `{"spec":{}}`},
		{"set values kept, list items defaulted", `{"spec":{"maxUnavailable":"25%","parts":[{"name":"a"},{"size":{"unit":"mm"}}]},"status":{"observedGeneration":3}}`},
		{"defaults inside a set struct", `{"spec":{"empty":{"value":"x"}},"status":{"observedGeneration":2}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			crd := decode(t, tc.in)
			structuraldefaulting.Default(crd, structural)
			var toy v1.Toy
			if err := json.Unmarshal([]byte(tc.in), &toy); err != nil {
				t.Fatal(err)
			}
			scheme.Default(&toy)
			ours, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&toy)
			if err != nil {
				t.Fatal(err)
			}
			for _, part := range []string{"spec", "status"} {
				// As JSON: numbers decode as float64 on one side, int64 on the other.
				want, _ := json.Marshal(crd[part])
				got, _ := json.Marshal(ours[part])
				if string(want) != string(got) {
					t.Errorf("%s: a CRD defaults it to %s, the server to %s", part, want, got)
				}
			}
		})
	}
}

func structuralSchema(t *testing.T) *structuralschema.Structural {
	t.Helper()
	var props apiextensionsv1.JSONSchemaProps
	if err := json.Unmarshal([]byte(Schemas["v1"]), &props); err != nil {
		t.Fatal(err)
	}
	var internal apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(&props, &internal, nil); err != nil {
		t.Fatal(err)
	}
	s, err := structuralschema.NewStructural(&internal)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func decode(t *testing.T, in string) map[string]any {
	t.Helper()
	var out map[string]any
	if err := json.Unmarshal([]byte(in), &out); err != nil {
		t.Fatal(err)
	}
	return out
}
