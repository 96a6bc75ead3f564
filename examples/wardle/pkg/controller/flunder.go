// Package controller reconciles Flunders with the generated clientset, informers and apply
// configurations: each Flunder's ReferenceResolved condition says whether the object its
// spec.reference names exists.
package controller

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	metav1apply "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"example.com/wardle/pkg/apis/wardle/v1beta1"
	applyv1beta1 "example.com/wardle/pkg/generated/applyconfiguration/wardle/v1beta1"
	"example.com/wardle/pkg/generated/clientset/versioned"
	"example.com/wardle/pkg/generated/informers/externalversions"
	listersv1alpha1 "example.com/wardle/pkg/generated/listers/wardle/v1alpha1"
	listersv1beta1 "example.com/wardle/pkg/generated/listers/wardle/v1beta1"
)

const (
	// FieldManager owns the condition in server-side apply.
	FieldManager = "wardle-controller"
	// ReferenceResolved is the condition the controller keeps on every Flunder.
	ReferenceResolved = "ReferenceResolved"
)

// Controller keeps the ReferenceResolved condition of every Flunder current.
type Controller struct {
	client   versioned.Interface
	flunders listersv1beta1.FlunderLister
	fischers listersv1alpha1.FischerLister
	synced   []cache.InformerSynced
	queue    workqueue.TypedRateLimitingInterface[string]
}

// New wires a controller to the factory's Flunder and Fischer informers; start the factory
// after New and before Run.
func New(client versioned.Interface, factory externalversions.SharedInformerFactory) (*Controller, error) {
	flunders := factory.Wardle().V1beta1().Flunders()
	fischers := factory.Wardle().V1alpha1().Fischers()
	c := &Controller{
		client:   client,
		flunders: flunders.Lister(),
		fischers: fischers.Lister(),
		synced:   []cache.InformerSynced{flunders.Informer().HasSynced, fischers.Informer().HasSynced},
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "flunders"}),
	}
	enqueue := func(obj any) {
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			c.queue.Add(key)
		}
	}
	// A Flunder or Fischer coming or going may resolve or break any Flunder's reference (a
	// new Flunder is among them); a changed Flunder only its own.
	all := func(any) {
		list, _ := c.flunders.List(labels.Everything())
		for _, f := range list {
			enqueue(f)
		}
	}
	if _, err := flunders.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: all, UpdateFunc: func(_, obj any) { enqueue(obj) }, DeleteFunc: all,
	}); err != nil {
		return nil, err
	}
	if _, err := fischers.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: all, UpdateFunc: func(_, obj any) { all(obj) }, DeleteFunc: all,
	}); err != nil {
		return nil, err
	}
	return c, nil
}

// Run processes the queue with workers until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) error {
	defer utilruntime.HandleCrash()
	defer c.queue.ShutDown()
	if !cache.WaitForCacheSync(ctx.Done(), c.synced...) {
		return fmt.Errorf("the informers did not sync")
	}
	for range workers {
		go wait.UntilWithContext(ctx, c.work, time.Second)
	}
	<-ctx.Done()
	return nil
}

func (c *Controller) work(ctx context.Context) {
	for {
		key, quit := c.queue.Get()
		if quit {
			return
		}
		if err := c.Reconcile(ctx, key); err != nil {
			klog.FromContext(ctx).Error(err, "reconciling", "flunder", key)
			c.queue.AddRateLimited(key)
		} else {
			c.queue.Forget(key)
		}
		c.queue.Done(key)
	}
}

// Reconcile applies the ReferenceResolved condition of the Flunder with the given
// namespace/name key.
func (c *Controller) Reconcile(ctx context.Context, key string) error {
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return err
	}
	f, err := c.flunders.Flunders(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	status, reason, message := c.resolve(f)
	if cond := findCondition(f.Status.Conditions, ReferenceResolved); cond != nil && cond.Status == status &&
		cond.Reason == reason && cond.ObservedGeneration == f.Generation {
		return nil
	}
	condition := metav1apply.Condition().WithType(ReferenceResolved).WithStatus(status).WithReason(reason).
		WithMessage(message).WithObservedGeneration(f.Generation).WithLastTransitionTime(metav1.Now())
	_, err = c.client.WardleV1beta1().Flunders(namespace).ApplyStatus(ctx,
		applyv1beta1.Flunder(name, namespace).WithStatus(applyv1beta1.FlunderStatus().WithConditions(condition)),
		metav1.ApplyOptions{FieldManager: FieldManager, Force: true})
	return err
}

// resolve says whether f's reference exists.
func (c *Controller) resolve(f *v1beta1.Flunder) (metav1.ConditionStatus, string, string) {
	ref := f.Spec.Reference
	if ref == nil {
		return metav1.ConditionTrue, "NoReference", "the flunder refers to nothing"
	}
	var err error
	switch ref.Kind {
	case v1beta1.FischerReferenceType:
		_, err = c.fischers.Get(ref.Name)
	default:
		_, err = c.flunders.Flunders(f.Namespace).Get(ref.Name)
	}
	if err != nil {
		return metav1.ConditionFalse, "NotFound", fmt.Sprintf("%s %s does not exist", ref.Kind, ref.Name)
	}
	return metav1.ConditionTrue, "Found", fmt.Sprintf("%s %s exists", ref.Kind, ref.Name)
}

func findCondition(conditions []metav1.Condition, t string) *metav1.Condition {
	for i := range conditions {
		if conditions[i].Type == t {
			return &conditions[i]
		}
	}
	return nil
}
