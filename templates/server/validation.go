package server

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource"
	"k8s.io/apimachinery/pkg/api/operation"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/features"
	"k8s.io/apiserver/pkg/registry/rest"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
)

// SchemaValidation enforces a kind's OpenAPI schemas (its validation markers and CEL rules,
// one schema per served version) exactly as kube-apiserver enforces a
// CustomResourceDefinition's: it hands the object, converted to the version the request
// used and turned into JSON, to kube-apiserver's own CRD strategy. Updates ratchet (a value
// that was already invalid and did not change does not fail an unrelated change), CEL
// transition rules see oldSelf, and CEL runs within kube-apiserver's cost budget.
type SchemaValidation struct {
	scheme *runtime.Scheme
	group  string
	// fallback is the version that checks objects written without a request version (by the
	// server itself).
	fallback string
	versions map[string]*versionValidation
}

// A versionValidation checks the objects of one served version.
type versionValidation struct {
	kind       schema.GroupVersionKind
	structural *structuralschema.Structural
	// pruning is what Prune walks (see rawJSONParts), nil when the schema has no part whose
	// Go fields keep JSON as sent (embedded resources, preserved unknown fields).
	pruning *structuralschema.Structural
	// typed says every object of the version's Go type satisfies its schema and the version
	// has no scale to check: writes skip the schema walk and check the metadata only.
	typed bool
	// typedOutsideStatus says the same of every part but the status, which the status
	// subresource's strategy clears on create and keeps on a main resource update: those skip
	// the schema walk too (an update only while ratcheting passes the unchanged status).
	typedOutsideStatus bool
	namespaced         bool
	main               createUpdateValidator
	status             updateValidator
}

// updateValidator and createUpdateValidator are what SchemaValidation uses of kube-apiserver's
// CRD strategies.
type updateValidator interface {
	ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList
}

type createUpdateValidator interface {
	updateValidator
	Validate(ctx context.Context, obj runtime.Object) field.ErrorList
}

// ValidatedKind describes a served kind to NewSchemaValidation.
type ValidatedKind struct {
	Group, Kind string
	Namespaced  bool
	// StatusSubresource says the kind serves /status, whose writes are checked
	// against the status schema only.
	StatusSubresource bool
	// StorageVersion checks objects written without a request version (by the
	// server itself).
	StorageVersion string
	// Schemas maps each served version to the kind's schema in it, as JSON.
	Schemas map[string]string
	// SchemaSatisfiedByType are the versions whose schema no object of their Go type can
	// break (apigen decides it from the types): their writes skip the schema walk, and run
	// what a CRD's strategy checks whatever its schema, the metadata.
	SchemaSatisfiedByType []string
	// SchemaSatisfiedOutsideStatus are the versions where that holds of every part but the
	// status, of a kind with a status subresource: creates and main resource updates skip the
	// schema walk, status updates do not.
	SchemaSatisfiedOutsideStatus []string
	// Scales are the kind's scale subresource paths in each version that serves one. Those
	// with a CRD's semantics (see crdScale) are checked: writes are refused, as kube-apiserver
	// refuses a custom resource's, when the spec or status replicas is negative or past an
	// int32, or the selector is not a string.
	Scales map[string]ScalePaths
}

// NewSchemaValidation returns the validation of one kind.
func NewSchemaValidation(scheme *runtime.Scheme, k ValidatedKind) (*SchemaValidation, error) {
	v := &SchemaValidation{scheme: scheme, group: k.Group, fallback: k.StorageVersion, versions: map[string]*versionValidation{}}
	for version, raw := range k.Schemas {
		scale := crdScale(k.Scales, version)
		vv, err := newVersionValidation(scheme, schema.GroupVersionKind{Group: k.Group, Version: version, Kind: k.Kind}, k.Namespaced, k.StatusSubresource, scale, raw)
		if err != nil {
			return nil, fmt.Errorf("the schema of %s/%s %s: %w", k.Group, version, k.Kind, err)
		}
		// A CRD's scale replicas are checked in the object's JSON, whatever the schema.
		vv.typed = scale == nil && slices.Contains(k.SchemaSatisfiedByType, version)
		vv.typedOutsideStatus = scale == nil && k.StatusSubresource && slices.Contains(k.SchemaSatisfiedOutsideStatus, version)
		v.versions[version] = vv
	}
	if _, ok := v.versions[k.StorageVersion]; !ok {
		return nil, fmt.Errorf("no schema for %s/%s %s", k.Group, k.StorageVersion, k.Kind)
	}
	return v, nil
}

