package protobuf

import (
	"fmt"
	"go/token"
	gotypes "go/types"
	"path"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// kind is how one value goes on the wire (proto2, as go-to-protobuf declares Kubernetes' types).
type kind int

const (
	kString kind = iota
	kBytes
	kBool
	kInt32
	kInt64
	kUint32
	kUint64
	kFloat64
	kFloat32
	kMessage
)

// protoName is the proto type of a scalar kind.
var protoName = map[kind]string{
	kString: "string", kBytes: "bytes", kBool: "bool", kInt32: "int32", kInt64: "int64",
	kUint32: "uint32", kUint64: "uint64", kFloat64: "double", kFloat32: "float",
}

// wire is the wire type of a kind.
func (k kind) wire() int {
	switch k {
	case kString, kBytes, kMessage:
		return 2
	case kFloat64:
		return 1
	case kFloat32:
		return 5
	}
	return 0
}

// elem is one value of a field: the field's own, a slice's element or a map's key or value.
type elem struct {
	kind kind
	// typ is the Go type of the value (a named type, or a builtin).
	typ gotypes.Type
	// msg is the message of a kMessage value.
	msg *message
}

// field is one field of a message.
type field struct {
	goName string
	// name is the field's proto name: its protobuf tag's, or its JSON name.
	name    string
	num     int
	tagged  bool // the number is the struct tag's
	value   elem
	pointer bool
	// repeated is a slice; mapKey is set for a map (then value is the map's value).
	repeated bool
	mapKey   *elem
	// goType is the field's Go type.
	goType gotypes.Type
	pos    token.Position
}

// message is a Go struct type the protobuf methods are generated for, or one that has them.
type message struct {
	named *gotypes.Named
	pkg   string
	name  string
	// protoSize says the type's size method is ProtoSize, as gogo-protobuf's protosizer option
	// names it, since a field of the type is named Size.
	protoSize bool
	// ready says the type has its protobuf methods already (k8s.io/apimachinery's, k8s.io/api's,
	// or its package's own): nothing is generated for it.
	ready  bool
	fields []*field
	pos    token.Position
	// broken is why the type cannot be encoded (a field of a shape protobuf has no encoding
	// for, or a message field that is broken), empty when it can.
	broken    string
	brokenPos token.Position
	// forward says the message is ready with the methods of gogo-protobuf before v1.3
	// (Marshal, MarshalTo, Size, Unmarshal: no MarshalToSizedBuffer, as in modules of
	// Kubernetes 1.15 and older): a message holding it encodes it forwards, through MarshalTo.
	forward bool
	// list is a named slice type (k8s.io/api's ExtraValue, a map's value), a message whose
	// field 1, items, holds the elements, as go-to-protobuf declares such a type; its
	// methods are on the named type itself.
	list bool
}

// protoMethods are the methods a nested message needs for the generated code to call.
var protoMethods = []string{"Size", "MarshalToSizedBuffer", "Unmarshal"}

// hasProtoMethods reports whether *t declares the methods protobuf needs of it: methods an
// embedded field promotes (ListMeta's, in a list type) encode that field alone. Those of an
// older gogo-protobuf (MarshalTo where MarshalToSizedBuffer is missing) count too.
func hasProtoMethods(t *gotypes.Named) bool {
	for _, name := range protoMethods {
		if !declaresMethod(t, name) && !(name == "MarshalToSizedBuffer" && declaresMethod(t, "MarshalTo")) {
			return false
		}
	}
	return true
}

// sizer is the name of the message's size method: Size, as the Kubernetes protobuf
// serializer calls it on an object, or ProtoSize for a type with a field named Size (a nested
// type; the serializer marshals an object of such a kind through Marshal).
func (m *message) sizer() string {
	if m != nil && m.protoSize {
		return "ProtoSize"
	}
	return "Size"
}

// generatedMethods are the methods the generated code declares on a message that a field of
// the same name would make impossible (Size has ProtoSize instead; String is left out).
var generatedMethods = []string{"Marshal", "MarshalTo", "MarshalToSizedBuffer", "Unmarshal", "Reset", "ProtoMessage", "ProtoSize"}

// hasField reports whether the struct t declares a field of that name itself (an embedded
// struct's fields are promoted below the methods, and do not clash).
func hasField(t *gotypes.Named, name string) bool {
	st, ok := t.Underlying().(*gotypes.Struct)
	if !ok {
		return false
	}
	for i := range st.NumFields() {
		if st.Field(i).Name() == name {
			return true
		}
	}
	return false
}

// declaresMethod reports whether t or *t declares the method name itself (not promoted from
// an embedded field): the generated code must not declare it again.
func declaresMethod(t *gotypes.Named, name string) bool {
	sel := gotypes.NewMethodSet(gotypes.NewPointer(t)).Lookup(nil, name)
	return sel != nil && len(sel.Index()) == 1
}

// droppedTypes are the embedded types go-to-protobuf leaves out (its --drop-embedded-fields):
// TypeMeta travels in the runtime.Unknown envelope around every object.
var droppedTypes = map[string]bool{"k8s.io/apimachinery/pkg/apis/meta/v1.TypeMeta": true}

// walker finds the messages reachable from the served kinds.
type walker struct {
	module string
	// local reports whether a package's methods may be generated (a package of the project).
	local    func(pkg string) bool
	position func(token.Pos) token.Position
	// nullable reports whether a named slice or map type carries +protobuf.nullable=true
	// (nil: none does).
	nullable func(*gotypes.Named) bool
	messages map[*gotypes.Named]*message
	order    []*message
}

// message returns the message of a named struct type, walking its fields the first time.
func (w *walker) message(t *gotypes.Named) *message {
	if m, ok := w.messages[t]; ok {
		return m
	}
	m := &message{named: t, name: t.Obj().Name(), pos: w.position(t.Obj().Pos())}
	if t.Obj().Pkg() != nil {
		m.pkg = t.Obj().Pkg().Path()
	}
	w.messages[t] = m
	w.order = append(w.order, m)
	st, isStruct := t.Underlying().(*gotypes.Struct)
	sl := listOf(t)
	switch {
	case hasProtoMethods(t):
		m.ready = true
		m.forward = !declaresMethod(t, "MarshalToSizedBuffer")
		return m
	case !isStruct && sl == nil:
		m.broken, m.brokenPos = fmt.Sprintf("%s is not a struct", qualified(t)), m.pos
		return m
	case !w.local(m.pkg):
		m.broken, m.brokenPos = fmt.Sprintf("%s has no protobuf methods, and its package is not the project's", qualified(t)), m.pos
		return m
	case t.TypeParams().Len() > 0:
		m.broken, m.brokenPos = fmt.Sprintf("%s is generic", qualified(t)), m.pos
		return m
	case sl != nil:
		m.list = true
		f := &field{goName: "Items", name: "items", num: 1, tagged: true, repeated: true, goType: sl, pos: m.pos}
		e, why := w.elem(sl.Elem())
		f.value = e
		if why != "" {
			m.broken, m.brokenPos = fmt.Sprintf("%s: its element (%s): %s", qualified(t), gotypes.TypeString(sl.Elem(), relativeTo(m.pkg)), why), m.pos
			if e.msg != nil && e.msg.broken != "" {
				m.brokenPos = e.msg.brokenPos
			}
			return m
		}
		m.fields = []*field{f}
		return m
	}
	for _, name := range generatedMethods {
		if hasField(t, name) {
			m.broken, m.brokenPos = fmt.Sprintf("%s has a field %s, the name of a method the protobuf encoding declares", qualified(t), name), m.pos
			return m
		}
	}
	m.protoSize = hasField(t, "Size")
	for i := range st.NumFields() {
		v := st.Field(i)
		if !v.Exported() {
			continue
		}
		tag := reflect.StructTag(st.Tag(i))
		pbTag, hasPB := tag.Lookup("protobuf")
		if pbTag == "-" {
			continue
		}
		if v.Embedded() {
			if n, ok := gotypes.Unalias(v.Type()).(*gotypes.Named); ok && droppedTypes[qualified(n)] {
				continue
			}
		}
		f := &field{goName: v.Name(), goType: v.Type(), pos: w.position(v.Pos())}
		if hasPB {
			parts := strings.Split(pbTag, ",")
			if len(parts) >= 2 {
				if n, err := strconv.Atoi(parts[1]); err == nil && n > 0 {
					f.num, f.tagged = n, true
				}
			}
			if !f.tagged {
				m.broken, m.brokenPos = fmt.Sprintf("field %s has a malformed protobuf tag %q", v.Name(), pbTag), f.pos
				return m
			}
			for _, p := range parts[2:] {
				if name, ok := strings.CutPrefix(p, "name="); ok {
					f.name = name
				}
			}
		}
		if js, ok := tag.Lookup("json"); ok {
			name, _, _ := strings.Cut(js, ",")
			if name == "-" && !f.tagged {
				continue
			}
			if f.name == "" && name != "" && name != "-" {
				f.name = name
			}
		}
		if f.name == "" {
			f.name = strings.ToLower(v.Name()[:1]) + v.Name()[1:]
		}
		f.name = protoIdent(f.name)
		// Two fields of one JSON name (one hides the other from encoding/json, under an inlined
		// struct) are two fields here: the later takes its Go name.
		if slices.ContainsFunc(m.fields, func(o *field) bool { return o.name == f.name }) {
			f.name = protoIdent(strings.ToLower(v.Name()[:1]) + v.Name()[1:] + "_" + f.name)
		}
		if why := w.shape(f, v.Type()); why != "" {
			m.broken, m.brokenPos = fmt.Sprintf("field %s (%s): %s", v.Name(), gotypes.TypeString(v.Type(), relativeTo(m.pkg)), why), f.pos
			if f.value.msg != nil && f.value.msg.broken != "" {
				m.brokenPos = f.value.msg.brokenPos // where the shape is, under the field
			}
			return m
		}
		m.fields = append(m.fields, f)
	}
	return m
}

// shape fills the field's shape from its Go type, or says why protobuf cannot encode it.
func (w *walker) shape(f *field, t gotypes.Type) string {
	t = gotypes.Unalias(t)
	if w.messageList(t) {
		// A named slice with +protobuf.nullable=true (or protobuf methods of its own, as
		// metav1's Verbs): the message of its elements, written when the slice is not nil,
		// as go-to-protobuf encodes metav1.APIResource's verbs.
		e, why := w.mapValue(t)
		f.value = e
		return why
	}
	if p, ok := t.(*gotypes.Pointer); ok {
		f.pointer = true
		if w.messageList(p.Elem()) {
			e, why := w.mapValue(p.Elem())
			f.value = e
			return why
		}
		e, why := w.elem(p.Elem())
		if why == "" && e.kind == kBytes {
			return "a pointer to bytes has no protobuf encoding"
		}
		f.value = e
		return why
	}
	if e, why := w.elem(t); why == "" {
		f.value = e
		return ""
	}
	switch u := t.Underlying().(type) {
	case *gotypes.Slice:
		e, why := w.elem(u.Elem())
		f.repeated, f.value = true, e
		return why
	case *gotypes.Map:
		k, why := w.elem(u.Key())
		if why != "" || k.kind != kString {
			return "protobuf maps here have string keys"
		}
		v, why := w.mapValue(u.Elem())
		f.mapKey, f.value = &k, v
		if why != "" {
			return "map value: " + why
		}
		return ""
	}
	e, why := w.elem(t)
	f.value = e
	return why
}

// listOf is the underlying slice of a named slice type that is not bytes, nil for any other type.
func listOf(t *gotypes.Named) *gotypes.Slice {
	sl, ok := t.Underlying().(*gotypes.Slice)
	if !ok {
		return nil
	}
	if b, ok := sl.Elem().Underlying().(*gotypes.Basic); ok && b.Kind() == gotypes.Byte {
		return nil
	}
	return sl
}

// messageList reports whether t is a named slice type that go-to-protobuf encodes as a message
// of its elements when a field holds it: one with +protobuf.nullable=true, or with protobuf
// methods of its own. Another named slice is its elements, repeated, as the unnamed slice.
func (w *walker) messageList(t gotypes.Type) bool {
	n, ok := gotypes.Unalias(t).(*gotypes.Named)
	if !ok || listOf(n) == nil {
		return false
	}
	return hasProtoMethods(n) || w.nullable != nil && w.nullable(n)
}

// mapValue is the shape of a map's value: as elem's, but a named slice type (map[string]ExtraValue)
// is a message of its elements, as go-to-protobuf encodes k8s.io/api's.
func (w *walker) mapValue(t gotypes.Type) (elem, string) {
	if n, ok := gotypes.Unalias(t).(*gotypes.Named); ok && listOf(n) != nil {
		m := w.message(n)
		e := elem{typ: n, msg: m}
		if m.broken != "" {
			return e, m.broken
		}
		e.kind = kMessage
		return e, ""
	}
	return w.elem(t)
}

// elem is the shape of one value: a scalar, bytes or a message.
func (w *walker) elem(t gotypes.Type) (elem, string) {
	t = gotypes.Unalias(t)
	e := elem{typ: t}
	if n, ok := t.(*gotypes.Named); ok {
		if _, isStruct := n.Underlying().(*gotypes.Struct); isStruct || hasProtoMethods(n) {
			m := w.message(n)
			if m.broken != "" {
				e.msg = m
				return e, m.broken
			}
			e.kind, e.msg = kMessage, m
			return e, ""
		}
	}
	switch u := t.Underlying().(type) {
	case *gotypes.Basic:
		switch u.Kind() {
		case gotypes.String:
			e.kind = kString
		case gotypes.Bool:
			e.kind = kBool
		case gotypes.Int32:
			e.kind = kInt32
		case gotypes.Int64, gotypes.Int:
			e.kind = kInt64
		case gotypes.Uint32:
			e.kind = kUint32
		case gotypes.Uint64, gotypes.Uint, gotypes.Uintptr:
			e.kind = kUint64
		case gotypes.Float64:
			e.kind = kFloat64
		case gotypes.Float32:
			e.kind = kFloat32
		default:
			return e, fmt.Sprintf("%s has no protobuf encoding in Kubernetes' scheme", u.Name())
		}
		return e, ""
	case *gotypes.Slice:
		if b, ok := u.Elem().Underlying().(*gotypes.Basic); ok && b.Kind() == gotypes.Byte {
			e.kind = kBytes
			return e, ""
		}
		return e, "a slice here (in a map, or of slices) has no protobuf encoding: wrap it in a struct"
	case *gotypes.Struct:
		return e, "an anonymous struct has no protobuf encoding: name its type"
	case *gotypes.Pointer:
		return e, "a pointer here (in a slice or a map) has no protobuf encoding"
	case *gotypes.Interface:
		return e, "an interface has no protobuf encoding: use runtime.RawExtension"
	}
	return e, fmt.Sprintf("%s has no protobuf encoding", t.Underlying())
}

// protoIdent makes a JSON name a proto field name ("x-color" is x_color), which generated.proto
// declares and is read back by.
func protoIdent(name string) string {
	name = strings.Map(func(r rune) rune {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, name)
	if name == "" || name[0] >= '0' && name[0] <= '9' {
		name = "_" + name
	}
	return name
}

// qualified is a named type's import path and name.
func qualified(n *gotypes.Named) string {
	if n.Obj().Pkg() == nil {
		return n.Obj().Name()
	}
	return n.Obj().Pkg().Path() + "." + n.Obj().Name()
}

// relativeTo names types of pkg by their name and others by their package's name.
func relativeTo(pkg string) gotypes.Qualifier {
	return func(p *gotypes.Package) string {
		if p.Path() == pkg {
			return ""
		}
		return path.Base(p.Path())
	}
}
