// Command kapiproject fills a project made by `apigen init --repo example.com/kapi` with the
// largest real project apigen is tested on, as TestKubernetesAPIGroups builds it: every group
// of k8s.io/api but core, copied unchanged by package test/kapi from the k8s.io/api the project
// requires (which must be kapi.Version). hack/bench/kapi.sh times its generation.
//
//	go run ./hack/bench/kapiproject -dir DIR
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"

	"github.com/apigen-dev/apigen/test/kapi"
)

func main() {
	dir := flag.String("dir", "", "the project made by apigen init, to copy k8s.io/api's packages into")
	flag.Parse()
	if *dir == "" || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	log.SetFlags(0)
	log.SetPrefix("kapiproject: ")

	// The project's own module graph, as the e2e test's goEnv resolves it.
	cmd := exec.Command("go", "list", "-m", "-json", "k8s.io/api")
	cmd.Dir = *dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOTOOLCHAIN=local")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		log.Fatalf("go list -m k8s.io/api in %s: %v", *dir, err)
	}
	var api struct{ Dir, Version string }
	if err := json.Unmarshal(out, &api); err != nil || api.Dir == "" {
		log.Fatalf("go list -m k8s.io/api: %v\n%s", err, out)
	}
	if api.Version != kapi.Version {
		log.Fatalf("the project requires k8s.io/api %s, test/kapi's tables are for %s", api.Version, kapi.Version)
	}
	files, packages, err := kapi.Copy(api.Dir, *dir)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("copied %d files of %d k8s.io/api %s packages\n", files, packages, api.Version)
}
