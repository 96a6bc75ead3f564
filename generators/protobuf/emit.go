package protobuf

import (
	"fmt"
	gotypes "go/types"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// versionName is the last element of a version package's path.
var versionName = regexp.MustCompile(`^v\d+((alpha|beta)\d+)?$`)

// goFile writes the Go source of one package's protobuf methods.
type goFile struct {
	pkg     string
	b       strings.Builder
	imports map[string]string // path → name
	taken   map[string]bool
	scope   *gotypes.Scope
}

func newGoFile(pkg *gotypes.Package) *goFile {
	return &goFile{pkg: pkg.Path(), imports: map[string]string{}, taken: map[string]bool{}, scope: pkg.Scope()}
}

// use imports a package and returns its name in the file.
func (g *goFile) use(p string) string {
	if n, ok := g.imports[p]; ok {
		return n
	}
	base := path.Base(p)
	if versionName.MatchString(base) {
		base = path.Base(path.Dir(p)) + base // metav1, corev1, as Kubernetes code names them
	}
	base = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, strings.ToLower(base))
	name := base
	for i := 2; g.taken[name] || g.scope.Lookup(name) != nil; i++ {
		name = base + strconv.Itoa(i)
	}
	g.taken[name] = true
	g.imports[p] = name
	return name
}

// typ is a Go type expression in the file.
func (g *goFile) typ(t gotypes.Type) string {
	return gotypes.TypeString(t, func(p *gotypes.Package) string {
		if p.Path() == g.pkg {
			return ""
		}
		return g.use(p.Path())
	})
}

func (g *goFile) p(format string, args ...any) { fmt.Fprintf(&g.b, format+"\n", args...) }

// source is the file's package clause, imports and body.
func (g *goFile) source(name string) []byte {
	var out strings.Builder
	fmt.Fprintf(&out, "package %s\n\n", name)
	if len(g.imports) > 0 {
		out.WriteString("import (\n")
		for _, p := range slices.Sorted(mapKeys(g.imports)) {
			if g.imports[p] == path.Base(p) {
				fmt.Fprintf(&out, "\t%q\n", p)
			} else {
				fmt.Fprintf(&out, "\t%s %q\n", g.imports[p], p)
			}
		}
		out.WriteString(")\n\n")
	}
	out.WriteString(g.b.String())
	return []byte(out.String())
}

func mapKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// tagBytes is a field's key as it goes on the wire: its number and wire type, a varint.
func tagBytes(num, wire int) []byte {
	v := uint64(num)<<3 | uint64(wire)
	var out []byte
	for v >= 0x80 {
		out = append(out, byte(v)|0x80)
		v >>= 7
	}
	return append(out, byte(v))
}

// putTag writes a key backwards, as the generated code writes every message.
func (g *goFile) putTag(num, wire int) {
	b := tagBytes(num, wire)
	for i := len(b) - 1; i >= 0; i-- {
		g.p("i--")
		g.p("dAtA[i] = %#x", b[i])
	}
}

// encode writes the value x of e, then its key, backwards.
func (g *goFile) encode(e elem, x string, num int) {
	switch e.kind {
	case kString, kBytes:
		g.p("i -= len(%s)", x)
		g.p("copy(dAtA[i:], %s)", x)
		g.p("i = protoPutVarint(dAtA, i, uint64(len(%s)))", x)
	case kBool:
		g.p("i--")
		g.p("if %s {", x)
		g.p("dAtA[i] = 1")
		g.p("} else {")
		g.p("dAtA[i] = 0")
		g.p("}")
	case kInt32, kInt64, kUint32, kUint64:
		g.p("i = protoPutVarint(dAtA, i, uint64(%s))", x)
	case kFloat64:
		g.p("i -= 8")
		g.p("%s.LittleEndian.PutUint64(dAtA[i:], %s.Float64bits(float64(%s)))", g.use("encoding/binary"), g.use("math"), x)
	case kFloat32:
		g.p("i -= 4")
		g.p("%s.LittleEndian.PutUint32(dAtA[i:], %s.Float32bits(float32(%s)))", g.use("encoding/binary"), g.use("math"), x)
	case kMessage:
		if e.msg != nil && e.msg.forward {
			// An older gogo-protobuf's message writes forwards: its size first, then MarshalTo
			// where it ends.
			g.p("{")
			g.p("size := %s.%s()", x, e.msg.sizer())
			g.p("i -= size")
			g.p("if _, err := %s.MarshalTo(dAtA[i:]); err != nil {", x)
			g.p("return 0, err")
			g.p("}")
			g.p("i = protoPutVarint(dAtA, i, uint64(size))")
			g.p("}")
			break
		}
		g.p("{")
		g.p("size, err := %s.MarshalToSizedBuffer(dAtA[:i])", x)
		g.p("if err != nil {")
		g.p("return 0, err")
		g.p("}")
		g.p("i -= size")
		g.p("i = protoPutVarint(dAtA, i, uint64(size))")
		g.p("}")
	}
	g.putTag(num, e.kind.wire())
}

