package v1

import apischema "k8s.io/apimachinery/pkg/runtime/schema"

// SchemeGroupVersion and Resource are declared by the package itself, as the generated
// clients, listers and informers use them, so apigen's registration declares neither.
// SchemeGroupVersion's type is inferred, as kubebuilder projects alias GroupVersion.
var SchemeGroupVersion = groupVersion

var groupVersion = apischema.GroupVersion{Group: "toys.example.com", Version: "v1"}

// Resource is a resource of this group.
func Resource(resource string) apischema.GroupResource {
	return SchemeGroupVersion.WithResource(resource).GroupResource()
}
