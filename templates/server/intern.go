package server

import (
	"bytes"
	"hash/maphash"
	"io"
	"reflect"
	"strings"
	"sync"
	"unsafe"

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
	internMap(m.GetLabels())
	internMap(m.GetAnnotations())
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
				internFieldSet(e.FieldsV1)
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
	if shared, ok := sharedStrings.get(s); ok {
		return shared
	}
	// A copy, so that the table never keeps alive a buffer s may be part of.
	s = strings.Clone(s)
	sharedStrings.put(s, s, len(s))
	return s
}

// sharedStrings is the strings decoded objects share. The table holds them
// itself: unique.Make(s).Value() would not do, as unique forgets a string
// once no Handle to it is left, and an object holds the string, not the
// Handle, so every object decoded after a collection would get its own copy
// again.
var sharedStrings = newBudgetTable[string, string](1 << 20)

// internMap makes m's keys, and its values up to maxInternedValue bytes, the
// shared copies. m is a freshly decoded object's own map: a key is replaced
// by deleting it and adding the shared copy, which reuses the slot rather
// than building a second map. A key already shared is skipped, so an entry
// the iteration meets again after its re-insertion ends the work on it.
func internMap(m map[string]string) {
	for k, v := range m {
		if len(v) <= maxInternedValue {
			v = intern(v)
		}
		if shared := intern(k); unsafe.StringData(shared) != unsafe.StringData(k) {
			delete(m, k)
			k = shared
		}
		m[k] = v
	}
}

// fieldSets is the managed field sets decoded objects share. A FieldsV1 keeps
// its set as bytes, which cannot key a map, so they are keyed by a hash of
// the bytes, compared on every hit.
var fieldSets = struct {
	*budgetTable[uint64, metav1.FieldsV1]
	seed    maphash.Seed
	enabled bool
}{
	budgetTable: newBudgetTable[uint64, metav1.FieldsV1](4 << 20),
	seed:        maphash.MakeSeed(),
	// With the fieldsv1string tag FieldsV1 has no Raw field and interns its
	// set itself (it holds a unique.Handle).
	enabled: func() bool { _, ok := reflect.TypeFor[metav1.FieldsV1]().FieldByName("Raw"); return ok }(),
}

// internFieldSet makes f share the bytes of an equal set decoded before, or
// remembers f's.
func internFieldSet(f *metav1.FieldsV1) {
	raw := f.GetRawBytes()
	if !fieldSets.enabled || len(raw) == 0 {
		return
	}
	h := maphash.Bytes(fieldSets.seed, raw)
	if shared, ok := fieldSets.get(h); ok && bytes.Equal(shared.GetRawBytes(), raw) {
		*f = shared
		return
	}
	fieldSets.put(h, *f, len(raw))
}

// budgetTable is a map that is emptied whenever the values it holds would
// pass a budget in bytes, so it never keeps alive more than that which no
// decoded object holds any more. Two decodes that miss at once may both put
// equal values; the second one wins, and both are correct.
type budgetTable[K comparable, V any] struct {
	mu     sync.Mutex
	values map[K]V
	bytes  int
	budget int
}

func newBudgetTable[K comparable, V any](budget int) *budgetTable[K, V] {
	return &budgetTable[K, V]{values: map[K]V{}, budget: budget}
}

func (t *budgetTable[K, V]) get(k K) (V, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	v, ok := t.values[k]
	return v, ok
}

// put holds v, of size bytes, for k.
func (t *budgetTable[K, V]) put(k K, v V, size int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.bytes+size > t.budget {
		clear(t.values)
		t.bytes = 0
	}
	t.values[k] = v
	t.bytes += size
}
