package markers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	crdmarkers "sigs.k8s.io/controller-tools/pkg/crd/markers"
	ctmarkers "sigs.k8s.io/controller-tools/pkg/markers"

	"github.com/apigen-dev/apigen/generators/model"
)

// DefaultMarker is Kubernetes' field default (JSON); KubebuilderDefaultMarker is kubebuilder's.
const (
	DefaultMarker            = "default"
	KubebuilderDefaultMarker = "kubebuilder:default"
)

// Default is the text after +default's name ("=\"blue\""), as written.
type Default string

// KubebuilderDefault is the text after +kubebuilder:default's name ("=blue"), as written.
type KubebuilderDefault string

// registerFieldDefaults adds the field defaults. They keep the text after the name as written
// (a pass-through marker's), which each reads in its own tool's syntax.
func registerFieldDefaults(r *Registry) {
	r.Register(&Definition{
		Name: "kubebuilder:default", Target: Type, PassThrough: true,
		NoEffect: "controller-gen reads it on fields only, so the project's CRD has no such default either; put it on the fields",
		Help:     "kubebuilder's default value marker on a type, accepted for compatibility: controller-gen ignores it there, and so does apigen (put it on the fields)",
		Example:  "+kubebuilder:default=1",
	})
	r.Register(&Definition{
		Name: KubebuilderDefaultMarker, Target: Field, PassThrough: true, Args: reflect.TypeFor[KubebuilderDefault](),
		Form: "+kubebuilder:default=<value>",
		Help: "the field's default, applied on decode in every version to a field left at its zero value (a nil pointer, " +
			"\"\", 0, false, an empty list or map); kubebuilder's value syntax: JSON, a bare string, or {a,b} for a list",
		Example: "+kubebuilder:default=blue",
	})
	r.Register(&Definition{
		Name: DefaultMarker, Target: Field, PassThrough: true, Args: reflect.TypeFor[Default](),
		Form:    "+default=<JSON>, or +default=ref(<constant>)",
		Help:    "the field's default as JSON (Kubernetes' +default tag), applied like +kubebuilder:default",
		Example: `+default="blue"`,
	})
}

// ApplyToField sets the field's default from JSON (or a ref(...) to a constant, which
// defaulter-gen resolves). The value is read by controller-gen's own +default, so that it
// means what it means in a CRD, and kept as written, compacted: controller-gen decodes and
// re-encodes it, which would sort an object's keys and rewrite its numbers.
func (d Default) ApplyToField(m *Marker, f StructField, v *model.Version, w Warner) error {
	value, err := defaultJSON(m.Def.Name, string(d), func(v string) (string, error) {
		if strings.HasPrefix(v, "ref(") && strings.HasSuffix(v, ")") {
			return v, nil
		}
		_, err := kubernetesDefault.Parse("+" + DefaultMarker + "=" + v)
		var out bytes.Buffer
		if err == nil {
			// Fails only on what controller-gen skips as a ref(...) without its ")".
			err = json.Compact(&out, []byte(v))
		}
		if err != nil {
			return "", fmt.Errorf("%q is not JSON (a string default is quoted: +default=\"blue\"): %v", v, err)
		}
		return out.String(), nil
	})
	return setDefault(m, value, err, false, f, v, w)
}

// kubernetesDefault is controller-gen's own +default (KubernetesDefault): JSON, or a ref(...)
// that it leaves alone.
var kubernetesDefault = ctmarkers.Must(ctmarkers.MakeDefinition(DefaultMarker, ctmarkers.DescribesField, crdmarkers.KubernetesDefault{}))

// ApplyToField sets the field's default, read by controller-gen's own parser so that a value
// means what it means in a CRD: JSON, a bare word for a string, or {a,b} for a list.
func (d KubebuilderDefault) ApplyToField(m *Marker, f StructField, v *model.Version, w Warner) error {
	value, err := defaultJSON(m.Def.Name, string(d), func(v string) (string, error) {
		val, err := kubebuilderDefault.Parse("+" + KubebuilderDefaultMarker + "=" + v)
		if err != nil {
			return "", fmt.Errorf("%s is not a value in kubebuilder's syntax (JSON, a bare string, or {a,b} for a list): %v", v, err)
		}
		b, err := json.Marshal(val.(crdmarkers.Default).Value)
		return string(b), err
	})
	return setDefault(m, value, err, true, f, v, w)
}

