package server

import (
	"encoding/json"
	"fmt"
	"hash/maphash"
	"maps"
	"reflect"
	goruntime "runtime"
	"strings"
	"testing"
	"time"
	"unsafe"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// internedGadget is a stored object with every metadata field the storage
// codec interns, and the fields it must leave alone.
func internedGadget(name string) *gadget {
	at := metav1.NewTime(time.Date(2026, 11, 27, 13, 0, 0, 0, time.UTC).Local()) // decoded times are local
	return &gadget{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, GenerateName: "gadget-", Namespace: "team-a", UID: types.UID("uid-" + name),
			CreationTimestamp: at,
			Labels:            map[string]string{"app.kubernetes.io/name": "gadgets", "index": name},
			Annotations:       map[string]string{"example.com/note": "same for all", "example.com/long": strings.Repeat("x", maxInternedValue+1)},
			Finalizers:        []string{"example.com/cleanup"},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "apps/v1", Kind: "Deployment", Name: "owner-" + name, UID: types.UID("owner-uid-" + name),
			}},
			ManagedFields: []metav1.ManagedFieldsEntry{{
				Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "test.example.com/v1",
				Time: &at, FieldsType: "FieldsV1", Subresource: "status",
				FieldsV1: metav1.NewFieldsV1(`{"f:spec":{"f:color":{},"f:size":{}}}`),
			}},
		},
		Spec: gadgetSpec{Size: 3, Color: "blue", Labels: map[string]string{"x": "y"}},
	}
}

func sameString(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) }

// Two objects decoded from storage share their metadata's repeated strings
// and managed field sets, and each still reads back exactly as it was
// stored, in every storage encoding.
func TestStorageCodecInternsMetadata(t *testing.T) {
	for _, mediaType := range []string{runtime.ContentTypeJSON, runtime.ContentTypeCBOR} {
		t.Run(mediaType, func(t *testing.T) {
			codec, err := storageCodec(gadgetAPIs(), mediaType)
			if err != nil {
				t.Fatal(err)
			}
			var got []*gadget
			for i := range 2 {
				in := internedGadget(fmt.Sprint("g", i))
				data, err := runtime.Encode(codec, in.DeepCopyObject())
				if err != nil {
					t.Fatal(err)
				}
				out, err := runtime.Decode(codec, data)
				if err != nil {
					t.Fatal(err)
				}
				g := out.(*gadget)
				g.TypeMeta = metav1.TypeMeta{}
				// Every field reads back as stored. (CBOR keeps a field set in
				// CBOR, so the sets are compared as their JSON.)
				gotJSON, _ := json.Marshal(g)
				wantJSON, _ := json.Marshal(in)
				if string(gotJSON) != string(wantJSON) || mediaType == runtime.ContentTypeJSON && !reflect.DeepEqual(g, in) {
					t.Fatalf("decoded\n%s\nwant\n%s", gotJSON, wantJSON)
				}
				got = append(got, g)
				// The watch cache decodes its objects over minutes, with
				// collections between them.
				goruntime.GC()
				goruntime.GC()
			}
			a, b := got[0], got[1]
			shared := map[string][2]string{
				"namespace":                    {a.Namespace, b.Namespace},
				"generateName":                 {a.GenerateName, b.GenerateName},
				"label value":                  {a.Labels["app.kubernetes.io/name"], b.Labels["app.kubernetes.io/name"]},
				"annotation value":             {a.Annotations["example.com/note"], b.Annotations["example.com/note"]},
				"finalizer":                    {a.Finalizers[0], b.Finalizers[0]},
				"ownerReferences.apiVersion":   {a.OwnerReferences[0].APIVersion, b.OwnerReferences[0].APIVersion},
				"ownerReferences.kind":         {a.OwnerReferences[0].Kind, b.OwnerReferences[0].Kind},
				"managedFields.manager":        {a.ManagedFields[0].Manager, b.ManagedFields[0].Manager},
				"managedFields.operation":      {string(a.ManagedFields[0].Operation), string(b.ManagedFields[0].Operation)},
				"managedFields.apiVersion":     {a.ManagedFields[0].APIVersion, b.ManagedFields[0].APIVersion},
				"managedFields.fieldsType":     {a.ManagedFields[0].FieldsType, b.ManagedFields[0].FieldsType},
				"managedFields.subresource":    {a.ManagedFields[0].Subresource, b.ManagedFields[0].Subresource},
				"managedFields.fieldsV1 (raw)": {a.ManagedFields[0].FieldsV1.GetRawString(), b.ManagedFields[0].FieldsV1.GetRawString()},
			}
			if fieldSets.enabled {
				ra, rb := a.ManagedFields[0].FieldsV1.GetRawBytes(), b.ManagedFields[0].FieldsV1.GetRawBytes()
				if &ra[0] != &rb[0] {
					t.Errorf("managedFields.fieldsV1: two copies of one field set")
				}
				if a.ManagedFields[0].FieldsV1 == b.ManagedFields[0].FieldsV1 {
					t.Errorf("managedFields.fieldsV1: one FieldsV1 shared by two objects; only its bytes may be")
				}
			}
			delete(shared, "managedFields.fieldsV1 (raw)") // GetRawString copies
			for what, s := range shared {
				if !sameString(s[0], s[1]) {
					t.Errorf("%s %q: two copies", what, s[0])
				}
			}
			for ka := range a.Labels {
				for kb := range b.Labels {
					if ka == kb && !sameString(ka, kb) {
						t.Errorf("label key %q: two copies", ka)
					}
				}
			}
			if sameString(a.Annotations["example.com/long"], b.Annotations["example.com/long"]) {
				t.Errorf("an annotation value longer than %d bytes was interned", maxInternedValue)
			}
			if sameString(string(a.UID), string(b.UID)) || sameString(a.Spec.Color, b.Spec.Color) {
				t.Errorf("interned beyond the metadata's repeated values")
			}
		})
	}
}

