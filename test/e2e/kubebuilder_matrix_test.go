package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	apidiscovery "k8s.io/apiserver/pkg/endpoints/discovery"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/yaml"
)

// The compatibility matrix's kubebuilder sets: public kubebuilder APIs, taken from the Go
// module proxy at test time, copied unchanged (but for the import paths of their own packages,
// which name where the copies now live) into one project apigen init made, generated once,
// built once and served by one server. Each set's discovery and served OpenAPI schema are
// compared with the CustomResourceDefinitions the module ships, its own samples are created
// and read back, and its own invalid samples must be refused.

// matrixRepo is the matrix project's module path.
const matrixRepo = "example.com/matrix"

// matrixSet is one row of the compatibility matrix (docs/reference/compatibility.md).
type matrixSet struct {
	name   string // as the matrix's table names it
	module string // path@version, from the Go module proxy
	// copies are the module's packages copied, each from a directory of the module to one of
	// the project; imports of a copied package are rewritten to its copy.
	copies []matrixCopy
	// requires are the modules the copied packages import, at the version the set's own
	// go.mod requires (controller-runtime at the project's Kubernetes line).
	requires []string
	// shipped is the module (path@version) whose files crds, samples and invalid name, when
	// the API module ships none of them: the project's main module.
	shipped string
	// samplesFrom is the module (path@version) whose files samples and invalid name, when
	// neither the API module nor shipped holds them.
	samplesFrom string
	crds        []string // globs of the CRD YAML the module ships, relative to it
	samples     []string // globs of the module's own sample objects
	invalid     []string // globs of the module's samples its CRDs refuse
	// objects are YAML objects of the test's own, created and read back as the samples are,
	// for a set whose module ships no samples.
	objects string
	// refuse are YAML objects of the test's own that break a validation marker of the set's
	// types (the set's CRDs refuse them): the server must refuse each create as invalid, and
	// with sideBySide, kube-apiserver with the set's CRDs installed must too, naming the same
	// fields. They count with the invalid samples (%[2]d of readme).
	refuse string
	// project names a project of the row's own; rows with none share one.
	project string
	// sideBySide installs the set's CRDs in a real kube-apiserver and sends each sample to it
	// and to the server: read in every version the CRD serves, the two must agree.
	sideBySide bool
	// served are the group-versions the set's packages are served as, each with the number
	// of resources its discovery lists (subresources left out).
	served map[string]int
	// warnings are lines apigen generate must print for the row's packages (each a prefix of
	// a line of its output: position and message).
	warnings []string
	// readme is what the matrix's row says of the samples: a format whose arguments are the
	// number created and read back (%[1]d, objects included), the number of invalid ones
	// refused (%[2]d) and the number of those created that read back equal in another version
	// the set serves their kind in as well (%[3]d).
	readme string
	// check, when set, is a check of the row's own, run once the row is served.
	check func(t *testing.T, dyn dynamic.Interface)
}

// neverReads is the warning apigen generate gives at a hand-written conversion function fn
// (at position at) that calls its autoConvert_ function but never reads fields, which
// conversion-gen noted there as requiring manual conversion for reason: objects lose them
// whenever they cross fn.
func neverReads(at, fn, fields, reason string) string {
	return at + ": warning: " + fn + " calls auto" + fn + " but never reads " + fields + ", which conversion-gen cannot convert (" + reason + "): objects lose"
}

// capiConversion is Cluster API's v1beta1 conversion.go, as the matrix copies it.
const capiConversion = "pkg/apis/cluster/v1beta1/conversion.go"

// matrixCopy copies the Go files (tests left out) of a module directory to a project directory.
type matrixCopy struct{ from, to string }

// controllerRuntime is the controller-runtime release of the project's Kubernetes line.
const controllerRuntime = "sigs.k8s.io/controller-runtime@v0.25.2"

// testName is the name of the row's subtest: its name with the slashes (which would split it
// into levels of -run's pattern) as underscores.
func (s matrixSet) testName() string { return strings.ReplaceAll(s.name, "/", "_") }