// KubebuilderDefaultJSON is the value of a +kubebuilder:default, given the text after its name
// ("=Required"), as compact JSON, read as controller-gen reads it: for the fields of types
// outside the API packages, which no version's model holds.
func KubebuilderDefaultJSON(rest string) (string, error) {
	return defaultJSON(KubebuilderDefaultMarker, rest, func(v string) (string, error) {
		val, err := kubebuilderDefault.Parse("+" + KubebuilderDefaultMarker + "=" + v)
		if err != nil {
			return "", fmt.Errorf("%s is not a value in kubebuilder's syntax (JSON, a bare string, or {a,b} for a list): %v", v, err)
		}
		b, err := json.Marshal(val.(crdmarkers.Default).Value)
		return string(b), err
	})
}

// kubebuilderDefault is controller-gen's own +kubebuilder:default.
var kubebuilderDefault = ctmarkers.Must(ctmarkers.MakeAnyTypeDefinition(KubebuilderDefaultMarker, ctmarkers.DescribesField, crdmarkers.Default{}))

// defaultJSON returns a field default's value as compact JSON. rest is the text after the
// marker's name ("=blue"; ":=blue" is accepted too); parse reads the value in its syntax.
func defaultJSON(name, rest string, parse func(string) (string, error)) (string, error) {
	v, ok := strings.CutPrefix(rest, ":=")
	if !ok {
		v, ok = strings.CutPrefix(rest, "=")
	}
	v = strings.TrimSpace(v)
	if !ok || v == "" {
		return "", fmt.Errorf("expected a value, as in +%s=1", name)
	}
	return parse(v)
}

// setDefault records the default value (or reports err, what is wrong with it) of field f in
// version v, the field's one default. Both spellings may give it: with one value they say the
// same; with two (cluster-api: +kubebuilder:default=FieldValueInvalid for controller-gen's CRD,
// +default=ref(...FieldValueInvalid) for openapi-gen), the CRD's (crd) is the one the server
// applies, as the CRD the project ships does, and the other is a warning.
func setDefault(m *Marker, value string, err error, crd bool, f StructField, v *model.Version, w Warner) error {
	switch {
	case err != nil:
		return fmt.Errorf("+%s: %v", m.Name, err)
	case len(f.Names) != 1:
		return fmt.Errorf("+%s is set on an embedded field or a field list of %s; set it on one named field", m.Name, f.Type)
	}
	field := f.Names[0]
	i := slices.IndexFunc(v.Defaults, func(d *model.FieldDefault) bool { return d.Type == f.Type && d.Field == field })
	if i < 0 {
		v.Defaults = append(v.Defaults, &model.FieldDefault{Type: f.Type, Field: field, JSON: value, Marker: "+" + m.Name, Pos: m.Pos})
		return nil
	}
	set := v.Defaults[i]
	switch {
	case set.Marker == "+"+m.Name:
		return fmt.Errorf("+%s: field %s.%s already has a default (%s at %s)", m.Name, f.Type, field, set.Marker, set.Pos)
	case jsonEqual(set.JSON, value):
		// Both spellings with one value: the same default, said twice.
		return nil
	}
	applied, other := *set, model.FieldDefault{JSON: value, Marker: "+" + m.Name, Pos: m.Pos}
	if crd {
		applied, other = other, applied
		set.JSON, set.Marker, set.Pos = applied.JSON, applied.Marker, applied.Pos
	}
	w.Warn(other.Pos, "%s=%s on %s.%s is not applied: the field's %s=%s at %s is, as in the CustomResourceDefinition controller-gen makes of it",
		other.Marker, other.JSON, f.Type, field, applied.Marker, applied.JSON, applied.Pos)
	return nil
}

// jsonEqual reports whether two JSON documents hold the same value.
func jsonEqual(a, b string) bool {
	var x, y any
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil && reflect.DeepEqual(x, y)
}
