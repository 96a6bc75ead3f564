package server

import (
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/versioning"
)

// StorageVersions is the version each kind is stored in. Kinds of one group
// may be stored in different versions (each kind's +apigen:storageversion),
// which neither a codec for a list of group versions nor a
// runtime.MultiGroupVersioner can express.
type StorageVersions map[schema.GroupKind]schema.GroupVersion

var _ runtime.GroupVersioner = StorageVersions{}

// KindForGroupVersionKinds returns the storage version of the first kind it
// knows; list kinds and kinds of other groups are not stored.
func (s StorageVersions) KindForGroupVersionKinds(kinds []schema.GroupVersionKind) (schema.GroupVersionKind, bool) {
	for _, k := range kinds {
		if gv, ok := s[k.GroupKind()]; ok {
			return gv.WithKind(k.Kind), true
		}
	}
	return schema.GroupVersionKind{}, false
}

// Identifier names the mapping for the serializers' caches; equal mappings
// have equal identifiers.
func (s StorageVersions) Identifier() string {
	keys := slices.SortedFunc(maps.Keys(s), func(a, b schema.GroupKind) int { return strings.Compare(a.String(), b.String()) })
	var b strings.Builder
	b.WriteString("storage-versions:")
	for _, k := range keys {
		b.WriteString(k.String() + "=" + s[k].String() + ";")
	}
	return b.String()
}

// storageCodec encodes objects as JSON in their kind's storage version and
// decodes any stored version to the internal (hub) version, applying defaults,
// as the codec kube-apiserver stores built-in kinds with.
func storageCodec(apis APIs) runtime.Codec {
	json, _ := runtime.SerializerInfoForMediaType(apis.Codecs.SupportedMediaTypes(), runtime.ContentTypeJSON)
	return versioning.NewDefaultingCodecForScheme(apis.Scheme, json.Serializer, apis.Codecs.UniversalDeserializer(),
		apis.StorageVersions, runtime.InternalGroupVersioner)
}
