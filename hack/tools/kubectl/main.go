// Command kubectl is the upstream kubectl, built from the k8s.io/kubectl module
// pinned in this directory's go.mod, so tests drive the same client on every machine.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubectl/pkg/cmd"
)

func main() {
	os.Exit(cli.Run(cmd.NewDefaultKubectlCommand()))
}
