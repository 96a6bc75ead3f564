package v1beta1

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// SchemeGroupVersion is registered here, by hand, without the localSchemeBuilder that the
// conversions to and from v1 register with, and with a builder of another name, which apigen
// cannot know to point one at.
var SchemeGroupVersion = schema.GroupVersion{Group: "toys.example.com", Version: "v1beta1"}

var (
	schemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)
	AddToScheme   = schemeBuilder.AddToScheme
)

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(SchemeGroupVersion, &Toy{}, &ToyList{})
	return nil
}
