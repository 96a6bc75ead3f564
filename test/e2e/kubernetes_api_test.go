package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apidiscovery "k8s.io/apiserver/pkg/endpoints/discovery"
	"k8s.io/client-go/rest"

	"github.com/apigen-dev/apigen/test/cluster"
	"github.com/apigen-dev/apigen/test/kapi"
)

// The compatibility matrix's first set: every group of k8s.io/api except the legacy core
// group, at the version kube-apiserver prefers, copied unchanged (but for the storage versions
// kube-apiserver chooses, marked) into one project, generated once, built once and served by
// one server, whose discovery is compared with a real kube-apiserver's.

// The project itself (the groups and versions copied, the older versions left out and why, and
// the copying) is package kapi's, which hack/bench/kapi.sh times too.

// discoveryDifferences are the differences between kube-apiserver's discovery and the
// generated server's for the same group-versions, keyed "group/version resource[: field]",
// each with its reason. Short names and categories are not compared at all: they live in
// kube-apiserver's registry (pkg/registry/.../storage), not in the types. The test fails on a
// difference missing here and on an entry here that no longer differs.
var discoveryDifferences = map[string]string{
	"events.k8s.io/v1 events: storage version": "kube-apiserver stores events.k8s.io's Events with the core group's, in its v1 " +
		"(AddCohabitatingResources in k8s.io/kubernetes pkg/kubeapiserver/default_storage_factory_builder.go); the project leaves the " +
		"core group out, so its events.k8s.io/v1 stores them itself",
	"certificates.k8s.io/v1 certificatesigningrequests/approval": "kube-apiserver's hand-written storage (pkg/registry/certificates: csrApprovalStrategy " +
		"keeps all but status.conditions, stamps their times and validates them with ValidateCertificateSigningRequestApprovalUpdate); " +
		"the type only names it in +genclient:method=UpdateApproval, which carries none of that, and apigen warns there that it is not served",
}

// openAPIDifferences are the models of k8s.io/api whose served OpenAPI v3 schema differs from
// kube-apiserver's for the same group-version (descriptions aside), keyed "group/version model",
// each with its reason. Every other model of the group-versions both serve is the same.
var openAPIDifferences = map[string]string{
	"apps/v1 io.k8s.api.core.v1.PersistentVolumeClaim": "kube-apiserver serves core/v1 PersistentVolumeClaims, so its model says so " +
		"(x-kubernetes-group-version-kind); the project leaves the core group out, and StatefulSet's volumeClaimTemplates only use the type",
	"networking.k8s.io/v1 io.k8s.api.networking.v1.IngressPortStatus": "k8s.io/api puts kubebuilder markers on its error field " +
		"(Required, Pattern, MaxLength) for the CRDs that embed the type; kube-apiserver reads no kubebuilder marker, the generated server " +
		"reads them as a CRD does, publishes and enforces them",
}

// kubernetesAPINotServedByKubeAPIServer are the group-versions the project serves and
// kube-apiserver v1.37 does not, even with every API enabled.
var kubernetesAPINotServedByKubeAPIServer = map[string]string{
	"extensions/v1beta1": "kube-apiserver stopped serving extensions/v1beta1 in v1.22; k8s.io/api still ships the types",
}

// kubeAPIServerFlags enable every API in kube-apiserver, and the feature gates that API
// groups of k8s.io/api need besides (lifecycle.k8s.io, alpha since v1.37).
var kubeAPIServerFlags = []string{"--runtime-config=api/all=true", "--feature-gates=EvictionRequestAPI=true"}

// kubernetesAPINotServed are the groups of k8s.io/api the project serves no version of, and why.
var kubernetesAPINotServed = map[string]string{
	"admission":    "AdmissionReview has no +genclient: a webhook's request and response body, not a resource (kube-apiserver does not serve it either)",
	"apidiscovery": "no +genclient: the aggregated discovery documents, not a resource (kube-apiserver does not serve it either)",
	"imagepolicy":  "ImageReview has +genclient:noVerbs: a webhook's body, not a resource (kube-apiserver does not serve it either)",
}

