package apigen_test

import (
	"os/exec"
	"strings"
	"testing"
)

// make demo is a newcomer's first command: it builds kubectl only, never etcd (embedded in the
// server) or kube-apiserver (minutes on two cores).
func TestDemoBuildsOnlyKubectl(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	out, err := exec.Command("make", "-n", "demo").CombinedOutput()
	if err != nil {
		t.Fatalf("make -n demo: %v\n%s", err, out)
	}
	recipe := string(out)
	if !strings.Contains(recipe, "hack/tools/build.sh kubectl") || !strings.Contains(recipe, "hack/demo.sh") {
		t.Errorf("make demo should build kubectl and run hack/demo.sh:\n%s", recipe)
	}
	for _, tool := range []string{"build.sh etcd", "build.sh kube-apiserver"} {
		if strings.Contains(recipe, tool) {
			t.Errorf("make demo runs %q:\n%s", tool, recipe)
		}
	}
}
