package server

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"

	"k8s.io/klog/v2"
)

// memoryLimitShare is the part of the container's memory limit given to the Go runtime as
// its soft limit: the rest is for what the runtime does not count against it (goroutine
// stacks are counted, but not memory mapped by cgo or the kernel's buffers) and for the
// overshoot between two collections.
const memoryLimitShare = 0.9

// setMemoryLimit gives the Go runtime a soft memory limit of memoryLimitShare of the memory
// limit of the cgroup the process runs in (a container's limit), unless GOMEMLIMIT is set or
// there is no limit. Near the limit the garbage collector then runs as often as it must,
// instead of the heap growing to twice its live size (GOGC's default) and the kernel killing
// the process. It returns the limit set, or 0.
func setMemoryLimit() int64 {
	if os.Getenv("GOMEMLIMIT") != "" {
		return 0
	}
	limit, err := cgroupMemoryLimit("/proc/self/cgroup", "/sys/fs/cgroup")
	if err != nil {
		klog.V(2).InfoS("No memory limit for the Go runtime", "reason", err)
		return 0
	}
	if limit <= 0 {
		return 0
	}
	soft := int64(float64(limit) * memoryLimitShare)
	debug.SetMemoryLimit(soft)
	klog.InfoS("Go runtime's soft memory limit set from the cgroup's", "cgroupLimitBytes", limit, "softLimitBytes", soft)
	return soft
}

// cgroupMemoryLimit reads the memory limit of the process's cgroup: memory.max under cgroup
// v2, memory.limit_in_bytes under v1, under the hierarchy mounted at root. It answers 0 for
// no limit ("max", or v1's page-rounded maximum).
func cgroupMemoryLimit(selfCgroup, root string) (int64, error) {
	f, err := os.Open(selfCgroup)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	v1, v2, err := cgroupPaths(f)
	if err != nil {
		return 0, err
	}
	// The process's cgroup under the hierarchy's mount, then the mount's own: a container
	// without a cgroup namespace sees its host path in /proc/self/cgroup, with its own cgroup
	// mounted at root.
	var candidates []string
	if v2 != "" {
		candidates = append(candidates,
			filepath.Join(root, v2, "memory.max"), filepath.Join(root, "memory.max"),
			filepath.Join(root, "unified", v2, "memory.max"))
	}
	if v1 != "" {
		candidates = append(candidates,
			filepath.Join(root, "memory", v1, "memory.limit_in_bytes"),
			filepath.Join(root, "memory", "memory.limit_in_bytes"))
	}
	for _, path := range candidates {
		limit, err := readLimit(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		return limit, err
	}
	return 0, fmt.Errorf("%s names no memory cgroup with a limit file under %s", selfCgroup, root)
}

// cgroupPaths returns the process's memory cgroup under v1 and its cgroup under v2, from
// /proc/self/cgroup's lines ("4:memory:/path" and "0::/path").
func cgroupPaths(r io.Reader) (v1, v2 string, err error) {
	s := bufio.NewScanner(r)
	for s.Scan() {
		parts := strings.SplitN(s.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "":
			v2 = parts[2]
		case hasController(parts[1], "memory"):
			v1 = parts[2]
		}
	}
	return v1, v2, s.Err()
}

func hasController(list, name string) bool {
	for _, c := range strings.Split(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}

// readLimit reads a cgroup memory limit file: a byte count, or "max" for none.
func readLimit(path string) (int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	text := strings.TrimSpace(string(data))
	if text == "max" {
		return 0, nil
	}
	n, err := strconv.ParseUint(text, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	// cgroup v1 says "no limit" with the largest page-aligned int64.
	if n >= math.MaxInt64/2 {
		return 0, nil
	}
	return int64(n), nil
}
