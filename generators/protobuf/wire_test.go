package protobuf

import (
	"fmt"
	"go/ast"
	"go/token"
	gotypes "go/types"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/go/packages"
)

// wirePackages are the k8s.io/api-style packages whose types the wire test copies, by the
// directory of the copy: the module and the package's files that declare its types.
var wirePackages = []struct{ dir, module, pkg string }{
	{"corev1", "k8s.io/api", "core/v1"},
	{"appsv1", "k8s.io/api", "apps/v1"},
	{"batchv1", "k8s.io/api", "batch/v1"},
	{"autoscalingv2", "k8s.io/api", "autoscaling/v2"},
	{"authenticationv1", "k8s.io/api", "authentication/v1"},
	{"certificatesv1", "k8s.io/api", "certificates/v1"},
	{"apiextensionsv1", "k8s.io/apiextensions-apiserver", "pkg/apis/apiextensions/v1"},
}

// typeFiles are the files of a package that declare its types.
var typeFiles = regexp.MustCompile(`^types(_jsonschema)?\.go$`)

// TestWireCompatibleWithKubernetes copies the types of k8s.io/api packages (and apiextensions')
// from the module cache, as a project would declare them, generates their protobuf methods, and
// checks, on objects filled at random, that apigen's bytes are upstream's generated.pb.go's
// bytes, and that each decodes them to the same object.
func TestWireCompatibleWithKubernetes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds k8s.io/api's core/v1 twice")
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	gomod, err := os.ReadFile(filepath.Join(repo, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	gomod = regexp.MustCompile(`(?m)^module .*$`).ReplaceAll(gomod, []byte("module example.com/wire"))
	write(t, filepath.Join(work, "go.mod"), gomod)
	gosum, err := os.ReadFile(filepath.Join(repo, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(work, "go.sum"), gosum)

	var patterns []string
	for _, p := range wirePackages {
		src := filepath.Join(moduleDir(t, repo, p.module), filepath.FromSlash(p.pkg))
		entries, err := os.ReadDir(src)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if typeFiles.MatchString(e.Name()) {
				data, err := os.ReadFile(filepath.Join(src, e.Name()))
				if err != nil {
					t.Fatal(err)
				}
				write(t, filepath.Join(work, p.dir, e.Name()), data)
			}
		}
		patterns = append(patterns, "example.com/wire/"+p.dir, p.module+"/"+p.pkg)
	}

	start := time.Now()
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedTypes | packages.NeedSyntax | packages.NeedTypesInfo, Dir: work, Env: append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string]*packages.Package{}
	for _, p := range pkgs {
		for _, e := range p.Errors {
			t.Fatalf("%s: %v", p.PkgPath, e)
		}
		byPath[p.PkgPath] = p
	}
	t.Logf("loaded in %v", time.Since(start))

	var checks []string
	imports := []string{}
	for i, p := range wirePackages {
		copied, upstream := byPath["example.com/wire/"+p.dir], byPath[p.module+"/"+p.pkg]
		// The copies' types with go-to-protobuf's +protobuf.nullable=true, read from their
		// comments as the generator reads them from gengo's.
		nullable := map[string]bool{}
		for _, f := range copied.Syntax {
			for _, d := range f.Decls {
				gd, ok := d.(*ast.GenDecl)
				if !ok {
					continue
				}
				for _, spec := range gd.Specs {
					ts, ok := spec.(*ast.TypeSpec)
					if !ok {
						continue
					}
					var lines []string
					for _, doc := range []*ast.CommentGroup{gd.Doc, ts.Doc} {
						if doc != nil {
							lines = append(lines, strings.Split(doc.Text(), "\n")...)
						}
					}
					nullable[ts.Name.Name] = protobufNullable(lines)
				}
			}
		}
		w := &walker{
			messages: map[*gotypes.Named]*message{},
			local:    func(pkg string) bool { return pkg == copied.PkgPath },
			position: func(pos token.Pos) token.Position { return copied.Fset.Position(pos) },
			nullable: func(n *gotypes.Named) bool {
				return n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == copied.PkgPath && nullable[n.Obj().Name()]
			},
		}
		scope := copied.Types.Scope()
		var compared []string
		for _, name := range scope.Names() {
			named := lookup(copied.Types, name)
			up := lookup(upstream.Types, name)
			if named == nil || up == nil || !named.Obj().Exported() || !hasProtoMethods(up) {
				continue
			}
			if _, ok := named.Underlying().(*gotypes.Struct); !ok {
				continue
			}
			w.message(named)
			compared = append(compared, name)
		}
		propagate(w.order)
		var msgs []*message
		for _, m := range w.order {
			if m.broken != "" {
				t.Errorf("%s: %s: upstream encodes it, apigen does not: %s", m.brokenPos, m.name, m.broken)
			}
			if !m.ready && m.broken == "" && m.pkg == copied.PkgPath {
				msgs = append(msgs, m)
			}
		}
		slices.SortFunc(msgs, func(a, b *message) int { return strings.Compare(a.name, b.name) })
		if err := number(msgs, nil); err != nil {
			t.Fatal(err)
		}
		goSrc, _, err := render([]byte("// Code generated by apigen. DO NOT EDIT.\n\n"), p.dir, msgs, nil)
		if err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(work, p.dir, goFileName), goSrc)
		imports = append(imports, fmt.Sprintf("\tup%d %q\n\tcp%d %q\n", i, upstream.PkgPath, i, copied.PkgPath))
		for _, name := range compared {
			checks = append(checks, fmt.Sprintf("\tcheck[up%d.%s, cp%d.%s](t, %q, f)\n", i, name, i, name, p.pkg+"."+name))
		}
		t.Logf("%s: %d types compared", p.pkg, len(compared))
	}
	if t.Failed() {
		return
	}
	test := strings.Replace(wireTest, "IMPORTS\n", strings.Join(imports, ""), 1)
	test = strings.Replace(test, "CHECKS\n", strings.Join(checks, ""), 1)
	write(t, filepath.Join(work, "wire_test.go"), []byte(test))
	cmd := exec.Command("go", "test", "-count=1", ".")
	cmd.Dir, cmd.Env = work, cfg.Env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test of the copies: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}

