package e2e

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// deploymentScale drives apps/v1 deployments/scale on one server as an autoscaler does and
// returns what it saw, one line a step, with nothing server-specific (names, UIDs and
// resourceVersions are checked, then left out), so that the generated server's lines can be
// compared with kube-apiserver's: the Scale read back (kind, replicas, the selector rendered
// from the Deployment's spec.selector), an update of spec.replicas through it and what the
// Deployment then holds, an update naming another object's UID, and an update to a negative
// count.
func deploymentScale(t *testing.T, cfg *rest.Config) []string {
	t.Helper()
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	deployments := dyn.Resource(schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}).Namespace("default")
	deployment := &unstructured.Unstructured{Object: yamlToObject(t, `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
    matchExpressions: [{key: tier, operator: In, values: [b, a]}]
  template:
    metadata: {labels: {app: web, tier: a}}
    spec: {containers: [{name: web, image: registry.k8s.io/pause:3.10}]}
`)}
	// kube-apiserver creates the default namespace shortly after it starts.
	if err := poll(time.Minute, func() error {
		_, err := deployments.Create(ctx, deployment, metav1.CreateOptions{})
		return err
	}); err != nil {
		t.Fatalf("%s: creating a Deployment: %v", cfg.Host, err)
	}
	if _, err := deployments.Patch(ctx, "web", types.MergePatchType, []byte(`{"status":{"replicas":2}}`), metav1.PatchOptions{}, "status"); err != nil {
		t.Fatalf("%s: patching the Deployment's status: %v", cfg.Host, err)
	}

	var out []string
	describe := func(step string, scale *unstructured.Unstructured) {
		if scale.GetName() != "web" || scale.GetNamespace() != "default" || scale.GetUID() == "" || scale.GetResourceVersion() == "" {
			t.Errorf("%s: %s: the Scale's metadata is not the Deployment's: %v", cfg.Host, step, scale.Object["metadata"])
		}
		out = append(out, fmt.Sprintf("%s: %s %s spec.replicas=%v status.replicas=%v status.selector=%q", step,
			scale.GetAPIVersion(), scale.GetKind(), field(scale.Object, "spec.replicas"), field(scale.Object, "status.replicas"), field(scale.Object, "status.selector")))
	}
	scale, err := deployments.Get(ctx, "web", metav1.GetOptions{}, "scale")
	if err != nil {
		t.Fatalf("%s: GET deployments/web/scale: %v", cfg.Host, err)
	}
	describe("GET scale", scale)

	if err := unstructured.SetNestedField(scale.Object, int64(5), "spec", "replicas"); err != nil {
		t.Fatal(err)
	}
	updated, err := deployments.Update(ctx, scale, metav1.UpdateOptions{}, "scale")
	if err != nil {
		t.Fatalf("%s: PUT deployments/web/scale: %v", cfg.Host, err)
	}
	describe("PUT scale with spec.replicas=5", updated)
	d, err := deployments.Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, fmt.Sprintf("the Deployment then: spec.replicas=%v status.replicas=%v generation=%d",
		field(d.Object, "spec.replicas"), field(d.Object, "status.replicas"), d.GetGeneration()))

	// A stale resourceVersion is a conflict.
	if _, err := deployments.Update(ctx, scale, metav1.UpdateOptions{}, "scale"); !apierrors.IsConflict(err) {
		t.Errorf("%s: PUT deployments/web/scale with a stale resourceVersion: %v, want a conflict", cfg.Host, err)
	}
	// A UID in the Scale is a precondition too: another object's is a conflict. The storage
	// key in the message is each server's own.
	otherUID := updated.DeepCopy()
	otherUID.SetUID("00000000-0000-0000-0000-000000000000")
	_, err = deployments.Update(ctx, otherUID, metav1.UpdateOptions{}, "scale")
	line := strings.ReplaceAll(statusLine(err), string(d.GetUID()), "<the Deployment's UID>")
	out = append(out, "PUT scale with another UID: "+storageKey.ReplaceAllString(line, "Key: <key>,"))

	if err := unstructured.SetNestedField(updated.Object, int64(-1), "spec", "replicas"); err != nil {
		t.Fatal(err)
	}
	_, err = deployments.Update(ctx, updated, metav1.UpdateOptions{}, "scale")
	out = append(out, "PUT scale with spec.replicas=-1: "+statusLine(err))
	return out
}

var storageKey = regexp.MustCompile(`Key: [^ ,]+,`)

// statusLine says how a server answered a request: accepted, or the status code, reason,
// group/kind, and the causes of a refusal (its message when it has none).
func statusLine(err error) string {
	s, ok := err.(apierrors.APIStatus)
	switch {
	case err == nil:
		return "accepted"
	case !ok:
		return err.Error()
	}
	st := s.Status()
	if st.Details == nil {
		return fmt.Sprintf("%d %s", st.Code, st.Reason)
	}
	if len(st.Details.Causes) == 0 {
		return fmt.Sprintf("%d %s %s/%s: %s", st.Code, st.Reason, st.Details.Group, st.Details.Kind, st.Message)
	}
	var causes []string
	for _, c := range st.Details.Causes {
		causes = append(causes, fmt.Sprintf("%s %s: %s", c.Type, c.Field, c.Message))
	}
	return fmt.Sprintf("%d %s %s/%s: %s", st.Code, st.Reason, st.Details.Group, st.Details.Kind, strings.Join(causes, "; "))
}
