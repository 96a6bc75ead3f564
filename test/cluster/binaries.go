package cluster

import (
	"fmt"
	"os/exec"
	"path/filepath"
)

// Binaries are the control plane's programs.
type Binaries struct {
	Etcd, KubeAPIServer, KubeControllerManager string
	// ClusterRoleAggregator is kube-controller-manager's ClusterRole aggregation controller
	// (hack/tools/clusterrole-aggregator): what gives the built-in admin, edit and view roles
	// the rules of the ClusterRoles labelled to aggregate into them.
	ClusterRoleAggregator string
}

// Build runs hack/tools/build.sh for etcd, kube-apiserver, kube-controller-manager and the
// ClusterRole aggregation controller in the repository at root: seconds when bin/ is current,
// about ten minutes for a cold kube-apiserver (the controllers then reuse most of its compiled
// packages: their modules have its pins).
func Build(root string) (Binaries, error) {
	bin := func(tool string) string { return filepath.Join(root, "bin", tool) }
	b := Binaries{Etcd: bin("etcd"), KubeAPIServer: bin("kube-apiserver"), KubeControllerManager: bin("kube-controller-manager"),
		ClusterRoleAggregator: bin("clusterrole-aggregator")}
	for _, tool := range []string{"etcd", "kube-apiserver", "kube-controller-manager", "clusterrole-aggregator"} {
		cmd := exec.Command(filepath.Join(root, "hack", "tools", "build.sh"), tool)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			return b, fmt.Errorf("hack/tools/build.sh %s: %v\n%s", tool, err, out)
		}
	}
	return b, nil
}