// crdScale is a version's scale subresource as apiextensions' strategy takes it, nil when the
// version serves none with a CRD's semantics. It is the one place that decides: a structured
// selector (a metav1.LabelSelector) is a workload's, whose rules are its own, so it is not
// checked as a custom resource's string selector.
func crdScale(scales map[string]ScalePaths, version string) *apiextensions.CustomResourceSubresourceScale {
	paths, ok := scales[version]
	if !ok || paths.LabelSelectorStructured {
		return nil
	}
	scale := &apiextensions.CustomResourceSubresourceScale{SpecReplicasPath: paths.SpecReplicasPath, StatusReplicasPath: paths.StatusReplicasPath}
	if paths.LabelSelectorPath != "" {
		scale.LabelSelectorPath = &paths.LabelSelectorPath
	}
	return scale
}

func newVersionValidation(scheme *runtime.Scheme, kind schema.GroupVersionKind, namespaced, status bool, scale *apiextensions.CustomResourceSubresourceScale, raw string) (*versionValidation, error) {
	var v1 apiextensionsv1.JSONSchemaProps
	if err := json.Unmarshal([]byte(raw), &v1); err != nil {
		return nil, err
	}
	var props apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(&v1, &props, nil); err != nil {
		return nil, err
	}
	structural, err := structuralschema.NewStructural(&props)
	if err != nil {
		return nil, err
	}
	mainValidator, _, err := apiservervalidation.NewSchemaValidator(&props)
	if err != nil {
		return nil, err
	}
	var statusValidator apiservervalidation.SchemaValidator
	var statusSubresource *apiextensions.CustomResourceSubresourceStatus
	if status {
		statusSubresource = &apiextensions.CustomResourceSubresourceStatus{}
		if s, ok := props.Properties["status"]; ok {
			if statusValidator, _, err = apiservervalidation.NewSchemaValidator(&s); err != nil {
				return nil, err
			}
		}
	}
	strategy := customresource.NewStrategy(scheme, namespaced, kind, mainValidator, statusValidator, structural, statusSubresource, scale, nil)
	return &versionValidation{
		kind:       kind,
		structural: structural,
		pruning:    rawJSONParts(structural),
		namespaced: namespaced,
		main:       strategy,
		status:     customresource.NewStatusStrategy(strategy),
	}, nil
}

// Validate checks a new object.
func (v *SchemaValidation) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	vv := v.forRequest(ctx)
	if vv.typed || vv.typedOutsideStatus {
		if errs, ok := vv.validateMeta(ctx, operation.Create, obj, nil); ok {
			return errs
		}
	}
	u, err := v.unstructured(vv, obj)
	if err != nil {
		return field.ErrorList{field.InternalError(nil, err)}
	}
	return vv.main.Validate(ctx, u)
}

// ValidateUpdate checks an update of the main resource against the stored object.
func (v *SchemaValidation) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	return v.validateUpdate(ctx, obj, old, false)
}

// ValidateStatusUpdate checks an update through the status subresource: the status against
// the status schema, and the object's CEL rules.
func (v *SchemaValidation) ValidateStatusUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	return v.validateUpdate(ctx, obj, old, true)
}

