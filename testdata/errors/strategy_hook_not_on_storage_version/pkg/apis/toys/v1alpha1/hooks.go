package v1alpha1

import (
	"context"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Default is fine in any version: it runs on decode.
func (t *Toy) Default() {}

// Validate is never called: Toy is stored in v1.
func (t *Toy) Validate(ctx context.Context) field.ErrorList { return nil }
