package scaffold

import (
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/mod/modfile"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/gengo/v2/namer"
	gengotypes "k8s.io/gengo/v2/types"

	"github.com/apigen-dev/apigen/generators/golang"
	"github.com/apigen-dev/apigen/generators/markers"
	"github.com/apigen-dev/apigen/generators/model"
)

// Versions of what generated projects depend on. They are apigen's own (a test keeps them equal
// to go.mod), so a project is built against exactly what apigen was tested with.
const (
	KubernetesVersion = "v0.37.2"
	EtcdVersion       = "v3.7.3"
	// KineVersion serves --datastore-endpoint (SQL storage, +apigen:sql); it requires EtcdVersion.
	KineVersion        = "v0.17.5"
	KubeOpenAPIVersion = "v0.0.0-20260721132016-d427ff9ee9ad"
	GoVersion          = "1.26"
	// GolangciLintVersion is what make lint runs (go run ...@version, no install needed).
	GolangciLintVersion = "v2.15.0"
)

// Dependencies are the packages a new project needs, pinned; `go get` of these records every
// module and checksum that loading and building the generated server requires.
func Dependencies() []string {
	return []string{
		"k8s.io/api/core/v1@" + KubernetesVersion,
		"k8s.io/apiextensions-apiserver/pkg/registry/customresource/tableconvertor@" + KubernetesVersion,
		"k8s.io/apimachinery/pkg/apis/meta/v1@" + KubernetesVersion,
		"k8s.io/apiserver/pkg/server@" + KubernetesVersion,
		"k8s.io/client-go/rest@" + KubernetesVersion,
		// What the generated clients import besides: the fake clientset, informers, apply
		// configurations.
		"k8s.io/client-go/applyconfigurations/meta/v1@" + KubernetesVersion,
		"k8s.io/client-go/discovery/fake@" + KubernetesVersion,
		"k8s.io/client-go/testing@" + KubernetesVersion,
		"k8s.io/client-go/tools/cache@" + KubernetesVersion,
		"k8s.io/component-base/cli@" + KubernetesVersion,
		"k8s.io/kube-openapi/pkg/common@" + KubeOpenAPIVersion,
		"go.etcd.io/etcd/server/v3/embed@" + EtcdVersion,
	}
}

// SQLDependencies are what a project that links SQL storage (+apigen:sql) needs besides: the
// SQL databases of --datastore-endpoint, as pkg/cmd/server links them.
func SQLDependencies() []string {
	return []string{
		"github.com/k3s-io/kine/pkg/drivers/mysql@" + KineVersion,
		"github.com/k3s-io/kine/pkg/drivers/pgsql@" + KineVersion,
		"github.com/k3s-io/kine/pkg/drivers/sqlite@" + KineVersion,
	}
}

// ApigenModule is apigen's own module path; ApigenTool is its command, the package a project's
// tool directive names.
const (
	ApigenModule = golang.ApigenModule
	ApigenTool   = ApigenModule + "/cmd/apigen"
)

// ServerCmd is the directory of the server's main package; the Makefile, the Dockerfile and
// config/default's instructions build or run it.
const ServerCmd = "cmd/apiserver"

// unpublishedVersion is what go.mod requires of a module that only a replace directive provides.
const unpublishedVersion = "v0.0.0-00010101000000-000000000000"

// InitOptions are the inputs of apigen init.
type InitOptions struct {
	Repo   string // Go module path; optional when root has a go.mod (which must agree)
	Domain string // appended to short group names
	Year   string // copyright year in hack/boilerplate.go.txt

	// ApigenReplace is an absolute path to a checkout of apigen. When set, go.mod gets
	// apigen as a tool (tool directive), required at an unpublished version and replaced by
	// this directory: "go tool apigen" then builds that checkout, with no download of apigen.
	ApigenReplace string
	// ApigenVersion, when set (and ApigenReplace is not), makes apigen a tool of the project
	// at this published version.
	ApigenVersion string
}

// Tool reports whether the project gets apigen as a tool in its go.mod.
func (o InitOptions) Tool() bool { return o.ApigenReplace != "" || o.ApigenVersion != "" }

// goMod is a new project's go.mod: the module, the Go version and, when apigen is a tool,
// the tool directive with its requirement (and replacement).
func (o InitOptions) goMod() string {
	var b strings.Builder
	fmt.Fprintf(&b, "module %s\n\ngo %s\n", o.Repo, GoVersion)
	if !o.Tool() {
		return b.String()
	}
	version := o.ApigenVersion
	if o.ApigenReplace != "" {
		version = unpublishedVersion
	}
	fmt.Fprintf(&b, "\ntool %s\n\nrequire %s %s\n", ApigenTool, ApigenModule, version)
	if o.ApigenReplace != "" {
		fmt.Fprintf(&b, "\nreplace %s => %s\n", ApigenModule, quoteModPath(o.ApigenReplace))
	}
	return b.String()
}

