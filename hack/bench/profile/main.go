// Command profile runs what apigen generate runs in memory (load, model, every generator,
// the comparison with the tree; nothing is written) over a project, timing each phase, and
// optionally writes CPU and heap profiles for go tool pprof and samples the heap's peak in each
// phase (-peaks). apigen itself has no profiling flag; this is how docs/performance.md's
// "where the time goes" is measured:
//
//	go run ./hack/bench/profile -dir examples/wardle -n 5 -cpuprofile /tmp/cpu.pprof
//	go tool pprof -top -cum /tmp/cpu.pprof
//
// With -stdcache DIR the runs read the standard library's types from the go build cache's
// export data as apigen does, DIR keeping the loader's notes as the user cache directory does
// (a run that reads too little of the export data stops: apigen would load again).
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"sort"
	"sync"
	"time"

	"github.com/apigen-dev/apigen/generators/engine"
	"github.com/apigen-dev/apigen/generators/loader"
	"github.com/apigen-dev/apigen/generators/parse"
	"github.com/apigen-dev/apigen/generators/pipeline"
	"github.com/apigen-dev/apigen/generators/schema"
)

func main() {
	dir := flag.String("dir", ".", "project root (where go.mod is)")
	n := flag.Int("n", 1, "runs; phase times are per-run medians")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of all runs here")
	memProfile := flag.String("memprofile", "", "write an allocation profile here after the runs")
	loadProfile := flag.String("loadprofile", "", "write a heap profile of what is live when the first run's load returns here")
	peaks := flag.Bool("peaks", false, "sample the heap in use (objects and unused spans) every 200µs and print each phase's largest")
	stdCache := flag.String("stdcache", "", "read the standard library's types from the go build cache's export data, as apigen does, with the loader's notes (loader.StdCache) in this directory")
	flag.Parse()
	var loadOptions loader.Options
	if *stdCache != "" {
		if loadOptions.StdCache = loader.NewStdCache(*stdCache); loadOptions.StdCache == nil {
			log.Fatal("cannot identify the running binary for -stdcache")
		}
	}

	root, err := pipeline.FindRoot(*dir)
	if err != nil {
		log.Fatal(err)
	}
	boilerplate, err := os.ReadFile(filepath.Join(root, pipeline.DefaultHeaderFile))
	if err != nil && !os.IsNotExist(err) {
		log.Fatal(err)
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}

	phases := map[string][]time.Duration{}
	var order []string
	var heap heapSampler
	if *peaks {
		go heap.run()
	}
	phasePeaks := map[string]uint64{}
	record := func(name string, start time.Time) time.Time {
		now := time.Now()
		if _, ok := phases[name]; !ok {
			order = append(order, name)
		}
		phases[name] = append(phases[name], now.Sub(start))
		phasePeaks[name] = max(phasePeaks[name], heap.take())
		if name == "total" {
			for _, p := range phasePeaks {
				phasePeaks[name] = max(phasePeaks[name], p)
			}
		}
		return now
	}
	for range *n {
		start := time.Now()
		t := start
		load, err := loader.Run(root, loadOptions)
		if err != nil {
			log.Fatal(err)
		}
		t = record("load (go/packages via gengo)", t)
		if *loadProfile != "" {
			writeHeapProfile(*loadProfile)
			*loadProfile = ""
			t = time.Now()
		}
		project, err := parse.Project(load)
		if err != nil {
			log.Fatal(err)
		}
		t = record("model (markers)", t)
		if err := schema.Build(load, project); err != nil {
			log.Fatal(err)
		}
		load.ReleaseSyntax()
		t = record("validation schemas (controller-tools)", t)
		ctx := &engine.LoadContext{Context: engine.Context{Project: project, GoHeader: engine.GoHeader(boilerplate, "")}, Load: load}
		all := engine.NewOutput()
		for _, g := range pipeline.Upstream() {
			out, err := engine.RunUpstream(ctx, []engine.Upstream{g})
			if err != nil {
				log.Fatal(err)
			}
			addAll(all, out)
			t = record("generator "+g.Name(), t)
		}
		if err := project.Validate(); err != nil {
			log.Fatal(err)
		}
		t = record("model validation", t)
		for _, g := range pipeline.Emitters() {
			if err := engine.RunInto(all, &ctx.Context, []engine.Generator{g}); err != nil {
				log.Fatal(err)
			}
			t = record("generator "+g.Name(), t)
		}
		plan, err := engine.NewPlan(root, all)
		if err != nil {
			log.Fatal(err)
		}
		record("compare with the tree", t)
		record("total", start)
		if touched := load.StdTouched(); len(touched) > 0 {
			// apigen would load again with them from source (pipeline.Run); this run's
			// figures are not a run's.
			log.Fatalf("the run read more of standard library packages that came from export data than their types: %v (the loader's stdSeed lacks them)", touched)
		}
		if !plan.Current() {
			fmt.Fprintf(os.Stderr, "note: %d generated file(s) differ from the tree\n", len(plan.Changed)+len(plan.Stale))
		}
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)

	fmt.Printf("%s: %d run(s), median per phase\n", root, *n)
	for _, name := range order {
		d := phases[name]
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		if *peaks {
			fmt.Printf("  %-34s %7.3f s  peak heap %4d MiB\n", name, d[len(d)/2].Seconds(), phasePeaks[name]>>20)
			continue
		}
		fmt.Printf("  %-34s %7.3f s\n", name, d[len(d)/2].Seconds())
	}
	fmt.Printf("  heap: %d MiB allocated per run, %d MiB obtained from the OS\n",
		ms.TotalAlloc/uint64(*n)>>20, ms.Sys>>20)

	if *memProfile != "" {
		f, err := os.Create(*memProfile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
			log.Fatal(err)
		}
		f.Close()
	}
}

// writeHeapProfile writes a heap profile of what is live now (after a collection) to name.
func writeHeapProfile(name string) {
	runtime.GC()
	f, err := os.Create(name)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		log.Fatal(err)
	}
}

// heapSampler keeps the largest heap in use (objects and unused spans, what the process holds
// of its heap) seen since the last take.
type heapSampler struct {
	mu   sync.Mutex
	peak uint64
}

func (h *heapSampler) run() {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}}
	for {
		metrics.Read(s)
		v := s[0].Value.Uint64() + s[1].Value.Uint64()
		h.mu.Lock()
		h.peak = max(h.peak, v)
		h.mu.Unlock()
		time.Sleep(200 * time.Microsecond)
	}
}

// take returns the peak since the last take and starts over.
func (h *heapSampler) take() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	p := h.peak
	h.peak = 0
	return p
}

// addAll adds every file of out to all.
func addAll(all, out *engine.Output) {
	for _, p := range out.Paths() {
		b, _ := out.Get(p)
		if err := all.Add(p, b); err != nil {
			log.Fatal(err)
		}
	}
}
