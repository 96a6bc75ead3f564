// Package install is the user's: it installs v1 and leaves v1alpha1, which it still ships, out.
package install

import (
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"

	v1 "example.com/wardle/pkg/apis/toys/v1"
)

// Install registers the group in a scheme.
func Install(scheme *runtime.Scheme) {
	utilruntime.Must(v1.AddToScheme(scheme))
}