var allMatrixSets = []matrixSet{
	{
		name:   "sigs.k8s.io/gateway-api",
		module: "sigs.k8s.io/gateway-api@v1.6.3",
		served: map[string]int{
			"gateway.networking.k8s.io/v1":       10,
			"gateway.networking.k8s.io/v1beta1":  4,
			"gateway.networking.k8s.io/v1alpha2": 3, // GRPCRoute and ReferenceGrant: +kubebuilder:skipversion
			"gateway.networking.k8s.io/v1alpha3": 2, // BackendTLSPolicy and TLSRoute, defined types of v1's
		},
		copies: []matrixCopy{
			{"apis/v1", "pkg/apis/gateway/v1"},
			// Kinds declared as defined types of v1's (type Gateway v1.Gateway), every other
			// type an alias; v1alpha2 also has TCPRoute, TLSRoute and UDPRoute as structs of its own.
			{"apis/v1beta1", "pkg/apis/gateway/v1beta1"},
			{"apis/v1alpha2", "pkg/apis/gateway/v1alpha2"},
			{"apis/v1alpha3", "pkg/apis/gateway/v1alpha3"},
		},
		crds:    []string{"config/crd/experimental/gateway.networking.k8s.io_*.yaml"},
		samples: []string{"examples/standard/*.yaml", "examples/standard/*/*.yaml", "examples/experimental/v1alpha2/*/*.yaml", "examples/experimental/v1alpha3/*/*.yaml"},
		invalid: []string{"hack/invalid-examples/standard/*/*.yaml"},
		readme: "%[1]d objects of `examples/standard` and `examples/experimental/v1alpha2` and `v1alpha3` created and read back, %[3]d of them read back equal in v1beta1, v1alpha2 or v1alpha3 (or v1) too; " +
			"all %[2]d of `hack/invalid-examples/standard` refused",
	},
	{
		name:     "sigs.k8s.io/jobset",
		module:   "sigs.k8s.io/jobset@v0.10.1",
		served:   map[string]int{"jobset.x-k8s.io/v1alpha2": 1},
		copies:   []matrixCopy{{"api/jobset/v1alpha2", "pkg/apis/jobset/v1alpha2"}},
		requires: []string{controllerRuntime},
		crds:     []string{"config/components/crd/bases/*.yaml"},
		samples:  []string{"config/samples/*.yaml"},
		readme:   "%[1]d JobSet of its `config/samples` created and read back",
	},
	{
		name:   "sigs.k8s.io/lws",
		module: "sigs.k8s.io/lws@v0.7.0",
		served: map[string]int{"leaderworkerset.x-k8s.io/v1": 1},
		copies: []matrixCopy{
			{"api/leaderworkerset/v1", "pkg/apis/leaderworkerset/v1"},
			{"api/leaderworkerset/scheme", "internal/lws/scheme"}, // its own copy of controller-runtime's scheme.Builder
		},
		crds:    []string{"config/crd/bases/*.yaml"},
		samples: []string{"config/samples/*.yaml"},
		readme:  "its %[1]d LeaderWorkerSet samples created and read back",
	},
	{
		name:   "sigs.k8s.io/kueue",
		module: "sigs.k8s.io/kueue@v0.17.0",
		served: map[string]int{"kueue.x-k8s.io/v1beta2": 11, "kueue.x-k8s.io/v1beta1": 11},
		copies: []matrixCopy{
			{"apis/kueue/v1beta2", "pkg/apis/kueue/v1beta2"}, // the hub (storage version)
			{"apis/kueue/v1beta1", "pkg/apis/kueue/v1beta1"}, // ConvertTo/ConvertFrom over conversion-gen's functions
			{"pkg/util/tas", "internal/kueue/util/tas"},      // what v1beta1's conversions call
			{"pkg/resources", "internal/kueue/resources"},
		},
		requires: []string{controllerRuntime, "k8s.io/component-helpers@v0.37.2", "github.com/google/go-cmp@v0.7.0"},
		crds:     []string{"config/components/crd/bases/*.yaml"},
		check:    kueueTakesAnyDomainCount,
		// Fields one version has and the other lacks, which Kueue's conversions drop on
		// purpose (workload_conversion.go says so of PodsetSliceRequiredTopologyConstraints).
		warnings: []string{
			neverReads("pkg/apis/kueue/v1beta1/admissioncheck_conversion.go:28:6", "Convert_v1beta1_AdmissionCheckSpec_To_v1beta2_AdmissionCheckSpec", "AdmissionCheckSpec.RetryDelayMinutes", "does not exist in peer-type"),
			neverReads("pkg/apis/kueue/v1beta1/clusterqueue_conversion.go:82:6", "Convert_v1beta1_ClusterQueueStatus_To_v1beta2_ClusterQueueStatus", "ClusterQueueStatus.PendingWorkloadsStatus", "does not exist in peer-type"),
			neverReads("pkg/apis/kueue/v1beta1/fairsharing_conversion.go:28:6", "Convert_v1beta1_FairSharingStatus_To_v1beta2_FairSharingStatus", "FairSharingStatus.AdmissionFairSharingStatus", "does not exist in peer-type"),
			neverReads("pkg/apis/kueue/v1beta1/localqueue_conversion.go:51:6", "Convert_v1beta1_LocalQueueStatus_To_v1beta2_LocalQueueStatus", "LocalQueueStatus.Flavors", "does not exist in peer-type"),
			neverReads("pkg/apis/kueue/v1beta1/workload_conversion.go:40:6", "Convert_v1beta2_WorkloadStatus_To_v1beta1_WorkloadStatus", "v1beta2.WorkloadStatus.PreemptionGates", "does not exist in peer-type"),
			neverReads("pkg/apis/kueue/v1beta1/workload_conversion.go:60:6", "Convert_v1beta2_WorkloadSpec_To_v1beta1_WorkloadSpec", "v1beta2.WorkloadSpec.PreemptionGates", "does not exist in peer-type"),
			neverReads("pkg/apis/kueue/v1beta1/workload_conversion.go:74:6", "Convert_v1beta2_PodSetTopologyRequest_To_v1beta1_PodSetTopologyRequest", "v1beta2.PodSetTopologyRequest.PodsetSliceRequiredTopologyConstraints", "does not exist in peer-type"),
		},
	},
	{
		// As shipped: Hub() on v1beta2, +kubebuilder:storageversion on v1beta1. Its own project,
		// since the row above serves the group too.
		name:    "sigs.k8s.io/kueue@v0.15.1",
		module:  "sigs.k8s.io/kueue@v0.15.1",
		project: "kueue-v0.15.1",
		served:  map[string]int{"kueue.x-k8s.io/v1beta2": 11, "kueue.x-k8s.io/v1beta1": 11},
		copies: []matrixCopy{
			{"apis/kueue/v1beta2", "pkg/apis/kueue/v1beta2"}, // the hub
			{"apis/kueue/v1beta1", "pkg/apis/kueue/v1beta1"}, // the storage version: ConvertTo/ConvertFrom
			{"pkg/util/tas", "internal/kueue/util/tas"},
			{"pkg/resources", "internal/kueue/resources"},
		},
		requires: []string{controllerRuntime, "k8s.io/component-helpers@v0.37.2", "github.com/google/go-cmp@v0.7.0"},
		crds:     []string{"config/components/crd/bases/*.yaml"},
		samples:  []string{"cmd/kueueviz/examples/*.yaml"},
		readme:   "%[1]d objects of its `cmd/kueueviz/examples` created in v1beta1 and read back, %[3]d of them read in v1beta2 too",
		// v1beta1 fields v1beta2 lacks, which Kueue's conversions drop on purpose.
		warnings: []string{
			neverReads("pkg/apis/kueue/v1beta1/admissioncheck_conversion.go:28:6", "Convert_v1beta1_AdmissionCheckSpec_To_v1beta2_AdmissionCheckSpec", "AdmissionCheckSpec.RetryDelayMinutes", "does not exist in peer-type"),
			neverReads("pkg/apis/kueue/v1beta1/clusterqueue_conversion.go:82:6", "Convert_v1beta1_ClusterQueueStatus_To_v1beta2_ClusterQueueStatus", "ClusterQueueStatus.PendingWorkloadsStatus", "does not exist in peer-type"),
			neverReads("pkg/apis/kueue/v1beta1/fairsharing_conversion.go:28:6", "Convert_v1beta1_FairSharingStatus_To_v1beta2_FairSharingStatus", "FairSharingStatus.AdmissionFairSharingStatus", "does not exist in peer-type"),
			neverReads("pkg/apis/kueue/v1beta1/localqueue_conversion.go:51:6", "Convert_v1beta1_LocalQueueStatus_To_v1beta2_LocalQueueStatus", "LocalQueueStatus.Flavors", "does not exist in peer-type"),
		},
	},
	{
		name:   "sigs.k8s.io/cluster-api/api",
		module: "sigs.k8s.io/cluster-api/api@v1.14.2",
		served: map[string]int{"cluster.x-k8s.io/v1beta2": 8, "cluster.x-k8s.io/v1beta1": 8},
		copies: []matrixCopy{
			{"core/v1beta2", "pkg/apis/cluster/v1beta2"}, // the hub
			{"core/v1beta1", "pkg/apis/cluster/v1beta1"}, // conversion-gen's conversions and ConvertTo/ConvertFrom
			{"deprecated/errors", "internal/capi/deprecated/errors"},
		},
		requires: []string{controllerRuntime},
		// The fields its Convert_ functions leave to the conversion webhook of its main module
		// (matrixRoundTripFindings), which the server cannot call.
		warnings: []string{
			neverReads(capiConversion+":788:6", "Convert_v1beta1_Topology_To_v1beta2_Topology", "Topology.RolloutAfter", "does not exist in peer-type"),
			neverReads(capiConversion+":802:6", "Convert_v1beta1_ClusterStatus_To_v1beta2_ClusterStatus", "ClusterStatus.ControlPlaneReady and ClusterStatus.InfrastructureReady", "does not exist in peer-type"),
			neverReads(capiConversion+":1182:6", "Convert_v1beta2_MachineStatus_To_v1beta1_MachineStatus", "v1beta2.MachineStatus.FailureDomain", "does not exist in peer-type"),
			neverReads(capiConversion+":1233:6", "Convert_v1beta1_MachineStatus_To_v1beta2_MachineStatus", "MachineStatus.BootstrapReady and MachineStatus.InfrastructureReady", "does not exist in peer-type"),
			neverReads(capiConversion+":1302:6", "Convert_v1beta1_ClusterVariable_To_v1beta2_ClusterVariable", "ClusterVariable.DefinitionFrom", "does not exist in peer-type"),
			neverReads(capiConversion+":1308:6", "Convert_v1beta2_MachineSpec_To_v1beta1_MachineSpec", "v1beta2.MachineSpec.MinReadySeconds", "does not exist in peer-type"),
			neverReads(capiConversion+":1360:6", "Convert_v1beta1_MachinePoolStatus_To_v1beta2_MachinePoolStatus", "MachinePoolStatus.BootstrapReady and MachinePoolStatus.InfrastructureReady", "does not exist in peer-type"),
			neverReads(capiConversion+":1402:6", "Convert_v1beta1_MachinePoolSpec_To_v1beta2_MachinePoolSpec", "MachinePoolSpec.MinReadySeconds", "does not exist in peer-type"),
			neverReads(capiConversion+":1568:6", "Convert_v1beta1_MachineSetSpec_To_v1beta2_MachineSetSpec", "MachineSetSpec.MinReadySeconds", "does not exist in peer-type"),
			neverReads(capiConversion+":1596:6", "Convert_v1beta1_ClusterSpec_To_v1beta2_ClusterSpec", "ClusterSpec.ControlPlaneRef and ClusterSpec.InfrastructureRef",
				"inconvertible types (*k8s.io/api/core/v1.ObjectReference vs example.com/matrix/pkg/apis/cluster/v1beta2.ContractVersionedObjectReference)"),
			neverReads(capiConversion+":1614:6", "Convert_v1beta2_ClusterSpec_To_v1beta1_ClusterSpec", "v1beta2.ClusterSpec.ControlPlaneRef and v1beta2.ClusterSpec.InfrastructureRef",
				"inconvertible types (example.com/matrix/pkg/apis/cluster/v1beta2.ContractVersionedObjectReference vs *k8s.io/api/core/v1.ObjectReference)"),
			neverReads(capiConversion+":1673:6", "Convert_v1beta1_MachineDeploymentSpec_To_v1beta2_MachineDeploymentSpec",
				"MachineDeploymentSpec.MinReadySeconds, MachineDeploymentSpec.ProgressDeadlineSeconds and MachineDeploymentSpec.RevisionHistoryLimit", "does not exist in peer-type"),
		},
	},
	{
		// Two versions and no conversion code at all (no Hub, no ConvertTo/ConvertFrom, no
		// Convert_ functions): its CRDs convert with strategy None, and so does the server.
		name:   "github.com/fluxcd/source-controller/api",
		module: "github.com/fluxcd/source-controller/api@v1.7.0",
		served: map[string]int{"source.toolkit.fluxcd.io/v1": 6, "source.toolkit.fluxcd.io/v1beta2": 5},
		copies: []matrixCopy{
			{"v1", "pkg/apis/source/v1"},           // the storage version
			{"v1beta2", "pkg/apis/source/v1beta2"}, // served, +kubebuilder:deprecatedversion
		},
		requires:   []string{controllerRuntime, "github.com/fluxcd/pkg/apis/meta@v1.30.2", "github.com/fluxcd/pkg/apis/acl@v0.10.0"},
		shipped:    "github.com/fluxcd/source-controller@v1.7.0",
		crds:       []string{"config/crd/bases/*.yaml"},
		samples:    []string{"config/samples/*.yaml"},
		sideBySide: true,
		readme: "%[1]d objects of its `config/samples` created and read back, %[3]d of them read back in v1beta2 too, as its CRDs' conversion strategy None gives them " +
			"(what v1beta2's schema lacks pruned)",
	},
	{
		name:     "github.com/fluxcd/kustomize-controller/api",
		module:   "github.com/fluxcd/kustomize-controller/api@v1.9.6",
		served:   map[string]int{"kustomize.toolkit.fluxcd.io/v1": 1},
		copies:   []matrixCopy{{"v1", "pkg/apis/kustomize/v1"}},
		requires: []string{controllerRuntime, "github.com/fluxcd/pkg/apis/meta@v1.30.2", "github.com/fluxcd/pkg/apis/kustomize@v1.19.2"},
	},
	{
		name:     "github.com/fluxcd/helm-controller/api",
		module:   "github.com/fluxcd/helm-controller/api@v1.6.5",
		served:   map[string]int{"helm.toolkit.fluxcd.io/v2": 1},
		copies:   []matrixCopy{{"v2", "pkg/apis/helm/v2"}},
		requires: []string{controllerRuntime, "github.com/fluxcd/pkg/apis/meta@v1.30.2", "github.com/fluxcd/pkg/apis/kustomize@v1.19.2"},
	},
	{
		// Pod templates whose metadata must keep its labels (the selector matches them), types
		// that ship generated.pb.go and openapi_generated.go, and the group's constants in the
		// API's root package.
		name:   "github.com/argoproj/argo-rollouts",
		module: "github.com/argoproj/argo-rollouts@v1.8.3",
		served: map[string]int{"argoproj.io/v1alpha1": 5},
		copies: []matrixCopy{
			{"pkg/apis/rollouts/v1alpha1", "pkg/apis/rollouts/v1alpha1"},
			{"pkg/apis/rollouts", "internal/rollouts"}, // the group's constants (GroupName, kinds)
		},
		requires: []string{"github.com/gogo/protobuf@v1.3.2"},
		crds:     []string{"manifests/crds/*.yaml"},
		samples:  []string{"examples/*.yaml"},
		readme:   "%[1]d objects of its `examples` created and read back, pod template labels included",
	},
	{
		name:     "github.com/ray-project/kuberay/ray-operator",
		module:   "github.com/ray-project/kuberay/ray-operator@v1.5.0",
		served:   map[string]int{"ray.io/v1": 3},
		copies:   []matrixCopy{{"apis/ray/v1", "pkg/apis/ray/v1"}},
		requires: []string{controllerRuntime},
		crds:     []string{"config/crd/bases/*.yaml"},
		samples:  []string{"config/samples/*.yaml"},
		readme:   "%[1]d objects of its `config/samples` created and read back",
	},
	{
		// The API module ships no CRDs or samples, and the Go module proxy refuses the main
		// module (github.com/prometheus-operator/prometheus-operator@v0.95.1), which does.
		name:   "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring",
		module: "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring@v0.95.1",
		served: map[string]int{"monitoring.coreos.com/v1": 7},
		copies: []matrixCopy{
			{"v1", "pkg/apis/monitoring/v1"},
			{"", "internal/monitoring"}, // the group's constants (GroupName, kinds)
		},
		// ProbeSpec's authorization hides the one of the HTTPConfig it inlines; tlsConfig and
		// followRedirects are HTTPConfig's.
		objects: `apiVersion: monitoring.coreos.com/v1
kind: Probe
metadata:
  name: blackbox
spec:
  jobName: blackbox
  interval: 30s
  module: http_2xx
  prober:
    url: blackbox-exporter.monitoring.svc:9115
  targets:
    staticConfig:
      static: ["https://example.com"]
      labels:
        env: test
  authorization:
    type: Bearer
    credentials:
      name: probe-token
      key: token
  tlsConfig:
    serverName: example.com
  followRedirects: true
`,
		readme: "%[1]d Probe of the test's own, with the `authorization` that hides the inlined HTTPConfig's, created and read back",
	},
	{
		// The module ships its CRDs, but no sample objects.
		name:   "github.com/vmware-tanzu/velero",
		module: "github.com/vmware-tanzu/velero@v1.18.3",
		served: map[string]int{"velero.io/v1": 11, "velero.io/v2alpha1": 2},
		copies: []matrixCopy{
			{"pkg/apis/velero/v1", "pkg/apis/velero/v1"},
			{"pkg/apis/velero/v2alpha1", "pkg/apis/velero/v2alpha1"},
			{"pkg/apis/velero/shared", "pkg/apis/velero/shared"},
		},
		crds: []string{"config/crd/v1/bases/*.yaml", "config/crd/v2alpha1/bases/*.yaml"},
		// DataUpload's dataMoverResult is a *map[string]string.
		objects: `apiVersion: velero.io/v1
kind: BackupStorageLocation
metadata:
  name: primary
spec:
  provider: aws
  objectStorage:
    bucket: backups
    prefix: cluster-a
  config:
    region: us-east-1
---
apiVersion: velero.io/v1
kind: Backup
metadata:
  name: nightly-1
spec:
  includedNamespaces: ["apps"]
  ttl: 720h0m0s
  storageLocation: primary
---
apiVersion: velero.io/v1
kind: Schedule
metadata:
  name: nightly
spec:
  schedule: "0 1 * * *"
  template:
    includedNamespaces: ["apps"]
    ttl: 720h0m0s
---
apiVersion: velero.io/v2alpha1
kind: DataUpload
metadata:
  name: upload-1
spec:
  snapshotType: CSI
  csiSnapshot:
    volumeSnapshot: snap-1
    storageClass: standard
    snapshotClass: csi-snapclass
  sourcePVC: data
  sourceNamespace: apps
  backupStorageLocation: primary
  dataMoverConfig:
    uploaderType: kopia
  operationTimeout: 10m0s
`,
		readme: "%[1]d objects of the test's own (BackupStorageLocation, Backup, Schedule, DataUpload) created and read back",
	},
	{
		// Two groups under pkg/apis, each version with its own register.go, selectable fields,
		// free-form JSON (apiextensionsv1.JSON) and gateway-api's types in the ACME solver.
		name:   "github.com/cert-manager/cert-manager",
		module: "github.com/cert-manager/cert-manager@v1.21.2",
		served: map[string]int{"cert-manager.io/v1": 4, "acme.cert-manager.io/v1": 2},
		copies: []matrixCopy{
			{"pkg/apis/certmanager", "pkg/apis/certmanager"},
			{"pkg/apis/certmanager/v1", "pkg/apis/certmanager/v1"},
			{"pkg/apis/acme", "pkg/apis/acme"},
			{"pkg/apis/acme/v1", "pkg/apis/acme/v1"},
			{"pkg/apis/meta", "pkg/apis/meta"},
			{"pkg/apis/meta/v1", "pkg/apis/meta/v1"},
		},
		requires: []string{"sigs.k8s.io/gateway-api@v1.6.3"},
		crds:     []string{"deploy/crds/*.yaml"},
		samples:  []string{"test/fixtures/cert-manager-resources.yaml"},
		readme:   "%[1]d objects of its `test/fixtures` created and read back",
	},
	{
		// Kubernetes style (client-gen's tags, a register.go of runtime.SchemeBuilder) with
		// kubebuilder's validation; groupsnapshot in two versions and no conversion code (its
		// CRDs convert with strategy None). Its v1 is left out: v1 and v1beta2 both carry
		// +kubebuilder:storageversion (controller-gen writes both as storage versions, a CRD
		// kube-apiserver refuses; the shipped CRD stores v1beta2), which apigen refuses with a
		// positioned error. The CRDs are in the client module, the samples in the main one.
		name:   "github.com/kubernetes-csi/external-snapshotter/client/v8",
		module: "github.com/kubernetes-csi/external-snapshotter/client/v8@v8.7.0",
		served: map[string]int{
			"snapshot.storage.k8s.io/v1":           3,
			"groupsnapshot.storage.k8s.io/v1beta2": 3,
			"groupsnapshot.storage.k8s.io/v1beta1": 3,
		},
		copies: []matrixCopy{
			{"apis/volumesnapshot/v1", "pkg/apis/volumesnapshot/v1"},
			{"apis/volumegroupsnapshot/v1beta2", "pkg/apis/volumegroupsnapshot/v1beta2"},
			{"apis/volumegroupsnapshot/v1beta1", "pkg/apis/volumegroupsnapshot/v1beta1"},
		},
		crds:        []string{"config/crd/*.yaml"},
		samplesFrom: "github.com/kubernetes-csi/external-snapshotter/v8@v8.7.0",
		samples:     []string{"examples/kubernetes/snapshot*-v1.yaml", "examples/kubernetes/groupsnapshot*-v1beta1.yaml"},
		invalid:     []string{"examples/kubernetes/invalid-snapshot-v1.yaml"},
		readme: "%[1]d objects of its `examples/kubernetes` created and read back, %[3]d of them read back in v1beta2 too; " +
			"its %[2]d invalid VolumeSnapshot refused",
	},
	{
		// Kubernetes style of an older release: types that ship gogo's generated.pb.go and
		// generated.proto, a legacy registration in the core group beside route.openshift.io,
		// a +k8s:conversion-gen peer (the internal package) the module does not hold, and no
		// kubebuilder marker at all. The module ships no CRDs or samples.
		name:     "github.com/openshift/api",
		module:   "github.com/openshift/api@v3.9.0+incompatible",
		served:   map[string]int{"route.openshift.io/v1": 1},
		copies:   []matrixCopy{{"route/v1", "pkg/apis/route/v1"}},
		requires: []string{"github.com/gogo/protobuf@v1.3.2"},
		objects: `apiVersion: route.openshift.io/v1
kind: Route
metadata:
  name: frontend
spec:
  host: www.example.com
  path: /app
  to:
    kind: Service
    name: frontend
    weight: 100
  alternateBackends:
  - kind: Service
    name: frontend-canary
    weight: 10
  port:
    targetPort: http
  tls:
    termination: edge
    insecureEdgeTerminationPolicy: Redirect
  wildcardPolicy: None
`,
		// Status RouteStatus `json:"status"`: required, and cleared by every create.
		warnings: []string{"pkg/apis/route/v1/types.go:37:2: warning: Route v1: the schema requires status (the field is neither omitempty nor +optional)"},
		readme:   "the test's own Route refused (%[1]d created)",
	},
	{
		// Admission webhooks (controller-runtime's CustomValidator) and Prometheus metrics
		// registered at init in the API package, autoscaling/v2's HPA behavior in a spec, and
		// two groups.
		name:   "github.com/kedacore/keda/v2",
		module: "github.com/kedacore/keda/v2@v2.21.0",
		served: map[string]int{"keda.sh/v1alpha1": 4, "eventing.keda.sh/v1alpha1": 2},
		copies: []matrixCopy{
			{"apis/keda/v1alpha1", "pkg/apis/keda/v1alpha1"},
			{"apis/eventing/v1alpha1", "pkg/apis/eventing/v1alpha1"},
			{"pkg/eventreason", "internal/keda/eventreason"},
			{"pkg/metricscollector/webhook", "internal/keda/metricscollector/webhook"},
		},
		// Its prometheus/client_golang (v1.24.1) is older than the project's: go get would
		// take kine back with it.
		requires: []string{controllerRuntime, "github.com/expr-lang/expr@v1.17.8"},
		crds:     []string{"config/crd/bases/*.yaml"},
		samples:  []string{"config/samples/*.yaml"},
		readme:   "%[1]d of its 6 `config/samples` created and read back",
	},
	{
		// The API package's directory is named after its group (pkg/api/whereabouts.cni.cncf.io/
		// v1alpha1), kept so in the copy; the group's name is a constant of its parent package.
		name:   "github.com/k8snetworkplumbingwg/whereabouts",
		module: "github.com/k8snetworkplumbingwg/whereabouts@v0.9.2",
		served: map[string]int{"whereabouts.cni.cncf.io/v1alpha1": 3},
		copies: []matrixCopy{
			{"pkg/api/whereabouts.cni.cncf.io", "internal/whereabouts"},
			{"pkg/api/whereabouts.cni.cncf.io/v1alpha1", "pkg/apis/whereabouts.cni.cncf.io/v1alpha1"},
		},
		crds: []string{"doc/crds/whereabouts.cni.cncf.io_*.yaml"},
		objects: `apiVersion: whereabouts.cni.cncf.io/v1alpha1
kind: IPPool
metadata:
  name: 10.1.0.0-24
spec:
  range: 10.1.0.0/24
  allocations:
    "1":
      id: 9d0fd3d4d9a9
      podref: default/web-0
      ifname: eth0
---
apiVersion: whereabouts.cni.cncf.io/v1alpha1
kind: OverlappingRangeIPReservation
metadata:
  name: 10.1.0.1
spec:
  containerid: 9d0fd3d4d9a9
  podref: default/web-0
  ifname: eth0
---
apiVersion: whereabouts.cni.cncf.io/v1alpha1
kind: NodeSlicePool
metadata:
  name: net1
spec:
  range: 10.2.0.0/16
  sliceSize: /24
`,
		readme: "%[1]d objects of the test's own (IPPool, OverlappingRangeIPReservation, NodeSlicePool) created and read back",
	},
	{
		// One group whose two versions hold different kinds (ClusterAutoscaler only in v1,
		// MachineAutoscaler only in v1beta1), each version its own CRD's only one.
		name:     "github.com/openshift/cluster-autoscaler-operator",
		module:   "github.com/openshift/cluster-autoscaler-operator@v0.0.1-0.20260608074635-5c8643284941",
		served:   map[string]int{"autoscaling.openshift.io/v1": 1, "autoscaling.openshift.io/v1beta1": 1},
		copies:   []matrixCopy{{"pkg/apis/autoscaling/v1", "pkg/apis/autoscaling/v1"}, {"pkg/apis/autoscaling/v1beta1", "pkg/apis/autoscaling/v1beta1"}},
		requires: []string{controllerRuntime},
		crds:     []string{"install/0[12]_*.crd.yaml"},
		samples:  []string{"examples/*.yaml"},
		readme:   "%[1]d of its 2 `examples` created and read back (the MachineAutoscaler; the ClusterAutoscaler's misspelt `uneededTime` is dropped, as its CRD prunes it)",
	},
	{
		// The kinds' specs are structs of packages that are no API package: ProviderConfig's
		// spec is pkg/kube/config's ProviderConfigSpec (its credentials.source and identity.type
		// carry +kubebuilder:validation:Enum), and ProviderConfigUsage inlines crossplane's
		// core/v2 ProviderConfigUsage, another module's package of shared types without a
		// group (policy.resolve's Enum, policy.resolution's default). Two groups, cluster-scoped
		// and namespaced, share the one spec package.
		name:   "github.com/crossplane-contrib/provider-kubernetes",
		module: "github.com/crossplane-contrib/provider-kubernetes@v1.3.1",
		served: map[string]int{"kubernetes.crossplane.io/v1alpha1": 2, "kubernetes.m.crossplane.io/v1alpha1": 3},
		copies: []matrixCopy{
			{"apis/cluster/v1alpha1", "pkg/apis/kubernetes/v1alpha1"},
			{"apis/namespaced/v1alpha1", "pkg/apis/kubernetesm/v1alpha1"},
			{"pkg/kube/config", "internal/kube/config"},
		},
		// Its crossplane-runtime's methodsets (zz_generated.pculist.go) import pkg/resource,
		// whose own imports go get of the module alone leaves out of go.sum.
		requires: []string{controllerRuntime, "github.com/crossplane/crossplane/apis/v2@v2.4.0", "github.com/crossplane/crossplane-runtime/v2/pkg/resource@v2.4.0"},
		crds: []string{
			"package/crds/kubernetes.crossplane.io_providerconfig*.yaml",
			"package/crds/kubernetes.m.crossplane.io_*providerconfig*.yaml",
		},
		samples:    []string{"examples/cluster/provider/*.yaml", "examples/namespaced/provider/*.yaml"},
		sideBySide: true,
		objects: `apiVersion: kubernetes.crossplane.io/v1alpha1
kind: ProviderConfigUsage
metadata:
  name: object-uses-default
providerConfigRef:
  name: default
  policy:
    resolve: Always
resourceRef:
  apiVersion: kubernetes.crossplane.io/v1alpha2
  kind: Object
  name: sample
---
apiVersion: kubernetes.m.crossplane.io/v1alpha1
kind: ProviderConfigUsage
metadata:
  name: object-uses-default
providerConfigRef:
  kind: ClusterProviderConfig
  name: default
resourceRef:
  apiVersion: kubernetes.m.crossplane.io/v1alpha1
  kind: Object
  name: sample
`,
		refuse: `# pkg/kube/config's ProviderCredentials.Source: +kubebuilder:validation:Enum=None;Secret;InjectedIdentity;Environment;Filesystem
apiVersion: kubernetes.m.crossplane.io/v1alpha1
kind: ProviderConfig
metadata:
  name: unknown-source
spec:
  credentials:
    source: Kubeconfig
---
# pkg/kube/config's IdentityType: +kubebuilder:validation:Enum=GoogleApplicationCredentials;...
apiVersion: kubernetes.crossplane.io/v1alpha1
kind: ProviderConfig
metadata:
  name: unknown-identity
spec:
  credentials:
    source: InjectedIdentity
  identity:
    source: InjectedIdentity
    type: GitHubToken
---
# crossplane's core/v2 Policy.Resolve: +kubebuilder:validation:Enum=Always;IfNotPresent
apiVersion: kubernetes.crossplane.io/v1alpha1
kind: ProviderConfigUsage
metadata:
  name: sometimes
providerConfigRef:
  name: default
  policy:
    resolve: Sometimes
resourceRef:
  apiVersion: kubernetes.crossplane.io/v1alpha2
  kind: Object
  name: sample
`,
		readme: "%[1]d of its `examples/*/provider` and the test's own created and read back alike from kube-apiserver with its CRDs; " +
			"%[2]d objects breaking an Enum of pkg/kube/config or crossplane's core/v2 refused, as its CRDs refuse them",
	},
}

