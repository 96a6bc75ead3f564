package protobuf

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	gotypes "go/types"
	"regexp"
	"strings"
	"testing"
)

// numbered type-checks src (package p, types only of builtins), generates the messages of
// every struct type in it with the generated.proto old (empty: none), and returns the new
// generated.proto, or the numbering error.
func numbered(t *testing.T, src, old string) (string, error) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "types.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	pkg, err := (&gotypes.Config{Importer: importer.Default()}).Check("example.com/p/v1", fset, []*ast.File{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	w := &walker{
		messages: map[*gotypes.Named]*message{},
		local:    func(p string) bool { return p == pkg.Path() },
		position: fset.Position,
	}
	for _, name := range pkg.Scope().Names() {
		if n := lookup(pkg, name); n != nil {
			w.message(n)
		}
	}
	propagate(w.order)
	var rec recorded
	if old != "" {
		if rec, err = parseProto("generated.proto", old); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range w.order {
		if m.broken != "" {
			t.Fatalf("%s: %s", m.brokenPos, m.broken)
		}
	}
	if err := number(w.order, rec); err != nil {
		return "", err
	}
	return string(idl(pkg, w.order, rec)), nil
}

// fieldsOf are the "name = number" and reserved lines of a generated.proto, without comments.
func fieldsOf(proto string) string {
	var out []string
	for _, l := range strings.Split(proto, "\n") {
		l = strings.TrimSpace(l)
		if regexp.MustCompile(` = \d+;$|^reserved `).MatchString(l) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func TestFieldNumbersFirstTime(t *testing.T) {
	got, err := numbered(t, `package v1
type Spec struct {
	Name     string            `+"`json:\"name\"`"+`
	Replicas *int32            `+"`json:\"replicas,omitempty\"`"+`
	Tagged   bool              `+"`json:\"tagged\" protobuf:\"varint,7,opt,name=tagged\"`"+`
	Labels   map[string]string `+"`json:\"labels\"`"+`
	Hidden   string            `+"`json:\"-\"`"+`
}`, "")
	if err != nil {
		t.Fatal(err)
	}
	// As go-to-protobuf numbers: a tag's number stays, the others follow the highest in Go order.
	want := strings.Join([]string{
		"optional bool tagged = 7;",
		"optional string name = 8;",
		"optional int32 replicas = 9;",
		"map<string, string> labels = 10;",
	}, "\n")
	if f := fieldsOf(got); f != want {
		t.Errorf("fields:\n%s\nwant:\n%s", f, want)
	}
}

func TestFieldNumbersNeverMove(t *testing.T) {
	first, err := numbered(t, `package v1
type Spec struct {
	A string `+"`json:\"a\"`"+`
	B string `+"`json:\"b\"`"+`
	C int64  `+"`json:\"c\"`"+`
}`, "")
	if err != nil {
		t.Fatal(err)
	}
	// A field inserted first, the others reordered, B renamed in Go with its JSON name kept,
	// and C removed: every number stays, the new field takes the next, C's is reserved.
	second, err := numbered(t, `package v1
type Spec struct {
	New     string `+"`json:\"new\"`"+`
	Renamed string `+"`json:\"b\"`"+`
	A       string `+"`json:\"a\"`"+`
}`, first)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"optional string a = 1;",
		"optional string b = 2;",
		"optional string new = 4;",
		"reserved 3;",
		`reserved "c";`,
	}, "\n")
	if f := fieldsOf(second); f != want {
		t.Errorf("fields:\n%s\nwant:\n%s\nfrom:\n%s", f, want, second)
	}
	// A JSON name that is no proto identifier is made one, and keeps its number too.
	odd := "package v1\ntype Odd struct {\n\tA string `json:\"x-a\"`\n\tB string `json:\"$b\"`\n}\n"
	once, err := numbered(t, odd, "")
	if err != nil {
		t.Fatal(err)
	}
	twice, err := numbered(t, strings.Replace(odd, "\tA string", "\tC int32 `json:\"c\"`\n\tA string", 1), once)
	if err != nil {
		t.Fatal(err)
	}
	if f, want := fieldsOf(twice), "optional string x_a = 1;\noptional string _b = 2;\noptional int32 c = 3;"; f != want {
		t.Errorf("fields:\n%s\nwant:\n%s", f, want)
	}

	// Two fields of one JSON name are two proto fields, each read back to its number.
	twin := "package v1\ntype Twin struct {\n\tA string `json:\"name\"`\n\tB string `json:\"name\"`\n}\n"
	once, err = numbered(t, twin, "")
	if err != nil {
		t.Fatal(err)
	}
	if twice, err = numbered(t, twin, once); err != nil || twice != once {
		t.Errorf("generated again (%v):\n%s\nwant:\n%s", err, twice, once)
	}
	if f, want := fieldsOf(once), "optional string name = 1;\noptional string b_name = 2;"; f != want {
		t.Errorf("fields:\n%s\nwant:\n%s", f, want)
	}

	// A field added later never takes a removed field's number, and what is reserved stays so.
	third, err := numbered(t, `package v1
type Spec struct {
	New     string `+"`json:\"new\"`"+`
	Renamed string `+"`json:\"b\"`"+`
	A       string `+"`json:\"a\"`"+`
	Later   bool   `+"`json:\"later\"`"+`
}`, second)
	if err != nil {
		t.Fatal(err)
	}
	want = strings.Join([]string{
		"optional string a = 1;",
		"optional string b = 2;",
		"optional string new = 4;",
		"optional bool later = 5;",
		"reserved 3;",
		`reserved "c";`,
	}, "\n")
	if f := fieldsOf(third); f != want {
		t.Errorf("fields:\n%s\nwant:\n%s", f, want)
	}
}

func TestFieldNumberChangesFail(t *testing.T) {
	first, err := numbered(t, `package v1
type Spec struct {
	A string `+"`json:\"a\"`"+`
	B string `+"`json:\"b\"`"+`
}`, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, src, want string }{
		{"a JSON rename", `package v1
type Spec struct {
	A string ` + "`json:\"a\"`" + `
	B string ` + "`json:\"bee\"`" + `
}`, `types.go:4:2: field B of Spec: its JSON name changed from "b" to "bee", which would move it from protobuf field 2 to a new number; add the tag protobuf:"bytes,2,opt,name=bee"`},
		{"a tag that disagrees", `package v1
type Spec struct {
	A string ` + "`json:\"a\" protobuf:\"bytes,2,opt,name=a\"`" + `
	B string ` + "`json:\"b\"`" + `
}`, `types.go:3:2: field A of Spec: its protobuf tag says number 2 where generated.proto records 1`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := numbered(t, c.src, first)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one that says %q", err, c.want)
			}
		})
	}
}
