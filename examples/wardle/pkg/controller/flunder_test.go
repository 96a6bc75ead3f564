package controller_test

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"example.com/wardle/pkg/apis/wardle/v1alpha1"
	"example.com/wardle/pkg/apis/wardle/v1beta1"
	"example.com/wardle/pkg/controller"
	"example.com/wardle/pkg/generated/clientset/versioned/fake"
	"example.com/wardle/pkg/generated/informers/externalversions"
)

// TestReconcile drives the controller against the generated fake clientset: a Flunder that
// refers to a missing Fischer is NotFound; once the Fischer exists, Found.
func TestReconcile(t *testing.T) {
	flunder := &v1beta1.Flunder{
		ObjectMeta: metav1.ObjectMeta{Name: "f", Namespace: "default", Generation: 1},
		Spec:       v1beta1.FlunderSpec{Reference: &v1beta1.FlunderReference{Kind: v1beta1.FischerReferenceType, Name: "fritz"}},
	}
	client := fake.NewClientset(flunder)
	factory := externalversions.NewSharedInformerFactory(client, 0)
	c, err := controller.New(client, factory)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer factory.Shutdown() // after cancel: it waits for the informers to stop
	defer cancel()
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())

	check := func(wantStatus metav1.ConditionStatus, wantReason string) {
		t.Helper()
		if err := c.Reconcile(t.Context(), "default/f"); err != nil {
			t.Fatal(err)
		}
		got, err := client.WardleV1beta1().Flunders("default").Get(t.Context(), "f", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var cond *metav1.Condition
		for i := range got.Status.Conditions {
			if got.Status.Conditions[i].Type == controller.ReferenceResolved {
				cond = &got.Status.Conditions[i]
			}
		}
		if cond == nil || cond.Status != wantStatus || cond.Reason != wantReason || cond.ObservedGeneration != 1 {
			t.Fatalf("condition %+v, want %s %s at generation 1", cond, wantStatus, wantReason)
		}
	}
	check(metav1.ConditionFalse, "NotFound")

	// As sample-controller's tests do, the Fischer goes straight into the informer's store.
	fischer := &v1alpha1.Fischer{ObjectMeta: metav1.ObjectMeta{Name: "fritz"}}
	if err := factory.Wardle().V1alpha1().Fischers().Informer().GetIndexer().Add(fischer); err != nil {
		t.Fatal(err)
	}
	check(metav1.ConditionTrue, "Found")
}
