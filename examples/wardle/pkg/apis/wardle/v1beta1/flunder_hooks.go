package v1beta1

import (
	"context"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Validate checks a Flunder on create and update, whichever version the request used: the
// generated strategy calls it on the storage version, after the metadata checks.
func (f *Flunder) Validate(ctx context.Context) field.ErrorList {
	var errs field.ErrorList
	ref := f.Spec.Reference
	if ref == nil {
		return nil
	}
	path := field.NewPath("spec", "reference")
	switch ref.Kind {
	case FlunderReferenceType, FischerReferenceType:
	default:
		errs = append(errs, field.NotSupported(path.Child("kind"), ref.Kind, []ReferenceType{FlunderReferenceType, FischerReferenceType}))
	}
	if ref.Name == "" {
		errs = append(errs, field.Required(path.Child("name"), "a reference needs a name"))
	}
	if ref.Name == f.Name {
		errs = append(errs, field.Invalid(path.Child("name"), ref.Name, "a flunder cannot refer to itself"))
	}
	return errs
}