// size is the expression of the bytes the value x of e takes, with its key of n bytes.
func size(e elem, x string, n int) string {
	switch e.kind {
	case kString, kBytes:
		return fmt.Sprintf("%d + protoSizeLen(len(%s))", n, x)
	case kBool:
		return fmt.Sprintf("%d + 1", n)
	case kInt32, kInt64, kUint32, kUint64:
		return fmt.Sprintf("%d + protoSizeVarint(uint64(%s))", n, x)
	case kFloat64:
		return fmt.Sprintf("%d + 8", n)
	case kFloat32:
		return fmt.Sprintf("%d + 4", n)
	}
	return fmt.Sprintf("%d + protoSizeLen(%s.%s())", n, x, e.msg.sizer())
}

// emitMessage writes the methods of one message.
func (g *goFile) emitMessage(m *message) {
	fields := slices.Clone(m.fields)
	slices.SortFunc(fields, func(a, b *field) int { return a.num - b.num })
	name := m.name
	// A named slice's methods take it by value, but for those that change it (as k8s.io/api's
	// ExtraValue's do), and encode it as the message of its elements.
	recv, self := "*"+name, "m."
	if m.list {
		recv, self = name, ""
	}

	sizer := m.sizer()
	g.p("// Marshal encodes the %s in protobuf, as the Kubernetes protobuf serializer does.", name)
	g.p("func (m %s) Marshal() (dAtA []byte, err error) {", recv)
	g.p("size := m.%s()", sizer)
	g.p("dAtA = make([]byte, size)")
	g.p("n, err := m.MarshalToSizedBuffer(dAtA[:size])")
	g.p("if err != nil {")
	g.p("return nil, err")
	g.p("}")
	g.p("return dAtA[:n], nil")
	g.p("}\n")

	g.p("// MarshalTo encodes the %s at the start of dAtA, which holds at least %s() bytes.", name, sizer)
	g.p("func (m %s) MarshalTo(dAtA []byte) (int, error) {", recv)
	g.p("size := m.%s()", sizer)
	g.p("return m.MarshalToSizedBuffer(dAtA[:size])")
	g.p("}\n")

	g.p("// MarshalToSizedBuffer encodes the %s at the end of dAtA, last field first.", name)
	g.p("func (m %s) MarshalToSizedBuffer(dAtA []byte) (int, error) {", recv)
	g.p("i := len(dAtA)")
	for j := len(fields) - 1; j >= 0; j-- {
		g.marshalField(fields[j], self)
	}
	g.p("return len(dAtA) - i, nil")
	g.p("}\n")

	g.p("// %s is the number of bytes the %s takes in protobuf.", sizer, name)
	g.p("func (m %s) %s() (n int) {", recv, sizer)
	g.p("if m == nil {")
	g.p("return 0")
	g.p("}")
	for _, f := range fields {
		g.sizeField(f, self)
	}
	g.p("return n")
	g.p("}\n")

	g.p("// Reset empties the %s.", name)
	g.p("func (m *%s) Reset() { *m = %s{} }\n", name, name)
	g.p("// ProtoMessage marks the %s a protobuf message.", name)
	g.p("func (*%s) ProtoMessage() {}\n", name)
	// A String of the type's own (k8s.io/api's DeviceTaint has one) serves protobuf as well.
	switch {
	case declaresMethod(m.named, "String") || hasField(m.named, "String"):
	case m.list:
		g.p("// String prints the %s's elements.", name)
		g.p("func (m %s) String() string {", name)
		g.p("return %s.Sprintf(\"%%v\", %s(m))", g.use("fmt"), g.typ(m.fields[0].goType))
		g.p("}\n")
	default:
		g.p("// String prints the %s's fields.", name)
		g.p("func (m *%s) String() string {", name)
		g.p("if m == nil {")
		g.p(`return "nil"`)
		g.p("}")
		g.p("type fields %s", name)
		g.p("return %s.Sprintf(\"%%+v\", *(*fields)(m))", g.use("fmt"))
		g.p("}\n")
	}

	g.p("// Unmarshal decodes the %s from protobuf, merging into what it holds.", name)
	g.p("func (m *%s) Unmarshal(dAtA []byte) error {", name)
	g.p("for i := 0; i < len(dAtA); {")
	g.p("key, next, err := protoVarint(dAtA, i)")
	g.p("if err != nil {")
	g.p("return err")
	g.p("}")
	g.p("i = next")
	g.p("num, wire := int32(key>>3), int(key&7)")
	g.p("if wire == 4 || num <= 0 {")
	g.p("return %s.Errorf(\"proto: %s: illegal tag %%d (wire type %%d)\", num, wire)", g.use("fmt"), name)
	g.p("}")
	g.p("switch num {")
	for _, f := range fields {
		g.p("case %d:", f.num)
		if m.list {
			g.unmarshalField(m, f, "*m")
		} else {
			g.unmarshalField(m, f, "m."+f.goName)
		}
	}
	g.p("default:")
	g.p("if i, err = protoSkip(dAtA, i, wire); err != nil {")
	g.p("return err")
	g.p("}")
	g.p("}")
	g.p("}")
	g.p("return nil")
	g.p("}\n")
}

