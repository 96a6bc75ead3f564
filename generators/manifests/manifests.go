// Package manifests renders config/generated/*.yaml: what runs the generated server in a
// cluster behind the kube-apiserver (an APIService per group-version, a Service, a Deployment,
// a PodDisruptionBudget, RBAC, a Namespace, a ServiceAccount and a kustomization listing them).
// Every file is rendered from templates/manifests and every document in it is decoded back
// strictly before it is accepted, so a template bug fails generation instead of kubectl apply.
package manifests

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/template"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"

	"github.com/apigen-dev/apigen/generators/engine"
	"github.com/apigen-dev/apigen/generators/model"
	"github.com/apigen-dev/apigen/templates"
)

// Dir is where the manifests are written, relative to the project root.
const Dir = "config/generated"

// Defaults of the generated Deployment. The etcd address is a placeholder: etcd is not part of
// the manifests, and an overlay is expected to point --etcd-servers at the real cluster.
const (
	replicas             = 2
	securePort           = 8443
	certDir              = "/var/run/serving-cert"
	groupPriorityMinimum = 1000
	// topVersionPriority is the storage version's versionPriority; the group's other versions
	// get lower ones, in Kubernetes version order.
	topVersionPriority = 100
)

// New returns the generator of config/generated/*.yaml.
func New() engine.Generator { return gen{} }

type gen struct{}

func (gen) Name() string { return "manifests" }

// data is what the templates see.
type data struct {
	Project        string
	Namespace      string
	ServiceName    string // also the Deployment, PodDisruptionBudget and ClusterRole
	ServiceAccount string
	SecretName     string // the serving certificate: tls.crt and tls.key
	Image          string
	EtcdServers    string
	CertDir        string
	SecurePort     int
	Replicas       int
	// Labels is the common label set as YAML lines, for the indent function.
	Labels               string
	GroupPriorityMinimum int
	APIServices          []apiService
	// Files are the other generated files, for kustomization.yaml.
	Files []string
}

type apiService struct {
	Name, Group, Version string
	VersionPriority      int
}

func (gen) Generate(ctx *engine.Context, out *engine.Output) error {
	d, err := newData(ctx.Project)
	if err != nil {
		return err
	}
	names, err := fs.Glob(templates.Manifests, "manifests/*.yaml.tmpl")
	if err != nil {
		return err
	}
	var files []string
	for _, name := range names {
		file := strings.TrimSuffix(path.Base(name), ".tmpl")
		if file == "apiservice.yaml" && len(d.APIServices) == 0 {
			continue // no group yet: nothing to register
		}
		files = append(files, file)
	}
	slices.Sort(files)
	for _, f := range files {
		if f != "kustomization.yaml" {
			d.Files = append(d.Files, f)
		}
	}
	for _, file := range files {
		b, err := render(file, d)
		if err != nil {
			return err
		}
		if err := out.Add(path.Join(Dir, file), b); err != nil {
			return err
		}
	}
	return nil
}

