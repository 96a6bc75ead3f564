package kube

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	dgargs "k8s.io/code-generator/cmd/defaulter-gen/args"
	dggen "k8s.io/code-generator/cmd/defaulter-gen/generators"
	"k8s.io/gengo/v2/generator"
	"k8s.io/gengo/v2/types"

	"github.com/apigen-dev/apigen/generators/engine"
	"github.com/apigen-dev/apigen/generators/model"
)

const (
	// DefaultsFile is defaulter-gen's output in every version directory: RegisterDefaults and
	// a SetObjectDefaults_<Kind> per kind that has anything to default.
	DefaultsFile = "zz_generated.defaults.go"
	defaulterTag = "k8s:defaulter-gen"
	defaultTag   = "default"
)

// Defaulter returns the generator that runs defaulter-gen over every version package,
// writing <version dir>/zz_generated.defaults.go. Every type with TypeMeta gets an object
// defaulter that applies the fields' +default values (and kubebuilder's +kubebuilder:default,
// which becomes a +default tag for the run) and calls the package's SetDefaults_<Type>
// functions; the generated registration adds RegisterDefaults to the scheme, so defaults apply
// whenever an object of any version is decoded.
func Defaulter() engine.Generator { return defaulter{} }

type defaulter struct{}

func (defaulter) Name() string { return "defaulter" }

func (defaulter) Generate(ctx *engine.Context, out *engine.Output) error {
	pkgs, dirs, err := versionPackages(ctx)
	if err != nil || len(pkgs) == 0 {
		return err
	}
	var tags tagEdits
	defer tags.restore()
	for _, p := range pkgs {
		tags.addPackageTag(ctx.Load.Universe[p], defaulterTag, "TypeMeta")
	}
	if err := addFieldDefaults(ctx, &tags); err != nil {
		return err
	}
	withholdStructDefaults(ctx, &tags)
	args := dgargs.New()
	args.OutputFile = DefaultsFile
	// The types each package gets a SetObjectDefaults_ function for, by import path.
	objectDefaulters := map[string]map[string]bool{}
	err = run(ctx, out, upstream{
		name:              "defaulter-gen",
		nameSystems:       dggen.NameSystems(),
		defaultNameSystem: dggen.DefaultNameSystem(),
		inputs:            pkgs,
		dirs:              dirs,
		targets: func(c *generator.Context) []generator.Target {
			targets := dggen.GetTargets(c, args)
			for i, t := range targets {
				names := map[string]bool{}
				objectDefaulters[t.Path()] = names
				targets[i] = recordingTarget{t, names}
			}
			return targets
		},
	})
	if err != nil {
		return err
	}
	for _, v := range versions(ctx.Project) {
		for _, r := range v.Resources {
			r.ObjectDefaulter = objectDefaulters[v.Package][r.Kind]
		}
	}
	return nil
}

// recordingTarget is a defaulter-gen target whose generators record the types they write
// an object defaulter for.
type recordingTarget struct {
	generator.Target
	names map[string]bool
}

func (t recordingTarget) Generators(c *generator.Context) []generator.Generator {
	gens := t.Target.Generators(c)
	for i, g := range gens {
		gens[i] = recordingGenerator{g, t.names}
	}
	return gens
}

// recordingGenerator records the types its generator accepts. defaulter-gen's generator
// accepts exactly the types it writes SetObjectDefaults_<Type> for (and registers in
// RegisterDefaults); gengo asks once per type, as the generator expects.
type recordingGenerator struct {
	generator.Generator
	names map[string]bool
}

func (g recordingGenerator) Filter(c *generator.Context, t *types.Type) bool {
	ok := g.Generator.Filter(c, t)
	if ok {
		g.names[t.Name.Name] = true
	}
	return ok
}

// addFieldDefaults gives the upstream generators (defaulter-gen, and openapi-gen, which puts
// defaults in the schema) every field default of the model as a +default tag: kubebuilder's
// markers become the Kubernetes tag they mean.
func addFieldDefaults(ctx *engine.Context, tags *tagEdits) error {
	for _, v := range versions(ctx.Project) {
		for _, d := range v.Defaults {
			t := ctx.Load.Universe[v.Package].Types[d.Type]
			if t == nil {
				return fmt.Errorf("%stype %s of %s not found in package %s", at(d.Pos), d.Type, d.Marker, v.Package)
			}
			tags.addMemberTag(t, d.Field, defaultTag, d.JSON)
		}
	}
	return nil
}

