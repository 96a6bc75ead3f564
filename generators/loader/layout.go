package loader

import (
	"os"
	"path"
	"path/filepath"
	"strings"

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
	// Layout is a list since kubebuilder v3.1; earlier files hold one string.
	Layout     any    `json:"layout"`
	MultiGroup bool   `json:"multigroup"`
	Repo       string `json:"repo"`
	Resources  []struct {
		Path string `json:"path"`
	} `json:"resources"`
}

// apiDir is the directory of the API packages that the project's resources name
// (repo/apis/v1alpha1 gives apis), or "" when none is in the repository.
func (kb kubebuilderProject) apiDir() string {
	for _, r := range kb.Resources {
		rel, ok := strings.CutPrefix(r.Path, kb.Repo+"/")
		if !ok || kb.Repo == "" {
			continue
		}
		dir := path.Dir(rel) // the group's directory, or the API directory of a single group
		if kb.MultiGroup {
			dir = path.Dir(dir)
		}
		if dir != "." {
			return dir
		}
	}
	return ""
}

// DetectLayout finds where the project at root keeps its API types. A kubebuilder project
// (a PROJECT file naming a layout) keeps them in api/<version>, or, with multigroup: true, in
// api/<group>/<version>, or where the PROJECT file's resources say (apis/... in projects
// scaffolded before kubebuilder v4); any other project in pkg/apis/<group>/<version>. Every command
// (generate, verify, go:generate, the pre-commit hook) runs in the project root and finds the
// same layout.
func DetectLayout(root string) Layout { return detectLayout(root, nil) }

// detectLayout is DetectLayout, its read of the PROJECT file recorded in reads.
func detectLayout(root string, reads *Reads) Layout {
	data, err := reads.ReadFile(filepath.Join(root, "PROJECT"))
	var kb kubebuilderProject
	if err != nil || yaml.Unmarshal(data, &kb) != nil || kb.Layout == nil {
		return Layout{Dir: DefaultAPIDir, Why: "apigen's layout"}
	}
	l := Layout{Dir: "api", SingleGroup: !kb.MultiGroup, Why: "kubebuilder's PROJECT file (one group)"}
	if kb.MultiGroup {
		l.Why = "kubebuilder's PROJECT file (multigroup: true)"
	}
	switch dir := kb.apiDir(); {
	case dir != "":
		l.Dir = dir
	case isDir(filepath.Join(root, "apis")) && !isDir(filepath.Join(root, "api")):
		l.Dir = "apis"
	}
	return l
}

func isDir(name string) bool {
	fi, err := os.Stat(name)
	return err == nil && fi.IsDir()
}
