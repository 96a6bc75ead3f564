package kube_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/apigen-dev/apigen/generators/engine"
	"github.com/apigen-dev/apigen/generators/kube"
	"github.com/apigen-dev/apigen/generators/pipeline"
	"github.com/apigen-dev/apigen/internal/testproject"
)

// TestOpenAPINarrowedUniverse shows that narrowing openapi-gen's universe (enumUniverse),
// and each definition's enum scan within it (enumScope), changes nothing it writes: on
// projects whose types use enums of their own and of k8s.io/api, the definitions are byte for
// byte those of a run over the whole load with upstream's scan per definition. In
// examples/wardle, one value of its enum is declared in a package that is no input of
// openapi-gen's, which openapi-gen still lists; and a definition there reaches an enum of
// another package (with a value declared in a third) through an inlined member, an inlined
// pointer, pointers, slices, a named slice and maps, and lists its values at each.
func TestOpenAPINarrowedUniverse(t *testing.T) {
	if testing.Short() {
		t.Skip("loads several projects")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	projects := []string{filepath.Join(root, "examples", "wardle"), filepath.Join(root, "testdata", "builds", "declarative_validation")}
	models, err := filepath.Glob(filepath.Join(root, "testdata", "models", "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range append(projects, models...) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			project := testproject.Copy(t, root, dir)
			extraValue := filepath.Base(dir) == "wardle"
			if extraValue {
				more := filepath.Join(project, "pkg", "apis", "wardle", "v1beta1", "more")
				if err := os.MkdirAll(more, 0o755); err != nil {
					t.Fatal(err)
				}
				src := "package more\n\nimport \"example.com/wardle/pkg/apis/wardle/v1beta1\"\n\n// BarReferenceType refers to a Bar.\nconst BarReferenceType = v1beta1.ReferenceType(\"Bar\")\n"
				if err := os.WriteFile(filepath.Join(more, "more.go"), []byte(src), 0o644); err != nil {
					t.Fatal(err)
				}
				writePaint(t, project)
			}
			load, model, err := pipeline.Model(project, nil)
			if err != nil {
				t.Fatal(err)
			}
			header := engine.GoHeader(nil, "2026")
			run := func(g engine.Upstream) *engine.Output {
				t.Helper()
				out, err := engine.RunUpstream(&engine.LoadContext{Context: engine.Context{Project: model, GoHeader: header}, Load: load}, []engine.Upstream{g})
				if err != nil {
					t.Fatal(err)
				}
				return out
			}
			narrowed, whole := run(kube.OpenAPI()), run(kube.OpenAPIWholeUniverse())
			if narrowed.Len() == 0 {
				t.Fatal("openapi-gen wrote nothing")
			}
			if definitions, _ := whole.Get("pkg/generated/openapi/zz_generated.openapi.go"); extraValue {
				if !bytes.Contains(definitions, []byte(`"Bar"`)) {
					t.Error("openapi-gen over the whole load does not list the enum value declared outside its inputs")
				}
				// Primary and Accent in each of Paint and Canvas, and Paint's seven others.
				if n := bytes.Count(definitions, []byte(`[]interface{}{"Blue", "Green", "Red"}`)); n != 11 {
					t.Errorf("openapi-gen over the whole load lists paint.Color's values %d times, want 11", n)
				}
			}
			if !narrowed.Equal(whole) {
				for _, name := range whole.Paths() {
					a, _ := narrowed.Get(name)
					b, _ := whole.Get(name)
					if !bytes.Equal(a, b) {
						t.Errorf("%s differs when openapi-gen sees only the packages it reads", name)
					}
				}
				t.Errorf("the narrowed universe's output (%d files) differs from the whole load's (%d)", narrowed.Len(), whole.Len())
			}
		})
	}
}

// writePaint adds to a copy of examples/wardle an enum, paint.Color, declared in a package of
// its own with a third value declared in another, and two v1beta1 definitions that reach it
// only through members that are no input of openapi-gen's: Paint inlines paint.Palette and
// holds colors behind pointers, slices, a named slice and maps; Canvas inlines a pointer to
// paint.Palette.
func writePaint(t *testing.T, project string) {
	t.Helper()
	v1beta1 := filepath.Join(project, "pkg", "apis", "wardle", "v1beta1")
	files := map[string]string{
		filepath.Join(v1beta1, "paint", "paint.go"): `package paint

// Color is a paint's color.
// +enum
type Color string

const (
	// Red is red.
	Red Color = "Red"
	// Blue is blue.
	Blue Color = "Blue"
)

// Colors is a list of colors.
type Colors []Color

// Palette is inlined by the definitions that use it.
type Palette struct {
	// Primary is the main color.
	Primary Color ` + "`json:\"primary\"`" + `
	// Accent is the second color.
	// +optional
	Accent *Color ` + "`json:\"accent,omitempty\"`" + `
}
`,
		filepath.Join(v1beta1, "more", "green.go"): `package more

import "example.com/wardle/pkg/apis/wardle/v1beta1/paint"

// Green is a color declared beside neither the type nor its other values.
const Green = paint.Color("Green")
`,
		filepath.Join(v1beta1, "paint_types.go"): `package v1beta1

import "example.com/wardle/pkg/apis/wardle/v1beta1/paint"

// Paint reaches paint.Color through an inlined member and through pointers, slices and maps.
type Paint struct {
	paint.Palette ` + "`json:\",inline\"`" + `

	// +optional
	Tint *paint.Color ` + "`json:\"tint,omitempty\"`" + `
	// +optional
	Tints []paint.Color ` + "`json:\"tints,omitempty\"`" + `
	// +optional
	TintPointers []*paint.Color ` + "`json:\"tintPointers,omitempty\"`" + `
	// +optional
	Named paint.Colors ` + "`json:\"named,omitempty\"`" + `
	// +optional
	ByName map[string]paint.Color ` + "`json:\"byName,omitempty\"`" + `
	// +optional
	ListsByName map[string][]*paint.Color ` + "`json:\"listsByName,omitempty\"`" + `
	// +optional
	Rows [][]paint.Color ` + "`json:\"rows,omitempty\"`" + `
}

// Canvas inlines a pointer to paint.Palette.
type Canvas struct {
	*paint.Palette ` + "`json:\",inline\"`" + `
}
`,
	}
	for name, src := range files {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
