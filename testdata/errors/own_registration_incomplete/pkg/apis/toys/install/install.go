// Package install is the user's: it registers the group without its defaults.
package install

import (
	"k8s.io/apimachinery/pkg/runtime"

	v1 "example.com/wardle/pkg/apis/toys/v1"
	"example.com/wardle/pkg/apis/toys/v1beta1"
)

// Install registers the group in a scheme.
func Install(scheme *runtime.Scheme) {
	if err := v1.AddToScheme(scheme); err != nil {
		panic(err)
	}
	if err := v1beta1.AddToScheme(scheme); err != nil {
		panic(err)
	}
}
