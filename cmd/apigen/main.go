// Command apigen generates a Kubernetes aggregated API server from annotated Go types.
package main

import (
	"os"

	"github.com/apigen-dev/apigen/cmd/apigen/cli"
	"github.com/apigen-dev/apigen/generators/loader"
)

func main() {
	// The standard library's types come from the go build cache's export data, with the
	// loader's notes in the user cache directory (loader.StdCache); set here, not in cli, so
	// that tests running the command in process never write there.
	c := cli.Config{StdCache: loader.NewStdCache(loader.DefaultStdCacheDir())}
	os.Exit(c.Main(os.Args[1:], os.Stdout, os.Stderr))
}
