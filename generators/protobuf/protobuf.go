// Package protobuf generates the protobuf methods of the types a project serves, without protoc
// or any plugin: what k8s.io/apimachinery's protobuf serializer calls (Size,
// MarshalToSizedBuffer, Marshal, Reset, Unmarshal, ProtoMessage) for every type reachable from a
// served kind and its list, into zz_generated.protobuf.go beside the types, with a
// generated.proto per package that declares the messages for clients in other languages. The
// encoding is the one go-to-protobuf's gogo code writes for Kubernetes' own types (proto2,
// fields not nullable but for pointers, maps sorted by key), so a type declared as k8s.io/api
// declares it encodes to the same bytes. Field numbers come from a field's protobuf struct tag
// when it has one; otherwise from the package's generated.proto, which records them, and a new
// field takes the next number free.
package protobuf

import (
	"errors"
	"fmt"
	"go/token"
	gotypes "go/types"
	"path"
	"path/filepath"
	"slices"
	"strings"

	gengotypes "k8s.io/gengo/v2/types"

	"github.com/apigen-dev/apigen/generators/engine"
	"github.com/apigen-dev/apigen/generators/markers"
	"github.com/apigen-dev/apigen/generators/model"
)

const (
	goFileName    = "zz_generated.protobuf.go"
	protoFileName = "generated.proto"
)

// New returns the protobuf generator.
func New() engine.Upstream { return gen{} }

type gen struct{}

func (gen) Name() string { return "protobuf" }