// marshalField writes the field f of m, which self ("m.") selects a field of, or "" for the
// elements of a named slice.
func (g *goFile) marshalField(f *field, self string) {
	x := "m"
	if self != "" {
		x = self + f.goName
	}
	switch {
	case f.mapKey != nil:
		keys := "keysFor" + f.goName
		g.p("if len(%s) > 0 {", x)
		g.p("%s := make([]string, 0, len(%s))", keys, x)
		g.p("for k := range %s {", x)
		g.p("%s = append(%s, string(k))", keys, keys)
		g.p("}")
		g.p("%s.Strings(%s)", g.use("sort"), keys)
		g.p("for iNdEx := len(%s) - 1; iNdEx >= 0; iNdEx-- {", keys)
		g.p("v := %s[%s(%s[iNdEx])]", x, g.typ(f.mapKey.typ), keys)
		g.p("baseI := i")
		if f.value.kind == kBytes {
			g.p("if v != nil {")
			g.encode(f.value, "v", 2)
			g.p("}")
		} else {
			g.encode(f.value, "v", 2)
		}
		g.encode(elem{kind: kString}, keys+"[iNdEx]", 1)
		g.p("i = protoPutVarint(dAtA, i, uint64(baseI-i))")
		g.putTag(f.num, 2)
		g.p("}")
		g.p("}")
	case f.repeated:
		g.p("if len(%s) > 0 {", x)
		g.p("for iNdEx := len(%s) - 1; iNdEx >= 0; iNdEx-- {", x)
		g.encode(f.value, x+"[iNdEx]", f.num)
		g.p("}")
		g.p("}")
	case f.pointer:
		g.p("if %s != nil {", x)
		if f.value.kind == kMessage {
			g.encode(f.value, x, f.num)
		} else {
			g.encode(f.value, "*"+x, f.num)
		}
		g.p("}")
	case f.value.kind == kBytes || isList(f.value):
		g.p("if %s != nil {", x)
		g.encode(f.value, x, f.num)
		g.p("}")
	default:
		g.encode(f.value, x, f.num)
	}
}

