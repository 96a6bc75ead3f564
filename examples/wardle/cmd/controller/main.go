// Command controller keeps the ReferenceResolved condition of every Flunder current, with
// the generated clientset and informers (pkg/controller).
//
//	go run ./cmd/controller --kubeconfig .apigen/kubeconfig
package main

import (
	"flag"
	"fmt"
	"os"

	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"

	"example.com/wardle/pkg/controller"
	"example.com/wardle/pkg/generated/clientset/versioned"
	"example.com/wardle/pkg/generated/informers/externalversions"
)

func main() {
	klog.InitFlags(nil)
	kubeconfig := flag.String("kubeconfig", "", "the kubeconfig of the wardle server (local mode writes .apigen/kubeconfig); empty: in-cluster")
	workers := flag.Int("workers", 2, "Flunders reconciled at once")
	flag.Parse()
	if err := run(*kubeconfig, *workers); err != nil {
		fmt.Fprintln(os.Stderr, "controller:", err)
		os.Exit(1)
	}
}

func run(kubeconfig string, workers int) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	client, err := versioned.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ctx := genericapiserver.SetupSignalContext()
	factory := externalversions.NewSharedInformerFactory(client, 0)
	c, err := controller.New(client, factory)
	if err != nil {
		return err
	}
	factory.Start(ctx.Done())
	defer factory.Shutdown()
	klog.InfoS("reconciling Flunders", "workers", workers)
	return c.Run(ctx, workers)
}
