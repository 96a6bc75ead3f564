package jsonview

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/gengo/v2/types"
)

// TestView checks that View keeps what encoding/json encodes of a struct whose
// inlined members have fields of one JSON name: the shallowest, at equal depth the one a JSON
// tag names, and none when that leaves more than one; and that it changes no type.
func TestView(t *testing.T) {
	str := &types.Type{Name: types.Name{Name: "string"}, Kind: types.Builtin}
	field := func(name, tag string) types.Member {
		return types.Member{Name: name, Type: str, Tags: tag}
	}
	inline := func(t *types.Type) types.Member {
		return types.Member{Name: t.Name.Name, Embedded: true, Type: t, Tags: `json:",inline"`}
	}
	strct := func(name string, members ...types.Member) *types.Type {
		return &types.Type{Name: types.Name{Package: "example.com/v1", Name: name}, Kind: types.Struct, Members: members}
	}
	deep := strct("Deep", field("URL", `json:"url"`), field("Deep", `json:"deep"`))
	http := strct("HTTP",
		field("Authorization", `json:"authorization,omitempty"`),
		inline(deep),
		field("Timeout", `json:"timeout"`),
		field("Untagged", ""),
		field("hidden", `json:"unexported"`))
	proxy := strct("Proxy", field("Timeout", `json:"timeout"`), field("URL", `json:"url"`), field("Other", `json:"Untagged"`))
	spec := strct("Spec",
		field("Authorization", `json:"authorization,omitempty"`),
		inline(http),
		types.Member{Name: "Proxy", Embedded: true, Type: &types.Type{Kind: types.Pointer, Elem: proxy}, Tags: `json:",inline"`})
	before := slices.Clone(http.Members)

	view := View(spec)
	var got []string
	var walk func(prefix string, t *types.Type)
	walk = func(prefix string, t *types.Type) {
		t = derefStruct(t)
		for _, m := range t.Members {
			if Inlined(&m) {
				walk(prefix+m.Name+".", m.Type)
				continue
			}
			got = append(got, prefix+m.Name)
		}
	}
	walk("", view)
	want := []string{
		"Authorization",  // depth 0 hides HTTP's
		"HTTP.Deep.Deep", // no other
		"HTTP.hidden",    // unexported: encoding/json skips it, openapi-gen's rules decide
		"Proxy.URL",      // depth 1 hides Deep's, at depth 2
		"Proxy.Other",    // json:"Untagged" at depth 1 hides HTTP's untagged Untagged
	}
	// HTTP's and Proxy's timeout, both tagged at depth 1, hide each other.
	if !slices.Equal(got, want) {
		t.Errorf("the view of Spec has %v, want %v", got, want)
	}
	var hidden []string
	for _, h := range Hidings(spec) {
		hidden = append(hidden, pathOf(h.Members))
	}
	if want := []string{"HTTP.Authorization", "HTTP.Deep.URL", "HTTP.Timeout", "HTTP.Untagged", "Proxy.Timeout"}; !slices.Equal(hidden, want) {
		t.Errorf("the hidden members of Spec are %v, want %v", hidden, want)
	}
	// What hides each: By, or the Rivals it cancels out with.
	var why []string
	for _, h := range Hidings(spec) {
		s := pathOf(h.Members) + " " + h.Name + ":"
		if h.By != nil {
			s += " by " + pathOf(h.By)
		}
		for _, r := range h.Rivals {
			s += " with " + pathOf(r)
		}
		why = append(why, s)
	}
	wantWhy := []string{
		"HTTP.Authorization authorization: by Authorization",
		"HTTP.Deep.URL url: by Proxy.URL",
		"HTTP.Timeout timeout: with Proxy.Timeout",
		"HTTP.Untagged Untagged: by Proxy.Other",
		"Proxy.Timeout timeout: with HTTP.Timeout",
	}
	if !slices.Equal(why, wantWhy) {
		t.Errorf("Hidings(Spec) are\n%s\nwant\n%s", strings.Join(why, "\n"), strings.Join(wantWhy, "\n"))
	}
	// Flat writes the members of inlined structs with hidden members beneath in place.
	var flat []string
	for _, m := range Flat(spec).Members {
		flat = append(flat, m.Name)
	}
	if want := []string{"Authorization", "Deep", "hidden", "URL", "Other"}; !slices.Equal(flat, want) {
		t.Errorf("Flat(Spec) has %v, want %v", flat, want)
	}
	// A Go name twice (Spec's own Other, Proxy's of another JSON name): Flat is View.
	clash := strct("Clash", field("Other", `json:"mine"`), inline(http), spec.Members[2])
	if f := Flat(clash); len(f.Members) != 3 || !f.Members[1].Embedded || f.Members[1].Type == http {
		t.Errorf("Flat(Clash) is not View(Clash): %v", f.Members)
	}
	if !slices.EqualFunc(http.Members, before, func(a, b types.Member) bool { return a.Name == b.Name && a.Type == b.Type }) || len(spec.Members) != 3 {
		t.Error("View changed the types it was given")
	}
	if v := View(http); v != http {
		t.Error("View of a struct nothing of which is hidden is not the struct itself")
	}
}

// TestInlinedPointers lists the inlined pointers to structs, under inlined structs too, inner
// ones first, and stops at a type that inlines itself.
func TestInlinedPointers(t *testing.T) {
	strct := func(name string, members ...types.Member) *types.Type {
		return &types.Type{Name: types.Name{Package: "example.com/v1", Name: name}, Kind: types.Struct, Members: members}
	}
	inline := func(name string, t *types.Type) types.Member {
		return types.Member{Name: name, Embedded: true, Type: t, Tags: `json:",inline"`}
	}
	ptr := func(t *types.Type) *types.Type { return &types.Type{Kind: types.Pointer, Elem: t} }
	tls := strct("TLS")
	loop := strct("Loop")
	loop.Members = []types.Member{inline("Loop", ptr(loop))}
	proxy := strct("Proxy", inline("TLS", ptr(tls)))
	http := strct("HTTP", inline("Proxy", ptr(proxy)), types.Member{Name: "Named", Type: ptr(tls), Tags: `json:"named"`})
	spec := strct("Spec", inline("HTTP", http), inline("Loop", ptr(loop)))
	var got []string
	for _, chain := range InlinedPointers(spec) {
		var names []string
		for _, m := range chain {
			names = append(names, m.Name)
		}
		got = append(got, strings.Join(names, "."))
	}
	if want := "HTTP.Proxy.TLS HTTP.Proxy Loop"; strings.Join(got, " ") != want {
		t.Errorf("InlinedPointers = %v, want %s", got, want)
	}
}

func pathOf(chain []types.Member) string {
	var names []string
	for _, m := range chain {
		names = append(names, m.Name)
	}
	return strings.Join(names, ".")
}
