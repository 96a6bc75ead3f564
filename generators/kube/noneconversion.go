package kube

import (
	"bytes"
	"fmt"
	"maps"
	"path"
	"reflect"
	"slices"
	"strings"

	"k8s.io/gengo/v2/namer"
	"k8s.io/gengo/v2/types"

	"github.com/apigen-dev/apigen/generators/engine"
	"github.com/apigen-dev/apigen/generators/model"
	"github.com/apigen-dev/apigen/internal/jsonview"
)

// noneConversionFile holds, in a version directory, the conversion functions apigen writes for
// a version without conversion code (convertLikeStrategyNone).
const noneConversionFile = "zz_generated.conversion_none.go"

// withoutConversionCode reports whether version v converts as a CustomResourceDefinition
// without a conversion webhook: its package has no Convert_ function of the user's, no kind
// of it converts with ConvertTo and ConvertFrom, and its group has no internal version. Where
// conversion-gen cannot convert such a version's type by itself, apigen does what the CRD's
// conversion strategy None does rather than stop.
func withoutConversionCode(p *model.Project, v *model.Version) bool {
	if v == nil || len(v.HandConversions) > 0 {
		return false
	}
	for _, g := range p.Groups {
		if !slices.Contains(g.Versions, v) {
			continue
		}
		if g.Internal != nil {
			return false
		}
		for _, other := range g.Versions {
			for _, r := range other.Resources {
				if r.ConvertsByMethods() {
					return false
				}
			}
		}
	}
	return true
}

// convertLikeStrategyNone writes, per version directory, the conversion functions that
// conversion-gen left to a version without conversion code (stubs): each converts through
// JSON, as kube-apiserver converts a custom resource whose CRD has conversion strategy None
// (it changes apiVersion, then prunes what the target version's schema lacks): fields of one
// JSON path carry over, and what the target has no field for, or a field of another type,
// is dropped. Each field dropped is a positioned warning; those of a hub's package are
// recorded in the model (Project.ConversionDrops) for the round-trip test, which leaves them empty.
func convertLikeStrategyNone(ctx *engine.LoadContext, out *engine.Output, stubs map[string][]ConversionStub) error {
	for _, dir := range slices.Sorted(maps.Keys(stubs)) {
		v := versionInDir(ctx.Project, dir)
		list := slices.SortedFunc(slices.Values(stubs[dir]), func(a, b ConversionStub) int { return strings.Compare(a.Name, b.Name) })
		for _, s := range list {
			warnDropped(ctx, v, s)
		}
		src, err := noneConversionSource(ctx, v, list)
		if err != nil {
			return err
		}
		if err := out.Add(path.Join(dir, noneConversionFile), src); err != nil {
			return err
		}
	}
	return nil
}