func (v *SchemaValidation) validateUpdate(ctx context.Context, obj, old runtime.Object, status bool) field.ErrorList {
	vv := v.forRequest(ctx)
	if vv.typed || vv.typedOutsideStatus && !status && utilfeature.DefaultFeatureGate.Enabled(apiextensionsfeatures.CRDValidationRatcheting) {
		if errs, ok := vv.validateMeta(ctx, operation.Update, obj, old); ok {
			return errs
		}
	}
	u, err := v.unstructured(vv, obj)
	if err != nil {
		return field.ErrorList{field.InternalError(nil, err)}
	}
	uOld, err := v.unstructured(vv, old)
	if err != nil {
		return field.ErrorList{field.InternalError(nil, err)}
	}
	if status {
		return vv.status.ValidateUpdate(ctx, u, uOld)
	}
	return vv.main.ValidateUpdate(ctx, u, uOld)
}

// validateMeta is, where the Go type satisfies the schema, all that kube-apiserver's CRD
// strategy checks of an object (on create, update and status update alike): its metadata, with
// the same rules, names and messages; false when obj has no ObjectMeta to check so.
func (vv *versionValidation) validateMeta(ctx context.Context, op operation.Type, obj, old runtime.Object) (field.ErrorList, bool) {
	m, ok := objectMeta(obj)
	if !ok {
		return nil, false
	}
	var oldMeta *metav1.ObjectMeta
	nameFn := apimachineryvalidation.NameIsDNSSubdomain
	if op == operation.Update {
		if oldMeta, ok = objectMeta(old); !ok {
			return nil, false
		}
		nameFn = nil
	}
	return apimachineryvalidation.ValidateObjectMetaDeclaratively(ctx, op, m, oldMeta, vv.namespaced, nameFn, field.NewPath("metadata"),
		utilfeature.DefaultFeatureGate.Enabled(features.DeclarativeValidationBeta)), true
}

func objectMeta(obj runtime.Object) (*metav1.ObjectMeta, bool) {
	a, ok := obj.(metav1.ObjectMetaAccessor)
	if !ok {
		return nil, false
	}
	m, ok := a.GetObjectMeta().(*metav1.ObjectMeta)
	return m, ok
}

// forRequest is the validation of the version the request was made in.
func (v *SchemaValidation) forRequest(ctx context.Context) *versionValidation {
	if info, ok := request.RequestInfoFrom(ctx); ok && info.APIGroup == v.group {
		if vv, ok := v.versions[info.APIVersion]; ok {
			return vv
		}
	}
	return v.versions[v.fallback]
}

// unstructured is obj in the version vv checks, as the JSON a client of that version reads
// (ConvertToVersion copies; obj is not changed).
// Null values of fields that are not nullable go, as kube-apiserver drops them from a custom
// resource: a nil Go slice or map without omitempty is null in JSON, where a CRD has no field.
func (v *SchemaValidation) unstructured(vv *versionValidation, obj runtime.Object) (*unstructured.Unstructured, error) {
	versioned, err := v.scheme.ConvertToVersion(obj, vv.kind.GroupVersion())
	if err != nil {
		return nil, err
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(versioned)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: content}
	u.SetGroupVersionKind(vv.kind)
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u.Object, vv.structural)
	// A Go object always has a status, a custom resource none until something sets one: a
	// status left empty (its zero value) is no status, so its required fields do not apply.
	if status, ok := u.Object["status"].(map[string]any); ok && len(status) == 0 {
		delete(u.Object, "status")
	}
	return u, nil
}

