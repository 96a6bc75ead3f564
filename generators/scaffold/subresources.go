package scaffold

import (
	"path"
	"slices"
	"strings"

	"github.com/apigen-dev/apigen/generators/golang"
	"github.com/apigen-dev/apigen/generators/model"
)

// customSubresource is the data of templates/scaffold/api/subresource.go.tmpl.
type customSubresource struct {
	model.CustomSubresource
	Package, File, Kind, Plural, VersionPackage, VersionImport string
	GoName, VerbList                                           string
	Get, Create, Update, Delete, Connect                       bool
}

// SubresourceStubs writes, for every custom subresource of the project whose file is missing,
// the user-owned stub of its REST storage in the kind's registry package
// (pkg/registry/<group>/<kind>/<name>.go): New<Name>REST, which the generated install code
// calls, and a method per declared verb that fails until the user writes it. Existing files
// are left alone.
func SubresourceStubs(root string, p *model.Project) (Result, error) {
	var res Result
	for _, g := range p.Groups {
		for _, h := range g.Hubs() {
			r := h.Resource
			for _, c := range r.Subresources.Custom {
				file := path.Join(golang.RegistryDir(g, r), c.Name+".go")
				data := customSubresource{
					CustomSubresource: c, Package: golang.RegistryPackage(r), File: file, Kind: r.Kind, Plural: r.Plural,
					VersionPackage: path.Base(h.Version.Package), VersionImport: h.Version.Package,
					GoName: c.GoName(), VerbList: strings.Join(c.Verbs, ", "),
					Get: slices.Contains(c.Verbs, "get"), Create: slices.Contains(c.Verbs, "create"),
					Update: slices.Contains(c.Verbs, "update"), Delete: slices.Contains(c.Verbs, "delete"),
					Connect: slices.Contains(c.Verbs, "connect"),
				}
				one, err := Write(root, []File{{Path: file, Template: "scaffold/api/subresource.go.tmpl", IfExists: Skip}}, data)
				if err != nil {
					return res, err
				}
				res.Written = append(res.Written, one.Written...)
				res.Skipped = append(res.Skipped, one.Skipped...)
			}
		}
	}
	return res, nil
}
