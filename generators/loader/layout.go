package loader

import (
	"os"
	"path/filepath"

	"sigs.k8s.io/yaml"
)

// DefaultAPIDir is where apigen's own projects keep their API types:
// pkg/apis/<group>/<version>, with the project's package (doc.go) in pkg/apis itself.
const DefaultAPIDir = "pkg/apis"

// Layout is where a project keeps its API types.
type Layout struct {
	// Dir is the directory of the API packages, relative to the project root, slash-separated:
	// pkg/apis, or kubebuilder's api or apis.
	Dir string
	// SingleGroup says the versions are directly in Dir (kubebuilder's api/<version>, one
	// group per project); otherwise they are in Dir/<group>/<version>.
	SingleGroup bool
	// Why says how the layout was found, for messages.
	Why string
}

// kubebuilderProject is what apigen reads of kubebuilder's PROJECT file.
type kubebuilderProject struct {
	Layout     []string `json:"layout"`
	MultiGroup bool     `json:"multigroup"`
}

// DetectLayout finds where the project at root keeps its API types. A kubebuilder project
// (a PROJECT file naming a layout) keeps them in api/<version>, or, with multigroup: true, in
// api/<group>/<version> (apis/<group>/<version> in projects scaffolded before kubebuilder v4,
// when that directory exists); any other project in pkg/apis/<group>/<version>. Every command
// (generate, verify, go:generate, the pre-commit hook) runs in the project root and finds the
// same layout.
func DetectLayout(root string) Layout {
	data, err := os.ReadFile(filepath.Join(root, "PROJECT"))
	var kb kubebuilderProject
	if err != nil || yaml.Unmarshal(data, &kb) != nil || len(kb.Layout) == 0 {
		return Layout{Dir: DefaultAPIDir, Why: "apigen's layout"}
	}
	if !kb.MultiGroup {
		return Layout{Dir: "api", SingleGroup: true, Why: "kubebuilder's PROJECT file (one group)"}
	}
	if fi, err := os.Stat(filepath.Join(root, "apis")); err == nil && fi.IsDir() {
		return Layout{Dir: "apis", Why: "kubebuilder's PROJECT file (multigroup: true)"}
	}
	return Layout{Dir: "api", Why: "kubebuilder's PROJECT file (multigroup: true)"}
}