// Prune drops from a new or updated object what kube-apiserver drops from a
// custom resource when it decodes one, by the schema of the request's
// version: unknown fields inside the parts the Go types keep as raw JSON
// (fields of an embedded resource that its schema does not know, unless
// preserved) and the unknown or malformed metadata of embedded resources.
// Typed fields never hold an unknown field, so a kind without such parts is
// left alone, and so are the typed parts of the others.
//
// An object nothing is dropped from stays as it was decoded. One that loses
// something is converted back from the request's version into a new object, as
// kube-apiserver converts a request, never into obj itself: hand-written
// conversion functions may add to what their output holds (Cluster API's
// v1beta1 appends each health check condition), which converting into an object
// that has them already would double.
func (v *SchemaValidation) Prune(ctx context.Context, obj runtime.Object) {
	vv := v.forRequest(ctx)
	if vv.pruning == nil {
		return
	}
	u, err := v.unstructured(vv, obj)
	if err != nil {
		return // validation reports it
	}
	before := runtime.DeepCopyJSON(u.Object)
	structuralpruning.Prune(u.Object, vv.pruning, true)
	if err, _ := schemaobjectmeta.CoerceWithOptions(nil, u.Object, vv.structural, false, schemaobjectmeta.CoerceOptions{DropInvalidFields: true}); err != nil {
		return
	}
	if reflect.DeepEqual(before, u.Object) {
		return
	}
	versioned, err := v.scheme.New(vv.kind)
	if err != nil || runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, versioned) != nil {
		return
	}
	if reflect.TypeOf(versioned) == reflect.TypeOf(obj) {
		reflect.ValueOf(obj).Elem().Set(reflect.ValueOf(versioned).Elem())
		return
	}
	pruned := reflect.New(reflect.TypeOf(obj).Elem()).Interface().(runtime.Object)
	if v.scheme.Convert(versioned, pruned, nil) != nil {
		return
	}
	pruned.GetObjectKind().SetGroupVersionKind(obj.GetObjectKind().GroupVersionKind())
	reflect.ValueOf(obj).Elem().Set(reflect.ValueOf(pruned).Elem())
}