// matrixKnown are the matrix's known differences, by category, each with its reason. A report
// is keyed "discovery <group/version> <resource>: <what>", "schema <group/version> <Kind>:
// <difference>", "sample <set> <file> <Kind>/<name>" or "invalid <set> <file> <Kind>/<name>",
// and says what differs. The test fails on a report no entry matches, and on an entry that
// matches no report.
var matrixKnown = []struct {
	name, why string
	match     func(key, what string) bool
}{
	{
		"conditions' status enum",
		"metav1.Condition's status has +kubebuilder:validation:Enum=True;False;Unknown, which the CRD's schema has and the server enforces " +
			"(its validation schema is the CRD's); the served OpenAPI of metav1.Condition is k8s.io/apimachinery's, generated by openapi-gen, which has no enum",
		func(key, what string) bool {
			return strings.HasSuffix(key, ": enum only in the CRD") && allPaths(what, func(p string) bool { return strings.HasSuffix(p, "conditions[].status") })
		},
	},
	{
		"k8s.io/api enums",
		"the served OpenAPI of k8s.io/api's types (pod templates, tolerations, taints) is k8s.io/api's, which publishes their +enum values; controller-gen does not put them in a CRD, " +
			"and the server does not enforce them either (its validation schema is the CRD's)",
		func(key, what string) bool { return strings.HasSuffix(key, ": enum only served") },
	},
	{
		"embedded ObjectMeta and newer k8s.io/api fields",
		"controller-gen writes an embedded ObjectMeta (a pod template's metadata) as a bare object, where the served OpenAPI has ObjectMeta's fields; " +
			"and the project builds on k8s.io/api v0.37.2, whose types have fields (VolumeMount.bindMountOptions) that the k8s.io/api the CRD was generated from had not",
		func(key, what string) bool { return strings.HasSuffix(key, ": properties only served") },
	},
	{
		"k8s.io/api fields the CRD's version had",
		"kueue's CRD was generated from a k8s.io/api with PodSpec.workloadRef, which v0.37.2 does not have",
		func(key, what string) bool {
			return strings.HasPrefix(key, "schema kueue.x-k8s.io/") && strings.HasSuffix(key, "Workload: properties only in the CRD") && allPaths(what, func(p string) bool { return strings.HasSuffix(p, ".workloadRef") })
		},
	},
	{
		"k8s.io/api required fields",
		"required fields of k8s.io/api types as openapi-gen publishes them (PodFailurePolicyOnPodConditionsPattern.status, PortStatus.error) differ from what controller-gen made of " +
			"the k8s.io/api the CRD was generated from; the server validates with the CRD's",
		func(key, what string) bool {
			return strings.HasSuffix(key, ": required differs") && allPaths(what, func(p string) bool {
				return strings.Contains(p, "podFailurePolicy.rules[].onPodConditions[]") || strings.Contains(p, "loadBalancer.ingress[].ports[]")
			})
		},
	},
	{
		"argo-rollouts' pod specs",
		"argo-rollouts' CRDs were generated from a k8s.io/api with PodResourceClaim.source and without HostAlias.ip required, which v0.37.2 has otherwise, " +
			"and its own tool replaces a pod spec's volumes with x-kubernetes-preserve-unknown-fields items (no required name)",
		func(key, what string) bool {
			if !strings.HasPrefix(key, "schema argoproj.io/") {
				return false
			}
			return strings.HasSuffix(key, ": properties only in the CRD") && allPaths(what, func(p string) bool { return strings.HasSuffix(p, ".resourceClaims[].source") }) ||
				strings.HasSuffix(key, ": required differs") && allPaths(what, func(p string) bool {
					return strings.HasSuffix(p, ".hostAliases[]") || strings.HasSuffix(p, ".spec.volumes[]") || strings.Contains(p, "podFailurePolicy.rules[].onPodConditions[]")
				})
		},
	},
	{
		"a pod template held by value",
		"Rollout.spec.template (and KEDA's ScaledJob jobTargetRef.template) is a PodTemplateSpec held by value (json:\"template\", no omitempty): a Rollout that names a workloadRef and has no template " +
			"(a ScaledJob sample whose template is null) decodes to an empty template, whose spec's containers the schema requires; the CRD validates the object as sent, without a template",
		func(key, what string) bool {
			return strings.HasPrefix(key, "sample github.com/argoproj/argo-rollouts examples/rollout-template-ref.yaml Rollout/") &&
				strings.Contains(what, "spec.template.spec.containers: Required value") ||
				// KEDA's ScaledJob sample sends jobTargetRef.template as null (a "## template" placeholder).
				strings.HasPrefix(key, "sample github.com/kedacore/keda/v2 config/samples/keda_v1alpha1_scaledjob.yaml ScaledJob/") &&
					strings.Contains(what, "spec.jobTargetRef.template.spec.containers: Required value")
		},
	},
	{
		"a status held by value and required",
		"openshift/api's Route declares Status RouteStatus `json:\"status\"`, without omitempty or +optional, so its schema (as openapi-gen's and controller-gen's) requires " +
			"status, and a create clears the status: the server refuses every create, as kube-apiserver refuses every create of a CRD with that schema " +
			"(openshift-apiserver validates by hand and takes one); apigen generate says so at the field (the row's warnings)",
		func(key, what string) bool {
			return strings.HasPrefix(key, "object github.com/openshift/api Route/") && strings.Contains(what, "status: Required value")
		},
	},
	{
		"a sample's misspelt field",
		"cluster-autoscaler-operator's example sets spec.scaleDown.uneededTime (the field is unneededTime): the server drops the unknown field with a warning, " +
			"as its CRD prunes it",
		func(key, what string) bool {
			return strings.HasPrefix(key, "sample github.com/openshift/cluster-autoscaler-operator examples/clusterautoscaler.yaml ") &&
				strings.Contains(what, "spec.scaleDown.uneededTime (sent 10s, read <nil>)")
		},
	},
	{
		"gateway-api's experimental enums",
		"the experimental channel's CRDs are made by gateway-api's own tool from <gateway:experimental:validation:Enum=...> comments (ExternalAuth among HTTPRoute filter types); " +
			"apigen applies the +kubebuilder:validation:Enum beside them, the standard channel's",
		func(key, what string) bool {
			// v1 and v1beta1 (type HTTPRoute v1.HTTPRoute) alike
			return strings.HasPrefix(key, "schema gateway.networking.k8s.io/") && strings.Contains(key, " HTTPRoute: enum values differ") && strings.Contains(what, "ExternalAuth")
		},
	},
}

