// Package manifests renders config/generated/*.yaml: what runs the generated server in a
// cluster behind the kube-apiserver (an APIService per group-version, a Service, a Deployment,
// a PodDisruptionBudget, RBAC, a Namespace, a ServiceAccount, the server's own 3-member etcd
// with its backup CronJob, and a kustomization listing them), config/generated/cert-manager/, a
// kustomize component that has cert-manager issue the serving and etcd certificates and inject
// the serving CA into the APIServices, and config/generated/external-etcd/, a component that
// swaps the bundled etcd for one the user runs. Names come from the model's
// Deploy (+apigen:deploy). Every file is rendered from templates/manifests and every document
// in it is decoded back strictly before it is accepted, so a template bug fails generation
// instead of kubectl apply.
package manifests

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"text/template"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/apigen-dev/apigen/generators/engine"
	"github.com/apigen-dev/apigen/generators/model"
	"github.com/apigen-dev/apigen/templates"
)

// Dir is where the manifests are written, relative to the project root.
const Dir = "config/generated"

// CertManagerDir is the cert-manager component, relative to Dir.
const CertManagerDir = "cert-manager"

// MonitoringDir is the Prometheus Operator and Grafana component, relative to Dir.
const MonitoringDir = "monitoring"

// ExternalEtcdDir is the component that replaces the bundled etcd with an external one,
// relative to Dir.
const ExternalEtcdDir = "external-etcd"

// ExternalDatastoreDir is the component that replaces the bundled etcd with a SQL database
// (the server's --datastore-endpoint), relative to Dir.
const ExternalDatastoreDir = "external-datastore"

// Defaults of the generated Deployment.
const (
	replicas             = 2
	securePort           = 8443
	certDir              = "/var/run/serving-cert"
	groupPriorityMinimum = 1000
	// topVersionPriority is the versionPriority of a group's preferred version; the others get
	// lower ones, in Kubernetes version priority (model.Group.ByPriority), as the server's
	// scheme and discovery order them.
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
	CertDir        string
	SecurePort     int
	Replicas       int
	// Labels is the common label set as YAML lines, for the indent function.
	Labels               string
	GroupPriorityMinimum int
	APIServices          []apiService

	// DNSNames are the names the serving certificate must hold: the Service's, as clients in
	// the cluster (the kube-apiserver among them) spell it.
	DNSNames []string
	// IssuerName and CertificateName are cert-manager's Issuer and Certificate.
	IssuerName, CertificateName string

	// The monitoring component: AlertPrefix starts every alert's name (the Service's name in
	// CamelCase), APIServiceRegexp matches the APIServices' names, DashboardUID is Grafana's.
	AlertPrefix, APIServiceRegexp, DashboardUID string

	// Etcd is the bundled etcd cluster.
	Etcd etcd

	// Files are the other files of the kustomization's directory, for kustomization.yaml.
	Files []string

	// AggregatedRoles are the ClusterRoles that the cluster's built-in admin, edit and view
	// roles aggregate, for the project's resources.
	AggregatedRoles []aggregatedRole
}

// The bundled etcd: its image is the one kubeadm v1.37 deploys (registry.k8s.io/etcd:3.7.0-0),
// etcd v3.7.0, which k8s.io/apiserver v0.37 requires and bin/etcd is built from.
const (
	etcdImage   = "registry.k8s.io/etcd:3.7.0-0"
	etcdMembers = 3
	etcdStorage = "8Gi"
	// etcdQuota is the members' --quota-backend-bytes: half of etcdStorage, the rest for the
	// write-ahead log and snapshots.
	etcdQuota    = 4 << 30
	etcdSchedule = "17 * * * *" // hourly, off the full hour when many CronJobs start
)

