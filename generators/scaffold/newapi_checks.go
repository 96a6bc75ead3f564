package scaffold

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/apigen-dev/apigen/generators/loader"
	"github.com/apigen-dev/apigen/generators/markers"
	"github.com/apigen-dev/apigen/generators/model"
)

// reservedKinds are kinds every API group version already has: metav1.AddToGroupVersion
// registers them in each (WatchEvent and the options types) or as unversioned types, and
// kubectl reads a kind "List" as a list of mixed objects.
var reservedKinds = []string{
	"List", "Status", "WatchEvent", "ListOptions", "GetOptions", "DeleteOptions", "CreateOptions",
	"UpdateOptions", "PatchOptions", "APIVersions", "APIGroupList", "APIGroup", "APIResourceList",
}

// checkKind refuses kind names that generation or the server would reject later: reserved
// kinds, names generation declares in the version package, and plural kinds (Widgets would be
// served as widgetses) unless the plural is given explicitly.
func checkKind(o APIOptions, plural string) error {
	if slices.Contains(reservedKinds, o.Kind) {
		return fmt.Errorf("--kind %s is reserved: every API group version already has a kind %s (from k8s.io/apimachinery's meta/v1); choose another name", o.Kind, o.Kind)
	}
	if slices.Contains(loader.GeneratedNames, o.Kind) {
		return fmt.Errorf("--kind %s would clash with the %s that apigen generate declares in every version package; choose another name", o.Kind, o.Kind)
	}
	if singular, ok := strings.CutSuffix(o.Kind, "s"); ok && o.Plural == "" && pluralOf(singular) == strings.ToLower(o.Kind) {
		return fmt.Errorf("--kind %s looks plural: a kind names one object (--kind %s), its resource is the plural (%s); if %s is singular, pass --plural=%s",
			o.Kind, singular, strings.ToLower(o.Kind), o.Kind, plural)
	}
	if o.Plural != "" && !model.IsResourceName(o.Plural) {
		return fmt.Errorf("--plural %q is not a valid resource name: lower-case letters, digits and '-', starting with a letter (like %s)", o.Plural, pluralOf(o.Kind))
	}
	return nil
}

// kindTypes are the Go types new-api declares for a kind, with what each is to the kind.
func kindTypes(o APIOptions) [][2]string {
	names := [][2]string{{o.Kind, "type"}, {o.Kind + "Spec", "its spec type"}, {o.Kind + "List", "its list type"}}
	if o.Status {
		names = append(names, [2]string{o.Kind + "Status", "its status type"})
	}
	return names
}

// checkClashes refuses a kind whose types would redeclare a name of the version package in
// dir (a kind WidgetSpec next to a kind Widget, or Thing after a kind ThingList), naming the
// declaration it clashes with. Generated files are left out, as the loader leaves them out.
func checkClashes(root, dir string, o APIOptions) error {
	fset := token.NewFileSet()
	files := loader.ParseDir(fset, filepath.Join(root, filepath.FromSlash(dir)))
	declared := map[string]token.Position{}
	for _, f := range files {
		for _, id := range loader.Declared(f, false) {
			declared[id.Name] = fset.Position(id.Pos())
		}
	}
	for _, t := range kindTypes(o) {
		pos, ok := declared[t[0]]
		if !ok {
			continue
		}
		if rel, err := filepath.Rel(root, pos.Filename); err == nil {
			pos.Filename = filepath.ToSlash(rel)
		}
		return fmt.Errorf("--kind %s: %s %s is already declared at %s; choose another kind name", o.Kind, t[1], t[0], pos)
	}
	return nil
}

// checkGroupDir refuses a group whose directory pkg/apis/<short> already holds another group
// (--group wardle.other.org where pkg/apis/wardle is wardle.example.com): one directory is one
// group, and the version's types would otherwise join the other group.
func checkGroupDir(root, short, full string) error {
	groupDir := path.Join("pkg/apis", short)
	versions, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(groupDir)))
	if err != nil {
		return nil // a new group
	}
	reg := markers.Apigen()
	for _, v := range versions {
		if !v.IsDir() {
			continue
		}
		name, pos := groupNameIn(reg, root, path.Join(groupDir, v.Name()))
		if name != "" && name != full {
			return fmt.Errorf("group %s would live in %s, which already holds group %s (+groupName at %s); one directory holds one group: use --group %s, or a group whose first part is not %q",
				full, groupDir, name, pos, name, short)
		}
	}
	return nil
}

// groupNameIn returns the +groupName of the version package in dir (project-relative) and
// where it is, or "" when none of its files has one.
func groupNameIn(reg *markers.Registry, root, dir string) (string, token.Position) {
	entries, _ := os.ReadDir(filepath.Join(root, filepath.FromSlash(dir)))
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, filepath.Join(root, filepath.FromSlash(dir), e.Name()), nil, parser.ParseComments|parser.PackageClauseOnly)
		if err != nil {
			continue
		}
		for _, cg := range f.Comments {
			if name, pos := groupNameMarker(reg, fset, cg); name != "" {
				pos.Filename = path.Join(dir, e.Name())
				return name, pos
			}
		}
	}
	return "", token.Position{}
}

// groupNameMarker returns the value of a +groupName marker in a comment group.
func groupNameMarker(reg *markers.Registry, fset *token.FileSet, cg *ast.CommentGroup) (string, token.Position) {
	for _, c := range cg.List {
		pos := fset.Position(c.Slash)
		if m, err := reg.Parse(c.Text, markers.Package, pos); err == nil && m != nil {
			if name, ok := m.Args.(markers.GroupName); ok {
				return string(name), pos
			}
		}
	}
	return "", token.Position{}
}
