package kube

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	acargs "k8s.io/code-generator/cmd/applyconfiguration-gen/args"
	acgen "k8s.io/code-generator/cmd/applyconfiguration-gen/generators"
	cgargs "k8s.io/code-generator/cmd/client-gen/args"
	cggen "k8s.io/code-generator/cmd/client-gen/generators"
	cgtypes "k8s.io/code-generator/cmd/client-gen/types"
	igargs "k8s.io/code-generator/cmd/informer-gen/args"
	iggen "k8s.io/code-generator/cmd/informer-gen/generators"
	lgargs "k8s.io/code-generator/cmd/lister-gen/args"
	lggen "k8s.io/code-generator/cmd/lister-gen/generators"
	"k8s.io/gengo/v2/generator"
	"k8s.io/gengo/v2/namer"
	"k8s.io/gengo/v2/types"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/apigen-dev/apigen/generators/engine"
	"github.com/apigen-dev/apigen/generators/model"
	"github.com/apigen-dev/apigen/internal/jsonview"
)

// The clients' directories under model.Clients.Dir, and the clientset's name, as
// k8s.io/code-generator's kube_codegen.sh lays them out.
const (
	ClientsetDir          = "clientset"
	ClientsetName         = "versioned"
	ListersDir            = "listers"
	InformersDir          = "informers"
	ApplyConfigurationDir = "applyconfiguration"
)

// Clients returns the generator that runs applyconfiguration-gen, client-gen, lister-gen and
// informer-gen over every served version that has resources, writing the typed clientset
// (with its fake), listers, a shared informer factory and apply configurations under the
// project's clients directory (model.Clients). It supplies the +genclient tags from the model
// (genclientTags) and +groupName on each version package; tags the user wrote on a type are
// honoured instead. applyconfiguration-gen gets the OpenAPI schema that applySchema builds
// from the same load, so the apply configurations have their Extract functions.
func Clients() engine.Upstream { return clients{} }

type clients struct{}

func (clients) Name() string { return "clients" }

func (clients) Generate(ctx *engine.LoadContext, out *engine.Output) error {
	if ctx.Project == nil || !ctx.Project.Clients.Enabled {
		return nil
	}
	var tags tagEdits
	defer tags.restore()
	in, err := clientInputs(ctx, &tags)
	if err != nil || len(in.pkgs) == 0 {
		return err
	}

	dir := ctx.Project.Clients.Dir
	outPkg := path.Join(ctx.Load.Module, dir)
	// Upstream looks for the user's <type>_expansion.go files in the output directories.
	outDir := filepath.Join(ctx.Load.Root, filepath.FromSlash(dir))
	under := map[string]string{outPkg: dir}

	schema, err := applySchemaFile(ctx, in.pkgs)
	if err != nil {
		return err
	}
	defer os.Remove(schema)

	ac := acargs.New()
	ac.OutputDir = filepath.Join(outDir, ApplyConfigurationDir)
	ac.OutputPkg = path.Join(outPkg, ApplyConfigurationDir)
	ac.OpenAPISchemaFilePath = schema

	cg := cgargs.New()
	cg.OutputDir = filepath.Join(outDir, ClientsetDir)
	cg.OutputPkg = path.Join(outPkg, ClientsetDir)
	cg.ClientsetName = ClientsetName
	cg.Groups = in.groups
	cg.PluralExceptions = in.exceptions
	cg.ApplyConfigurationPackage = ac.OutputPkg

	lg := lgargs.New()
	lg.OutputDir = filepath.Join(outDir, ListersDir)
	lg.OutputPkg = path.Join(outPkg, ListersDir)
	lg.PluralExceptions = in.exceptions

	ig := igargs.New()
	ig.OutputDir = filepath.Join(outDir, InformersDir)
	ig.OutputPkg = path.Join(outPkg, InformersDir)
	ig.VersionedClientSetPackage = path.Join(cg.OutputPkg, ClientsetName)
	ig.ListersPackage = lg.OutputPkg
	ig.PluralExceptions = in.exceptions

	// The order of kube_codegen.sh's gen_client.
	runs := []upstream{{
		name:              "applyconfiguration-gen",
		nameSystems:       acgen.NameSystems(),
		defaultNameSystem: acgen.DefaultNameSystem(),
		targets:           func(c *generator.Context) []generator.Target { return acgen.GetTargets(c, ac) },
	}, {
		name:              "client-gen",
		nameSystems:       cggen.NameSystems(in.plurals),
		defaultNameSystem: cggen.DefaultNameSystem(),
		targets:           func(c *generator.Context) []generator.Target { return cggen.GetTargets(c, cg) },
	}, {
		name:              "lister-gen",
		nameSystems:       lggen.NameSystems(in.plurals),
		defaultNameSystem: lggen.DefaultNameSystem(),
		targets:           func(c *generator.Context) []generator.Target { return lggen.GetTargets(c, lg) },
	}, {
		name:              "informer-gen",
		nameSystems:       iggen.NameSystems(in.plurals),
		defaultNameSystem: iggen.DefaultNameSystem(),
		targets:           func(c *generator.Context) []generator.Target { return iggen.GetTargets(c, ig) },
	}}
	for _, u := range runs {
		u.inputs = in.pkgs
		u.under = under
		// applyconfiguration-gen sees each struct as encoding/json encodes it
		// (flattenHidden); the other generators see the types as they are.
		var view tagEdits
		if u.name == "applyconfiguration-gen" {
			flattenHidden(ctx.Load.Universe, in.pkgs, &view)
		}
		err := run(ctx, out, u)
		view.restore()
		if err != nil {
			return err
		}
	}
	return nil
}

