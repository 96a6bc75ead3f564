package scaffold

import (
	"go/token"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"

	"github.com/apigen-dev/apigen/generators/model"
)

// Modules are the modules the generated code imports, each at the version apigen builds and
// tests that code against (its own go.mod's; TestVersionsMatchApigen).
func Modules() map[string]string {
	return map[string]string{
		"k8s.io/api":                     KubernetesVersion,
		"k8s.io/apiextensions-apiserver": KubernetesVersion,
		"k8s.io/apimachinery":            KubernetesVersion,
		"k8s.io/apiserver":               KubernetesVersion,
		"k8s.io/client-go":               KubernetesVersion,
		"k8s.io/component-base":          KubernetesVersion,
		"k8s.io/kube-openapi":            KubeOpenAPIVersion,
		"go.etcd.io/etcd/server/v3":      EtcdVersion,
		kineModule:                       KineVersion,
	}
}

// CheckSQLRequirement holds the go.mod of a project that links SQL storage (+apigen:sql) to
// requiring kine: one that does not gets an error with the go get that adds it, as an upgrade
// of apigen that turns SQL storage on needs.
func CheckSQLRequirement(name string, data []byte) model.ErrorList {
	f, err := modfile.ParseLax(name, data, nil)
	if err != nil || f.Module == nil {
		return nil // the loader reports a go.mod it cannot parse
	}
	for _, r := range f.Require {
		if r.Mod.Path == kineModule {
			return nil // an older one is CheckRequirements'
		}
	}
	var errs model.ErrorList
	pos := token.Position{Filename: name, Line: f.Module.Syntax.Start.Line, Column: f.Module.Syntax.Start.LineRune}
	errs.Add(pos, "requires no %s, and +apigen:sql=true links SQL storage through it: run go get %s", kineModule, strings.Join(SQLDependencies(), " "))
	return errs
}

// kineModule is the module of SQL storage.
const kineModule = "github.com/k3s-io/kine"

// CheckRequirements compares what a project's go.mod (data, read from name) requires with
// Modules: a module of another, older minor version is an error, since the generated code
// uses what its version has; an older patch release is a warning. Either names the go.mod
// line and ends with the one go get that brings every such module to apigen's version, so an
// upgrade of apigen says what to do instead of leaving go build to fail. Newer versions and
// modules the project does not require are left to go build (which names the go get of a
// missing one itself).
func CheckRequirements(name string, data []byte) (errs, warnings model.ErrorList) {
	f, err := modfile.ParseLax(name, data, nil)
	if err != nil {
		return nil, nil // the loader reports a go.mod it cannot parse
	}
	want := Modules()
	type outdated struct {
		pos        token.Position
		path, have string
		minor      bool
	}
	var found []outdated
	for _, r := range f.Require {
		v, ok := want[r.Mod.Path]
		if !ok || semver.Compare(r.Mod.Version, v) >= 0 {
			continue
		}
		pos := token.Position{Filename: name, Line: r.Syntax.Start.Line, Column: r.Syntax.Start.LineRune}
		found = append(found, outdated{pos, r.Mod.Path, r.Mod.Version, semver.MajorMinor(r.Mod.Version) != semver.MajorMinor(v)})
	}
	if len(found) == 0 {
		return nil, nil
	}
	var gets []string
	for _, o := range found {
		gets = append(gets, o.path+"@"+want[o.path])
	}
	slices.Sort(gets)
	fix := "go get " + strings.Join(gets, " ")
	for _, o := range found {
		if o.minor {
			errs.Add(o.pos, "requires %s %s; the generated code is built for %s: run %s", o.path, o.have, want[o.path], fix)
		} else {
			warnings.Add(o.pos, "warning: requires %s %s; the generated code is tested with %s: run %s", o.path, o.have, want[o.path], fix)
		}
	}
	return errs, warnings
}
