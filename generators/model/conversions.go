package model

import (
	"maps"
	"slices"
)

// ConversionPeers maps the import path of every version package that holds conversions to
// the packages it converts to and from, sorted. A kind that converts with its own ConvertTo
// and ConvertFrom (controller-runtime's) needs no conversion-gen functions between its
// version and its hub. Its version imports the hub for them, so conversion-gen's functions
// for other kinds of the same two versions go into that version too, whatever the priority:
// the two packages then import each other in one direction only.
func (p *Project) ConversionPeers() map[string][]string {
	sets := map[string]map[string]bool{}
	type pair struct{ a, b *Version }
	for _, g := range p.Groups {
		rank := map[*Version]int{}
		for i, v := range g.ByPriority() {
			rank[v] = i
		}
		importer := map[pair]*Version{}
		for _, v := range g.Versions {
			for _, r := range v.Resources {
				if hub, _ := g.Hub(r.Kind); hub != nil && r.ConvertsByMethods() {
					importer[pair{v, hub}], importer[pair{hub, v}] = v, v
				}
			}
		}
		for _, v := range g.Versions {
			for _, r := range v.Resources {
				hub, _ := g.Hub(r.Kind)
				if hub == nil || hub == v || r.ConvertsByMethods() {
					continue
				}
				low, high := v, hub
				if hub != g.Internal && rank[low] < rank[high] {
					low, high = high, low
				}
				if in := importer[pair{low, high}]; in != nil && in != low {
					low, high = high, low
				}
				if sets[low.Package] == nil {
					sets[low.Package] = map[string]bool{}
				}
				sets[low.Package][high.Package] = true
			}
		}
	}
	out := map[string][]string{}
	for pkg, set := range sets {
		out[pkg] = slices.Sorted(maps.Keys(set))
	}
	return out
}
