package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// checkBanFlunder proves examples/wardle's own admission plugin, BanFlunder (registered in its
// cmd/apiserver/main.go), as k8s.io/sample-apiserver's: a flunder whose name a Fischer lists is
// refused, others are created, and the rule follows the Fischers as its informer sees them.
func checkBanFlunder(t *testing.T, k *kubectl, ns string) {
	t.Helper()
	flunder := func(name string) string {
		return fmt.Sprintf("apiVersion: %s/v1beta1\nkind: Flunder\nmetadata: {name: %s, namespace: %s}\n", wardleGroup, name, ns)
	}
	k.okStdin(t, fmt.Sprintf("apiVersion: %s/v1alpha1\nkind: Fischer\nmetadata: {name: ban-list}\ndisallowedFlunders: [banned]\n", wardleGroup), "create", "-f", "-")
	// The plugin's informer learns of the Fischer shortly after it is created.
	var r *cmdResult
	err := poll(30*time.Second, func() error {
		if r = k.run(flunder("banned"), "create", "-f", "-"); r.ExitCode == 0 {
			k.ok(t, "delete", "flunder", "banned", "-n", ns)
			return fmt.Errorf("created")
		}
		return nil
	})
	if err != nil || !strings.Contains(r.Stderr, "(Forbidden)") || !strings.Contains(r.Stderr, `fischer ban-list disallows flunders named "banned"`) {
		t.Errorf("creating a flunder the Fischer ban-list disallows: want BanFlunder's Forbidden, got %v:\n%s", err, r)
	}
	k.okStdin(t, flunder("allowed"), "create", "-f", "-")

	k.ok(t, "delete", "fischer", "ban-list")
	err = poll(30*time.Second, func() error {
		if r = k.run(flunder("banned"), "create", "-f", "-"); r.ExitCode != 0 {
			return fmt.Errorf("%s", r)
		}
		return nil
	})
	if err != nil {
		t.Errorf("after the Fischer is deleted, the flunder it disallowed is still refused: %v", err)
	}
	k.ok(t, "delete", "flunders", "banned", "allowed", "-n", ns)
}

// checkAdmission proves the admission chain of cluster mode: the standard plugins of an
// aggregated server, configured in kube-apiserver (a ValidatingAdmissionPolicy on flunders,
// NamespaceLifecycle with the cluster's namespaces), and the project's own BanFlunder after them.
// kube-apiserver only proxies requests for flunders, so the generated server is what refuses.
func (a *aggregation) checkAdmission(t *testing.T) {
	r := a.admin.run(fmt.Sprintf("apiVersion: %s/v1beta1\nkind: Flunder\nmetadata: {name: nowhere, namespace: no-such-namespace}\n", wardleGroup), "create", "-f", "-")
	if r.ExitCode == 0 || !strings.Contains(r.Stderr, `namespaces "no-such-namespace" not found`) {
		t.Errorf("creating a flunder in a namespace that does not exist: want NamespaceLifecycle's refusal, got:\n%s", r)
	}

	a.admin.okStdin(t, `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: flunder-replicas}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - {apiGroups: [`+wardleGroup+`], apiVersions: ["*"], operations: [CREATE, UPDATE], resources: [flunders]}
  validations:
  - {expression: "!has(object.spec.replicas) || object.spec.replicas <= 5", message: "a flunder has at most 5 replicas"}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: flunder-replicas}
spec: {policyName: flunder-replicas, validationActions: [Deny]}
`, "apply", "-f", "-")
	flunder := func(name string, replicas int) string {
		return fmt.Sprintf("apiVersion: %s/v1beta1\nkind: Flunder\nmetadata: {name: %s, namespace: default}\nspec: {replicas: %d}\n", wardleGroup, name, replicas)
	}
	// Each replica's policy informer sees the binding shortly after it is created.
	err := poll(60*time.Second, func() error {
		if r = a.admin.run(flunder("too-many", 10), "create", "-f", "-"); r.ExitCode == 0 {
			a.admin.ok(t, "delete", "flunder", "too-many", "-n", "default")
			return fmt.Errorf("created")
		}
		return nil
	})
	if err != nil || !strings.Contains(r.Stderr, "flunder-replicas") || !strings.Contains(r.Stderr, "a flunder has at most 5 replicas") {
		t.Errorf("creating a flunder with 10 replicas under the ValidatingAdmissionPolicy: want its denial, got %v:\n%s", err, r)
	}
	a.admin.okStdin(t, flunder("few", 3), "create", "-f", "-")
	r = a.admin.run("", "patch", "flunder", "few", "-n", "default", "--type=merge", "-p", `{"spec":{"replicas":6}}`)
	if r.ExitCode == 0 || !strings.Contains(r.Stderr, "a flunder has at most 5 replicas") {
		t.Errorf("updating a flunder to 6 replicas under the ValidatingAdmissionPolicy: want its denial, got:\n%s", r)
	}
	a.admin.ok(t, "delete", "validatingadmissionpolicybinding,validatingadmissionpolicy", "flunder-replicas")
	a.admin.ok(t, "delete", "flunder", "few", "-n", "default")

	checkBanFlunder(t, a.admin, "default")
}
