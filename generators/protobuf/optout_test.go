package protobuf_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apigen-dev/apigen/generators/pipeline"
)

const typesHeader = `package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
`

// kind declares a served kind with a spec and its list.
func kind(name, markers, spec string) string {
	return markers + "// +apigen:resource\ntype " + name + " struct {\n\tmetav1.TypeMeta `json:\",inline\"`\n\tmetav1.ObjectMeta `json:\"metadata,omitempty\"`\n\tSpec " + name + "Spec `json:\"spec\"`\n}\n\n" +
		"type " + name + "Spec struct {\n" + spec + "}\n\n" +
		"type " + name + "List struct {\n\tmetav1.TypeMeta `json:\",inline\"`\n\tmetav1.ListMeta `json:\"metadata,omitempty\"`\n\tItems []" + name + " `json:\"items\"`\n}\n\n"
}

// TestShapesAndOptOut generates a project whose kinds are encodable, of a shape protobuf has no
// encoding for, or left out with +apigen:protobuf=false on the kind or on the package.
func TestShapesAndOptOut(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a project")
	}
	root := t.TempDir()
	files := map[string]string{
		"pkg/apis/toys/v1/doc.go": "// +groupName=toys.example.com\npackage v1\n",
		"pkg/apis/toys/v1/types.go": typesHeader + "\n" +
			kind("Good", "", "\tName string `json:\"name\"`\n\tData []byte `json:\"data\"`\n") +
			kind("Shapes", "", "\tName string `json:\"name\"`\n\tWeird map[string][]string `json:\"weird\"`\n") +
			kind("Skipped", "// +apigen:protobuf=false\n", "\tAny map[string][]string `json:\"any\"`\n") +
			kind("Grid", "", "\tRows map[string]Matrix `json:\"rows\"`\n") +
			"// Matrix is a named slice of slices: no message of its elements has an encoding.\ntype Matrix [][]string\n",
		"pkg/apis/quiet/v1/doc.go":   "// +groupName=quiet.example.com\n// +apigen:protobuf=false\npackage v1\n",
		"pkg/apis/quiet/v1/types.go": typesHeader + "\n" + kind("Hush", "", "\tName string `json:\"name\"`\n"),
		"pkg/apis/fine/v1/doc.go":    "// +groupName=fine.example.com\npackage v1\n",
		"pkg/apis/fine/v1/types.go": typesHeader + "\nimport \"example.com/wardle/pkg/shared\"\n\n" +
			kind("Okay", "", "\tCount map[string]int64 `json:\"count\"`\n\tRef shared.Ref `json:\"ref\"`\n\tExtra map[string]Values `json:\"extra\"`\n") +
			"type Values []string\n",
		"pkg/shared/ref.go": "package shared\n\ntype Ref struct {\n\tName string `json:\"name\"`\n}\n",
	}
	res := generateProject(t, root, files)

	// The kind of a shape protobuf cannot encode: a warning at its field, and no methods.
	warnings := res.Project.Warnings.Error()
	want := "pkg/apis/toys/v1/types.go:32:2: warning: Shapes (kind Shapes of toys.example.com) has no protobuf encoding, so the group is served without protobuf: field Spec (ShapesSpec): field Weird (map[string][]string): map value: a slice here"
	if !strings.Contains(warnings, want) {
		t.Errorf("warnings:\n%s\nwant one that says:\n%s", warnings, want)
	}
	// A named slice in a map is a message of its elements, but not one whose elements have no
	// encoding themselves: the warning is at the type.
	want = "pkg/apis/toys/v1/types.go:77:6: warning: Grid (kind Grid of toys.example.com) has no protobuf encoding, so the group is served without protobuf: field Spec (GridSpec): field Rows (map[string]Matrix): map value: example.com/wardle/pkg/apis/toys/v1.Matrix: its element ([]string): a slice here"
	if !strings.Contains(warnings, want) {
		t.Errorf("warnings:\n%s\nwant one that says:\n%s", warnings, want)
	}
	if strings.Count(warnings, "has no protobuf encoding, so") != 2 {
		t.Errorf("warnings about protobuf, want only the Shapes and Grid kinds':\n%s", warnings)
	}
	toys, _ := res.Output.Get("pkg/apis/toys/v1/zz_generated.protobuf.go")
	for _, m := range []string{"func (m *Good) Marshal(", "func (m *GoodList) Unmarshal(", "func (m *GoodSpec) Size("} {
		if !strings.Contains(string(toys), m) {
			t.Errorf("toys lacks %s", m)
		}
	}
	for _, m := range []string{"(m *Shapes)", "(m *ShapesList)", "(m *Skipped)", "(m *SkippedSpec)"} {
		if strings.Contains(string(toys), m) {
			t.Errorf("toys has methods %s, of a kind without protobuf", m)
		}
	}
	if _, ok := res.Output.Get("pkg/apis/quiet/v1/zz_generated.protobuf.go"); ok {
		t.Error("a package marked +apigen:protobuf=false has protobuf methods")
	}
	if _, ok := res.Output.Get("pkg/apis/quiet/v1/generated.proto"); ok {
		t.Error("a package marked +apigen:protobuf=false has a generated.proto")
	}
	fine, _ := res.Output.Get("pkg/apis/fine/v1/generated.proto")
	if !strings.Contains(string(fine), "map<string, int64> count = 1;") || !strings.Contains(string(fine), "optional example.com.wardle.pkg.shared.Ref ref = 2;") {
		t.Errorf("fine's generated.proto:\n%s", fine)
	}
	// A named slice that is a map's value is the message of its elements, as k8s.io/api's
	// ExtraValue is: its methods are on the named type, by value but for Unmarshal and Reset.
	if !strings.Contains(string(fine), "message Values {\n  // Go field: Items\n  repeated string items = 1;\n}") || !strings.Contains(string(fine), "map<string, Values> extra = 3;") {
		t.Errorf("fine's generated.proto:\n%s", fine)
	}
	fineGo, _ := res.Output.Get("pkg/apis/fine/v1/zz_generated.protobuf.go")
	for _, m := range []string{"func (m Values) MarshalToSizedBuffer(", "func (m Values) Size(", "func (m *Values) Unmarshal(", "*m = append(*m, v)"} {
		if !strings.Contains(string(fineGo), m) {
			t.Errorf("fine lacks %s", m)
		}
	}
	// A type of another package of the project gets its methods in its own package.
	if shared, _ := res.Output.Get("pkg/shared/zz_generated.protobuf.go"); !strings.Contains(string(shared), "func (m *Ref) MarshalToSizedBuffer(") {
		t.Errorf("pkg/shared has no protobuf methods for Ref:\n%s", shared)
	}
	for _, g := range res.Project.Groups {
		if want := g.Name == "fine.example.com"; g.Protobuf != want {
			t.Errorf("group %s: Protobuf %v, want %v", g.Name, g.Protobuf, want)
		}
	}
	// The round-trip test covers protobuf only where every kind has it.
	rt, _ := res.Output.Get("pkg/apis/fine/install/zz_generated.roundtrip_test.go")
	if !strings.Contains(string(rt), "RoundTripProtobufTestForScheme") {
		t.Error("fine's round-trip test leaves protobuf out")
	}
	rt, _ = res.Output.Get("pkg/apis/toys/install/zz_generated.roundtrip_test.go")
	if strings.Contains(string(rt), "RoundTripProtobufTestForScheme") {
		t.Error("toys' round-trip test covers protobuf, which Shapes has not")
	}
}

// generateProject writes files (with examples/wardle's go.mod and go.sum) into root and runs
// apigen's pipeline over it.
func generateProject(t *testing.T, root string, files map[string]string) *pipeline.Result {
	t.Helper()
	for _, name := range []string{"go.mod", "go.sum"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "examples", "wardle", name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = string(data)
	}
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := pipeline.Run(root, pipeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}
