package kube

import (
	"maps"
	"slices"
	"strings"

	"k8s.io/gengo/v2/types"

	"github.com/apigen-dev/apigen/generators/engine"
)

// publishedDeclarativeTags are the +k8s: validation tags whose meaning the served OpenAPI
// carries, each with the openapi-gen tag that says the same: k8s.io/api writes every one of them
// next to that tag (+k8s:required with +required, +k8s:listType=map with +listType=map, a
// +k8s:enum type with +enum; k8s.io/api v0.37.2 has no exception), so kube-apiserver publishes
// required, x-kubernetes-list-type, x-kubernetes-list-map-keys and enum for each field that has
// one. The others (bounds, lengths, item and property counts, formats, immutability, unions) it
// does not publish, whatever their OpenAPI form: pkg/generated/openapi has no maxItems for a
// +k8s:maxItems=8 field nor a minimum for +k8s:minimum=1, so neither does the generated server.
var publishedDeclarativeTags = map[string]string{
	"k8s:required":   "required",
	"k8s:optional":   "optional",
	"k8s:listType":   "listType",
	"k8s:listMapKey": "listMapKey",
}

// publishDeclarativeTags gives openapi-gen, for each field and type of the project's packages
// the kinds use (the version packages, and others the project declares types in, such as a
// pkg/apis/shared type a kind embeds), the tag of publishedDeclarativeTags that its +k8s: tag
// stands for when the author did not write it, so that the served OpenAPI of a type tagged only
// with +k8s: is what kube-apiserver serves for k8s.io/api's types with the same tags
// (server-side apply merges a +k8s:listType=map list by its keys, as declarative validation
// checks it). Only the tags written directly count: one under +k8s:alpha, +k8s:beta or another
// tag is not published by kube-apiserver either. A written openapi-gen tag that says otherwise
// wins, as it does in kube-apiserver, with a warning at the field. The enforced schema is not
// changed: declarative validation enforces the rules.
//
// kubebuilder's +kubebuilder:validation:Optional and Required, which openapi-gen does not read,
// do not stop a +k8s: tag's +required or +optional: the +k8s: tag declares the API's contract,
// and the kind's published schema says the same (schema.requiredness).
func publishDeclarativeTags(ctx *engine.LoadContext, tags *tagEdits) {
	for _, path := range projectPackages(ctx) {
		pkg := ctx.Load.Universe[path]
		for _, name := range slices.Sorted(maps.Keys(pkg.Types)) {
			t := pkg.Types[name]
			if hasTag(typeComments(t), "k8s:enum") && !hasTag(t.CommentLines, "enum") {
				tags.addTypeLines(t, "+enum")
			}
			for _, m := range t.Members {
				publishMemberTags(ctx, tags, t, m)
			}
		}
	}
}

// projectPackages are the version packages and the project's other packages whose types
// theirs use (the model's TypePackages), sorted.
func projectPackages(ctx *engine.LoadContext) []string {
	found := slices.Clone(ctx.Project.TypePackages)
	for _, v := range versions(ctx.Project) {
		if ctx.Load.Universe[v.Package] != nil && !slices.Contains(found, v.Package) {
			found = append(found, v.Package)
		}
	}
	slices.Sort(found)
	return found
}

func publishMemberTags(ctx *engine.LoadContext, tags *tagEdits, t *types.Type, m types.Member) {
	written := func(name string) []string { return tagValues(m.CommentLines, name) }
	warn := func(declared, stated string) {
		at := declPos(ctx, t, m.Name)
		for _, v := range versions(ctx.Project) {
			if !at.IsValid() && v.Package == t.Name.Package {
				at = v.DeclPos[t.Name.Name]
			}
		}
		ctx.Warn(at, "%s.%s: +%s, but +%s: the served OpenAPI says what +%[4]s says, as kube-apiserver's does, and declarative validation enforces +%[3]s",
			t.Name.Name, m.Name, declared, stated)
	}
	// Requiredness: +required and +optional are one openapi-gen property.
	switch required, optional := hasTag(m.CommentLines, "k8s:required"), hasTag(m.CommentLines, "k8s:optional"); {
	case required && hasTag(m.CommentLines, "optional"):
		warn("k8s:required", "optional")
	case optional && hasTag(m.CommentLines, "required"):
		warn("k8s:optional", "required")
	case hasTag(m.CommentLines, "required") || hasTag(m.CommentLines, "optional"):
	case required:
		tags.addMemberLines(t, m.Name, "+required")
	case optional:
		tags.addMemberLines(t, m.Name, "+optional")
	}
	// The published list type: the plain tag's, else the +k8s: one's.
	listType := append(written("listType"), written("k8s:listType")...)
	for _, tag := range []string{"k8s:listType", "k8s:listMapKey"} {
		declared, plain := written(tag), publishedDeclarativeTags[tag]
		if len(declared) == 0 {
			continue
		}
		if tag == "k8s:listMapKey" && (len(listType) == 0 || listType[0] != "map") {
			// Keys of an atomic list checked for uniqueness (+k8s:unique=map, resource/v1alpha3's
			// partitionSummary): kube-apiserver publishes no map keys for a list that is no map.
			continue
		}
		if stated := written(plain); len(stated) > 0 {
			if !slices.Equal(slices.Sorted(slices.Values(declared)), slices.Sorted(slices.Values(stated))) {
				warn(tag+"="+strings.Join(declared, ","), plain+"="+strings.Join(stated, ","))
			}
			continue
		}
		lines := make([]string, 0, len(declared))
		for _, v := range declared {
			lines = append(lines, "+"+plain+"="+v)
		}
		tags.addMemberLines(t, m.Name, lines...)
	}
}
