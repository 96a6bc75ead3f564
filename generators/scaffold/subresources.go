package scaffold

import (
	"path"
	"slices"
	"strings"

	"github.com/apigen-dev/apigen/generators/engine"
	"github.com/apigen-dev/apigen/generators/golang"
	"github.com/apigen-dev/apigen/generators/model"
)

// customSubresource is the data of templates/scaffold/api/subresource.go.tmpl.
type customSubresource struct {
	model.CustomSubresource
	Package, File, Group, Kind, Plural, VersionPackage, VersionImport string
	GoName, VerbList                                                  string
	Get, Create, Update, Delete, Connect                              bool
}

// customStorage is the data of templates/scaffold/api/storage.go.tmpl.
type customStorage struct {
	Package, File, Group, Kind, ListKind, Plural, Singular string
	VersionPackage, VersionImport, VerbList                string
	Namespaced                                             bool
	Get, List, Watch, Create, Update, Delete               bool
	DeleteCollection                                       bool
}

// StorageStubs returns the generator of the user-owned stubs of the REST storage a project
// writes itself, each in its kind's registry package, with a method per declared verb that
// fails until the user writes it (405 Method Not Allowed, naming the file to write it in). They
// are planned output that a run writes only when missing
// (engine.Output.AddScaffold), so verify names a missing one:
//   - for a kind with +apigen:storage:custom, pkg/registry/<group>/<kind>/storage.go with
//     NewStorage, which the generated install code calls instead of NewREST;
//   - for each custom subresource, pkg/registry/<group>/<kind>/<name>.go with New<Name>REST.
func StorageStubs() engine.Generator { return storageStubs{} }

type storageStubs struct{}

func (storageStubs) Name() string { return "storage-stubs" }

func (storageStubs) Generate(ctx *engine.Context, out *engine.Output) error {
	add := func(file, template string, data any) error {
		content, err := render(File{Path: file, Template: template}, data)
		if err != nil {
			return err
		}
		return out.AddScaffold(file, content, ", REST storage that is yours: write its verbs, they fail until you do")
	}
	for _, g := range ctx.Project.Groups {
		for _, h := range g.Hubs() {
			r := h.Resource
			if cs := r.Of.CustomStorage; cs != nil {
				file := path.Join(golang.RegistryDir(g, r), "storage.go")
				has := func(verb string) bool { return slices.Contains(cs.Verbs, verb) }
				data := customStorage{
					Package: golang.RegistryPackage(r), File: file, Group: g.Name, Kind: r.Kind, ListKind: r.ListKind,
					Plural: r.Of.Plural, Singular: r.Of.Singular, VersionPackage: path.Base(h.Version.Package),
					VersionImport: h.Version.Package, VerbList: strings.Join(cs.Verbs, ", "), Namespaced: r.Of.Namespaced(),
					Get: has("get"), List: has("list"), Watch: has("watch"), Create: has("create"), Update: has("update"),
					Delete: has("delete"), DeleteCollection: has("deletecollection"),
				}
				if err := add(file, "scaffold/api/storage.go.tmpl", data); err != nil {
					return err
				}
			}
			for _, c := range r.Subresources.Custom {
				file := path.Join(golang.RegistryDir(g, r), c.Name+".go")
				data := customSubresource{
					CustomSubresource: c, Package: golang.RegistryPackage(r), File: file, Group: g.Name, Kind: r.Kind, Plural: r.Of.Plural,
					VersionPackage: path.Base(h.Version.Package), VersionImport: h.Version.Package,
					GoName: c.GoName(), VerbList: strings.Join(c.Verbs, ", "),
					Get: slices.Contains(c.Verbs, "get"), Create: slices.Contains(c.Verbs, "create"),
					Update: slices.Contains(c.Verbs, "update"), Delete: slices.Contains(c.Verbs, "delete"),
					Connect: slices.Contains(c.Verbs, "connect"),
				}
				if err := add(file, "scaffold/api/subresource.go.tmpl", data); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