func (g *goFile) sizeField(f *field, self string) {
	x := "m"
	if self != "" {
		x = self + f.goName
	}
	n := len(tagBytes(f.num, 2))
	switch {
	case f.mapKey != nil:
		if f.value.kind == kBool || f.value.kind == kFloat32 || f.value.kind == kFloat64 {
			g.p("for k := range %s {", x)
		} else {
			g.p("for k, v := range %s {", x)
		}
		val := size(f.value, "v", 1)
		if f.value.kind == kBytes {
			g.p("entry := %s", size(elem{kind: kString}, "k", 1))
			g.p("if v != nil {")
			g.p("entry += %s", val)
			g.p("}")
		} else {
			g.p("entry := %s + %s", size(elem{kind: kString}, "k", 1), val)
		}
		g.p("n += %d + protoSizeLen(entry)", n)
		g.p("}")
	case f.repeated:
		each := size(f.value, x+"[iNdEx]", len(tagBytes(f.num, f.value.kind.wire())))
		if strings.Contains(each, "iNdEx") {
			g.p("for iNdEx := range %s {", x)
		} else { // an element of fixed size (bool, float)
			g.p("for range %s {", x)
		}
		g.p("n += %s", each)
		g.p("}")
	case f.pointer:
		g.p("if %s != nil {", x)
		if f.value.kind == kMessage {
			g.p("n += %s", size(f.value, x, n))
		} else {
			g.p("n += %s", size(f.value, "*"+x, len(tagBytes(f.num, f.value.kind.wire()))))
		}
		g.p("}")
	case f.value.kind == kBytes || isList(f.value):
		g.p("if %s != nil {", x)
		g.p("n += %s", size(f.value, x, n))
		g.p("}")
	default:
		g.p("n += %s", size(f.value, x, len(tagBytes(f.num, f.value.kind.wire()))))
	}
}

// isList reports whether e is a message of a named slice type's elements.
func isList(e elem) bool {
	return e.msg != nil && e.msg.named != nil && listOf(e.msg.named) != nil
}

// wireCheck fails the decoding of a field whose key has another wire type.
func (g *goFile) wireCheck(m *message, f *field, want int) {
	g.p("if wire != %d {", want)
	g.p("return %s.Errorf(\"proto: wrong wireType = %%d for field %s of %s\", wire)", g.use("fmt"), f.goName, m.name)
	g.p("}")
}

// read decodes one scalar value of e at dAtA[i:] into a new variable named v, advancing i.
func (g *goFile) read(e elem, v string) {
	conv := func(expr string) string {
		if _, named := e.typ.(*gotypes.Named); named {
			return g.typ(e.typ) + "(" + expr + ")"
		}
		return expr
	}
	switch e.kind {
	case kString, kBytes:
		g.p("start, end, err := protoLen(dAtA, i)")
		g.p("if err != nil {")
		g.p("return err")
		g.p("}")
		g.p("i = end")
		if e.kind == kString {
			t := "string"
			if e.typ != nil {
				t = g.typ(e.typ)
			}
			g.p("%s := %s(dAtA[start:end])", v, t)
		} else {
			g.p("%s := %s", v, conv("append([]byte{}, dAtA[start:end]...)"))
		}
	case kBool, kInt32, kInt64, kUint32, kUint64:
		g.p("raw, next, err := protoVarint(dAtA, i)")
		g.p("if err != nil {")
		g.p("return err")
		g.p("}")
		g.p("i = next")
		if e.kind == kBool {
			if _, named := e.typ.(*gotypes.Named); named {
				g.p("%s := %s(raw != 0)", v, g.typ(e.typ))
			} else {
				g.p("%s := raw != 0", v)
			}
		} else {
			g.p("%s := %s(raw)", v, g.typ(e.typ))
		}
	case kFloat64:
		g.p("if i+8 > len(dAtA) {")
		g.p("return %s.ErrUnexpectedEOF", g.use("io"))
		g.p("}")
		g.p("%s := %s(%s.Float64frombits(%s.LittleEndian.Uint64(dAtA[i:])))", v, g.typ(e.typ), g.use("math"), g.use("encoding/binary"))
		g.p("i += 8")
	case kFloat32:
		g.p("if i+4 > len(dAtA) {")
		g.p("return %s.ErrUnexpectedEOF", g.use("io"))
		g.p("}")
		g.p("%s := %s(%s.Float32frombits(%s.LittleEndian.Uint32(dAtA[i:])))", v, g.typ(e.typ), g.use("math"), g.use("encoding/binary"))
		g.p("i += 4")
	}
}