func newData(p *model.Project) (*data, error) {
	name := dnsLabel(p.Name)
	d := &data{
		Project:              name,
		Namespace:            name + "-system",
		ServiceName:          name + "-apiserver",
		ServiceAccount:       name + "-apiserver",
		SecretName:           name + "-apiserver-serving-cert",
		Image:                name + "-apiserver:latest",
		EtcdServers:          "http://etcd-client." + name + "-system.svc:2379",
		CertDir:              certDir,
		SecurePort:           securePort,
		Replicas:             replicas,
		GroupPriorityMinimum: groupPriorityMinimum,
	}
	var problems []string
	problems = append(problems, prefixed("namespace "+d.Namespace, validation.IsDNS1123Label(d.Namespace))...)
	problems = append(problems, prefixed("service "+d.ServiceName, validation.IsDNS1035Label(d.ServiceName))...)
	if len(problems) > 0 {
		return nil, fmt.Errorf("project name %q does not give valid Kubernetes names: %s", p.Name, strings.Join(problems, "; "))
	}
	d.Labels = strings.Join([]string{
		"app.kubernetes.io/name: " + d.ServiceName,
		"app.kubernetes.io/part-of: " + strconv.Quote(name),
		"app.kubernetes.io/managed-by: apigen",
	}, "\n")

	groups := slices.Clone(p.Groups)
	slices.SortFunc(groups, func(a, b *model.Group) int { return strings.Compare(a.Name, b.Name) })
	for _, g := range groups {
		versions := orderVersions(g)
		step := 10
		if len(versions) > 10 {
			step = 1
		}
		if len(versions) > topVersionPriority {
			return nil, fmt.Errorf("group %s has %d versions; at most %d get an APIService priority", g.Name, len(versions), topVersionPriority)
		}
		for i, v := range versions {
			d.APIServices = append(d.APIServices, apiService{
				Name:            v.Name + "." + g.Name,
				Group:           g.Name,
				Version:         v.Name,
				VersionPriority: topVersionPriority - i*step,
			})
		}
	}
	return d, nil
}

// orderVersions returns a group's versions from the most preferred: the storage version first
// (the server's preferred version, see the encoder in the generated apiserver), then the others
// in Kubernetes version order (v2 > v1 > v1beta2 > v1beta1 > v1alpha1).
func orderVersions(g *model.Group) []*model.Version {
	versions := slices.Clone(g.Versions)
	slices.SortStableFunc(versions, func(a, b *model.Version) int {
		if a.Storage != b.Storage {
			if a.Storage {
				return -1
			}
			return 1
		}
		return cmp.Or(version.CompareKubeAwareVersionStrings(b.Name, a.Name), strings.Compare(a.Name, b.Name))
	})
	return versions
}

// dnsLabel turns a project name (the last element of a module path) into a DNS label:
// lower case, anything but letters, digits and '-' replaced by '-'.
func dnsLabel(s string) string {
	b := []byte(strings.ToLower(s))
	for i, c := range b {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			b[i] = '-'
		}
	}
	return strings.Trim(string(b), "-")
}

func prefixed(what string, errs []string) []string {
	for i, e := range errs {
		errs[i] = what + ": " + e
	}
	return errs
}

var funcs = template.FuncMap{
	// indent puts each line of s on a new line indented by n spaces.
	"indent": func(n int, s string) string {
		pad := "\n" + strings.Repeat(" ", n)
		return pad + strings.ReplaceAll(s, "\n", pad)
	},
	"q": strconv.Quote,
}

// render executes one template, puts the generated header on top and checks every document.
func render(file string, d *data) ([]byte, error) {
	name := "manifests/" + file + ".tmpl"
	src, err := fs.ReadFile(templates.Manifests, name)
	if err != nil {
		return nil, err
	}
	t, err := template.New(file).Option("missingkey=error").Funcs(funcs).Parse(string(src))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var body bytes.Buffer
	if err := t.Execute(&body, d); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	b := []byte("# " + engine.GeneratedLine + "\n" + strings.TrimLeft(body.String(), "\n"))
	b = append(bytes.TrimRight(b, "\n"), '\n')
	if err := Check(b); err != nil {
		return nil, fmt.Errorf("%s: rendered YAML is wrong (a bug in the template): %w\n%s", name, err, b)
	}
	return b, nil
}

var separator = regexp.MustCompile(`(?m)^---[ \t]*\n`)

// strict decodes the built-in kinds and rejects unknown and duplicate fields.
var strict = serializer.NewCodecFactory(scheme.Scheme, serializer.EnableStrict).UniversalDeserializer()

// Check decodes every document of a YAML stream strictly: the built-in kinds with client-go's
// scheme, APIService and Kustomization into local types (their modules are not dependencies
// of apigen). An empty stream or document is an error.
func Check(stream []byte) error {
	docs := separator.Split(string(stream), -1)
	for i, doc := range docs {
		if err := checkDoc([]byte(doc)); err != nil {
			return fmt.Errorf("document %d: %w", i+1, err)
		}
	}
	return nil
}

