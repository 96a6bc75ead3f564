package server

import (
	"errors"
	"fmt"
	"net"
	"slices"
	"time"

	"github.com/spf13/pflag"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apiserver/pkg/registry/generic"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/server/healthz"
	genericoptions "k8s.io/apiserver/pkg/server/options"
	"k8s.io/apiserver/pkg/util/compatibility"
	cliflag "k8s.io/component-base/cli/flag"
	"k8s.io/component-base/cli/globalflag"
	"k8s.io/component-base/version/verflag"
	openapicommon "k8s.io/kube-openapi/pkg/common"
)

// APIs describes what a project serves. The project's pkg/apiserver builds it;
// this package knows nothing else about the project.
type APIs struct {
	// Name is the project's short name: the etcd prefix is /registry/<Name>,
	// and it titles the OpenAPI documents and names the local kubeconfig entries.
	Name string
	// Scheme has every served group registered (versioned and internal) and
	// the unversioned meta types.
	Scheme *runtime.Scheme
	Codecs serializer.CodecFactory
	// StorageVersions is the version each served kind is stored in.
	StorageVersions StorageVersions
	// OpenAPIDefinitions is the generated openapi package's GetOpenAPIDefinitions.
	OpenAPIDefinitions openapicommon.GetOpenAPIDefinitions
	// Schemas are the schemas of each served kind in each version whose
	// constraints the OpenAPI documents show: the ones it is validated against,
	// or where they differ their published form (a +k8s:required field is
	// required there, as kube-apiserver publishes it).
	Schemas Schemas
	// TypePackages are the project's packages, besides the kinds' own, that
	// declare types the kinds use (a pkg/apis/shared), as the names of their
	// types' OpenAPI definitions begin (the model package a package declares,
	// else its import path): those definitions carry the kinds' constraints too.
	TypePackages []string
	// ValidationOptions are the validation options the kinds' +k8s:ifEnabled and
	// +k8s:ifDisabled rules depend on. Each is set from the server's feature gate of
	// that name, as kube-apiserver sets it: one the Kubernetes libraries do not have is
	// added, alpha and off by default, so --feature-gates=<option>=true enables it.
	ValidationOptions []string
	// Deprecations are the warnings of deprecated resource versions.
	Deprecations Deprecations
	// Install installs an APIGroupInfo for every group, with storage from optsGetter.
	Install func(s *genericapiserver.GenericAPIServer, optsGetter generic.RESTOptionsGetter) error
	// Admission are the project's own admission plugins; cmd/apiserver/main.go sets them.
	Admission []AdmissionPlugin
	// Deployment names the server's objects in a cluster, as the project's
	// config/generated deploys it; the certs command defaults to these names.
	// It may be left zero (a server built by hand for a test): certs then
	// needs its flags.
	Deployment Deployment
}

// Deployment names the objects that run the server in a cluster
// (+apigen:deploy in the project's pkg/apis/doc.go).
type Deployment struct {
	// Namespace is where the server runs.
	Namespace string
	// Service is the Service in front of the server. kube-apiserver dials
	// <Service>.<Namespace>.svc for the APIServices, so the serving
	// certificate must hold that name.
	Service string
	// ServingCertSecret is the kubernetes.io/tls Secret the Deployment mounts.
	ServingCertSecret string
}

// validate reports names Kubernetes would refuse, unless d is zero.
func (d Deployment) validate() []error {
	if d == (Deployment{}) {
		return nil
	}
	var errs []error
	for _, c := range []struct {
		field, value string
		check        func(string) []string
	}{
		{"Namespace", d.Namespace, validation.IsDNS1123Label},
		{"Service", d.Service, validation.IsDNS1035Label},
		{"ServingCertSecret", d.ServingCertSecret, validation.IsDNS1123Subdomain},
	} {
		for _, msg := range c.check(c.value) {
			errs = append(errs, fmt.Errorf("server.APIs: Deployment.%s %q: %s", c.field, c.value, msg))
		}
	}
	return errs
}

func (a APIs) validate() []error {
	var errs []error
	if a.Name == "" {
		errs = append(errs, errors.New("server.APIs: Name is empty"))
	}
	if a.Scheme == nil {
		errs = append(errs, errors.New("server.APIs: Scheme is nil"))
	}
	if a.OpenAPIDefinitions == nil {
		errs = append(errs, errors.New("server.APIs: OpenAPIDefinitions is nil"))
	}
	if a.Install == nil {
		errs = append(errs, errors.New("server.APIs: Install is nil"))
	}
	errs = append(errs, validateAdmission(a.Admission)...)
	return append(errs, a.Deployment.validate()...)
}