// etcd is what the templates need of the bundled etcd. The certs command of the generated
// server (templates/server/etcdcerts.go) issues certificates for the same names.
type etcd struct {
	Name          string // StatefulSet, headless Service, PodDisruptionBudget, NetworkPolicy
	ClientService string
	Backup        string // CronJob and PersistentVolumeClaim
	Image         string
	Replicas      int
	Servers       string // the members' client URLs, comma separated, for --etcd-servers
	// InitialCluster is etcd's --initial-cluster: every member's name and peer URL.
	InitialCluster                    string
	ClientPort, PeerPort, MetricsPort int
	Storage, BackupSchedule           string
	QuotaBackendBytes                 int64

	// Paths in the containers.
	DataMount, DataDir, ServerTLSDir, PeerTLSDir, ClientTLSDir, BackupDir, SnapshotFile string

	CASecret, ServerSecret, PeerSecret, ClientSecret string
	// Certificates are the cert-manager component's, signed by the CA in CASecret.
	Certificates []etcdCertificate
	// ExternalInput is the ConfigMap the external-etcd component reads its inputs from.
	ExternalInput string

	// Labels and BackupLabels are YAML lines, for the indent function. Every object of the
	// bundled etcd carries app.kubernetes.io/instance: <Name>, the external-etcd component's
	// selector.
	Labels, BackupLabels string
}

type etcdCertificate struct {
	Secret, CommonName string
	DNSNames, IPs      []string
	Usages             []string
}

func newEtcd(project, service, namespace string) etcd {
	e := etcd{
		Name:              service + "-etcd",
		ClientService:     service + "-etcd-client",
		Backup:            service + "-etcd-backup",
		Image:             etcdImage,
		Replicas:          etcdMembers,
		ClientPort:        2379,
		PeerPort:          2380,
		MetricsPort:       2381,
		Storage:           etcdStorage,
		QuotaBackendBytes: etcdQuota,
		BackupSchedule:    etcdSchedule,
		DataMount:         "/var/lib/etcd",
		DataDir:           "/var/lib/etcd/data", // below the mount: a new volume's root may hold lost+found
		ServerTLSDir:      "/etc/etcd/tls/server",
		PeerTLSDir:        "/etc/etcd/tls/peer",
		ClientTLSDir:      "/var/run/etcd-client",
		BackupDir:         "/var/backups/etcd",
		SnapshotFile:      "snapshot.db",
		ExternalInput:     "external-etcd",
	}
	e.CASecret, e.ServerSecret, e.PeerSecret, e.ClientSecret = e.Name+"-ca", e.Name+"-server", e.Name+"-peer", e.Name+"-client"
	var servers, initial []string
	for i := range e.Replicas {
		member := fmt.Sprintf("%s-%d", e.Name, i)
		host := member + "." + e.Name + "." + namespace + ".svc"
		servers = append(servers, fmt.Sprintf("https://%s:%d", host, e.ClientPort))
		initial = append(initial, fmt.Sprintf("%s=https://%s:%d", member, host, e.PeerPort))
	}
	e.Servers, e.InitialCluster = strings.Join(servers, ","), strings.Join(initial, ",")

	dns, ips := etcdServerNames(e.Name, e.ClientService, namespace, e.Replicas)
	both := []string{"server auth", "client auth"} // etcd dials itself (its gateway) and its peers with these
	e.Certificates = []etcdCertificate{
		{Secret: e.ServerSecret, CommonName: e.Name, DNSNames: dns, IPs: ips, Usages: both},
		{Secret: e.PeerSecret, CommonName: e.Name, DNSNames: dns, IPs: ips, Usages: both},
		{Secret: e.ClientSecret, CommonName: service, Usages: []string{"client auth"}},
	}
	labels := func(name string) string {
		return strings.Join([]string{
			"app.kubernetes.io/name: " + name,
			"app.kubernetes.io/instance: " + e.Name,
			"app.kubernetes.io/component: etcd",
			"app.kubernetes.io/part-of: " + strconv.Quote(project),
			"app.kubernetes.io/managed-by: apigen",
		}, "\n")
	}
	e.Labels, e.BackupLabels = labels(e.Name), labels(e.Backup)
	return e
}