// readMessage decodes a message at dAtA[i:] with into, a statement using the variable b.
func (g *goFile) readMessage(into string) {
	g.p("start, end, err := protoLen(dAtA, i)")
	g.p("if err != nil {")
	g.p("return err")
	g.p("}")
	g.p("i = end")
	g.p("if err := %s.Unmarshal(dAtA[start:end]); err != nil {", into)
	g.p("return err")
	g.p("}")
}

// unmarshalField decodes the field f of m into x.
func (g *goFile) unmarshalField(m *message, f *field, x string) {
	switch {
	case f.mapKey != nil:
		g.wireCheck(m, f, 2)
		g.p("start, end, err := protoLen(dAtA, i)")
		g.p("if err != nil {")
		g.p("return err")
		g.p("}")
		g.p("if %s == nil {", x)
		g.p("%s = make(%s)", x, g.typ(f.goType))
		g.p("}")
		g.p("var mapkey %s", g.typ(f.mapKey.typ))
		if f.value.kind == kBytes || isList(f.value) {
			// An entry without a value holds empty bytes (or an empty named slice), not nil, as
			// gogo's code decodes it.
			g.p("mapvalue := %s{}", g.typ(f.value.typ))
		} else {
			g.p("var mapvalue %s", g.typ(f.value.typ))
		}
		g.p("entry := dAtA[:end]")
		g.p("for i := start; i < end; {")
		g.p("key, next, err := protoVarint(entry, i)")
		g.p("if err != nil {")
		g.p("return err")
		g.p("}")
		g.p("i = next")
		g.p("switch num, wire := int32(key>>3), int(key&7); {")
		g.p("case num == 1 && wire == 2:")
		g.p("dAtA := entry")
		g.read(*f.mapKey, "k")
		g.p("mapkey = k")
		g.p("case num == 2 && wire == %d:", f.value.kind.wire())
		g.p("dAtA := entry")
		if isList(f.value) {
			// A value given twice is the last one, not the two appended, as gogo's code decodes it.
			g.p("mapvalue = %s{}", g.typ(f.value.typ))
			g.readMessage("mapvalue")
		} else if f.value.kind == kMessage {
			g.readMessage("mapvalue")
		} else {
			g.read(f.value, "v")
			g.p("mapvalue = v")
		}
		g.p("default:")
		g.p("if i, err = protoSkip(entry, i, wire); err != nil {")
		g.p("return err")
		g.p("}")
		g.p("}")
		g.p("}")
		g.p("%s[mapkey] = mapvalue", x)
		g.p("i = end")
	case f.repeated && f.value.kind == kMessage:
		g.wireCheck(m, f, 2)
		g.p("%s = append(%s, %s{})", x, x, g.typ(f.value.typ))
		last := x + "[len(" + x + ")-1]"
		if strings.HasPrefix(x, "*") {
			last = "(" + x + ")[len(" + x + ")-1]"
		}
		g.readMessage(last)
	case f.repeated && f.value.kind.wire() != 2:
		// Repeated scalars go unpacked, as go-to-protobuf declares them, but packed ones decode too.
		g.p("if wire == 2 {")
		g.p("start, end, err := protoLen(dAtA, i)")
		g.p("if err != nil {")
		g.p("return err")
		g.p("}")
		g.p("packed := dAtA[:end]")
		g.p("for i := start; i < end; {")
		g.p("dAtA := packed")
		g.read(f.value, "v")
		g.p("%s = append(%s, v)", x, x)
		g.p("}")
		g.p("i = end")
		g.p("break")
		g.p("}")
		g.wireCheck(m, f, f.value.kind.wire())
		g.read(f.value, "v")
		g.p("%s = append(%s, v)", x, x)
	case f.repeated:
		g.wireCheck(m, f, 2)
		g.read(f.value, "v")
		g.p("%s = append(%s, v)", x, x)
	case f.value.kind == kMessage:
		g.wireCheck(m, f, 2)
		switch {
		case f.pointer:
			g.p("if %s == nil {", x)
			g.p("%s = &%s{}", x, g.typ(f.value.typ))
			g.p("}")
		case isList(f.value):
			// Present, even empty, it is not nil.
			g.p("if %s == nil {", x)
			g.p("%s = %s{}", x, g.typ(f.value.typ))
			g.p("}")
		}
		g.readMessage(x)
	default:
		g.wireCheck(m, f, f.value.kind.wire())
		g.read(f.value, "v")
		if f.pointer {
			g.p("%s = &v", x)
		} else {
			g.p("%s = v", x)
		}
	}
}

