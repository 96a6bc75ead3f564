package apigen_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/apigen-dev/apigen/generators/engine"
	"github.com/apigen-dev/apigen/generators/kube"
	"github.com/apigen-dev/apigen/generators/pipeline"
	"github.com/apigen-dev/apigen/internal/testproject"
)

// buildCases are the projects under testdata/builds whose API packages must build and pass
// their own tests once generated: a package that declares every name apigen's registration
// could declare (the whole of its pkg/ builds), and a kubebuilder package registered with controller-runtime's SchemeBuilder,
// whose controller-gen zz_generated.deepcopy.go is kept.
// Each case's go.mod is examples/wardle's, plus the modules a case requires. controller_runtime
// is a kubebuilder project (PROJECT file, api/v1 with groupversion_info.go);
// controller_runtime_conversion is one with CronJob in v1 and v2 converted the
// controller-runtime way (Hub() in v2, the storage version; ConvertTo and ConvertFrom in v1,
// renaming spec.schedule to spec.cron), Calendar beside it converted by conversion-gen, and
// Review, served with create only, converted the controller-runtime way, whose v1 declares a
// list type its hub, v2, does not (the kind has no list, so v1's converts to nothing). Its
// install package's own test converts v1 → hub → v1 through the generated scheme, and the
// generated round-trip test runs over every kind. hub_not_stored is the same but for CronJob's
// storage version, v1 (its hub stays v2, as kueue v0.15 ships its kinds): its test encodes the
// hub for etcd in v1 and reads it back. strategy_none has a kind in two versions with no
// conversion code and fields that differ (one missing from each, one of another type): its
// test converts both ways as a CRD with conversion strategy None would, and the generated
// round-trip test passes. declarative_validation has +k8s: validation
// tags of every family in two versions, and types of the same name in two of the project's
// other packages whose paths end alike (pkg/apis/shared, pkg/legacy/apis/shared), whose
// Validate_ functions each version package copies; its own tests run each rule through the
// scheme.
// reviews_without_list has two create-only reviews with no list type, TokenCheck written as
// k8s.io/api writes TokenReview (+genclient:onlyVerbs=create) with storage of the project's
// own, and QuotaReview with +apigen:storage:custom:verbs=create and the scaffolded stub, beside
// Audit, a +genclient kind without a list type that is not served: the whole of pkg/ builds
// (scheme, install, storage, clients, OpenAPI, server), and its tests check the scheme and the
// project's storage. struct_defaults has defaults on struct fields held by value; its test
// defaults objects through the scheme and with kube-apiserver's structural defaulting over
// the schema apigen embeds, as for a CRD, and compares. kubernetes_versions has a kind in two
// versions laid out as k8s.io/api's node/v1 and node/v1beta1 (client-gen's tags, no storage
// marker, and a v1beta1 register.go without localSchemeBuilder); its test decodes v1beta1
// into the hub, v1, and converts back. defined_kinds adds only tests to testdata/models' case
// of the same name (its base: v1beta1's kinds declared as defined types of v1's, as
// sigs.k8s.io/gateway-api declares its older versions): they convert between the defined
// type and the struct both ways, each as the other's hub, through the generated scheme.
// inlined_shadowed inlines structs whose fields others of the same JSON name hide (as
// prometheus-operator's ProbeSpec inlines HTTPConfig): the whole of pkg/ builds (the
// OpenAPI once wrote such a property twice), and its test compares the definitions'
// properties with what encoding/json writes. inlined_tied inlines two structs whose fields of
// one JSON name tie at one depth, so encoding/json writes neither: the apply configurations
// pass go vet (they once repeated the JSON tag at one depth), and its test compares the keys
// the apply configuration writes with what encoding/json writes for the Go type.
// protobuf_shapes has lists of fixed-size values and a spec with a String of its own (as
// k8s.io/api's resource/v1 has, where the generated protobuf code once failed to compile): its
// test encodes a kind through the protobuf serializer and back. It also holds named slices
// directly, with and without +protobuf.nullable=true, through a pointer, and metav1's Verbs, and a
// type with metav1.APIResource's fields whose bytes its test compares with metav1's.
// shared_defaults has a kind whose spec is a struct of the project's pkg/shared, which is no
// API package, with +kubebuilder:default on its fields (a pointer, a number, a nested struct's,
// an inlined status struct's): its test decodes objects through the scheme and finds
// the defaults applied where the fields were empty, and the values sent kept.
// root_type_never_registered is registered with controller-runtime's SchemeBuilder and has a
// root type no SchemeBuilder.Register call names (a duck type, as KEDA's WithTriggers): it is
// not served, and the generated tests, which run every served kind through the scheme, pass.
// unexported_types keeps unexported types of its own in a version package (the shape of an
// annotation a hand-written conversion writes): the whole of pkg/ builds (the OpenAPI
// definitions once named them from their package).
var buildCases = map[string]struct {
	requires, packages []string
	// base is a model case whose types the build case's own files are added to, so one
	// set of types serves both the model golden and the build.
	base string
}{
	"every_identifier":              {packages: []string{"./pkg/..."}},
	"declarative_validation":        {packages: []string{"./pkg/apis/..."}},
	"controller_runtime":            {requires: []string{"sigs.k8s.io/controller-runtime@v0.25.2"}, packages: []string{"./api/...", "./pkg/apis/..."}},
	"controller_runtime_conversion": {requires: []string{"sigs.k8s.io/controller-runtime@v0.25.2"}, packages: []string{"./api/...", "./pkg/apis/..."}},
	"hub_not_stored":                {requires: []string{"sigs.k8s.io/controller-runtime@v0.25.2"}, packages: []string{"./api/...", "./pkg/apis/..."}},
	"root_type_never_registered":    {requires: []string{"sigs.k8s.io/controller-runtime@v0.25.2"}, packages: []string{"./pkg/apis/..."}},
	"strategy_none":                 {packages: []string{"./pkg/apis/..."}},
	"protobuf_shapes":               {packages: []string{"./pkg/apis/..."}},
	"reviews_without_list":          {packages: []string{"./pkg/..."}},
	"struct_defaults":               {packages: []string{"./pkg/apis/...", "./pkg/registry/..."}},
	"kubernetes_versions":           {packages: []string{"./pkg/apis/..."}},
	"defined_kinds":                 {base: "testdata/models/defined_kinds", packages: []string{"./pkg/..."}},
	"inlined_shadowed":              {packages: []string{"./pkg/..."}},
	"inlined_tied":                  {packages: []string{"./pkg/..."}},
	"shared_defaults":               {packages: []string{"./pkg/apis/..."}},
	"unexported_types":              {packages: []string{"./pkg/..."}},
}

