// Command applyschema writes the OpenAPI v2 document apigen gives applyconfiguration-gen for a
// project, so that hack/bench/upstream.sh can give the upstream generator the same schema
// (UPSTREAM_OPENAPI_SCHEMA) and the generation benchmark compares like with like:
//
//	go run ./hack/bench/applyschema -dir examples/wardle -o /tmp/schema.json
package main

import (
	"encoding/json"
	"flag"
	"log"
	"os"

	"github.com/apigen-dev/apigen/generators/engine"
	"github.com/apigen-dev/apigen/generators/kube"
	"github.com/apigen-dev/apigen/generators/pipeline"
)

func main() {
	dir := flag.String("dir", ".", "project root (where go.mod is)")
	out := flag.String("o", "", "output file")
	flag.Parse()
	root, err := pipeline.FindRoot(*dir)
	if err != nil {
		log.Fatal(err)
	}
	load, project, err := pipeline.Model(root, nil)
	if err != nil {
		log.Fatal(err)
	}
	doc, err := kube.ApplySchema(&engine.LoadContext{Context: engine.Context{Project: project}, Load: load})
	if err != nil {
		log.Fatal(err)
	}
	b, err := json.Marshal(doc)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		log.Fatal(err)
	}
}
