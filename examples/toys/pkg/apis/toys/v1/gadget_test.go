// This file was scaffolded by apigen and is yours to edit.

package v1_test

import (
	"context"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"example.com/toys/pkg/apis/toys/v1"
	"example.com/toys/pkg/apiserver"
	"example.com/toys/pkg/cmd/server/servertest"
	applyv1 "example.com/toys/pkg/generated/applyconfiguration/toys/v1"
	"example.com/toys/pkg/generated/clientset/versioned"
	"example.com/toys/pkg/generated/clientset/versioned/fake"
	"example.com/toys/pkg/generated/informers/externalversions"
)

// TestGadget runs the API server in process (embedded etcd in a temporary directory,
// stopped when the test ends) and drives gadgets with the generated typed client: create,
// get, update, status update, server-side apply with the generated apply
// configurations, and delete, while an informer from the generated factory sees each change.
// Extend it as your Gadget grows: fill in its spec, and check what your hooks do.
func TestGadget(t *testing.T) {
	cs, err := versioned.NewForConfig(servertest.Start(t, apiserver.APIs()))
	if err != nil {
		t.Fatal(err)
	}
	client := cs.ToysV1().Gadgets()
	next := watchGadget(t, externalversions.NewSharedInformerFactory(cs, 0))

	created, err := client.Create(t.Context(), &v1.Gadget{
		ObjectMeta: metav1.ObjectMeta{Name: "example"},
		Spec:       v1.GadgetSpec{Foo: "created"},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating a Gadget: %v", err)
	}
	next("add")
	got, err := client.Get(t.Context(), "example", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("getting the Gadget back: %v", err)
	}
	if got.UID != created.UID || got.UID == "" || got.CreationTimestamp.IsZero() || got.Spec.Foo != "created" {
		t.Errorf("got back uid %q, created %v, spec %+v; want uid %q with a creation time and the spec", got.UID, got.CreationTimestamp, got.Spec, created.UID)
	}

	got.Spec.Foo = "updated"
	updated, err := client.Update(t.Context(), got, metav1.UpdateOptions{})
	if err != nil || updated.Spec.Foo != "updated" {
		t.Fatalf("updating the Gadget: %v, spec %+v", err, updated.Spec)
	}
	next("update")

	updated.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Example", LastTransitionTime: metav1.Now()}}
	withStatus, err := client.UpdateStatus(t.Context(), updated, metav1.UpdateOptions{})
	if err != nil || len(withStatus.Status.Conditions) != 1 {
		t.Fatalf("updating the Gadget's status: %v, status %+v", err, withStatus.Status)
	}
	next("update")

	// Server-side apply: this field manager takes spec.foo over from the updates above.
	applied, err := client.Apply(t.Context(),
		applyv1.Gadget("example").WithSpec(applyv1.GadgetSpec().WithFoo("applied")),
		metav1.ApplyOptions{FieldManager: "example-test", Force: true})
	if err != nil || applied.Spec.Foo != "applied" {
		t.Fatalf("applying the Gadget: %v, spec %+v", err, applied.Spec)
	}
	next("update")
	mine, err := applyv1.ExtractGadget(applied, "example-test")
	if err != nil || mine.Spec == nil || mine.Spec.Foo == nil || *mine.Spec.Foo != "applied" {
		t.Errorf("extracting what example-test applied: %v, %+v", err, mine)
	}

	if err := client.Delete(t.Context(), "example", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("deleting the Gadget: %v", err)
	}
	next("delete")
	if _, err := client.Get(t.Context(), "example", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("getting the deleted Gadget: %v, want NotFound", err)
	}
}

// TestGadgetFake shows the generated fake clientset, for unit tests of code that uses the
// client, a lister or an informer without a server.
func TestGadgetFake(t *testing.T) {
	cs := fake.NewClientset()
	// Seeded through the client, as the code under test would create it.
	seeded := &v1.Gadget{ObjectMeta: metav1.ObjectMeta{Name: "seeded"}}
	if _, err := cs.ToysV1().Gadgets().Create(t.Context(), seeded, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	factory := externalversions.NewSharedInformerFactory(cs, 0)
	lister := factory.Toys().V1().Gadgets().Lister()
	factory.Start(t.Context().Done())
	factory.WaitForCacheSync(t.Context().Done())
	got, err := lister.Get("seeded")
	if err != nil || got.Name != "seeded" {
		t.Errorf("the lister of the fake clientset: %v, %v", got, err)
	}
}

// watchGadget starts the factory's Gadget informer and returns a function that waits for its
// next event and checks its kind (add, update or delete).
func watchGadget(t *testing.T, factory externalversions.SharedInformerFactory) func(want string) {
	events := make(chan string, 100)
	informer := factory.Toys().V1().Gadgets().Informer()
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { events <- "add" },
		UpdateFunc: func(any, any) { events <- "update" },
		DeleteFunc: func(any) { events <- "delete" },
	}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); factory.Shutdown() })
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		t.Fatal("the informer did not sync")
	}
	return func(want string) {
		t.Helper()
		select {
		case got := <-events:
			if got != want {
				t.Fatalf("the informer saw %s, want %s", got, want)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("the informer saw no %s within 30s", want)
		}
	}
}
