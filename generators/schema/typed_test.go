package schema

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/go/packages"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/controller-tools/pkg/crd"
	ctloader "sigs.k8s.io/controller-tools/pkg/loader"
)

// typedCases is a package of types, each one case of TestSatisfiedByType: its schema is what
// controller-tools makes of it, with apigen's markers, as Build makes it.
const typedCases = `package api

import (
	"encoding/json"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

type TimesAndInts struct {
	metav1.TypeMeta   ` + "`json:\",inline\"`" + `
	metav1.ObjectMeta ` + "`json:\"metadata,omitempty\"`" + `
	Spec   TimesAndIntsSpec ` + "`json:\"spec,omitempty\"`" + `
	Status TimesAndIntsSpec ` + "`json:\"status,omitempty\"`" + `
}

type TimesAndIntsSpec struct {
	// A plain field without omitempty is required, and always written.
	Name      string            ` + "`json:\"name\"`" + `
	Count     int32             ` + "`json:\"count\"`" + `
	Big       int64             ` + "`json:\"big,omitempty\"`" + `
	Plain     int               ` + "`json:\"plain,omitempty\"`" + `
	On        bool              ` + "`json:\"on,omitempty\"`" + `
	Ratio     float64           ` + "`json:\"ratio,omitempty\"`" + `
	At        metav1.Time       ` + "`json:\"at,omitempty\"`" + `
	Maybe     *metav1.Time      ` + "`json:\"maybe,omitempty\"`" + `
	Micro     metav1.MicroTime  ` + "`json:\"micro,omitempty\"`" + `
	Every     metav1.Duration   ` + "`json:\"every\"`" + `
	Data      []byte            ` + "`json:\"data,omitempty\"`" + `
	// +listType=atomic
	Tags      []string          ` + "`json:\"tags,omitempty\"`" + `
	Labels    map[string]string ` + "`json:\"labels,omitempty\"`" + `
	Items     []Item            ` + "`json:\"items,omitempty\"`" + `
	// +kubebuilder:default=one
	Defaulted string ` + "`json:\"defaulted,omitempty\"`" + `
	Embedded ` + "`json:\",inline\"`" + `
}

type Item struct {
	Key string ` + "`json:\"key\"`" + `
}

type Embedded struct {
	Inlined string ` + "`json:\"inlined\"`" + `
}

type Quantities struct {
	Memory resource.Quantity   ` + "`json:\"memory\"`" + `
	Port   intstr.IntOrString  ` + "`json:\"port\"`" + `
	Limits map[string]resource.Quantity ` + "`json:\"limits,omitempty\"`" + `
}

type K8sRequired struct {
	// +k8s:required
	Name string ` + "`json:\"name,omitempty\"`" + `
	// +k8s:required
	Ref *Item ` + "`json:\"ref,omitempty\"`" + `
}

type FormatMarker struct {
	// +kubebuilder:validation:Format=date-time
	At string ` + "`json:\"at,omitempty\"`" + `
}

type MaxLength struct {
	// +kubebuilder:validation:MaxLength=3
	Name string ` + "`json:\"name,omitempty\"`" + `
}

type Enum struct {
	// +kubebuilder:validation:Enum=a;b
	Name string ` + "`json:\"name,omitempty\"`" + `
}

type Minimum struct {
	// +kubebuilder:validation:Minimum=0
	Count int32 ` + "`json:\"count,omitempty\"`" + `
}

// +kubebuilder:validation:XValidation:rule="self.a == self.b"
type CEL struct {
	A string ` + "`json:\"a,omitempty\"`" + `
	B string ` + "`json:\"b,omitempty\"`" + `
}

type EmbeddedResource struct {
	// +kubebuilder:validation:EmbeddedResource
	Object runtime.RawExtension ` + "`json:\"object,omitempty\"`" + `
}

type Raw struct {
	Object runtime.RawExtension ` + "`json:\"object,omitempty\"`" + `
}

type ListSet struct {
	// +listType=set
	Tags []string ` + "`json:\"tags,omitempty\"`" + `
}

type ListMap struct {
	// +listType=map
	// +listMapKey=key
	Items []Item ` + "`json:\"items,omitempty\"`" + `
}

type RequiredTime struct {
	At metav1.Time ` + "`json:\"at\"`" + `
}

type RequiredPointer struct {
	Ref *Item ` + "`json:\"ref\"`" + `
}

type RequiredOmitEmpty struct {
	// +required
	Name string ` + "`json:\"name,omitempty\"`" + `
}

type RequiredStatus struct {
	Status Item ` + "`json:\"status\"`" + `
}

type PointerItems struct {
	Items []*Item ` + "`json:\"items,omitempty\"`" + `
}

type Unsigned struct {
	Count uint32 ` + "`json:\"count,omitempty\"`" + `
}

type OwnJSON struct {
	Value Custom ` + "`json:\"value,omitempty\"`" + `
}

type Custom struct {
	A string ` + "`json:\"a,omitempty\"`" + `
}

func (c Custom) MarshalJSON() ([]byte, error) { return json.Marshal(c.A) }

type DefaultedNull struct {
	// +kubebuilder:default={}
	Labels map[string]string ` + "`json:\"labels\"`" + `
}

// metav1.Condition's fields carry markers: bounds, patterns, an enum.
type Conditions struct {
	Conditions []metav1.Condition ` + "`json:\"conditions,omitempty\"`" + `
}

// The status is checked as a whole only where the status subresource writes it.
type WithConditions struct {
	Spec   TimesAndIntsSpec ` + "`json:\"spec,omitempty\"`" + `
	Status ConditionsStatus ` + "`json:\"status,omitempty\"`" + `
}

type ConditionsStatus struct {
	ObservedGeneration int64 ` + "`json:\"observedGeneration,omitempty\"`" + `
	Conditions []metav1.Condition ` + "`json:\"conditions,omitempty\"`" + `
}

// A zero status with a field always written is checked on create.
type ZeroStatusWritten struct {
	Status StatusWritten ` + "`json:\"status,omitempty\"`" + `
}

type StatusWritten struct {
	// +kubebuilder:validation:Minimum=1
	Count int32 ` + "`json:\"count\"`" + `
}

type SpecAndStatusMarkers struct {
	Spec   MaxLength        ` + "`json:\"spec,omitempty\"`" + `
	Status ConditionsStatus ` + "`json:\"status,omitempty\"`" + `
}

// ObjectMeta below the top level, in a pod template and as a plain field.
type Templated struct {
	metav1.TypeMeta   ` + "`json:\",inline\"`" + `
	metav1.ObjectMeta ` + "`json:\"metadata,omitempty\"`" + `
	Template Template          ` + "`json:\"template\"`" + `
	Meta     metav1.ObjectMeta ` + "`json:\"meta\"`" + `
}

type Template struct {
	metav1.ObjectMeta ` + "`json:\"metadata,omitempty\"`" + `
	Image string ` + "`json:\"image,omitempty\"`" + `
}

type TypeMarker struct {
	// +kubebuilder:validation:Type=string
	Count int32 ` + "`json:\"count,omitempty\"`" + `
}
`