// TestKubernetesAPIGroups copies every k8s.io/api group but core into one project with nothing
// added but the storage versions kube-apiserver chooses (kapi.StorageVersions), generates it
// (timing apigen generate and its peak memory), builds and serves it, and compares its
// discovery with kube-apiserver v1.37's for the same group-versions: resources, kinds, scope,
// verbs, subresources and the version each resource is stored in. It creates and reads a few
// simple kinds with kubectl.
func TestKubernetesAPIGroups(t *testing.T) {
	tc := tools(t)
	bins, err := controlPlane()
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	proj := initProject(t, tc, work, "example.com/kapi")
	r := mustSucceed(t, runCmd(cmdOpts{Dir: proj, Env: goEnv}, "go", "list", "-m", "-json", "k8s.io/api"))
	var api struct{ Dir, Version string }
	if err := json.Unmarshal([]byte(r.Stdout), &api); err != nil || api.Dir == "" {
		t.Fatalf("go list -m k8s.io/api: %v\n%s", err, r)
	}
	if api.Version != kapi.Version {
		t.Fatalf("the project requires k8s.io/api %s, the matrix is for %s", api.Version, kapi.Version)
	}

	// Every group directory of k8s.io/api (one with versions that register types) is in the
	// table: a new group fails here.
	entries, _ := os.ReadDir(api.Dir)
	var dirs, listed []string
	for _, e := range entries {
		registers, _ := filepath.Glob(filepath.Join(api.Dir, e.Name(), "*", "register.go"))
		if e.IsDir() && e.Name() != "core" && len(registers) > 0 {
			dirs = append(dirs, e.Name())
		}
	}
	for _, g := range kapi.Groups {
		listed = append(listed, g.Dir)
	}
	if !slices.Equal(dirs, listed) {
		t.Fatalf("k8s.io/api %s has the groups %v; the table lists %v", api.Version, dirs, listed)
	}
	files, copied, err := kapi.Copy(api.Dir, proj)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("copied %d files of %d k8s.io/api %s packages", files, copied, api.Version)

	gen := generateMeasured(t, tc, proj)
	t.Logf("apigen generate: exit 0 in %s wall, %s CPU, peak RSS %d MiB; %d warning lines",
		gen.wall.Round(10*time.Millisecond), gen.cpu.Round(10*time.Millisecond), gen.maxRSS>>20, strings.Count(gen.stderr, "warning:"))

	// kube-apiserver, every API enabled (kubeAPIServerFlags), for what it serves at the same
	// group-versions.
	start := time.Now()
	etcd, err := cluster.StartEtcd(bins.Etcd, filepath.Join(work, "etcd"), 1)
	if err != nil {
		t.Fatal(err)
	}
	kas, err := cluster.StartKubeAPIServer(bins.KubeAPIServer, filepath.Join(work, "kube-apiserver"), etcd, kubeAPIServerFlags...)
	if err != nil {
		etcd.Stop()
		t.Fatal(err)
	}
	kasConfig, err := kas.AdminConfig()
	if err != nil {
		t.Fatal(err)
	}
	kasScale := deploymentScale(t, kasConfig)
	kasGroups := discoveryGroups(t, kasConfig)
	kasResources := map[string]map[string]metav1.APIResource{}
	kasOpenAPI := map[string]openAPIComponents{}
	for _, g := range kapi.Groups {
		for _, group := range kasGroups {
			for _, v := range group.Versions {
				if groupDir(group.Name) == g.Dir && (v.Version == g.Version || slices.Contains(kapi.Older[g.Dir], v.Version)) {
					kasResources[v.GroupVersion] = discoveryResources(t, kasConfig, v.GroupVersion)
					var doc openAPIComponents
					getJSON(t, kasConfig, "/openapi/v3/apis/"+v.GroupVersion, &doc)
					kasOpenAPI[v.GroupVersion] = doc
				}
			}
		}
	}
	checkOlderVersions(t, api.Dir, kasGroups)
	fixtures := kubernetesFixtures(t, api.Dir, kasResources)
	kasFixtures := createFixtures(t, kasConfig, fixtures, kasResources)
	kasConversions := conversionReads(t, kasConfig, "kube-apiserver")
	kas.Stop()
	etcd.Stop()
	t.Logf("kube-apiserver's discovery read in %s", time.Since(start).Round(time.Millisecond))

	k, stop := serve(t, tc, proj, work)
	defer stop()
	cfg := restConfig(t, k.kubeconfig)
	ours := discoveryGroups(t, cfg)

	// apps/v1's /scale (+genclient:method=GetScale,...,result=k8s.io/api/autoscaling/v1.Scale)
	// behaves as kube-apiserver's.
	if ourScale := deploymentScale(t, cfg); !slices.Equal(ourScale, kasScale) {
		t.Errorf("deployments/scale behaves unlike kube-apiserver's:\n--- kube-apiserver ---\n%s\n--- generated server ---\n%s",
			strings.Join(kasScale, "\n"), strings.Join(ourScale, "\n"))
	} else {
		t.Logf("deployments/scale behaves as kube-apiserver's:\n%s", strings.Join(ourScale, "\n"))
	}

	// Every group with a resource is served, at the version copied, which is kube-apiserver's
	// preferred version wherever kube-apiserver serves the group.
	served := map[string]metav1.APIGroup{}
	for _, group := range ours {
		served[groupDir(group.Name)] = group
	}
	for _, g := range kapi.Groups {
		group, ok := served[g.Dir]
		why, notServed := kubernetesAPINotServed[g.Dir]
		switch {
		case notServed && ok:
			t.Errorf("group %s is served now (%v); remove it from kubernetesAPINotServed (%s)", group.Name, group.Versions, why)
		case notServed:
		case !ok:
			t.Errorf("group %s (k8s.io/api/%s/%s) is not served", g.Dir, g.Dir, g.Version)
		case group.PreferredVersion.Version != g.Version || !slices.Equal(versionNames(group.Versions), append([]string{g.Version}, kapi.Older[g.Dir]...)):
			t.Errorf("group %s serves %v (preferring %s), want %s and then %v", group.Name, versionNames(group.Versions), group.PreferredVersion.Version, g.Version, kapi.Older[g.Dir])
		}
		kasServes := false
		for _, kg := range kasGroups {
			if groupDir(kg.Name) != g.Dir {
				continue
			}
			kasServes = true
			if kg.PreferredVersion.Version != g.Version {
				t.Errorf("kube-apiserver prefers %s for %s; the table copies %s", kg.PreferredVersion.GroupVersion, kg.Name, g.Version)
			}
		}
		if notServed && strings.Contains(why, "kube-apiserver does not serve it") && kasServes {
			t.Errorf("kube-apiserver serves group %s, which kubernetesAPINotServed says it does not (%s)", g.Dir, why)
		}
	}

	// Each served group-version's resources, compared with kube-apiserver's.
	seen := map[string]bool{}
	ourResources := map[string]map[string]metav1.APIResource{}
	kinds, compared := 0, 0
	for _, group := range ours {
		for _, version := range group.Versions {
			gv := version.GroupVersion
			have := discoveryResources(t, cfg, gv)
			for name := range have {
				if !strings.Contains(name, "/") {
					kinds++
				}
			}
			want, kasServes := kasResources[gv]
			if !kasServes {
				seen[gv] = true
				if why, ok := kubernetesAPINotServedByKubeAPIServer[gv]; !ok {
					t.Errorf("kube-apiserver does not serve %s, which the generated server serves (%s); list it in kubernetesAPINotServedByKubeAPIServer with the reason", gv, strings.Join(slices.Sorted(maps.Keys(have)), ", "))
				} else {
					t.Logf("%s: served here, not by kube-apiserver (%s)", gv, why)
				}
				continue
			}
			compared++
			ourResources[gv] = have
			var doc openAPIComponents
			getJSON(t, cfg, "/openapi/v3/apis/"+gv, &doc)
			for _, d := range compareOpenAPIModels(kasOpenAPI[gv], doc, "io.k8s.api.") {
				model, _, _ := strings.Cut(d, ":")
				key := gv + " " + model
				seen[key] = true
				if why, ok := openAPIDifferences[key]; ok {
					t.Logf("known difference in the served OpenAPI %s (%s)", key, why)
				} else {
					t.Errorf("the served OpenAPI v3 of %s differs from kube-apiserver's, descriptions aside: %s", gv, d)
				}
			}
			for _, diff := range compareDiscovery(gv, want, have) {
				seen[diff.key] = true
				if why, ok := discoveryDifferences[diff.key]; ok {
					t.Logf("known difference %s: %s (%s)", diff.key, diff.what, why)
				} else if at := retiredAt(group, version, diff, have, kasResources); at != "" {
					t.Logf("known difference %s: %s (kube-apiserver serves it at %s only; k8s.io/api's %s still declares it)", diff.key, diff.what, at, version.Version)
				} else {
					t.Errorf("discovery differs from kube-apiserver's: %s: %s", diff.key, diff.what)
				}
			}
		}
	}
	t.Logf("the generated server serves %d resources in %d groups; %d group-versions compared with kube-apiserver", kinds, len(ours), compared)

	// k8s.io/api's own fixtures, every field set, created in both servers.
	accepted, kasOnly := compareFixtures(t, kasFixtures, createFixtures(t, cfg, fixtures, ourResources))
	t.Logf("k8s.io/api's fixtures: %d created, %d accepted by the generated server (%d of them refused by kube-apiserver's hand-written validation only)", len(fixtures), accepted, kasOnly)

	// The older versions whose conversions k8s.io/kubernetes writes by hand read alike, through
	// the project's (kapi.Conversions), in every version.
	if n := compareConversionReads(t, kasConversions, conversionReads(t, cfg, "the generated server")); n != len(kasConversions) || n == 0 {
		t.Errorf("%d of %d reads of the objects of hand-written conversions alike", n, len(kasConversions))
	}

	// The compatibility matrix's row (docs/reference/compatibility.md) says these figures.
	readme := readFile(t, filepath.Join(tc.root, "docs", "reference", "compatibility.md"))
	for _, claim := range []string{
		fmt.Sprintf("k8s.io/api's own fixtures of the %d kinds", len(fixtures)),
		fmt.Sprintf("the %d it accepts read back as sent", accepted),
		fmt.Sprintf("%d of them kube-apiserver refuses", kasOnly),
		fmt.Sprintf("(%d packages, one project, one server)", copied),
		fmt.Sprintf("serves %d groups", len(ours)),
		fmt.Sprintf("for the %d group-versions kube-apiserver", compared),
	} {
		if !strings.Contains(readme, claim) {
			t.Errorf("docs/reference/compatibility.md's compatibility matrix should say %q", claim)
		}
	}
	for key, why := range discoveryDifferences {
		if !seen[key] {
			t.Errorf("%s is listed as a difference (%s) but no longer differs; remove it", key, why)
		}
	}
	for key, why := range openAPIDifferences {
		if !seen[key] {
			t.Errorf("%s is listed as an OpenAPI difference (%s) but no longer differs; remove it", key, why)
		}
	}
	for gv := range kubernetesAPINotServedByKubeAPIServer {
		if !seen[gv] {
			t.Errorf("%s is listed as not served by kube-apiserver but is compared; remove it", gv)
		}
	}

	// The create-only reviews of authentication.k8s.io and authorization.k8s.io have no list
	// type and +genclient:onlyVerbs=create: they are served by storage the project writes,
	// which kube-apiserver answers from its authenticator and authorizer. Here that storage is
	// the stub apigen scaffolds, and a create reaches it: 405 Method Not Allowed, as
	// kube-apiserver answers a method a resource does not support, saying where to write it.
	for _, review := range []struct{ plural, file, yaml string }{
		{"tokenreviews", "pkg/registry/authentication/tokenreview/storage.go", `apiVersion: authentication.k8s.io/v1
kind: TokenReview
spec: {token: abc}
`},
		{"selfsubjectreviews", "pkg/registry/authentication/selfsubjectreview/storage.go", `apiVersion: authentication.k8s.io/v1
kind: SelfSubjectReview
`},
		{"localsubjectaccessreviews", "pkg/registry/authorization/localsubjectaccessreview/storage.go", `apiVersion: authorization.k8s.io/v1
kind: LocalSubjectAccessReview
metadata: {namespace: default}
spec: {user: alice, resourceAttributes: {namespace: default, verb: get, resource: pods}}
`},
	} {
		r := k.fails(t, review.yaml, "create", "-f", "-")
		want := "create of " + review.plural + " is not implemented yet: write it in " + review.file
		if !strings.Contains(r.Stderr, "(MethodNotAllowed)") || !strings.Contains(r.Stderr, want) {
			t.Errorf("creating a %s should reach the scaffolded storage, which answers a 405 Method Not Allowed %q:\n%s", review.plural, want, r)
		}
	}

	// A few simple kinds of non-core groups, created and read back with kubectl.
	for _, obj := range []struct{ resource, name, namespace, yaml, field, want string }{
		{"leases", "leader", "default", `apiVersion: coordination.k8s.io/v1
kind: Lease
metadata: {name: leader, namespace: default}
spec: {holderIdentity: node-a, leaseDurationSeconds: 15}
`, "spec.holderIdentity", "node-a"},
		{"priorityclasses", "high", "", `apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000000
description: for the matrix
`, "description", "for the matrix"},
		{"runtimeclasses", "gvisor", "", `apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: gvisor}
handler: runsc
`, "handler", "runsc"},
	} {
		k.okStdin(t, obj.yaml, "create", "-f", "-")
		args := []string{obj.resource, obj.name}
		if obj.namespace != "" {
			args = append(args, "-n", obj.namespace)
		}
		if got := field(k.get(t, args...).Object, obj.field); got != obj.want {
			t.Errorf("%s %s: %s read back %v, want %q", obj.resource, obj.name, obj.field, got, obj.want)
		}
	}

	// Every kind, in every served version, filled at random and written through the REST API:
	// nothing the Go type holds is dropped (the project's own TestRESTRoundTrip).
	t.Run("every field of every kind is kept through the REST API", func(t *testing.T) {
		restRoundTrip(t, proj, "TestRESTRoundTrip", "", nil)
	})

	// In a cluster: kube-controller-manager deletes a namespace of every namespaced kind the
	// generated server serves for kube-apiserver.
	t.Run("a namespace of every kind is deleted by kube-controller-manager", func(t *testing.T) {
		checkKubernetesAPINamespaceDeletion(t, tc, bins, proj, filepath.Join(work, "apiserver"), api.Dir)
	})
}

