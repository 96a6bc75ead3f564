// This file was scaffolded by apigen and is yours to edit.

package flunder

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/rest"

	v1beta1 "example.com/wardle/pkg/apis/wardle/v1beta1"
)

// Approved is the condition that the approval subresource sets.
const Approved = "Approved"

// ApprovalREST serves the flunders/approval subresource (get, patch, update), which
// +apigen:subresource:custom declares on Flunder. As a CertificateSigningRequest's /approval
// does, an update changes only the Approved condition in status: who may approve is a matter
// of RBAC on flunders/approval, apart from who may edit the spec or write the status.
type ApprovalREST struct {
	// main is the flunders storage; main.Store reads and writes the objects.
	main *REST
}

// NewApprovalREST returns the storage of flunders/approval; the generated install code calls it.
func NewApprovalREST(main *REST) rest.Storage { return &ApprovalREST{main: main} }

// New returns the object a request body decodes into.
func (r *ApprovalREST) New() runtime.Object { return &v1beta1.Flunder{} }

// Destroy does nothing: the main resource's store owns the storage.
func (r *ApprovalREST) Destroy() {}

// Get returns the flunder, so that clients can read what they are about to approve.
func (r *ApprovalREST) Get(ctx context.Context, name string, options *metav1.GetOptions) (runtime.Object, error) {
	return r.main.Get(ctx, name, options)
}

// Update takes the Approved condition of the flunder it is given and keeps everything else
// of the stored one.
func (r *ApprovalREST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	// The status strategy keeps the stored spec and metadata; the main one would drop the
	// status change.
	store := *r.main.Store
	store.UpdateStrategy = statusStrategy{r.main.Store.UpdateStrategy.(strategy)}
	return store.Update(ctx, name, approvalOnly{objInfo}, createValidation, updateValidation, false, options)
}

// approvalOnly keeps the stored flunder but for the Approved condition of the request's.
type approvalOnly struct{ rest.UpdatedObjectInfo }

func (a approvalOnly) UpdatedObject(ctx context.Context, oldObj runtime.Object) (runtime.Object, error) {
	obj, err := a.UpdatedObjectInfo.UpdatedObject(ctx, oldObj)
	if err != nil {
		return nil, err
	}
	requested := meta.FindStatusCondition(obj.(*v1beta1.Flunder).Status.Conditions, Approved)
	if requested == nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("an approval sets the %s condition in status.conditions", Approved))
	}
	out := oldObj.(*v1beta1.Flunder).DeepCopy()
	out.ResourceVersion = obj.(*v1beta1.Flunder).ResourceVersion
	meta.SetStatusCondition(&out.Status.Conditions, *requested)
	return out, nil
}
