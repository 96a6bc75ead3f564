package servertest

import (
	"reflect"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"sigs.k8s.io/randfill"
)

// TestMatching gives the string the repair tries for a field a pattern refuses.
func TestMatching(t *testing.T) {
	for msg, want := range map[string]string{
		`Invalid value: "ƃ旺J": spec.url in body should match '^(http|https|ssh)://.*$'`:                          "http://",
		`Invalid value: "x": spec.digest in body should match '^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$'`: "a:a",
		`Invalid value: "x": spec.size in body should match '^[0-9]{2,3}(Mi|Gi)$'`:                               "11Mi",
		`Invalid value: "x": must be no more than 63 characters`:                                                 "",
	} {
		if got := matching(msg); got != want {
			t.Errorf("matching(%q) = %q, want %q", msg, got, want)
		}
	}
}

type tree struct {
	Children []tree
	Named    map[string]*tree
	Leaf     leaf
}

type leaf struct{ Value string }

type treeKind struct {
	Root tree
	Leaf leaf
}

func (in *treeKind) DeepCopyObject() runtime.Object   { out := *in; return &out }
func (in *treeKind) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }

// TestBoundedRecursion fills a type that holds itself in two fields: the fill ends, each
// branch no deeper than recursionLimit, and a type that does not hold itself is left alone.
func TestBoundedRecursion(t *testing.T) {
	scheme := runtime.NewScheme()
	scheme.AddKnownTypeWithName(schema.GroupVersionKind{Group: "g", Version: "v", Kind: "TreeKind"}, &treeKind{})
	if got := recursiveTypes(scheme); !slices.Equal(got, []reflect.Type{reflect.TypeFor[tree]()}) {
		t.Fatalf("recursive types %v, want [tree]", got)
	}
	f := randfill.New().NilChance(0).NumElements(2, 2).Funcs(boundedRecursion(scheme)(serializer.CodecFactory{})...)
	var obj treeKind
	f.Fill(&obj)
	var depth func(t tree) int
	depth = func(t tree) int {
		d := 0
		for _, c := range t.Children {
			d = max(d, depth(c))
		}
		for _, c := range t.Named {
			d = max(d, depth(*c))
		}
		return d + 1
	}
	if d := depth(obj.Root); d != recursionLimit+1 {
		t.Errorf("the tree is %d deep, want %d (filled %d, then empty ones)", d, recursionLimit+1, recursionLimit)
	}
	if obj.Leaf.Value == "" || obj.Root.Leaf.Value == "" {
		t.Errorf("fields outside the recursion are not filled: %+v", obj.Leaf)
	}
}