func checkDoc(doc []byte) error {
	j, err := yaml.YAMLToJSONStrict(doc)
	if err != nil {
		return err
	}
	if string(bytes.TrimSpace(j)) == "null" {
		return fmt.Errorf("empty document")
	}
	var tm struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := json.Unmarshal(j, &tm); err != nil {
		return err
	}
	switch tm.APIVersion + "/" + tm.Kind {
	case "apiregistration.k8s.io/v1/APIService":
		return checkAPIService(j)
	case "kustomize.config.k8s.io/v1beta1/Kustomization":
		var k kustomization
		if err := decodeStrict(j, &k); err != nil {
			return err
		}
		if len(k.Resources) == 0 {
			return fmt.Errorf("kustomization lists no resources")
		}
		return nil
	}
	obj, _, err := strict.Decode(j, nil, nil)
	if err != nil {
		return err
	}
	return checkName(obj)
}

func checkName(obj runtime.Object) error {
	m, err := meta.Accessor(obj)
	if err != nil {
		return err
	}
	if m.GetName() == "" {
		return fmt.Errorf("%s without metadata.name", obj.GetObjectKind().GroupVersionKind().Kind)
	}
	return nil
}

type kustomization struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Namespace  string   `json:"namespace,omitempty"`
	Resources  []string `json:"resources"`
}

// APIService mirrors the fields of k8s.io/kube-aggregator's apiregistration/v1 APIService that
// the manifests may set.
type APIService struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name   string            `json:"name"`
		Labels map[string]string `json:"labels,omitempty"`
	} `json:"metadata"`
	Spec struct {
		Service *struct {
			Namespace string `json:"namespace"`
			Name      string `json:"name"`
			Port      *int32 `json:"port,omitempty"`
		} `json:"service,omitempty"`
		Group                 string `json:"group"`
		Version               string `json:"version"`
		InsecureSkipTLSVerify bool   `json:"insecureSkipTLSVerify,omitempty"`
		CABundle              []byte `json:"caBundle,omitempty"`
		GroupPriorityMinimum  int32  `json:"groupPriorityMinimum"`
		VersionPriority       int32  `json:"versionPriority"`
	} `json:"spec"`
}

// checkAPIService applies the kube-aggregator's validation rules that matter here.
func checkAPIService(j []byte) error {
	var a APIService
	if err := decodeStrict(j, &a); err != nil {
		return err
	}
	s := a.Spec
	switch {
	case s.Group == "" || s.Version == "":
		return fmt.Errorf("APIService %q: spec.group and spec.version are required", a.Metadata.Name)
	case a.Metadata.Name != s.Version+"."+s.Group:
		return fmt.Errorf("APIService %q: the name must be %s.%s", a.Metadata.Name, s.Version, s.Group)
	case s.Service == nil || s.Service.Namespace == "" || s.Service.Name == "":
		return fmt.Errorf("APIService %q: spec.service needs a namespace and a name", a.Metadata.Name)
	case s.Service.Port != nil && (*s.Service.Port < 1 || *s.Service.Port > 65535):
		return fmt.Errorf("APIService %q: spec.service.port %d is not a port", a.Metadata.Name, *s.Service.Port)
	case s.InsecureSkipTLSVerify:
		return fmt.Errorf("APIService %q: insecureSkipTLSVerify must not be set", a.Metadata.Name)
	case s.GroupPriorityMinimum < 1 || s.GroupPriorityMinimum > 20000:
		return fmt.Errorf("APIService %q: groupPriorityMinimum must be in 1..20000", a.Metadata.Name)
	case s.VersionPriority < 1 || s.VersionPriority > 1000:
		return fmt.Errorf("APIService %q: versionPriority must be in 1..1000", a.Metadata.Name)
	}
	return nil
}

func decodeStrict(j []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