// flattenHidden gives each struct of the inputs, for the run, the members of its jsonview.Flat:
// applyconfiguration-gen embeds the apply configuration of an inlined struct whole, with the
// members encoding/json never encodes because another field of the same JSON name hides them.
// Where two tie at one depth, the apply configuration had the same JSON name twice at one
// depth, which go vet refuses; where a shallower field hides one, it kept a field no JSON
// carries. Flat writes the inlined structs that have such members in place, without them.
func flattenHidden(u types.Universe, inputs []string, tags *tagEdits) {
	setViews(u, inputs, tags, jsonview.Flat)
}

// clientInput is what the four client generators are run on.
type clientInput struct {
	// pkgs are the import paths of the served versions with resources, sorted.
	pkgs []string
	// groups are client-gen's groups and versions, sorted by group.
	groups []cgtypes.GroupVersions
	// plurals are the plural exceptions by kind; exceptions the same in the flag's form.
	plurals    map[string]string
	exceptions []string
}

// clientInputs collects the served versions that have resources and tags their packages and
// kinds for the client generators: +groupName on each package, genclientTags on each kind
// whose author wrote no +genclient.
func clientInputs(ctx *engine.LoadContext, tags *tagEdits) (clientInput, error) {
	in := clientInput{plurals: map[string]string{}}
	var served []*model.Version
	for _, g := range ctx.Project.Groups {
		gv := cgtypes.GroupVersions{PackageName: g.Package, Group: cgtypes.Group(g.Name)}
		for _, v := range g.Versions {
			if len(v.Resources) == 0 {
				continue
			}
			pkg := ctx.Load.Universe[v.Package]
			if pkg == nil {
				return in, fmt.Errorf("package %s of version %s is not in the load", v.Package, v.Name)
			}
			served = append(served, v)
			gv.Versions = append(gv.Versions, cgtypes.PackageVersion{Version: cgtypes.Version(v.Name), Package: v.Package})
			tags.addPackageTag(pkg, "groupName", g.Name)
			kinds := map[string]bool{}
			for _, r := range v.Resources {
				kinds[r.Kind] = true
				t := pkg.Types[r.Kind]
				if t == nil {
					return in, fmt.Errorf("%stype %s not found in package %s", at(r.Pos), r.Kind, v.Package)
				}
				if !hasTag(typeComments(t), "genclient") {
					tags.addTypeLines(t, genclientTags(r)...)
				}
				if err := pluralException(in.plurals, r); err != nil {
					return in, err
				}
			}
			dropUnservedClients(pkg, kinds, tags)
		}
		if len(gv.Versions) > 0 {
			in.groups = append(in.groups, gv)
		}
	}
	slices.SortFunc(in.groups, func(a, b cgtypes.GroupVersions) int { return strings.Compare(string(a.Group), string(b.Group)) })
	for _, kind := range slices.Sorted(maps.Keys(in.plurals)) {
		in.exceptions = append(in.exceptions, kind+":"+in.plurals[kind])
	}
	var err error
	in.pkgs, _, err = packagesOf(ctx, served)
	if err == nil {
		dropForeignApplyMethods(ctx, served, tags)
	}
	return in, err
}

