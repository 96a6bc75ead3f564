package v1

import "k8s.io/apimachinery/pkg/runtime"

// localSchemeBuilder is the name the generated conversions register with; without
// AddToScheme, apigen would declare it a second time.
var localSchemeBuilder = runtime.NewSchemeBuilder()
