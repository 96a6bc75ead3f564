package e2e

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// conversionObjects are valid objects of the older versions whose conversions k8s.io/kubernetes
// writes by hand (kapi.Conversions holds the project's), each setting the fields those
// conversions move, with their resource and the versions to read them back in. Every field
// kube-apiserver would default is set, since the project does not run k8s.io/kubernetes'
// SetDefaults_ functions.
var conversionObjects = []struct {
	resource   string
	namespaced bool
	versions   []string
	doc        string
}{
	{"resourceclaims", true, []string{"v1beta1", "v1"}, `apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata: {name: gpus, namespace: default}
spec:
  devices:
    requests:
    - name: gpu
      deviceClassName: gpu.example.com
      allocationMode: ExactCount
      count: 2
      selectors:
      - cel: {expression: 'device.driver == "gpu.example.com"'}
`},
	{"resourceslices", false, []string{"v1beta1", "v1"}, `apiVersion: resource.k8s.io/v1beta1
kind: ResourceSlice
metadata: {name: node-a-gpus}
spec:
  driver: gpu.example.com
  nodeName: node-a
  pool: {name: node-a, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    basic:
      attributes:
        model: {string: a100}
        cores: {int: 108}
      capacity:
        memory: {value: 40Gi}
`},
}

// conversionReads creates each of conversionObjects in the server cfg names and reads it back
// in each of its versions, by "<name> as <group/version>"; a refused create or get is an error.
func conversionReads(t *testing.T, cfg *rest.Config, who string) map[string]*unstructured.Unstructured {
	t.Helper()
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	out := map[string]*unstructured.Unstructured{}
	for _, c := range conversionObjects {
		objs := yamlObjects(c.doc)
		obj := objs[0]
		gv, _ := schema.ParseGroupVersion(obj.GetAPIVersion())
		ri := func(version string) dynamic.ResourceInterface {
			r := dyn.Resource(schema.GroupVersionResource{Group: gv.Group, Version: version, Resource: c.resource})
			if c.namespaced {
				return r.Namespace(obj.GetNamespace())
			}
			return r
		}
		if _, err := ri(gv.Version).Create(ctx, obj.DeepCopy(), metav1.CreateOptions{}); err != nil {
			t.Errorf("%s refuses %s %s: %v", who, obj.GetAPIVersion(), obj.GetName(), err)
			continue
		}
		for _, v := range c.versions {
			got, err := ri(v).Get(ctx, obj.GetName(), metav1.GetOptions{})
			if err != nil {
				t.Errorf("%s: get %s as %s/%s: %v", who, obj.GetName(), gv.Group, v, err)
				continue
			}
			out[fmt.Sprintf("%s as %s/%s", obj.GetName(), gv.Group, v)] = got
		}
		_ = ri(gv.Version).Delete(ctx, obj.GetName(), metav1.DeleteOptions{})
	}
	return out
}

// compareConversionReads wants the generated server's reads of conversionObjects to equal
// kube-apiserver's, field by field both ways (metadata and status left out), and returns how
// many did.
func compareConversionReads(t *testing.T, kas, ours map[string]*unstructured.Unstructured) int {
	t.Helper()
	alike := 0
	for _, key := range slices.Sorted(maps.Keys(kas)) {
		o, ok := ours[key]
		if !ok {
			t.Errorf("%s: read from kube-apiserver, not from the generated server", key)
			continue
		}
		if path := sentDiff(kas[key], o); path != "" {
			t.Errorf("%s: the generated server lacks or differs from kube-apiserver's at %s", key, path)
			continue
		}
		if path := sentDiff(o, kas[key]); path != "" {
			t.Errorf("%s: kube-apiserver lacks or differs from the generated server's at %s", key, path)
			continue
		}
		t.Logf("%s: read alike from kube-apiserver and the generated server", key)
		alike++
	}
	return alike
}