// clusterFlags are the flags that only make sense next to a real cluster.
// Setting any of them selects cluster mode; without them the server runs in
// local mode.
// --cluster says so where storage is not etcd (--datastore-endpoint) and the
// kubeconfigs are the in-cluster defaults: a Deployment on a SQL database.
var clusterFlags = []string{"etcd-servers", "kubeconfig", "authentication-kubeconfig", "authorization-kubeconfig", "cluster"}

// selectsCluster reports whether the flag name, one of clusterFlags, was set
// so that it selects cluster mode (--cluster=false does not).
func selectsCluster(fs *pflag.FlagSet) func(name string) bool {
	return func(name string) bool {
		return fs.Changed(name) && (name != "cluster" || fs.Lookup(name).Value.String() == "true")
	}
}

// Local mode's defaults: a developer's machine, no root, nothing exposed.
const (
	defaultDataDir    = ".apigen/data"
	defaultKubeconfig = ".apigen/kubeconfig"
	localSecurePort   = 8443
)

type options struct {
	apis        APIs
	recommended *genericoptions.RecommendedOptions
	admission   *admissionPlugins
	datastore   *datastoreOptions

	// cluster is --cluster: cluster mode without etcd or kubeconfig flags.
	cluster bool
	// trustFrontProxy is --authorization-trust-front-proxy (proxyauthz.go).
	trustFrontProxy bool
	// watchTermination is --shutdown-watch-termination-grace-period.
	watchTermination time.Duration
	// storageReadyz are the storage's readyz checks (cluster mode on SQL
	// storage: kine.readyzChecks), set once it runs.
	storageReadyz []healthz.HealthChecker

	// Local mode only.
	dataDir        string
	kubeconfigPath string

	// localMode is decided by complete, once the flags are parsed.
	localMode bool
}

func newOptions(apis APIs) *options {
	o := &options{
		apis: apis,
		// The codec follows --storage-media-type: newServer sets it.
		recommended:     genericoptions.NewRecommendedOptions("/registry/"+apis.Name, nil),
		dataDir:         defaultDataDir,
		kubeconfigPath:  defaultKubeconfig,
		admission:       &admissionPlugins{plugins: apis.Admission},
		datastore:       newDatastoreOptions(apis.Name),
		trustFrontProxy: true,
		// Long enough for every watch to end (they are told to at once), short enough
		// that a stop is never held for the 60 s request timeout by an open watch.
		watchTermination: 5 * time.Second,
	}
	o.admission.register(o.recommended)
	registerQuota(o.recommended) // after the project's plugins: quota comes last
	// Lets discovery report each resource's storage version hash, from the
	// version the codec encodes its kind in.
	o.recommended.Etcd.StorageConfig.EncodeVersioner = apis.StorageVersions
	return o
}

