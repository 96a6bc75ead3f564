package server

import (
	"context"
	"fmt"
	"strings"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	openapicommon "k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// ScalePaths are the fields of a kind that its /scale subresource reads and writes, as in a
// CRD's scale subresource: JSON paths such as .spec.replicas.
type ScalePaths struct {
	SpecReplicasPath   string
	StatusReplicasPath string
	// LabelSelectorPath is optional: without it the Scale's status.selector is empty.
	LabelSelectorPath string
	// LabelSelectorStructured says the field at LabelSelectorPath is a metav1.LabelSelector,
	// rendered as kube-apiserver's workloads render theirs
	// (metav1.LabelSelectorAsSelector(...).String()), and the Scale is validated as theirs
	// (a negative spec.replicas is a 422 on the Scale); otherwise it is a string, as a CRD's.
	LabelSelectorStructured bool
}

// ScaleREST serves a kind's /scale subresource as an autoscaling/v1 Scale, with the semantics
// kube-apiserver gives a CRD's (k8s.io/apiextensions-apiserver's customresource.ScaleREST):
// it reads and writes the kind's objects through the main resource's store, so updates go
// through its strategy, a resourceVersion in the Scale is a precondition (a stale one is a
// conflict), and server-side apply's managed fields of spec replicas move between the object
// and its Scale. The store holds typed objects; they are read and written as unstructured
// content at the paths, as for a CRD.
type ScaleREST struct {
	store *genericregistry.Store
	paths ScalePaths
	// parent is the version the store's objects are in (the kind's hub); replicasPaths maps
	// every version serving the kind to its spec replicas path (nil when it has no scale).
	parent        schema.GroupVersion
	replicasPaths managedfields.ResourcePathMappings
}

var (
	_ rest.Storage                  = &ScaleREST{}
	_ rest.Patcher                  = &ScaleREST{}
	_ rest.GroupVersionKindProvider = &ScaleREST{}
)

// NewScaleREST returns the /scale subresource of the kind stored in store. parent is the
// group version of the store's objects; specReplicasPaths maps each version serving the kind
// to its spec replicas path, "" for a version without a scale subresource.
func NewScaleREST(store *genericregistry.Store, parent schema.GroupVersion, paths ScalePaths, specReplicasPaths map[string]string) *ScaleREST {
	mappings := managedfields.ResourcePathMappings{}
	for version, p := range specReplicasPaths {
		gv := schema.GroupVersion{Group: parent.Group, Version: version}.String()
		if p == "" {
			mappings[gv] = nil
			continue
		}
		var path fieldpath.Path
		for _, name := range splitPath(p) {
			path = append(path, fieldpath.PathElement{FieldName: &name})
		}
		mappings[gv] = path
	}
	return &ScaleREST{store: store, paths: paths, parent: parent, replicasPaths: mappings}
}

// AddScaleToScheme registers autoscaling/v1 Scale, what /scale serves. The same Go type is
// the group's internal version too, as the hubs of the server's own kinds are, so request
// handling converts it to itself.
func AddScaleToScheme(scheme *runtime.Scheme) {
	scheme.AddKnownTypes(autoscalingv1.SchemeGroupVersion, &autoscalingv1.Scale{})
	scheme.AddKnownTypes(schema.GroupVersion{Group: autoscalingv1.GroupName, Version: runtime.APIVersionInternal}, &autoscalingv1.Scale{})
}

// GroupVersionKind says /scale serves autoscaling/v1 Scale, whatever the group it is in.
func (r *ScaleREST) GroupVersionKind(schema.GroupVersion) schema.GroupVersionKind {
	return autoscalingv1.SchemeGroupVersion.WithKind("Scale")
}

// New returns an empty Scale to decode a request into.
func (r *ScaleREST) New() runtime.Object { return &autoscalingv1.Scale{} }

// Destroy does nothing: the main resource's store owns the storage.
func (r *ScaleREST) Destroy() {}

// Get returns the Scale of an object (see got).
func (r *ScaleREST) Get(ctx context.Context, name string, options *metav1.GetOptions) (runtime.Object, error) {
	obj, err := r.store.Get(ctx, name, options)
	if err != nil {
		return nil, err
	}
	return r.got(obj)
}

// got is what a GET of the Scale of obj answers. An object without spec replicas has none:
// a 500 saying the field does not exist, as kube-apiserver answers for a custom resource
// (k8s.io/apiextensions-apiserver's ScaleREST.Get; "If there is no value under the
// specReplicasPath in the custom resource, the /scale subresource will return an error on
// GET", its documentation says). An update through /scale that sets the replicas still works
// (scaleUpdate). That holds for a kind served as kube-apiserver's workloads too: their
// replicas are never absent there, since k8s.io/kubernetes defaults them (a Deployment's to
// 1), and a count the object does not hold is not made up.
func (r *ScaleREST) got(obj runtime.Object) (runtime.Object, error) {
	scale, found, err := r.scaleOf(obj)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, apierrors.NewInternalError(fmt.Errorf("the spec replicas field %q does not exist", r.paths.SpecReplicasPath))
	}
	return scale, nil
}