// quoteModPath quotes a file path for go.mod when it needs it (spaces, quotes).
func quoteModPath(p string) string {
	if strings.ContainsAny(p, " \t\"'`\\") {
		return strconv.Quote(p)
	}
	return p
}

var (
	modulePath = regexp.MustCompile(`^[a-zA-Z0-9][-a-zA-Z0-9_.~]*(/[-a-zA-Z0-9_.~]+)*$`)
	groupShort = regexp.MustCompile(`^[a-z]([a-z0-9]*)$`)
	kindName   = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)
)

// Init scaffolds a new project in root: go.mod, the server's main, the domain and deployment
// names (with the //go:generate line), the boilerplate, a Makefile, .gitignore, a pre-commit
// configuration, config/default (the kustomization users deploy) and a Dockerfile.
func Init(root string, o InitOptions) (Result, error) {
	existing, err := existingModule(root)
	if err != nil {
		return Result{}, err
	}
	switch {
	case existing != "" && o.Repo == "":
		o.Repo = existing
	case existing != "" && o.Repo != existing:
		return Result{}, fmt.Errorf("--repo %s differs from the module of the existing go.mod, %s; leave --repo out to scaffold around that module", o.Repo, existing)
	case o.Repo == "":
		return Result{}, fmt.Errorf("--repo is required: there is no go.mod here to take the module path from")
	}
	if !modulePath.MatchString(o.Repo) {
		return Result{}, fmt.Errorf("--repo %q is not a Go module path (like example.com/wardle)", o.Repo)
	}
	if !model.IsDomain(o.Domain) {
		return Result{}, fmt.Errorf("--domain %q is not a lower-case DNS domain with a dot (like example.com)", o.Domain)
	}
	if o.ApigenReplace != "" && !filepath.IsAbs(o.ApigenReplace) {
		return Result{}, fmt.Errorf("the apigen replacement %q must be an absolute path", o.ApigenReplace)
	}
	if o.ApigenVersion != "" && !strings.HasPrefix(o.ApigenVersion, "v") {
		return Result{}, fmt.Errorf("--apigen-version %q is not a module version (like v0.3.0)", o.ApigenVersion)
	}
	// How the project runs apigen: the Makefile, //go:generate and the pre-commit hook agree.
	apigen := "apigen"
	if o.Tool() {
		apigen = "go tool apigen"
	}
	deploy := model.DefaultDeploy(path.Base(o.Repo))
	data := map[string]any{
		"Repo": o.Repo, "Project": path.Base(o.Repo), "Domain": o.Domain, "Year": o.Year, "Tool": o.Tool(), "Apigen": apigen,
		"Replace": o.ApigenReplace != "", "ApigenTool": ApigenTool, "GoVersion": GoVersion, "Cmd": ServerCmd,
		"Namespace": deploy.Namespace, "Name": deploy.Name, "Image": deploy.Image, "GolangciLintVersion": GolangciLintVersion,
	}
	// In an existing module or repository every file that is already there is kept (and
	// reported), and only what is missing is added.
	res, err := Write(root, []File{
		{Path: path.Join(ServerCmd, "main.go"), Template: "scaffold/init/main.go.tmpl", IfExists: Skip},
		{Path: "pkg/apis/doc.go", Template: "scaffold/init/apis_doc.go.tmpl", IfExists: Skip},
		{Path: "hack/boilerplate.go.txt", Template: "scaffold/init/boilerplate.go.txt.tmpl", IfExists: Skip},
		{Path: "Makefile", Template: "scaffold/init/Makefile.tmpl", IfExists: Skip},
		{Path: ".gitignore", Template: "scaffold/init/gitignore.tmpl", IfExists: Skip},
		{Path: ".pre-commit-config.yaml", Template: "scaffold/init/pre-commit-config.yaml.tmpl", IfExists: Skip},
		{Path: "config/default/kustomization.yaml", Template: "scaffold/init/default_kustomization.yaml.tmpl", IfExists: Skip},
		{Path: "Dockerfile", Template: "scaffold/init/Dockerfile.tmpl", IfExists: Skip},
		{Path: ".dockerignore", Template: "scaffold/init/dockerignore.tmpl", IfExists: Skip},
		{Path: "config/audit/policy.yaml", Template: "scaffold/init/audit_policy.yaml.tmpl", IfExists: Skip},
		{Path: ".golangci.yml", Template: "scaffold/init/golangci.yml.tmpl", IfExists: Skip},
		{Path: "README.md", Template: "scaffold/init/README.md.tmpl", IfExists: Skip},
	}, data)
	if err != nil {
		return Result{}, err
	}
	if existing == "" {
		if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte(o.goMod()), 0o644); err != nil {
			return Result{}, err
		}
		res.Written = append([]string{"go.mod"}, res.Written...)
		return res, nil
	}
	updated, err := o.addTool(root)
	if err != nil {
		return Result{}, err
	}
	if updated {
		res.Updated = append(res.Updated, "go.mod")
	} else {
		res.Skipped = append([]string{"go.mod"}, res.Skipped...)
	}
	return res, nil
}

