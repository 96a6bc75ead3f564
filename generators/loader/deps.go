package loader

import (
	"errors"
	"fmt"
	"path/filepath"

	"golang.org/x/mod/modfile"
)

// ErrMissingDependencies is wrapped by Run's error when go.mod lacks the Kubernetes modules
// every apigen project loads (as after "apigen init --skip-deps"); the command line adds how
// to fetch them.
var ErrMissingDependencies = errors.New("go.mod lacks the Kubernetes dependencies")

// baseModule provides BasePackages; a project that does not require it cannot load at all.
const baseModule = "k8s.io/apimachinery"

// checkDependencies fails with ErrMissingDependencies when root's go.mod does not require
// baseModule, before go/packages would report it package by package.
func checkDependencies(root string, reads *Reads) error {
	name := filepath.Join(root, "go.mod")
	data, err := reads.ReadFile(name)
	if err != nil {
		return err
	}
	f, err := modfile.ParseLax(name, data, nil)
	if err != nil {
		return err
	}
	for _, r := range f.Require {
		if r.Mod.Path == baseModule {
			return nil
		}
	}
	return fmt.Errorf("%w: it does not require %s, which the API types and the generated server need", ErrMissingDependencies, baseModule)
}
