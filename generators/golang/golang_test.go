package golang

import (
	"fmt"
	"go/format"
	"go/token"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apigen-dev/apigen/generators/model"
)

const api = "example.com/p/pkg/apis/toys/v1"

func group(resources ...*model.Resource) (*model.Group, *model.Version) {
	v := &model.Version{Name: "v1", Package: api, Dir: "pkg/apis/toys/v1", Resources: resources}
	var kinds []*model.Kind
	for _, r := range resources {
		if r.Of == nil {
			r.Of = &model.Kind{Name: r.Kind}
		}
		r.Of.Storage, r.Of.Versions = v, []*model.Version{v}
		kinds = append(kinds, r.Of)
	}
	slices.SortFunc(kinds, func(a, b *model.Kind) int { return strings.Compare(a.Name, b.Name) })
	return &model.Group{Name: "toys.example.com", Package: "toys", Versions: []*model.Version{v}, Kinds: kinds}, v
}

// storageSource renders the storage file of one resource and checks that it is valid Go.
func storageSource(t *testing.T, r *model.Resource) string {
	t.Helper()
	g, v := group(r)
	f := newFile("example.com/p/pkg/registry/toys/"+registryPackage(r), registryPackage(r))
	emitStorage(f, "example.com/p/pkg/cmd/server", g, v, r)
	src := fmt.Sprintf("%#v", f)
	if _, err := format.Source([]byte(src)); err != nil {
		t.Fatalf("not valid Go: %v\n%s", err, src)
	}
	return src
}

func contains(t *testing.T, src string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(src, w) {
			t.Errorf("output lacks %q:\n%s", w, src)
		}
	}
}

func lacks(t *testing.T, src string, unwanted ...string) {
	t.Helper()
	for _, w := range unwanted {
		if strings.Contains(src, w) {
			t.Errorf("output has %q:\n%s", w, src)
		}
	}
}

func TestStorageWithStatusAndHooks(t *testing.T) {
	src := storageSource(t, &model.Resource{
		Kind: "Widget", ListKind: "WidgetList", HasSpec: true, HasStatus: true, StatusType: "WidgetStatus",
		Of:           &model.Kind{Name: "Widget", Plural: "widgets", Singular: "widget", ShortNames: []string{"wd"}, Categories: []string{"all"}, Scope: model.Namespaced},
		Subresources: model.Subresources{Status: true},
		Hooks:        model.Hooks{Validate: true, ValidateUpdate: true, ValidateStatusUpdate: true, PrepareForCreate: true, PrepareForUpdate: true, Canonicalize: true, WarningsOnCreate: true, WarningsOnUpdate: true},
		Schema:       []byte(`{"type":"object","properties":{"apiVersion":{"type":"string"},"kind":{"type":"string"},"metadata":{"type":"object"},"spec":{"type":"object"},"extra":{"type":"string"},"status":{"type":"object"}}}`),
	})
	contains(t, src,
		"widget.Status = v1.WidgetStatus{}\n\twidget.Generation = 1\n\twidget.PrepareForCreate(ctx)",
		"newWidget.Status = oldWidget.Status",
		"newContent.ObjectMeta, oldContent.ObjectMeta = metav1.ObjectMeta{}, metav1.ObjectMeta{}",
		"if !apiequality.Semantic.DeepEqual(newContent, oldContent) {\n\t\tnewWidget.Generation = oldWidget.Generation + 1",
		"newWidget.PrepareForUpdate(ctx, oldWidget)",
		"allErrs := s.validation.Validate(ctx, obj)\n\treturn append(allErrs, widget.Validate(ctx)...)",
		"allErrs := s.validation.ValidateUpdate(ctx, obj, old)\n\tallErrs = append(allErrs, newWidget.Validate(ctx)...)\n\tallErrs = append(allErrs, newWidget.ValidateUpdate(ctx, oldWidget)...)",
		"allErrs := s.validation.ValidateStatusUpdate(ctx, obj, old)\n\treturn append(allErrs, newWidget.ValidateStatusUpdate(ctx, oldWidget)...)",
		`"toys.example.com/v1": fieldpath.NewSet(fieldpath.MakePathOrDie("metadata"), fieldpath.MakePathOrDie("extra"), fieldpath.MakePathOrDie("spec"))`,
		"func (strategy) AllowUnconditionalUpdate(ctx context.Context) bool {\n\treturn false",
		"return obj.(*v1.Widget).WarningsOnCreate(ctx)",
		"obj.(*v1.Widget).Canonicalize()",
		`"toys.example.com/v1": fieldpath.NewSet(fieldpath.MakePathOrDie("status"))`,
		"func NewREST(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (*REST, *StatusREST, error) {",
		`return []string{"wd"}`, `return []string{"all"}`,
		"statusStore.UpdateStrategy = statusStrategy{strategy}",
		// What the API server finds by type assertion is checked when the package compiles.
		"var (\n\t_ rest.RESTCreateStrategy  = strategy{}\n\t_ rest.RESTUpdateStrategy  = strategy{}\n\t_ rest.RESTDeleteStrategy  = strategy{}\n\t_ rest.ResetFieldsStrategy = strategy{}\n)",
		"var (\n\t_ rest.RESTUpdateStrategy  = statusStrategy{}\n\t_ rest.ResetFieldsStrategy = statusStrategy{}\n)",
		"var (\n\t_ rest.StandardStorage      = &REST{}\n\t_ rest.Scoper               = &REST{}\n\t_ rest.TableConvertor       = &REST{}\n\t_ rest.SingularNameProvider = &REST{}\n\t_ rest.ResetFieldsStrategy  = &REST{}\n\t_ rest.ShortNamesProvider   = &REST{}\n\t_ rest.CategoriesProvider   = &REST{}\n)",
		"var (\n\t_ rest.Storage             = &StatusREST{}\n\t_ rest.Patcher             = &StatusREST{}\n\t_ rest.TableConvertor      = &StatusREST{}\n\t_ rest.ResetFieldsStrategy = &StatusREST{}\n)",
	)
}

