package server

import (
	"context"
	"strings"
	"testing"

	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/registry/rest"
)

type getOnly struct{}

func (getOnly) New() runtime.Object { return &metav1.Status{} }
func (getOnly) Destroy()            {}
func (getOnly) Get(context.Context, string, *metav1.GetOptions) (runtime.Object, error) {
	return nil, nil
}

type getUpdate struct{ getOnly }

func (getUpdate) Update(context.Context, string, rest.UpdatedObjectInfo, rest.ValidateObjectFunc, rest.ValidateObjectUpdateFunc, bool, *metav1.UpdateOptions) (runtime.Object, bool, error) {
	return nil, false, nil
}

// CheckVerbs accepts storage that serves exactly the declared verbs (patch comes with get and
// update, as the API server serves it) and names both sets otherwise.
func TestCheckVerbs(t *testing.T) {
	if err := CheckVerbs("flunders/approval", getUpdate{}, "get", "patch", "update"); err != nil {
		t.Errorf("get, patch, update storage declared so: %v", err)
	}
	err := CheckVerbs("flunders/approval", getOnly{}, "get", "patch", "update")
	if err == nil || !strings.Contains(err.Error(), "flunders/approval serves the verbs [get], but its +apigen:subresource:custom marker declares [get patch update]") {
		t.Errorf("get-only storage declared get, patch, update: %v", err)
	}
	if err := CheckVerbs("flunders/x", getUpdate{}, "get"); err == nil {
		t.Error("storage serving more than declared passed the check")
	}
}

type readOnly struct{ getOnly }

func (readOnly) NewList() runtime.Object { return &metav1.List{} }
func (readOnly) List(context.Context, *metainternalversion.ListOptions) (runtime.Object, error) {
	return nil, nil
}
func (readOnly) ConvertToTable(context.Context, runtime.Object, runtime.Object) (*metav1.Table, error) {
	return nil, nil
}
func (readOnly) Watch(context.Context, *metainternalversion.ListOptions) (watch.Interface, error) {
	return nil, nil
}

// A resource's own storage (+apigen:storage:custom) is checked for list, watch and the other
// collection verbs too, and the error names its marker.
func TestCheckVerbsOfResource(t *testing.T) {
	if err := CheckVerbs("summaries", readOnly{}, "get", "list", "watch"); err != nil {
		t.Errorf("get, list, watch storage declared so: %v", err)
	}
	err := CheckVerbs("summaries", readOnly{}, "get", "list")
	if err == nil || !strings.Contains(err.Error(), "summaries serves the verbs [get list watch], but its +apigen:storage:custom marker declares [get list]") {
		t.Errorf("get, list, watch storage declared get, list: %v", err)
	}
}
