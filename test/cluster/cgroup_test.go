package cluster

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestMemoryCgroup: a program wrapped in a MemoryCgroup runs in it from its start, and one that
// needs more than the limit is killed by the kernel, which OOMKills counts.
func TestMemoryCgroup(t *testing.T) {
	cg, err := NewMemoryCgroup(fmt.Sprintf("apigen-cluster-test-%d-%d", os.Getpid(), time.Now().UnixNano()), 32<<20)
	if errors.Is(err, ErrNoCgroup) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cg.Remove(); err != nil {
			t.Error(err)
		}
	})
	sh, err := cg.Wrap("/bin/sh", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}

	out, err := exec.Command(sh, "-c", "cat /proc/self/cgroup").CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	name := cg.Dir[strings.LastIndex(cg.Dir, "/"):]
	if !strings.Contains(string(out), name+"\n") {
		t.Errorf("the wrapped program runs in\n%swant the cgroup %s", out, cg.Dir)
	}
	if kills, err := cg.OOMKills(); err != nil || kills != 0 {
		t.Errorf("OOMKills before any kill: %d, %v", kills, err)
	}

	// 64 MB in one shell variable, in a cgroup of 32 MiB.
	out, runErr := exec.Command(sh, "-c", `x=$(head -c 64000000 /dev/zero | tr '\0' a); echo ${#x}`).CombinedOutput()
	if runErr == nil {
		t.Fatalf("64 MB held in a cgroup of 32 MiB: %s", out)
	}
	if kills, err := cg.OOMKills(); err != nil || kills == 0 {
		t.Errorf("OOMKills after the program ended with %v: %d, %v", runErr, kills, err)
	}
	if peak := cg.Peak(); peak < 16<<20 || peak > 32<<20 {
		t.Errorf("Peak: %d bytes; want near the 32 MiB limit", peak)
	}
	t.Log(cg.Usage())
}
