package golang

import (
	"strings"
	"testing"

	"github.com/apigen-dev/apigen/generators/engine"
	"github.com/apigen-dev/apigen/generators/model"
)

// TestServerCopiesTestSupport checks that the runtime and its servertest package are copied,
// tests left out, and that servertest imports the project's copy of the runtime.
func TestServerCopiesTestSupport(t *testing.T) {
	ctx := &engine.Context{Project: &model.Project{Module: "example.com/heldout"}, GoHeader: engine.GoHeader(nil, "")}
	out := engine.NewOutput()
	if err := Server().Generate(ctx, out); err != nil {
		t.Fatal(err)
	}
	paths := strings.Join(out.Paths(), " ")
	for _, want := range []string{"pkg/cmd/server/zz_generated.server.go", "pkg/cmd/server/zz_generated.inprocess.go", "pkg/cmd/server/servertest/zz_generated.servertest.go"} {
		if !strings.Contains(paths, want) {
			t.Errorf("server generator did not write %s; it wrote %s", want, paths)
		}
	}
	if strings.Contains(paths, "_test.go") {
		t.Errorf("server generator copied a test file: %s", paths)
	}
	src, _ := out.Get("pkg/cmd/server/servertest/zz_generated.servertest.go")
	contains(t, string(src), "package servertest\n", "\t\"example.com/heldout/pkg/cmd/server\"\n")
	lacks(t, string(src), "apigen-dev/apigen")
}