// loadTypedCases loads typedCases and makes Build's parser over them.
func loadTypedCases(t *testing.T) (*crd.Parser, *ctloader.Package) {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"go.mod", "go.sum"} {
		data, err := os.ReadFile(filepath.Join("../../examples/wardle", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "api"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "api", "types.go"), []byte(typedCases), 0o644); err != nil {
		t.Fatal(err)
	}
	pkgs, err := ctloader.LoadRootsWithConfig(&packages.Config{Dir: dir, Env: append(os.Environ(), "GOFLAGS=-mod=mod")}, "./api")
	if err != nil {
		t.Fatal(err)
	}
	parser, err := newParser(dir, pkgs, pkgs, false)
	if err != nil {
		t.Fatal(err)
	}
	return parser, pkgs[0]
}

// TestSatisfiedByType decides, for each type of typedCases, whether its enforced schema
// constrains anything an object of the type can break.
func TestSatisfiedByType(t *testing.T) {
	parser, pkg := loadTypedCases(t)
	for _, c := range []struct {
		kind          string
		want          bool
		outsideStatus bool
	}{
		{"TimesAndInts", true, false}, // its zero status writes fields (name), so outside it is not enough
		{"WithConditions", false, true},
		{"ZeroStatusWritten", false, false},
		{"SpecAndStatusMarkers", false, false},
		{"Quantities", true, false},
		// +k8s:required is declarative validation's, which checks it on the typed object: the
		// enforced schema does not require the field (see requiredness).
		{"K8sRequired", true, false},
		{"FormatMarker", false, false},
		{"MaxLength", false, false},
		{"Enum", false, false},
		{"Minimum", false, false},
		{"CEL", false, false},
		{"EmbeddedResource", false, false},
		{"Raw", false, false}, // preserves unknown fields, which pruning must see
		{"ListSet", false, false},
		{"ListMap", false, false},
		{"RequiredTime", false, false},      // a zero metav1.Time is null
		{"RequiredPointer", false, false},   // a nil pointer is null, dropped
		{"RequiredOmitEmpty", false, false}, // "" is not written
		{"RequiredStatus", false, false},    // an empty status is dropped
		{"PointerItems", false, false},      // an item can be null
		{"Unsigned", false, false},          // past int32
		{"OwnJSON", false, false},
		{"DefaultedNull", false, false}, // a null with a default stays, and is not an object
		{"TypeMarker", false, false},
		{"Templated", true, false},
		{"Conditions", false, false},
	} {
		b, ok, err := flattened(parser, nil, pkg, c.kind)
		if err != nil || !ok {
			t.Fatalf("%s: no schema (%v): %v", c.kind, err, pkg.Errors)
		}
		var s apiextensionsv1.JSONSchemaProps
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		if got := satisfiedByType(s, pkg.Types.Scope().Lookup(c.kind).Type()); got != c.want {
			t.Errorf("%s: satisfied by its type = %v, want %v; schema %s", c.kind, got, c.want, b)
		}
		if got := satisfiedOutsideStatus(s, pkg.Types.Scope().Lookup(c.kind).Type()); got != c.outsideStatus {
			t.Errorf("%s: satisfied outside its status = %v, want %v; schema %s", c.kind, got, c.outsideStatus, b)
		}
	}
	if len(pkg.Errors) > 0 {
		t.Errorf("controller-tools found errors in the cases: %v", pkg.Errors)
	}
}