// A table never holds more than its budget.
func TestBudgetTable(t *testing.T) {
	table := newBudgetTable[string, string](100)
	for i := range 50 {
		s := fmt.Sprint("value-", i)
		table.put(s, s, len(s))
		if table.bytes > table.budget {
			t.Fatalf("after %d strings the table holds %d bytes, over its budget of %d", i+1, table.bytes, table.budget)
		}
		if got, ok := table.get(s); !ok || got != s {
			t.Fatalf("%q: the table holds %q, %v", s, got, ok)
		}
	}
}

// A field set that only collides in the hash with one the table holds is not
// taken for it.
func TestFieldSetCollision(t *testing.T) {
	if !fieldSets.enabled {
		t.Skip("built with fieldsv1string: FieldsV1 interns itself")
	}
	a := metav1.NewFieldsV1(`{"f:collision-a":{}}`)
	b := metav1.NewFieldsV1(`{"f:collision-b":{}}`)
	// b's slot holds a's set.
	fieldSets.put(maphash.Bytes(fieldSets.seed, b.GetRawBytes()), *a, len(a.GetRawBytes()))
	internFieldSet(b)
	if got := b.GetRawString(); got != `{"f:collision-b":{}}` {
		t.Errorf("a colliding set became %s", got)
	}
}

// Label and annotation maps are re-keyed in place, whatever their size: every
// key and short value ends up the shared copy, and nothing is lost.
func TestInternMapInPlace(t *testing.T) {
	for _, n := range []int{1, 8, 9, 100} {
		m := map[string]string{}
		for i := range n {
			m[fmt.Sprint("example.com/key-", i)] = fmt.Sprint("value-", i%3)
		}
		want := maps.Clone(m)
		internMap(m)
		if !maps.Equal(m, want) {
			t.Fatalf("%d entries: %v, want %v", n, m, want)
		}
		for k, v := range m {
			if !sameString(k, intern(strings.Clone(k))) || !sameString(v, intern(strings.Clone(v))) {
				t.Errorf("%d entries: %q=%q is not the shared copy", n, k, v)
			}
		}
	}
}

// What interning adds to a decode from storage:
// go test -run - -bench BenchmarkStorageCodecDecode ./templates/server
func BenchmarkStorageCodecDecode(b *testing.B) {
	codec, err := storageCodec(gadgetAPIs(), runtime.ContentTypeJSON)
	if err != nil {
		b.Fatal(err)
	}
	data, err := runtime.Encode(codec, internedGadget("g").DeepCopyObject())
	if err != nil {
		b.Fatal(err)
	}
	for name, c := range map[string]runtime.Codec{"interned": codec, "plain": codec.(internCodec).Codec} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := runtime.Decode(c, data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
