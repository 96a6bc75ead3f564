package loader

import (
	gotypes "go/types"
	"slices"
	"testing"

	"golang.org/x/tools/go/packages"
	"sigs.k8s.io/controller-tools/pkg/crd"
	crdmarkers "sigs.k8s.io/controller-tools/pkg/crd/markers"
	ctloader "sigs.k8s.io/controller-tools/pkg/loader"
	ctmarkers "sigs.k8s.io/controller-tools/pkg/markers"
)

// TestAssumeControllerToolsSealedStd: with a std cache, controller-tools finds the
// standard library's packages the load read from export data sealed (types, no syntax, type
// information), but for those the API types refer to, computes a kind's schema without looking
// into them or type-checking any package again, and a type it looks up in a sealed package all
// the same is noticed (StdTouched), so that the run is done again from source. It fails when
// an upgrade of controller-tools changes what assume_controllertools.go describes.
func TestAssumeControllerToolsSealedStd(t *testing.T) {
	if testing.Short() {
		t.Skip("loads from source and from export data, as TestLoad and TestStdCacheListsOnce do in -short mode")
	}
	cache := &StdCache{Dir: t.TempDir(), Identity: "TestAssumeControllerToolsSealedStd"}
	const root = "testdata/project"
	// From source, not from the go build cache's export data.
	cold, err := Run(root, Options{StdCache: cache, FromSource: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(cold.sealed) != 0 {
		t.Errorf("a load from source sealed %d packages", len(cold.sealed))
	}
	warm, err := Run(root, Options{StdCache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if warm.sealed["runtime"] == nil || warm.sealed["time"] != nil {
		t.Fatalf("sealed: runtime %t, time %t; want true, false (metav1.Time embeds time.Time)", warm.sealed["runtime"] != nil, warm.sealed["time"] != nil)
	}
	for path, p := range warm.sealed {
		if !warm.std.fromExport[path] || p.Types == nil || !p.Types.Complete() || p.Syntax == nil || len(p.Syntax) > 0 || p.TypesInfo == nil {
			t.Errorf("%s is sealed, but not a package from export data with its types and empty syntax and type information", path)
		}
	}

	registry := &ctmarkers.Registry{}
	if err := crdmarkers.Register(registry); err != nil {
		t.Fatal(err)
	}
	parser := &crd.Parser{Collector: &ctmarkers.Collector{Registry: registry}, Checker: &ctloader.TypeChecker{}}
	crd.AddKnownTypes(parser)
	pkg := warm.Package("example.com/project/pkg/apis/things/v1")
	types := map[string]*gotypes.Package{}
	var all []*packages.Package
	packages.Visit([]*packages.Package{pkg.Package}, nil, func(p *packages.Package) {
		types[p.PkgPath] = p.Types
		all = append(all, p)
	})
	parser.NeedPackage(pkg)
	thing := crd.TypeIdent{Package: pkg, Name: "Thing"}
	parser.NeedFlattenedSchemaFor(thing)
	if s, ok := parser.FlattenedSchemata[thing]; !ok || s.Properties["port"].XIntOrString != true {
		t.Errorf("the schema of Thing is %+v, want one with port an int-or-string", s)
	}
	if touched := warm.StdTouched(); len(touched) != 0 {
		t.Errorf("StdTouched = %q after controller-tools computed a schema", touched)
	}
	for _, p := range all {
		if p.Types != types[p.PkgPath] {
			t.Errorf("controller-tools type-checked %s again", p.PkgPath)
		}
	}

	io := pkg.Imports()["k8s.io/apimachinery/pkg/apis/meta/v1"].Imports()["io"]
	if io == nil || warm.sealed["io"] == nil {
		t.Fatal("metav1 imports no sealed io")
	}
	parser.NeedSchemaFor(crd.TypeIdent{Package: io, Name: "SectionReader"})
	if touched := warm.StdTouched(); !slices.Equal(touched, []string{"io"}) {
		t.Errorf("StdTouched = %q after controller-tools looked up io.SectionReader, want io", touched)
	}
}
