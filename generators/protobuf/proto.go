package protobuf

import (
	"errors"
	"fmt"
	gotypes "go/types"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/apigen-dev/apigen/generators/engine"
)

// recorded is what a package's committed generated.proto says of its messages.
type recorded map[string]*recordedMessage

type recordedMessage struct {
	// fields are the numbers by proto name; goNames the Go field name of each number.
	fields   map[string]int
	goNames  map[int]string
	reserved map[int]bool
	// reservedNames are the names of removed fields.
	reservedNames map[string]bool
}

var (
	messageLine  = regexp.MustCompile(`^message (\w+) \{`)
	fieldLine    = regexp.MustCompile(`^\s*(?:optional |repeated |required )?(?:map<[^>]+>|[\w.]+) (\w+) = (\d+)`)
	goNameLine   = regexp.MustCompile(`^\s*// Go field: (\w+)`)
	reservedLine = regexp.MustCompile(`^\s*reserved (.*);`)
)

// readProto reads the package's generated.proto, if apigen wrote it; nil when there is none.
func readProto(ctx *engine.LoadContext, name string) (recorded, error) {
	data, err := ctx.Load.Reads.ReadFile(filepath.Join(ctx.Load.Root, filepath.FromSlash(name)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !engine.IsGenerated(name, data) {
		return nil, fmt.Errorf("%s: apigen writes the package's protobuf declarations here, and the file is not its: move it, or mark the package +apigen:protobuf=false", name)
	}
	return parseProto(name, string(data))
}

// parseProto reads the messages, field numbers and reserved numbers of a generated.proto.
func parseProto(name, src string) (recorded, error) {
	out := recorded{}
	var cur *recordedMessage
	goName := ""
	for i, line := range strings.Split(src, "\n") {
		if m := messageLine.FindStringSubmatch(line); m != nil {
			cur = &recordedMessage{fields: map[string]int{}, goNames: map[int]string{}, reserved: map[int]bool{}, reservedNames: map[string]bool{}}
			out[m[1]] = cur
			continue
		}
		if cur == nil {
			continue
		}
		if m := goNameLine.FindStringSubmatch(line); m != nil {
			goName = m[1]
			continue
		}
		if m := reservedLine.FindStringSubmatch(line); m != nil {
			for _, r := range strings.Split(m[1], ",") {
				r = strings.TrimSpace(r)
				if n, err := strconv.Atoi(r); err == nil {
					cur.reserved[n] = true
				} else if q, err := strconv.Unquote(r); err == nil {
					cur.reservedNames[q] = true
				} else {
					return nil, fmt.Errorf("%s:%d: cannot read the reserved %q", name, i+1, r)
				}
			}
			continue
		}
		if m := fieldLine.FindStringSubmatch(line); m != nil {
			n, _ := strconv.Atoi(m[2])
			cur.fields[m[1]] = n
			if goName != "" {
				cur.goNames[n] = goName
			}
			goName = ""
		}
	}
	return out, nil
}

// number gives every field of the messages its number: its protobuf tag's, else the one
// generated.proto records for its name, else the next one above every number the message used.
// A field whose number would change (its JSON name changed, or a tag now says another) is an
// error that names it: clients that hold the old number would read it as another field.
func number(msgs []*message, old recorded) error {
	var errs []error
	for _, m := range msgs {
		rec := old[m.name]
		used := map[int]*field{}
		highest := 0
		for _, f := range m.fields {
			if !f.tagged {
				continue
			}
			if other, ok := used[f.num]; ok {
				errs = append(errs, fmt.Errorf("%s: field %s of %s: protobuf field %d is %s's too", f.pos, f.goName, m.name, f.num, other.goName))
			}
			used[f.num] = f
			highest = max(highest, f.num)
		}
		if rec != nil {
			for _, f := range m.fields {
				n, ok := rec.fields[f.name]
				switch {
				case ok && f.tagged && n != f.num:
					errs = append(errs, fmt.Errorf("%s: field %s of %s: its protobuf tag says number %d where %s records %d: a client that holds %d would read another field; keep %d", f.pos, f.goName, m.name, f.num, protoFileName, n, n, n))
				case ok && !f.tagged:
					if other, taken := used[n]; taken {
						errs = append(errs, fmt.Errorf("%s: field %s of %s: protobuf field %d, which %s records for it, is %s's by its tag", f.pos, f.goName, m.name, n, protoFileName, other.goName))
					}
					f.num = n
					used[n] = f
				case !ok:
					// A field renamed in JSON keeps its Go name: say so rather than renumber it.
					for num, goName := range rec.goNames {
						if goName == f.goName && !f.tagged {
							oldName := ""
							for name, on := range rec.fields {
								if on == num {
									oldName = name
								}
							}
							if oldName != "" && !slices.ContainsFunc(m.fields, func(o *field) bool { return o.name == oldName }) {
								errs = append(errs, fmt.Errorf("%s: field %s of %s: its JSON name changed from %q to %q, which would move it from protobuf field %d to a new number; add the tag protobuf:\"%s,%d,%s,name=%s\" to keep %d, or delete its line from %s to take a new number",
									f.pos, f.goName, m.name, oldName, f.name, num, wireName(f), num, optRep(f), f.name, num, protoFileName))
							}
						}
					}
				}
			}
			for _, n := range rec.fields {
				highest = max(highest, n)
			}
			for n := range rec.reserved {
				highest = max(highest, n)
			}
		}
		for _, f := range m.fields {
			if f.num == 0 {
				highest++
				f.num = highest
				used[f.num] = f
			}
		}
	}
	return errors.Join(errs...)
}

func wireName(f *field) string {
	switch {
	case f.mapKey != nil || f.repeated && f.value.kind.wire() == 2:
		return "bytes"
	case f.value.kind.wire() == 0:
		return "varint"
	case f.value.kind.wire() == 1:
		return "fixed64"
	case f.value.kind.wire() == 5:
		return "fixed32"
	}
	return "bytes"
}

func optRep(f *field) string {
	if f.repeated || f.mapKey != nil {
		return "rep"
	}
	return "opt"
}

// protoPackage is the proto package of a Go package, as go-to-protobuf names it: its import
// path with dots, made of identifiers.
func protoPackage(goPkg string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '/':
			return '.'
		case r == '.' || r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9':
			return r
		}
		return '_'
	}, goPkg)
}

