package e2e

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
)

// checkServerInfo drives examples/wardle's serverinfos, a kind served by the project's own
// storage (+apigen:storage:custom:verbs=get;list;watch, pkg/registry/wardle/serverinfo/storage.go)
// instead of etcd: discovery lists exactly the declared verbs, kubectl gets and lists the object
// the server computes, a field selector filters it, a watch sends it, and a create or delete is
// refused with 405 Method Not Allowed.
func checkServerInfo(t *testing.T, k *kubectl) {
	t.Helper()
	for version, want := range map[string]string{"v1beta1": "get,list,watch", "v1alpha1": ""} {
		got := ""
		if r := discovered(t, k, version, "serverinfos"); r != nil {
			got = strings.Join(r.Verbs, ",")
			if r.Kind != "ServerInfo" || r.Namespaced || r.SingularName != "serverinfo" {
				t.Errorf("discovery of %s: serverinfos is kind %q namespaced %v singular %q, want a cluster-scoped ServerInfo, serverinfo", version, r.Kind, r.Namespaced, r.SingularName)
			}
		}
		if got != want {
			t.Errorf("discovery of %s/%s: serverinfos has verbs %q, want %q", wardleGroup, version, got, want)
		}
	}

	if got := k.names(t, "serverinfos"); len(got) != 1 || got[0] != "server" {
		t.Errorf("kubectl get serverinfos: %v, want [server]", got)
	}
	rows := parseTable(k.ok(t, "get", "serverinfo"))
	if len(rows) != 1 || rows[0]["NAME"] != "server" {
		t.Errorf("kubectl get serverinfo (table): %v, want one row named server", rows)
	}
	info := k.get(t, "serverinfo", "server")
	if goVersion, _ := field(info.Object, "goVersion").(string); !strings.HasPrefix(goVersion, "go") || info.GetAPIVersion() != wardleGroup+"/v1beta1" {
		t.Errorf("kubectl get serverinfo server: %v, want a v1beta1 ServerInfo with the Go version", info.Object)
	}
	if got := k.names(t, "serverinfos", "--field-selector", "metadata.name=other"); len(got) != 0 {
		t.Errorf("kubectl get serverinfos --field-selector metadata.name=other: %v, want none", got)
	}
	if r := k.fails(t, "", "get", "serverinfo", "other"); !strings.Contains(r.Stderr, `serverinfos.`+wardleGroup+` "other" not found`) {
		t.Errorf("kubectl get serverinfo other: want NotFound, got:\n%s", r)
	}
	// The watch sends the object, then ends when the server's timeout does.
	if out := k.ok(t, "get", "--raw", "/apis/"+wardleGroup+"/v1beta1/serverinfos?watch=true&timeoutSeconds=1"); !strings.Contains(out, `"type":"ADDED"`) || !strings.Contains(out, `"name":"server"`) {
		t.Errorf("watch of serverinfos: want the ADDED server, got:\n%s", out)
	}

	checkStreamingList(t, k, "serverinfos", []string{"server"})

	// Verbs the storage does not serve: what kube-apiserver answers for them.
	r := k.fails(t, "apiVersion: "+wardleGroup+"/v1beta1\nkind: ServerInfo\nmetadata: {name: mine}\ngoVersion: go1\nstartTime: \"2026-01-01T00:00:00Z\"\n", "create", "-f", "-")
	if !strings.Contains(r.Stderr, "(MethodNotAllowed)") {
		t.Errorf("kubectl create serverinfo: want 405 MethodNotAllowed, got:\n%s", r)
	}
	if r := k.fails(t, "", "delete", "serverinfo", "server"); !strings.Contains(r.Stderr, "(MethodNotAllowed)") {
		t.Errorf("kubectl delete serverinfo server: want 405 MethodNotAllowed, got:\n%s", r)
	}
}

// checkStreamingList wants a streaming list of resource (wardle's v1beta1), as client-go's
// informers start by default, to end in the bookmark that says the initial list is complete,
// and an informer with client-go's defaults to sync and hold exactly the keys want
// ("namespace/name", or "name" of a cluster-scoped kind).
func checkStreamingList(t *testing.T, k *kubectl, resource string, want []string) {
	t.Helper()
	out := k.ok(t, "get", "--raw", "/apis/"+wardleGroup+"/v1beta1/"+resource+"?watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=1")
	if !strings.Contains(out, `"type":"ADDED"`) || !strings.Contains(out, `"type":"BOOKMARK"`) || !strings.Contains(out, `"k8s.io/initial-events-end":"true"`) {
		t.Errorf("streaming list of %s: want ADDED events and the bookmark annotated k8s.io/initial-events-end, got:\n%s", resource, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	factory := dynamicinformer.NewDynamicSharedInformerFactory(dynamicFor(t, k.kubeconfig), 0)
	informer := factory.ForResource(schema.GroupVersionResource{Group: wardleGroup, Version: "v1beta1", Resource: resource}).Informer()
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		t.Errorf("an informer of %s with client-go's defaults did not sync in 30s", resource)
	} else if keys := informer.GetStore().ListKeys(); !slices.Equal(slices.Sorted(slices.Values(keys)), want) {
		t.Errorf("the synced informer of %s holds %v, want %v", resource, keys, want)
	}
	cancel()
	factory.Shutdown()
}