// allPaths reports whether every path a report lists (after its count) satisfies f.
func allPaths(what string, f func(string) bool) bool {
	_, list, _ := strings.Cut(what, ": ")
	for _, p := range strings.Split(list, ", ") {
		p, _, _ = strings.Cut(p, " (")
		// Paths start with a dot; other pieces are the rest of a "(CRD [a, b], served [b])".
		if strings.HasPrefix(p, ".") && p != "..." && !f(p) {
			return false
		}
	}
	return true
}

// TestKubebuilderMatrix serves matrixSets in one project and one server and records, for each,
// generate, build, serve, discovery and schema against the module's CRDs, its samples created
// and read back, and its invalid samples refused.
func TestKubebuilderMatrix(t *testing.T) {
	// -run TestKubebuilderMatrix/<row> takes only the rows it names into the project: each
	// row's checks are a subtest of that name, and so is its selection.
	var matrixSets []matrixSet
	for _, set := range allMatrixSets {
		t.Run(set.testName(), func(*testing.T) { matrixSets = append(matrixSets, set) })
	}
	every := len(matrixSets) == len(allMatrixSets)
	tc := tools(t)
	start := time.Now()
	seen := map[string]int{}
	readme := readFile(t, filepath.Join(tc.root, "docs", "reference", "compatibility.md"))
	// The rows share one project and one server, but for those with a project of their own
	// (a group another row serves too, at another release).
	byProject := map[string][]matrixSet{}
	for _, set := range matrixSets {
		byProject[set.project] = append(byProject[set.project], set)
	}
	for _, name := range slices.Sorted(maps.Keys(byProject)) {
		matrixProject(t, tc, byProject[name], seen, readme)
	}
	for _, k := range matrixKnown {
		if seen[k.name] == 0 && every {
			t.Errorf("the known difference %q (%s) no longer happens; remove it", k.name, k.why)
		}
		t.Logf("known difference %q: %d reports", k.name, seen[k.name])
	}
	t.Logf("the matrix took %s", time.Since(start).Round(time.Second))
}

