package v1alpha1

import (
	"k8s.io/apimachinery/pkg/conversion"

	"example.com/wardle/pkg/apis/wardle/v1beta1"
)

// Convert_v1alpha1_FlunderSpec_To_v1beta1_FlunderSpec turns v1alpha1's reference and
// referenceType fields into v1beta1's reference object. conversion-gen cannot: the fields
// changed shape. A referenceType without a reference has nothing to refer to and is dropped.
// Every other field is conversion-gen's to convert: autoConvert_ keeps them all, including
// fields added after this function was written.
func Convert_v1alpha1_FlunderSpec_To_v1beta1_FlunderSpec(in *FlunderSpec, out *v1beta1.FlunderSpec, s conversion.Scope) error {
	if err := autoConvert_v1alpha1_FlunderSpec_To_v1beta1_FlunderSpec(in, out, s); err != nil {
		return err
	}
	out.Reference = nil
	if in.Reference == "" {
		return nil
	}
	out.Reference = &v1beta1.FlunderReference{Kind: v1beta1.FlunderReferenceType, Name: in.Reference}
	if in.ReferenceType != nil {
		out.Reference.Kind = v1beta1.ReferenceType(*in.ReferenceType)
	}
	return nil
}

// Convert_v1beta1_FlunderSpec_To_v1alpha1_FlunderSpec turns v1beta1's reference object back
// into v1alpha1's two fields, after autoConvert_ has converted every other field.
func Convert_v1beta1_FlunderSpec_To_v1alpha1_FlunderSpec(in *v1beta1.FlunderSpec, out *FlunderSpec, s conversion.Scope) error {
	if err := autoConvert_v1beta1_FlunderSpec_To_v1alpha1_FlunderSpec(in, out, s); err != nil {
		return err
	}
	out.Reference, out.ReferenceType = "", nil
	if in.Reference == nil {
		return nil
	}
	kind := ReferenceType(in.Reference.Kind)
	out.Reference, out.ReferenceType = in.Reference.Name, &kind
	return nil
}