// flags binds every flag to o, in sections for --help.
func (o *options) flags(cmdName string) cliflag.NamedFlagSets {
	var fss cliflag.NamedFlagSets

	fs := fss.FlagSet("local mode")
	fs.BoolVar(&o.cluster, "cluster", o.cluster, clusterFlagHelp)
	fs.StringVar(&o.dataDir, "data-dir", o.dataDir,
		"Local mode: directory for the embedded etcd's data and log (etcd.log) and the local CA. "+
			"A restart on the same directory keeps every object and the same credentials. "+
			"Only one server can use it at a time.")
	fs.StringVar(&o.kubeconfigPath, "write-kubeconfig", o.kubeconfigPath,
		"Local mode: write an admin kubeconfig for this server to this file (mode 0600).")

	o.datastore.addFlags(fss.FlagSet("SQL storage (kine)"))

	// RecommendedOptions.AddFlags, one section each.
	ro := o.recommended
	ro.Etcd.AddFlags(fss.FlagSet("etcd"))
	// Upstream reads this flag only on kube-apiserver's storage factory path
	// (storageCodec reads it here), and its help knows nothing of CBOR or of
	// protobuf's generated marshalers.
	fss.FlagSet("etcd").Lookup("storage-media-type").Usage = "The media type objects are stored in, " +
		storedInHelp + ": application/json, application/yaml, application/cbor (binary and smaller; " +
		"a CRD's objects are stored as JSON by default) or application/vnd.kubernetes.protobuf (only for " +
		"Go types with generated protobuf marshalers). Objects stored in any of them stay readable; " +
		"each is rewritten in this one when next written."
	ro.SecureServing.AddFlags(fss.FlagSet("secure serving"))
	ro.Authentication.AddFlags(fss.FlagSet("authentication"))
	ro.Authorization.AddFlags(fss.FlagSet("authorization"))
	fss.FlagSet("authorization").BoolVar(&o.trustFrontProxy, "authorization-trust-front-proxy", o.trustFrontProxy,
		"Cluster mode: a request kube-apiserver proxied (it carries the front proxy's client certificate, "+
			"see --requestheader-client-ca-file) was authorized by kube-apiserver before it was proxied, "+
			"so its own user, verb and object are not sent back in a SubjectAccessReview. "+
			"Every other check and every direct request still is. The front proxy's certificate "+
			"already chooses any user and group, system:masters included; false reviews proxied requests too.")
	ro.Audit.AddFlags(fss.FlagSet("audit"))
	ro.Features.AddFlags(fss.FlagSet("features"))
	ro.CoreAPI.AddFlags(fss.FlagSet("core API"))
	ro.Admission.AddFlags(fss.FlagSet("admission"))
	ro.EgressSelector.AddFlags(fss.FlagSet("egress selector"))
	ro.Traces.AddFlags(fss.FlagSet("traces"))

	// Upstream help describes cluster mode's defaults only.
	serving := fss.FlagSet("secure serving")
	serving.Lookup("secure-port").Usage += fmt.Sprintf(
		" Local mode defaults to %d instead, and 0 picks a free port.", localSecurePort)
	serving.Lookup("bind-address").Usage += " Local mode defaults to 127.0.0.1 instead."

	fss.FlagSet("shutdown").DurationVar(&o.watchTermination, "shutdown-watch-termination-grace-period", o.watchTermination,
		"On SIGINT or SIGTERM every open watch is ended at once (clients re-establish it, with another "+
			"replica in a cluster), and the server waits at most this long for them to end before it "+
			"stops serving. 0 leaves watches open until the HTTP server's 60 s shutdown timeout, as "+
			"kube-apiserver's default does.")

	compatibility.DefaultComponentGlobalsRegistry.AddFlags(fss.FlagSet("compatibility"))

	global := fss.FlagSet("global")
	verflag.AddFlags(global)
	globalflag.AddGlobalFlags(global, cmdName)
	return fss
}

// complete picks the mode from the flags that were set and applies local
// mode's defaults to the flags that were not.
func (o *options) complete(fs *pflag.FlagSet) {
	o.localMode = !slices.ContainsFunc(clusterFlags, selectsCluster(fs))
	if !o.localMode {
		return
	}
	ss := o.recommended.SecureServing
	if !fs.Changed("bind-address") {
		ss.BindAddress = net.IPv4(127, 0, 0, 1)
	}
	if !fs.Changed("secure-port") {
		ss.BindPort = localSecurePort
	}
}

func (o *options) validate(fs *pflag.FlagSet) error {
	errs := o.apis.validate()
	errs = append(errs, o.datastore.resolve(fs)...)
	if o.datastore.enabled() {
		// The client's side of kine's socket is the server's own: etcd's
		// server list and TLS flags have nothing to say there.
		for _, name := range []string{"etcd-servers", "etcd-cafile", "etcd-certfile", "etcd-keyfile"} {
			if fs.Changed(name) {
				errs = append(errs, fmt.Errorf("--%s applies to etcd, and %s chose a SQL database; give one of them (the database's TLS: --datastore-cafile, --datastore-certfile, --datastore-keyfile)", name, o.datastore.source))
			}
		}
	}

	ro := *o.recommended
	etcd := *ro.Etcd
	ro.Etcd = &etcd
	if o.localMode || o.datastore.enabled() {
		// The embedded etcd's (or kine's) address is known only once it runs;
		// check the other etcd flags now rather than after starting it.
		etcd.StorageConfig.Transport.ServerList = []string{"embedded"}
	}
	// Upstream knows neither CBOR nor which kinds protobuf can store;
	// storageCodec does.
	etcd.DefaultStorageMediaType = runtime.ContentTypeJSON
	if o.apis.Scheme != nil { // else o.apis.validate said so
		if _, err := storageCodec(o.apis, o.recommended.Etcd.DefaultStorageMediaType); err != nil {
			errs = append(errs, err)
		}
	}
	if !o.localMode {
		for _, name := range []string{"data-dir", "write-kubeconfig"} {
			if fs.Changed(name) {
				errs = append(errs, fmt.Errorf("--%s applies to local mode only, and cluster mode was selected by --%s",
					name, clusterFlags[slices.IndexFunc(clusterFlags, selectsCluster(fs))]))
			}
		}
	}
	errs = append(errs, ro.Validate()...)
	errs = append(errs, compatibility.DefaultComponentGlobalsRegistry.Validate()...)
	return utilerrors.NewAggregate(errs)
}
