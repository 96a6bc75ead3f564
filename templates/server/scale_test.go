package server

import (
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestScaleSelector reads a Scale's status.selector as a CRD's (a string field) and as
// kube-apiserver's workloads do (a metav1.LabelSelector, rendered by
// metav1.LabelSelectorAsSelector: absent or empty gives "", an invalid one a 400).
func TestScaleSelector(t *testing.T) {
	object := func(spec map[string]any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"metadata": map[string]any{"name": "web", "namespace": "default"},
			"spec":     spec,
			"status":   map[string]any{"replicas": int64(2), "selector": "app=web"},
		}}
	}
	structured := NewScaleREST(nil, schema.GroupVersion{Group: "apps", Version: "v1"},
		ScalePaths{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas", LabelSelectorPath: ".spec.selector", LabelSelectorStructured: true}, nil)
	serialized := NewScaleREST(nil, schema.GroupVersion{Group: "apps", Version: "v1"},
		ScalePaths{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas", LabelSelectorPath: ".status.selector"}, nil)
	for _, c := range []struct {
		name  string
		r     *ScaleREST
		spec  map[string]any
		want  string
		isBad bool
	}{
		{"string field", serialized, map[string]any{"replicas": int64(3)}, "app=web", false},
		{"label selector", structured, map[string]any{"replicas": int64(3), "selector": map[string]any{
			"matchLabels":      map[string]any{"app": "web"},
			"matchExpressions": []any{map[string]any{"key": "tier", "operator": "In", "values": []any{"b", "a"}}},
		}}, "app=web,tier in (a,b)", false},
		{"empty label selector", structured, map[string]any{"replicas": int64(3), "selector": map[string]any{}}, "", false},
		{"no label selector", structured, map[string]any{"replicas": int64(3)}, "", false},
		{"invalid label selector", structured, map[string]any{"replicas": int64(3), "selector": map[string]any{
			"matchExpressions": []any{map[string]any{"key": "tier", "operator": "Exists", "values": []any{"a"}}},
		}}, "", true},
	} {
		scale, found, err := c.r.scaleFrom(object(c.spec))
		switch {
		case c.isBad:
			if !apierrors.IsBadRequest(err) {
				t.Errorf("%s: want a bad request, got %v", c.name, err)
			}
		case err != nil || !found:
			t.Errorf("%s: %v (spec replicas found: %v)", c.name, err, found)
		case scale.Status.Selector != c.want || scale.Spec.Replicas != 3 || scale.Status.Replicas != 2:
			t.Errorf("%s: Scale %+v, want selector %q, replicas 3 and 2", c.name, scale, c.want)
		}
	}
}
