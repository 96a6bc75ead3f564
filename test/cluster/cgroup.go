package cluster

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"
)

// ErrNoCgroup is what NewMemoryCgroup answers where no memory cgroup can be made: not root, or
// no writable cgroup v1 or v2 memory hierarchy.
var ErrNoCgroup = errors.New("cannot make a memory cgroup (needs root and a writable cgroup v1 or v2 memory hierarchy)")

// MemoryCgroup is a memory cgroup of its own, under cgroup v2 or v1, that limits what runs in
// it as a container's memory limit does.
type MemoryCgroup struct {
	Dir string
	v2  bool
}

// NewMemoryCgroup makes a memory cgroup called name limited to limit bytes. Where none can be
// made, the error wraps ErrNoCgroup.
func NewMemoryCgroup(name string, limit int64) (*MemoryCgroup, error) {
	var tried []string
	for _, c := range []MemoryCgroup{
		{Dir: filepath.Join("/sys/fs/cgroup", name), v2: true},
		{Dir: filepath.Join("/sys/fs/cgroup/unified", name), v2: true},
		{Dir: filepath.Join("/sys/fs/cgroup/memory", name)},
	} {
		if err := os.Mkdir(c.Dir, 0o755); err != nil {
			tried = append(tried, err.Error())
			continue
		}
		// A cgroup's directory comes with the kernel's files; a plain directory (the tmpfs
		// that holds the v1 hierarchies' mounts) does not.
		if _, err := os.Stat(filepath.Join(c.Dir, "cgroup.procs")); err != nil {
			tried = append(tried, c.Dir+" is not a cgroup")
			os.Remove(c.Dir)
			continue
		}
		limitFile := c.file("memory.max", "memory.limit_in_bytes")
		if err := os.WriteFile(limitFile, []byte(strconv.FormatInt(limit, 10)), 0o644); err != nil {
			// A v2 hierarchy without the memory controller delegated has no memory.max.
			tried = append(tried, err.Error())
			os.Remove(c.Dir)
			continue
		}
		return &c, nil
	}
	return nil, fmt.Errorf("%w: %s", ErrNoCgroup, strings.Join(tried, "; "))
}

// file is the path of the cgroup's file named v2 under cgroup v2, v1 under v1.
func (c *MemoryCgroup) file(v2, v1 string) string {
	if c.v2 {
		return filepath.Join(c.Dir, v2)
	}
	return filepath.Join(c.Dir, v1)
}

// Wrap writes, in dir, an executable that moves itself into the cgroup and then execs bin, so
// that bin is limited from its first allocation and keeps the process ID it was started with.
func (c *MemoryCgroup) Wrap(bin, dir string) (string, error) {
	script := filepath.Join(dir, "in-cgroup-"+filepath.Base(c.Dir))
	body := fmt.Sprintf("#!/bin/sh\necho $$ > %s/cgroup.procs || exit 1\nexec %s \"$@\"\n", c.Dir, bin)
	return script, os.WriteFile(script, []byte(body), 0o755)
}

// Remove removes the cgroup; whatever ran in it must have exited.
func (c *MemoryCgroup) Remove() error {
	if err := os.Remove(c.Dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// Current and Peak are the cgroup's memory now and at most since it was made, page cache
// included (-1 where unreadable).
func (c *MemoryCgroup) Current() int64 {
	return c.number(c.file("memory.current", "memory.usage_in_bytes"))
}

func (c *MemoryCgroup) Peak() int64 {
	return c.number(c.file("memory.peak", "memory.max_usage_in_bytes"))
}

func (c *MemoryCgroup) number(file string) int64 {
	data, err := os.ReadFile(file)
	if err != nil {
		return -1
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	if err != nil {
		return -1
	}
	return n
}

// Usage says the cgroup's memory now, how much of it is anonymous (the heap) and how much
// the page cache, which the kernel reclaims before it kills, and its peak.
func (c *MemoryCgroup) Usage() string {
	stat := c.keyed(filepath.Join(c.Dir, "memory.stat"))
	anon, file := stat["rss"], stat["cache"]
	if c.v2 {
		anon, file = stat["anon"], stat["file"]
	}
	return fmt.Sprintf("%d MiB now (%d MiB anonymous, %d MiB page cache), %d MiB at most",
		c.Current()>>20, anon>>20, file>>20, c.Peak()>>20)
}

// OOMKills is how many processes the kernel killed in the cgroup for lack of memory.
func (c *MemoryCgroup) OOMKills() (int, error) {
	file := c.file("memory.events", "memory.oom_control")
	if _, err := os.Stat(file); err != nil {
		return 0, err
	}
	return int(c.keyed(file)["oom_kill"]), nil
}

// keyed reads a cgroup file of "key value" lines.
func (c *MemoryCgroup) keyed(file string) map[string]int64 {
	data, _ := os.ReadFile(file)
	values := map[string]int64{}
	for _, line := range strings.Split(string(data), "\n") {
		var k string
		var v int64
		if _, err := fmt.Sscan(line, &k, &v); err == nil {
			values[k] = v
		}
	}
	return values
}

// DeploymentMemoryLimit reads the memory limit a Deployment's manifest file sets for its
// container named container, as the kubelet would make its cgroup.
func DeploymentMemoryLimit(manifest, container string) (resource.Quantity, error) {
	data, err := os.ReadFile(manifest)
	if err != nil {
		return resource.Quantity{}, err
	}
	var d appsv1.Deployment
	if err := yaml.UnmarshalStrict(data, &d); err != nil {
		return resource.Quantity{}, fmt.Errorf("%s: %w", manifest, err)
	}
	for _, c := range d.Spec.Template.Spec.Containers {
		if c.Name == container {
			return *c.Resources.Limits.Memory(), nil
		}
	}
	return resource.Quantity{}, fmt.Errorf("%s: no container %q", manifest, container)
}
