package e2e

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"
)

// memoryCgroup is a memory cgroup of its own, made for one test, under cgroup v2 or v1.
type memoryCgroup struct {
	dir string
	v2  bool
}

// newMemoryCgroup makes a memory cgroup limited to limit bytes, or skips the test where
// cgroups cannot be made (not root, or no writable memory hierarchy).
func newMemoryCgroup(t *testing.T, limit int64) *memoryCgroup {
	t.Helper()
	name := fmt.Sprintf("apigen-e2e-%d-%d", os.Getpid(), time.Now().UnixNano())
	var tried []string
	for _, c := range []memoryCgroup{
		{dir: filepath.Join("/sys/fs/cgroup", name), v2: true},
		{dir: filepath.Join("/sys/fs/cgroup/unified", name), v2: true},
		{dir: filepath.Join("/sys/fs/cgroup/memory", name)},
	} {
		limitFile := "memory.limit_in_bytes"
		if c.v2 {
			limitFile = "memory.max"
		}
		if err := os.Mkdir(c.dir, 0o755); err != nil {
			tried = append(tried, err.Error())
			continue
		}
		// A cgroup's directory comes with the kernel's files; a plain directory (the
		// tmpfs that holds the v1 hierarchies' mounts) does not.
		if _, err := os.Stat(filepath.Join(c.dir, "cgroup.procs")); err != nil {
			tried = append(tried, c.dir+" is not a cgroup")
			os.Remove(c.dir)
			continue
		}
		if err := os.WriteFile(filepath.Join(c.dir, limitFile), []byte(strconv.FormatInt(limit, 10)), 0o644); err != nil {
			// A v2 hierarchy without the memory controller delegated has no memory.max.
			tried = append(tried, err.Error())
			os.Remove(c.dir)
			continue
		}
		cg := c
		t.Cleanup(func() {
			// The processes in it have exited by now (their cleanups ran first).
			if err := os.Remove(cg.dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
				t.Logf("removing cgroup %s: %v", cg.dir, err)
			}
		})
		return &cg
	}
	t.Skipf("cannot make a memory cgroup (needs root and a writable cgroup v1 or v2 memory hierarchy): %s", strings.Join(tried, "; "))
	return nil
}

// wrap writes an executable that moves itself into the cgroup and then runs bin, so the
// server is limited from its first allocation.
func (c *memoryCgroup) wrap(t *testing.T, bin string) string {
	t.Helper()
	script := filepath.Join(t.TempDir(), "in-cgroup")
	writeFile(t, script, fmt.Sprintf("#!/bin/sh\necho $$ > %s/cgroup.procs || exit 1\nexec %s \"$@\"\n", c.dir, bin))
	if err := os.Chmod(script, 0o755); err != nil {
		t.Fatal(err)
	}
	return script
}

// deploymentMemoryLimit reads the server container's memory limit from examples/wardle's
// generated Deployment.
func deploymentMemoryLimit(t *testing.T, root string) resource.Quantity {
	t.Helper()
	var d appsv1.Deployment
	if err := yaml.Unmarshal([]byte(readFile(t, filepath.Join(root, "examples", "wardle", "config", "generated", "deployment.yaml"))), &d); err != nil {
		t.Fatal(err)
	}
	for _, c := range d.Spec.Template.Spec.Containers {
		if c.Name == "apiserver" {
			return *c.Resources.Limits.Memory()
		}
	}
	t.Fatal("examples/wardle's Deployment has no apiserver container")
	return resource.Quantity{}
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
