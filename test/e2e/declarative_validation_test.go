package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
)

// TestDeclarativeValidation serves a project whose types say their rules with declarative
// validation's +k8s: tags, in two versions (testdata/builds/declarative_validation, whose own
// tests check every family through the scheme), and checks over HTTP what the generated
// strategies make of them: a refused create or update is a 422 whose causes name kube-apiserver's
// field paths, each cause once (a rule the schema enforces too is not reported twice); each
// version has its own rules; +k8s:immutable refuses setting a field left empty at create (as
// kube-apiserver does for a built-in type, where a CRD's transition rule allows it); the status
// and scale subresources run the rules; alpha rules are only shadowed, beta ones enforced (the
// DeclarativeValidationBeta gate is on by default, as in kube-apiserver); the served OpenAPI
// carries what kube-apiserver publishes of such tags (required, list types, enums) and no more;
// a +k8s:required field is published as required but enforced by the rules alone, which ratchet
// (an update of an object stored without it passes), also beside +required or
// +kubebuilder:validation:Optional, and a +k8s:optional one is not required; the tags of a type
// declared in another package of the project (pkg/apis/shared, which names its own OpenAPI
// model package) run and are published inside the kind, and so are its kubebuilder markers'
// constraints, as the version package's own are;
// +required beside +kubebuilder:validation:Optional is optional in the served OpenAPI, as the
// schema enforces it and as controller-gen's CRD has it;
// a write through a custom subresource runs the kind's rules; a validation option follows the
// server's feature gate of that name.
func TestDeclarativeValidation(t *testing.T) {
	tc := tools(t)
	work := t.TempDir()
	proj := filepath.Join(work, "toys")
	if err := os.Mkdir(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	mustSucceed(t, runCmd(cmdOpts{Dir: proj, Env: goEnv, Timeout: buildTimeout}, tc.apigen, "init", "--repo", "example.com/toys", "--domain", "example.com"))
	copyTree(t, filepath.Join(tc.root, "testdata", "builds", "declarative_validation"), proj)
	mustSucceed(t, runCmd(cmdOpts{Dir: proj, Env: goEnv}, tc.apigen, "generate"))
	bin := filepath.Join(work, "toys-apiserver")
	buildServer(t, proj, bin)
	kubeconfig, dataDir, port := filepath.Join(work, "kubeconfig"), filepath.Join(work, "data"), freePort(t)
	srv := startServer(t, bin, proj, port, dataDir, kubeconfig, filepath.Join(work, "server.log"))
	dyn := dynamicFor(t, kubeconfig)

	toys := func(version string) dynamic.ResourceInterface {
		return dyn.Resource(schema.GroupVersionResource{Group: "toys.example.com", Version: version, Resource: "toys"}).Namespace("default")
	}
	toy := func(name string, spec map[string]any) *unstructured.Unstructured {
		s := map[string]any{"name": "teddy", "maker": "acme", "brand": "bearco", "shelf": "top", "red": "r"}
		for k, v := range spec {
			if v == nil {
				delete(s, k)
				continue
			}
			s[k] = v
		}
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "toys.example.com/v1", "kind": "Toy",
			"metadata": map[string]any{"name": name}, "spec": s,
		}}
	}
	create := func(version string, obj *unstructured.Unstructured) error {
		obj.SetAPIVersion("toys.example.com/" + version)
		_, err := toys(version).Create(context.Background(), obj, metav1.CreateOptions{})
		return err
	}
	patchIn := func(version, name, patch string, subresources ...string) error {
		_, err := toys(version).Patch(context.Background(), name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}, subresources...)
		return err
	}
	patch := func(name, patch string, subresources ...string) error {
		return patchIn("v1", name, patch, subresources...)
	}

	for _, c := range []struct {
		name string
		err  error
		want []string // "<type> <field>" of each cause, sorted; nil when accepted
	}{
		// Without batteries, a +k8s:optional field the JSON has as null when unset.
		{"valid", create("v1", toy("valid", map[string]any{"origin": map[string]any{"country": "us", "factory": "f"}})), nil},
		{"required once", create("v1", toy("no-maker", map[string]any{"maker": nil})), []string{"FieldValueRequired spec.maker"}},
		// +required beside +k8s:required, as k8s.io/api writes it, and
		// +kubebuilder:validation:Optional beside it: declarative validation requires both.
		{"required with +required", create("v1", toy("no-brand", map[string]any{"brand": nil})), []string{"FieldValueRequired spec.brand"}},
		{"required with +kubebuilder:validation:Optional", create("v1", toy("no-shelf", map[string]any{"shelf": nil})), []string{"FieldValueRequired spec.shelf"}},
		// The rules of a type the project declares in another package (pkg/apis/shared) run
		// inside the kind; its +k8s:optional year may be absent.
		{"shared type", create("v1", toy("origin", map[string]any{"origin": map[string]any{"country": "usa"}})), []string{
			"FieldValueRequired spec.origin.factory", "FieldValueTooLong spec.origin.country",
		}},
		// Its kubebuilder markers are the schema's, as the version package's are.
		{"shared type's kubebuilder bound", create("v1", toy("batch", map[string]any{"origin": map[string]any{"country": "us", "factory": "f", "batch": int64(-1)}})), []string{
			"FieldValueInvalid spec.origin.batch",
		}},
		{"every cause once", create("v1", toy("many", map[string]any{
			"name": "Teddy_Bear", "size": int64(11), "tags": []any{"a", "a"}, "motto": "hug-hug-hug", "mode": "Medium", "blue": "b",
		})), []string{
			"FieldValueDuplicate spec.tags[1]", "FieldValueInvalid spec", "FieldValueInvalid spec.name",
			"FieldValueInvalid spec.size", "FieldValueNotSupported spec.mode", "FieldValueTooLong spec.motto",
		}},
		{"v1 allows size 6", create("v1", toy("six", map[string]any{"size": int64(6)})), nil},
		{"v1beta1 does not", create("v1beta1", toy("six-beta", map[string]any{"size": int64(6)})), []string{"FieldValueInvalid spec.size"}},
		{"alpha rules are shadowed", create("v1", toy("alpha", map[string]any{"tags": []any{"soft"}})), nil},
		{"beta rules are enforced", create("v1", toy("beta", map[string]any{"hint": "none"})), []string{"FieldValueInvalid spec.hint"}},
		{"immutable once unset", patch("valid", `{"spec":{"class":"wood"}}`), []string{"FieldValueInvalid spec.class"}},
		{"status subresource", patch("valid", `{"status":{"played":-1}}`, "status"), []string{"FieldValueInvalid status.played"}},
		{"status accepted", patch("valid", `{"status":{"played":2}}`, "status"), nil},
		// A /scale write runs the kind's rules of the request's version at the kind's paths, as
		// kube-apiserver runs a StatefulSet's for statefulsets/scale.
		{"scale subresource", patch("valid", `{"spec":{"replicas":11}}`, "scale"), []string{"FieldValueInvalid spec.size"}},
		{"scale in v1beta1", patchIn("v1beta1", "valid", `{"spec":{"replicas":6}}`, "scale"), []string{"FieldValueInvalid spec.size"}},
		{"scale accepted", patch("valid", `{"spec":{"replicas":6}}`, "scale"), nil},
		// A write through a custom subresource whose storage writes through the kind's store
		// (testdata's toys/paint, which takes the request's colour and keeps the rest) runs the
		// kind's rules too: validation-gen registers them for "/paint", as kube-apiserver does
		// for a subresource a built-in type lists with +k8s:supportsSubresource.
		{"custom subresource", patch("valid", `{"spec":{"blue":"b"}}`, "paint"), []string{"FieldValueInvalid spec"}},
		{"custom subresource accepted", patch("valid", `{"spec":{"red":null,"blue":"b","size":11}}`, "paint"), nil},
		// The server defines the validation option the nickname rules depend on, from its
		// feature gate of that name, off by default (enabled below).
		{"option disabled", create("v1", toy("nick", map[string]any{"nickname": "bearbear"})), nil},
		{"ifDisabled rule", create("v1", toy("long-nick", map[string]any{"nickname": "a-bear-named-bob"})), []string{"FieldValueTooLong spec.nickname"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := causesOf(t, c.err); !slices.Equal(got, c.want) {
				t.Errorf("got %q (%v), want %q", got, c.err, c.want)
			}
		})
	}

	// The repaint took the colour and left the size alone.
	if got, err := toys("v1").Get(context.Background(), "valid", metav1.GetOptions{}); err != nil {
		t.Error(err)
	} else if spec, _ := got.Object["spec"].(map[string]any); fmt.Sprintf("%v %v %v", spec["size"], spec["red"], spec["blue"]) != "6 <nil> b" {
		t.Errorf("after the repaint: spec is %v, want size 6, no red and blue b", spec)
	}

	// The served OpenAPI says what kube-apiserver's says for k8s.io/api's fields with the same
	// tags: required, list types and enums, and none of the bounds, lengths or counts. The
	// kubebuilder markers' constraints it shows as for a CRD, on the shared package's types too,
	// and a field's requiredness as the schema enforces it.
	t.Run("openapi", func(t *testing.T) {
		doc := servedOpenAPI(t, restConfig(t, kubeconfig), "toys.example.com/v1", "Toy")
		if doc == nil {
			t.Fatal("no Toy in /openapi/v3/apis/toys.example.com/v1")
		}
		props, _ := doc.node["properties"].(map[string]any)
		spec := doc.resolve(props["spec"].(map[string]any))
		fields, _ := spec["properties"].(map[string]any)
		prop := func(name string) map[string]any {
			p, _ := fields[name].(map[string]any)
			return p
		}
		mode := doc.resolve(prop("mode"))
		origin, _ := doc.resolve(prop("origin"))["properties"].(map[string]any)
		batch, _ := origin["batch"].(map[string]any)
		for _, c := range []struct {
			what      string
			got, want any
		}{
			// In the fields' order, as openapi-gen lists them for kube-apiserver.
			{"spec.required", spec["required"], []any{"name", "maker", "brand", "shelf"}},
			// A type of the project's shared package is published with its own +k8s: tags.
			{"spec.origin.required", doc.resolve(prop("origin"))["required"], []any{"country", "factory"}},
			// A kubebuilder bound on a field of the shared package's type is published.
			{"spec.origin.batch minimum", batch["minimum"], 1},
			// +required and +kubebuilder:validation:Optional: optional, as the schema has it.
			{"status.required", doc.resolve(props["status"].(map[string]any))["required"], nil},
			{"spec.tags list type", prop("tags")["x-kubernetes-list-type"], "set"},
			{"spec.ports list type", prop("ports")["x-kubernetes-list-type"], "map"},
			{"spec.ports list map keys", prop("ports")["x-kubernetes-list-map-keys"], []any{"name"}},
			{"spec.slots list type", prop("slots")["x-kubernetes-list-type"], "atomic"},
			{"spec.slots list map keys", prop("slots")["x-kubernetes-list-map-keys"], nil},
			{"spec.mode enum", mode["enum"], []any{"Fast", "Slow"}},
			{"spec.name maxLength", prop("name")["maxLength"], nil},
			{"spec.size maximum", prop("size")["maximum"], nil},
			{"spec.tags maxItems", prop("tags")["maxItems"], nil},
			{"spec.labels maxProperties", prop("labels")["maxProperties"], nil},
			{"spec.name format", prop("name")["format"], nil},
		} {
			if fmt.Sprint(c.got) != fmt.Sprint(c.want) {
				t.Errorf("%s: got %v, want %v", c.what, c.got, c.want)
			}
		}

		// OpenAPI v2 (kubectl's client-side validation) is built from the same definitions.
		var v2 struct {
			Definitions map[string]map[string]any `json:"definitions"`
		}
		getJSON(t, restConfig(t, kubeconfig), "/openapi/v2", &v2)
		// v2ref is the definition a property refers to, directly or through allOf.
		v2ref := func(prop any) map[string]any {
			p, _ := prop.(map[string]any)
			ref, _ := p["$ref"].(string)
			if all, ok := p["allOf"].([]any); ok && ref == "" && len(all) == 1 {
				ref, _ = all[0].(map[string]any)["$ref"].(string)
			}
			// A type named by import path is listed under its escaped name, as it is referred to.
			return v2.Definitions[strings.TrimPrefix(ref, "#/definitions/")]
		}
		var v2spec, v2status map[string]any
		for _, def := range v2.Definitions {
			gvks, _ := def["x-kubernetes-group-version-kind"].([]any)
			for _, g := range gvks {
				if g, _ := g.(map[string]any); g["group"] == "toys.example.com" && g["version"] == "v1" && g["kind"] == "Toy" {
					props, _ := def["properties"].(map[string]any)
					v2spec, v2status = v2ref(props["spec"]), v2ref(props["status"])
				}
			}
		}
		if got := fmt.Sprint(v2spec["required"]); got != "[name maker brand shelf]" {
			t.Errorf("/openapi/v2 spec.required: got %s, want [name maker brand shelf]", got)
		}
		v2props, _ := v2spec["properties"].(map[string]any)
		tags, _ := v2props["tags"].(map[string]any)
		if tags["x-kubernetes-list-type"] != "set" || tags["maxItems"] != nil {
			t.Errorf("/openapi/v2 spec.tags: got %v, want x-kubernetes-list-type set and no maxItems", tags)
		}
		originProps, _ := v2ref(v2props["origin"])["properties"].(map[string]any)
		if batch, _ := originProps["batch"].(map[string]any); fmt.Sprint(batch["minimum"]) != "1" {
			t.Errorf("/openapi/v2 spec.origin.batch: got %v, want minimum 1", batch)
		}
		if v2status == nil || v2status["required"] != nil {
			t.Errorf("/openapi/v2 status: got %v, want no required fields", v2status)
		}
	})

	// A Toy stored without its +k8s:required fields (written into etcd while the server is
	// stopped, as an object stored before the rule was) can still be updated: declarative
	// validation ratchets the unchanged absent fields, as kube-apiserver's does for a built-in
	// type, whatever else they say (brand is +required too, shelf +kubebuilder:validation:Optional)
	// and in whichever of the project's packages their type is declared (origin's country). The
	// published required lists do not make the schema refuse it. The server restarts
	// with the validation option's feature gate on, as kube-apiserver runs the rules of an
	// option with --feature-gates=<option>=true.
	t.Run("required ratchets, option enabled", func(t *testing.T) {
		stopServer(t, srv)
		withEtcd(t, dataDir, func(ctx context.Context, c *clientv3.Client) {
			storeWithout(ctx, t, c, "/toys/default/valid", "old", "maker", "brand", "shelf", "origin.country")
		})
		startServer(t, bin, proj, port, dataDir, kubeconfig, filepath.Join(work, "server-restarted.log"), "--feature-gates=ShortNicknames=true")
		dyn = dynamicFor(t, kubeconfig) // create and toys use it from here on
		toys := toys("v1")
		patch := func(patch string, subresources ...string) error {
			_, err := toys.Patch(context.Background(), "old", types.MergePatchType, []byte(patch), metav1.PatchOptions{}, subresources...)
			return err
		}
		if err := patch(`{"spec":{"motto":"hi"}}`); err != nil {
			t.Errorf("an update that leaves the absent maker absent: %v", err)
		}
		if err := patch(`{"spec":{"red":"r","blue":null}}`, "paint"); err != nil {
			t.Errorf("a repaint that leaves the absent maker absent: %v", err)
		}
		if err := patch(`{"spec":{"maker":"acme"}}`); err != nil {
			t.Errorf("setting maker: %v", err)
		}
		if got, want := causesOf(t, patch(`{"spec":{"maker":null}}`)), []string{"FieldValueRequired spec.maker"}; !slices.Equal(got, want) {
			t.Errorf("removing maker: got %q, want %q", got, want)
		}
		for _, field := range []string{"brand", "shelf"} {
			if err := patch(fmt.Sprintf(`{"spec":{%q:"x"}}`, field)); err != nil {
				t.Errorf("setting %s: %v", field, err)
			}
			if got, want := causesOf(t, patch(fmt.Sprintf(`{"spec":{%q:null}}`, field))), []string{"FieldValueRequired spec." + field}; !slices.Equal(got, want) {
				t.Errorf("removing %s: got %q, want %q", field, got, want)
			}
		}
		if err := patch(`{"spec":{"origin":{"country":"us"}}}`); err != nil {
			t.Errorf("setting origin.country: %v", err)
		}
		if got, want := causesOf(t, patch(`{"spec":{"origin":{"country":null}}}`)), []string{"FieldValueRequired spec.origin.country"}; !slices.Equal(got, want) {
			t.Errorf("removing origin.country: got %q, want %q", got, want)
		}
		// With the option's gate on, the +k8s:ifEnabled(ShortNicknames) rule runs (the restarted
		// server stops with this subtest, so this is checked here).
		if got, want := causesOf(t, create("v1", toy("nick-enabled", map[string]any{"nickname": "bearbear"}))), []string{"FieldValueTooLong spec.nickname"}; !slices.Equal(got, want) {
			t.Errorf("with --feature-gates=ShortNicknames=true: got %q, want %q", got, want)
		}
	})
}

