// Package jsonview finds the members of a struct's inlined structs that encoding/json does
// not encode, and gives the generators that follow inlined members a view without them.
package jsonview

import (
	"reflect"
	"slices"
	"strconv"
	"strings"

	"k8s.io/gengo/v2/namer"
	"k8s.io/gengo/v2/types"
)

// View is struct t as encoding/json encodes it, for the generators that describe t's JSON
// by following its inlined members (openapi-gen's definitions, applySchema): t itself, or,
// when a member of an inlined struct (json:",inline") is not encoded because another field of
// the same JSON name hides it, a copy of t without that member, whose inlined members are
// copies of their types without the hidden members. The types themselves are not changed, so
// a type inlined in t is seen whole everywhere else (its own definition, its other users).
//
// encoding/json follows Go's rules for embedded fields: of the fields with one JSON name, the
// shallowest wins; at equal depth the one with a JSON tag wins, and when that leaves more than
// one, none is encoded. openapi-gen instead writes every member it reaches, so that
// prometheus-operator's ProbeSpec, which has an authorization field and inlines HTTPConfig,
// which has one too, got a definition with two "authorization" keys in one map literal (it did
// not compile). controller-gen's CRD merges the two fields' schemas (allOf), which agrees with
// this when they have one type, as there. The upstream change to openapi-gen is
// hack/patches/kube-openapi-inline-shadowed-members.patch. The generated round-trip test
// leaves the hidden members empty (Hidings), since no value of theirs survives JSON.
//
// Members are inlined as openapi-gen inlines them (embedded, with a JSON tag whose name is
// empty); an embedded struct without a JSON tag, which encoding/json inlines too, is a
// property of its Go name to openapi-gen and is left as it is.
func View(t *types.Type) *types.Type {
	hidden := hiddenPaths(t)
	if len(hidden) == 0 {
		return t
	}
	return withoutMembers(t, "", hidden)
}

// Flat is View(t) for applyconfiguration-gen, which embeds in an apply configuration the
// apply configuration of each inlined member's type, whole: it cannot embed View's copies. So
// each inlined member that has hidden members beneath it is written in place, its members
// (View's, the hidden ones left out) becoming t's; inlined members with nothing hidden beneath
// them stay embedded. An apply configuration built from it carries exactly the keys
// encoding/json writes for t, and no two fields of one JSON name at one depth (go vet refuses
// those, as it refuses fields at one depth that tie). When members written in place would
// give t two members of one Go name (a shallower field's and a deeper one of another JSON
// name, which Go's selectors let the shallower hide), Flat is View(t).
func Flat(t *types.Type) *types.Type {
	hidden := hiddenPaths(t)
	if len(hidden) == 0 {
		return t
	}
	out := *derefStruct(t)
	out.Members = flatMembers(t, "", hidden)
	names := map[string]bool{}
	for _, m := range out.Members {
		if names[m.Name] {
			return withoutMembers(t, "", hidden)
		}
		names[m.Name] = true
	}
	return &out
}

// flatMembers are the members of struct t under prefix that Flat keeps, with those of the
// inlined members that have hidden members beneath them in their place.
func flatMembers(t *types.Type, prefix string, hidden map[string]hiding) []types.Member {
	var out []types.Member
	for i, m := range derefStruct(t).Members {
		path := prefix + strconv.Itoa(i)
		if _, ok := hidden[path]; ok {
			continue
		}
		if Inlined(&m) && hasPathUnder(hidden, path+".") {
			out = append(out, flatMembers(m.Type, path+".", hidden)...)
			continue
		}
		out = append(out, m)
	}
	return out
}

// A Hiding is a member under a struct's inlined members that encoding/json does not encode,
// and what it loses to. Members, By and each of Rivals are paths of members from the struct
// down to a field.
type Hiding struct {
	Members []types.Member
	// Name is the JSON name the member shares with the others.
	Name string
	// By is the field encoding/json encodes under Name instead: a shallower one, or one at the
	// same depth that a JSON tag names where the others have none. It is nil when the
	// shallowest fields of Name are more than one and none dominates: encoding/json drops
	// them all.
	By []types.Member
	// Rivals are, when By is nil, the shallowest fields of Name other than Members (they
	// cancel one another out; Members is one of them, or deeper).
	Rivals [][]types.Member
}

// Hidings are the members under t's inlined members that encoding/json does not encode, in
// the order of t's members, with what hides each.
func Hidings(t *types.Type) []Hiding {
	hidden := hiddenPaths(t)
	if len(hidden) == 0 {
		return nil
	}
	var out []Hiding
	var walk func(s *types.Type, prefix string, above []types.Member)
	walk = func(s *types.Type, prefix string, above []types.Member) {
		s = derefStruct(s)
		for i, m := range s.Members {
			path := prefix + strconv.Itoa(i)
			chain := append(slices.Clip(above), m)
			if h, ok := hidden[path]; ok {
				hd := Hiding{Members: chain, Name: h.name}
				if h.by != "" {
					hd.By = membersAt(t, h.by)
				}
				for _, r := range h.rivals {
					hd.Rivals = append(hd.Rivals, membersAt(t, r))
				}
				out = append(out, hd)
			} else if Inlined(&m) && hasPathUnder(hidden, path+".") {
				walk(m.Type, path+".", chain)
			}
		}
	}
	walk(t, "", nil)
	return out
}