func (gen) Generate(ctx *engine.LoadContext, out *engine.Output) error {
	if ctx.Load == nil || ctx.Load.Universe == nil {
		return nil
	}
	module := ctx.Project.Module
	w := &walker{
		module:   module,
		messages: map[*gotypes.Named]*message{},
		local: func(pkg string) bool {
			p := ctx.Load.Universe[pkg]
			return strings.HasPrefix(pkg, module+"/") && p != nil && p.Dir != ""
		},
		nullable: func(n *gotypes.Named) bool {
			if n.Obj().Pkg() == nil {
				return false
			}
			p := ctx.Load.Universe[n.Obj().Pkg().Path()]
			if p == nil || p.Types[n.Obj().Name()] == nil {
				return false
			}
			t := p.Types[n.Obj().Name()]
			return protobufNullable(t.CommentLines) || protobufNullable(t.SecondClosestCommentLines)
		},
		position: func(p token.Pos) token.Position {
			at := ctx.Load.Fset.Position(p)
			if rel, err := filepath.Rel(ctx.Load.Root, at.Filename); err == nil && filepath.IsAbs(at.Filename) && !strings.HasPrefix(rel, "..") {
				at.Filename = filepath.ToSlash(rel)
			}
			return at
		},
	}
	type root struct {
		group *model.Group
		r     *model.Resource
		kinds []*message
		// registered is a runtime.Object of a package that registers its types itself, which
		// no served kind reaches (extensions/v1beta1's Scale): the group is protobuf only if it is.
		registered string
		version    string
	}
	var roots []root
	for _, g := range ctx.Project.Groups {
		for _, v := range g.Versions {
			pkg := ctx.Load.Universe[v.Package]
			if pkg == nil {
				continue
			}
			if optedOut(pkg.Comments) || optedOut(pkg.DocComments) {
				roots = append(roots, root{group: g})
				continue
			}
			goPkg := typesPackage(pkg.Types, v.Package)
			for _, r := range v.Resources {
				rt := root{group: g, r: r}
				for _, kind := range []string{r.Kind, r.ListKind} {
					t := pkg.Types[kind]
					if kind == "" || t == nil {
						continue
					}
					if optedOut(t.CommentLines) || optedOut(t.SecondClosestCommentLines) {
						rt.kinds = nil
						break
					}
					named := lookup(goPkg, kind)
					if named == nil {
						continue
					}
					rt.kinds = append(rt.kinds, w.message(named))
				}
				roots = append(roots, rt)
			}
			if !v.OwnRegistration && !v.ControllerRuntime {
				continue // apigen registers the kinds and their lists only
			}
			for _, name := range registeredObjects(goPkg, pkg.Types, v) {
				t := pkg.Types[name]
				rt := root{group: g, registered: name, version: v.Name}
				if t == nil || !optedOut(t.CommentLines) && !optedOut(t.SecondClosestCommentLines) {
					rt.kinds = []*message{w.message(lookup(goPkg, name))}
				}
				roots = append(roots, rt)
			}
		}
	}
	propagate(w.order)

	// A kind that cannot be encoded is served without protobuf (the server offers protobuf
	// for a group only when every kind has it): each says why, at the field that stops it.
	// The kind's warning says it all; its list's would say it again.
	for _, rt := range roots {
		for _, m := range rt.kinds {
			if m.broken != "" && rt.registered != "" {
				ctx.Warn(m.brokenPos, "%s (a runtime.Object %s/%s registers, which no served kind reaches) has no protobuf encoding, so the group is served without protobuf: %s; mark the type +apigen:protobuf=false to leave it out knowingly", m.name, rt.group.Name, rt.version, m.broken)
				break
			}
			if m.broken != "" {
				ctx.Warn(m.brokenPos, "%s (kind %s of %s) has no protobuf encoding, so the group is served without protobuf: %s; mark the kind +apigen:protobuf=false to leave it out knowingly", m.name, rt.r.Kind, rt.group.Name, m.broken)
				break
			}
		}
	}

	for _, g := range ctx.Project.Groups {
		g.Protobuf = true
	}
	for _, rt := range roots {
		if len(rt.kinds) == 0 {
			rt.group.Protobuf = false
		}
		for _, m := range rt.kinds {
			if m.broken != "" {
				rt.group.Protobuf = false
			}
		}
	}

	byPkg := map[string][]*message{}
	for _, m := range w.order {
		if !m.ready && m.broken == "" {
			byPkg[m.pkg] = append(byPkg[m.pkg], m)
		}
	}
	var errs []error
	for _, pkgPath := range slices.Sorted(mapKeys(byPkg)) {
		msgs := byPkg[pkgPath]
		slices.SortFunc(msgs, func(a, b *message) int { return strings.Compare(a.name, b.name) })
		dir := strings.TrimPrefix(pkgPath, module+"/")
		protoPath := path.Join(dir, protoFileName)
		old, err := readProto(ctx, protoPath)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if err := number(msgs, old); err != nil {
			errs = append(errs, err)
			continue
		}
		goSrc, protoSrc, err := render(ctx.GoHeader, dir, msgs, old)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if err := out.Add(path.Join(dir, goFileName), goSrc); err != nil {
			errs = append(errs, err)
		}
		if err := out.Add(protoPath, protoSrc); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// render writes the files of one package's messages, numbered: its Go methods behind header,
// and its generated.proto.
func render(header []byte, dir string, msgs []*message, old recorded) (goSrc, protoSrc []byte, err error) {
	goPkg := msgs[0].named.Obj().Pkg()
	f := newGoFile(goPkg)
	f.use("io")
	f.use("fmt")
	f.use("math/bits")
	for _, m := range msgs {
		f.emitMessage(m)
	}
	f.b.WriteString(packageFuncs)
	goSrc, err = engine.FormatGo(path.Join(dir, goFileName), append(append([]byte{}, header...), f.source(goPkg.Name())...))
	if err != nil {
		return nil, nil, err
	}
	return goSrc, idl(goPkg, msgs, old), nil
}

// runtimeObjectTag is the deepcopy-gen tag that makes a type a runtime.Object.
const runtimeObjectTag = "+k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object"

// registeredObjects are the top-level struct types of a version package that registers its
// types itself that are runtime.Objects (they embed metav1.TypeMeta, or carry deepcopy-gen's
// runtime.Object tag) and are none of its served kinds or lists: types the package registers
// for requests and subresources (extensions/v1beta1's Scale and DeploymentRollback), which
// the server must encode in protobuf too for it to offer protobuf for the group.
func registeredObjects(goPkg *gotypes.Package, types map[string]*gengotypes.Type, v *model.Version) []string {
	if goPkg == nil {
		return nil
	}
	served := map[string]bool{}
	for _, r := range v.Resources {
		served[r.Kind], served[r.ListKind] = true, true
	}
	var out []string
	for _, name := range goPkg.Scope().Names() {
		n := lookup(goPkg, name)
		if served[name] || n == nil || !n.Obj().Exported() || n.TypeParams().Len() > 0 {
			continue
		}
		st, ok := n.Underlying().(*gotypes.Struct)
		if !ok {
			continue
		}
		object := false
		for i := range st.NumFields() {
			if f := st.Field(i); f.Embedded() {
				if e, ok := gotypes.Unalias(f.Type()).(*gotypes.Named); ok && qualified(e) == "k8s.io/apimachinery/pkg/apis/meta/v1.TypeMeta" {
					object = true
				}
			}
		}
		if t := types[name]; t != nil {
			for _, l := range append(slices.Clone(t.CommentLines), t.SecondClosestCommentLines...) {
				if strings.ReplaceAll(strings.TrimSpace(l), " ", "") == runtimeObjectTag {
					object = true
				}
			}
		}
		if object {
			out = append(out, name)
		}
	}
	return out
}

// typesPackage finds the go/types package of a package of the universe through its types.
func typesPackage(types map[string]*gengotypes.Type, path string) *gotypes.Package {
	for _, name := range slices.Sorted(mapKeys(types)) {
		if n, ok := types[name].GoType.(*gotypes.Named); ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == path {
			return n.Obj().Pkg()
		}
	}
	return nil
}

// lookup is the named type of a package by its name (gengo's GoType of a type may be its
// underlying type), nil when there is none.
func lookup(pkg *gotypes.Package, name string) *gotypes.Named {
	if pkg == nil {
		return nil
	}
	tn, ok := pkg.Scope().Lookup(name).(*gotypes.TypeName)
	if !ok {
		return nil
	}
	n, _ := gotypes.Unalias(tn.Type()).(*gotypes.Named)
	return n
}

// propagate marks broken every message with a field of a broken message, until none changes
// (types may refer to each other in a cycle).
func propagate(msgs []*message) {
	for changed := true; changed; {
		changed = false
		for _, m := range msgs {
			if m.broken != "" || m.ready {
				continue
			}
			for _, f := range m.fields {
				if f.value.msg != nil && f.value.msg.broken != "" {
					m.broken, m.brokenPos = fmt.Sprintf("field %s: %s", f.goName, f.value.msg.broken), f.value.msg.brokenPos
					changed = true
					break
				}
			}
		}
	}
}

// optedOut reports whether comment lines hold +apigen:protobuf=false, on a package or a kind.
func optedOut(lines []string) bool {
	for _, l := range lines {
		if strings.ReplaceAll(strings.TrimSpace(l), " ", "") == "+"+markers.ProtobufMarker+"=false" {
			return true
		}
	}
	return false
}

// protobufNullable reports whether a type's comment carries +protobuf.nullable=true, go-to-protobuf's
// tag for a named slice or map that a field holds as a message, nil apart from empty.
func protobufNullable(lines []string) bool {
	for _, l := range lines {
		if strings.ReplaceAll(strings.TrimSpace(l), " ", "") == "+protobuf.nullable=true" {
			return true
		}
	}
	return false
}
