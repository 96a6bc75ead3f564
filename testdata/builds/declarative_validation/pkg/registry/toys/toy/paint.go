// This file was scaffolded by apigen and is yours to edit.

package toy

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/rest"

	v1 "example.com/toys/pkg/apis/toys/v1"
)

// PaintREST serves the toys/paint subresource (get, patch, update), which
// +apigen:subresource:custom declares on Toy: a repaint changes the toy's colour (spec.red and
// spec.blue) and nothing else. It writes through the main resource's store, so the kind's
// strategy, and with it the kind's declarative validation, checks the result.
type PaintREST struct {
	// main is the toys storage; main.Store reads and writes the objects.
	main *REST
}

// NewPaintREST returns the storage of toys/paint; the generated install code calls it.
func NewPaintREST(main *REST) rest.Storage { return &PaintREST{main: main} }

// New returns the object a request body decodes into.
func (r *PaintREST) New() runtime.Object { return &v1.Toy{} }

// Destroy does nothing: the main resource's store owns the storage.
func (r *PaintREST) Destroy() {}

// Get returns the toy, so that clients can read what they are about to repaint.
func (r *PaintREST) Get(ctx context.Context, name string, options *metav1.GetOptions) (runtime.Object, error) {
	return r.main.Get(ctx, name, options)
}

// Update takes the colour of the toy it is given and keeps everything else of the stored one.
func (r *PaintREST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	return r.main.Update(ctx, name, colourOnly{objInfo}, createValidation, updateValidation, false, options)
}

// colourOnly keeps the stored toy but for the colour of the request's.
type colourOnly struct{ rest.UpdatedObjectInfo }

func (c colourOnly) UpdatedObject(ctx context.Context, oldObj runtime.Object) (runtime.Object, error) {
	obj, err := c.UpdatedObjectInfo.UpdatedObject(ctx, oldObj)
	if err != nil {
		return nil, err
	}
	requested := obj.(*v1.Toy)
	out := oldObj.(*v1.Toy).DeepCopy()
	out.ResourceVersion = requested.ResourceVersion
	out.Spec.Red, out.Spec.Blue = requested.Spec.Red, requested.Spec.Blue
	return out, nil
}
