// Command loadparts is apigen's command with pieces of the load's speed machinery turned off,
// for hack/bench/loadparts.sh: APIGEN_LOAD_WITHOUT is a comma-separated list of seed, check
// and feed (loader.Without's fields), empty for none. Everything else is cmd/apigen's, the
// standard library's types from the go build cache included (APIGEN_STDCACHE=off turns that
// off).
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/apigen-dev/apigen/cmd/apigen/cli"
	"github.com/apigen-dev/apigen/generators/loader"
)

func main() {
	without, err := parseWithout(os.Getenv("APIGEN_LOAD_WITHOUT"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadparts:", err)
		os.Exit(2)
	}
	c := cli.Config{StdCache: loader.NewStdCache(loader.DefaultStdCacheDir()), Without: without}
	os.Exit(c.Main(os.Args[1:], os.Stdout, os.Stderr))
}

// parseWithout reads APIGEN_LOAD_WITHOUT's list.
func parseWithout(list string) (loader.Without, error) {
	var w loader.Without
	for _, name := range strings.Split(list, ",") {
		switch strings.TrimSpace(name) {
		case "":
		case "seed":
			w.Seed = true
		case "check":
			w.Check = true
		case "feed":
			w.Feed = true
		default:
			return w, fmt.Errorf("APIGEN_LOAD_WITHOUT: unknown piece %q (seed, check, feed)", name)
		}
	}
	return w, nil
}
