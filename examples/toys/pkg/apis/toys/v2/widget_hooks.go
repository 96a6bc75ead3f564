package v2

import (
	"context"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Validate checks a Widget on create and update.
func (w *Widget) Validate(ctx context.Context) field.ErrorList {
	if w.Spec.Paint == "blue" && w.Spec.Size > 50 {
		return field.ErrorList{field.Invalid(field.NewPath("spec", "size"), w.Spec.Size, "blue widgets are at most 50 cm")}
	}
	return nil
}
