// This file was scaffolded by apigen and is yours to edit.

package v1alpha1_test

import (
	"context"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1apply "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/client-go/tools/cache"

	"example.com/wardle/pkg/apis/wardle/v1alpha1"
	"example.com/wardle/pkg/apiserver"
	"example.com/wardle/pkg/cmd/server/servertest"
	applyv1alpha1 "example.com/wardle/pkg/generated/applyconfiguration/wardle/v1alpha1"
	"example.com/wardle/pkg/generated/clientset/versioned"
	"example.com/wardle/pkg/generated/clientset/versioned/fake"
	"example.com/wardle/pkg/generated/informers/externalversions"
)

// TestFlunder runs the API server in process (embedded etcd in a temporary directory,
// stopped when the test ends) and drives flunders with the generated typed client: create,
// get, update, status update, server-side apply with the generated apply configurations, and
// delete, while an informer from the generated factory sees each change. It also checks what
// the Default and Validate hooks in flunder_hooks.go do.
func TestFlunder(t *testing.T) {
	cs, err := versioned.NewForConfig(servertest.Start(t, apiserver.APIs()))
	if err != nil {
		t.Fatal(err)
	}
	client := cs.WardleV1alpha1().Flunders("default")
	next := watchFlunders(t, externalversions.NewSharedInformerFactory(cs, 0))

	created, err := client.Create(t.Context(), &v1alpha1.Flunder{
		ObjectMeta: metav1.ObjectMeta{Name: "example"},
		Spec:       v1alpha1.FlunderSpec{Reference: "other"},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating a Flunder: %v", err)
	}
	next("add")
	got, err := client.Get(t.Context(), "example", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("getting the Flunder back: %v", err)
	}
	if got.UID != created.UID || got.UID == "" || got.CreationTimestamp.IsZero() {
		t.Errorf("got back uid %q, created %v; want uid %q with a creation time", got.UID, got.CreationTimestamp, created.UID)
	}
	// Default: a reference without a type refers to a Flunder.
	if got.Spec.ReferenceType == nil || *got.Spec.ReferenceType != v1alpha1.FlunderReferenceType {
		t.Errorf("spec.referenceType = %v, want the default %q", got.Spec.ReferenceType, v1alpha1.FlunderReferenceType)
	}

	got.Spec.Reference = "another"
	updated, err := client.Update(t.Context(), got, metav1.UpdateOptions{})
	if err != nil || updated.Spec.Reference != "another" || updated.Generation != 2 {
		t.Fatalf("updating the Flunder: %v, spec %+v, generation %d (want 2)", err, updated.Spec, updated.Generation)
	}
	next("update")

	updated.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Example", LastTransitionTime: metav1.Now()}}
	withStatus, err := client.UpdateStatus(t.Context(), updated, metav1.UpdateOptions{})
	if err != nil || len(withStatus.Status.Conditions) != 1 || withStatus.Generation != 2 {
		t.Fatalf("updating the Flunder's status: %v, status %+v, generation %d (want 2)", err, withStatus.Status, withStatus.Generation)
	}
	next("update")

	// Server-side apply: this field manager takes spec.reference over from the updates, and
	// Extract gives back exactly what it applied.
	applied, err := client.Apply(t.Context(),
		applyv1alpha1.Flunder("example", "default").WithSpec(applyv1alpha1.FlunderSpec().WithReference("applied")),
		metav1.ApplyOptions{FieldManager: "example-test", Force: true})
	if err != nil || applied.Spec.Reference != "applied" || len(applied.Status.Conditions) != 1 {
		t.Fatalf("applying the Flunder: %v, spec %+v, status %+v", err, applied.Spec, applied.Status)
	}
	next("update")
	mine, err := applyv1alpha1.ExtractFlunder(applied, "example-test")
	if err != nil || mine.Spec == nil || mine.Spec.Reference == nil || *mine.Spec.Reference != "applied" || mine.Status != nil {
		t.Errorf("extracting what example-test applied: %v, %+v", err, mine)
	}
	// ApplyStatus through the status subresource, with a condition list keyed by type.
	cond := metav1.Condition{Type: "Applied", Status: metav1.ConditionTrue, Reason: "Example", LastTransitionTime: metav1.Now()}
	status, err := client.ApplyStatus(t.Context(), applyv1alpha1.Flunder("example", "default").WithStatus(
		applyv1alpha1.FlunderStatus().WithConditions(conditionApply(cond))), metav1.ApplyOptions{FieldManager: "example-test"})
	if err != nil || len(status.Status.Conditions) != 2 {
		t.Fatalf("applying the Flunder's status: %v, %+v (want Ready and Applied, a list map keyed by type)", err, status.Status)
	}
	next("update")

	// Validate: a flunder may not refer to itself.
	_, err = client.Create(t.Context(), &v1alpha1.Flunder{
		ObjectMeta: metav1.ObjectMeta{Name: "narcissus"},
		Spec:       v1alpha1.FlunderSpec{Reference: "narcissus"},
	}, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "cannot refer to itself") {
		t.Errorf("creating a self-referring Flunder: got %v, want an Invalid error from the Validate hook", err)
	}

	if err := client.Delete(t.Context(), "example", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("deleting the Flunder: %v", err)
	}
	next("delete")
	if _, err := client.Get(t.Context(), "example", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("getting the deleted Flunder: %v, want NotFound", err)
	}
}

// TestFlunderFake shows the generated fake clientset, for unit tests of code that uses the
// client, a lister or an informer without a server (pkg/controller's test uses it too).
func TestFlunderFake(t *testing.T) {
	cs := fake.NewClientset(&v1alpha1.Flunder{ObjectMeta: metav1.ObjectMeta{Name: "seeded", Namespace: "default"}})
	factory := externalversions.NewSharedInformerFactory(cs, 0)
	lister := factory.Wardle().V1alpha1().Flunders().Lister()
	factory.Start(t.Context().Done())
	factory.WaitForCacheSync(t.Context().Done())
	got, err := lister.Flunders("default").Get("seeded")
	if err != nil || got.Name != "seeded" {
		t.Errorf("the lister of the fake clientset: %v, %v", got, err)
	}
}

// conditionApply is a condition as an apply configuration.
func conditionApply(c metav1.Condition) *metav1apply.ConditionApplyConfiguration {
	return metav1apply.Condition().WithType(c.Type).WithStatus(c.Status).WithReason(c.Reason).
		WithMessage(c.Message).WithLastTransitionTime(c.LastTransitionTime)
}

// watchFlunders starts the factory's Flunder informer and returns a function that waits for its
// next event and checks its kind (add, update or delete).
func watchFlunders(t *testing.T, factory externalversions.SharedInformerFactory) func(want string) {
	events := make(chan string, 100)
	informer := factory.Wardle().V1alpha1().Flunders().Informer()
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
