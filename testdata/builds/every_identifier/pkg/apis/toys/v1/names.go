package v1

// The names apigen's register file declares by convention, declared here with other meanings
// (SchemeGroupVersion and Resource, which the generated clients use too, are in
// clientnames.go with the meaning they need).
type (
	Kind          string
	GroupName     struct{}
	SchemeBuilder []string
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
