package server

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"
)

// GroupSerializer is what the requests and responses of one API group are encoded with: the
// codecs genericapiserver.NewDefaultAPIGroupInfo made for the group (whose lists stream, item
// by item, in JSON and protobuf, as kube-apiserver's do), offering protobuf only when every type the group registers (kinds, lists,
// options, subresource types) can be encoded and decoded so. k8s.io/apiserver's codec factory
// offers protobuf for any scheme, so a client that asks for it first (the metadata client of
// kube-controller-manager's namespace controller and garbage collector, client-go with
// ContentType protobuf) would be answered with an encoding error instead of its second choice,
// JSON. Without protobuf among the group's media types, content negotiation picks the next
// acceptable one, answers 406 when none is left, and answers a protobuf request body with 415
// naming the media types it accepts: what kube-apiserver does for a CRD.
func GroupSerializer(scheme *runtime.Scheme, codecs runtime.NegotiatedSerializer, group string) runtime.NegotiatedSerializer {
	why := protobufMissing(scheme, codecs, group)
	if why == "" {
		return codecs
	}
	klog.V(1).InfoS("Serving the group without protobuf", "group", group, "reason", why)
	return withoutProtobuf{
		NegotiatedSerializer: codecs,
		mediaTypes: slices.DeleteFunc(slices.Clone(codecs.SupportedMediaTypes()), func(info runtime.SerializerInfo) bool {
			return info.MediaType == runtime.ContentTypeProtobuf
		}),
	}
}

// withoutProtobuf is a codec factory that does not offer protobuf.
type withoutProtobuf struct {
	runtime.NegotiatedSerializer
	mediaTypes []runtime.SerializerInfo
}

func (s withoutProtobuf) SupportedMediaTypes() []runtime.SerializerInfo { return s.mediaTypes }

// protobufMissing says why not every type registered in an external version of group survives
// a round trip through the protobuf serializer, or "" when all do: the marshalers k8s.io/api's
// types ship, or ones generated for the project's types. It is the types' method sets that
// decide, so the answer is the same on every start.
func protobufMissing(scheme *runtime.Scheme, codecs runtime.NegotiatedSerializer, group string) string {
	info, ok := runtime.SerializerInfoForMediaType(codecs.SupportedMediaTypes(), runtime.ContentTypeProtobuf)
	if !ok {
		return "the codecs have no protobuf serializer"
	}
	known := scheme.AllKnownTypes()
	kinds := slices.SortedFunc(maps.Keys(known), func(a, b schema.GroupVersionKind) int { return strings.Compare(a.String(), b.String()) })
	found := false
	for _, gvk := range kinds {
		if gvk.Group != group || gvk.Version == runtime.APIVersionInternal {
			continue
		}
		found = true
		obj, err := scheme.New(gvk)
		if err != nil {
			return err.Error()
		}
		obj.GetObjectKind().SetGroupVersionKind(gvk)
		data, err := runtime.Encode(info.Serializer, obj)
		if err != nil {
			return fmt.Sprintf("%s: %v", gvk, err)
		}
		if _, _, err := info.Serializer.Decode(data, &gvk, nil); err != nil {
			return fmt.Sprintf("%s: %v", gvk, err)
		}
	}
	if !found {
		return "the group has no types"
	}
	return ""
}
