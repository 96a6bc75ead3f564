package server

import (
	"bytes"
	"hash/maphash"
	"io"
	"reflect"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// internCodec is the storage codec with one change: an object it decodes
// shares its metadata's repeated values with the objects decoded before it.
// Every object the watch cache holds was decoded from storage, and most of
// what its metadata carries is the same in object after object: the
// namespace, label and annotation keys and common values, finalizers, owner
// kinds, and managedFields (manager, operation, apiVersion, and the field
// set, often hundreds of bytes, identical for every object one client wrote
// the same way). A decoder allocates each of them afresh; here each is
// replaced by an equal value already in memory, and the copy is garbage.
//
// Nothing changes for a reader: the strings are equal, and Go strings are
// immutable. The field sets are shared byte slices; apiserver code replaces a
// FieldsV1's bytes (SetRawBytes) and never writes into them, as it already
// relies on for the objects the watch cache hands out. Built with
// k8s.io/apimachinery's fieldsv1string tag, FieldsV1 interns itself, and only
// the strings are done here.
type internCodec struct {
	runtime.Codec
}

func (c internCodec) Decode(data []byte, defaults *schema.GroupVersionKind, into runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	obj, gvk, err := c.Codec.Decode(data, defaults, into)
	if err == nil {
		internMetadata(obj)
	}
	return obj, gvk, err
}

// EncodeWithAllocator keeps the storage codec's allocator-aware encoding.
func (c internCodec) EncodeWithAllocator(obj runtime.Object, w io.Writer, memAlloc runtime.MemoryAllocator) error {
	if e, ok := c.Codec.(runtime.EncoderWithAllocator); ok {
		return e.EncodeWithAllocator(obj, w, memAlloc)
	}
	return c.Codec.Encode(obj, w)
}

// maxInternedValue is the longest label or annotation value interned: longer
// ones (a last-applied-configuration, a certificate) are seldom repeated.
const maxInternedValue = 256

// internMetadata makes obj's metadata share repeated values (internCodec).
// Objects without metadata are left alone.
func internMetadata(obj runtime.Object) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return
	}
	if ns := m.GetNamespace(); ns != "" {
		m.SetNamespace(intern(ns))
	}
	if s := m.GetGenerateName(); s != "" {
		m.SetGenerateName(intern(s))
	}
	if l := m.GetLabels(); len(l) > 0 {
		m.SetLabels(internMap(l))
	}
	if a := m.GetAnnotations(); len(a) > 0 {
		m.SetAnnotations(internMap(a))
	}
	if f := m.GetFinalizers(); len(f) > 0 {
		for i := range f {
			f[i] = intern(f[i])
		}
		m.SetFinalizers(f)
	}
	if refs := m.GetOwnerReferences(); len(refs) > 0 {
		for i := range refs {
			refs[i].APIVersion, refs[i].Kind = intern(refs[i].APIVersion), intern(refs[i].Kind)
		}
		m.SetOwnerReferences(refs)
	}
	if mf := m.GetManagedFields(); len(mf) > 0 {
		for i := range mf {
			e := &mf[i]
			e.Manager, e.APIVersion = intern(e.Manager), intern(e.APIVersion)
			e.Operation = metav1.ManagedFieldsOperationType(intern(string(e.Operation)))
			e.FieldsType, e.Subresource = intern(e.FieldsType), intern(e.Subresource)
			if e.FieldsV1 != nil {
				fieldSets.intern(e.FieldsV1)
			}
		}
		m.SetManagedFields(mf)
	}
}

// intern returns the copy of s that other decoded objects share.
func intern(s string) string {
	if s == "" {
		return s
	}
	return sharedStrings.intern(s)
}

// sharedStrings is the strings decoded objects share. The table holds them
// itself: unique.Make(s).Value() would not do, as unique forgets a string
// once no Handle to it is left, and an object holds the string, not the
// Handle, so every object decoded after a collection would get its own copy
// again. Emptied when the strings it holds exceed a budget, as fieldSets is.
var sharedStrings = &stringTable{strings: map[string]string{}, budget: 1 << 20}

type stringTable struct {
	mu      sync.Mutex
	strings map[string]string
	bytes   int
	budget  int
}

func (t *stringTable) intern(s string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if shared, ok := t.strings[s]; ok {
		return shared
	}
	if t.bytes+len(s) > t.budget {
		clear(t.strings)
		t.bytes = 0
	}
	// A copy, so that the table never keeps alive a buffer s may be part of.
	s = strings.Clone(s)
	t.strings[s] = s
	t.bytes += len(s)
	return s
}

// internMap returns m with its keys, and its values up to maxInternedValue
// bytes, interned. Map keys cannot be replaced in place, so this is a new map.
func internMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		if len(v) <= maxInternedValue {
			v = intern(v)
		}
		out[intern(k)] = v
	}
	return out
}

// fieldSets is the managed field sets decoded objects share. A FieldsV1 keeps
// its set as bytes, which unique cannot key, so this is a small table of
// its own: by a hash of the bytes, the bytes compared on every hit, and
// emptied when the sets it holds exceed a budget, so it never keeps more than
// that alive that no object holds.
var fieldSets = &fieldSetTable{
	seed:   maphash.MakeSeed(),
	sets:   map[uint64]metav1.FieldsV1{},
	budget: 4 << 20,
	// With the fieldsv1string tag FieldsV1 has no Raw field and interns its
	// set itself (it holds a unique.Handle).
	enabled: func() bool { _, ok := reflect.TypeFor[metav1.FieldsV1]().FieldByName("Raw"); return ok }(),
}

type fieldSetTable struct {
	seed    maphash.Seed
	enabled bool

	mu     sync.Mutex
	sets   map[uint64]metav1.FieldsV1
	bytes  int
	budget int
}

// intern makes f share the bytes of an equal set decoded before, or
// remembers f's.
func (t *fieldSetTable) intern(f *metav1.FieldsV1) {
	if !t.enabled {
		return
	}
	raw := f.GetRawBytes()
	if len(raw) == 0 {
		return
	}
	h := t.hash(raw)
	t.mu.Lock()
	defer t.mu.Unlock()
	if shared, ok := t.sets[h]; ok && bytes.Equal(shared.GetRawBytes(), raw) {
		*f = shared
		return
	}
	if t.bytes+len(raw) > t.budget {
		clear(t.sets)
		t.bytes = 0
	}
	t.sets[h] = *f
	t.bytes += len(raw)
}

func (t *fieldSetTable) hash(raw []byte) uint64 { return maphash.Bytes(t.seed, raw) }