// dropUnservedClients leaves out of the client generators each type of a served version that
// client-gen's tag declares a resource but the server does not serve (a +genclient kind with
// no list type whose verbs need one, which parse warns about): nothing registers it or gives it
// DeepCopyObject, so its client, lister and informer would not compile. A +genclient:noVerbs
// type (policy's Eviction) keeps its tags: client-gen gives it only an expansion interface.
func dropUnservedClients(pkg *types.Package, served map[string]bool, tags *tagEdits) {
	for _, name := range slices.Sorted(maps.Keys(pkg.Types)) {
		t := pkg.Types[name]
		lines := typeComments(t)
		values := tagValues(lines, "genclient") // [""] for +genclient
		if served[name] || len(values) == 0 || slices.Contains(values, "false") || hasTag(lines, "genclient:noVerbs") {
			continue
		}
		tags.removeTypeLines(t, func(line string) bool { return strings.HasPrefix(strings.TrimSpace(line), "+genclient") })
	}
}

// dropForeignApplyMethods leaves out, for the client generators, each +genclient:method of a
// served kind that applies a type of a package the project does not serve, such as apps/v1's
// "+genclient:method=ApplyScale,verb=apply,...,input=k8s.io/api/autoscaling/v1.Scale":
// client-gen takes the input's apply configuration from the project's own apply
// configurations (<clients>/applyconfiguration/autoscaling/v1), which only served versions
// get, so the client would not compile. The client lacks that one method, and a warning says
// so; the methods that take the type itself (GetScale, UpdateScale) are kept.
func dropForeignApplyMethods(ctx *engine.LoadContext, served []*model.Version, tags *tagEdits) {
	own := map[string]bool{}
	for _, v := range served {
		own[v.Package] = true
	}
	for _, v := range served {
		pkg := ctx.Load.Universe[v.Package]
		for _, r := range v.Resources {
			t := pkg.Types[r.Kind]
			tags.removeTypeLines(t, func(line string) bool {
				for _, method := range tagValues([]string{line}, "genclient:method") {
					name, args, _ := strings.Cut(method, ",")
					var verb, input string
					for _, arg := range strings.Split(args, ",") {
						key, value, _ := strings.Cut(arg, "=")
						switch key {
						case "verb":
							verb = value
						case "input":
							input = value
						}
					}
					dot := strings.LastIndex(input, ".")
					if verb != "apply" || dot < 0 || own[input[:dot]] {
						continue
					}
					ctx.Warn(r.Pos, "+genclient:method=%s on %s: the generated client has no %s method: it applies %s, whose apply configuration client-gen expects among this project's, which only its served versions have",
						name, r.Kind, name, input)
					return true
				}
				return false
			})
		}
	}
}

