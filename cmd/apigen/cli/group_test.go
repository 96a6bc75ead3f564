package cli

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestGroupFromRegistration serves a Kubernetes-style package that names its group only in Go,
// as k8s.io/api's apps, batch, autoscaling and policy do since v0.37: k8s.io/api's
// coordination/v1 with its +groupName removed. The group comes from its const GroupName, and
// the same package with the constant replaced by a SchemeGroupVersion literal gets it from
// there.
func TestGroupFromRegistration(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a whole project")
	}
	apiDir := k8sAPIDir(t)
	src := filepath.Join(apiDir, "coordination", "v1")
	doc, register, types := readTestFile(t, filepath.Join(src, "doc.go")), readTestFile(t, filepath.Join(src, "register.go")), readTestFile(t, filepath.Join(src, "types.go"))
	const tag, decl = "// +groupName=coordination.k8s.io\n", "\n// Lease defines a lease concept.\ntype Lease struct"
	const constant, literal = `const GroupName = "coordination.k8s.io"`, `schema.GroupVersion{Group: GroupName, Version: "v1"}`
	for _, want := range []string{tag, decl, constant, literal} {
		if !strings.Contains(doc+register+types, want) {
			t.Fatalf("k8s.io/api's coordination/v1 no longer has %q", want)
		}
	}
	doc = strings.Replace(doc, tag, "", 1)
	types = strings.Replace(types, decl, "\n// +apigen:resource:path=leases"+decl, 1)

	for _, c := range []struct {
		name, register, wantPos string
	}{
		{"const GroupName", register, "pkg/apis/coordination/v1/register.go:26:7"},
		{"SchemeGroupVersion", strings.Replace(strings.Replace(register, constant, `const GroupName = "unused"`, 1),
			literal, `schema.GroupVersion{Group: "coordination.k8s.io", Version: "v1"}`, 1), "pkg/apis/coordination/v1/register.go:27:53"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.name != "const GroupName" {
				// No constant at all: the literal is all there is.
				c.register = strings.Replace(c.register, "\n// GroupName is the group name use in this package\n"+`const GroupName = "unused"`, "", 1)
			}
			moduleCopy(t, map[string]string{
				"pkg/apis/coordination/v1/doc.go":      doc,
				"pkg/apis/coordination/v1/register.go": c.register,
				"pkg/apis/coordination/v1/types.go":    types,
			})
			code, out, errOut := run("generate", "--dump-model")
			if code != 0 {
				t.Fatalf("generate --dump-model: exit %d\n%s", code, errOut)
			}
			var p struct {
				Groups []struct {
					Name string
					Pos  struct {
						Filename     string
						Line, Column int
					}
				}
			}
			if err := json.Unmarshal([]byte(out), &p); err != nil || len(p.Groups) != 1 {
				t.Fatalf("model: %v\n%s", err, out)
			}
			g := p.Groups[0]
			if pos := g.Pos.Filename + ":" + strconv.Itoa(g.Pos.Line) + ":" + strconv.Itoa(g.Pos.Column); g.Name != "coordination.k8s.io" || pos != c.wantPos {
				t.Errorf("group %q at %s, want coordination.k8s.io at %s", g.Name, pos, c.wantPos)
			}
			if code, _, errOut := run("generate"); code != 0 {
				t.Errorf("generate: exit %d\n%s", code, errOut)
			}
		})
	}
}

// k8sAPIDir is where k8s.io/api, at the version examples/wardle requires, is in the module
// cache: the tests copy its packages unchanged, as a user would.
func k8sAPIDir(t *testing.T) string {
	t.Helper()
	cmd := exec.Command("go", "list", "-m", "-json", "k8s.io/api")
	cmd.Dir = "../../../examples/wardle"
	out, err := cmd.Output()
	var api struct{ Dir string }
	if err != nil || json.Unmarshal(out, &api) != nil || api.Dir == "" {
		t.Fatalf("go list -m k8s.io/api: %v\n%s", err, out)
	}
	return api.Dir
}
