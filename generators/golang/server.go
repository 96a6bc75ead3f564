package golang

import (
	"io/fs"
	"path"
	"strings"

	"github.com/apigen-dev/apigen/generators/engine"
	"github.com/apigen-dev/apigen/templates"
)

// Server copies the server runtime (package templates/server: options, local mode, command)
// into pkg/cmd/server. It does not depend on the model, so it is kept as real Go code that is
// compiled and tested in apigen itself, and copied with the generated header.
func Server() engine.Generator { return serverGen{} }

type serverGen struct{}

func (serverGen) Name() string { return "server" }

func (serverGen) Generate(ctx *engine.Context, out *engine.Output) error {
	names, err := fs.Glob(templates.Server, "server/*.go")
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
		target := path.Join(serverDir, "zz_generated."+path.Base(name))
		formatted, err := engine.FormatGo(target, append(append([]byte{}, ctx.GoHeader...), src...))
		if err != nil {
			return err
		}
		if err := out.Add(target, formatted); err != nil {
			return err
		}
	}
	return nil
}