func moduleDir(t *testing.T, repo, module string) string {
	t.Helper()
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", module)
	cmd.Dir = repo
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -m %s: %v", module, err)
	}
	return strings.TrimSpace(string(out))
}

func write(t *testing.T, name string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// wireTest runs in the module of the copies: each type's upstream value, filled at random, is
// the copy's value too (the copies declare the same fields in the same order).
const wireTest = `package wire

import (
	"bytes"
	"math/rand"
	"reflect"
	"testing"
	"unsafe"

	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	"k8s.io/apimachinery/pkg/api/resource"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	"k8s.io/apimachinery/pkg/runtime"
	runtimeserializer "k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/randfill"

IMPORTS
)

type message interface {
	Marshal() ([]byte, error)
	Unmarshal([]byte) error
}

func check[U, C any, PU interface {
	*U
	message
}, PC interface {
	*C
	message
}](t *testing.T, name string, f *randfill.Filler) {
	t.Helper()
	if unsafe.Sizeof(*new(U)) != unsafe.Sizeof(*new(C)) {
		t.Fatalf("%s: the copy is not the same type", name)
	}
	for i := 0; i < 30; i++ {
		up := new(U)
		f.Fill(up)
		want, err := PU(up).Marshal()
		if err != nil {
			t.Fatalf("%s: upstream: %v", name, err)
		}
		got, err := PC((*C)(unsafe.Pointer(up))).Marshal()
		if err != nil {
			t.Fatalf("%s: apigen: %v", name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: apigen encodes\n%x\nwhere upstream encodes\n%x", name, got, want)
			return
		}
		// The bytes are the same: decoded by each, they make the same object.
		copied, back := new(C), new(U)
		if err := PC(copied).Unmarshal(got); err != nil {
			t.Fatalf("%s: apigen decodes: %v", name, err)
		}
		if err := PU(back).Unmarshal(got); err != nil {
			t.Fatalf("%s: upstream decodes: %v", name, err)
		}
		if !reflect.DeepEqual(back, (*U)(unsafe.Pointer(copied))) {
			t.Errorf("%s: apigen decodes\n%x\nto another object than upstream does", name, got)
			return
		}
	}
}

func TestWire(t *testing.T) {
	extra := func(runtimeserializer.CodecFactory) []any {
		return []any{
			func(q *resource.Quantity, c randfill.Continue) {
				*q = *resource.NewQuantity(c.Int63n(100000), resource.DecimalSI)
			},
			func(v *intstr.IntOrString, c randfill.Continue) {
				if c.Bool() {
					*v = intstr.FromInt32(c.Int31())
				} else {
					*v = intstr.FromString(c.String(0))
				}
			},
			func(r *runtime.RawExtension, c randfill.Continue) {
				r.Raw = []byte("{\"a\":\"" + c.String(0) + "\"}")
			},
		}
	}
	f := fuzzer.FuzzerFor(fuzzer.MergeFuzzerFuncs(metafuzzer.Funcs, extra), rand.NewSource(rand.Int63()), runtimeserializer.CodecFactory{})
	f.NumElements(1, 3).NilChance(.3).MaxDepth(6)
CHECKS
}
`
