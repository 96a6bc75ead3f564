package scaffold

import (
	"strconv"
	"strings"
	"testing"

	"golang.org/x/mod/semver"
)

// TestCheckRequirements: a project whose go.mod requires an older minor version of a module
// the generated code imports fails at that line with the go get that fixes every such module;
// an older patch release warns with the same line; newer versions, unrelated modules and
// modules the project does not require are left to go build.
func TestCheckRequirements(t *testing.T) {
	minor, err := strconv.Atoi(strings.TrimPrefix(semver.MajorMinor(KubernetesVersion), "v0."))
	if err != nil {
		t.Fatal(err)
	}
	older := "v0." + strconv.Itoa(minor-1) + ".1" // v0.37.2 → v0.36.1
	gomod := `module example.com/proj

go 1.26

require (
	github.com/k3s-io/kine ` + KineVersion + `
	k8s.io/apimachinery ` + older + `
	k8s.io/apiserver ` + older + `
	k8s.io/client-go v0.99.0
	sigs.k8s.io/yaml v1.0.0
)

require k8s.io/api ` + olderPatch(t, KubernetesVersion) + ` // indirect
`
	errs, warnings := CheckRequirements("go.mod", []byte(gomod))
	fix := "go get k8s.io/api@" + KubernetesVersion + " k8s.io/apimachinery@" + KubernetesVersion + " k8s.io/apiserver@" + KubernetesVersion
	want := []string{
		"go.mod:7:2: requires k8s.io/apimachinery " + older + "; the generated code is built for " + KubernetesVersion + ": run " + fix,
		"go.mod:8:2: requires k8s.io/apiserver " + older + "; the generated code is built for " + KubernetesVersion + ": run " + fix,
	}
	if got := errs.Err(); got == nil || got.Error() != strings.Join(want, "\n") {
		t.Errorf("errors:\n%v\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	wantWarning := "go.mod:13:1: warning: requires k8s.io/api " + olderPatch(t, KubernetesVersion) + "; the generated code is tested with " + KubernetesVersion + ": run " + fix
	if got := warnings.Err(); got == nil || got.Error() != wantWarning {
		t.Errorf("warnings:\n%v\nwant:\n%s", got, wantWarning)
	}

	current := "module example.com/proj\n\nrequire k8s.io/apiserver " + KubernetesVersion + "\n"
	if errs, warnings := CheckRequirements("go.mod", []byte(current)); errs != nil || warnings != nil {
		t.Errorf("a go.mod at apigen's versions: %v %v", errs, warnings)
	}
}

// olderPatch is the patch release before v (which must not be a .0).
func olderPatch(t *testing.T, v string) string {
	t.Helper()
	i := strings.LastIndex(v, ".")
	patch, err := strconv.Atoi(v[i+1:])
	if err != nil || patch == 0 {
		t.Skipf("%s: no older patch release", v)
	}
	return v[:i+1] + strconv.Itoa(patch-1)
}

// TestDependenciesInModules: every package apigen init fetches is of a module CheckRequirements
// holds projects to, at the same version.
func TestDependenciesInModules(t *testing.T) {
	modules := Modules()
	for _, dep := range Dependencies() {
		pkg, version, _ := strings.Cut(dep, "@")
		found := false
		for path, v := range modules {
			if pkg == path || strings.HasPrefix(pkg, path+"/") {
				found = true
				if version != v {
					t.Errorf("apigen init fetches %s; CheckRequirements wants %s at %s", dep, path, v)
				}
			}
		}
		if !found {
			t.Errorf("apigen init fetches %s, of no module in Modules()", dep)
		}
	}
}
