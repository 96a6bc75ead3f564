// Package fuzzer fills wardle's types with random values that its conversions can keep, for
// the generated round-trip test (pkg/apis/wardle/install), as Kubernetes' own API groups do.
package fuzzer

import (
	runtimeserializer "k8s.io/apimachinery/pkg/runtime/serializer"
	"sigs.k8s.io/randfill"

	"example.com/wardle/pkg/apis/wardle/v1beta1"
)

// Funcs are the fuzzer functions of the wardle group.
var Funcs = func(codecs runtimeserializer.CodecFactory) []any {
	return []any{
		// A reference always names something: validation refuses one without a name, and
		// v1alpha1, whose reference is the name, cannot hold it.
		func(r *v1beta1.FlunderReference, c randfill.Continue) {
			c.FillNoCustom(r)
			if r.Name == "" {
				r.Name = "flunder-" + c.String(8)
			}
		},
	}
}
