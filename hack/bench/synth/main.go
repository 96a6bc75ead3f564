// Command synth writes a synthetic apigen project for the scaling benchmark
// (hack/bench/scale.sh): GROUPS API groups, each with VERSIONS versions that each declare
// the same KINDS kinds, so the project has GROUPS×VERSIONS×KINDS kind declarations. go.mod,
// go.sum, the boilerplate, pkg/apis/doc.go and cmd/ are copied from an existing project
// (examples/wardle), so the synthetic project resolves the same module versions.
//
//	go run ./hack/bench/synth -src examples/wardle -out DIR -groups 10 -versions 2 -kinds 5
package main

import (
	"flag"
	"fmt"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	src := flag.String("src", "examples/wardle", "project whose go.mod, go.sum, boilerplate, pkg/apis/doc.go and cmd/ are copied")
	out := flag.String("out", "", "directory to write the project to (must not exist)")
	groups := flag.Int("groups", 1, "number of API groups")
	versions := flag.Int("versions", 1, "versions per group (the first, v1, is the storage version)")
	kinds := flag.Int("kinds", 5, "kinds per version")
	flag.Parse()
	if *out == "" || *groups < 1 || *versions < 1 || *kinds < 1 {
		flag.Usage()
		os.Exit(2)
	}
	if _, err := os.Stat(*out); err == nil {
		log.Fatalf("%s exists", *out)
	}
	for _, f := range []string{"go.mod", "go.sum", "hack/boilerplate.go.txt", "pkg/apis/doc.go"} {
		copyFile(filepath.Join(*src, f), filepath.Join(*out, f))
	}
	copyTree(filepath.Join(*src, "cmd"), filepath.Join(*out, "cmd"))
	domain := domainOf(filepath.Join(*src, "pkg/apis/doc.go"))
	versionNames := []string{"v1", "v1beta1", "v1alpha1", "v2", "v2beta1", "v2alpha1"}
	if *versions > len(versionNames) {
		log.Fatalf("at most %d versions", len(versionNames))
	}
	for g := range *groups {
		group := fmt.Sprintf("group%02d", g)
		for vi, v := range versionNames[:*versions] {
			dir := filepath.Join(*out, "pkg/apis", group, v)
			write(filepath.Join(dir, "doc.go"), fmt.Sprintf(docGo, v, group, domain, group, domain, v))
			for k := range *kinds {
				kind := fmt.Sprintf("Thing%02d", k)
				scope := "Namespaced"
				if k%4 == 3 {
					scope = "Cluster"
				}
				storage := ""
				if *versions > 1 && vi == 0 {
					storage = "\n// +apigen:storageversion"
				}
				r := strings.NewReplacer("KIND", kind, "PLURAL", strings.ToLower(kind)+"s", "SCOPE", scope, "STORAGE", storage, "PKG", v)
				write(filepath.Join(dir, strings.ToLower(kind)+"_types.go"), r.Replace(typesGo))
			}
		}
	}
}

const docGo = `// Package %s is a synthetic version of the %s.%s API group (hack/bench/synth).
//
// +groupName=%s.%s
package %s
`

const typesGo = `package PKG

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// KINDMode is a mode of a KIND.
// +enum
type KINDMode string

const (
	// KINDModeFast is fast.
	KINDModeFast KINDMode = "Fast"
	// KINDModeSafe is safe.
	KINDModeSafe KINDMode = "Safe"
)

// KINDTarget is one target of a KIND.
type KINDTarget struct {
	// Name of the target.
	Name string ` + "`json:\"name\"`" + `
	// Weight of the target.
	// +optional
	Weight *int32 ` + "`json:\"weight,omitempty\"`" + `
	// Labels of the target.
	// +optional
	Labels map[string]string ` + "`json:\"labels,omitempty\"`" + `
}

// KINDSpec is the desired state of a KIND.
type KINDSpec struct {
	// Mode says how the KIND works.
	// +optional
	Mode KINDMode ` + "`json:\"mode,omitempty\"`" + `
	// Replicas is how many.
	// +optional
	Replicas *int32 ` + "`json:\"replicas,omitempty\"`" + `
	// Paused stops the KIND.
	// +optional
	Paused bool ` + "`json:\"paused,omitempty\"`" + `
	// Size is a quantity.
	// +optional
	Size *resource.Quantity ` + "`json:\"size,omitempty\"`" + `
	// Timeout is a duration.
	// +optional
	Timeout *metav1.Duration ` + "`json:\"timeout,omitempty\"`" + `
	// Tags are free-form.
	// +optional
	// +listType=set
	Tags []string ` + "`json:\"tags,omitempty\"`" + `
	// Targets are where the KIND points.
	// +optional
	// +listType=map
	// +listMapKey=name
	Targets []KINDTarget ` + "`json:\"targets,omitempty\"`" + `
	// Selector selects.
	// +optional
	Selector *metav1.LabelSelector ` + "`json:\"selector,omitempty\"`" + `
}

// KINDStatus is the observed state of a KIND.
type KINDStatus struct {
	// ObservedGeneration is the last generation seen.
	// +optional
	ObservedGeneration int64 ` + "`json:\"observedGeneration,omitempty\"`" + `
	// Conditions are the latest observations.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition ` + "`json:\"conditions,omitempty\"`" + `
}

// KIND is a synthetic kind.
//
// +apigen:resource:path=PLURAL,scope=SCOPE
// +apigen:subresource:statusSTORAGE
type KIND struct {
	metav1.TypeMeta   ` + "`json:\",inline\"`" + `
	metav1.ObjectMeta ` + "`json:\"metadata,omitempty\"`" + `

	Spec   KINDSpec   ` + "`json:\"spec,omitempty\"`" + `
	Status KINDStatus ` + "`json:\"status,omitempty\"`" + `
}

// KINDList is a list of KIND objects.
type KINDList struct {
	metav1.TypeMeta ` + "`json:\",inline\"`" + `
	metav1.ListMeta ` + "`json:\"metadata,omitempty\"`" + `

	Items []KIND ` + "`json:\"items\"`" + `
}
`

// domainOf reads +apigen:domain=... from pkg/apis/doc.go.
func domainOf(doc string) string {
	b, err := os.ReadFile(doc)
	if err != nil {
		log.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if _, d, ok := strings.Cut(line, "+apigen:domain="); ok {
			return strings.TrimSpace(d)
		}
	}
	log.Fatalf("%s has no +apigen:domain marker", doc)
	return ""
}

func write(name, content string) {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		log.Fatal(err)
	}
}

func copyFile(from, to string) {
	b, err := os.ReadFile(from)
	if err != nil {
		log.Fatal(err)
	}
	write(to, string(b))
}

func copyTree(from, to string) {
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(from, p)
		if err != nil {
			return err
		}
		copyFile(p, filepath.Join(to, rel))
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
}
