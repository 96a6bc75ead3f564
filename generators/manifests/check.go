package manifests

// The strict decoding every rendered manifest passes before it is accepted (Check).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"sigs.k8s.io/yaml"
)

var separator = regexp.MustCompile(`(?m)^---[ \t]*\n`)

// builtins is the scheme of the built-in groups the manifests use. client-go's scheme would do,
// but it links every k8s.io/api group into apigen, whose initialisation every run then pays.
var builtins = func() *runtime.Scheme {
	s := runtime.NewScheme()
	add := runtime.NewSchemeBuilder(corev1.AddToScheme, appsv1.AddToScheme, batchv1.AddToScheme,
		networkingv1.AddToScheme, policyv1.AddToScheme, rbacv1.AddToScheme)
	if err := add.AddToScheme(s); err != nil {
		panic(err)
	}
	return s
}()

// strict decodes the built-in kinds and rejects unknown and duplicate fields.
var strict = serializer.NewCodecFactory(builtins, serializer.EnableStrict).UniversalDeserializer()

// Check decodes every document of a YAML stream strictly: the built-in kinds with their Go types
// (builtins); APIService, Kustomization, kustomize's Component and cert-manager's Issuer and
// Certificate into local types (their modules are not dependencies of apigen). An empty stream
// or document is an error.
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
	case "kustomize.config.k8s.io/v1alpha1/Component":
		return checkComponent(j)
	case "cert-manager.io/v1/Issuer":
		return checkIssuer(j)
	case "cert-manager.io/v1/Certificate":
		return checkCertificate(j)
	case "monitoring.coreos.com/v1/ServiceMonitor":
		return checkServiceMonitor(j)
	case "monitoring.coreos.com/v1/PrometheusRule":
		return checkPrometheusRule(j)
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

// component mirrors the fields of a kustomize Component the manifests may set.
type component struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Resources  []string `json:"resources,omitempty"`
	Patches    []struct {
		Patch  string `json:"patch"`
		Target struct {
			Group         string `json:"group,omitempty"`
			Kind          string `json:"kind,omitempty"`
			Name          string `json:"name,omitempty"`
			LabelSelector string `json:"labelSelector,omitempty"`
		} `json:"target"`
	} `json:"patches,omitempty"`
	Replacements []struct {
		Source struct {
			Kind      string `json:"kind"`
			Name      string `json:"name"`
			FieldPath string `json:"fieldPath"`
		} `json:"source"`
		Targets []struct {
			Select struct {
				Kind string `json:"kind"`
				Name string `json:"name"`
			} `json:"select"`
			FieldPaths []string `json:"fieldPaths"`
		} `json:"targets"`
	} `json:"replacements,omitempty"`
}

func checkComponent(j []byte) error {
	var c component
	if err := decodeStrict(j, &c); err != nil {
		return err
	}
	if len(c.Resources) == 0 && len(c.Patches) == 0 && len(c.Replacements) == 0 {
		return fmt.Errorf("component has neither resources, patches nor replacements")
	}
	for i, r := range c.Replacements {
		if r.Source.Kind == "" || r.Source.Name == "" || r.Source.FieldPath == "" || len(r.Targets) == 0 {
			return fmt.Errorf("replacement %d needs a source kind, name and fieldPath, and a target", i+1)
		}
	}
	for i, p := range c.Patches {
		if p.Target.Kind == "" && p.Target.LabelSelector == "" {
			return fmt.Errorf("patch %d has neither a target kind nor a label selector", i+1)
		}
		if _, err := labels.Parse(p.Target.LabelSelector); err != nil {
			return fmt.Errorf("patch %d: %w", i+1, err)
		}
		// Inline patches are YAML too (a strategic merge patch or a JSON 6902 list).
		if strings.TrimSpace(p.Patch) == "" {
			return fmt.Errorf("patch %d is empty", i+1)
		}
		if _, err := yaml.YAMLToJSONStrict([]byte(p.Patch)); err != nil {
			return fmt.Errorf("patch %d is not YAML: %w", i+1, err)
		}
	}
	return nil
}

// objectMeta is the metadata of the cert-manager objects.
type objectMeta struct {
	Name      string            `json:"name"`
	Namespace string            `json:"namespace"`
	Labels    map[string]string `json:"labels,omitempty"`
}

// namespacedObject starts each of the objects above: apiVersion, kind and metadata.
type namespacedObject struct {
	APIVersion string     `json:"apiVersion"`
	Kind       string     `json:"kind"`
	Metadata   objectMeta `json:"metadata"`
}

func (m objectMeta) check(kind string) error {
	if m.Name == "" || m.Namespace == "" {
		return fmt.Errorf("%s %q needs metadata.name and metadata.namespace", kind, m.Name)
	}
	return nil
}

