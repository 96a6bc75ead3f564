package e2e

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
)

// What clients that prefer protobuf send: client-go with ContentType protobuf, and
// kube-controller-manager's metadata client for the metadata-only form.
const (
	protobufFirst   = "application/vnd.kubernetes.protobuf, application/json"
	metadataFirst   = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"
	tableFirst      = "application/vnd.kubernetes.protobuf;as=Table;g=meta.k8s.io;v=v1,application/json;as=Table;g=meta.k8s.io;v=v1,application/json"
	protobufOnly    = "application/vnd.kubernetes.protobuf"
	protobufContent = "application/vnd.kubernetes.protobuf"
)

// TestContentNegotiation runs examples/wardle in local mode and asks every verb of every kind
// for protobuf first and JSON second, as kube-controller-manager's clients do: its kinds have the
// protobuf methods apigen generates, so each answer is protobuf but the table's, which is JSON
// (meta.k8s.io's Table has no protobuf); the metadata client works on every verb
// (kubernetes/kubernetes#86666 is a 500 on deletecollection instead, which leaves every deleted
// namespace Terminating).
func TestContentNegotiation(t *testing.T) {
	tc := tools(t)
	work := t.TempDir()
	kubeconfig := filepath.Join(work, "kubeconfig")
	startServer(t, wardleServer(t, tc), work, freePort(t), filepath.Join(work, "data"), kubeconfig, filepath.Join(work, "server.log"))
	checkNegotiation(t, restConfig(t, kubeconfig), "default")
	proj := filepath.Join(work, "wardle")
	copyTree(t, filepath.Join(tc.root, "examples", "wardle"), proj)
	checkProtobufTypedClient(t, proj, kubeconfig)

	// A kind left out with +apigen:protobuf=false: its group falls back to JSON for the same
	// clients, never an encoding error, and refuses what it cannot read or write.
	t.Run("a group with a kind opted out", func(t *testing.T) {
		fischer := filepath.Join(proj, "pkg", "apis", "wardle", "v1alpha1", "fischer_types.go")
		src, err := os.ReadFile(fischer)
		if err != nil {
			t.Fatal(err)
		}
		marked := strings.Replace(string(src), "\ntype Fischer struct", "\n// +apigen:protobuf=false\ntype Fischer struct", 1)
		if marked == string(src) {
			t.Fatal("no Fischer type to mark")
		}
		writeFile(t, fischer, marked)
		mustSucceed(t, runCmd(cmdOpts{Dir: proj, Env: goEnv, Timeout: buildTimeout}, tc.apigen, "generate"))
		bin := filepath.Join(work, "wardle-optout-apiserver")
		buildServer(t, proj, bin)
		optout := filepath.Join(work, "optout")
		if err := os.MkdirAll(optout, 0o755); err != nil {
			t.Fatal(err)
		}
		kc := filepath.Join(optout, "kubeconfig")
		startServer(t, bin, optout, freePort(t), filepath.Join(optout, "data"), kc, filepath.Join(optout, "server.log"))
		hc, err := rest.HTTPClientFor(restConfig(t, kc))
		if err != nil {
			t.Fatal(err)
		}
		n := &negotiation{t: t, hc: hc, host: strings.TrimSuffix(restConfig(t, kc).Host, "/")}
		flunders := "/apis/wardle.example.com/v1beta1/namespaces/default/flunders"
		n.json("create", http.MethodPost, flunders, protobufFirst, "application/json",
			`{"apiVersion":"wardle.example.com/v1beta1","kind":"Flunder","metadata":{"name":"json-a"}}`, http.StatusCreated, "Flunder")
		n.json("get", http.MethodGet, flunders+"/json-a", protobufFirst, "", "", http.StatusOK, "Flunder")
		n.json("list", http.MethodGet, flunders, protobufFirst, "", "", http.StatusOK, "FlunderList")
		n.json("list the kind opted out", http.MethodGet, "/apis/wardle.example.com/v1alpha1/fischers", protobufFirst, "", "", http.StatusOK, "FischerList")
		if a := n.do(http.MethodGet, flunders, protobufOnly, "", ""); a.status != http.StatusNotAcceptable {
			t.Errorf("list with only protobuf acceptable: status %d, want 406: %s", a.status, firstLine(a.body))
		}
		if a := n.do(http.MethodPost, flunders, protobufFirst, protobufContent, "\x6b\x38\x73\x00"); a.status != http.StatusUnsupportedMediaType ||
			!strings.Contains(a.body, "application/json") {
			t.Errorf("create with a protobuf body: status %d, want 415 naming the media types accepted: %s", a.status, firstLine(a.body))
		}
	})
}

