// Package admission holds the wardle server's own admission plugins; cmd/apiserver/main.go
// registers them.
package admission

import (
	"context"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/client-go/tools/cache"

	"example.com/wardle/pkg/apis/wardle/v1alpha1"
	"example.com/wardle/pkg/cmd/server"
)

// BanFlunder refuses to create a flunder whose name a Fischer lists in disallowedFlunders, as
// k8s.io/sample-apiserver's BanFlunder plugin does.
var BanFlunder = server.AdmissionPlugin{Name: "BanFlunder", New: newBanFlunder}

type banFlunder struct {
	*admission.Handler
	fischers cache.GenericLister
}

var _ admission.ValidationInterface = &banFlunder{}

func newBanFlunder(informers server.Informers) (admission.Interface, error) {
	fischers := informers.ForResource(v1alpha1.SchemeGroupVersion.WithResource("fischers"))
	b := &banFlunder{Handler: admission.NewHandler(admission.Create), fischers: fischers.Lister()}
	b.SetReadyFunc(fischers.Informer().HasSynced)
	return b, nil
}

// Validate refuses the creation of a flunder that some Fischer disallows.
func (b *banFlunder) Validate(ctx context.Context, a admission.Attributes, _ admission.ObjectInterfaces) error {
	if a.GetResource().GroupResource() != v1alpha1.Resource("flunders") || a.GetSubresource() != "" {
		return nil
	}
	if !b.WaitForReady() {
		return admission.NewForbidden(a, fmt.Errorf("not yet ready to handle request"))
	}
	objs, err := b.fischers.List(labels.Everything())
	if err != nil {
		return admission.NewForbidden(a, err)
	}
	for _, obj := range objs {
		var fischer v1alpha1.Fischer
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.(*unstructured.Unstructured).Object, &fischer); err != nil {
			return admission.NewForbidden(a, err)
		}
		if slices.Contains(fischer.DisallowedFlunders, a.GetName()) {
			return admission.NewForbidden(a, fmt.Errorf("fischer %s disallows flunders named %q", fischer.Name, a.GetName()))
		}
	}
	return nil
}
