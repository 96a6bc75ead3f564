// Package kapi is the largest real project apigen is tested and measured on: every group of
// k8s.io/api except the legacy core group, at the version kube-apiserver prefers and the older
// versions whose conversions conversion-gen writes whole, copied unchanged into one project (but
// for the storage versions kube-apiserver chooses, marked as a user marks them: StorageVersions).
// TestKubernetesAPIGroups (test/e2e) generates, builds and serves it and compares it with a
// real kube-apiserver; hack/bench/kapi.sh times its generation. Both build it with Copy from
// these tables, so the test and the benchmark are the same project.
//
// It is a library rather than functions of a test file so that hack/bench can use the same
// project as test/e2e (as test/cluster is for the control plane); its functions return errors.
package kapi

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Version is the k8s.io/api release the project is pinned to (apigen init's).
const Version = "v0.37.2"

// Group is a group directory of k8s.io/api and the version copied from it.
type Group struct{ Dir, Version string }

// Groups is each group directory of k8s.io/api (core left out) with the version copied:
// kube-apiserver's preferred version (TestKubernetesAPIGroups checks it against
// kube-apiserver's discovery), or for a group kube-apiserver does not serve, its highest version.
var Groups = []Group{
	{"admission", "v1"}, // webhook request/response bodies: no resource
	{"admissionregistration", "v1"},
	{"apidiscovery", "v2"}, // discovery documents: no resource
	{"apiserverinternal", "v1alpha1"},
	{"apps", "v1"},
	{"authentication", "v1"},
	{"authorization", "v1"},
	{"autoscaling", "v2"},
	{"batch", "v1"},
	{"certificates", "v1"},
	{"coordination", "v1"},
	{"discovery", "v1"},
	{"events", "v1"},
	{"extensions", "v1beta1"}, // no longer served by kube-apiserver
	{"flowcontrol", "v1"},
	{"imagepolicy", "v1alpha1"}, // a webhook body: no served resource
	{"lifecycle", "v1alpha1"},
	{"networking", "v1"},
	{"node", "v1"},
	{"policy", "v1"},
	{"rbac", "v1"},
	{"resource", "v1"},
	{"scheduling", "v1"},
	{"storage", "v1"},
	{"storagemigration", "v1"},
}

// Older are the older versions copied beside a group's preferred one: each version
// kube-apiserver v1.37 still serves (every API enabled) whose conversions to and from the
// preferred version conversion-gen writes whole, or writes with the functions of Conversions
// (certificates/v1beta1, resource/v1beta1). Each kind is stored in the most preferred version
// that declares it, or the version StorageVersions names.
var Older = map[string][]string{
	"admissionregistration": {"v1beta1", "v1alpha1"},
	"certificates":          {"v1beta1"},
	"coordination":          {"v1beta1", "v1alpha2"},
	"resource":              {"v1beta2", "v1beta1", "v1alpha3"},
	"storagemigration":      {"v1beta1"},
}

// StorageVersions are the kinds kube-apiserver v1.37 stores in a version other than the most
// preferred one that declares them (its ResourceEncodingOverrides, k8s.io/kubernetes
// pkg/kubeapiserver/default_storage_factory_builder.go), by "<group dir>/<Kind>": Copy marks
// each +apigen:storageversion in that version, as a user marks a storage version, so that the
// project stores (and converts through) the version kube-apiserver does.
// TestKubernetesAPIGroups compares every resource's storageVersionHash with kube-apiserver's.
var StorageVersions = map[string]string{
	"certificates/ClusterTrustBundle":          "v1beta1",
	"certificates/PodCertificateRequest":       "v1beta1",
	"resource/DeviceTaintRule":                 "v1beta2",
	"storagemigration/StorageVersionMigration": "v1beta1",
}

// HandWritten are the older versions kube-apiserver v1.37 serves that are not copied, and
// why: their conversions to the preferred version need functions that k8s.io/kubernetes
// writes by hand (through its internal types, which k8s.io/api does not ship), more than
// Conversions holds; apigen generate names each one, with conversion-gen's reason.
// autoscaling/v1's are TestKubernetesAutoscalingV1's.
var HandWritten = map[string]string{
	"autoscaling/v1": "HorizontalPodAutoscaler's CPU utilization fields against v2's metrics (TargetCPUUtilizationPercentage, Metrics, Behavior, ...)",
}

// Generated reports whether a file of k8s.io/api's packages is one its generators write (or
// no Go source at all), which the project's own generation replaces.
func Generated(name string) bool {
	return strings.HasPrefix(name, "zz_generated") || name == "generated.pb.go" || name == "generated.proto" ||
		strings.HasSuffix(name, "_swagger_doc_generated.go") || strings.HasSuffix(name, "_test.go") || !strings.HasSuffix(name, ".go")
}

// Copy copies into the project at proj, under pkg/apis/<group>/<version>, the files of each
// group's preferred and older versions from apiDir (k8s.io/api's directory in the module
// cache), leaving out the files Generated names and marking the kinds of StorageVersions, and
// writes the Conversions of the older versions beside them. It returns how many files (Conversions' included) and packages it
// copied.
func Copy(apiDir, proj string) (files, packages int, err error) {
	module, err := modulePath(proj)
	if err != nil {
		return 0, 0, err
	}
	storageMarks := 0
	defer func() {
		if err == nil && storageMarks != len(StorageVersions) {
			err = fmt.Errorf("marked %d kinds of StorageVersions, want all %d: a kind is not declared where the table says", storageMarks, len(StorageVersions))
		}
	}()
	for _, g := range Groups {
		for _, version := range append([]string{g.Version}, Older[g.Dir]...) {
			src := filepath.Join(apiDir, g.Dir, version)
			names, err := os.ReadDir(src)
			if err != nil {
				return files, packages, err
			}
			dst := filepath.Join(proj, "pkg", "apis", g.Dir, version)
			for _, n := range names {
				if n.IsDir() || Generated(n.Name()) {
					continue
				}
				data, err := os.ReadFile(filepath.Join(src, n.Name()))
				if err != nil {
					return files, packages, err
				}
				data, marked := markStorageVersions(data, g.Dir, version)
				storageMarks += marked
				if err := os.MkdirAll(dst, 0o755); err != nil {
					return files, packages, err
				}
				if err := os.WriteFile(filepath.Join(dst, n.Name()), data, 0o644); err != nil {
					return files, packages, fmt.Errorf("copying k8s.io/api's %s/%s: %w", g.Dir, version, err)
				}
				files++
			}
			if conv, ok := Conversions[g.Dir+"/"+version]; ok {
				if err := os.WriteFile(filepath.Join(dst, "conversion.go"), []byte(fmt.Sprintf(conv, module)), 0o644); err != nil {
					return files, packages, err
				}
				files++
			}
			packages++
		}
	}
	return files, packages, nil
}

// markStorageVersions adds +apigen:storageversion to the doc comment of each kind of
// StorageVersions that data, a file of k8s.io/api's <dir>/<version>, declares, and returns how
// many it marked.
func markStorageVersions(data []byte, dir, version string) ([]byte, int) {
	marked := 0
	for key, v := range StorageVersions {
		kindDir, kind, _ := strings.Cut(key, "/")
		decl := "\ntype " + kind + " struct {"
		if kindDir != dir || v != version || !strings.Contains(string(data), decl) {
			continue
		}
		data = []byte(strings.Replace(string(data), decl, "\n// +apigen:storageversion"+decl, 1))
		marked++
	}
	return data, marked
}

// modulePath is the module path go.mod in dir declares.
func modulePath(dir string) (string, error) {
	data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`), nil
		}
	}
	return "", fmt.Errorf("%s: no module directive", filepath.Join(dir, "go.mod"))
}