// negotiation sends raw requests with chosen Accept and Content-Type headers.
type negotiation struct {
	t    *testing.T
	hc   *http.Client
	host string
}

type answer struct {
	status      int
	contentType string
	body        string
}

func (n *negotiation) do(method, path, accept, contentType, body string) answer {
	n.t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, n.host+path, r)
	if err != nil {
		n.t.Fatal(err)
	}
	req.Header.Set("Accept", accept)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := n.hc.Do(req)
	if err != nil {
		n.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return answer{status: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), body: string(data)}
}

// proto asks with accept and wants status and a protobuf answer of kind: Kubernetes' envelope,
// a runtime.Unknown that names the kind and holds the object's bytes.
func (n *negotiation) proto(what, method, path, accept, contentType, body string, status int, kind string) answer {
	n.t.Helper()
	a := n.do(method, path, accept, contentType, body)
	switch {
	case a.status != status:
		n.t.Errorf("%s (%s %s, Accept: %s): status %d, want %d: %s", what, method, path, accept, a.status, status, firstLine(a.body))
	case a.contentType != protobufContent:
		n.t.Errorf("%s (%s %s, Accept: %s): Content-Type %q, want %s: %.200s", what, method, path, accept, a.contentType, protobufContent, a.body)
	default:
		if got, err := envelopeKind([]byte(a.body)); err != nil || got != kind {
			n.t.Errorf("%s: the protobuf answer holds kind %q (%v), want %q", what, got, err, kind)
		}
	}
	return a
}

// envelopeKind is the kind the protobuf envelope of an object names.
func envelopeKind(data []byte) (string, error) {
	magic := []byte("k8s\x00")
	if !bytes.HasPrefix(data, magic) {
		return "", fmt.Errorf("no protobuf envelope: %.40q", data)
	}
	var unk runtime.Unknown
	if err := unk.Unmarshal(data[len(magic):]); err != nil {
		return "", err
	}
	if len(unk.Raw) == 0 {
		return "", fmt.Errorf("the envelope holds no object")
	}
	return unk.Kind, nil
}

// watchEvents reads a protobuf watch stream, length-prefixed WatchEvents, as "TYPE Kind".
func watchEvents(t *testing.T, data []byte) []string {
	t.Helper()
	var out []string
	for len(data) >= 4 {
		l := int(binary.BigEndian.Uint32(data))
		if len(data) < 4+l {
			t.Errorf("watch stream: a frame of %d bytes with %d left", l, len(data)-4)
			break
		}
		var ev metav1.WatchEvent
		if err := ev.Unmarshal(data[4 : 4+l]); err != nil {
			t.Errorf("watch stream: %v", err)
			break
		}
		kind, err := envelopeKind(ev.Object.Raw)
		if err != nil {
			t.Errorf("watch stream: %v", err)
		}
		out = append(out, ev.Type+" "+kind)
		data = data[4+l:]
	}
	return out
}

// json asks with accept and wants status and a JSON answer (of kind, when not empty).
func (n *negotiation) json(what, method, path, accept, contentType, body string, status int, kind string) answer {
	n.t.Helper()
	a := n.do(method, path, accept, contentType, body)
	media, _, _ := mime.ParseMediaType(a.contentType)
	var got struct {
		Kind string `json:"kind"`
	}
	switch {
	case a.status != status:
		n.t.Errorf("%s (%s %s, Accept: %s): status %d, want %d: %s", what, method, path, accept, a.status, status, firstLine(a.body))
	case media != "application/json":
		n.t.Errorf("%s (%s %s, Accept: %s): Content-Type %q, want application/json", what, method, path, accept, a.contentType)
	case kind != "" && json.Unmarshal([]byte(a.body), &got) != nil:
		n.t.Errorf("%s: the answer is not JSON: %.200s", what, a.body)
	case kind != "" && got.Kind != kind:
		n.t.Errorf("%s: kind %q, want %q: %.300s", what, got.Kind, kind, a.body)
	}
	return a
}