// checkIssuer accepts the cert-manager.io/v1 Issuers the manifests use: a self-signed one and
// a CA one.
func checkIssuer(j []byte) error {
	var i struct {
		namespacedObject
		Spec struct {
			SelfSigned *struct{} `json:"selfSigned,omitempty"`
			CA         *struct {
				SecretName string `json:"secretName"`
			} `json:"ca,omitempty"`
		} `json:"spec"`
	}
	if err := decodeStrict(j, &i); err != nil {
		return err
	}
	if (i.Spec.SelfSigned == nil) == (i.Spec.CA == nil) || i.Spec.CA != nil && i.Spec.CA.SecretName == "" {
		return fmt.Errorf("Issuer %q: exactly one of spec.selfSigned and spec.ca (with a secretName) is required", i.Metadata.Name)
	}
	return i.Metadata.check("Issuer")
}

// checkCertificate accepts the fields of a cert-manager.io/v1 Certificate the manifests set.
func checkCertificate(j []byte) error {
	var c struct {
		namespacedObject
		Spec struct {
			SecretName  string   `json:"secretName"`
			IsCA        bool     `json:"isCA,omitempty"`
			CommonName  string   `json:"commonName,omitempty"`
			DNSNames    []string `json:"dnsNames,omitempty"`
			IPAddresses []string `json:"ipAddresses,omitempty"`
			IssuerRef   struct {
				Name  string `json:"name"`
				Kind  string `json:"kind"`
				Group string `json:"group,omitempty"`
			} `json:"issuerRef"`
			PrivateKey *struct {
				Algorithm string `json:"algorithm,omitempty"`
				Size      int    `json:"size,omitempty"`
			} `json:"privateKey,omitempty"`
			Usages []string `json:"usages,omitempty"`
		} `json:"spec"`
	}
	if err := decodeStrict(j, &c); err != nil {
		return err
	}
	s := c.Spec
	switch {
	case s.SecretName == "":
		return fmt.Errorf("Certificate %q: spec.secretName is required", c.Metadata.Name)
	case len(s.DNSNames) == 0 && s.CommonName == "":
		return fmt.Errorf("Certificate %q: neither spec.dnsNames nor spec.commonName names a subject", c.Metadata.Name)
	case s.IssuerRef.Name == "" || (s.IssuerRef.Kind != "Issuer" && s.IssuerRef.Kind != "ClusterIssuer"):
		return fmt.Errorf("Certificate %q: spec.issuerRef needs a name and the kind Issuer or ClusterIssuer", c.Metadata.Name)
	}
	return c.Metadata.check("Certificate")
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

// checkServiceMonitor accepts the fields of a Prometheus Operator ServiceMonitor the
// manifests set.
func checkServiceMonitor(j []byte) error {
	var m struct {
		namespacedObject
		Spec struct {
			Selector  metav1.LabelSelector `json:"selector"`
			Endpoints []struct {
				Port            string `json:"port"`
				Scheme          string `json:"scheme"`
				Path            string `json:"path"`
				Interval        string `json:"interval"`
				BearerTokenFile string `json:"bearerTokenFile"`
				TLSConfig       struct {
					ServerName string `json:"serverName"`
					CA         struct {
						Secret corev1.SecretKeySelector `json:"secret"`
					} `json:"ca"`
				} `json:"tlsConfig"`
			} `json:"endpoints"`
		} `json:"spec"`
	}
	if err := decodeStrict(j, &m); err != nil {
		return err
	}
	if len(m.Spec.Endpoints) == 0 || len(m.Spec.Selector.MatchLabels) == 0 {
		return fmt.Errorf("ServiceMonitor %q needs a selector and an endpoint", m.Metadata.Name)
	}
	return m.Metadata.check("ServiceMonitor")
}

// checkPrometheusRule accepts the fields of a Prometheus Operator PrometheusRule the
// manifests set. The expressions are parsed by test/e2e with Prometheus's own parser.
func checkPrometheusRule(j []byte) error {
	var r struct {
		namespacedObject
		Spec struct {
			Groups []struct {
				Name  string `json:"name"`
				Rules []struct {
					Alert       string            `json:"alert"`
					Expr        string            `json:"expr"`
					For         string            `json:"for"`
					Labels      map[string]string `json:"labels"`
					Annotations map[string]string `json:"annotations"`
				} `json:"rules"`
			} `json:"groups"`
		} `json:"spec"`
	}
	if err := decodeStrict(j, &r); err != nil {
		return err
	}
	for _, g := range r.Spec.Groups {
		for _, rule := range g.Rules {
			if rule.Alert == "" || strings.TrimSpace(rule.Expr) == "" {
				return fmt.Errorf("PrometheusRule %q: every rule needs an alert name and an expression", r.Metadata.Name)
			}
		}
	}
	return r.Metadata.check("PrometheusRule")
}
