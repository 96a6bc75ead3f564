package main

import (
	"regexp"
	"testing"
	"time"
)

// A sample counts for the innermost frame that has a category: the JSON
// decoding under etcd's Get under the filters is etcd's, the filter's own
// work is the filter's, and a stack with no known frame is "other".
func TestSplit(t *testing.T) {
	traces := `File: apiserver
Type: cpu
-----------+-------------------------------------------------------
      10ms   sigs.k8s.io/json/internal/golang/encoding/json.(*decodeState).object
             k8s.io/apiserver/pkg/storage/etcd3.(*defaultDecoder).Decode
             k8s.io/apiserver/pkg/storage/etcd3.(*store).Get
             k8s.io/apiserver/pkg/server/filters.(*priorityAndFairnessHandler).Handle
             golang.org/x/net/http2.(*serverConn).runHandler
-----------+-------------------------------------------------------
      20ms   k8s.io/apiserver/pkg/util/flowcontrol/fairqueuing/queueset.(*queueSet).StartRequest
             k8s.io/apiserver/pkg/server/filters.(*priorityAndFairnessHandler).Handle
             golang.org/x/net/http2.(*serverConn).runHandler
-----------+-------------------------------------------------------
      30ms   runtime.futex
             runtime.mcall
-----------+-------------------------------------------------------
`
	res := make([]*regexp.Regexp, len(categories))
	for i, c := range categories {
		res[i] = regexp.MustCompile(c.pattern)
	}
	shares, total, err := split([]byte(traces), res)
	if err != nil {
		t.Fatal(err)
	}
	if total != 60*time.Millisecond {
		t.Errorf("total %v, want 60ms", total)
	}
	want := map[string]time.Duration{
		"etcd: decoding the stored object": 10 * time.Millisecond,
		"priority and fairness":            20 * time.Millisecond,
		other:                              30 * time.Millisecond,
	}
	if len(shares) != len(want) {
		t.Errorf("shares %v, want %v", shares, want)
	}
	for name, d := range want {
		if shares[name] != d {
			t.Errorf("%s: %v, want %v", name, shares[name], d)
		}
	}
}

// On an apply, structured-merge-diff's reflection under its typed walk is the
// field manager's, the same reflection under the validation's ToUnstructured
// is the conversion's, and the patch's YAML is the YAML's.
func TestSplitApply(t *testing.T) {
	traces := `File: apiserver
Type: cpu
-----------+-------------------------------------------------------
      10ms   sigs.k8s.io/structured-merge-diff/v6/value.structReflect.IterateUsing
             sigs.k8s.io/structured-merge-diff/v6/typed.(*validatingObjectWalker).doMap
             k8s.io/apimachinery/pkg/util/managedfields/internal.(*structuredMergeManager).Apply
             k8s.io/apiserver/pkg/endpoints/handlers.(*applyPatcher).applyPatchToCurrentObject
             k8s.io/apiserver/pkg/storage/etcd3.(*store).GuaranteedUpdate
-----------+-------------------------------------------------------
      20ms   sigs.k8s.io/structured-merge-diff/v6/value.unmarshal
             sigs.k8s.io/structured-merge-diff/v6/value.TypeReflectCacheEntry.ToUnstructured
             k8s.io/apimachinery/pkg/runtime.toUnstructured
             k8s.io/apimachinery/pkg/runtime.(*unstructuredConverter).ToUnstructured
             example.com/gizmo/pkg/cmd/server.(*SchemaValidation).unstructured
             k8s.io/apiserver/pkg/registry/rest.BeforeUpdate
             k8s.io/apiserver/pkg/storage/etcd3.(*store).GuaranteedUpdate
-----------+-------------------------------------------------------
      30ms   go.yaml.in/yaml/v2.yaml_parser_scan_flow_scalar
             sigs.k8s.io/yaml.Unmarshal
             k8s.io/apiserver/pkg/endpoints/handlers.(*applyPatcher).applyPatchToCurrentObject
             k8s.io/apiserver/pkg/storage/etcd3.(*store).GuaranteedUpdate
-----------+-------------------------------------------------------
      40ms   k8s.io/apimachinery/pkg/runtime.Encode
             k8s.io/apiserver/pkg/storage/etcd3.(*store).GuaranteedUpdate
-----------+-------------------------------------------------------
`
	res := make([]*regexp.Regexp, len(categories))
	for i, c := range categories {
		res[i] = regexp.MustCompile(c.pattern)
	}
	shares, _, err := split([]byte(traces), res)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]time.Duration{
		"writes: the field manager (structured-merge-diff, managed fields)":               10 * time.Millisecond,
		"converting to or from unstructured (ToUnstructured, FromUnstructured)":           20 * time.Millisecond,
		"apply: decoding the YAML patch (twice: the apply, then strict field validation)": 30 * time.Millisecond,
		"writes: etcd's read-modify-write (encoding for storage, the update loop)":        40 * time.Millisecond,
	}
	if len(shares) != len(want) {
		t.Errorf("shares %v, want %v", shares, want)
	}
	for name, d := range want {
		if shares[name] != d {
			t.Errorf("%s: %v, want %v", name, shares[name], d)
		}
	}
}