// measured is one run of apigen generate: its stderr, wall and CPU time and peak RSS.
type measured struct {
	stderr    string
	wall, cpu time.Duration
	maxRSS    int64 // bytes
}

// generateMeasured runs apigen generate in proj, fails the test unless it exits 0, and
// returns its cost as the kernel accounted it.
func generateMeasured(t *testing.T, tc *toolchain, proj string) measured {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, tc.apigen, "generate")
	cmd.Dir = proj
	cmd.Env = append(os.Environ(), goEnv...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	m := measured{stderr: stderr.String(), wall: time.Since(start)}
	if err != nil {
		t.Fatalf("apigen generate: %v\n--- stdout ---\n%s--- stderr ---\n%s", err, stdout.String(), m.stderr)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		m.maxRSS = ru.Maxrss << 10 // kilobytes on Linux
		m.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	if testing.Verbose() {
		t.Logf("apigen generate's warnings:\n%s", m.stderr)
	} else {
		t.Logf("apigen generate printed %d lines on stderr (go test -v shows them)", strings.Count(m.stderr, "\n"))
	}
	return m
}

// checkOlderVersions holds the tables of older versions to what k8s.io/api ships and
// kube-apiserver serves: every older version kube-apiserver serves is copied
// (kapi.Older) or says why not (kapi.HandWritten), and neither table names a
// version kube-apiserver does not serve or k8s.io/api does not ship. A version k8s.io/api
// gains, or kube-apiserver starts or stops serving, fails here.
func checkOlderVersions(t *testing.T, apiDir string, kasGroups []metav1.APIGroup) {
	t.Helper()
	kasServes := map[string]bool{}
	for _, group := range kasGroups {
		for _, v := range group.Versions {
			kasServes[groupDir(group.Name)+"/"+v.Version] = true
		}
	}
	listed := map[string]bool{}
	for dir, versions := range kapi.Older {
		for _, v := range versions {
			listed[dir+"/"+v] = true
		}
	}
	for dirVersion := range kapi.HandWritten {
		listed[dirVersion] = true
	}
	for _, g := range kapi.Groups {
		registers, _ := filepath.Glob(filepath.Join(apiDir, g.Dir, "*", "register.go"))
		for _, r := range registers {
			dirVersion := g.Dir + "/" + filepath.Base(filepath.Dir(r))
			if filepath.Base(filepath.Dir(r)) == g.Version {
				continue
			}
			switch {
			case kasServes[dirVersion] && !listed[dirVersion]:
				t.Errorf("kube-apiserver serves k8s.io/api's %s, which is neither copied (kapi.Older) nor listed in kapi.HandWritten", dirVersion)
			case !kasServes[dirVersion] && listed[dirVersion]:
				t.Errorf("kube-apiserver does not serve k8s.io/api's %s; remove it from kapi.Older or kapi.HandWritten", dirVersion)
			}
			delete(listed, dirVersion)
		}
	}
	for dirVersion := range listed {
		t.Errorf("k8s.io/api has no package %s; remove it from kapi.Older or kapi.HandWritten", dirVersion)
	}
	for dirVersion, why := range kapi.HandWritten {
		t.Logf("not copied: %s, whose conversions are written by hand upstream: %s", dirVersion, why)
	}
}

// retiredAt says where kube-apiserver serves a resource that the generated server serves at an
// older version of the group and kube-apiserver does not: a kind kube-apiserver stopped serving
// at that version, which k8s.io/api's package still declares (coordination/v1beta1's Lease).
// It is "" for any other difference.
func retiredAt(group metav1.APIGroup, version metav1.GroupVersionForDiscovery, diff discoveryDiff, have map[string]metav1.APIResource, kasResources map[string]map[string]metav1.APIResource) string {
	name, ok := strings.CutPrefix(diff.key, version.GroupVersion+" ")
	if !ok || version.Version == group.PreferredVersion.Version {
		return ""
	}
	if _, served := have[name]; !served {
		return ""
	}
	if _, kasServes := kasResources[version.GroupVersion][name]; kasServes {
		return ""
	}
	for _, other := range group.Versions {
		if r, ok := kasResources[other.GroupVersion][name]; ok && other != version && r.Kind == have[name].Kind {
			return other.GroupVersion
		}
	}
	return ""
}

func versionNames(versions []metav1.GroupVersionForDiscovery) []string {
	var out []string
	for _, v := range versions {
		out = append(out, v.Version)
	}
	return out
}

// groupDir is the k8s.io/api directory of a group: its first label, but for the groups whose
// directory is named otherwise.
func groupDir(group string) string {
	switch group {
	case "internal.apiserver.k8s.io":
		return "apiserverinternal"
	case "flowcontrol.apiserver.k8s.io":
		return "flowcontrol"
	case "rbac.authorization.k8s.io":
		return "rbac"
	}
	first, _, _ := strings.Cut(group, ".")
	return first
}

// discoveryGroups reads /apis.
func discoveryGroups(t *testing.T, cfg *rest.Config) []metav1.APIGroup {
	t.Helper()
	var list metav1.APIGroupList
	getJSON(t, cfg, "/apis", &list)
	return list.Groups
}

// discoveryResources reads /apis/<group-version>, by resource name ("deployments/status").
func discoveryResources(t *testing.T, cfg *rest.Config, gv string) map[string]metav1.APIResource {
	t.Helper()
	var list metav1.APIResourceList
	getJSON(t, cfg, "/apis/"+gv, &list)
	out := map[string]metav1.APIResource{}
	for _, r := range list.APIResources {
		out[r.Name] = r
	}
	return out
}

func getJSON(t *testing.T, cfg *rest.Config, path string, into any) {
	t.Helper()
	status, body, err := restGet(cfg, path)
	if err != nil || status != 200 {
		t.Fatalf("GET %s %s: %d %v\n%.2000s", cfg.Host, path, status, err, body)
	}
	if err := json.Unmarshal([]byte(body), into); err != nil {
		t.Fatalf("GET %s: %v\n%.2000s", path, err, body)
	}
}

// discoveryDiff is one difference between two servers' discovery of a group-version.
type discoveryDiff struct{ key, what string }

// storedIn is the version of group whose storageVersionHash of kind is hash (or the core
// group's, where kube-apiserver stores a resource of another group with the core one's), or the
// hash itself when no version k8s.io/api names its versions with is.
func storedIn(group, kind, hash string) string {
	if hash == "" {
		return "none (no storageVersionHash)"
	}
	for _, g := range []string{group, ""} {
		for _, v := range []string{"v2", "v1", "v1beta3", "v1beta2", "v1beta1", "v1alpha3", "v1alpha2", "v1alpha1"} {
			if apidiscovery.StorageVersionHash(g, v, kind) == hash {
				if g == "" {
					return "the core group's " + v
				}
				return v
			}
		}
	}
	return "the version of storageVersionHash " + hash
}

// compareDiscovery lists how have (the generated server's resources) differs from want
// (kube-apiserver's): a resource or subresource only one serves, and for those both serve,
// the kind (with its group and version), the scope, the storage version and the verbs.
func compareDiscovery(gv string, want, have map[string]metav1.APIResource) []discoveryDiff {
	var out []discoveryDiff
	names := map[string]bool{}
	for n := range want {
		names[n] = true
	}
	for n := range have {
		names[n] = true
	}
	for _, name := range slices.Sorted(maps.Keys(names)) {
		key := gv + " " + name
		w, inWant := want[name]
		h, inHave := have[name]
		switch {
		case !inHave:
			out = append(out, discoveryDiff{key, fmt.Sprintf("kube-apiserver serves it (%s, verbs %v), the generated server does not", w.Kind, w.Verbs)})
			continue
		case !inWant:
			out = append(out, discoveryDiff{key, fmt.Sprintf("the generated server serves it (%s, verbs %v), kube-apiserver does not", h.Kind, h.Verbs)})
			continue
		}
		if w.Kind != h.Kind {
			out = append(out, discoveryDiff{key + ": kind", fmt.Sprintf("kube-apiserver %s, generated server %s", w.Kind, h.Kind)})
		}
		// A subresource of another group's kind (a Scale is autoscaling/v1's) says so.
		if w.Group != h.Group || w.Version != h.Version {
			out = append(out, discoveryDiff{key + ": group/version", fmt.Sprintf("kube-apiserver %q/%q, generated server %q/%q", w.Group, w.Version, h.Group, h.Version)})
		}
		if w.Namespaced != h.Namespaced {
			out = append(out, discoveryDiff{key + ": namespaced", fmt.Sprintf("kube-apiserver %v, generated server %v", w.Namespaced, h.Namespaced)})
		}
		// storageVersionHash names the version objects are stored in (kapi.StorageVersions
		// marks those kube-apiserver stores in another than the most preferred).
		if w.StorageVersionHash != h.StorageVersionHash {
			group, _, _ := strings.Cut(gv, "/")
			out = append(out, discoveryDiff{key + ": storage version", fmt.Sprintf("kube-apiserver stores it in %s, the generated server in %s",
				storedIn(group, w.Kind, w.StorageVersionHash), storedIn(group, h.Kind, h.StorageVersionHash))})
		}
		wv, hv := slices.Clone([]string(w.Verbs)), slices.Clone([]string(h.Verbs))
		sort.Strings(wv)
		sort.Strings(hv)
		if !slices.Equal(wv, hv) {
			out = append(out, discoveryDiff{key + ": verbs", fmt.Sprintf("kube-apiserver %v, generated server %v", wv, hv)})
		}
	}
	return out
}
