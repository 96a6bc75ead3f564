package golang

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"

	"github.com/apigen-dev/apigen/generators/engine"
	"github.com/apigen-dev/apigen/templates"
)

// serverTemplateImport is how templates/server/servertest imports the server runtime; in a
// project that import becomes <module>/pkg/cmd/server.
const serverTemplateImport = "github.com/apigen-dev/apigen/templates/server"

// Server copies the server runtime (package templates/server: options, local mode, command)
// into pkg/cmd/server, and its test support (templates/server/servertest) into
// pkg/cmd/server/servertest. It does not depend on the model, so it is kept as real Go code that
// is compiled and tested in apigen itself, and copied with the generated header.
func Server() engine.Generator { return serverGen{} }

type serverGen struct{}

func (serverGen) Name() string { return "server" }

func (serverGen) Generate(ctx *engine.Context, out *engine.Output) error {
	for _, dir := range []string{"server", "server/servertest"} {
		names, err := fs.Glob(templates.Server, dir+"/*.go")
		if err != nil {
			return err
		}
		for _, name := range names {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			src, err := fs.ReadFile(templates.Server, name)
			if err != nil {
				return err
			}
			src, keep := storageVariant(src, ctx.Project.SQL)
			if !keep {
				continue
			}
			target := path.Join(serverDir, strings.TrimPrefix(path.Dir(name), "server"), "zz_generated."+path.Base(name))
			source := "// Copied from apigen's server runtime, " + path.Join(path.Dir(serverTemplateImport), name) + ".\n"
			// Sub-packages import the runtime by its template path; point them at the copy.
			if old := []byte(strconv.Quote(serverTemplateImport)); dir != "server" && bytes.Contains(src, old) {
				src = bytes.ReplaceAll(src, old, []byte(strconv.Quote(path.Join(ctx.Project.Module, serverDir))))
				source = "// Copied from apigen's server runtime, " + path.Join(path.Dir(serverTemplateImport), name) + ",\n" +
					"// with its import of the runtime changed to this project's copy.\n"
			}
			if bytes.Contains(src, []byte(`"`+path.Dir(path.Dir(serverTemplateImport))+"/")) {
				return fmt.Errorf("%s imports apigen, which a project does not depend on", name)
			}
			source += runtimeStamp + RuntimeVersion() + ".\n"
			formatted, err := engine.FormatGo(target, append(withSource(ctx.GoHeader, source), src...))
			if err != nil {
				return err
			}
			if err := out.Add(target, formatted); err != nil {
				return err
			}
		}
	}
	return nil
}

// etcdOnlyTag is the build tag that builds templates/server as a project without SQL storage
// (no +apigen:sql) gets it: its files for SQL storage say //go:build !apigen_etcdonly, and the
// stand-ins for them (etcdonly.go) //go:build apigen_etcdonly.
const etcdOnlyTag = "apigen_etcdonly"

// storageVariant says whether the runtime file src is copied into a project that does (sql) or
// does not link SQL storage, and returns it without its build constraint on etcdOnlyTag, which
// only chose the variant in apigen's own tree.
func storageVariant(src []byte, sql bool) ([]byte, bool) {
	for _, c := range []struct {
		line string
		sql  bool
	}{{"//go:build !" + etcdOnlyTag + "\n\n", true}, {"//go:build " + etcdOnlyTag + "\n\n", false}} {
		if rest, ok := bytes.CutPrefix(src, []byte(c.line)); ok {
			return rest, c.sql == sql
		}
	}
	return src, true
}

// withSource puts the lines that say where a copied file comes from right under the header's
// "Code generated" line, which says not to edit it. They name the file in apigen's source
// tree and the apigen version that copied it (RuntimeVersion: a release, or "(devel)" for any
// build from source, never a commit), so the output of a checkout does not vary between builds.
func withSource(header []byte, source string) []byte {
	out := append(append([]byte{}, bytes.TrimRight(header, "\n")...), '\n') // a copy: header is shared
	return append(append(out, source...), '\n')
}