// existingModule returns the module path of root's go.mod, or "" when there is none.
func existingModule(root string) (string, error) {
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if m := modfile.ModulePath(data); m != "" {
		return m, nil
	}
	return "", fmt.Errorf("%s has no module line", filepath.Join(root, "go.mod"))
}

// addTool makes apigen a tool of an existing go.mod, as goMod does for a new one, when the
// options ask for it and go.mod does not name the tool yet. It reports whether it changed
// go.mod.
func (o InitOptions) addTool(root string) (bool, error) {
	if !o.Tool() {
		return false, nil
	}
	name := filepath.Join(root, "go.mod")
	data, err := os.ReadFile(name)
	if err != nil {
		return false, err
	}
	f, err := modfile.Parse(name, data, nil)
	if err != nil {
		return false, err
	}
	for _, t := range f.Tool {
		if t.Path == ApigenTool {
			return false, nil
		}
	}
	version := o.ApigenVersion
	if o.ApigenReplace != "" {
		version = unpublishedVersion
		if err := f.AddReplace(ApigenModule, "", o.ApigenReplace, ""); err != nil {
			return false, err
		}
	}
	if err := f.AddRequire(ApigenModule, version); err != nil {
		return false, err
	}
	if err := f.AddTool(ApigenTool); err != nil {
		return false, err
	}
	out, err := f.Format()
	if err != nil {
		return false, err
	}
	return true, os.WriteFile(name, out, 0o644)
}

// APIOptions are the inputs of apigen new-api.
type APIOptions struct {
	Group      string // short (wardle) or fully qualified (wardle.example.com)
	Domain     string // overrides the project's +apigen:domain
	Version    string
	Kind       string
	Plural     string // defaults to the lower-case plural of Kind
	Namespaced bool
	Status     bool
}

// NewAPI scaffolds the types file of a kind, an example test that creates and gets one through
// the API server running in process, and, if the version is new, its doc.go.
func NewAPI(root string, o APIOptions) (Result, error) {
	short, groupName, err := qualifyGroup(root, o.Group, o.Domain)
	if err != nil {
		return Result{}, err
	}
	if !regexp.MustCompile(`^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$`).MatchString(o.Version) {
		return Result{}, fmt.Errorf("--version %q must look like v1, v1beta1 or v2alpha1", o.Version)
	}
	if !kindName.MatchString(o.Kind) {
		return Result{}, fmt.Errorf("--kind %q must be a Go type name starting with an upper-case letter, like Flunder", o.Kind)
	}
	plural := o.Plural
	if plural == "" {
		plural = pluralOf(o.Kind)
	}
	if err := checkKind(o, plural); err != nil {
		return Result{}, err
	}
	repo, err := projectModule(root)
	if err != nil {
		return Result{}, err
	}
	if err := checkGroupDir(root, short, groupName); err != nil {
		return Result{}, err
	}
	dir := path.Join("pkg/apis", short, o.Version)
	if err := checkClashes(root, dir, o); err != nil {
		return Result{}, err
	}
	data := map[string]any{
		"Repo": repo, "Group": short, "GroupName": groupName, "Version": o.Version, "Kind": o.Kind, "Plural": plural,
		"Namespaced": o.Namespaced, "Status": o.Status,
	}
	// The example test uses the generated clients unless the project turned them off.
	test := "scaffold/api/test_dynamic.go.tmpl"
	// Without a doc.go, generate uses the default clients too.
	if settings, _ := projectSettings(root); settings.Clients.Enabled {
		c := settings.Clients
		test = "scaffold/api/test.go.tmpl"
		maps.Copy(data, clientNames(short, o.Version, o.Kind, plural))
		data["Clients"] = c.Dir
	}
	return Write(root, []File{
		{Path: path.Join(dir, "doc.go"), Template: "scaffold/api/doc.go.tmpl", IfExists: Skip},
		{Path: path.Join(dir, strings.ToLower(o.Kind)+"_types.go"), Template: "scaffold/api/types.go.tmpl"},
		{Path: path.Join(dir, strings.ToLower(o.Kind)+"_test.go"), Template: test},
	}, data)
}