// etcdServerNames are the names in the members' server and peer certificates: each member's
// name under the headless Service (and a wildcard for them, so that a larger StatefulSet needs
// no new certificate), the client Service's names, and localhost with the loopback addresses,
// as kubeadm's etcd certificates have them (for etcdctl in the pod and kubectl port-forward).
func etcdServerNames(name, clientService, namespace string, members int) (dns, ips []string) {
	for i := range members {
		dns = append(dns, fmt.Sprintf("%s-%d.%s.%s.svc", name, i, name, namespace))
	}
	dns = append(dns, "*."+name+"."+namespace+".svc", "*."+name+"."+namespace+".svc.cluster.local")
	dns = append(dns, serviceDNSNames(clientService, namespace)...)
	dns = append(dns, "localhost")
	return dns, []string{"127.0.0.1", "::1"}
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
	// Each directory has its own kustomization.yaml, listing the files beside it.
	dirs := []string{".", CertManagerDir, MonitoringDir, ExternalEtcdDir}
	if ctx.Project.SQL {
		dirs = append(dirs, ExternalDatastoreDir) // a server without SQL storage has no use for it
	}
	for _, dir := range dirs {
		names, err := fs.Glob(templates.Manifests, path.Join("manifests", dir, "*.yaml.tmpl"))
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
		dd := *d
		dd.Files = slices.DeleteFunc(slices.Clone(files), func(f string) bool { return f == "kustomization.yaml" })
		for _, file := range files {
			b, err := render(path.Join(dir, file), &dd)
			if err != nil {
				return err
			}
			if err := out.Add(path.Join(Dir, dir, file), b); err != nil {
				return err
			}
		}
	}
	return nil
}

func newData(p *model.Project) (*data, error) {
	dep := p.Deploy
	d := &data{
		Project:              model.DNSLabel(p.Name),
		Namespace:            dep.Namespace,
		ServiceName:          dep.Name,
		ServiceAccount:       dep.Name,
		SecretName:           dep.ServingCertSecret(),
		DNSNames:             serviceDNSNames(dep.Name, dep.Namespace),
		IssuerName:           dep.Name + "-selfsigned",
		CertificateName:      dep.ServingCertSecret(),
		Image:                dep.Image,
		Etcd:                 newEtcd(model.DNSLabel(p.Name), dep.Name, dep.Namespace),
		CertDir:              certDir,
		SecurePort:           securePort,
		Replicas:             replicas,
		GroupPriorityMinimum: groupPriorityMinimum,
	}
	// model.Validate reports these with positions; this guards a model that skipped it.
	var problems []string
	problems = append(problems, prefixed("namespace "+d.Namespace, validation.IsDNS1123Label(d.Namespace))...)
	problems = append(problems, prefixed("service "+d.ServiceName, validation.IsDNS1035Label(d.ServiceName))...)
	if len(d.ServiceName) > model.MaxDeployName {
		problems = append(problems, fmt.Sprintf("service %s: longer than %d characters", d.ServiceName, model.MaxDeployName))
	}
	if d.Image == "" {
		problems = append(problems, "image is empty")
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("invalid deployment names: %s", strings.Join(problems, "; "))
	}
	d.Labels = strings.Join([]string{
		"app.kubernetes.io/name: " + d.ServiceName,
		"app.kubernetes.io/part-of: " + strconv.Quote(d.Project),
		"app.kubernetes.io/managed-by: apigen",
	}, "\n")

	for _, word := range strings.Split(d.ServiceName, "-") {
		d.AlertPrefix += strings.ToUpper(word[:1]) + word[1:]
	}
	d.DashboardUID = d.Namespace + "-" + d.ServiceName
	if len(d.DashboardUID) > 40 { // Grafana's limit
		d.DashboardUID = d.DashboardUID[:40]
	}

	groups := slices.Clone(p.Groups)
	slices.SortFunc(groups, func(a, b *model.Group) int { return strings.Compare(a.Name, b.Name) })
	for _, g := range groups {
		// Only versions that serve a resource: kube-apiserver reports an APIService of any
		// other unavailable for good, and while one is, every namespace deletion in the
		// cluster fails discovery (NamespaceDeletionDiscoveryFailure) and so does garbage
		// collection.
		versions := g.Served()
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
	d.AggregatedRoles = aggregatedRoles(groups)
	var names []string
	for _, a := range d.APIServices {
		names = append(names, strings.ReplaceAll(a.Name, ".", `\\.`))
	}
	d.APIServiceRegexp = strings.Join(names, "|")
	return d, nil
}

// serviceDNSNames are the names of a Service that a serving certificate must hold: short,
// namespaced, the .svc name the kube-apiserver dials for an APIService, and the fully
// qualified one.
func serviceDNSNames(service, namespace string) []string {
	return []string{
		service,
		service + "." + namespace,
		service + "." + namespace + ".svc",
		service + "." + namespace + ".svc.cluster.local",
	}
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
	"q":    strconv.Quote,
	"join": strings.Join,
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