// matrixProject generates, builds and serves the rows matrixSets in one project and checks
// each row in a subtest of its name; seen counts the reports each known difference explained.
func matrixProject(t *testing.T, tc *toolchain, matrixSets []matrixSet, seen map[string]int, readme string) {
	work := t.TempDir()
	proj := initProject(t, tc, work, matrixRepo)

	// The modules download side by side.
	dirs := make([]string, len(matrixSets))
	shipped := make([]string, len(matrixSets))   // where crds, samples and invalid are
	samplesIn := make([]string, len(matrixSets)) // where samples and invalid are
	var wg sync.WaitGroup
	for i, set := range matrixSets {
		wg.Go(func() {
			dirs[i] = moduleDir(t, work, set.module)
			shipped[i] = dirs[i]
			if set.shipped != "" {
				shipped[i] = moduleDir(t, work, set.shipped)
			}
			samplesIn[i] = shipped[i]
			if set.samplesFrom != "" {
				samplesIn[i] = moduleDir(t, work, set.samplesFrom)
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	requires := map[string]bool{}
	for i, set := range matrixSets {
		modPath, _, _ := strings.Cut(set.module, "@")
		for _, c := range set.copies {
			copyRewritten(t, filepath.Join(dirs[i], c.from), filepath.Join(proj, c.to), modPath, set.copies)
		}
		for _, r := range set.requires {
			requires[r] = true
		}
	}
	if len(requires) > 0 {
		mustSucceed(t, runCmd(cmdOpts{Dir: proj, Env: goEnv, Timeout: buildTimeout}, "go", append([]string{"get"}, slices.Sorted(maps.Keys(requires))...)...))
	}
	before := snapshot(t, filepath.Join(proj, "pkg", "apis"))
	gen := generateMeasured(t, tc, proj)
	t.Logf("apigen generate: %s wall, peak RSS %d MiB, %d warnings", gen.wall.Round(10*time.Millisecond), gen.maxRSS>>20, strings.Count(gen.stderr, "warning:"))
	for name, content := range before {
		if after := readFile(t, filepath.Join(proj, "pkg", "apis", name)); after != content {
			t.Errorf("apigen generate changed the API's own %s", name)
		}
	}
	k, stop := serve(t, tc, proj, work)
	defer stop()
	cfg := restConfig(t, k.kubeconfig)
	var rowT *testing.T // the subtest of the row being checked
	report := func(key, what string) {
		for _, k := range matrixKnown {
			if k.match(key, what) {
				seen[k.name]++
				rowT.Logf("known (%s): %s: %s", k.name, key, what)
				return
			}
		}
		rowT.Errorf("%s: %s", key, what)
	}

	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))

	counts := map[string][3]int{} // set → samples created and read back equal, invalid refused, read in another version
	for i, set := range matrixSets {
		t.Run(set.testName(), func(t *testing.T) {
			rowT = t
			lines := strings.Split(gen.stderr, "\n")
			for _, w := range set.warnings {
				if !slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(strings.TrimSpace(l), w) }) {
					t.Errorf("apigen generate does not warn %q", w)
				}
			}
			for gv, want := range set.served {
				n := 0
				for name := range discoveryResources(t, cfg, gv) {
					if !strings.Contains(name, "/") {
						n++
					}
				}
				if n != want {
					t.Errorf("%s: %s serves %d resources, want %d", set.name, gv, n, want)
				}
			}
			// The module's CRDs against discovery and the served schema; the schemas of those
			// that convert with strategy None give what a sample reads back as in another version.
			none := map[string]*structuralschema.Structural{}
			for _, crd := range globAll(t, shipped[i], set.crds) {
				compareWithCRD(t, cfg, crd, set.served, report)
				maps.Copy(none, strategyNoneSchemas(t, crd))
			}
			// The module's samples: every object of a kind the server serves.
			for _, file := range globAll(t, samplesIn[i], set.samples) {
				for _, obj := range yamlObjects(readFile(t, file)) {
					rel, _ := filepath.Rel(samplesIn[i], file)
					key := fmt.Sprintf("sample %s %s %s/%s", set.name, rel, obj.GetKind(), obj.GetName())
					ok, others, what := roundTrip(dyn, mapper, obj, set.served, none)
					if what != "" {
						report(key, what)
					} else if ok {
						c := counts[set.name]
						c[0]++
						if others > 0 {
							c[2]++
						}
						counts[set.name] = c
					}
				}
			}
			for _, obj := range yamlObjects(set.objects) {
				key := fmt.Sprintf("object %s %s/%s", set.name, obj.GetKind(), obj.GetName())
				if ok, _, what := roundTrip(dyn, mapper, obj, set.served, none); what != "" {
					report(key, what)
				} else if !ok {
					report(key, "its kind is not served")
				} else {
					c := counts[set.name]
					c[0]++
					counts[set.name] = c
				}
			}
			for _, file := range globAll(t, samplesIn[i], set.invalid) {
				for _, obj := range yamlObjects(readFile(t, file)) {
					rel, _ := filepath.Rel(samplesIn[i], file)
					key := fmt.Sprintf("invalid %s %s %s/%s", set.name, rel, obj.GetKind(), obj.GetName())
					if ok, what := refused(dyn, mapper, obj); what != "" {
						report(key, what)
					} else if ok {
						c := counts[set.name]
						c[1]++
						counts[set.name] = c
					}
				}
			}
			for _, obj := range yamlObjects(set.refuse) {
				key := fmt.Sprintf("refuse %s %s/%s", set.name, obj.GetKind(), obj.GetName())
				if ok, what := refused(dyn, mapper, obj); what != "" {
					report(key, what)
				} else if !ok {
					report(key, "its kind is not served")
				} else {
					c := counts[set.name]
					c[1]++
					counts[set.name] = c
				}
			}
			if set.sideBySide {
				objects := yamlObjects(set.objects)
				for _, file := range globAll(t, samplesIn[i], set.samples) {
					objects = append(objects, yamlObjects(readFile(t, file))...)
				}
				n, r := sideBySide(t, tc, work, globAll(t, shipped[i], set.crds), objects, yamlObjects(set.refuse), dyn, mapper, set.served)
				t.Logf("%s: %d objects read alike from kube-apiserver with the CRDs installed and from the server, %d refused alike", set.name, n, r)
			}
			c := counts[set.name]
			t.Logf("%s: %d samples created and read back (%d in another version too), %d invalid samples refused", set.name, c[0], c[2], c[1])
			if set.readme != "" {
				if claim := fmt.Sprintf(set.readme, c[0], c[1], c[2]); !strings.Contains(readme, claim) {
					t.Errorf("docs/reference/compatibility.md's compatibility matrix should say of %s: %q", set.name, claim)
				}
			}
			if set.check != nil {
				set.check(t, dyn)
			}

		})
	}
	// Every kind of every row, in every served version, filled at random and written through
	// the REST API: nothing the Go type holds is dropped (the project's own TestRESTRoundTrip,
	// narrowed to the rows' groups, so that a run narrowed to rows takes theirs alone).
	var groups []string
	for _, set := range matrixSets {
		for gv := range set.served {
			group, _, _ := strings.Cut(gv, "/")
			groups = append(groups, regexp.QuoteMeta(group))
		}
	}
	if len(groups) > 0 {
		slices.Sort(groups)
		t.Run("every field of every kind is kept through the REST API", func(t *testing.T) {
			restRoundTrip(t, proj, "TestRESTRoundTrip/("+strings.Join(slices.Compact(groups), "|")+")/", matrixRoundTripLeftOut, matrixRoundTripFindings)
		})
	}
}

// matrixRoundTripLeftOut is the kind the matrix's round trip leaves out, as its conversion is
// unsafe for objects its other version takes: Kueue's v1beta1 Workload. v1beta2 describes a
// topology assignment compactly, as slices of domainCount domains each, and bounds domainCount
// only from below (+kubebuilder:validation:Minimum=1 in apis/kueue/v1beta2/workload_types.go;
// its rules compare it with podCounts.individual and valuesPerLevel[].individual.roots only
// where those are set), so a v1beta2 status of a few hundred bytes may ask for 2^31-1 domains
// (kueueTakesAnyDomainCount checks that the server takes it). v1beta1 lists every domain, and
// Kueue's own Convert_v1beta2_TopologyAssignment_To_v1beta1_TopologyAssignment
// (apis/kueue/v1beta1/workload_conversion.go) makes that list as long as the counts ask: read
// in v1beta1, such a Workload needs more memory than any machine has, in this server as in
// Kueue's conversion webhook, which calls the same function. The round trip fills the hub
// (v1beta2) at random and converts it to v1beta1 in the test, so a random count reaches that
// conversion before any request is sent, and ends the test binary. Bounding the fuzzer's counts
// would not be fair: any of them is what a v1beta2 client may send.
const matrixRoundTripLeftOut = "^TestRESTRoundTrip$/^kueue\\.x-k8s\\.io$/^v1beta1$/^Workload$"