// idl is the package's generated.proto: its messages, each field with its number, and the
// numbers and names of removed fields reserved.
func idl(pkg *gotypes.Package, msgs []*message, old recorded) []byte {
	var b strings.Builder
	imports := map[string]bool{}
	typeName := func(e elem) string {
		if e.kind != kMessage {
			return protoName[e.kind]
		}
		n := e.msg.named
		if n.Obj().Pkg().Path() == pkg.Path() {
			return n.Obj().Name()
		}
		imports[path.Join(n.Obj().Pkg().Path(), protoFileName)] = true
		return protoPackage(n.Obj().Pkg().Path()) + "." + n.Obj().Name()
	}
	var body strings.Builder
	for _, m := range msgs {
		fmt.Fprintf(&body, "message %s {\n", m.name)
		fields := slices.Clone(m.fields)
		slices.SortFunc(fields, func(a, b *field) int { return a.num - b.num })
		for i, f := range fields {
			if i > 0 {
				body.WriteString("\n")
			}
			fmt.Fprintf(&body, "  // Go field: %s\n", f.goName)
			switch {
			case f.mapKey != nil:
				fmt.Fprintf(&body, "  map<string, %s> %s = %d;\n", typeName(f.value), f.name, f.num)
			case f.repeated:
				fmt.Fprintf(&body, "  repeated %s %s = %d;\n", typeName(f.value), f.name, f.num)
			default:
				fmt.Fprintf(&body, "  optional %s %s = %d;\n", typeName(f.value), f.name, f.num)
			}
		}
		var reserved []int
		var reservedNames []string
		if rec := old[m.name]; rec != nil {
			current := map[int]bool{}
			names := map[string]bool{}
			for _, f := range m.fields {
				current[f.num], names[f.name] = true, true
			}
			for n := range rec.reserved {
				if !current[n] {
					reserved = append(reserved, n)
				}
			}
			for name, n := range rec.fields {
				if !current[n] {
					reserved = append(reserved, n)
				}
				if !names[name] {
					reservedNames = append(reservedNames, strconv.Quote(name))
				}
			}
			for name := range rec.reservedNames {
				if !names[name] {
					reservedNames = append(reservedNames, strconv.Quote(name))
				}
			}
		}
		slices.Sort(reserved)
		reserved = slices.Compact(reserved)
		slices.Sort(reservedNames)
		reservedNames = slices.Compact(reservedNames)
		if len(reserved) > 0 {
			body.WriteString("\n  // Fields removed: their numbers and names are never used again.\n")
			var nums []string
			for _, n := range reserved {
				nums = append(nums, strconv.Itoa(n))
			}
			fmt.Fprintf(&body, "  reserved %s;\n", strings.Join(nums, ", "))
		}
		if len(reservedNames) > 0 {
			fmt.Fprintf(&body, "  reserved %s;\n", strings.Join(reservedNames, ", "))
		}
		body.WriteString("}\n\n")
	}
	fmt.Fprintf(&b, "// %s\n\n", engine.GeneratedLine)
	b.WriteString("// The protobuf messages of the package's types, as apigen encodes them. The field numbers\n")
	b.WriteString("// are recorded here: apigen reads them back, so a field keeps its number for good.\n\n")
	b.WriteString("syntax = \"proto2\";\n\n")
	fmt.Fprintf(&b, "package %s;\n\n", protoPackage(pkg.Path()))
	for _, imp := range slices.Sorted(mapKeys(imports)) {
		fmt.Fprintf(&b, "import %q;\n", imp)
	}
	if len(imports) > 0 {
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "option go_package = %q;\n\n", pkg.Path())
	b.WriteString(strings.TrimSuffix(body.String(), "\n"))
	return []byte(b.String())
}