// An ObjectMeta below the top level has controller-gen's schema with embedded metadata (its
// fields typed, so CEL rules and the served schema see them), the kind's own metadata a bare
// object, as in a CRD.
func TestNestedObjectMeta(t *testing.T) {
	parser, pkg := loadTypedCases(t)
	b, ok, err := flattened(parser, nil, pkg, "Templated")
	if err != nil || !ok {
		t.Fatalf("no schema (%v): %v", err, pkg.Errors)
	}
	var s apiextensionsv1.JSONSchemaProps
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		got  apiextensionsv1.JSONSchemaProps
		want apiextensionsv1.JSONSchemaProps
	}{
		{"metadata", s.Properties["metadata"], apiextensionsv1.JSONSchemaProps{Type: "object"}},
		{"template.metadata", s.Properties["template"].Properties["metadata"], embeddedObjectMeta},
		{"meta", s.Properties["meta"], embeddedObjectMeta},
	} {
		if diff := cmp.Diff(c.want, c.got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.path, diff)
		}
	}
	// embeddedObjectMeta is what controller-tools writes, not a copy gone stale.
	metav1 := pkg.Imports()["k8s.io/apimachinery/pkg/apis/meta/v1"]
	if metav1 == nil {
		t.Fatal("metav1 is not loaded")
	}
	written, err := json.Marshal(parser.Schemata[crd.TypeIdent{Package: metav1, Name: "ObjectMeta"}])
	if err != nil {
		t.Fatal(err)
	}
	var theirs apiextensionsv1.JSONSchemaProps
	if err := json.Unmarshal(written, &theirs); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(embeddedObjectMeta, theirs); diff != "" {
		t.Errorf("controller-tools' embedded ObjectMeta (-apigen's +controller-tools'):\n%s", diff)
	}
}