// InlinedPointers are the pointers to structs among t's inlined members (and theirs, and so
// on), each as the members from t down to it, inner ones first: an empty struct there encodes
// to no key at all, so it comes back nil.
func InlinedPointers(t *types.Type) [][]types.Member {
	var out [][]types.Member
	onPath := map[*types.Type]bool{t: true}
	var walk func(t *types.Type, above []types.Member)
	walk = func(t *types.Type, above []types.Member) {
		for _, m := range t.Members {
			inner := derefStruct(m.Type)
			if !Inlined(&m) || inner.Kind != types.Struct || onPath[inner] {
				continue
			}
			chain := append(slices.Clip(above), m)
			onPath[inner] = true
			// Inner pointers first: emptying them may leave an outer one empty.
			walk(inner, chain)
			delete(onPath, inner)
			if m.Type.Kind == types.Pointer {
				out = append(out, chain)
			}
		}
	}
	walk(t, nil)
	return out
}

// hiding is why the field at a path is hidden: its JSON name, the path of the field encoded
// instead ("" when none is), and when none is, the paths of the other shallowest fields.
type hiding struct {
	name   string
	by     string
	rivals []string
}

// membersAt are the members along path (member indexes joined by dots) from struct t.
func membersAt(t *types.Type, path string) []types.Member {
	var out []types.Member
	for _, step := range strings.Split(path, ".") {
		i, _ := strconv.Atoi(step)
		t = derefStruct(t)
		m := t.Members[i]
		out = append(out, m)
		t = m.Type
	}
	return out
}

func hiddenPaths(t *types.Type) map[string]hiding {
	if t.Kind != types.Struct {
		return nil
	}
	var fields []jsonField
	collectJSONFields(t, "", 0, map[*types.Type]bool{}, &fields)
	return hiddenJSONFields(fields)
}

// jsonField is a field encoding/json may encode, found under inlined members: its JSON name,
// its depth (the number of inlined members above it), whether a JSON tag names it, and its
// path, the member indexes from the root joined by dots.
type jsonField struct {
	name   string
	depth  int
	tagged bool
	path   string
}

// Inlined reports whether openapi-gen (and applySchema) write m's members in place of m.
func Inlined(m *types.Member) bool {
	tag, ok := reflect.StructTag(m.Tags).Lookup("json")
	return m.Embedded && ok && (tag == "" || strings.HasPrefix(tag, ","))
}

// derefStruct follows pointers, as openapi-gen does for an inlined member.
func derefStruct(t *types.Type) *types.Type {
	for t.Kind == types.Pointer {
		t = t.Elem
	}
	return t
}

func collectJSONFields(t *types.Type, prefix string, depth int, onPath map[*types.Type]bool, out *[]jsonField) {
	t = derefStruct(t)
	if onPath[t] {
		return // an inline cycle; openapi-gen cannot write it either
	}
	onPath[t] = true
	defer delete(onPath, t)
	for i := range t.Members {
		m := &t.Members[i]
		path := prefix + strconv.Itoa(i)
		if Inlined(m) {
			collectJSONFields(m.Type, path+".", depth+1, onPath, out)
			continue
		}
		if !m.Embedded && namer.IsPrivateGoName(m.Name) {
			continue // encoding/json skips unexported fields
		}
		tag := reflect.StructTag(m.Tags).Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		f := jsonField{name: name, depth: depth, tagged: name != "", path: path}
		if name == "" {
			f.name = m.Name
		}
		*out = append(*out, f)
	}
}

// hiddenJSONFields are the paths of the fields encoding/json does not encode: for each JSON
// name, every field but the dominant one (encoding/json's dominantField), or all of them when
// none dominates.
func hiddenJSONFields(fields []jsonField) map[string]hiding {
	byName := map[string][]jsonField{}
	for _, f := range fields {
		byName[f.name] = append(byName[f.name], f)
	}
	hidden := map[string]hiding{}
	for _, fs := range byName {
		if len(fs) == 1 {
			continue
		}
		minDepth := slices.MinFunc(fs, func(a, b jsonField) int { return a.depth - b.depth }).depth
		var shallowest, tagged []jsonField
		for _, f := range fs {
			if f.depth == minDepth {
				shallowest = append(shallowest, f)
				if f.tagged {
					tagged = append(tagged, f)
				}
			}
		}
		winner := ""
		switch {
		case len(shallowest) == 1:
			winner = shallowest[0].path
		case len(tagged) == 1:
			winner = tagged[0].path
		}
		for _, f := range fs {
			if f.path == winner {
				continue
			}
			h := hiding{name: f.name, by: winner}
			if winner == "" {
				for _, r := range shallowest {
					if r.path != f.path {
						h.rivals = append(h.rivals, r.path)
					}
				}
			}
			hidden[f.path] = h
		}
	}
	return hidden
}

// withoutMembers is a copy of struct t without the members at the hidden paths under prefix;
// an inlined member with hidden members beneath it gets a copy of its type.
func withoutMembers(t *types.Type, prefix string, hidden map[string]hiding) *types.Type {
	t = derefStruct(t)
	out := *t
	out.Members = nil
	for i, m := range t.Members {
		path := prefix + strconv.Itoa(i)
		if _, ok := hidden[path]; ok {
			continue
		}
		if Inlined(&m) && hasPathUnder(hidden, path+".") {
			m.Type = withoutMembers(m.Type, path+".", hidden)
		}
		out.Members = append(out.Members, m)
	}
	return &out
}

func hasPathUnder(hidden map[string]hiding, prefix string) bool {
	for p := range hidden {
		if strings.HasPrefix(p, prefix) {
			return true
		}
	}
	return false
}