// genclientTags are the +genclient tags the upstream client generators read, derived from a
// resource of the model: every resource gets a client; a cluster-scoped one is
// nonNamespaced; one without a status subresource gets no UpdateStatus/ApplyStatus. This is
// the one place where the model becomes client verbs: a read-only resource (custom storage
// without writes) is "+genclient:readonly", a kind without a list type has
// "+genclient:onlyVerbs" with its storage's verbs, and a scale subresource adds
// "+genclient:method=GetScale,verb=get,subresource=scale,result=k8s.io/api/autoscaling/v1.Scale"
// and its UpdateScale counterpart, as Kubernetes' own types write them.
func genclientTags(r *model.Resource) []string {
	tags := []string{"+genclient"}
	if !r.Of.Namespaced() {
		tags = append(tags, "+genclient:nonNamespaced")
	}
	if !r.Subresources.Status {
		tags = append(tags, "+genclient:noStatus")
	}
	if r.Subresources.Scale != nil {
		tags = append(tags, scaleTags...)
	}
	// Storage of the user's own that only reads gets a client that only reads, as
	// metrics-server's clients are. Other verb sets keep the full client: a verb the storage
	// does not serve answers 405 Method Not Allowed.
	cs := r.Of.CustomStorage
	switch {
	case cs != nil && slices.Equal(cs.Verbs, []string{"get", "list", "watch"}):
		tags = append(tags, "+genclient:readonly")
	case cs != nil && r.ListKind == "":
		// A kind without a list type (a create-only review) gets a client with only its verbs,
		// as Kubernetes' reviews declare it: List and Watch would name a list that does not
		// exist, and listers and informers, which need them, are not generated.
		verbs := make([]string, len(cs.Verbs))
		for i, v := range cs.Verbs {
			verbs[i] = clientVerbs[v]
		}
		tags = append(tags, "+genclient:onlyVerbs="+strings.Join(verbs, ","))
	}
	return tags
}

// clientVerbs are client-gen's names of the verbs custom storage serves without a list.
var clientVerbs = map[string]string{"create": "create", "delete": "delete", "get": "get", "patch": "patch", "update": "update"}

// scaleTags are the client methods of a scale subresource, as Kubernetes' own scalable kinds
// (apps/v1 Deployment) declare them.
var scaleTags = []string{
	"+genclient:method=GetScale,verb=get,subresource=scale,result=k8s.io/api/autoscaling/v1.Scale",
	"+genclient:method=UpdateScale,verb=update,subresource=scale,input=k8s.io/api/autoscaling/v1.Scale,result=k8s.io/api/autoscaling/v1.Scale",
}

// pluralException records the plural the upstream generators must use for a kind whose
// resource name is not the plural they derive (they name URLs after the lower-cased plural of
// the Go type name). Exceptions are keyed by kind alone, as upstream's flag is.
func pluralException(plurals map[string]string, r *model.Resource) error {
	derived := namer.NewAllLowercasePluralNamer(nil).Name(&types.Type{Name: types.Name{Name: r.Kind}})
	if derived == r.Of.Plural {
		return nil
	}
	want := namer.IC(r.Of.Plural)
	if old, ok := plurals[r.Kind]; ok && old != want {
		return fmt.Errorf("%skind %s has the resource name %s here and %s elsewhere; the generated clients name a kind's resource once",
			at(r.Pos), r.Kind, r.Of.Plural, strings.ToLower(old))
	}
	plurals[r.Kind] = want
	return nil
}

// ApplySchema is the OpenAPI document apigen hands applyconfiguration-gen for a project (see
// applySchema), for tools that run the upstream generators on the same input
// (hack/bench/applyschema).
func ApplySchema(ctx *engine.LoadContext) (*spec.Swagger, error) {
	var pkgs []string
	for _, g := range ctx.Project.Groups {
		for _, v := range g.Versions {
			if len(v.Resources) > 0 {
				pkgs = append(pkgs, v.Package)
			}
		}
	}
	slices.Sort(pkgs)
	return applySchema(ctx.Load.Universe, pkgs)
}

// applySchemaFile writes applySchema's document for the version packages to a temporary file
// (applyconfiguration-gen reads its schema from a path) and returns the path.
func applySchemaFile(ctx *engine.LoadContext, pkgs []string) (string, error) {
	doc, err := applySchema(ctx.Load.Universe, pkgs)
	if err != nil {
		return "", fmt.Errorf("building the apply configurations' OpenAPI schema: %w", err)
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return "", err
	}
	f, err := os.CreateTemp("", "apigen-openapi-*.json")
	if err != nil {
		return "", err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), f.Close()
}
