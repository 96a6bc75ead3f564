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

// TestWidget runs the API server in process (embedded etcd in a temporary directory,
// stopped when the test ends) and drives widgets with the generated typed client: create,
// get, update, status update, server-side apply with the generated apply
// configurations, and delete, while an informer from the generated factory sees each change.
// Extend it as your Widget grows: fill in its spec, and check what your hooks do.
func TestWidget(t *testing.T) {
	cs, err := versioned.NewForConfig(servertest.Start(t, apiserver.APIs()))
	if err != nil {
		t.Fatal(err)
	}
	client := cs.ToysV1().Widgets("default")
	next := watchWidget(t, externalversions.NewSharedInformerFactory(cs, 0))

	created, err := client.Create(t.Context(), &v1.Widget{
		ObjectMeta: metav1.ObjectMeta{Name: "example"},
		Spec:       v1.WidgetSpec{Size: 3},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating a Widget: %v", err)
	}
	next("add")
	got, err := client.Get(t.Context(), "example", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("getting the Widget back: %v", err)
	}
	if got.UID != created.UID || got.UID == "" || got.CreationTimestamp.IsZero() || got.Spec.Size != 3 {
		t.Errorf("got back uid %q, created %v, spec %+v; want uid %q with a creation time and the spec", got.UID, got.CreationTimestamp, got.Spec, created.UID)
	}

	got.Spec.Size = 4
	updated, err := client.Update(t.Context(), got, metav1.UpdateOptions{})
	if err != nil || updated.Spec.Size != 4 {
		t.Fatalf("updating the Widget: %v, spec %+v", err, updated.Spec)
	}
	next("update")

	updated.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Example", LastTransitionTime: metav1.Now()}}
	withStatus, err := client.UpdateStatus(t.Context(), updated, metav1.UpdateOptions{})
	if err != nil || len(withStatus.Status.Conditions) != 1 {
		t.Fatalf("updating the Widget's status: %v, status %+v", err, withStatus.Status)
	}
	next("update")

	// Server-side apply: this field manager takes spec.foo over from the updates above.
	applied, err := client.Apply(t.Context(),
		applyv1.Widget("example", "default").WithSpec(applyv1.WidgetSpec().WithSize(5)),
		metav1.ApplyOptions{FieldManager: "example-test", Force: true})
	if err != nil || applied.Spec.Size != 5 {
		t.Fatalf("applying the Widget: %v, spec %+v", err, applied.Spec)
	}
	next("update")
	mine, err := applyv1.ExtractWidget(applied, "example-test")
	if err != nil || mine.Spec == nil || mine.Spec.Size == nil || *mine.Spec.Size != 5 {
		t.Errorf("extracting what example-test applied: %v, %+v", err, mine)
	}

	if err := client.Delete(t.Context(), "example", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("deleting the Widget: %v", err)
	}
	next("delete")
	if _, err := client.Get(t.Context(), "example", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("getting the deleted Widget: %v, want NotFound", err)
	}
}

// TestWidgetFake shows the generated fake clientset, for unit tests of code that uses the
// client, a lister or an informer without a server.
func TestWidgetFake(t *testing.T) {
	cs := fake.NewClientset()
	// Seeded through the client, as the code under test would create it.
	seeded := &v1.Widget{ObjectMeta: metav1.ObjectMeta{Name: "seeded"}}
	if _, err := cs.ToysV1().Widgets("default").Create(t.Context(), seeded, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	factory := externalversions.NewSharedInformerFactory(cs, 0)
	lister := factory.Toys().V1().Widgets().Lister()
	factory.Start(t.Context().Done())
	factory.WaitForCacheSync(t.Context().Done())
	got, err := lister.Widgets("default").Get("seeded")
	if err != nil || got.Name != "seeded" {
		t.Errorf("the lister of the fake clientset: %v, %v", got, err)
	}
}

// watchWidget starts the factory's Widget informer and returns a function that waits for its
// next event and checks its kind (add, update or delete).
func watchWidget(t *testing.T, factory externalversions.SharedInformerFactory) func(want string) {
	events := make(chan string, 100)
	informer := factory.Toys().V1().Widgets().Informer()
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