// packageFuncs are the functions every generated file of a package shares (declared once per package).
const packageFuncs = `
// protoSizeVarint is the number of bytes x takes as a varint.
func protoSizeVarint(x uint64) int { return (bits.Len64(x|1) + 6) / 7 }

// protoSizeLen is the number of bytes l bytes take with their length before them.
func protoSizeLen(l int) int { return l + protoSizeVarint(uint64(l)) }

// protoPutVarint writes v as a varint that ends where offset is, and returns where it starts.
func protoPutVarint(dAtA []byte, offset int, v uint64) int {
	offset -= protoSizeVarint(v)
	base := offset
	for v >= 1<<7 {
		dAtA[offset] = uint8(v&0x7f | 0x80)
		v >>= 7
		offset++
	}
	dAtA[offset] = uint8(v)
	return base
}

// protoVarint reads the varint at dAtA[i:], and returns it and where it ends.
func protoVarint(dAtA []byte, i int) (uint64, int, error) {
	var v uint64
	for shift := uint(0); ; shift += 7 {
		if shift >= 64 {
			return 0, 0, errProtoOverflow
		}
		if i >= len(dAtA) {
			return 0, 0, io.ErrUnexpectedEOF
		}
		b := dAtA[i]
		i++
		v |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return v, i, nil
		}
	}
}

// protoLen reads the length at dAtA[i:] and returns where the bytes it counts start and end.
func protoLen(dAtA []byte, i int) (int, int, error) {
	l, i, err := protoVarint(dAtA, i)
	if err != nil {
		return 0, 0, err
	}
	if l > uint64(len(dAtA)-i) {
		if int(l) < 0 {
			return 0, 0, errProtoInvalidLength
		}
		return 0, 0, io.ErrUnexpectedEOF
	}
	return i, i + int(l), nil
}

// protoSkip skips the value of a field of wire type wire at dAtA[i:], one this version of the
// type does not know, and returns where it ends.
func protoSkip(dAtA []byte, i int, wire int) (int, error) {
	switch wire {
	case 0:
		_, i, err := protoVarint(dAtA, i)
		return i, err
	case 1:
		i += 8
	case 2:
		_, end, err := protoLen(dAtA, i)
		return end, err
	case 3:
		for {
			key, next, err := protoVarint(dAtA, i)
			if err != nil {
				return 0, err
			}
			if key&7 == 4 {
				return next, nil
			}
			if i, err = protoSkip(dAtA, next, int(key&7)); err != nil {
				return 0, err
			}
		}
	case 5:
		i += 4
	default:
		return 0, fmt.Errorf("proto: illegal wireType %d", wire)
	}
	if i > len(dAtA) {
		return 0, io.ErrUnexpectedEOF
	}
	return i, nil
}

var (
	errProtoInvalidLength = fmt.Errorf("proto: negative length found during unmarshaling")
	errProtoOverflow      = fmt.Errorf("proto: integer overflow")
)
`
