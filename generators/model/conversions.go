package model

import (
	"maps"
	"slices"
)

// ConversionPeers maps the import path of every version package that holds conversions to
// the packages it converts to and from, sorted, but for the hub of a kind that another of the
// peers declares too, which goes before that peer (see hubsFirst). A kind that converts with its own ConvertTo
// and ConvertFrom (controller-runtime's) needs no conversion-gen functions between its
// version and its hub. Its version imports the hub for them, so conversion-gen's functions
// for other kinds of the same two versions go into that version too, whatever the priority:
// the two packages then import each other in one direction only.
func (p *Project) ConversionPeers() map[string][]string {
	sets := map[string]map[string]bool{}
	// targets are, by package and kind, the peer a kind of the package converts with.
	targets := map[string]map[string]string{}
	byPackage := map[string]*Version{}
	type pair struct{ a, b *Version }
	for _, g := range p.Groups {
		rank := map[*Version]int{}
		for i, v := range g.ByPriority() {
			rank[v] = i
		}
		importer := map[pair]*Version{}
		for _, v := range g.Versions {
			byPackage[v.Package] = v
		}
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
				if low == v {
					if targets[v.Package] == nil {
						targets[v.Package] = map[string]string{}
					}
					targets[v.Package][r.Kind] = hub.Package
				}
			}
		}
	}
	out := map[string][]string{}
	for pkg, set := range sets {
		out[pkg] = hubsFirst(slices.Sorted(maps.Keys(set)), targets[pkg], byPackage)
	}
	return out
}

// hubsFirst orders a package's sorted peers so that the peer each of its kinds converts with
// (targets, by kind) comes before every other peer that declares the kind too: conversion-gen
// converts a type with the first peer that declares a type of its name. sigs.k8s.io/gateway-api's
// v1alpha2 converts its routes with v1 but ReferenceGrant with v1beta1, which stores it, and
// v1 declares a ReferenceGrant as well. Peers without such a constraint keep their order.
func hubsFirst(peers []string, targets map[string]string, byPackage map[string]*Version) []string {
	// before[b] are the peers that must come before peer b.
	before := map[string]map[string]bool{}
	for kind, target := range targets {
		for _, other := range peers {
			if v := byPackage[other]; other != target && v != nil && v.Kind(kind) != nil {
				if before[other] == nil {
					before[other] = map[string]bool{}
				}
				before[other][target] = true
			}
		}
	}
	out := make([]string, 0, len(peers))
	left := slices.Clone(peers)
	for len(left) > 0 {
		i := slices.IndexFunc(left, func(p string) bool {
			for b := range before[p] {
				if slices.Contains(left, b) {
					return false
				}
			}
			return true
		})
		if i < 0 {
			i = 0 // contradicting constraints: the sorted order
		}
		out = append(out, left[i])
		left = slices.Delete(left, i, i+1)
	}
	return out
}