// TestStorageNamesTheGroup: the store's resource names and the scale's group-version use the
// GroupName and SchemeGroupVersion apigen declares in the types package, and are literals where
// the package registers itself, which may declare neither (cluster-api's core/v1beta2 declares
// only GroupVersion), or declares its own.
func TestStorageNamesTheGroup(t *testing.T) {
	widget := func() *model.Resource {
		return &model.Resource{
			Kind: "Widget", Of: &model.Kind{Name: "Widget", Plural: "widgets", Singular: "widget", Scope: model.Namespaced}, ListKind: "WidgetList", HasSpec: true, HasStatus: true,
			Subresources: model.Subresources{Scale: &model.Scale{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas"}},
		}
	}
	src := storageSource(t, widget())
	contains(t, src,
		`schema.GroupResource{Group: v1.GroupName, Resource: "widgets"}`,
		`schema.GroupResource{Group: v1.GroupName, Resource: "widget"}`,
		`server.NewTableConvertor(scheme, v1.GroupName,`,
		"v1.SchemeGroupVersion,",
	)
	lacks(t, src, `"toys.example.com"`, "v1.Resource(")

	for name, edit := range map[string]func(v *model.Version){
		"registers itself": func(v *model.Version) { v.OwnRegistration = true },
		"declares GroupName": func(v *model.Version) {
			v.DeclPos = map[string]token.Position{"GroupName": {}, "SchemeGroupVersion": {}}
		},
	} {
		r := widget()
		g, v := group(r)
		edit(v)
		f := newFile("example.com/p/pkg/registry/toys/widget", "widget")
		emitStorage(f, "example.com/p/pkg/cmd/server", g, v, r)
		src := fmt.Sprintf("%#v", f)
		contains(t, src,
			`schema.GroupResource{Group: "toys.example.com", Resource: "widgets"}`,
			`schema.GroupVersion{Group: "toys.example.com", Version: "v1"}`,
		)
		if t.Failed() {
			t.Fatalf("a package that %s", name)
		}
		lacks(t, src, "v1.Resource(", "v1.SchemeGroupVersion", "v1.GroupName")
	}
}

func TestStorageClusterScopedWithoutStatus(t *testing.T) {
	src := storageSource(t, &model.Resource{
		Kind: "Gadget", Of: &model.Kind{Name: "Gadget", Plural: "gadgets", Singular: "gadget", Scope: model.Cluster}, ListKind: "GadgetList",
	})
	contains(t, src,
		"func (strategy) NamespaceScoped() bool {\n\treturn false",
		"generic.ObjectMetaFieldsSet(&gadget.ObjectMeta, false)",
		// The metadata is checked once, by the schema validation, as a CRD's strategy checks it.
		"field.ErrorList {\n\treturn s.validation.Validate(ctx, obj)\n}",
		"field.ErrorList {\n\treturn s.validation.ValidateUpdate(ctx, obj, old)\n}",
		"func NewREST(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (*REST, error) {",
		// Only what the types implement is asserted: no reset fields, short names or categories.
		"var (\n\t_ rest.RESTCreateStrategy = strategy{}\n\t_ rest.RESTUpdateStrategy = strategy{}\n\t_ rest.RESTDeleteStrategy = strategy{}\n)",
		"var (\n\t_ rest.StandardStorage      = &REST{}\n\t_ rest.Scoper               = &REST{}\n\t_ rest.TableConvertor       = &REST{}\n\t_ rest.SingularNameProvider = &REST{}\n)",
	)
	lacks(t, src, "StatusREST", "statusStrategy", "GetResetFields", "ResetFieldsStrategy", "ShortNames", "Categories", ".Validate(ctx)", "ValidateObjectMeta")
}

func TestStorageNamesThatWouldShadow(t *testing.T) {
	// A kind named like an imported package or a keyword must not shadow it; a pointer status
	// is reset to nil.
	src := storageSource(t, &model.Resource{
		Kind: "Field", Of: &model.Kind{Name: "Field", Plural: "fields", Singular: "field", Scope: model.Namespaced}, ListKind: "FieldList",
		HasStatus: true, StatusType: "*FieldStatus", Subresources: model.Subresources{Status: true},
	})
	contains(t, src, "fieldObj := obj.(*v1.Field)", "fieldObj.Status = nil", "old runtime.Object) field.ErrorList {")
	pkg := storageSource(t, &model.Resource{Kind: "Package", Of: &model.Kind{Name: "Package", Plural: "packages", Singular: "package", Scope: model.Cluster}, ListKind: "PackageList"})
	contains(t, pkg, "package packageregistry", "packageObj := obj.(*v1.Package)")
	sel := storageSource(t, &model.Resource{Kind: "Selectable", Of: &model.Kind{Name: "Selectable", Plural: "selectables", Singular: "selectable", Scope: model.Cluster}, ListKind: "SelectableList"})
	contains(t, sel, "selectableObj, ok := obj.(*v1.Selectable)", "selectable := generic.ObjectMetaFieldsSet(&selectableObj.ObjectMeta, false)")
}

func TestRegisterWithDefaulting(t *testing.T) {
	g, v := group(
		&model.Resource{Kind: "Widget", ListKind: "WidgetList", Hooks: model.Hooks{Default: true}, ObjectDefaulter: true},
		&model.Resource{Kind: "Gadget", ListKind: "GadgetList", ObjectDefaulter: true},
	)
	f := newFile(api, "v1")
	emitRegister(f, g, v)
	src := fmt.Sprintf("%#v", f)
	contains(t, src,
		`const GroupName = "toys.example.com"`,
		// The group is spelled out once, in GroupName; the rest of the file names it.
		`var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1"}`,
		"return schema.GroupKind{Group: GroupName, Kind: kind}",
		"return schema.GroupResource{Group: GroupName, Resource: resource}",
		"scheme.AddKnownTypes(\n\t\tSchemeGroupVersion,",
		"metav1.AddToGroupVersion(scheme, SchemeGroupVersion)",
		"localSchemeBuilder.Register(addKnownTypes, RegisterDefaults, addDefaultingHooks)",
		// The hook runs after the declarative defaults, for the kind and its list's items.
		"o := obj.(*Widget)\n\t\tSetObjectDefaults_Widget(o)\n\t\to.Default()",
		"for i := range list.Items {\n\t\t\tSetObjectDefaults_Widget(&list.Items[i])\n\t\t\tlist.Items[i].Default()",
		"&Widget{},\n\t\t&WidgetList{},\n\t\t&Gadget{},\n\t\t&GadgetList{},",
	)
	lacks(t, src, "(*Gadget)", "gv :=")
	if n := strings.Count(src, `"toys.example.com"`); n != 1 {
		t.Errorf("the group literal appears %d times, want once (in GroupName):\n%s", n, src)
	}
}

// Without declarative defaults the hook is called alone; without hooks RegisterDefaults is.
func TestRegisterHookWithoutDeclarativeDefaults(t *testing.T) {
	g, v := group(&model.Resource{Kind: "Widget", ListKind: "WidgetList", Hooks: model.Hooks{Default: true}})
	f := newFile(api, "v1")
	emitRegister(f, g, v)
	src := fmt.Sprintf("%#v", f)
	contains(t, src, "o := obj.(*Widget)\n\t\to.Default()")
	lacks(t, src, "SetObjectDefaults_")

	g, v = group(&model.Resource{Kind: "Widget", ListKind: "WidgetList", ObjectDefaulter: true})
	f = newFile(api, "v1")
	emitRegister(f, g, v)
	src = fmt.Sprintf("%#v", f)
	contains(t, src, "localSchemeBuilder.Register(addKnownTypes, RegisterDefaults)")
	lacks(t, src, "addDefaultingHooks")
}

// A package that declares the conventional names itself keeps them: the register file
// declares none of them and names its helpers around the package's.
func TestRegisterAroundTheUsersNames(t *testing.T) {
	g, v := group(&model.Resource{Kind: "Widget", ListKind: "WidgetList", Hooks: model.Hooks{Default: true},
		SelectableFields: []model.SelectableField{{JSONPath: ".spec.color"}}})
	v.DeclPos = map[string]token.Position{}
	for _, name := range []string{"GroupName", "SchemeGroupVersion", "SchemeBuilder", "Kind", "Resource",
		"addKnownTypes", "addKnownTypes2", "addDefaultingHooks", "addFieldLabelConversions"} {
		v.DeclPos[name] = token.Position{}
	}
	f := newFile(api, "v1")
	emitRegister(f, g, v)
	src := fmt.Sprintf("%#v", f)
	contains(t, src,
		"localSchemeBuilder = &runtime.SchemeBuilder{}",
		"AddToScheme = localSchemeBuilder.AddToScheme",
		"localSchemeBuilder.Register(addKnownTypes3, RegisterDefaults, addDefaultingHooks2, addFieldLabelConversions2)",
		"func addKnownTypes3(scheme *runtime.Scheme) error {",
		// The package's GroupName and SchemeGroupVersion may be anything: the group is spelled out.
		"gv := schema.GroupVersion{Group: \"toys.example.com\", Version: \"v1\"}\n\tscheme.AddKnownTypes(\n\t\tgv,",
		"metav1.AddToGroupVersion(scheme, gv)",
		"return scheme.AddFieldLabelConversionFunc(schema.GroupVersion{Group: \"toys.example.com\", Version: \"v1\"}.WithKind(\"Widget\"),",
	)
	lacks(t, src, "GroupName", "SchemeGroupVersion", "func Kind(", "func Resource(", "SchemeBuilder runtime")

	// A package that declares only GroupName gets the generated SchemeGroupVersion, with the
	// group spelled out; the rest of the file names SchemeGroupVersion.
	v.DeclPos = map[string]token.Position{"GroupName": {}}
	f = newFile(api, "v1")
	emitRegister(f, g, v)
	src = fmt.Sprintf("%#v", f)
	contains(t, src,
		`var SchemeGroupVersion = schema.GroupVersion{Group: "toys.example.com", Version: "v1"}`,
		"return schema.GroupKind{Group: \"toys.example.com\", Kind: kind}",
		"scheme.AddKnownTypes(\n\t\tSchemeGroupVersion,",
		"return scheme.AddFieldLabelConversionFunc(SchemeGroupVersion.WithKind(\"Widget\"),",
	)
	lacks(t, src, "GroupName")
}

// Each kind with selectable fields adds its field label conversion; the last one's error is
// returned as it is, with no if err != nil { return err }; return nil tail.
func TestRegisterFieldLabelConversions(t *testing.T) {
	selectable := []model.SelectableField{{JSONPath: ".spec.color"}}
	g, v := group(
		&model.Resource{Kind: "Widget", Of: &model.Kind{Name: "Widget", Plural: "widgets"}, ListKind: "WidgetList", SelectableFields: selectable},
		&model.Resource{Kind: "Plain", Of: &model.Kind{Name: "Plain", Plural: "plains"}, ListKind: "PlainList"},
		&model.Resource{Kind: "Gadget", Of: &model.Kind{Name: "Gadget", Plural: "gadgets"}, ListKind: "GadgetList", SelectableFields: selectable},
	)
	f := newFile(api, "v1")
	emitRegister(f, g, v)
	src := fmt.Sprintf("%#v", f)
	if _, err := format.Source([]byte(src)); err != nil {
		t.Fatalf("not valid Go: %v\n%s", err, src)
	}
	contains(t, src,
		"if err := scheme.AddFieldLabelConversionFunc(SchemeGroupVersion.WithKind(\"Widget\"), func(label, value string) (string, string, error) {",
		"}); err != nil {\n\t\treturn err\n\t}\n\treturn scheme.AddFieldLabelConversionFunc(SchemeGroupVersion.WithKind(\"Gadget\"), func(label, value string) (string, string, error) {",
	)
	lacks(t, src, "WithKind(\"Plain\")")
	if !strings.HasSuffix(strings.TrimSpace(src), "(supported: metadata.name, metadata.namespace, spec.color)\", label)\n\t})\n}") {
		t.Errorf("addFieldLabelConversions does not end with the last conversion's return:\n%s", src)
	}
}

// A kubebuilder package registers its kinds with controller-runtime's SchemeBuilder: the
// register file only adds the generated functions to it.
func TestRegisterWithControllerRuntime(t *testing.T) {
	g, v := group(&model.Resource{Kind: "Widget", ListKind: "WidgetList"})
	v.ControllerRuntime = true
	v.DeclPos = map[string]token.Position{"GroupVersion": {}, "SchemeBuilder": {}, "AddToScheme": {}}
	f := newFile(api, "v1")
	emitRegister(f, g, v)
	src := fmt.Sprintf("%#v", f)
	contains(t, src,
		"var localSchemeBuilder = &SchemeBuilder.SchemeBuilder",
		"localSchemeBuilder.Register(RegisterDefaults)",
		"func Resource(resource string) schema.GroupResource",
	)
	lacks(t, src, "AddToScheme =", "addKnownTypes", "AddKnownTypes")
}

func TestInstallRegistersTheHubAsInternal(t *testing.T) {
	g, _ := group(&model.Resource{Kind: "Widget", ListKind: "WidgetList"})
	f := newFile("example.com/p/pkg/apis/toys/install", "install")
	importVersions(f, g)
	emitInstall(f, g)
	contains(t, fmt.Sprintf("%#v", f),
		"utilruntime.Must(toysv1.AddToScheme(scheme))",
		"internal := schema.GroupVersion{Group: \"toys.example.com\", Version: runtime.APIVersionInternal}",
		"&toysv1.Widget{},\n\t\t&toysv1.WidgetList{},",
		"utilruntime.Must(scheme.SetVersionPriority(toysv1.SchemeGroupVersion))",
		// The generated file says why an external type may be the internal version.
		"// Registering an external type as \"__internal\" is safe: between two versions of one Go type\n// the scheme converts by copying the object and setting its kind,",
	)
}

// Hand-written internal types are the hubs of the Kubernetes layout: no external type is
// registered as internal, so the file has nothing to explain.
func TestInstallRegistersHandWrittenInternalTypes(t *testing.T) {
	g, _ := group(&model.Resource{Kind: "Widget", ListKind: "WidgetList"})
	g.Internal = &model.Version{Name: "__internal", Package: "example.com/p/pkg/apis/toys", Dir: "pkg/apis/toys",
		Resources: []*model.Resource{{Kind: "Widget", ListKind: "WidgetList"}}}
	f := newFile("example.com/p/pkg/apis/toys/install", "install")
	importVersions(f, g)
	emitInstall(f, g)
	src := fmt.Sprintf("%#v", f)
	contains(t, src, "&toys.Widget{},\n\t\t&toys.WidgetList{},")
	lacks(t, src, "external type")
}

// The server learns its deployment names from the model, for the certs command's defaults.
func TestAPIServerDeployment(t *testing.T) {
	g, _ := group(&model.Resource{Kind: "Widget", Of: &model.Kind{Name: "Widget", Plural: "widgets"}, ListKind: "WidgetList"})
	p := &model.Project{Module: "example.com/p", Name: "p", Groups: []*model.Group{g},
		Deploy: model.Deploy{Namespace: "apis", Name: "toys", Image: "toys:latest"}}
	f := newFile("example.com/p/pkg/apiserver", "apiserver")
	emitAPIServer(f, p)
	contains(t, fmt.Sprintf("%#v", f),
		"Deployment: server.Deployment{\n\t\t\tNamespace:         \"apis\",\n\t\t\tService:           \"toys\",\n\t\t\tServingCertSecret: \"toys-serving-cert\",\n\t\t},",
		"optsGetter generic.RESTOptionsGetter) error {\n\treturn installToys(s, optsGetter)\n}",
	)
}

// installAPIGroups installs each group in turn and returns the last one's error as it is.
func TestAPIServerInstallsEveryGroup(t *testing.T) {
	toys, _ := group(&model.Resource{Kind: "Widget", Of: &model.Kind{Name: "Widget", Plural: "widgets", Singular: "widget"}, ListKind: "WidgetList"})
	games, _ := group(&model.Resource{Kind: "Board", Of: &model.Kind{Name: "Board", Plural: "boards", Singular: "board"}, ListKind: "BoardList"})
	games.Name, games.Package = "games.example.com", "games"
	games.Versions[0].Package, games.Versions[0].Dir = "example.com/p/pkg/apis/games/v1", "pkg/apis/games/v1"
	p := &model.Project{Module: "example.com/p", Name: "p", Groups: []*model.Group{games, toys}}
	f := newFile("example.com/p/pkg/apiserver", "apiserver")
	emitAPIServer(f, p)
	contains(t, fmt.Sprintf("%#v", f),
		"optsGetter generic.RESTOptionsGetter) error {\n\tif err := installGames(s, optsGetter); err != nil {\n\t\treturn err\n\t}\n\treturn installToys(s, optsGetter)\n}",
	)
}

// A group with no resource (k8s.io/api's admission/v1) is registered in the scheme but not
// installed, and a group whose v2 holds only shared types prefers v1, the version it serves.
func TestAPIServerServesOnlyVersionsWithResources(t *testing.T) {
	toys, _ := group(&model.Resource{Kind: "Widget", Of: &model.Kind{Name: "Widget", Plural: "widgets", Singular: "widget"}, ListKind: "WidgetList"})
	toys.Versions = append(toys.Versions, &model.Version{Name: "v2", Package: "example.com/p/pkg/apis/toys/v2", Dir: "pkg/apis/toys/v2"})
	hooks := &model.Group{Name: "hooks.example.com", Package: "hooks", Versions: []*model.Version{{Name: "v1", Package: "example.com/p/pkg/apis/hooks/v1", Dir: "pkg/apis/hooks/v1"}}}
	p := &model.Project{Module: "example.com/p", Name: "p", Groups: []*model.Group{hooks, toys}}
	f := newFile("example.com/p/pkg/apiserver", "apiserver")
	emitAPIServer(f, p)
	src := fmt.Sprintf("%#v", f)
	contains(t, src,
		"install.Install(Scheme)\n\tinstall1.Install(Scheme)", // both groups in the scheme
		"optsGetter generic.RESTOptionsGetter) error {\n\treturn installToys(s, optsGetter)\n}",
		"apiGroupInfo.PrioritizedVersions = []schema.GroupVersion{v1.SchemeGroupVersion}",
	)
	lacks(t, src, "installHooks", `VersionedResourcesStorageMap["v2"]`)
}

// Selectable fields become field values in getAttrs: nil pointers on the way give "", integers
// and booleans are formatted, named string types converted.
func TestStorageSelectableFields(t *testing.T) {
	src := storageSource(t, &model.Resource{Kind: "Widget", Of: &model.Kind{Name: "Widget", Plural: "widgets", Singular: "widget", Scope: model.Namespaced}, ListKind: "WidgetList",
		SelectableFields: []model.SelectableField{
			{JSONPath: ".spec.color", Type: "string", Go: []model.FieldStep{{Name: "Spec"}, {Name: "Color"}}},
			{JSONPath: ".spec.size", Type: "integer", Go: []model.FieldStep{{Name: "Spec"}, {Name: "Size", Pointer: true}}},
			{JSONPath: ".spec.part.on", Type: "boolean", Go: []model.FieldStep{{Name: "Spec"}, {Name: "Part", Pointer: true}, {Name: "On"}}},
		}})
	contains(t, src,
		`selectable["spec.color"] = string(widget.Spec.Color)`,
		"if widget.Spec.Size != nil {\n\t\tselectable[\"spec.size\"] = strconv.FormatInt(int64(*widget.Spec.Size), 10)\n\t} else {\n\t\tselectable[\"spec.size\"] = \"\"\n\t}",
		"if widget.Spec.Part != nil {\n\t\tselectable[\"spec.part.on\"] = strconv.FormatBool(bool(widget.Spec.Part.On))",
		// The set of selectable fields does not shadow the fields package.
		"selectable := generic.ObjectMetaFieldsSet(&widget.ObjectMeta, true)",
		"return widget.Labels, selectable, nil",
	)
	lacks(t, src, "fields :=", "fields[")
}

// A kind that converts the controller-runtime way: the spoke's register file registers its
// ConvertTo and ConvertFrom, for the kind and item by item for its list.
func TestRegisterHubConversions(t *testing.T) {
	hubVersion := &model.Version{Name: "v2", Package: "example.com/p/api/v2", Dir: "api/v2",
		Resources: []*model.Resource{{Kind: "Widget", ListKind: "WidgetList", Conversion: model.ConversionHub}}}
	spoke := &model.Version{Name: "v1", Package: "example.com/p/api/v1", Dir: "api/v1", ControllerRuntime: true,
		DeclPos:   map[string]token.Position{"GroupVersion": {}, "SchemeBuilder": {}, "AddToScheme": {}},
		Resources: []*model.Resource{{Kind: "Widget", Of: &model.Kind{Name: "Widget", ListKind: "WidgetList"}, ListKind: "WidgetList", Conversion: model.ConversionSpoke}}}
	g := &model.Group{Name: "toys.example.com", Package: "toys", Versions: []*model.Version{spoke, hubVersion},
		Kinds: []*model.Kind{{Name: "Widget", Storage: hubVersion, Versions: []*model.Version{hubVersion, spoke}}}}
	f := newFile(spoke.Package, "v1")
	emitRegister(f, g, spoke)
	src := fmt.Sprintf("%#v", f)
	contains(t, src, "localSchemeBuilder.Register(RegisterDefaults, addHubConversions)")
	want := `// addHubConversions converts the kinds of this version to and from their hub with their own ConvertTo
// and ConvertFrom methods (controller-runtime's conversion.Convertible), lists item by item.
func addHubConversions(scheme *runtime.Scheme) error {
	if err := scheme.AddConversionFunc((*Widget)(nil), (*v2.Widget)(nil), func(a, b any, _ conversion.Scope) error {
		return a.(*Widget).ConvertTo(b.(*v2.Widget))
	}); err != nil {
		return err
	}
	if err := scheme.AddConversionFunc((*v2.Widget)(nil), (*Widget)(nil), func(a, b any, _ conversion.Scope) error {
		return b.(*Widget).ConvertFrom(a.(*v2.Widget))
	}); err != nil {
		return err
	}
	if err := scheme.AddConversionFunc((*WidgetList)(nil), (*v2.WidgetList)(nil), func(a, b any, _ conversion.Scope) error {
		in, out := a.(*WidgetList), b.(*v2.WidgetList)
		out.ListMeta = in.ListMeta
		out.Items = nil
		if in.Items != nil {
			out.Items = make([]v2.Widget, len(in.Items))
		}
		for i := range in.Items {
			if err := in.Items[i].ConvertTo(&out.Items[i]); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	if err := scheme.AddConversionFunc((*v2.WidgetList)(nil), (*WidgetList)(nil), func(a, b any, _ conversion.Scope) error {
		in, out := a.(*v2.WidgetList), b.(*WidgetList)
		out.ListMeta = in.ListMeta
		out.Items = nil
		if in.Items != nil {
			out.Items = make([]Widget, len(in.Items))
		}
		for i := range in.Items {
			if err := out.Items[i].ConvertFrom(&in.Items[i]); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	return nil
}
`
	hub := newFile(spoke.Package, "v1")
	emitHubConversions(hub, g, methodSpokes(spoke), "addHubConversions")
	got := fmt.Sprintf("%#v", hub)
	got = got[strings.Index(got, "// addHubConversions"):]
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("hub conversions (-want +got):\n%s", diff)
	}
}

// A package that registers itself gets a register file with the hub conversions only,
// registered with its localSchemeBuilder as conversion-gen's are; without spokes, none.
func TestRegisterHubConversionsInOwnRegistration(t *testing.T) {
	hubVersion := &model.Version{Name: "v2", Package: "example.com/p/pkg/apis/toys/v2",
		Resources: []*model.Resource{{Kind: "Widget", ListKind: "WidgetList", Conversion: model.ConversionHub}}}
	spoke := &model.Version{Name: "v1", Package: api, OwnRegistration: true,
		DeclPos:   map[string]token.Position{"addHubConversions": {}},
		Resources: []*model.Resource{{Kind: "Widget", Of: &model.Kind{Name: "Widget", ListKind: "WidgetList"}, ListKind: "WidgetList", Conversion: model.ConversionSpoke}}}
	g := &model.Group{Name: "toys.example.com", Package: "toys", Versions: []*model.Version{spoke, hubVersion},
		Kinds: []*model.Kind{{Name: "Widget", Storage: hubVersion, Versions: []*model.Version{hubVersion, spoke}}}}
	f := newFile(api, "v1")
	if !emitOwnRegistrationHubConversions(f, g, spoke) {
		t.Fatal("nothing emitted for a spoke")
	}
	src := fmt.Sprintf("%#v", f)
	contains(t, src, "func init() {\n\tlocalSchemeBuilder.Register(addHubConversions2)\n}", "func addHubConversions2(scheme *runtime.Scheme) error {")
	lacks(t, src, "GroupName", "SchemeGroupVersion", "AddToScheme", "RegisterDefaults")
	if emitOwnRegistrationHubConversions(newFile(api, "v1"), g, hubVersion) {
		t.Error("a register file for a package without spokes")
	}
}
