package apigen_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/apigen-dev/apigen/generators/loader"
)

// stdCache is the std cache of this package's runs (see TestMain).
var stdCache *loader.StdCache

// TestMain gives the runs of this package's tests a std cache of their own (loader.StdCache),
// as apigen keeps one in the user cache directory: the loads read the standard library from
// the go build cache's export data, as apigen's do. The user's cache is never written.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "apigen-stdcache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	stdCache = &loader.StdCache{Dir: dir, Identity: "apigen's root tests"}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
