package v1alpha1

import (
	"k8s.io/apimachinery/pkg/conversion"

	v1 "example.com/wardle/pkg/apis/toys/v1"
)

func Convert_v1alpha1_ToySpec_To_v1_ToySpec(in *ToySpec, out *v1.ToySpec, s conversion.Scope) error {
	out.Colour = in.Color
	return nil
}

func Convert_v1_ToySpec_To_v1alpha1_ToySpec(in *v1.ToySpec, out *ToySpec, s conversion.Scope) error {
	out.Color = in.Colour
	return nil
}