// kueueTakesAnyDomainCount checks what leaves Kueue's v1beta1 Workload out of the round trip
// (matrixRoundTripLeftOut): v1beta2 takes a status of a few hundred bytes whose topology
// assignment asks for 2^31-1 domains. The Workload is written and read in v1beta2 alone (the
// row stores v1beta2) and deleted at once: read in v1beta1, Kueue's conversion would make a
// list of that many domains (the server asks for a 64 GiB block and ends).
func kueueTakesAnyDomainCount(t *testing.T, dyn dynamic.Interface) {
	workloads := dyn.Resource(schema.GroupVersionResource{Group: "kueue.x-k8s.io", Version: "v1beta2", Resource: "workloads"}).Namespace("default")
	wl := yamlObjects(`apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: any-domain-count}
spec:
  queueName: q
  podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c, image: i}]}}}]
`)[0]
	if _, err := workloads.Create(t.Context(), wl, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating a Workload in v1beta2: %v", err)
	}
	defer func() {
		if err := workloads.Delete(context.Background(), wl.GetName(), metav1.DeleteOptions{}); err != nil {
			t.Errorf("deleting the Workload of 2^31-1 domains: %v", err)
		}
	}()
	const status = `{"status": {"admission": {"clusterQueue": "cq", "podSetAssignments": [{"name": "main", "count": 1,
		"topologyAssignment": {"levels": ["zone"], "slices": [{"domainCount": 2147483647, "valuesPerLevel": [{"universal": "a"}], "podCounts": {"universal": 1}}]}}]}}}`
	got, err := workloads.Patch(t.Context(), wl.GetName(), types.MergePatchType, []byte(status), metav1.PatchOptions{}, "status")
	if err != nil {
		t.Errorf("v1beta2 refuses a topology assignment of 2^31-1 domains (%v): take Kueue's v1beta1 Workload back into the round trip (matrixRoundTripLeftOut)", err)
		return
	}
	assignments, _, _ := unstructured.NestedSlice(got.Object, "status", "admission", "podSetAssignments")
	if len(assignments) != 1 || !strings.Contains(fmt.Sprint(assignments[0]), "domainCount:2147483647") {
		t.Errorf("the status update read back %v, not the 2^31-1 domains sent", assignments)
	}
	t.Logf("v1beta2 takes a topology assignment of 2^31-1 domains in a status patch of %d bytes", len(status))
}

// matrixRoundTripFindings are the kinds (group/version/Kind) of the matrix whose round trip
// through the REST API fails, on something apigen has still to fix or the kind's own code
// does, each with what the test found (restRoundTrip checks that they still fail).
var matrixRoundTripFindings = map[string]string{
	// Cluster API's v1beta1 converts to and from its hub, v1beta2, with the Convert_ functions of
	// its API module (api/core/v1beta1/conversion.go and zz_generated.conversion.go), the only
	// conversion code the row copies. Its conversion webhook, in the main module
	// (sigs.k8s.io/cluster-api core/webhooks/conversion), calls the same functions and does more
	// around them: it is not part of the API module, so the server has nothing to call it with.
	"cluster.x-k8s.io/v1beta1/Cluster": "read back, the v1beta1 object lacks a clusterNetwork.pods or services whose cidrBlocks " +
		"is empty: v1beta2's NetworkRanges stores an empty cidrBlocks as none (json:\"cidrBlocks,omitempty\", " +
		"api/core/v1beta2/cluster_types.go:1416), and Convert_v1beta2_ClusterNetwork_To_v1beta1_ClusterNetwork " +
		"(api/core/v1beta1/conversion.go:1656 and 1663) leaves out the ranges that are then empty, as the webhook, which " +
		"calls it, does too; and after a status update it reads status.controlPlaneReady and infrastructureReady true " +
		"as false: Convert_v1beta1_ClusterStatus_To_v1beta2_ClusterStatus leaves them out (conversion.go:838, " +
		"\"implemented in ConvertTo\"), which the webhook's ConvertClusterV1Beta1ToHub (core/webhooks/conversion/cluster.go:36) " +
		"moves to status.initialization; apigen generate warns of those two fields at the function (conversion.go:802, the row's warnings)",
	"cluster.x-k8s.io/v1beta1/Machine": "after a status update, the v1beta1 object reads status.infrastructureReady and bootstrapReady " +
		"true as false: Convert_v1beta1_MachineStatus_To_v1beta2_MachineStatus leaves them out (api/core/v1beta1/conversion.go:1257, " +
		"\"implemented in ConvertTo\"), which the webhook's ConvertMachineV1Beta1ToHub (core/webhooks/conversion/machine.go:36) " +
		"moves to status.initialization; apigen generate warns of both, at the function (conversion.go:1233, the row's warnings)",
	"cluster.x-k8s.io/v1beta1/MachinePool": "after a status update, the v1beta1 object reads status.infrastructureReady and bootstrapReady " +
		"true as false: Convert_v1beta1_MachinePoolStatus_To_v1beta2_MachinePoolStatus leaves them out (api/core/v1beta1/conversion.go:1382, " +
		"\"implemented in ConvertTo\"), which the webhook's ConvertMachinePoolV1Beta1ToHub (core/webhooks/conversion/machinepool.go:36) " +
		"moves to status.initialization; apigen generate warns of both, at the function (conversion.go:1360, the row's warnings)",
	"route.openshift.io/v1/Route": "its schema requires status, which a create clears, so every create is refused (the row's warning, " +
		"and kube-apiserver with such a CRD does the same)",
}

// sideBySide starts etcd and kube-apiserver, installs the CRDs there, creates each object (the
// set's samples and its own objects) in kube-apiserver and in the server (dyn), and reads it
// from both in every version of served that serves its kind: each field either sets must read
// back alike from the other (durations and quantities by value). Each object of refuse must be
// refused by both as invalid, on the same fields. It returns the number of objects that read
// back alike, in every version, and the number refused alike.
func sideBySide(t *testing.T, tc *toolchain, work string, crds []string, objects, refuse []*unstructured.Unstructured, dyn dynamic.Interface, mapper meta.RESTMapper, served map[string]int) (alike, refusedAlike int) {
	t.Helper()
	dir := filepath.Join(work, "side-by-side")
	_, kas := startControlPlane(t, dir)
	k := &kubectl{bin: tc.kubectl, kubeconfig: kas.AdminKubeconfig, cacheDir: filepath.Join(dir, "kube-cache")}
	var names []string
	for _, file := range crds {
		k.ok(t, "create", "-f", file) // too large for the last-applied annotation of kubectl apply
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.Unmarshal([]byte(readFile(t, file)), &crd); err == nil && crd.Name != "" {
			names = append(names, "crd/"+crd.Name)
		}
	}
	k.ok(t, append([]string{"wait", "--for=condition=Established", "--timeout=60s"}, names...)...)
	crdDyn := dynamicFor(t, kas.AdminKubeconfig)
	ctx := context.Background()
	// The namespaces the objects name, which kube-apiserver wants to exist.
	namespaces := map[string]bool{"default": true}
	for _, obj := range append(slices.Clone(objects), refuse...) {
		if ns := obj.GetNamespace(); ns != "" && !namespaces[ns] {
			namespaces[ns] = true
			k.ok(t, "create", "namespace", ns)
		}
	}
	for _, obj := range objects {
		key := fmt.Sprintf("%s %s/%s", obj.GetAPIVersion(), obj.GetKind(), obj.GetName())
		ours, ok := resourceFor(dyn, mapper, obj)
		if !ok {
			continue
		}
		theirs, _ := resourceFor(crdDyn, mapper, obj)
		if _, err := theirs.Create(ctx, obj.DeepCopy(), metav1.CreateOptions{}); err != nil {
			t.Errorf("%s: kube-apiserver refuses it: %v", key, err)
			continue
		}
		if _, err := ours.Create(ctx, obj.DeepCopy(), metav1.CreateOptions{}); err != nil {
			t.Errorf("%s: the server refuses it: %v", key, err)
			theirs.Delete(ctx, obj.GetName(), metav1.DeleteOptions{})
			continue
		}
		same := true
		gvk := obj.GroupVersionKind()
		for _, gv := range slices.Sorted(maps.Keys(served)) {
			group, _, _ := strings.Cut(gv, "/")
			if group != gvk.Group {
				continue
			}
			as := obj.DeepCopy()
			as.SetAPIVersion(gv)
			ours, ok := resourceFor(dyn, mapper, as)
			if !ok {
				continue
			}
			theirs, _ := resourceFor(crdDyn, mapper, as)
			a, err1 := theirs.Get(ctx, obj.GetName(), metav1.GetOptions{})
			b, err2 := ours.Get(ctx, obj.GetName(), metav1.GetOptions{})
			if err1 != nil || err2 != nil {
				t.Errorf("%s as %s: kube-apiserver: %v; the server: %v", key, gv, err1, err2)
				same = false
				continue
			}
			if path := sentDiff(a, b); path != "" {
				t.Errorf("%s as %s: the server lacks or differs from kube-apiserver's at %s", key, gv, path)
				same = false
			}
			if path := sentDiff(b, a); path != "" {
				t.Errorf("%s as %s: kube-apiserver lacks or differs from the server's at %s", key, gv, path)
				same = false
			}
		}
		if same {
			alike++
		}
		ours.Delete(ctx, obj.GetName(), metav1.DeleteOptions{})
		theirs.Delete(ctx, obj.GetName(), metav1.DeleteOptions{})
	}
	for _, obj := range refuse {
		key := fmt.Sprintf("%s %s/%s", obj.GetAPIVersion(), obj.GetKind(), obj.GetName())
		ours, ok := resourceFor(dyn, mapper, obj)
		if !ok {
			t.Errorf("%s: its kind is not served", key)
			continue
		}
		theirs, _ := resourceFor(crdDyn, mapper, obj)
		_, err1 := theirs.Create(ctx, obj.DeepCopy(), metav1.CreateOptions{})
		_, err2 := ours.Create(ctx, obj.DeepCopy(), metav1.CreateOptions{})
		if err1 == nil {
			theirs.Delete(ctx, obj.GetName(), metav1.DeleteOptions{})
		}
		if err2 == nil {
			ours.Delete(ctx, obj.GetName(), metav1.DeleteOptions{})
		}
		if !apierrors.IsInvalid(err1) || !apierrors.IsInvalid(err2) {
			t.Errorf("%s: want both refused as invalid; kube-apiserver with the CRDs: %v; the server: %v", key, err1, err2)
			continue
		}
		if a, b := invalidFields(err1), invalidFields(err2); !slices.Equal(a, b) {
			t.Errorf("%s: kube-apiserver with the CRDs refuses fields %v, the server %v (%v; %v)", key, a, b, err1, err2)
			continue
		}
		t.Logf("%s: refused alike by kube-apiserver with the CRDs and by the server: %s", key, firstLine(err2.Error()))
		refusedAlike++
	}
	return alike, refusedAlike
}

