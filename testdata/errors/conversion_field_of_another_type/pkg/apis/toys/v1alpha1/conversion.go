package v1alpha1

import (
	"k8s.io/apimachinery/pkg/conversion"

	v1 "example.com/wardle/pkg/apis/toys/v1"
)

// The spec's conversions are written, but conversion-gen's autoConvert functions, which must
// compile, still convert the two Target fields with functions no one has written.

func Convert_v1alpha1_ToySpec_To_v1_ToySpec(in *ToySpec, out *v1.ToySpec, s conversion.Scope) error {
	out.Target = v1.MetricTarget{Type: "Value", Value: in.TargetValue}
	return nil
}

func Convert_v1_ToySpec_To_v1alpha1_ToySpec(in *v1.ToySpec, out *ToySpec, s conversion.Scope) error {
	out.TargetValue = in.Target.Value
	return nil
}
