// This file was scaffolded by apigen and is yours to edit.

// Command apiserver serves the APIs of example.com/toys.
//
// Run without cluster flags it starts in local mode: embedded etcd, 127.0.0.1 only, and an
// admin kubeconfig for kubectl. See --help for running behind a kube-apiserver.
package main

import (
	"os"

	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/component-base/cli"

	"example.com/toys/pkg/apiserver"
	"example.com/toys/pkg/cmd/server"
)

func main() {
	ctx := genericapiserver.SetupSignalContext()
	apis := apiserver.APIs()
	// Admission plugins of your own run on every request, in local and cluster mode:
	// apis.Admission = append(apis.Admission, server.AdmissionPlugin{Name: "MyRule", New: newMyRule})
	os.Exit(cli.Run(server.NewCommand(ctx, apis)))
}
