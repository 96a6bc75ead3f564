// Package controllerruntime shows that controller-runtime's client and cache, as kubebuilder
// projects use them, work against a server apigen generated (examples/wardle), with the
// scheme of its generated clientset.
package controllerruntime

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"example.com/wardle/pkg/apis/wardle/v1alpha1"
	"example.com/wardle/pkg/apis/wardle/v1beta1"
	"example.com/wardle/pkg/apiserver"
	"example.com/wardle/pkg/cmd/server/servertest"
	wardlescheme "example.com/wardle/pkg/generated/clientset/versioned/scheme"
)

// TestClientAndCache: controller-runtime's client creates, gets and lists Flunders and
// Fischers, and its cache lists them and watches a new one arrive.
func TestClientAndCache(t *testing.T) {
	cfg := servertest.Start(t, apiserver.APIs())
	scheme := runtime.NewScheme()
	if err := wardlescheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()

	first := &v1beta1.Flunder{
		ObjectMeta: metav1.ObjectMeta{Name: "first", Namespace: "default"},
		Spec:       v1beta1.FlunderSpec{Reference: &v1beta1.FlunderReference{Kind: v1beta1.FischerReferenceType, Name: "fritz"}},
	}
	if err := c.Create(ctx, first); err != nil {
		t.Fatalf("create: %v", err)
	}
	if err := c.Create(ctx, &v1alpha1.Fischer{ObjectMeta: metav1.ObjectMeta{Name: "fritz"}}); err != nil {
		t.Fatalf("create a cluster-scoped Fischer: %v", err)
	}
	var got v1beta1.Flunder
	if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "first"}, &got); err != nil {
		t.Fatalf("get: %v", err)
	}
	if got.UID != first.UID || got.Spec.Reference == nil || got.Spec.Reference.Name != "fritz" {
		t.Errorf("get: %+v, want the created Flunder %s", got, first.UID)
	}
	// The same object in the other served version, converted by the server.
	var old v1alpha1.Flunder
	if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "first"}, &old); err != nil || old.Spec.Reference != "fritz" {
		t.Errorf("get as v1alpha1: %v, spec %+v", err, old.Spec)
	}
	var fischers v1alpha1.FischerList
	if err := c.List(ctx, &fischers); err != nil || len(fischers.Items) != 1 {
		t.Errorf("list Fischers: %v, %d items", err, len(fischers.Items))
	}

	informers, err := cache.New(cfg, cache.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	informer, err := informers.GetInformer(ctx, &v1beta1.Flunder{})
	if err != nil {
		t.Fatal(err)
	}
	added := make(chan string, 10)
	if _, err := informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { added <- obj.(*v1beta1.Flunder).Name },
	}); err != nil {
		t.Fatal(err)
	}
	cacheCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		if err := informers.Start(cacheCtx); err != nil {
			t.Errorf("starting the cache: %v", err)
		}
	}()
	if !informers.WaitForCacheSync(ctx) {
		t.Fatal("the cache did not sync")
	}
	var cached v1beta1.FlunderList
	if err := informers.List(ctx, &cached, client.InNamespace("default")); err != nil || len(cached.Items) != 1 {
		t.Errorf("list from the cache: %v, %d items, want 1", err, len(cached.Items))
	}
	if err := c.Create(ctx, &v1beta1.Flunder{ObjectMeta: metav1.ObjectMeta{Name: "second", Namespace: "default"}}); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	deadline := time.After(30 * time.Second)
	for !seen["second"] {
		select {
		case name := <-added:
			seen[name] = true
		case <-deadline:
			t.Fatalf("the cache's watch saw %v, not the new Flunder second", seen)
		}
	}
}