// checkNegotiation drives every verb of examples/wardle's kinds through cfg (the server itself,
// or kube-apiserver in front of it) as clients that prefer protobuf do, in namespace ns.
func checkNegotiation(t *testing.T, cfg *rest.Config, ns string) {
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hc.Timeout = 30 * time.Second
	n := &negotiation{t: t, hc: hc, host: strings.TrimSuffix(cfg.Host, "/")}
	flunders := "/apis/wardle.example.com/v1beta1/namespaces/" + ns + "/flunders"
	obj := func(name string) string {
		return fmt.Sprintf(`{"apiVersion":"wardle.example.com/v1beta1","kind":"Flunder","metadata":{"name":%q,"labels":{"negotiated":"yes"}},"spec":{"replicas":1}}`, name)
	}
	const js = "application/json"

	n.proto("create", http.MethodPost, flunders, protobufFirst, js, obj("pb-a"), http.StatusCreated, "Flunder")
	n.proto("create", http.MethodPost, flunders, protobufFirst, js, obj("pb-b"), http.StatusCreated, "Flunder")
	got := n.proto("get", http.MethodGet, flunders+"/pb-a", protobufFirst, "", "", http.StatusOK, "Flunder")
	// A protobuf body, the one the server just sent, is read as one.
	n.proto("update with a protobuf body", http.MethodPut, flunders+"/pb-a", protobufFirst, protobufContent, got.body, http.StatusOK, "Flunder")
	got = n.json("get in JSON", http.MethodGet, flunders+"/pb-a", js, "", "", http.StatusOK, "Flunder")
	n.proto("update", http.MethodPut, flunders+"/pb-a", protobufFirst, js, got.body, http.StatusOK, "Flunder")
	n.proto("merge patch", http.MethodPatch, flunders+"/pb-a", protobufFirst, "application/merge-patch+json", `{"metadata":{"annotations":{"patched":"yes"}}}`, http.StatusOK, "Flunder")
	n.proto("apply", http.MethodPatch, flunders+"/pb-a?fieldManager=negotiation", protobufFirst, "application/apply-patch+yaml",
		`{"apiVersion":"wardle.example.com/v1beta1","kind":"Flunder","metadata":{"name":"pb-a","annotations":{"applied":"yes"}}}`, http.StatusOK, "Flunder")
	got = n.proto("get status", http.MethodGet, flunders+"/pb-a/status", protobufFirst, "", "", http.StatusOK, "Flunder")
	n.proto("update status with a protobuf body", http.MethodPut, flunders+"/pb-a/status", protobufFirst, protobufContent, got.body, http.StatusOK, "Flunder")
	n.proto("get scale", http.MethodGet, flunders+"/pb-a/scale", protobufFirst, "", "", http.StatusOK, "Scale")
	got = n.json("get scale in JSON", http.MethodGet, flunders+"/pb-a/scale", js, "", "", http.StatusOK, "Scale")
	n.proto("update scale", http.MethodPut, flunders+"/pb-a/scale", protobufFirst, js, strings.Replace(got.body, `"replicas":1`, `"replicas":2`, 1), http.StatusOK, "Scale")
	n.proto("get a custom subresource", http.MethodGet, flunders+"/pb-a/approval", protobufFirst, "", "", http.StatusOK, "Flunder")
	n.proto("list", http.MethodGet, flunders, protobufFirst, "", "", http.StatusOK, "FlunderList")
	n.proto("list with only protobuf acceptable", http.MethodGet, flunders, protobufOnly, "", "", http.StatusOK, "FlunderList")
	n.proto("list in the old version", http.MethodGet, "/apis/wardle.example.com/v1alpha1/namespaces/"+ns+"/flunders", protobufFirst, "", "", http.StatusOK, "FlunderList")
	n.proto("list a cluster-scoped kind", http.MethodGet, "/apis/wardle.example.com/v1alpha1/fischers", protobufFirst, "", "", http.StatusOK, "FischerList")
	n.proto("list a kind with custom storage", http.MethodGet, "/apis/wardle.example.com/v1beta1/serverinfos", protobufFirst, "", "", http.StatusOK, "ServerInfoList")
	n.json("list as a table", http.MethodGet, flunders, tableFirst, "", "", http.StatusOK, "Table")
	// The metadata-only form is meta.k8s.io's PartialObjectMetadataList, which has protobuf
	// marshalers: served in protobuf, as kube-apiserver serves it for a CRD.
	if a := n.do(http.MethodGet, flunders, metadataFirst, "", ""); a.status != http.StatusOK || a.contentType != protobufContent {
		t.Errorf("list metadata only, protobuf first: status %d, Content-Type %q, want 200 and protobuf: %s", a.status, a.contentType, firstLine(a.body))
	} else {
		var list metav1.PartialObjectMetadataList
		if _, _, err := metaProtobuf().Decode([]byte(a.body), nil, &list); err != nil || len(list.Items) != 2 {
			t.Errorf("list metadata only: the protobuf answer decodes to %d items (%v), want 2", len(list.Items), err)
		}
	}
	n.json("list metadata only, JSON", http.MethodGet, flunders, strings.ReplaceAll(metadataFirst, "application/vnd.kubernetes.protobuf;", "application/json;"), "", "", http.StatusOK, "PartialObjectMetadataList")
	watch := n.do(http.MethodGet, flunders+"?watch=true&timeoutSeconds=1", protobufFirst, "", "")
	if media, params, _ := mime.ParseMediaType(watch.contentType); watch.status != http.StatusOK || media != protobufContent || params["stream"] != "watch" {
		t.Errorf("watch with protobuf first: status %d, Content-Type %q, want 200 and a protobuf watch stream", watch.status, watch.contentType)
	} else if events := watchEvents(t, []byte(watch.body)); len(events) == 0 || events[0] != "ADDED Flunder" {
		t.Errorf("watch with protobuf first: events %q, want ADDED Flunder first", events)
	}

	// A body the server cannot read is refused, and said why.
	if a := n.do(http.MethodPost, flunders, protobufFirst, protobufContent, "\x6b\x38\x73\x00"); a.status != http.StatusBadRequest && a.status != http.StatusUnprocessableEntity {
		t.Errorf("create with an empty protobuf body: status %d, want 400: %s", a.status, firstLine(a.body))
	}

	// client-go's metadata client, which kube-controller-manager's namespace controller and
	// garbage collector use: every verb they send.
	md, err := metadata.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	gvr := schema.GroupVersionResource{Group: wardleGroup, Version: "v1beta1", Resource: "flunders"}
	ctx := context.Background()
	res := md.Resource(gvr).Namespace(ns)
	list, err := res.List(ctx, metav1.ListOptions{LabelSelector: "negotiated=yes"})
	if err != nil || len(list.Items) != 2 {
		t.Fatalf("metadata client list: %v (%d items, want 2)", err, len(list.Items))
	}
	w, err := res.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion, TimeoutSeconds: ptrTo(int64(5))})
	if err != nil {
		t.Errorf("metadata client watch: %v", err)
	} else {
		defer w.Stop()
	}
	if _, err := res.Get(ctx, "pb-a", metav1.GetOptions{}); err != nil {
		t.Errorf("metadata client get: %v", err)
	}
	if _, err := res.Patch(ctx, "pb-a", types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{}); err != nil {
		t.Errorf("metadata client patch: %v", err)
	}
	if err := res.Delete(ctx, "pb-a", metav1.DeleteOptions{}); err != nil {
		t.Errorf("metadata client delete: %v", err)
	}
	if w != nil {
		select {
		case ev := <-w.ResultChan():
			if ev.Type == "ERROR" {
				t.Errorf("metadata client watch: %+v", ev.Object)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("metadata client watch: no event after a delete")
		}
	}
	if err := res.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "negotiated=yes"}); err != nil {
		t.Errorf("metadata client deletecollection (what the namespace controller sends): %v", err)
	}
	if list, err := res.List(ctx, metav1.ListOptions{LabelSelector: "negotiated=yes"}); err != nil || len(list.Items) != 0 {
		t.Errorf("after deletecollection: %v, %d flunders left", err, len(list.Items))
	}
}

