package protobuf_test

import (
	"strings"
	"testing"
)

// registerGo is a register.go of a package that registers its types itself, as k8s.io/api's
// do, with the types given besides its kinds.
func registerGo(group string, types ...string) string {
	return `package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var SchemeGroupVersion = schema.GroupVersion{Group: "` + group + `", Version: "v1"}

var (
	SchemeBuilder      = runtime.NewSchemeBuilder(addKnownTypes)
	localSchemeBuilder = &SchemeBuilder
	AddToScheme        = localSchemeBuilder.AddToScheme
)

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(SchemeGroupVersion, &` + strings.Join(types, "{}, &") + `{})
	metav1.AddToGroupVersion(scheme, SchemeGroupVersion)
	return nil
}
`
}

// TestRegisteredTypesNoKindReaches generates a project whose packages register, besides their
// kinds, runtime.Objects no served kind reaches (as extensions/v1beta1 registers Scale and
// DeploymentRollback): they get their protobuf methods, and one of a shape protobuf cannot
// encode is a warning at its field that keeps its group on JSON.
func TestRegisteredTypesNoKindReaches(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a project")
	}
	root := t.TempDir()
	files := map[string]string{
		"pkg/apis/ext/v1/doc.go":      "// +groupName=ext.example.com\npackage v1\n",
		"pkg/apis/ext/v1/register.go": registerGo("ext.example.com", "Widget", "WidgetList", "Rollback", "Tagged"),
		"pkg/apis/ext/v1/types.go": typesHeader + "\n" + kind("Widget", "", "\tName string `json:\"name\"`\n") +
			"type Rollback struct {\n\tmetav1.TypeMeta `json:\",inline\"`\n\tName string `json:\"name\"`\n\tTo RollbackTo `json:\"to\"`\n}\n\n" +
			"type RollbackTo struct {\n\tRevision int64 `json:\"revision\"`\n}\n\n" +
			"// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object\ntype Tagged struct {\n\tNote string `json:\"note\"`\n}\n\n" +
			"func (t *Tagged) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }\n\n" +
			"// Aside is no runtime.Object, and no kind reaches it.\ntype Aside struct {\n\tName string `json:\"name\"`\n}\n",
		"pkg/apis/odd/v1/doc.go":      "// +groupName=odd.example.com\npackage v1\n",
		"pkg/apis/odd/v1/register.go": registerGo("odd.example.com", "Gadget", "GadgetList", "Request", "Skipped"),
		"pkg/apis/odd/v1/types.go": typesHeader + "\n" + kind("Gadget", "", "\tName string `json:\"name\"`\n") +
			"type Request struct {\n\tmetav1.TypeMeta `json:\",inline\"`\n\tWeird map[string][]string `json:\"weird\"`\n}\n\n" +
			"// +apigen:protobuf=false\ntype Skipped struct {\n\tmetav1.TypeMeta `json:\",inline\"`\n\tName string `json:\"name\"`\n}\n",
	}
	files["pkg/apis/ext/v1/types.go"] = strings.Replace(files["pkg/apis/ext/v1/types.go"], "import metav1 \"k8s.io/apimachinery/pkg/apis/meta/v1\"\n",
		"import (\n\tmetav1 \"k8s.io/apimachinery/pkg/apis/meta/v1\"\n\t\"k8s.io/apimachinery/pkg/runtime/schema\"\n)\n", 1)
	res := generateProject(t, root, files)

	ext, _ := res.Output.Get("pkg/apis/ext/v1/zz_generated.protobuf.go")
	for _, m := range []string{"func (m *Widget) Marshal(", "func (m *Rollback) Marshal(", "func (m *Rollback) Unmarshal(", "func (m *RollbackTo) Size(", "func (m *Tagged) MarshalToSizedBuffer("} {
		if !strings.Contains(string(ext), m) {
			t.Errorf("ext lacks %s", m)
		}
	}
	if strings.Contains(string(ext), "(m *Aside)") {
		t.Error("ext has methods of Aside, which is no runtime.Object and no kind reaches")
	}
	if odd, _ := res.Output.Get("pkg/apis/odd/v1/zz_generated.protobuf.go"); strings.Contains(string(odd), "(m *Skipped)") || strings.Contains(string(odd), "(m *Request)") || !strings.Contains(string(odd), "(m *Gadget)") {
		t.Errorf("odd's methods, want Gadget's and none of Skipped (left out) or Request (no encoding):\n%s", odd)
	}
	proto, _ := res.Output.Get("pkg/apis/ext/v1/generated.proto")
	if !strings.Contains(string(proto), "message Rollback {") || !strings.Contains(string(proto), "optional RollbackTo to = 2;") {
		t.Errorf("ext's generated.proto:\n%s", proto)
	}

	warnings := ""
	if res.Project.Warnings != nil {
		warnings = res.Project.Warnings.Error()
	}
	want := "pkg/apis/odd/v1/types.go:24:2: warning: Request (a runtime.Object odd.example.com/v1 registers, which no served kind reaches) has no protobuf encoding, so the group is served without protobuf: field Weird (map[string][]string): map value: a slice here"
	if !strings.Contains(warnings, want) {
		t.Errorf("warnings:\n%s\nwant one that says:\n%s", warnings, want)
	}
	if strings.Count(warnings, "has no protobuf encoding, so") != 1 {
		t.Errorf("warnings about protobuf, want only odd's Request's:\n%s", warnings)
	}
	// odd cannot encode Request, and leaves Skipped out knowingly (no warning): it keeps JSON.
	for _, g := range res.Project.Groups {
		if want := g.Name == "ext.example.com"; g.Protobuf != want {
			t.Errorf("group %s: Protobuf %v, want %v", g.Name, g.Protobuf, want)
		}
	}
}
