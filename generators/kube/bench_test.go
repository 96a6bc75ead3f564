package kube

import (
	"testing"

	"github.com/apigen-dev/apigen/generators/engine"
	"github.com/apigen-dev/apigen/generators/loader"
)

// BenchmarkLoadAndGenerate is one apigen run's share of this package: load the fixture, then
// deepcopy-gen and openapi-gen over it.
func BenchmarkLoadAndGenerate(b *testing.B) {
	for b.Loop() {
		load, err := loader.Run(fixture, loader.Options{})
		if err != nil {
			b.Fatal(err)
		}
		ctx := &engine.LoadContext{Context: engine.Context{Project: fixtureProject(), GoHeader: header}, Load: load}
		if _, err := engine.RunUpstream(ctx, []engine.Upstream{DeepCopy(), OpenAPI()}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGenerate is deepcopy-gen and openapi-gen over a load that is already there.
func BenchmarkGenerate(b *testing.B) {
	load := fixtureLoad(b)
	for b.Loop() {
		ctx := &engine.LoadContext{Context: engine.Context{Project: fixtureProject(), GoHeader: header}, Load: load}
		if _, err := engine.RunUpstream(ctx, []engine.Upstream{DeepCopy(), OpenAPI()}); err != nil {
			b.Fatal(err)
		}
	}
}