// noneConversionSource is the Go file of version v's functions list.
func noneConversionSource(ctx *engine.LoadContext, v *model.Version, list []ConversionStub) ([]byte, error) {
	helper := "convertThroughJSON"
	for i := 2; hasDecl(v, helper) || hasDecl(v, helper+"Drop"); i++ {
		helper = fmt.Sprintf("convertThroughJSON%d", i)
	}
	imports := map[string]string{"json": "encoding/json", "errors": "errors", "reflect": "reflect", "strings": "strings", "conversion": "k8s.io/apimachinery/pkg/conversion"}
	for _, s := range list {
		maps.Copy(imports, s.Imports)
	}
	var b bytes.Buffer
	b.Write(ctx.GoHeader)
	fmt.Fprintf(&b, "package %s\n\nimport (\n", path.Base(v.Package))
	for _, name := range slices.Sorted(maps.Keys(imports)) {
		fmt.Fprintf(&b, "\t%s %q\n", name, imports[name])
	}
	b.WriteString(")\n")
	for _, s := range list {
		fmt.Fprintf(&b, "\n// %s converts through JSON, as a\n", s.Name)
		b.WriteString("// CustomResourceDefinition with conversion strategy None converts: fields of one JSON path carry\n")
		b.WriteString("// over, and what the target lacks is dropped. conversion-gen could not convert it by itself:\n")
		for _, r := range s.Reasons {
			fmt.Fprintf(&b, "//   - %s\n", r)
		}
		b.WriteString("//\n// A function of this name in a file of your own replaces it.\n")
		fmt.Fprintf(&b, "%s {\n\t*out = %s{}\n\treturn %s(in, out)\n}\n", s.Signature(), s.Out, helper)
	}
	fmt.Fprintf(&b, `
// %[1]s marshals in and unmarshals the JSON into out. A field whose JSON is of another type
// in out is left out, as the rest of out is filled: the value a CustomResourceDefinition with
// conversion strategy None would serve unpruned, which out cannot hold.
func %[1]s(in, out any) error {
	data, err := json.Marshal(in)
	if err != nil {
		return err
	}
	var tree any
	for {
		reflect.ValueOf(out).Elem().SetZero()
		err := json.Unmarshal(data, out)
		var typeErr *json.UnmarshalTypeError
		if err == nil || !errors.As(err, &typeErr) {
			return err
		}
		if tree == nil {
			if err := json.Unmarshal(data, &tree); err != nil {
				return err
			}
		}
		if !%[1]sDrop(tree, strings.Split(typeErr.Field, ".")) {
			return nil // what encoding/json could fill is filled
		}
		if data, err = json.Marshal(tree); err != nil {
			return err
		}
	}
}

// %[1]sDrop deletes the field at path from the JSON tree, in every item of the arrays on its
// way, and reports whether there was one.
func %[1]sDrop(tree any, path []string) bool {
	switch t := tree.(type) {
	case map[string]any:
		if len(path) == 1 {
			_, ok := t[path[0]]
			delete(t, path[0])
			return ok
		}
		return %[1]sDrop(t[path[0]], path[1:])
	case []any:
		dropped := false
		for _, item := range t {
			dropped = %[1]sDrop(item, path) || dropped
		}
		return dropped
	}
	return false
}
`, helper)
	return engine.FormatGo(path.Join(v.Dir, noneConversionFile), b.Bytes())
}

// hasDecl reports whether version v's package declares name.
func hasDecl(v *model.Version, name string) bool {
	_, ok := v.DeclPos[name]
	return ok
}

// warnDropped warns once at each field that stub s's conversion drops, and records those of
// a hub's package for the round-trip test.
func warnDropped(ctx *engine.LoadContext, v *model.Version, s ConversionStub) {
	in, out := ctx.Load.Universe.Type(s.inType), ctx.Load.Universe.Type(s.outType)
	if in == nil || out == nil {
		return
	}
	hubs := hubPackages(ctx.Project)
	fallback := v.DeclPos[s.In]
	if strings.Contains(s.In, ".") {
		fallback = v.DeclPos[s.Out]
	}
	for _, d := range droppedFields(in, out) {
		pos, ok := ctx.Load.MemberPos(d.owner, d.member.Name)
		if !ok {
			pos = fallback
		}
		ctx.Warn(pos, "%s.%s (JSON %s of %s) is dropped converting %s to %s: %s; a version without conversion code converts as a CustomResourceDefinition with conversion strategy None does (write %s to keep it)",
			d.owner.Name.Name, d.member.Name, strings.TrimPrefix(d.path, "."), in.Name.Name, path.Base(in.Name.Package), path.Base(out.Name.Package), d.why, s.Name)
		if hubs[d.owner.Name.Package] {
			if ctx.Project.ConversionDrops == nil {
				ctx.Project.ConversionDrops = map[string][]model.HiddenField{}
			}
			f := model.HiddenField{Type: d.owner.Name.Name, Go: []model.FieldStep{{Name: d.member.Name}}, Pos: pos}
			if !slices.ContainsFunc(ctx.Project.ConversionDrops[d.owner.Name.Package], func(o model.HiddenField) bool {
				return o.Type == f.Type && o.Go[0].Name == f.Go[0].Name
			}) {
				ctx.Project.ConversionDrops[d.owner.Name.Package] = append(ctx.Project.ConversionDrops[d.owner.Name.Package], f)
			}
		}
	}
}

// hubPackages are the packages of the project's hub versions.
func hubPackages(p *model.Project) map[string]bool {
	out := map[string]bool{}
	for _, g := range p.Groups {
		for _, h := range g.Hubs() {
			out[h.Version.Package] = true
		}
	}
	return out
}

// dropped is a field of a struct that a conversion through JSON drops.
type dropped struct {
	owner  *types.Type  // the struct that declares the field
	member types.Member // the field
	path   string       // its JSON path from the converted type: .spec.accessFrom
	why    string
}