// clientNames are the Go names client-gen and informer-gen give a kind of group short,
// version: the clientset's group-version method (ToysV1), the informer factory's group and
// version methods (Toys, V1) and the plural that names the kind's client, informer and
// namespace lister (Widgets). A resource name other than the derived plural is a plural
// exception for them (see kube.Clients).
func clientNames(short, version, kind, plural string) map[string]any {
	group, ver := namer.IC(short), namer.IC(version)
	goPlural := namer.NewPublicPluralNamer(nil).Name(&gengotypes.Type{Name: gengotypes.Name{Name: kind}})
	if plural != pluralOf(kind) {
		goPlural = namer.IC(plural)
	}
	// client-go's fake NewClientset maps resources to kinds by meta.UnsafeGuessKindToResource
	// (a Toy would be "toies") and answers "no matches" for any other resource name.
	guessed, _ := meta.UnsafeGuessKindToResource(schema.GroupVersionKind{Kind: kind})
	return map[string]any{"ClientGroup": group + ver, "InformerGroup": group, "InformerVersion": ver, "ClientPlural": goPlural,
		"FakeGuessesPlural": guessed.Resource == plural}
}

// pluralOf is the resource name apigen generate gives a kind without path=: its lower-case
// plural, as gengo's namer (and so Kubernetes' own generators) forms it.
func pluralOf(kind string) string {
	return namer.NewAllLowercasePluralNamer(nil).Name(&gengotypes.Type{Name: gengotypes.Name{Name: kind}})
}

// qualifyGroup returns the directory name and full name of a group given as "wardle" (with the
// project's domain) or "wardle.example.com".
func qualifyGroup(root, group, domain string) (short, full string, err error) {
	if strings.Contains(group, ".") {
		short, _, _ = strings.Cut(group, ".")
		full = group
	} else {
		if domain == "" {
			if domain, err = projectDomain(root); err != nil {
				return "", "", err
			}
		}
		short, full = group, group+"."+domain
	}
	if !groupShort.MatchString(short) {
		return "", "", fmt.Errorf("--group %q: the first part of a group must be lower-case letters and digits (it names the Go package pkg/apis/%s)", group, short)
	}
	if !model.IsDomain(full) {
		return "", "", fmt.Errorf("group %q is not a lower-case DNS name with a dot", full)
	}
	return short, full, nil
}

// projectModule reads the module path from root's go.mod.
func projectModule(root string) (string, error) {
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", fmt.Errorf("no go.mod in %s: run apigen init first (%v)", root, err)
	}
	if m := modfile.ModulePath(data); m != "" {
		return m, nil
	}
	return "", fmt.Errorf("%s has no module line", filepath.Join(root, "go.mod"))
}

// projectDomain reads +apigen:domain from pkg/apis/doc.go, where apigen init put it.
func projectDomain(root string) (string, error) {
	p, err := projectSettings(root)
	if p.Domain == "" && err != nil {
		return "", fmt.Errorf("no domain for a short --group: pass --domain or a fully qualified --group (reading pkg/apis/doc.go: %v)", err)
	}
	if p.Domain == "" {
		return "", fmt.Errorf("pkg/apis/doc.go has no +apigen:domain marker: pass --domain or a fully qualified --group")
	}
	return p.Domain, nil
}

// projectSettings are the project-level settings of pkg/apis/doc.go's package comment, as
// apigen generate applies them: the defaults, then each project marker's own effect. A
// marker that does not parse is left out (apigen generate reports it); one that does not
// apply is left out too, and its error returned with the rest.
func projectSettings(root string) (*model.Project, error) {
	p := model.NewProject("")
	name := filepath.Join(root, "pkg", "apis", "doc.go")
	f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		return p, err
	}
	reg := markers.Apigen()
	var errs []error
	if f.Doc != nil {
		for _, c := range f.Doc.List {
			if m, err := reg.Parse(c.Text, markers.Package, token.Position{}); err == nil && m != nil {
				if effect, ok := m.Args.(markers.ProjectEffect); ok {
					if err := effect.ApplyToProject(m, p); err != nil {
						errs = append(errs, err)
					}
				}
			}
		}
	}
	return p, errors.Join(errs...)
}
