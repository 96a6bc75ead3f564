package cluster

import (
	"fmt"
	"os/exec"
	"path/filepath"
)

// Binaries are the control plane's programs.
type Binaries struct {
	Etcd, KubeAPIServer string
}

// Build runs hack/tools/build.sh for etcd and kube-apiserver in the
// repository at root: seconds when bin/ is current, about ten minutes for a
// cold kube-apiserver.
func Build(root string) (Binaries, error) {
	b := Binaries{Etcd: filepath.Join(root, "bin", "etcd"), KubeAPIServer: filepath.Join(root, "bin", "kube-apiserver")}
	for _, tool := range []string{"etcd", "kube-apiserver"} {
		cmd := exec.Command(filepath.Join(root, "hack", "tools", "build.sh"), tool)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			return b, fmt.Errorf("hack/tools/build.sh %s: %v\n%s", tool, err, out)
		}
	}
	return b, nil
}