// invalidFields are the fields an Invalid error's causes name, sorted and without repeats.
func invalidFields(err error) []string {
	var fields []string
	if s, ok := err.(apierrors.APIStatus); ok && s.Status().Details != nil {
		for _, c := range s.Status().Details.Causes {
			fields = append(fields, c.Field)
		}
	}
	slices.Sort(fields)
	return slices.Compact(fields)
}

// copyRewritten copies the Go files of from (tests left out) to to, rewriting the paths of the
// module's copied packages (modPath/<from>) to their copies.
func copyRewritten(t *testing.T, from, to, modPath string, copies []matrixCopy) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(from, "*.go"))
	sort.Strings(files)
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src := readFile(t, f)
		// The longest directory first: a module's root package is a prefix of the others.
		byLength := slices.Clone(copies)
		sort.SliceStable(byLength, func(i, j int) bool { return len(byLength[i].from) > len(byLength[j].from) })
		for _, c := range byLength {
			// In imports and in tags that name a package (+k8s:conversion-gen=<peer>,
			// +default=ref(<package>.<constant>)).
			src = strings.ReplaceAll(src, strings.TrimSuffix(modPath+"/"+c.from, "/"), matrixRepo+"/"+c.to)
		}
		writeFile(t, filepath.Join(to, filepath.Base(f)), src)
		n++
	}
	if n == 0 {
		t.Fatalf("no Go files in %s", from)
	}
}

// globAll expands globs relative to dir, sorted.
func globAll(t *testing.T, dir string, globs []string) []string {
	t.Helper()
	var out []string
	for _, g := range globs {
		m, err := filepath.Glob(filepath.Join(dir, g))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m...)
	}
	sort.Strings(out)
	return out
}

// yamlObjects are the objects of a multi-document YAML file (empty documents and lists of
// nothing left out).
func yamlObjects(content string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, doc := range strings.Split(content, "\n---") {
		var obj map[string]any
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil || obj == nil || obj["kind"] == nil {
			continue
		}
		out = append(out, &unstructured.Unstructured{Object: obj})
	}
	return out
}

// resourceFor is the served resource of obj's kind, or ok false when the server serves none.
func resourceFor(dyn dynamic.Interface, mapper meta.RESTMapper, obj *unstructured.Unstructured) (dynamic.ResourceInterface, bool) {
	gvk := obj.GroupVersionKind()
	m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return nil, false
	}
	if m.Scope.Name() == meta.RESTScopeNameRoot {
		return dyn.Resource(m.Resource), true
	}
	if obj.GetNamespace() == "" {
		obj.SetNamespace("default")
	}
	return dyn.Resource(m.Resource).Namespace(obj.GetNamespace()), true
}

// roundTrip creates obj, reads it back, and reads it in every other version of served (the
// set's group-versions) that serves its kind, then deletes it. ok says the server serves its
// kind; others is the number of other versions it was read back equal in; what says what went
// wrong ("" for nothing): the create refused, or a field the sample sets read back otherwise.
//
// Read in another version of a CRD that converts with strategy None (none holds its
// structural schema by "group/version/Kind"), the object must be what kube-apiserver would
// serve: the object sent, with that apiVersion, pruned by that version's schema. Of one a
// webhook converts (none holds nil), a read in another version must succeed (the kind's own
// conversion, which may rename fields, gives it); reading it back in its own version checks it.
func roundTrip(dyn dynamic.Interface, mapper meta.RESTMapper, obj *unstructured.Unstructured, served map[string]int, none map[string]*structuralschema.Structural) (ok bool, others int, what string) {
	ri, ok := resourceFor(dyn, mapper, obj)
	if !ok {
		return false, 0, ""
	}
	ctx := context.Background()
	sent := obj.DeepCopy()
	created, err := ri.Create(ctx, obj, metav1.CreateOptions{})
	if err != nil {
		return true, 0, "create refused: " + firstLine(err.Error())
	}
	defer ri.Delete(ctx, created.GetName(), metav1.DeleteOptions{}) // generateName: the name given
	got, err := ri.Get(ctx, created.GetName(), metav1.GetOptions{})
	if err != nil {
		return true, 0, "get: " + err.Error()
	}
	if path := sentDiff(sent, got); path != "" {
		return true, 0, "read back differs at " + path
	}
	gvk := sent.GroupVersionKind()
	for _, gv := range slices.Sorted(maps.Keys(served)) {
		group, version, _ := strings.Cut(gv, "/")
		if group != gvk.Group || version == gvk.Version {
			continue
		}
		as := created.DeepCopy()
		as.SetAPIVersion(gv)
		ri, ok := resourceFor(dyn, mapper, as)
		if !ok {
			continue // the kind is not served in that version
		}
		got, err := ri.Get(ctx, created.GetName(), metav1.GetOptions{})
		if err != nil {
			return true, others, "get as " + version + ": " + err.Error()
		}
		want := sent
		if schema, ok := none[gv+"/"+gvk.Kind]; ok && schema == nil {
			others++ // a webhook converts it: its fields may be others there, under other names
			continue
		}
		if schema := none[gv+"/"+gvk.Kind]; schema != nil {
			want = sent.DeepCopy()
			want.SetAPIVersion(gv)
			pruning.Prune(want.Object, schema, true)
		}
		if path := sentDiff(want, got); path != "" {
			return true, others, "read back as " + version + " differs at " + path
		}
		others++
	}
	return true, others, ""
}

// sentDiff is the first path at which got lacks or differs from a field the sample sent sets
// (metadata and status left out), or "".
func sentDiff(sent, got *unstructured.Unstructured) string {
	for _, k := range slices.Sorted(maps.Keys(sent.Object)) {
		v := sent.Object[k]
		if k == "apiVersion" || k == "kind" || k == "metadata" || k == "status" || isEmptyValue(v) {
			continue // an empty spec (jobset's sample: "spec:" and a TODO) reads back as {}
		}
		if path := subsetDiff(normalized(v), normalized(got.Object[k]), k); path != "" {
			return path
		}
	}
	return ""
}

// refused creates obj and says, when the server accepts it, that it did (and deletes it).
func refused(dyn dynamic.Interface, mapper meta.RESTMapper, obj *unstructured.Unstructured) (ok bool, what string) {
	ri, ok := resourceFor(dyn, mapper, obj)
	if !ok {
		return false, ""
	}
	ctx := context.Background()
	_, err := ri.Create(ctx, obj, metav1.CreateOptions{})
	switch {
	case err == nil:
		ri.Delete(ctx, obj.GetName(), metav1.DeleteOptions{})
		return true, "accepted; its CRD refuses it"
	case !apierrors.IsInvalid(err) && !apierrors.IsBadRequest(err):
		return true, "refused for another reason than validation: " + firstLine(err.Error())
	}
	return true, ""
}

// normalized is v as JSON decodes it (numbers as float64).
func normalized(v any) any {
	data, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(data, &out)
	return out
}

// subsetDiff is the first path at which have lacks or differs from a value want sets ("" when
// none). Quantities that are equal compare equal ("1000m" and "1"), and so do durations ("1m"
// and "1m0s").
func subsetDiff(want, have any, path string) string {
	switch w := want.(type) {
	case map[string]any:
		h, _ := have.(map[string]any)
		for _, k := range slices.Sorted(maps.Keys(w)) {
			if isEmptyValue(w[k]) {
				continue
			}
			if d := subsetDiff(w[k], h[k], path+"."+k); d != "" {
				return d
			}
		}
		return ""
	case []any:
		h, _ := have.([]any)
		if len(h) != len(w) {
			return fmt.Sprintf("%s (%d items sent, %d read)", path, len(w), len(h))
		}
		for i := range w {
			if d := subsetDiff(w[i], h[i], fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
		return ""
	}
	if fmt.Sprint(want) == fmt.Sprint(have) {
		return ""
	}
	if ws, ok := want.(string); ok {
		if hs, ok := have.(string); ok {
			wq, err1 := resource.ParseQuantity(ws)
			hq, err2 := resource.ParseQuantity(hs)
			if err1 == nil && err2 == nil && wq.Cmp(hq) == 0 {
				return ""
			}
			wd, err1 := time.ParseDuration(ws)
			hd, err2 := time.ParseDuration(hs)
			if err1 == nil && err2 == nil && wd == hd {
				return "" // metav1.Duration writes its own form: 1m reads back as 1m0s
			}
		}
	}
	return fmt.Sprintf("%s (sent %v, read %v)", path, want, have)
}

// strategyNoneSchemas are the structural schemas of the versions of the CRD in file, by
// "group/version/Kind", when it converts with strategy None (the default); when a webhook
// converts it, each version is there with a nil schema.
func strategyNoneSchemas(t *testing.T, file string) map[string]*structuralschema.Structural {
	t.Helper()
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal([]byte(readFile(t, file)), &crd); err != nil || crd.Spec.Group == "" {
		return nil
	}
	out := map[string]*structuralschema.Structural{}
	if c := crd.Spec.Conversion; c != nil && c.Strategy != apiextensionsv1.NoneConverter {
		for _, v := range crd.Spec.Versions {
			out[crd.Spec.Group+"/"+v.Name+"/"+crd.Spec.Names.Kind] = nil
		}
		return out
	}
	for _, v := range crd.Spec.Versions {
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			continue
		}
		var internal apiextensions.JSONSchemaProps
		if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v.Schema.OpenAPIV3Schema, &internal, nil); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		s, err := structuralschema.NewStructural(&internal)
		if err != nil {
			t.Fatalf("%s: %s's schema: %v", file, v.Name, err)
		}
		out[crd.Spec.Group+"/"+v.Name+"/"+crd.Spec.Names.Kind] = s
	}
	return out
}