// droppedFields are the fields of in that do not survive in's JSON unmarshalled into out:
// those out has no field of the same JSON name for, and those whose JSON is of another kind
// there (an object where out wants a string), at any depth.
func droppedFields(in, out *types.Type) []dropped {
	var found []dropped
	seen := map[[2]*types.Type]bool{}
	var walk func(in, out *types.Type, prefix string)
	walk = func(in, out *types.Type, prefix string) {
		in, out = underlying(in), underlying(out)
		if in == out || seen[[2]*types.Type{in, out}] {
			return
		}
		seen[[2]*types.Type{in, out}] = true
		switch {
		case in.Kind == types.Struct && out.Kind == types.Struct && !customJSON(in) && !customJSON(out):
			targets := map[string]jsonField{}
			for _, f := range jsonFields(out) {
				targets[f.name] = f
			}
			for _, f := range jsonFields(in) {
				p := prefix + "." + f.name
				t, ok := targets[f.name]
				switch {
				case !ok:
					found = append(found, dropped{f.owner, f.member, p, fmt.Sprintf("%s has no field %q", shortName(out.Name), f.name)})
				case jsonKind(t.member.Type) != "any" && jsonKind(f.member.Type) != jsonKind(t.member.Type):
					found = append(found, dropped{f.owner, f.member, p, fmt.Sprintf("its JSON is %s in %s, %s here", jsonKind(t.member.Type), shortName(out.Name), jsonKind(f.member.Type))})
				default:
					walk(f.member.Type, t.member.Type, p)
				}
			}
		case (in.Kind == types.Slice || in.Kind == types.Array) && (out.Kind == types.Slice || out.Kind == types.Array):
			walk(in.Elem, out.Elem, prefix+"[*]")
		case in.Kind == types.Map && out.Kind == types.Map:
			walk(in.Elem, out.Elem, prefix+"[*]")
		}
	}
	walk(in, out, "")
	return found
}

// shortName is n as a Go file that imports its package writes it: v1.BucketSpec.
func shortName(n types.Name) string { return path.Base(n.Package) + "." + n.Name }

// jsonField is a field of a struct's JSON, and the struct (the one named, or one it inlines)
// that declares it.
type jsonField struct {
	name   string
	member types.Member
	owner  *types.Type
}

// jsonFields are the fields encoding/json writes for struct t, inlined structs followed.
func jsonFields(t *types.Type) []jsonField {
	var out []jsonField
	t = underlying(t)
	for _, m := range t.Members {
		name, _, _ := strings.Cut(reflect.StructTag(m.Tags).Get("json"), ",")
		switch {
		case name == "-":
			continue
		case jsonview.Inlined(&m) || (m.Embedded && name == "" && underlying(m.Type).Kind == types.Struct):
			out = append(out, jsonFields(m.Type)...)
			continue
		case namer.IsPrivateGoName(m.Name):
			continue
		case name == "":
			name = m.Name
		}
		out = append(out, jsonField{name, m, t})
	}
	return out
}

// underlying is t without pointers and aliases.
func underlying(t *types.Type) *types.Type {
	for t != nil && (t.Kind == types.Pointer || t.Kind == types.Alias) {
		if t.Kind == types.Pointer {
			t = t.Elem
		} else {
			if customJSON(t) {
				return t
			}
			t = t.Underlying
		}
	}
	return t
}

// customJSON reports whether t encodes itself (metav1.Time, resource.Quantity).
func customJSON(t *types.Type) bool {
	_, ok := t.Methods["UnmarshalJSON"]
	return ok
}

// jsonKind is the kind of JSON value t encodes to: object, array, string, number, boolean,
// or, for a type that encodes itself, its name (another such type is another kind).
func jsonKind(t *types.Type) string {
	t = underlying(t)
	if t == nil {
		return "any"
	}
	if customJSON(t) {
		return t.Name.String()
	}
	switch t.Kind {
	case types.Struct, types.Map:
		return "an object"
	case types.Slice, types.Array:
		if e := underlying(t.Elem); e != nil && e.Kind == types.Builtin && e.Name.Name == "byte" {
			return "a string"
		}
		return "an array"
	case types.Interface:
		return "any"
	case types.Builtin:
		switch t.Name.Name {
		case "string":
			return "a string"
		case "bool":
			return "a boolean"
		}
		return "a number"
	}
	return string(t.Kind)
}