func ptrTo[T any](v T) *T { return &v }

// metaProtobuf decodes meta.k8s.io's types from protobuf.
func metaProtobuf() *protobuf.Serializer {
	scheme := runtime.NewScheme()
	utilruntime.Must(metav1.AddMetaToScheme(scheme))
	return protobuf.NewSerializer(scheme, scheme)
}

// protobufTypedClient lists, watches, creates, gets and deletes Flunders with examples/wardle's
// generated clientset configured for protobuf, as kube-controller-manager configures its
// clients, and syncs an informer and reads its lister over it: bodies go in protobuf and answers
// come back in it, decoded by the generated methods.
const protobufTypedClient = `package main

import (
	"context"
	"fmt"
	"os"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"

	"example.com/wardle/pkg/apis/wardle/v1beta1"
	"example.com/wardle/pkg/generated/clientset/versioned"
	"example.com/wardle/pkg/generated/informers/externalversions"
)

func main() {
	cfg, err := clientcmd.BuildConfigFromFlags("", os.Args[1])
	if err != nil {
		panic(err)
	}
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	flunders := versioned.NewForConfigOrDie(cfg).WardleV1beta1().Flunders("default")
	ctx := context.Background()
	list, err := flunders.List(ctx, metav1.ListOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Println("list ok")
	timeout := int64(1)
	w, err := flunders.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion, TimeoutSeconds: &timeout})
	if err != nil {
		panic(err)
	}
	for range w.ResultChan() {
	}
	fmt.Println("watch ok")
	replicas := int32(3)
	created, err := flunders.Create(ctx, &v1beta1.Flunder{
		ObjectMeta: metav1.ObjectMeta{Name: "typed-protobuf", Labels: map[string]string{"a": "b"}},
		Spec:       v1beta1.FlunderSpec{Replicas: &replicas, Reference: &v1beta1.FlunderReference{Kind: "Flunder", Name: "other"}},
	}, metav1.CreateOptions{})
	if err != nil {
		panic(err)
	}
	got, err := flunders.Get(ctx, created.Name, metav1.GetOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Println("create and get", *got.Spec.Replicas, got.Spec.Reference.Name, got.Labels["a"], got.UID == created.UID)
	// An informer and its lister over the same protobuf clientset.
	factory := externalversions.NewSharedInformerFactory(versioned.NewForConfigOrDie(cfg), 0)
	informer := factory.Wardle().V1beta1().Flunders()
	lister := informer.Lister()
	stop := make(chan struct{})
	factory.Start(stop)
	if !cache.WaitForCacheSync(stop, informer.Informer().HasSynced) {
		panic("the informer did not sync")
	}
	cached, err := lister.Flunders("default").Get(created.Name)
	if err != nil {
		panic(err)
	}
	fmt.Println("informer and lister", *cached.Spec.Replicas, cached.Spec.Reference.Name)
	close(stop)
	if err := flunders.Delete(ctx, created.Name, metav1.DeleteOptions{}); err != nil {
		panic(err)
	}
	fmt.Println("delete ok")
	// Without JSON to fall back to, every answer is protobuf.
	cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf"
	only := versioned.NewForConfigOrDie(cfg).WardleV1beta1().Flunders("default")
	if _, err := only.List(ctx, metav1.ListOptions{}); err != nil {
		panic(err)
	}
	fmt.Println("protobuf only ok")
}
`

// checkProtobufTypedClient runs protobufTypedClient in the project at proj against kubeconfig.
func checkProtobufTypedClient(t *testing.T, proj, kubeconfig string) {
	t.Helper()
	writeFile(t, filepath.Join(proj, "hack", "protobufclient", "main.go"), protobufTypedClient)
	out := mustSucceed(t, runCmd(cmdOpts{Dir: proj, Env: goEnv, Timeout: buildTimeout}, "go", "run", "./hack/protobufclient", kubeconfig)).Stdout
	if want := "list ok\nwatch ok\ncreate and get 3 other b true\ninformer and lister 3 other\ndelete ok\nprotobuf only ok\n"; out != want {
		t.Errorf("the generated clientset configured for protobuf:\n%s\nwant:\n%s", out, want)
	}
}