// withholdUnpublishableDefaults keeps from openapi-gen the defaults it refuses: on a field that
// is neither a pointer nor omitempty, openapi-gen allows only the zero value as the default
// (a client always sends such a field, so a published default would mislead it), and on a
// struct only {}. controller-gen and CRDs accept them, and the server still applies them
// (defaulter-gen fills the field when it decodes the zero value); only the served OpenAPI
// goes without, which the warning says, at the marker.
func withholdUnpublishableDefaults(ctx *engine.Context, tags *tagEdits) {
	forEachDefaulted(ctx, func(d *model.FieldDefault, t *types.Type, m types.Member) {
		zero, enforced := enforcedDefault(m.Type, hasOmitempty(m.Tags))
		if !enforced || sameJSON(d.JSON, zero) {
			return
		}
		tags.removeMemberTag(t, d.Field, defaultTag)
		if structValue(m.Type) {
			return // withholdStructDefaults warns: the server does not apply it either
		}
		ctx.Warn(d.Pos, "%s=%s on %s.%s is not in the served OpenAPI: openapi-gen publishes a default other than %s only on a pointer or omitempty field; the server still applies it when the field is %s",
			d.Marker, d.JSON, d.Type, d.Field, zero, zero)
	})
}

// withholdStructDefaults keeps from defaulter-gen the defaults of fields whose type is a struct
// held by value (flux's +kubebuilder:default={"observedGeneration":-1} on a Status,
// leaderworkerset's =1 on an intstr.IntOrString): defaulter-gen tests such a field against nil,
// which does not compile. A CRD applies them; the server does not, which the warning says at
// the marker (a pointer field takes the default).
func withholdStructDefaults(ctx *engine.Context, tags *tagEdits) {
	forEachDefaulted(ctx, func(d *model.FieldDefault, t *types.Type, m types.Member) {
		if !structValue(m.Type) || sameJSON(d.JSON, "{}") {
			return
		}
		tags.removeMemberTag(t, d.Field, defaultTag)
		ctx.Warn(d.Pos, "%s=%s on %s.%s is not applied by the server: defaulter-gen defaults a field of struct type %s only through a pointer (a CustomResourceDefinition applies it)",
			d.Marker, d.JSON, d.Type, d.Field, m.Type.Name.Name)
	})
}

// forEachDefaulted calls f for every field default of the project, with the type and the
// member it is set on.
func forEachDefaulted(ctx *engine.Context, f func(d *model.FieldDefault, t *types.Type, m types.Member)) {
	for _, v := range versions(ctx.Project) {
		for _, d := range v.Defaults {
			t := ctx.Load.Universe[v.Package].Types[d.Type]
			if t == nil {
				continue
			}
			for _, m := range t.Members {
				if m.Name == d.Field {
					f(d, t, m)
				}
			}
		}
	}
}

// structValue reports whether t, a field's type, is a struct held by value.
func structValue(t *types.Type) bool {
	for t.Kind == types.Alias {
		t = t.Underlying
	}
	return t.Kind == types.Struct
}

// enforcedDefault is the only default openapi-gen accepts on a field of type t, as JSON, and
// whether it insists on one (kube-openapi's mustEnforceDefault).
func enforcedDefault(t *types.Type, omitempty bool) (string, bool) {
	if _, custom := t.Methods["UnmarshalJSON"]; custom {
		return "", false
	}
	switch t.Kind {
	case types.Alias:
		return enforcedDefault(t.Underlying, omitempty)
	case types.Struct:
		if len(t.Members) == 1 && t.Members[0].Embedded {
			return enforcedDefault(t.Members[0].Type, omitempty)
		}
		return "{}", true
	case types.Builtin:
		if omitempty {
			return "", false
		}
		switch t.Name.Name {
		case "string":
			return `""`, true
		case "bool":
			return "false", true
		default:
			return "0", true
		}
	}
	return "", false
}

// hasOmitempty reports whether a struct tag's json key has the omitempty option.
func hasOmitempty(tag string) bool {
	json := reflect.StructTag(tag).Get("json")
	_, opts, _ := strings.Cut(json, ",")
	return slices.Contains(strings.Split(opts, ","), "omitempty")
}

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(a, b string) bool {
	var x, y any
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil && reflect.DeepEqual(x, y)
}