// storeWithout copies the object stored at the etcd key ending in near to one named name,
// without the spec fields given (dotted paths below spec) and with a new uid, as an older
// server could have stored it.
func storeWithout(ctx context.Context, t *testing.T, c *clientv3.Client, near, name string, fields ...string) {
	t.Helper()
	resp, err := c.Get(ctx, "/", clientv3.WithPrefix())
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range resp.Kvs {
		key := string(kv.Key)
		if !strings.HasSuffix(key, near) {
			continue
		}
		var o map[string]any
		if err := json.Unmarshal(kv.Value, &o); err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		meta := o["metadata"].(map[string]any)
		meta["name"], meta["uid"] = name, "5f0c1c9e-0000-4000-8000-000000000001"
		delete(meta, "managedFields")
		for _, field := range fields {
			m, _ := o["spec"].(map[string]any)
			parts := strings.Split(field, ".")
			for _, p := range parts[:len(parts)-1] {
				m, _ = m[p].(map[string]any)
			}
			if m == nil {
				t.Fatalf("%s: no spec.%s", key, field)
			}
			delete(m, parts[len(parts)-1])
		}
		b, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Put(ctx, strings.TrimSuffix(key, path.Base(near))+name, string(b)); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Fatalf("no etcd key ends in %s", near)
}

// causesOf returns the causes of a 422 as "<type> <field>", sorted, or nil for no error.
func causesOf(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) || status.Status().Code != 422 || status.Status().Details == nil {
		t.Fatalf("want a 422 with causes, got %v", err)
	}
	var out []string
	for _, c := range status.Status().Details.Causes {
		out = append(out, fmt.Sprintf("%s %s", c.Type, c.Field))
	}
	slices.Sort(out)
	return out
}
