package v1

import (
	"context"
	"fmt"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"example.com/toys/pkg/apis/shared"
	legacyshared "example.com/toys/pkg/legacy/apis/shared"
)

// causes runs the declarative validation the scheme has for a Toy (as the generic registry
// does, on create when old is nil, else on update) and returns each error as
// "<type> <field>", with "(alpha)" or "(beta)" for a rule of that stability.
func causes(t *testing.T, obj, old *Toy, subresources ...string) []string {
	return causesWith(t, map[string]bool{"ShortNicknames": false}, obj, old, subresources...)
}

// causesWith is causes with the given validation options.
func causesWith(t *testing.T, options map[string]bool, obj, old *Toy, subresources ...string) []string {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	var errs field.ErrorList
	if old == nil {
		errs = scheme.Validate(context.Background(), options, obj, subresources...)
	} else {
		errs = scheme.ValidateUpdate(context.Background(), options, obj, old, subresources...)
	}
	var out []string
	for _, e := range errs {
		s := fmt.Sprintf("%s %s", e.Type, e.Field)
		switch {
		case e.IsAlpha():
			s += " (alpha)"
		case e.IsBeta():
			s += " (beta)"
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

func ptr[T any](v T) *T { return &v }

// valid is a Toy every rule accepts.
func valid() *Toy {
	return &Toy{Spec: ToySpec{
		Name: "teddy", Maker: "acme", Brand: "bearco", Shelf: "top", Size: 3, Tags: []string{"soft", "brown"}, Red: ptr("r"),
		Ports:  []ToyPort{{Name: "http", Port: 80}},
		Labels: map[string]string{"example.com/kind": "bear"}, Mode: ToyModeSlow, Motto: "hug",
	}}
}

func TestCreate(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(*Toy)
		want   []string
	}{
		{"valid", func(*Toy) {}, nil},
		{"required", func(o *Toy) { o.Spec.Name = "" }, []string{"Required value spec.name"}},
		{"required with omitempty", func(o *Toy) { o.Spec.Maker = "" }, []string{"Required value spec.maker"}},
		{"required with +required", func(o *Toy) { o.Spec.Brand = "" }, []string{"Required value spec.brand"}},
		{"required with +kubebuilder:validation:Optional", func(o *Toy) { o.Spec.Shelf = "" }, []string{"Required value spec.shelf"}},
		// The rules of a type of the project's shared package run inside the kind.
		{"shared type", func(o *Toy) { o.Spec.Origin = &shared.Origin{Country: "usa"} }, []string{"Required value spec.origin.factory", "Too long spec.origin.country"}},
		{"shared type valid", func(o *Toy) { o.Spec.Origin = &shared.Origin{Country: "us", Factory: "f"} }, nil},
		// So do those of a type of the same name in another package whose path ends the same.
		{"two shared types", func(o *Toy) {
			o.Spec.Origin = &shared.Origin{Country: "us", Factory: "f"}
			o.Spec.FirstOrigin = &legacyshared.Origin{Workshop: "north-pole"}
		}, []string{"Too long spec.firstOrigin.workshop"}},
		{"format", func(o *Toy) { o.Spec.Name = "Teddy_Bear" }, []string{"Invalid value spec.name"}},
		{"maxLength", func(o *Toy) { o.Spec.Name = "a-very-long-teddy-bear" }, []string{"Too long spec.name"}},
		{"maximum", func(o *Toy) { o.Spec.Size = 11 }, []string{"Invalid value spec.size"}},
		{"minimum", func(o *Toy) { o.Spec.Size = -1 }, []string{"Invalid value spec.size"}},
		{"maxItems", func(o *Toy) { o.Spec.Tags = []string{"a", "b", "c", "d", "e"} }, []string{"Too many spec.tags"}},
		{"set", func(o *Toy) { o.Spec.Tags = []string{"a", "a"} }, []string{"Duplicate value spec.tags[1]"}},
		{"eachVal", func(o *Toy) { o.Spec.Tags = []string{"soft", "very-soft-fur"} }, []string{"Too long spec.tags[1]"}},
		{"alpha minItems", func(o *Toy) { o.Spec.Tags = []string{"soft"} }, []string{"Too few spec.tags (alpha)"}},
		{"item subfield", func(o *Toy) { o.Spec.Ports[0].Port = 9000 }, []string{"Invalid value spec.ports[0].port"}},
		{"element type", func(o *Toy) { o.Spec.Ports = append(o.Spec.Ports, ToyPort{Name: "admin"}) }, []string{"Invalid value spec.ports[1].port"}},
		{"map", func(o *Toy) { o.Spec.Ports = append(o.Spec.Ports, ToyPort{Name: "http", Port: 81}) }, []string{"Duplicate value spec.ports[1]"}},
		{"eachKey", func(o *Toy) { o.Spec.Labels["not a key"] = "x" }, []string{"Invalid value spec.labels"}},
		{"maxProperties", func(o *Toy) {
			o.Spec.Labels = map[string]string{"a": "1", "b": "2", "c": "3", "d": "4"}
		}, []string{"Too many spec.labels"}},
		{"enum", func(o *Toy) { o.Spec.Mode = "Medium" }, []string{"Unsupported value spec.mode"}},
		{"union none", func(o *Toy) { o.Spec.Red = nil }, []string{"Invalid value spec"}},
		{"union two", func(o *Toy) { o.Spec.Blue = ptr("b") }, []string{"Invalid value spec"}},
		{"zeroOrOneOf", func(o *Toy) { o.Spec.Left, o.Spec.Right = ptr(int32(1)), ptr(int32(2)) }, []string{"Invalid value spec"}},
		{"maxBytes", func(o *Toy) { o.Spec.Motto = "hug-hug-hug" }, []string{"Too long spec.motto"}},
		{"beta neq", func(o *Toy) { o.Spec.Hint = "none" }, []string{"Invalid value spec.hint (beta)"}},
		{"opaque", func(o *Toy) { o.Spec.Box = &ToyBox{Size: 0} }, nil},
		{"status", func(o *Toy) { o.Status.Played = -1 }, []string{"Invalid value status.played"}},
		// A Kubernetes type's own rules run inside the kind (k8s.io/api 1.37 has them as alpha
		// in PodSpec: kube-apiserver reports them in its logs only, and so does the server).
		{"embedded Kubernetes type", func(o *Toy) {
			o.Spec.Template = &corev1.PodTemplateSpec{Spec: corev1.PodSpec{Tolerations: []corev1.Toleration{{Key: "not a key!"}}}}
		}, []string{"Invalid value spec.template.spec.tolerations[0].key (alpha)"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			obj := valid()
			c.change(obj)
			if got := causes(t, obj, nil); !slices.Equal(got, c.want) {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestUpdate(t *testing.T) {
	for _, c := range []struct {
		name          string
		before, after func(*Toy)
		subresources  []string
		want          []string
	}{
		{"immutable", func(o *Toy) { o.Spec.Class = "plush" }, func(o *Toy) { o.Spec.Class = "wood" }, nil,
			[]string{"Invalid value spec.class"}},
		// As kube-apiserver does for a built-in type (a CRD's self == oldSelf rule would allow it).
		{"immutable once unset", func(*Toy) {}, func(o *Toy) { o.Spec.Class = "wood" }, nil,
			[]string{"Invalid value spec.class"}},
		{"NoModify", func(o *Toy) { o.Spec.Owner = "ann" }, func(o *Toy) { o.Spec.Owner = "bob" }, nil,
			[]string{"Invalid value spec.owner"}},
		{"NoModify allows setting", func(*Toy) {}, func(o *Toy) { o.Spec.Owner = "bob" }, nil, nil},
		// Ratcheting: a value that was already invalid and does not change fails nothing.
		{"unchanged invalid value", func(o *Toy) { o.Spec.Size = 11 }, func(o *Toy) { o.Spec.Size = 11; o.Spec.Motto = "hi" }, nil, nil},
		{"unchanged missing required value", func(o *Toy) { o.Spec.Maker = "" }, func(o *Toy) { o.Spec.Maker = ""; o.Spec.Motto = "hi" }, nil, nil},
		{"unchanged missing shared required value", func(o *Toy) { o.Spec.Origin = &shared.Origin{Factory: "f"} }, func(o *Toy) { o.Spec.Origin = &shared.Origin{Factory: "f"}; o.Spec.Motto = "hi" }, nil, nil},
		{"changed invalid value", func(o *Toy) { o.Spec.Size = 11 }, func(o *Toy) { o.Spec.Size = 12 }, nil,
			[]string{"Invalid value spec.size"}},
		{"status subresource", func(*Toy) {}, func(o *Toy) { o.Status.Played = -1 }, []string{"status"},
			[]string{"Invalid value status.played"}},
		// A write through /scale runs the kind's rules at the kind's paths, as a StatefulSet's does.
		{"scale subresource", func(*Toy) {}, func(o *Toy) { o.Spec.Size = 11 }, []string{"scale"},
			[]string{"Invalid value spec.size"}},
		{"scale subresource ratchets", func(o *Toy) { o.Spec.Name = "Teddy" }, func(o *Toy) { o.Spec.Name = "Teddy"; o.Spec.Size = 4 }, []string{"scale"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			old, obj := valid(), valid()
			c.before(old)
			c.before(obj)
			c.after(obj)
			if got := causes(t, obj, old, c.subresources...); !slices.Equal(got, c.want) {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// A subresource the kind does not serve has no rules: the registry reports it, as
// kube-apiserver does for a built-in type that does not list it with +k8s:supportsSubresource.
func TestUnservedSubresource(t *testing.T) {
	if got, want := causes(t, valid(), nil, "approval"), []string{"Internal error <nil>"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// Rules conditioned on a validation option run by the option's value; an option the request
// does not define is an internal error (the generated strategies define every one).
func TestOptions(t *testing.T) {
	toy := valid()
	toy.Spec.Nickname = "bearbear"
	for _, c := range []struct {
		options map[string]bool
		want    []string
	}{
		{map[string]bool{"ShortNicknames": false}, nil},
		{map[string]bool{"ShortNicknames": true}, []string{"Too long spec.nickname"}},
		{nil, []string{"Internal error spec.nickname", "Internal error spec.nickname"}},
	} {
		if got := causesWith(t, c.options, toy, nil); !slices.Equal(got, c.want) {
			t.Errorf("options %v: got %q, want %q", c.options, got, c.want)
		}
	}
	toy.Spec.Nickname = "a-bear-with-a-long-name"
	if got, want := causes(t, toy, nil), []string{"Too long spec.nickname"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
