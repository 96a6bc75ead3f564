package manifests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/apigen-dev/apigen/generators/engine"
	"github.com/apigen-dev/apigen/generators/model"
)

func toyProject() *model.Project {
	animal := &model.Kind{Plural: "animals", Scope: model.Namespaced}
	served := func() []*model.Resource { return []*model.Resource{{Kind: "Animal", Of: animal, Declared: animal}} }
	return &model.Project{
		Module: "example.com/toy",
		Name:   "toy",
		Deploy: model.DefaultDeploy("toy"),
		Groups: []*model.Group{
			// Out of order on purpose: groups and versions are sorted by the generator.
			{Name: "zoo.example.com", Package: "zoo", Versions: []*model.Version{
				{Name: "v1alpha1", Resources: served()},
			}},
			{Name: "farm.example.com", Package: "farm", Versions: []*model.Version{
				{Name: "v1alpha1", Resources: served()},
				{Name: "v1beta1", Resources: served()},
				{Name: "v1", Resources: served()},
				// Types only (shared types, or a webhook's bodies): registered, not served.
				{Name: "v2"},
			}},
			// A group of no resource, as k8s.io/api's admission.k8s.io.
			{Name: "hooks.example.com", Package: "hooks", Versions: []*model.Version{
				{Name: "v1"},
			}},
		},
	}
}

