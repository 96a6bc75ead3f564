package v1alpha1

import (
	"k8s.io/apimachinery/pkg/conversion"

	v1 "example.com/wardle/pkg/apis/toys/v1"
)

// Convert_v1alpha1_Toy_To_v1_Toy is conversion code of the version's own: its other
// conversions are the user's to write too, and each one missing is an error.
func Convert_v1alpha1_Toy_To_v1_Toy(in *Toy, out *v1.Toy, s conversion.Scope) error {
	return autoConvert_v1alpha1_Toy_To_v1_Toy(in, out, s)
}
