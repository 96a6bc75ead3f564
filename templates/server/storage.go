package server

import (
	"fmt"
	"io"
	"maps"
	"mime"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/cbor"
	"k8s.io/apimachinery/pkg/runtime/serializer/recognizer"
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

// storageMediaTypes are the encodings --storage-media-type can choose, in
// the order its help and errors name them. Protobuf needs generated
// marshalers in the stored types, which apigen does not write; storageCodec
// refuses it for any kind without them.
var storageMediaTypes = []string{
	runtime.ContentTypeJSON,
	runtime.ContentTypeYAML,
	runtime.ContentTypeCBOR,
	runtime.ContentTypeProtobuf,
}

// storageCodec encodes objects in the media type of --storage-media-type in
// their kind's storage version, and decodes any stored version to the internal
// (hub) version, applying defaults, as the codec kube-apiserver stores
// built-in kinds with. It decodes every encoding it could have written
// (recognizing each by its first bytes, as kube-apiserver's storage codec
// does), so a server started with another media type on the same storage
// still reads what was stored before and writes in the new one. The objects
// it decodes share their metadata's repeated values (internCodec): they are
// what the watch cache holds.
func storageCodec(apis APIs, mediaType string) (runtime.Codec, error) {
	if mediaType == "" {
		mediaType = runtime.ContentTypeJSON
	}
	bare, _, err := mime.ParseMediaType(mediaType)
	if err != nil || !slices.Contains(storageMediaTypes, bare) {
		return nil, fmt.Errorf("--storage-media-type %q is not supported; want one of %s",
			mediaType, strings.Join(storageMediaTypes, ", "))
	}
	// The project's codec factory does not serve CBOR; storage needs only
	// the serializer, which works on any Go type by reflection (types with a
	// MarshalJSON method are transcoded from it).
	cborSerializer := cbor.NewSerializer(apis.Scheme, apis.Scheme)
	var encoder runtime.Encoder = cborSerializer
	if bare != runtime.ContentTypeCBOR {
		info, ok := runtime.SerializerInfoForMediaType(apis.Codecs.SupportedMediaTypes(), bare)
		if !ok {
			return nil, fmt.Errorf("--storage-media-type %q: the server's codecs have no serializer for it", mediaType)
		}
		encoder = info.Serializer
	}
	decoder := recognizer.NewDecoder(cborSerializer, apis.Codecs.UniversalDeserializer())
	codec := versioning.NewDefaultingCodecForScheme(apis.Scheme, encoder, decoder,
		apis.StorageVersions, runtime.InternalGroupVersioner)

	// Whether a kind can be encoded so is a property of its Go type (protobuf
	// wants generated marshalers): find out now rather than on the first write.
	kinds := slices.SortedFunc(maps.Keys(apis.StorageVersions), func(a, b schema.GroupKind) int { return strings.Compare(a.String(), b.String()) })
	for _, gk := range kinds {
		obj, err := apis.Scheme.New(apis.StorageVersions[gk].WithKind(gk.Kind))
		if err != nil {
			return nil, fmt.Errorf("storage version of %s: %w", gk, err)
		}
		if err := codec.Encode(obj, io.Discard); err != nil {
			return nil, fmt.Errorf("--storage-media-type %q: %s cannot be stored so: %w", mediaType, gk, err)
		}
	}
	return internCodec{codec}, nil
}
