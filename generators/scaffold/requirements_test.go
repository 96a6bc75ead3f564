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

// TestDependenciesInModules: every package apigen init fetches, and that SQL storage adds, is
// of a module CheckRequirements holds projects to, at the same version.
func TestDependenciesInModules(t *testing.T) {
	modules := Modules()
	for _, dep := range append(Dependencies(), SQLDependencies()...) {
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

// TestCheckSQLRequirement: a project that links SQL storage (+apigen:sql) and whose go.mod does
// not require kine fails at its module line with the go get that adds kine's drivers; one that
// requires kine (at any version: an older one is TestCheckRequirements') passes.
func TestCheckSQLRequirement(t *testing.T) {
	without := "// The project.\nmodule example.com/proj\n\nrequire k8s.io/apiserver " + KubernetesVersion + "\n"
	want := "go.mod:2:1: requires no github.com/k3s-io/kine, and +apigen:sql=true links SQL storage through it: run go get " +
		"github.com/k3s-io/kine/pkg/drivers/mysql@" + KineVersion + " github.com/k3s-io/kine/pkg/drivers/pgsql@" + KineVersion +
		" github.com/k3s-io/kine/pkg/drivers/sqlite@" + KineVersion
	if got := CheckSQLRequirement("go.mod", []byte(without)).Err(); got == nil || got.Error() != want {
		t.Errorf("go.mod without kine:\n%v\nwant:\n%s", got, want)
	}
	with := without + "require github.com/k3s-io/kine v0.16.0 // indirect\n"
	if errs := CheckSQLRequirement("go.mod", []byte(with)); errs != nil {
		t.Errorf("go.mod with kine: %v", errs)
	}
}