// Update sets the spec replicas of an existing object from a Scale; /scale never creates one.
func (r *ScaleREST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	obj, _, err := r.store.Update(ctx, name, &scaleUpdate{r, objInfo}, r.createValidation(createValidation), r.updateValidation(updateValidation), false, options)
	if err != nil {
		return nil, false, err
	}
	scale, _, err := r.scaleOf(obj)
	if err != nil {
		return nil, false, apierrors.NewBadRequest(err.Error())
	}
	return scale, false, nil
}

// Admission and validation of a /scale request see Scales, as for a CRD.
func (r *ScaleREST) createValidation(f rest.ValidateObjectFunc) rest.ValidateObjectFunc {
	return func(ctx context.Context, obj runtime.Object) error {
		scale, _, err := r.scaleOf(obj)
		if err != nil {
			return err
		}
		return f(ctx, scale)
	}
}

func (r *ScaleREST) updateValidation(f rest.ValidateObjectUpdateFunc) rest.ValidateObjectUpdateFunc {
	return func(ctx context.Context, obj, old runtime.Object) error {
		newScale, _, err := r.scaleOf(obj)
		if err != nil {
			return err
		}
		oldScale, _, err := r.scaleOf(old)
		if err != nil {
			return err
		}
		return f(ctx, newScale, oldScale)
	}
}

// scaleOf returns the Scale of an object and whether its spec replicas are set.
func (r *ScaleREST) scaleOf(obj runtime.Object) (*autoscalingv1.Scale, bool, error) {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, false, err
	}
	return r.scaleFrom(&unstructured.Unstructured{Object: content})
}

// scaleFrom reads a Scale from an object's content at the paths, as
// k8s.io/apiextensions-apiserver reads one from a custom resource.
func (r *ScaleREST) scaleFrom(u *unstructured.Unstructured) (*autoscalingv1.Scale, bool, error) {
	specReplicas, found, err := unstructured.NestedInt64(u.Object, splitPath(r.paths.SpecReplicasPath)...)
	if err != nil {
		return nil, false, err
	}
	statusReplicas, _, err := unstructured.NestedInt64(u.Object, splitPath(r.paths.StatusReplicasPath)...)
	if err != nil {
		return nil, false, err
	}
	var selector string
	switch {
	case r.paths.LabelSelectorStructured:
		if selector, err = structuredSelector(u, r.paths.LabelSelectorPath); err != nil {
			return nil, false, err
		}
	case r.paths.LabelSelectorPath != "":
		if selector, _, err = unstructured.NestedString(u.Object, splitPath(r.paths.LabelSelectorPath)...); err != nil {
			return nil, false, err
		}
	}
	return &autoscalingv1.Scale{
		// Set, so that conversion sees the object is already in the version it wants.
		TypeMeta: metav1.TypeMeta{APIVersion: autoscalingv1.SchemeGroupVersion.String(), Kind: "Scale"},
		ObjectMeta: metav1.ObjectMeta{
			Name:              u.GetName(),
			Namespace:         u.GetNamespace(),
			UID:               u.GetUID(),
			ResourceVersion:   u.GetResourceVersion(),
			CreationTimestamp: u.GetCreationTimestamp(),
		},
		Spec:   autoscalingv1.ScaleSpec{Replicas: int32(specReplicas)},
		Status: autoscalingv1.ScaleStatus{Replicas: int32(statusReplicas), Selector: selector},
	}, found, nil
}

