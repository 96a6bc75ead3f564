package markers

import (
	"reflect"

	"github.com/apigen-dev/apigen/generators/model"
)

// A marker's effect is a method of its argument type (Marker.Args), as controller-tools'
// ApplyToCRD: the marker's whole effect on the model, in one place. Each returns what is
// wrong with the marker, spelled with the marker as written (m.Name); the parser only finds
// markers and hands each the model element it applies to.

// ProjectEffect is the effect of a marker of the project's package (pkg/apis/doc.go, where
// apigen init writes them) on the project. Such a marker belongs nowhere else, and is given
// once.
type ProjectEffect interface {
	ApplyToProject(m *Marker, p *model.Project) error
}

// GroupEffect is the effect of a version package's marker on the group the version belongs to,
// as far as that package tells it.
type GroupEffect interface {
	ApplyToGroup(m *Marker, g *model.Group) error
}

// Declaration is the effect of a marker that makes its type a resource outright
// (+apigen:resource): a type has one at most. It declares the names and scope of the kind
// in this version (Resource.Declared; parse settles the kind's), before the type's other
// markers apply.
type Declaration interface {
	DeclareResource(m *Marker, r *model.Resource)
	OwnStorage
}

// RootDeclaration is the effect of controller-gen's +kubebuilder:object:root=true: a type
// with ObjectMeta that carries it is the kind of a CRD (controller-gen makes one of it), so it
// is a resource when no Declaration says more, and before any FallbackDeclaration.
type RootDeclaration interface {
	Declaration
	// DeclaresRoot reports whether the marker makes its type a root type (=true).
	DeclaresRoot() bool
}

// FallbackDeclaration is the effect of a marker that makes its type a resource when no
// Declaration does (client-gen's +genclient).
type FallbackDeclaration interface {
	// DeclaresWith reports whether the marker declares its type, whose markers are ms.
	DeclaresWith(ms []*Marker) bool
	DeclareFallback(m *Marker, r *model.Resource)
	OwnStorage
}

// OwnStorage is part of every declaration: the marker of the declaration's own family that
// serves the resource from REST storage the user writes, with only the given verbs (a
// create-only review needs no list type then), as written on the kind. Hints name it, so that
// a kind declared by +genclient is told client-gen's tag and one declared by +apigen:resource
// apigen's.
type OwnStorage interface {
	OwnStorageMarker(verbs string) string
}

// ResourceEffect is the effect of a type marker that belongs on a kind on the kind's resource
// in one version; kind answers what the marker needs to know of the kind's Go type.
type ResourceEffect interface {
	ApplyToResource(m *Marker, r *model.Resource, kind Kind) error
}

// Exclusion is the effect of a type marker that leaves its kind out of the version its type
// is declared in (+kubebuilder:skipversion), once the kind's other markers have applied: the
// kind is then no resource of v, and v records it as left out. On a type that is no resource
// it has nothing to do, and is no error.
type Exclusion interface {
	ExcludeFromVersion(m *Marker, r *model.Resource, v *model.Version, w Warner)
}

// FieldEffect is the effect of a field marker on the version that declares the field.
type FieldEffect interface {
	ApplyToField(m *Marker, f StructField, v *model.Version, w Warner) error
}

// StructField is the struct field a field marker annotates.
type StructField struct {
	// Type is the name of the struct type that declares the field.
	Type string
	// Names are the field's names: none for an embedded field, several for a field list.
	Names []string
}

// IsDeclaration reports whether the marker makes its type a resource outright, so that a
// type whose declaration does not parse can have its other markers left alone.
func (d *Definition) IsDeclaration() bool {
	return d.Args != nil && reflect.PointerTo(d.Args).Implements(reflect.TypeFor[Declaration]())
}

// NeedsResource reports whether the marker acts on a resource, so that it is an error on a
// type that is none.
func (m *Marker) NeedsResource() bool {
	_, ok := m.Args.(ResourceEffect)
	return ok && !m.Def.ClientGen
}
