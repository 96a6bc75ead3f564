package parse

import (
	"fmt"
	"strings"

	gengotypes "k8s.io/gengo/v2/types"

	"github.com/apigen-dev/apigen/generators/model"
)

// columnPath checks that a print column's JSONPath names a field of the kind's type t, as
// kubectl would find it in an object of this version: .spec.replicas, .metadata.name,
// .status.conditions[?(@.type=="Ready")].status (a bracket steps into a list or map element).
// Paths the type cannot settle (recursive descent, templates with braces) are left alone.
func columnPath(t *gengotypes.Type, jsonPath string) error {
	if t == nil || strings.Contains(jsonPath, "..") || strings.ContainsAny(jsonPath, "{}") {
		return nil
	}
	parent := "the kind"
	for _, segment := range model.SplitPath(strings.TrimPrefix(jsonPath, ".")) {
		name, _, _ := strings.Cut(segment, "[")
		if name != "" {
			t = underlying(derefPointer(t))
			if t.Kind != gengotypes.Struct {
				return fmt.Errorf("%s is not an object, so it has no field %q", parent, name)
			}
			m, ok := memberByJSON(t, name)
			if !ok {
				return fmt.Errorf("%s has no field %q", t.Name.Name, name)
			}
			t, parent = m.Type, name
		}
		for range strings.Count(segment, "[") {
			t = underlying(derefPointer(t))
			switch t.Kind {
			case gengotypes.Slice, gengotypes.Array, gengotypes.Map:
				t = t.Elem
			default:
				return fmt.Errorf("%s is not a list or a map, so it has no elements", parent)
			}
		}
	}
	return nil
}

func derefPointer(t *gengotypes.Type) *gengotypes.Type {
	for t.Kind == gengotypes.Pointer {
		t = t.Elem
	}
	return t
}
