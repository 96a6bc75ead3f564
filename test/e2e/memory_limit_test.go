package e2e

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/apigen-dev/apigen/test/cluster"
)

// memoryCgroup is a memory cgroup of its own, made for one test and removed after it.
type memoryCgroup struct{ *cluster.MemoryCgroup }

// newMemoryCgroup makes a memory cgroup limited to limit bytes, or skips the test where
// cgroups cannot be made (not root, or no writable memory hierarchy).
func newMemoryCgroup(t *testing.T, limit int64) memoryCgroup {
	t.Helper()
	cg, err := cluster.NewMemoryCgroup(fmt.Sprintf("apigen-e2e-%d-%d", os.Getpid(), time.Now().UnixNano()), limit)
	if errors.Is(err, cluster.ErrNoCgroup) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	// The processes in it have exited by now (their cleanups ran first).
	t.Cleanup(func() {
		if err := cg.Remove(); err != nil {
			t.Logf("removing cgroup %s: %v", cg.Dir, err)
		}
	})
	return memoryCgroup{cg}
}

// wrap is an executable that moves itself into the cgroup and then runs bin, so the server is
// limited from its first allocation.
func (c memoryCgroup) wrap(t *testing.T, bin string) string {
	t.Helper()
	script, err := c.Wrap(bin, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return script
}

// oomKills is how many processes the kernel killed in the cgroup for lack of memory.
func (c memoryCgroup) oomKills(t *testing.T) int {
	t.Helper()
	n, err := c.OOMKills()
	if err != nil {
		t.Logf("reading the cgroup's OOM kills: %v", err)
	}
	return n
}

// deploymentMemoryLimit reads the server container's memory limit from examples/wardle's
// generated Deployment.
func deploymentMemoryLimit(t *testing.T, root string) resource.Quantity {
	t.Helper()
	limit, err := cluster.DeploymentMemoryLimit(filepath.Join(root, "examples", "wardle", "config", "generated", "deployment.yaml"), "apiserver")
	if err != nil {
		t.Fatal(err)
	}
	return limit
}

// TestMemoryLimit: run in a memory cgroup as its generated Deployment's limit makes one,
// examples/wardle's server gives the Go runtime 90% of the limit as its soft limit (logged at
// start), so that near the limit the garbage collector runs instead of the heap growing to
// twice its live size.
func TestMemoryLimit(t *testing.T) {
	bin := loadServerBin(t)
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	limit := deploymentMemoryLimit(t, root)
	if limit.IsZero() {
		t.Fatal("examples/wardle's Deployment sets no memory limit for the server")
	}

	t.Run("the Go runtime's soft limit follows the cgroup's", func(t *testing.T) {
		cg := newMemoryCgroup(t, limit.Value())
		work := t.TempDir()
		log := filepath.Join(work, "server.log")
		s := startServer(t, cg.wrap(t, bin), work, freePort(t), filepath.Join(work, "data"), filepath.Join(work, "kubeconfig"), log)
		m := regexp.MustCompile(`soft memory limit set from the cgroup's.*cgroupLimitBytes=(\d+) softLimitBytes=(\d+)`).FindStringSubmatch(readFile(t, log))
		if m == nil {
			t.Fatalf("the server's log does not say it set the Go runtime's soft memory limit:\n%s", s.proc.Describe())
		}
		want := int64(float64(limit.Value()) * 0.9)
		if m[1] != strconv.FormatInt(limit.Value(), 10) || m[2] != strconv.FormatInt(want, 10) {
			t.Errorf("cgroup limit %s and soft limit %s logged; want %d (the Deployment's %s) and %d", m[1], m[2], limit.Value(), limit.String(), want)
		}
	})

}
