package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// checkApproval drives examples/wardle's flunders/approval, a custom subresource
// (+apigen:subresource:custom:name=approval,verbs=get;update;patch in v1beta1) served by the
// project's own storage (pkg/registry/wardle/flunder/approval.go): discovery lists it with its
// verbs in v1beta1 only, GET reads the flunder, and PUT with real kubectl sets the Approved
// condition and nothing else; one without it is refused.
func checkApproval(t *testing.T, k *kubectl, work string) {
	t.Helper()
	for version, want := range map[string]string{"v1beta1": "get,patch,update", "v1alpha1": ""} {
		got := ""
		if r := discovered(t, k, version, "flunders/approval"); r != nil {
			got = strings.Join(r.Verbs, ",")
			if r.Kind != "Flunder" || !r.Namespaced {
				t.Errorf("discovery of %s: flunders/approval is kind %q namespaced %v, want a namespaced Flunder", version, r.Kind, r.Namespaced)
			}
		}
		if got != want {
			t.Errorf("discovery of %s/%s: flunders/approval has verbs %q, want %q", wardleGroup, version, got, want)
		}
	}

	const ns = "approvals"
	k.okStdin(t, "apiVersion: "+wardleGroup+"/v1beta1\nkind: Flunder\nmetadata: {name: candidate, namespace: "+ns+"}\nspec: {replicas: 1}\n", "create", "-f", "-")
	path := "/apis/" + wardleGroup + "/v1beta1/namespaces/" + ns + "/flunders/candidate/approval"
	got := yamlToObject(t, k.ok(t, "get", "--raw", path))
	if field(got, "metadata.name") != "candidate" || field(got, "kind") != "Flunder" {
		t.Fatalf("GET %s: %v, want the flunder", path, got)
	}

	// The request also changes the spec: an approval ignores it.
	got["spec"] = map[string]any{"replicas": 5}
	got["status"] = map[string]any{"conditions": []any{map[string]any{
		"type": "Approved", "status": "True", "reason": "E2E", "message": "approved by kubectl", "lastTransitionTime": "2026-01-01T00:00:00Z",
	}}}
	body := writeFile(t, filepath.Join(work, "approval.json"), mustJSON(got))
	k.ok(t, "replace", "--raw", path, "-f", body)
	if out := k.ok(t, "get", "flunder", "candidate", "-n", ns, "-o", "jsonpath={.spec.replicas} {.status.conditions[0].type}={.status.conditions[0].status} {.status.conditions[0].reason}"); out != "1 Approved=True E2E" {
		t.Errorf("after PUT %s: spec.replicas and condition %q, want \"1 Approved=True E2E\"", path, out)
	}

	delete(got, "status")
	body = writeFile(t, filepath.Join(work, "not-an-approval.json"), mustJSON(got))
	if r := k.fails(t, "", "replace", "--raw", path, "-f", body); !strings.Contains(r.Stderr, "an approval sets the Approved condition") {
		t.Errorf("PUT %s without the Approved condition: want the storage's 400, got:\n%s", path, r)
	}
}

// discovered is the resource name in the discovery document of a wardle version, or nil.
func discovered(t *testing.T, k *kubectl, version, name string) *metav1.APIResource {
	t.Helper()
	var list metav1.APIResourceList
	if err := json.Unmarshal([]byte(k.ok(t, "get", "--raw", "/apis/"+wardleGroup+"/"+version)), &list); err != nil {
		t.Fatal(err)
	}
	for i, r := range list.APIResources {
		if r.Name == name {
			return &list.APIResources[i]
		}
	}
	return nil
}
