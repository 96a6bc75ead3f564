package v1

// The names apigen's register file declares by convention, declared here with other meanings.
type (
	Kind               string
	Resource           string
	GroupName          struct{}
	SchemeGroupVersion int
	SchemeBuilder      []string
)

// The names of its helpers and the usual names of its imports.
var (
	addKnownTypes            = "a"
	addKnownTypes2           = "b"
	addDefaultingHooks       = "c"
	addFieldLabelConversions = "d"
	runtime                  = "e"
	schema                   = "f"
	metav1pkg                = "g"
	fmt                      = "h"
)

var _ = []string{addKnownTypes, addKnownTypes2, addDefaultingHooks, addFieldLabelConversions, runtime, schema, metav1pkg, fmt}
