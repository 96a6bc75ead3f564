package v1alpha1

import (
	"context"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Default sets ReferenceType to Flunder when a reference is given without one. The generated
// registration calls it whenever a Flunder is decoded.
func (f *Flunder) Default() {
	if f.Spec.Reference != "" && f.Spec.ReferenceType == nil {
		t := FlunderReferenceType
		f.Spec.ReferenceType = &t
	}
}

// Validate checks a Flunder on create and update; the generated strategy calls it after the
// metadata checks.
func (f *Flunder) Validate(ctx context.Context) field.ErrorList {
	var errs field.ErrorList
	spec := field.NewPath("spec")
	if t := f.Spec.ReferenceType; t != nil {
		switch *t {
		case FlunderReferenceType, FischerReferenceType:
		default:
			errs = append(errs, field.NotSupported(spec.Child("referenceType"), *t, []ReferenceType{FlunderReferenceType, FischerReferenceType}))
		}
		if f.Spec.Reference == "" {
			errs = append(errs, field.Required(spec.Child("reference"), "a reference type needs a reference"))
		}
	}
	if f.Spec.Reference == f.Name && f.Spec.Reference != "" {
		errs = append(errs, field.Invalid(spec.Child("reference"), f.Spec.Reference, "a flunder cannot refer to itself"))
	}
	return errs
}