// TestGeneratedPackagesBuild generates each case, then runs go vet and go test on its API
// packages (the version packages and the generated install package): generated code never
// redeclares a name of the user's package, and the scheme the install package fills works.
func TestGeneratedPackagesBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds generated packages")
	}
	for name, c := range buildCases {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join("testdata", "builds", name)
			if c.base == "" {
				c.base = dir
			}
			root := testproject.Copy(t, ".", c.base)
			if c.base != dir {
				// The build case's files (its tests) join the base's; none may replace one.
				if err := os.CopyFS(root, os.DirFS(dir)); err != nil {
					t.Fatal(err)
				}
			}
			for _, mod := range c.requires {
				goCmd(t, root, "get", mod)
			}
			res, err := pipeline.Run(root, pipeline.Options{StdCache: stdCache})
			if err != nil {
				t.Fatal(err)
			}
			plan, err := engine.NewPlan(root, res.Output)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := plan.Apply(); err != nil {
				t.Fatal(err)
			}
			if name == "controller_runtime" {
				const kept = "api/v1/zz_generated.deepcopy.go"
				if _, ok := res.Output.Get(kept); ok {
					t.Errorf("apigen generates %s instead of keeping controller-gen's", kept)
				}
			}
			if name == "root_type_never_registered" {
				// WithToys, which SchemeBuilder.Register never names, is not served (a server
				// that served it would fail at start: no such kind in its scheme).
				for _, g := range res.Project.Groups {
					for _, v := range g.Versions {
						for _, r := range v.Resources {
							if r.Kind == "WithToys" {
								t.Errorf("%s/%s serves WithToys, which the package never registers", g.Name, v.Name)
							}
						}
					}
				}
				if reg, _ := res.Output.Get("pkg/apis/toys/v1/zz_generated.register.go"); reg == nil {
					t.Error("no registration generated for toys/v1")
				}
			}
			goCmd(t, root, append([]string{"vet"}, c.packages...)...)
			goCmd(t, root, append([]string{"test", "-count=1"}, c.packages...)...)
		})
	}
}

func goCmd(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %v: %v\n%s", args, err, out)
	}
}

// TestValidationRunsAreIndependent generates a project with +k8s: validation tags twice in one
// process. validation-gen's validators keep what they gather in process globals, keyed by the
// walk's paths (a list's rules are generated once per path, for one); a second run that saw
// the first one's state would leave rules out.
func TestValidationRunsAreIndependent(t *testing.T) {
	root := testproject.Copy(t, ".", filepath.Join("testdata", "builds", "declarative_validation"))
	first, again := generate(t, root), generate(t, root)
	const name = "pkg/apis/toys/v1/" + kube.ValidationsFile
	a, ok := first.Get(name)
	if !ok {
		t.Fatalf("no %s generated", name)
	}
	if b, _ := again.Get(name); !bytes.Equal(a, b) {
		t.Errorf("the second run generated another %s:\n%s", name, b)
	}
	if !first.Equal(again) {
		t.Error("two runs over the same project produced different output")
	}
}
