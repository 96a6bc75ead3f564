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

// TestOpenAPINarrowedUniverse shows that narrowing openapi-gen's universe (enumUniverse)
// changes nothing it writes: on projects whose types use enums of their own and of
// k8s.io/api, the definitions are byte for byte those of a run over the whole load. In
// examples/wardle, one value of its enum is declared in a package that is no input of
// openapi-gen's, which openapi-gen still lists.
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
			}
			load, model, err := pipeline.Model(project)
			if err != nil {
				t.Fatal(err)
			}
			header := engine.GoHeader(nil, "2026")
			run := func(g engine.Generator) *engine.Output {
				t.Helper()
				out, err := engine.Run(&engine.Context{Project: model, Load: load, GoHeader: header}, []engine.Generator{g})
				if err != nil {
					t.Fatal(err)
				}
				return out
			}
			narrowed, whole := run(kube.OpenAPI()), run(kube.OpenAPIWholeUniverse())
			if narrowed.Len() == 0 {
				t.Fatal("openapi-gen wrote nothing")
			}
			if definitions, _ := whole.Get("pkg/generated/openapi/zz_generated.openapi.go"); extraValue && !bytes.Contains(definitions, []byte(`"Bar"`)) {
				t.Error("openapi-gen over the whole load does not list the enum value declared outside its inputs")
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