func generate(t *testing.T, p *model.Project) *engine.Output {
	t.Helper()
	out, err := engine.Run(&engine.Context{Project: p}, []engine.Generator{New()})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// docs decodes every document of a generated file with the strict client-go decoder (or the
// local APIService type) and returns them as typed objects.
func docs(t *testing.T, out *engine.Output, file string) []runtime.Object {
	t.Helper()
	b, ok := out.Get(path.Join(Dir, file))
	if !ok {
		t.Fatalf("%s is not generated", file)
	}
	if err := Check(b); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	var objs []runtime.Object
	for _, doc := range separator.Split(string(b), -1) {
		j, err := yaml.YAMLToJSONStrict([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		obj, _, err := strict.Decode(j, nil, nil)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		objs = append(objs, obj)
	}
	return objs
}

func TestFilesAndHeader(t *testing.T) {
	out := generate(t, toyProject())
	want := []string{"apiservice.yaml", "deployment.yaml", "etcd-backup.yaml", "etcd-networkpolicy.yaml", "etcd-pdb.yaml",
		"etcd-service.yaml", "etcd-statefulset.yaml", "kustomization.yaml", "namespace.yaml", "pdb.yaml", "rbac.yaml", "service.yaml", "serviceaccount.yaml"}
	wantCM := []string{"cert-manager/certificate.yaml", "cert-manager/etcd.yaml", "cert-manager/issuer.yaml", "cert-manager/kustomization.yaml",
		"external-etcd/kustomization.yaml", "monitoring/grafana-dashboard.yaml", "monitoring/kustomization.yaml", "monitoring/prometheus-rbac.yaml",
		"monitoring/prometheusrule.yaml", "monitoring/servicemonitor.yaml"}
	var got []string
	for _, p := range out.Paths() {
		got = append(got, strings.TrimPrefix(p, Dir+"/"))
		b, _ := out.Get(p)
		if !bytes.HasPrefix(b, []byte("# "+engine.GeneratedLine+"\n")) {
			t.Errorf("%s does not start with the generated header", p)
		}
		if !engine.IsGenerated(p, b) {
			t.Errorf("%s: engine.IsGenerated is false", p)
		}
		if err := Check(b); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	if w := slices.Sorted(slices.Values(append(slices.Clone(wantCM), want...))); !slices.Equal(got, w) {
		t.Errorf("files = %v, want %v", got, w)
	}

	k, _ := out.Get(path.Join(Dir, "kustomization.yaml"))
	var kust kustomization
	j, _ := yaml.YAMLToJSON(k)
	if err := decodeStrict(j, &kust); err != nil {
		t.Fatal(err)
	}
	if w := slices.DeleteFunc(slices.Clone(want), func(s string) bool { return s == "kustomization.yaml" }); !slices.Equal(kust.Resources, w) {
		t.Errorf("kustomization resources = %v, want %v", kust.Resources, w)
	}

	// The external-datastore component is there for a server with SQL storage (+apigen:sql) only.
	sql := toyProject()
	sql.SQL = true
	withSQL := generate(t, sql)
	if _, ok := withSQL.Get(path.Join(Dir, "external-datastore/kustomization.yaml")); !ok || len(withSQL.Paths()) != len(out.Paths())+1 {
		t.Errorf("with SQL storage: %v, want the files above and external-datastore/kustomization.yaml", withSQL.Paths())
	}
}

func TestDeterministic(t *testing.T) {
	a, b := generate(t, toyProject()), generate(t, toyProject())
	if !a.Equal(b) {
		t.Error("two runs over the same model differ")
	}
}

func TestAPIServices(t *testing.T) {
	out := generate(t, toyProject())
	b, _ := out.Get(path.Join(Dir, "apiservice.yaml"))
	type row struct {
		Name     string
		Priority int32
	}
	var got []row
	for _, doc := range separator.Split(string(b), -1) {
		j, err := yaml.YAMLToJSONStrict([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		var a APIService
		if err := decodeStrict(j, &a); err != nil {
			t.Fatal(err)
		}
		s := a.Spec
		if s.Service == nil || s.Service.Namespace != "toy-system" || s.Service.Name != "toy-apiserver" || s.Service.Port == nil || *s.Service.Port != 443 {
			t.Errorf("%s: service = %+v", a.Metadata.Name, s.Service)
		}
		if s.GroupPriorityMinimum != 1000 || s.InsecureSkipTLSVerify || len(s.CABundle) != 0 {
			t.Errorf("%s: spec = %+v", a.Metadata.Name, s)
		}
		got = append(got, row{a.Metadata.Name, s.VersionPriority})
	}
	// No APIService for a version that serves nothing (farm's v2, hooks' v1): kube-apiserver
	// would report it unavailable for good, and every namespace deletion would fail discovery.
	want := []row{
		{"v1.farm.example.com", 100}, // Kubernetes version priority, whatever the storage version
		{"v1beta1.farm.example.com", 90},
		{"v1alpha1.farm.example.com", 80},
		{"v1alpha1.zoo.example.com", 100},
	}
	if !slices.Equal(got, want) {
		t.Errorf("APIServices = %v, want %v", got, want)
	}
}

func TestRBACSubjects(t *testing.T) {
	out := generate(t, toyProject())
	sa := docs(t, out, "serviceaccount.yaml")[0].(*corev1.ServiceAccount)
	if sa.Name != "toy-apiserver" || sa.Namespace != "toy-system" {
		t.Errorf("service account %s/%s", sa.Namespace, sa.Name)
	}
	var bindings, readerInKubeSystem int
	for _, obj := range docs(t, out, "rbac.yaml") {
		var subjects []rbacv1.Subject
		switch o := obj.(type) {
		case *rbacv1.ClusterRoleBinding:
			subjects = o.Subjects
		case *rbacv1.RoleBinding:
			subjects = o.Subjects
			if o.Namespace == "kube-system" && o.RoleRef.Kind == "Role" && o.RoleRef.Name == "extension-apiserver-authentication-reader" {
				readerInKubeSystem++
			}
		case *rbacv1.ClusterRole:
			continue
		default:
			t.Fatalf("unexpected %T in rbac.yaml", obj)
		}
		bindings++
		if len(subjects) != 1 || subjects[0].Kind != "ServiceAccount" || subjects[0].Name != sa.Name || subjects[0].Namespace != sa.Namespace {
			t.Errorf("subjects = %+v, want only %s/%s", subjects, sa.Namespace, sa.Name)
		}
	}
	if bindings != 3 || readerInKubeSystem != 1 {
		t.Errorf("%d bindings, %d authentication-reader bindings in kube-system; want 3 and 1", bindings, readerInKubeSystem)
	}
}

func TestDeployment(t *testing.T) {
	out := generate(t, toyProject())
	d := docs(t, out, "deployment.yaml")[0].(*appsv1.Deployment)
	if d.Namespace != "toy-system" || d.Name != "toy-apiserver" || d.Spec.Replicas == nil || *d.Spec.Replicas != 2 {
		t.Errorf("deployment %s/%s replicas %v", d.Namespace, d.Name, d.Spec.Replicas)
	}
	pod := d.Spec.Template.Spec
	if pod.ServiceAccountName != "toy-apiserver" {
		t.Errorf("serviceAccountName = %q", pod.ServiceAccountName)
	}
	if psc := pod.SecurityContext; psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("pod securityContext = %+v", psc)
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers", len(pod.Containers))
	}
	c := pod.Containers[0]
	for _, p := range []struct {
		probe *corev1.Probe
		path  string
	}{{c.ReadinessProbe, "/readyz"}, {c.LivenessProbe, "/livez"}} {
		if p.probe == nil || p.probe.HTTPGet == nil || p.probe.HTTPGet.Path != p.path || p.probe.HTTPGet.Scheme != corev1.URISchemeHTTPS || p.probe.HTTPGet.Port.String() != "https" {
			t.Errorf("probe on %s = %+v", p.path, p.probe)
		}
	}
	if len(c.Ports) != 1 || c.Ports[0].Name != "https" || c.Ports[0].ContainerPort != 8443 {
		t.Errorf("ports = %+v", c.Ports)
	}
	if !slices.Contains(c.Args, "--secure-port=8443") || !slices.ContainsFunc(c.Args, func(a string) bool { return strings.HasPrefix(a, "--etcd-servers=") }) {
		t.Errorf("args = %v", c.Args)
	}
	sc := c.SecurityContext
	if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem || sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) {
		t.Errorf("container securityContext = %+v", sc)
	}
	if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() {
		t.Errorf("resources = %+v", c.Resources)
	}
	if !slices.ContainsFunc(pod.Volumes, func(v corev1.Volume) bool {
		return v.Secret != nil && v.Secret.SecretName == "toy-apiserver-serving-cert"
	}) {
		t.Error("the serving certificate Secret is not mounted")
	}

	svc := docs(t, out, "service.yaml")[0].(*corev1.Service)
	if svc.Spec.Type != corev1.ServiceTypeClusterIP || len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].Port != 443 || svc.Spec.Ports[0].TargetPort.String() != "https" {
		t.Errorf("service spec = %+v", svc.Spec)
	}
	for k, v := range svc.Spec.Selector {
		if d.Spec.Template.Labels[k] != v {
			t.Errorf("service selector %s=%s does not select the pods", k, v)
		}
	}
}

func TestCheckRejects(t *testing.T) {
	for name, y := range map[string]string{
		"unknown field":                 "apiVersion: v1\nkind: Service\nmetadata:\n  name: x\nspec:\n  prots: []\n",
		"duplicate field":               "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: x\n  name: y\n",
		"unknown kind":                  "apiVersion: v1\nkind: Nope\nmetadata:\n  name: x\n",
		"empty document":                "# only a comment\n",
		"bad indentation":               "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: x\n labels: {}\n",
		"insecure service":              "apiVersion: apiregistration.k8s.io/v1\nkind: APIService\nmetadata:\n  name: v1.a.b\nspec:\n  group: a.b\n  version: v1\n  service: {namespace: n, name: s}\n  insecureSkipTLSVerify: true\n  groupPriorityMinimum: 1000\n  versionPriority: 1\n",
		"component without target kind": "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\npatches:\n- target: {group: a}\n  patch: '[]'\n",
		"component patch not YAML":      "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\npatches:\n- target: {kind: APIService}\n  patch: '{a: [}'\n",
		"certificate without secret":    "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata: {name: c, namespace: n}\nspec:\n  dnsNames: [a]\n  issuerRef: {kind: Issuer, name: i}\n",
		"certificate unknown field":     "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata: {name: c, namespace: n}\nspec:\n  secretName: s\n  dnsName: [a]\n  issuerRef: {kind: Issuer, name: i}\n",
		"issuer without namespace":      "apiVersion: cert-manager.io/v1\nkind: Issuer\nmetadata: {name: i}\nspec:\n  selfSigned: {}\n",
		"wrong name":                    "apiVersion: apiregistration.k8s.io/v1\nkind: APIService\nmetadata:\n  name: a.b\nspec:\n  group: a.b\n  version: v1\n  service: {namespace: n, name: s}\n  groupPriorityMinimum: 1000\n  versionPriority: 1\n",
	} {
		if err := Check([]byte(y)); err == nil {
			t.Errorf("%s: Check accepted it", name)
		}
	}
}

func TestNames(t *testing.T) {
	p := toyProject()
	p.Name, p.Deploy = "My_Project.v2", model.DefaultDeploy("My_Project.v2")
	out := generate(t, p)
	ns := docs(t, out, "namespace.yaml")[0].(*corev1.Namespace)
	if ns.Name != "my-project-v2-system" {
		t.Errorf("namespace = %q", ns.Name)
	}

	// +apigen:deploy names every object, the Secret and the image.
	p.Deploy = model.Deploy{Namespace: "apis", Name: "toy-server", Image: "registry.example.com/toy:v1"}
	out = generate(t, p)
	for _, file := range []string{"deployment.yaml", "service.yaml", "serviceaccount.yaml", "pdb.yaml"} {
		for _, obj := range docs(t, out, file) {
			m := obj.(metav1.Object)
			if m.GetName() != "toy-server" || m.GetNamespace() != "apis" {
				t.Errorf("%s: %T %s/%s, want apis/toy-server", file, obj, m.GetNamespace(), m.GetName())
			}
		}
	}
	d := docs(t, out, "deployment.yaml")[0].(*appsv1.Deployment)
	if img := d.Spec.Template.Spec.Containers[0].Image; img != "registry.example.com/toy:v1" {
		t.Errorf("image = %q", img)
	}
	if !slices.ContainsFunc(d.Spec.Template.Spec.Volumes, func(v corev1.Volume) bool {
		return v.Secret != nil && v.Secret.SecretName == "toy-server-serving-cert"
	}) {
		t.Error("the Deployment does not mount Secret toy-server-serving-cert")
	}
	for _, obj := range docs(t, out, "rbac.yaml") {
		want := []string{"toy-server", "toy-server:metrics-reader", "toy-server-admin", "toy-server-edit", "toy-server-view"}
		if cr, ok := obj.(*rbacv1.ClusterRole); ok && !slices.Contains(want, cr.Name) {
			t.Errorf("ClusterRole %q, want one of %v", cr.Name, want)
		}
	}

	p.Deploy.Name = "2fast"
	if _, err := engine.Run(&engine.Context{Project: p}, []engine.Generator{New()}); err == nil {
		t.Error("an invalid Service name was accepted")
	}
}

// TestCertManager checks that the cert-manager component issues the Secret the Deployment
// mounts, for the name the kube-apiserver dials, and injects its CA into every APIService.
// TestMonitoring checks the monitoring component: the ServiceMonitor selects the Service and
// its port and trusts the serving certificate's CA for the name kube-apiserver dials, Prometheus
// may read /metrics, and the dashboard is JSON. test/e2e checks the PromQL against a server.
func TestMonitoring(t *testing.T) {
	p := toyProject()
	p.Deploy = model.Deploy{Namespace: "apis", Name: "toy-server", Image: "toy:latest"}
	out := generate(t, p)
	svc := docs(t, out, "service.yaml")[0].(*corev1.Service)
	b, _ := out.Get(path.Join(Dir, MonitoringDir, "servicemonitor.yaml"))
	var sm struct {
		Spec struct {
			Selector  metav1.LabelSelector
			Endpoints []struct {
				Port      string
				TLSConfig struct {
					ServerName string
					CA         struct{ Secret corev1.SecretKeySelector }
				}
			}
		}
	}
	if err := yaml.Unmarshal(b, &sm); err != nil {
		t.Fatal(err)
	}
	sel, err := metav1.LabelSelectorAsSelector(&sm.Spec.Selector)
	if err != nil || !sel.Matches(labels.Set(svc.Labels)) {
		t.Errorf("the ServiceMonitor's selector %v does not select the Service's labels %v", sm.Spec.Selector, svc.Labels)
	}
	if ep := sm.Spec.Endpoints[0]; ep.Port != svc.Spec.Ports[0].Name || ep.TLSConfig.ServerName != "toy-server.apis.svc" ||
		ep.TLSConfig.CA.Secret.Name != "toy-server-serving-cert" || ep.TLSConfig.CA.Secret.Key != "ca.crt" {
		t.Errorf("ServiceMonitor endpoint %+v", ep)
	}
	binding := docs(t, out, path.Join(MonitoringDir, "prometheus-rbac.yaml"))[0].(*rbacv1.ClusterRoleBinding)
	var reader bool
	for _, obj := range docs(t, out, "rbac.yaml") {
		if cr, ok := obj.(*rbacv1.ClusterRole); ok && cr.Name == binding.RoleRef.Name {
			reader = slices.ContainsFunc(cr.Rules, func(r rbacv1.PolicyRule) bool {
				return slices.Contains(r.NonResourceURLs, "/metrics") && slices.Contains(r.Verbs, "get")
			})
		}
	}
	if !reader {
		t.Errorf("Prometheus is bound to %q, which does not grant get /metrics", binding.RoleRef.Name)
	}
	cm := docs(t, out, path.Join(MonitoringDir, "grafana-dashboard.yaml"))[0].(*corev1.ConfigMap)
	var dash struct {
		UID    string
		Panels []struct{ Targets []struct{ Expr string } }
	}
	if err := json.Unmarshal([]byte(cm.Data["toy-server.json"]), &dash); err != nil || dash.UID == "" || len(dash.Panels) == 0 || cm.Labels["grafana_dashboard"] != "1" {
		t.Errorf("dashboard ConfigMap: %v, %+v, labels %v", err, dash, cm.Labels)
	}
}

func TestCertManager(t *testing.T) {
	p := toyProject()
	p.Deploy = model.Deploy{Namespace: "apis", Name: "toy-server", Image: "toy:latest"}
	out := generate(t, p)

	read := func(file string, v any) {
		t.Helper()
		b, ok := out.Get(path.Join(Dir, CertManagerDir, file))
		if !ok {
			t.Fatalf("%s/%s is not generated", CertManagerDir, file)
		}
		if !engine.IsGenerated(file, b) {
			t.Errorf("%s lacks the generated header", file)
		}
		if err := Check(b); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		j, err := yaml.YAMLToJSONStrict(b)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(j, v); err != nil {
			t.Fatal(err)
		}
	}
	var issuer, cert struct {
		Metadata struct{ Name, Namespace string }
		Spec     struct {
			SecretName string
			DNSNames   []string
			IssuerRef  struct{ Kind, Name string }
			Usages     []string
		}
	}
	read("issuer.yaml", &issuer)
	read("certificate.yaml", &cert)
	var comp component
	read("kustomization.yaml", &comp)

	if issuer.Metadata.Namespace != "apis" || cert.Metadata.Namespace != "apis" {
		t.Errorf("namespaces: Issuer %q, Certificate %q; want apis", issuer.Metadata.Namespace, cert.Metadata.Namespace)
	}
	if cert.Spec.IssuerRef.Kind != "Issuer" || cert.Spec.IssuerRef.Name != issuer.Metadata.Name {
		t.Errorf("issuerRef = %+v, want the Issuer %s", cert.Spec.IssuerRef, issuer.Metadata.Name)
	}
	d := docs(t, out, "deployment.yaml")[0].(*appsv1.Deployment)
	if !slices.ContainsFunc(d.Spec.Template.Spec.Volumes, func(v corev1.Volume) bool {
		return v.Secret != nil && v.Secret.SecretName == cert.Spec.SecretName
	}) {
		t.Errorf("the Deployment does not mount the Certificate's Secret %q", cert.Spec.SecretName)
	}
	wantNames := []string{"toy-server", "toy-server.apis", "toy-server.apis.svc", "toy-server.apis.svc.cluster.local"}
	if !slices.Equal(cert.Spec.DNSNames, wantNames) {
		t.Errorf("dnsNames = %v, want %v", cert.Spec.DNSNames, wantNames)
	}
	if !slices.Contains(cert.Spec.Usages, "server auth") {
		t.Errorf("usages = %v, want server auth among them", cert.Spec.Usages)
	}

	if comp.Kind != "Component" || comp.APIVersion != "kustomize.config.k8s.io/v1alpha1" {
		t.Errorf("kustomization.yaml is a %s %s, want a kustomize Component", comp.APIVersion, comp.Kind)
	}
	if !slices.Equal(comp.Resources, []string{"certificate.yaml", "etcd.yaml", "issuer.yaml"}) {
		t.Errorf("component resources = %v", comp.Resources)
	}
	if len(comp.Patches) != 1 {
		t.Fatalf("%d patches, want 1", len(comp.Patches))
	}
	patch := comp.Patches[0]
	if patch.Target.Group != "apiregistration.k8s.io" || patch.Target.Kind != "APIService" || patch.Target.Name != "" {
		t.Errorf("patch target = %+v, want every APIService", patch.Target)
	}
	var annotated struct {
		Metadata struct{ Annotations map[string]string }
	}
	if err := yaml.Unmarshal([]byte(patch.Patch), &annotated); err != nil {
		t.Fatal(err)
	}
	if got, want := annotated.Metadata.Annotations["cert-manager.io/inject-ca-from"], "apis/"+cert.Metadata.Name; got != want {
		t.Errorf("inject-ca-from = %q, want %q", got, want)
	}

	// The component is not a resource of config/generated: config/default chooses it.
	k, _ := out.Get(path.Join(Dir, "kustomization.yaml"))
	if strings.Contains(string(k), CertManagerDir) {
		t.Errorf("config/generated/kustomization.yaml lists the cert-manager component:\n%s", k)
	}
}

func TestNoGroups(t *testing.T) {
	out := generate(t, &model.Project{Module: "example.com/toy", Name: "toy", Deploy: model.DefaultDeploy("toy")})
	if _, ok := out.Get(path.Join(Dir, "apiservice.yaml")); ok {
		t.Error("apiservice.yaml generated without any group")
	}
	k, _ := out.Get(path.Join(Dir, "kustomization.yaml"))
	j, _ := yaml.YAMLToJSON(k)
	var kust kustomization
	_ = json.Unmarshal(j, &kust)
	if slices.Contains(kust.Resources, "apiservice.yaml") {
		t.Error("kustomization lists apiservice.yaml")
	}
}

// TestEtcd checks that the bundled etcd's objects fit together: the StatefulSet's pods are
// selected by its Services, PodDisruptionBudget and NetworkPolicy; the Deployment lists every
// member's advertised client URL; the NetworkPolicy admits the server and the backup pods to
// the client port and only members to the peer port; every object carries the label the
// external-etcd component removes them by; and cert-manager issues the Secrets the pods mount.
func TestEtcd(t *testing.T) {
	p := toyProject()
	p.Deploy = model.Deploy{Namespace: "apis", Name: "toy", Image: "toy:v1"}
	out := generate(t, p)
	sts := docs(t, out, "etcd-statefulset.yaml")[0].(*appsv1.StatefulSet)
	pods := labels.Set(sts.Spec.Template.Labels)
	if sts.Name != "toy-etcd" || sts.Spec.ServiceName != "toy-etcd" || *sts.Spec.Replicas != 3 || sts.Spec.PodManagementPolicy != appsv1.ParallelPodManagement {
		t.Errorf("StatefulSet %s: serviceName %s, %d replicas, %s", sts.Name, sts.Spec.ServiceName, *sts.Spec.Replicas, sts.Spec.PodManagementPolicy)
	}
	c := sts.Spec.Template.Spec.Containers[0]
	if c.Image != "registry.k8s.io/etcd:3.7.0-0" {
		t.Errorf("etcd image %s", c.Image)
	}
	for _, probe := range []*corev1.Probe{c.StartupProbe, c.ReadinessProbe, c.LivenessProbe} {
		if probe == nil || probe.HTTPGet == nil || probe.HTTPGet.Port.StrVal != "metrics" {
			t.Errorf("probe %+v, want an HTTP GET on the metrics port", probe)
		}
	}
	if sc := c.SecurityContext; sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || sc.Capabilities == nil || len(sc.Capabilities.Drop) != 1 {
		t.Errorf("etcd securityContext %+v", sc)
	}
	if sel, _ := metav1.LabelSelectorAsSelector(sts.Spec.Selector); !sel.Matches(pods) {
		t.Error("the StatefulSet's selector does not select its pods")
	}
	// Spread over nodes and zones where the cluster has them, without refusing a small cluster.
	spec := sts.Spec.Template.Spec
	if a := spec.Affinity; a == nil || a.PodAntiAffinity == nil || len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) != 0 ||
		len(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution) != 1 ||
		a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution[0].PodAffinityTerm.TopologyKey != "kubernetes.io/hostname" {
		t.Errorf("etcd affinity %+v, want a preferred anti-affinity per node", spec.Affinity)
	}
	if tsc := spec.TopologySpreadConstraints; len(tsc) != 1 || tsc[0].TopologyKey != "topology.kubernetes.io/zone" || tsc[0].WhenUnsatisfiable != corev1.ScheduleAnyway {
		t.Errorf("etcd topology spread %+v, want zones, ScheduleAnyway", tsc)
	}
	if claim := sts.Spec.VolumeClaimTemplates; len(claim) != 1 || claim[0].Spec.Resources.Requests.Storage().String() != "8Gi" {
		t.Errorf("etcd claims %+v, want one of 8Gi", claim)
	}
	if r := c.Resources.Requests; r.Cpu().String() != "100m" || r.Memory().String() != "256Mi" {
		t.Errorf("etcd requests %v, want 100m and 256Mi", r)
	}
	var advertised []string
	for i := range 3 {
		advertised = append(advertised, fmt.Sprintf("https://toy-etcd-%d.toy-etcd.apis.svc:2379", i))
	}
	if !slices.Contains(c.Args, "--advertise-client-urls=https://$(POD_NAME).toy-etcd.apis.svc:2379") {
		t.Errorf("etcd args %v", c.Args)
	}
	d := docs(t, out, "deployment.yaml")[0].(*appsv1.Deployment)
	if env := d.Spec.Template.Spec.Containers[0].Env; len(env) != 1 || env[0].Value != strings.Join(advertised, ",") {
		t.Errorf("the Deployment's ETCD_SERVERS %+v, want every member: %v", env, advertised)
	}

	services := docs(t, out, "etcd-service.yaml")
	if len(services) != 2 {
		t.Fatalf("%d etcd Services, want the headless one and the client one", len(services))
	}
	for _, obj := range services {
		svc := obj.(*corev1.Service)
		if !labels.SelectorFromSet(svc.Spec.Selector).Matches(pods) {
			t.Errorf("Service %s does not select the etcd pods", svc.Name)
		}
	}
	if h := services[0].(*corev1.Service); h.Name != "toy-etcd" || h.Spec.ClusterIP != corev1.ClusterIPNone || !h.Spec.PublishNotReadyAddresses {
		t.Errorf("headless Service %s: clusterIP %q publishNotReadyAddresses %v", h.Name, h.Spec.ClusterIP, h.Spec.PublishNotReadyAddresses)
	}
	pdb := docs(t, out, "etcd-pdb.yaml")[0].(*policyv1.PodDisruptionBudget)
	if sel, _ := metav1.LabelSelectorAsSelector(pdb.Spec.Selector); !sel.Matches(pods) || pdb.Spec.MaxUnavailable.IntValue() != 1 {
		t.Errorf("PodDisruptionBudget %+v: want maxUnavailable 1 of the etcd pods, so that two of three keep a quorum", pdb.Spec)
	}

	backups := docs(t, out, "etcd-backup.yaml")
	cj := backups[1].(*batchv1.CronJob)
	backupPods := labels.Set(cj.Spec.JobTemplate.Spec.Template.Labels)
	np := docs(t, out, "etcd-networkpolicy.yaml")[0].(*networkingv1.NetworkPolicy)
	if sel, _ := metav1.LabelSelectorAsSelector(&np.Spec.PodSelector); !sel.Matches(pods) {
		t.Error("the NetworkPolicy does not select the etcd pods")
	}
	admitted := func(from labels.Set, port int32) bool {
		for _, rule := range np.Spec.Ingress {
			for _, peer := range rule.From {
				sel, _ := metav1.LabelSelectorAsSelector(peer.PodSelector)
				if peer.NamespaceSelector == nil && sel.Matches(from) && slices.ContainsFunc(rule.Ports, func(p networkingv1.NetworkPolicyPort) bool { return p.Port.IntVal == port }) {
					return true
				}
			}
		}
		return false
	}
	server := labels.Set(d.Spec.Template.Labels)
	for _, c := range []struct {
		who  string
		from labels.Set
		port int32
		want bool
	}{
		{"the server to the client port", server, 2379, true},
		{"the backup Job to the client port", backupPods, 2379, true},
		{"a member to the peer port", pods, 2380, true},
		{"the server to the peer port", server, 2380, false},
		{"another pod to the client port", labels.Set{"app": "other"}, 2379, false},
		{"a member to the metrics port", pods, 2381, false},
	} {
		if got := admitted(c.from, c.port); got != c.want {
			t.Errorf("NetworkPolicy admits %s: %v, want %v", c.who, got, c.want)
		}
	}

	// Every object of the bundled etcd carries the external-etcd component's selector.
	for _, file := range []string{"etcd-statefulset.yaml", "etcd-service.yaml", "etcd-pdb.yaml", "etcd-networkpolicy.yaml", "etcd-backup.yaml"} {
		for _, obj := range docs(t, out, file) {
			if m := obj.(metav1.Object); m.GetLabels()["app.kubernetes.io/instance"] != "toy-etcd" {
				t.Errorf("%s: %s lacks app.kubernetes.io/instance: toy-etcd", file, m.GetName())
			}
		}
	}

	// cert-manager issues every Secret the pods mount, from the etcd CA.
	mounted := map[string]bool{}
	for _, spec := range []corev1.PodSpec{sts.Spec.Template.Spec, d.Spec.Template.Spec, cj.Spec.JobTemplate.Spec.Template.Spec} {
		for _, v := range spec.Volumes {
			if v.Secret != nil && strings.HasPrefix(v.Secret.SecretName, "toy-etcd") {
				mounted[v.Secret.SecretName] = true
			}
		}
	}
	b, _ := out.Get(path.Join(Dir, CertManagerDir, "etcd.yaml"))
	issued := map[string]bool{}
	for _, doc := range separator.Split(string(b), -1) {
		var c struct {
			Kind string
			Spec struct {
				SecretName string
				IssuerRef  struct{ Name string }
			}
		}
		if err := yaml.Unmarshal([]byte(doc), &c); err != nil {
			t.Fatal(err)
		}
		if c.Kind == "Certificate" && c.Spec.IssuerRef.Name == "toy-etcd-ca" {
			issued[c.Spec.SecretName] = true
		}
	}
	if len(mounted) != 3 || !maps.Equal(mounted, issued) {
		t.Errorf("cert-manager issues %v from the etcd CA; the pods mount %v", issued, mounted)
	}
}

// TestRunningCost: what docs/crd-or-aggregated.md and docs/guides/deploying.md say the
// deployment requests of a cluster, and the server's memory limit, are what the manifests say.
func TestRunningCost(t *testing.T) {
	out := generate(t, toyProject())
	var cpu, memory, storage resource.Quantity
	add := func(replicas int32, spec corev1.PodSpec) {
		for range replicas {
			for _, c := range spec.Containers {
				cpu.Add(*c.Resources.Requests.Cpu())
				memory.Add(*c.Resources.Requests.Memory())
			}
		}
	}
	d := docs(t, out, "deployment.yaml")[0].(*appsv1.Deployment)
	add(*d.Spec.Replicas, d.Spec.Template.Spec)
	sts := docs(t, out, "etcd-statefulset.yaml")[0].(*appsv1.StatefulSet)
	add(*sts.Spec.Replicas, sts.Spec.Template.Spec)
	for range *sts.Spec.Replicas {
		storage.Add(sts.Spec.VolumeClaimTemplates[0].Spec.Resources.Requests[corev1.ResourceStorage])
	}
	storage.Add(docs(t, out, "etcd-backup.yaml")[0].(*corev1.PersistentVolumeClaim).Spec.Resources.Requests[corev1.ResourceStorage])
	limit := d.Spec.Template.Spec.Containers[0].Resources.Limits.Memory()
	said := regexp.MustCompile(`request(?:s|ing)? (\S+) CPU, (\S+) of memory and (\S+) of persistent volumes[^;]*; each server replica has a memory limit of ([0-9]+[A-Za-z]+)`)
	for _, page := range []string{"../../docs/crd-or-aggregated.md", "../../docs/guides/deploying.md"} {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		m := said.FindStringSubmatch(strings.Join(strings.Fields(string(text)), " "))
		if m == nil {
			t.Errorf("%s does not say what the manifests request (%q)", page, said)
			continue
		}
		if m[1] != cpu.String() || m[2] != memory.String() || m[3] != storage.String() || m[4] != limit.String() {
			t.Errorf("%s says %s CPU, %s of memory, %s of volumes and a %s memory limit; the manifests request %s, %s and %s, and limit %s",
				page, m[1], m[2], m[3], m[4], cpu.String(), memory.String(), storage.String(), limit.String())
		}
	}
}
