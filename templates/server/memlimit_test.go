package server

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCgroupMemoryLimit(t *testing.T) {
	write := func(t *testing.T, path, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name      string
		self      string
		files     map[string]string
		want      int64
		wantError bool
	}{{
		name:  "v2 in a cgroup namespace",
		self:  "0::/\n",
		files: map[string]string{"memory.max": "2147483648\n"},
		want:  2 << 30,
	}, {
		name:  "v2 without a limit",
		self:  "0::/\n",
		files: map[string]string{"memory.max": "max\n"},
		want:  0,
	}, {
		name:  "v2, the process's cgroup under the mount",
		self:  "0::/kubepods/pod1/c1\n",
		files: map[string]string{"kubepods/pod1/c1/memory.max": "536870912\n"},
		want:  512 << 20,
	}, {
		name:  "v2, a host path with the container's cgroup mounted at the root",
		self:  "0::/kubepods/pod1/c1\n",
		files: map[string]string{"memory.max": "1073741824\n"},
		want:  1 << 30,
	}, {
		name: "v1 beside an empty v2 (hybrid)",
		self: "4:memory:/process/c1\n1:cpu,cpuacct:/\n0::/\n",
		files: map[string]string{
			"memory/process/c1/memory.limit_in_bytes": "3221225472\n",
			"unified/cgroup.procs":                    "",
		},
		want: 3 << 30,
	}, {
		name:  "v1 without a limit",
		self:  "9:memory:/\n",
		files: map[string]string{"memory/memory.limit_in_bytes": "9223372036854771712\n"},
		want:  0,
	}, {
		name:      "no memory cgroup",
		self:      "1:cpu:/\n",
		wantError: true,
	}, {
		name:      "garbage in the limit",
		self:      "0::/\n",
		files:     map[string]string{"memory.max": "lots\n"},
		wantError: true,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			root := filepath.Join(dir, "cgroup")
			self := filepath.Join(dir, "self")
			write(t, self, tc.self)
			for rel, content := range tc.files {
				write(t, filepath.Join(root, rel), content)
			}
			got, err := cgroupMemoryLimit(self, root)
			if (err != nil) != tc.wantError {
				t.Fatalf("error: %v, want an error: %v", err, tc.wantError)
			}
			if got != tc.want {
				t.Errorf("limit: got %d, want %d", got, tc.want)
			}
		})
	}
}
