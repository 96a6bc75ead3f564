package server

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
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

// TestScaleWithoutSpecReplicas: the Scale of an object without spec replicas (a Deployment
// created without spec.replicas, which k8s.io/kubernetes would have defaulted) is served as
// kube-apiserver serves a custom resource's: GET is a 500 saying the field does not exist, an
// update that sets the replicas through /scale (kubectl scale's patch) sets them, and one that
// leaves them unset is a 400. The same with spec.replicas set reads it.
func TestScaleWithoutSpecReplicas(t *testing.T) {
	store := &genericregistry.Store{NewFunc: func() runtime.Object { return &appsv1.Deployment{} }}
	r := NewScaleREST(store, appsv1.SchemeGroupVersion, ScalePaths{SpecReplicasPath: ".spec.replicas",
		StatusReplicasPath: ".status.replicas", LabelSelectorPath: ".spec.selector", LabelSelectorStructured: true}, nil)
	deployment := func(replicas *int32) *appsv1.Deployment {
		return &appsv1.Deployment{
			TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
			ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", ResourceVersion: "7"},
			Spec:       appsv1.DeploymentSpec{Replicas: replicas, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
			Status:     appsv1.DeploymentStatus{Replicas: 2},
		}
	}
	_, err := r.got(deployment(nil))
	if !apierrors.IsInternalError(err) || !strings.Contains(err.Error(), `the spec replicas field ".spec.replicas" does not exist`) {
		t.Errorf("GET scale without spec.replicas: %v, want a 500 saying the field does not exist", err)
	}
	three := int32(3)
	obj, err := r.got(deployment(&three))
	if scale, ok := obj.(*autoscalingv1.Scale); err != nil || !ok || scale.Spec.Replicas != 3 || scale.Status.Replicas != 2 || scale.Status.Selector != "app=web" {
		t.Errorf("GET scale with spec.replicas 3: %+v, %v", obj, err)
	}

	// kubectl scale --replicas=4: a patch of the Scale that sets spec.replicas.
	setTo4 := rest.DefaultUpdatedObjectInfo(nil, func(_ context.Context, newObj, oldObj runtime.Object) (runtime.Object, error) {
		scale := oldObj.DeepCopyObject().(*autoscalingv1.Scale)
		scale.Spec.Replicas = 4
		return scale, nil
	})
	updated, err := (&scaleUpdate{r, setTo4}).UpdatedObject(context.Background(), deployment(nil))
	if d, ok := updated.(*appsv1.Deployment); err != nil || !ok || d.Spec.Replicas == nil || *d.Spec.Replicas != 4 {
		t.Errorf("setting spec.replicas to 4 through /scale: %+v, %v", updated, err)
	}
	// A patch that leaves spec.replicas as it was: still unset, a 400.
	unchanged := rest.DefaultUpdatedObjectInfo(nil, func(_ context.Context, _, oldObj runtime.Object) (runtime.Object, error) {
		return oldObj, nil
	})
	_, err = (&scaleUpdate{r, unchanged}).UpdatedObject(context.Background(), deployment(nil))
	if !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), `the spec replicas field ".spec.replicas" cannot be empty`) {
		t.Errorf("an update through /scale that leaves spec.replicas unset: %v, want a 400 saying it cannot be empty", err)
	}
}
