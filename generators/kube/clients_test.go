package kube

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	openapiv2 "github.com/google/gnostic-models/openapiv2"
	"github.com/google/go-cmp/cmp"
	utilproto "k8s.io/kube-openapi/pkg/util/proto"

	"github.com/apigen-dev/apigen/generators/engine"
	"github.com/apigen-dev/apigen/generators/model"
)

func generateClients(t *testing.T, p *model.Project) *engine.Output {
	t.Helper()
	out, err := engine.RunUpstream(&engine.LoadContext{Context: engine.Context{Project: p, GoHeader: header}, Load: fixtureLoad(t)}, []engine.Upstream{Clients()})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestClients: the clients go under the project's clients directory, follow the model
// (scope, status subresource, resource name) and leave no tag behind in the shared universe.
func TestClients(t *testing.T) {
	widget := fixtureLoad(t).Universe[widgetsPkg].Types["Widget"]
	before := slices.Clone(widget.CommentLines)

	p := fixtureProject()
	p.Clients = model.Clients{Enabled: true, Dir: "pkg/client"}
	r := p.Groups[0].Versions[0].Resources[0]
	r.Of.Scope, r.Subresources.Status, r.Of.Plural = model.Cluster, false, "gizmos"
	out := generateClients(t, p)

	for _, name := range out.Paths() {
		if !strings.HasPrefix(name, "pkg/client/") {
			t.Errorf("%s is outside pkg/client", name)
		}
	}
	client := "pkg/client/clientset/versioned/typed/widgets/v1alpha1/widget.go"
	for name, want := range map[string][]string{
		client: {
			`"gizmos",`,                  // the resource name, not upstream's "widgets"
			"Gizmos() WidgetInterface\n", // cluster-scoped: no namespace argument
			"func newGizmos(c *WidgetsV1alpha1Client) *gizmos {",
		},
		"pkg/client/listers/widgets/v1alpha1/widget.go":                             {"func NewWidgetLister("},
		"pkg/client/informers/externalversions/widgets/v1alpha1/widget.go":          {"func NewWidgetInformer("},
		"pkg/client/applyconfiguration/widgets/v1alpha1/widget.go":                  {"func ExtractWidget(", "func Widget(name string) *WidgetApplyConfiguration {"},
		"pkg/client/clientset/versioned/typed/widgets/v1alpha1/fake/fake_widget.go": {"func newFakeGizmos("},
	} {
		src, ok := out.Get(name)
		if !ok {
			t.Errorf("no %s among %q", name, out.Paths())
			continue
		}
		for _, w := range want {
			if !strings.Contains(string(src), w) {
				t.Errorf("%s lacks %q", name, w)
			}
		}
	}
	src, _ := out.Get(client)
	for _, unwanted := range []string{"UpdateStatus", "ApplyStatus", "namespace string"} {
		if strings.Contains(string(src), unwanted) {
			t.Errorf("%s has %q: the resource is cluster-scoped and has no status subresource", client, unwanted)
		}
	}
	if diff := cmp.Diff(before, widget.CommentLines); diff != "" {
		t.Errorf("the +genclient tags outlived the run (-before +after):\n%s", diff)
	}

	p.Clients.Enabled = false
	if out := generateClients(t, p); len(out.Paths()) != 0 {
		t.Errorf("clients turned off, yet generated %q", out.Paths())
	}
}

// TestGenclientTags is the model's only way into client verbs.
func TestGenclientTags(t *testing.T) {
	for _, tc := range []struct {
		r    model.Resource
		want []string
	}{
		{model.Resource{Of: &model.Kind{Scope: model.Namespaced}, Subresources: model.Subresources{Status: true}}, []string{"+genclient"}},
		{model.Resource{Of: &model.Kind{Scope: model.Namespaced}}, []string{"+genclient", "+genclient:noStatus"}},
		{model.Resource{Of: &model.Kind{Scope: model.Cluster}}, []string{"+genclient", "+genclient:nonNamespaced", "+genclient:noStatus"}},
		{model.Resource{Of: &model.Kind{Scope: model.Namespaced}, Subresources: model.Subresources{Status: true, Scale: &model.Scale{SpecReplicasPath: ".spec.replicas"}}},
			[]string{"+genclient", scaleTags[0], scaleTags[1]}},
		// A create-only review without a list type: only its verbs, so nothing names the list.
		{model.Resource{Of: &model.Kind{Scope: model.Cluster, CustomStorage: &model.CustomStorage{Verbs: []string{"create", "get"}}}},
			[]string{"+genclient", "+genclient:nonNamespaced", "+genclient:noStatus", "+genclient:onlyVerbs=create,get"}},
		{model.Resource{Of: &model.Kind{Scope: model.Cluster, CustomStorage: &model.CustomStorage{Verbs: []string{"create"}}}, ListKind: "ReviewList"},
			[]string{"+genclient", "+genclient:nonNamespaced", "+genclient:noStatus"}},
	} {
		if diff := cmp.Diff(tc.want, genclientTags(&tc.r)); diff != "" {
			t.Errorf("%+v (-want +got):\n%s", tc.r, diff)
		}
	}
}

// TestApplySchema: the schema fed to applyconfiguration-gen defines every type the kinds
// reach, with references that resolve (the check applyconfiguration-gen makes), apimachinery's
// definitions as compiled upstream, and the list and map extensions of the comments.
func TestApplySchema(t *testing.T) {
	doc, err := applySchema(fixtureLoad(t).Universe, []string{widgetsPkg})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := openapiv2.ParseDocument(raw)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := utilproto.NewOpenAPIData(parsed); err != nil {
		t.Fatalf("the schema's references do not resolve: %v", err)
	}
	const v1alpha1 = "com.example.fixture.pkg.apis.widgets.v1alpha1."
	for _, name := range []string{
		v1alpha1 + "Widget", v1alpha1 + "WidgetSpec", v1alpha1 + "Port",
		"com.example.fixture.pkg.shared.Endpoint",         // another package of the module
		"io.k8s.api.core.v1.ResourceRequirements",         // built from the load
		"io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", // compiled
		"io.k8s.apimachinery.pkg.api.resource.Quantity",   // compiled
		"io.k8s.apimachinery.pkg.util.intstr.IntOrString", // its own methods
		"io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry",
	} {
		if _, ok := doc.Definitions[name]; !ok {
			t.Errorf("no definition %s", name)
		}
	}
	conditions := doc.Definitions[v1alpha1+"WidgetStatus"].Properties["conditions"]
	if lt, keys := conditions.Extensions["x-kubernetes-list-type"], conditions.Extensions["x-kubernetes-list-map-keys"]; lt != "map" || !slices.Equal(keys.([]string), []string{"type"}) {
		t.Errorf("status.conditions: list type %v, keys %v; want map keyed by type", lt, keys)
	}
	spec := doc.Definitions[v1alpha1+"WidgetSpec"]
	if _, ok := spec.Properties["description"]; !ok {
		t.Error("WidgetSpec lacks the members of the inline Common")
	}
	if got := spec.Properties["ports"].Items.Schema.Ref.String(); got != "#/definitions/"+v1alpha1+"Port" {
		t.Errorf("spec.ports items refer to %q", got)
	}
	if got := spec.Properties["extra"].AdditionalProperties.Schema.Type; !slices.Equal(got, []string{"array"}) {
		t.Errorf("spec.extra values are %v, want array", got)
	}
	if d := doc.Definitions["io.k8s.apimachinery.pkg.apis.meta.v1.Condition"].Properties["message"].Default; d != nil {
		t.Errorf("Condition.message has the default %v, which the served v2 document prunes", d)
	}
	if got := doc.Definitions["io.k8s.apimachinery.pkg.util.intstr.IntOrString"].Format; got != "int-or-string" {
		t.Errorf("IntOrString format %q", got)
	}
}

// TestClientsHonourUserTags: a kind whose author wrote +genclient keeps the author's tags.
func TestClientsHonourUserTags(t *testing.T) {
	widget := fixtureLoad(t).Universe[widgetsPkg].Types["Widget"]
	old := widget.CommentLines
	defer func() { widget.CommentLines = old }()
	widget.CommentLines = append(slices.Clip(old), "+genclient", "+genclient:onlyVerbs=get,list")

	p := fixtureProject()
	p.Clients = model.DefaultClients()
	out := generateClients(t, p)
	src, ok := out.Get("pkg/generated/clientset/versioned/typed/widgets/v1alpha1/widget.go")
	if !ok {
		t.Fatalf("no widget client among %q", out.Paths())
	}
	if !strings.Contains(string(src), "Get(ctx context.Context, name string") || strings.Contains(string(src), "Create(") || strings.Contains(string(src), "UpdateStatus(") {
		t.Errorf("the widget client should have only get and list, as +genclient:onlyVerbs says:\n%s", src)
	}
}

// TestClientsLeaveOutForeignApply: a client method applying a type of a package the project
// does not serve (apps/v1's ApplyScale of k8s.io/api/autoscaling/v1.Scale) is left out with a
// warning, since client-gen would import an apply configuration the project does not have; the
// methods taking the type itself stay, and the author's tags are back after the run.
func TestClientsLeaveOutForeignApply(t *testing.T) {
	widget := fixtureLoad(t).Universe[widgetsPkg].Types["Widget"]
	old := widget.CommentLines
	defer func() { widget.CommentLines = old }()
	widget.CommentLines = append(slices.Clip(old), "+genclient",
		"+genclient:method=GetScale,verb=get,subresource=scale,result=k8s.io/api/autoscaling/v1.Scale",
		"+genclient:method=ApplyScale,verb=apply,subresource=scale,input=k8s.io/api/autoscaling/v1.Scale,result=k8s.io/api/autoscaling/v1.Scale")
	tagged := slices.Clone(widget.CommentLines)

	p := fixtureProject()
	p.Clients = model.DefaultClients()
	ctx := &engine.LoadContext{Context: engine.Context{Project: p, GoHeader: header}, Load: fixtureLoad(t)}
	out, err := engine.RunUpstream(ctx, []engine.Upstream{Clients()})
	if err != nil {
		t.Fatal(err)
	}
	src, ok := out.Get("pkg/generated/clientset/versioned/typed/widgets/v1alpha1/widget.go")
	if !ok {
		t.Fatalf("no widget client among %q", out.Paths())
	}
	if !strings.Contains(string(src), "GetScale(") || strings.Contains(string(src), "ApplyScale(") {
		t.Errorf("the widget client should have GetScale and no ApplyScale:\n%s", src)
	}
	if w := ctx.Warnings.Error(); !strings.Contains(w, "+genclient:method=ApplyScale on Widget: the generated client has no ApplyScale method") {
		t.Errorf("warnings %q, want one about ApplyScale", w)
	}
	if !slices.Equal(widget.CommentLines, tagged) {
		t.Errorf("the type's tags after the run:\n%q\nwant\n%q", widget.CommentLines, tagged)
	}
}
