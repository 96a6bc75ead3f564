package templates

import (
	"bytes"
	"fmt"
	"go/format"
	"io/fs"
	"strings"
	"text/template"

	"sigs.k8s.io/yaml"
)

// RenderScaffold renders the scaffold template tmpl (a path in Scaffold) with data into the
// content of the user-owned file at path: Go is formatted and YAML parsed back, so that a
// template bug fails at generation, not in the user's tree.
func RenderScaffold(tmpl, path string, data any) ([]byte, error) {
	src, err := fs.ReadFile(Scaffold, tmpl)
	if err != nil {
		return nil, err
	}
	t, err := template.New(tmpl).Option("missingkey=error").Parse(string(src))
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return nil, err
	}
	if strings.HasSuffix(path, ".go") {
		out, err := format.Source(b.Bytes())
		if err != nil {
			return nil, fmt.Errorf("scaffold %s does not format: %v", path, err)
		}
		return out, nil
	}
	if strings.HasSuffix(path, ".yaml") {
		var v any
		if err := yaml.Unmarshal(b.Bytes(), &v); err != nil {
			return nil, fmt.Errorf("scaffold %s is not YAML: %v", path, err)
		}
	}
	return b.Bytes(), nil
}