// structuredSelector renders the metav1.LabelSelector at path as kube-apiserver's workloads
// render theirs in a Scale's status.selector: an absent one selects nothing (""), an empty one
// everything (""), and one that is not a valid selector is a bad request.
func structuredSelector(u *unstructured.Unstructured, path string) (string, error) {
	content, found, err := unstructured.NestedMap(u.Object, splitPath(path)...)
	if err != nil {
		return "", err
	}
	var ls *metav1.LabelSelector
	if found {
		ls = &metav1.LabelSelector{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(content, ls); err != nil {
			return "", err
		}
	}
	selector, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil {
		return "", apierrors.NewBadRequest(err.Error())
	}
	return selector.String(), nil
}

func splitPath(path string) []string { return strings.Split(strings.TrimPrefix(path, "."), ".") }

// scaleUpdate turns the update of a Scale into the update of the object it scales.
type scaleUpdate struct {
	r   *ScaleREST
	req rest.UpdatedObjectInfo
}

func (u *scaleUpdate) Preconditions() *metav1.Preconditions { return u.req.Preconditions() }

// UpdatedObject hands the request the stored object's Scale, with the managed fields of its
// spec replicas, and writes the replicas and managed fields of the Scale it gets back into
// the object.
func (u *scaleUpdate) UpdatedObject(ctx context.Context, oldObj runtime.Object) (runtime.Object, error) {
	const unsetReplicas = -2147483648 // smallest int32: the object had no spec replicas
	r := u.r
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(oldObj)
	if err != nil {
		return nil, err
	}
	obj := &unstructured.Unstructured{Object: content}
	managed := managedfields.NewScaleHandler(obj.GetManagedFields(), r.parent, r.replicasPaths)
	oldScale, found, err := r.scaleFrom(obj)
	if err != nil {
		return nil, err
	}
	if !found {
		oldScale.Spec.Replicas = unsetReplicas
	}
	if oldScale.ManagedFields, err = managed.ToSubresource(); err != nil {
		return nil, err
	}

	updated, err := u.req.UpdatedObject(ctx, oldScale)
	if err != nil {
		return nil, err
	}
	scale, ok := updated.(*autoscalingv1.Scale)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("wrong object passed to Scale update: %T", updated))
	}
	if scale.Spec.Replicas == unsetReplicas {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the spec replicas field %q cannot be empty", r.paths.SpecReplicasPath))
	}
	if r.paths.LabelSelectorStructured {
		// Served as kube-apiserver's workloads' /scale, validated as theirs
		// (k8s.io/kubernetes' autoscaling ValidateScale): a negative count is a 422 on the Scale.
		if errs := apivalidation.ValidateNonnegativeField(int64(scale.Spec.Replicas), field.NewPath("spec", "replicas")); len(errs) > 0 {
			return nil, apierrors.NewInvalid(autoscalingv1.SchemeGroupVersion.WithKind("Scale").GroupKind(), obj.GetName(), errs)
		}
	}
	if err := unstructured.SetNestedField(obj.Object, int64(scale.Spec.Replicas), splitPath(r.paths.SpecReplicasPath)...); err != nil {
		return nil, err
	}
	if scale.ResourceVersion != "" {
		// The client's resourceVersion is a precondition: a stale one is a conflict.
		obj.SetResourceVersion(scale.ResourceVersion)
	}
	entries, err := managed.ToParent(scale.ManagedFields)
	if err != nil {
		return nil, err
	}
	obj.SetManagedFields(entries)

	out := r.store.NewFunc()
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, out); err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	// The content carries no kind for a typed object; keep the stored one's.
	out.GetObjectKind().SetGroupVersionKind(oldObj.GetObjectKind().GroupVersionKind())
	return out, nil
}

// WithScaleOpenAPIDefinitions adds the OpenAPI definitions of autoscaling/v1 Scale, which
// /scale serves and server-side apply needs a schema for, to a project's generated ones. The
// descriptions are k8s.io/api's own.
func WithScaleOpenAPIDefinitions(defs openapicommon.GetOpenAPIDefinitions) openapicommon.GetOpenAPIDefinitions {
	return func(ref openapicommon.ReferenceCallback) map[string]openapicommon.OpenAPIDefinition {
		out := defs(ref)
		scale, scaleSpec, scaleStatus := autoscalingv1.Scale{}, autoscalingv1.ScaleSpec{}, autoscalingv1.ScaleStatus{}
		typeMeta, objectMeta := metav1.TypeMeta{}.SwaggerDoc(), metav1.ObjectMeta{}.OpenAPIModelName()
		doc := scale.SwaggerDoc()
		out[scale.OpenAPIModelName()] = openapicommon.OpenAPIDefinition{
			Schema: objectSchema(doc[""], nil, map[string]spec.Schema{
				"kind":       scalarSchema("string", "", typeMeta["kind"]),
				"apiVersion": scalarSchema("string", "", typeMeta["apiVersion"]),
				"metadata":   refSchema(ref, objectMeta, doc["metadata"]),
				"spec":       refSchema(ref, scaleSpec.OpenAPIModelName(), doc["spec"]),
				"status":     refSchema(ref, scaleStatus.OpenAPIModelName(), doc["status"]),
			}),
			Dependencies: []string{objectMeta, scaleSpec.OpenAPIModelName(), scaleStatus.OpenAPIModelName()},
		}
		doc = scaleSpec.SwaggerDoc()
		replicas := scalarSchema("integer", "int32", doc["replicas"])
		replicas.Default = 0
		out[scaleSpec.OpenAPIModelName()] = openapicommon.OpenAPIDefinition{
			Schema: objectSchema(doc[""], nil, map[string]spec.Schema{"replicas": replicas}),
		}
		doc = scaleStatus.SwaggerDoc()
		statusReplicas := scalarSchema("integer", "int32", doc["replicas"])
		statusReplicas.Default = 0
		out[scaleStatus.OpenAPIModelName()] = openapicommon.OpenAPIDefinition{
			Schema: objectSchema(doc[""], []string{"replicas"}, map[string]spec.Schema{
				"replicas": statusReplicas,
				"selector": scalarSchema("string", "", doc["selector"]),
			}),
		}
		return out
	}
}

func objectSchema(description string, required []string, properties map[string]spec.Schema) spec.Schema {
	return spec.Schema{SchemaProps: spec.SchemaProps{Description: description, Type: []string{"object"}, Required: required, Properties: properties}}
}

func scalarSchema(typ, format, description string) spec.Schema {
	return spec.Schema{SchemaProps: spec.SchemaProps{Description: description, Type: []string{typ}, Format: format}}
}

func refSchema(ref openapicommon.ReferenceCallback, name, description string) spec.Schema {
	return spec.Schema{SchemaProps: spec.SchemaProps{Description: description, Default: map[string]any{}, Ref: ref(name)}}
}
