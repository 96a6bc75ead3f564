// Command apigen generates a Kubernetes aggregated API server from annotated Go types.
package main

import (
	"os"

	"github.com/apigen-dev/apigen/cmd/apigen/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