// rawJSONParts is the schema Prune walks: s's parts whose Go fields keep JSON as sent
// (embedded resources and preserved unknown fields, with all they hold) and the way to them;
// every other part is preserved whole. Those are typed Go fields: decoding dropped their
// unknown fields already, and their schema may describe less than they hold, as a CRD's schema
// of a nested ObjectMeta (a pod template's) has some of its fields or none. kube-apiserver
// keeps every field of a built-in type, so pruning them would lose what the client wrote.
// nil when s has no such part.
func rawJSONParts(s *structuralschema.Structural) *structuralschema.Structural {
	switch {
	case !opaque(s):
		return nil
	case s.XEmbeddedResource || s.XPreserveUnknownFields:
		return s
	}
	typed := func(p *structuralschema.Structural) *structuralschema.Structural {
		if raw := rawJSONParts(p); raw != nil {
			return raw
		}
		return &structuralschema.Structural{Extensions: structuralschema.Extensions{XPreserveUnknownFields: true}}
	}
	out := *s
	if s.Properties != nil {
		out.Properties = make(map[string]structuralschema.Structural, len(s.Properties))
		for name, p := range s.Properties {
			out.Properties[name] = *typed(&p)
		}
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil {
		out.AdditionalProperties = &structuralschema.StructuralOrBool{Bool: s.AdditionalProperties.Bool, Structural: typed(s.AdditionalProperties.Structural)}
	}
	if s.Items != nil {
		out.Items = typed(s.Items)
	}
	return &out
}

// opaque reports whether a schema has an embedded resource or preserves
// unknown fields anywhere.
func opaque(s *structuralschema.Structural) bool {
	if s == nil {
		return false
	}
	if s.XEmbeddedResource || s.XPreserveUnknownFields {
		return true
	}
	for _, p := range s.Properties {
		if opaque(&p) {
			return true
		}
	}
	if s.AdditionalProperties != nil && opaque(s.AdditionalProperties.Structural) {
		return true
	}
	return opaque(s.Items)
}

// DeclarativeValidation runs a kind's +k8s: validation rules (validation-gen's Validate_
// functions, registered with the scheme) on create and update, as kube-apiserver runs a
// built-in type's: a strategy that embeds it is a rest.DeclarativeValidationStrategy, which the
// generic registry calls after the strategy's Validate or ValidateUpdate. Stable rules are
// enforced, beta ones while the DeclarativeValidationBeta feature gate is on, alpha ones only
// logged. A rule the schema enforces too (controller-tools maps some +k8s: tags into it) is
// reported once, in kube-apiserver's words: the schema's error with the same field and cause
// is dropped.
type DeclarativeValidation struct {
	rest.DeclarativeValidation
	// options are the validation options the rules depend on, each set from the server's
	// feature gate of that name (--feature-gates), as kube-apiserver sets them.
	options map[string]bool
}

// NewDeclarativeValidation runs the rules registered with scheme, with the given validation
// options defined: each enabled when the feature gate of that name is (RegisterValidationOptions
// makes one, off by default, for an option no gate of the Kubernetes libraries has), disabled
// when there is no such gate. kube-apiserver's strategies set each option from its feature
// gate so; the gates are fixed once the flags are parsed, before storage is made.
func NewDeclarativeValidation(scheme *runtime.Scheme, options ...string) DeclarativeValidation {
	d := DeclarativeValidation{DeclarativeValidation: rest.DeclarativeValidation{Scheme: scheme}}
	if len(options) > 0 {
		known := utilfeature.DefaultMutableFeatureGate.GetAll()
		d.options = map[string]bool{}
		for _, o := range options {
			_, gated := known[featuregate.Feature(o)]
			d.options[o] = gated && utilfeature.DefaultFeatureGate.Enabled(featuregate.Feature(o))
		}
	}
	return d
}

// RegisterValidationOptions adds a feature gate, alpha and off by default, for each validation
// option that is not one already, so that --feature-gates can enable it. It must run before the
// gates are bound to flags.
func RegisterValidationOptions(options []string) error {
	known := utilfeature.DefaultMutableFeatureGate.GetAll()
	gates := map[featuregate.Feature]featuregate.FeatureSpec{}
	for _, o := range options {
		if _, ok := known[featuregate.Feature(o)]; !ok {
			gates[featuregate.Feature(o)] = featuregate.FeatureSpec{Default: false, PreRelease: featuregate.Alpha}
		}
	}
	if len(gates) == 0 {
		return nil
	}
	if err := utilfeature.DefaultMutableFeatureGate.Add(gates); err != nil {
		return fmt.Errorf("the feature gates of the validation options: %w", err)
	}
	return nil
}

// DeclarativeValidationConfig defines the validation options of every request.
func (d DeclarativeValidation) DeclarativeValidationConfig(context.Context, runtime.Object, runtime.Object) rest.DeclarativeValidationConfig {
	return rest.DeclarativeValidationConfig{Options: d.options}
}

// ValidateDeclaratively runs the rules for the version and subresource of the request and
// returns them with the strategy's own errors.
func (d DeclarativeValidation) ValidateDeclaratively(ctx context.Context, obj, oldObj runtime.Object, errs field.ErrorList, op operation.Type, config rest.DeclarativeValidationConfig) field.ErrorList {
	return reportedOnce(d.DeclarativeValidation.ValidateDeclaratively(ctx, obj, oldObj, errs, op, config))
}

// reportedOnce drops a schema error (marked as from the strategy's own validation) when a
// declarative rule reported the same cause at the same field. A custom resource's scale check
// names its field by the scale path, with a leading dot (.status.replicas): the same field.
func reportedOnce(errs field.ErrorList) field.ErrorList {
	type cause struct {
		field string
		kind  field.ErrorType
	}
	declared := map[cause]bool{}
	for _, e := range errs {
		if !e.FromImperative {
			declared[cause{e.Field, e.Type}] = true
		}
	}
	out := make(field.ErrorList, 0, len(errs))
	for _, e := range errs {
		if e.FromImperative && declared[cause{strings.TrimPrefix(e.Field, "."), e.Type}] {
			continue
		}
		out = append(out, e)
	}
	return out
}