// crdVersion is a version of a CustomResourceDefinition, as compareWithCRD reads it.
type crdVersion struct {
	Name         string `json:"name"`
	Served       bool   `json:"served"`
	Storage      bool   `json:"storage"`
	Subresources map[string]any
	Columns      []struct{ Name string } `json:"additionalPrinterColumns"`
	Schema       struct {
		OpenAPIV3Schema map[string]any `json:"openAPIV3Schema"`
	} `json:"schema"`
}

// compareWithCRD compares a shipped CRD's versions that the server serves with what it
// serves: discovery (kind, scope, status and scale subresources, short names, the storage
// version its storageVersionHash names), print columns
// and the schema (properties, required, enums). A version of the set's (served) that the CRD
// does not serve (one +kubebuilder:skipversion leaves out) must not serve the kind either.
func compareWithCRD(t *testing.T, cfg *rest.Config, file string, served map[string]int, report func(key, what string)) {
	t.Helper()
	var crd struct {
		Spec struct {
			Group string `json:"group"`
			Names struct {
				Plural, Kind string
				ShortNames   []string `json:"shortNames"`
			} `json:"names"`
			Scope    string       `json:"scope"`
			Versions []crdVersion `json:"versions"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal([]byte(readFile(t, file)), &crd); err != nil || crd.Spec.Group == "" {
		return // not a CRD (a kustomization)
	}
	for _, gv := range slices.Sorted(maps.Keys(served)) {
		group, version, _ := strings.Cut(gv, "/")
		if group != crd.Spec.Group || slices.ContainsFunc(crd.Spec.Versions, func(v crdVersion) bool { return v.Name == version && v.Served }) {
			continue
		}
		if _, ok := discoveryResources(t, cfg, gv)[crd.Spec.Names.Plural]; ok {
			report("discovery "+gv+" "+crd.Spec.Names.Plural, "the server serves it, the CRD does not")
		}
	}
	for _, v := range crd.Spec.Versions {
		gv := crd.Spec.Group + "/" + v.Name
		status, body, err := restGet(cfg, "/apis/"+gv)
		if err != nil || status != http.StatusOK {
			continue // a version the project does not serve
		}
		var list metav1.APIResourceList
		if err := json.Unmarshal([]byte(body), &list); err != nil {
			t.Fatal(err)
		}
		served := map[string]metav1.APIResource{}
		for _, r := range list.APIResources {
			served[r.Name] = r
		}
		r, ok := served[crd.Spec.Names.Plural]
		key := "discovery " + gv + " " + crd.Spec.Names.Plural
		if !ok {
			report(key, "the CRD serves it, the server does not")
			continue
		}
		if r.Kind != crd.Spec.Names.Kind {
			report(key+": kind", fmt.Sprintf("CRD %s, server %s", crd.Spec.Names.Kind, r.Kind))
		}
		if r.Namespaced != (crd.Spec.Scope == "Namespaced") {
			report(key+": scope", fmt.Sprintf("CRD %s, server namespaced=%v", crd.Spec.Scope, r.Namespaced))
		}
		for _, sub := range []string{"status", "scale"} {
			_, inCRD := v.Subresources[sub]
			_, inServer := served[crd.Spec.Names.Plural+"/"+sub]
			if inCRD != inServer {
				report(key+"/"+sub, fmt.Sprintf("CRD %v, server %v", inCRD, inServer))
			}
		}
		// Discovery's storageVersionHash names the version objects are stored in.
		for _, stored := range crd.Spec.Versions {
			if want := apidiscovery.StorageVersionHash(crd.Spec.Group, stored.Name, crd.Spec.Names.Kind); stored.Storage && r.StorageVersionHash != want {
				report(key+": storage version", fmt.Sprintf("CRD %s, server another (storageVersionHash %s, want %s)", stored.Name, r.StorageVersionHash, want))
			}
		}
		if a, b := slices.Sorted(slices.Values(crd.Spec.Names.ShortNames)), slices.Sorted(slices.Values(r.ShortNames)); !slices.Equal(a, b) {
			report(key+": shortNames", fmt.Sprintf("CRD %v, server %v", a, b))
		}
		var cols []string
		for _, c := range v.Columns {
			cols = append(cols, c.Name)
		}
		if len(cols) == 0 {
			cols = []string{"Age"} // kube-apiserver's default columns for a CRD: Name, Age
		}
		if have := tableColumns(t, cfg, gv, crd.Spec.Names.Plural, r.Namespaced); !slices.Equal(append([]string{"Name"}, cols...), have) {
			report(key+": print columns", fmt.Sprintf("CRD Name %v, server %v", cols, have))
		}
		servedSchema := servedOpenAPI(t, cfg, gv, crd.Spec.Names.Kind)
		if servedSchema == nil {
			report("schema "+gv+" "+crd.Spec.Names.Kind, "not in the served OpenAPI v3")
			continue
		}
		diffs := map[string][]string{}
		compareSchema(v.Schema.OpenAPIV3Schema, servedSchema.node, servedSchema, "", diffs)
		for _, what := range slices.Sorted(maps.Keys(diffs)) {
			paths := diffs[what]
			report("schema "+gv+" "+crd.Spec.Names.Kind+": "+what, fmt.Sprintf("%d: %s", len(paths), strings.Join(firstN(paths, 5), ", ")))
		}
	}
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return append(slices.Clone(s[:n]), "...")
	}
	return s
}

// tableColumns are the column names the server's Table of a resource has.
func tableColumns(t *testing.T, cfg *rest.Config, gv, plural string, namespaced bool) []string {
	t.Helper()
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	path := "/apis/" + gv + "/" + plural
	if namespaced {
		path = "/apis/" + gv + "/namespaces/default/" + plural
	}
	req, _ := http.NewRequest(http.MethodGet, strings.TrimSuffix(cfg.Host, "/")+path, nil)
	req.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	status, body, err := doRequest(hc, req)
	if err != nil || status != http.StatusOK {
		t.Fatalf("GET %s as Table: %d %v\n%.1000s", path, status, err, body)
	}
	var table metav1.Table
	if err := json.Unmarshal([]byte(body), &table); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range table.ColumnDefinitions {
		out = append(out, c.Name)
	}
	return out
}

// openAPIDoc is a served OpenAPI v3 document, and one schema node in it.
type openAPIDoc struct {
	schemas map[string]any
	node    map[string]any
}

// servedOpenAPI finds the schema of kind in the server's OpenAPI v3 document of gv.
func servedOpenAPI(t *testing.T, cfg *rest.Config, gv, kind string) *openAPIDoc {
	t.Helper()
	var doc struct {
		Components struct {
			Schemas map[string]any `json:"schemas"`
		} `json:"components"`
	}
	getJSON(t, cfg, "/openapi/v3/apis/"+gv, &doc)
	group, version, _ := strings.Cut(gv, "/")
	for _, s := range doc.Components.Schemas {
		m, _ := s.(map[string]any)
		gvks, _ := m["x-kubernetes-group-version-kind"].([]any)
		for _, g := range gvks {
			g, _ := g.(map[string]any)
			if g["group"] == group && g["version"] == version && g["kind"] == kind {
				return &openAPIDoc{schemas: doc.Components.Schemas, node: m}
			}
		}
	}
	return nil
}

// resolve follows a node's $ref (directly or through allOf, as openapi-gen writes a field of
// a named type).
func (d *openAPIDoc) resolve(node map[string]any) map[string]any {
	for range 10 {
		ref, _ := node["$ref"].(string)
		if all, ok := node["allOf"].([]any); ok && len(all) == 1 && ref == "" {
			inner, _ := all[0].(map[string]any)
			ref, _ = inner["$ref"].(string)
		}
		if ref == "" {
			return node
		}
		next, _ := d.schemas[strings.TrimPrefix(ref, "#/components/schemas/")].(map[string]any)
		if next == nil {
			return node
		}
		node = next
	}
	return node
}

// compareSchema adds to diffs, by what differs, the paths at which a CRD schema node and the
// served one differ: properties only one has, required fields, enum values. metadata is
// left out (a CRD's is a bare object).
func compareSchema(crd, served map[string]any, doc *openAPIDoc, path string, diffs map[string][]string) {
	served = doc.resolve(served)
	at := cmpOr(path, ".")
	if a, b := stringSet(crd["required"]), stringSet(served["required"]); !slices.Equal(a, b) {
		diffs["required differs"] = append(diffs["required differs"], fmt.Sprintf("%s (CRD %v, served %v)", at, a, b))
	}
	if a, b := stringSet(crd["enum"]), stringSet(served["enum"]); !slices.Equal(a, b) {
		switch {
		case len(b) == 0:
			diffs["enum only in the CRD"] = append(diffs["enum only in the CRD"], at)
		case len(a) == 0:
			diffs["enum only served"] = append(diffs["enum only served"], at)
		default:
			diffs["enum values differ"] = append(diffs["enum values differ"], fmt.Sprintf("%s (CRD %v, served %v)", at, a, b))
		}
	}
	cp, _ := crd["properties"].(map[string]any)
	sp, _ := served["properties"].(map[string]any)
	for name := range cp {
		if path == "" && name == "metadata" {
			continue
		}
		c, _ := cp[name].(map[string]any)
		s, ok := sp[name].(map[string]any)
		if !ok {
			diffs["properties only in the CRD"] = append(diffs["properties only in the CRD"], path+"."+name)
			continue
		}
		compareSchema(c, s, doc, path+"."+name, diffs)
	}
	for name := range sp {
		if _, ok := cp[name]; !ok && !(path == "" && (name == "metadata" || name == "apiVersion" || name == "kind")) {
			diffs["properties only served"] = append(diffs["properties only served"], path+"."+name)
		}
	}
	if c, ok := crd["items"].(map[string]any); ok {
		if s, ok := served["items"].(map[string]any); ok {
			compareSchema(c, s, doc, path+"[]", diffs)
		}
	}
	if c, ok := crd["additionalProperties"].(map[string]any); ok {
		if s, ok := served["additionalProperties"].(map[string]any); ok {
			compareSchema(c, s, doc, path+"{}", diffs)
		}
	}
	for _, l := range diffs {
		sort.Strings(l)
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// stringSet is a JSON list's values as sorted strings.
func stringSet(v any) []string {
	l, _ := v.([]any)
	var out []string
	for _, e := range l {
		out = append(out, fmt.Sprint(e))
	}
	sort.Strings(out)
	return out
}
