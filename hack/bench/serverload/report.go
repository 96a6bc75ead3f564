package main

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
)

// Targets of the issue "Benchmarks and load".
const (
	targetThroughput = 1.0 // apigen / sample-apiserver, at least
	targetP99        = 1.1 // apigen / sample-apiserver, at most
	targetLocalReady = 3 * time.Second
)

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// ms formats seconds.
func ms(d float64) string {
	switch {
	case d >= 10:
		return fmt.Sprintf("%.1f s", d)
	case d >= 1:
		return fmt.Sprintf("%.2f s", d)
	case d >= 0.001:
		return fmt.Sprintf("%.2f ms", d*1000)
	default:
		return fmt.Sprintf("%.0f µs", d*1e6)
	}
}

func mib(b int64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }

// metrics of one operation on one server in one round.
func tput(p *phaseResult) float64 { return p.Throughput() }
func p50(p *phaseResult) float64  { return p.P50.Seconds() }
func p99(p *phaseResult) float64  { return p.P99.Seconds() }
func cpu(p *phaseResult) float64  { return p.CPUPerOp().Seconds() }

// table holds the results by operation, server and round.
type table struct {
	servers []string
	ops     []string
	rounds  []int
	cell    map[string]map[string]map[int]*phaseResult // op, server, round
	runs    map[string]map[int]*runResult              // server, round
}

func newTable(servers []string, results []*runResult) *table {
	t := &table{servers: servers, cell: map[string]map[string]map[int]*phaseResult{}, runs: map[string]map[int]*runResult{}}
	for _, r := range results {
		if !slices.Contains(t.rounds, r.Round) {
			t.rounds = append(t.rounds, r.Round)
		}
		if t.runs[r.Server] == nil {
			t.runs[r.Server] = map[int]*runResult{}
		}
		t.runs[r.Server][r.Round] = r
		for _, p := range r.Phases {
			if !slices.Contains(t.ops, p.Op) {
				t.ops = append(t.ops, p.Op)
			}
			if t.cell[p.Op] == nil {
				t.cell[p.Op] = map[string]map[int]*phaseResult{}
			}
			if t.cell[p.Op][r.Server] == nil {
				t.cell[p.Op][r.Server] = map[int]*phaseResult{}
			}
			t.cell[p.Op][r.Server][r.Round] = p
		}
	}
	return t
}

// med is the median over the rounds of f of op on server.
func (t *table) med(op, server string, f func(*phaseResult) float64) float64 {
	var xs []float64
	for _, p := range t.cell[op][server] {
		xs = append(xs, f(p))
	}
	return median(xs)
}

// ratio is the median over the rounds of f(a)/f(b) of op: each round's pair
// was measured back to back, so its ratio is less exposed to the machine's
// load than a ratio of medians.
func (t *table) ratio(op, a, b string, f func(*phaseResult) float64) float64 {
	var xs []float64
	for _, round := range t.rounds {
		pa, pb := t.cell[op][a][round], t.cell[op][b][round]
		if pa != nil && pb != nil && f(pb) != 0 {
			xs = append(xs, f(pa)/f(pb))
		}
	}
	return median(xs)
}

func (t *table) paced(op string) bool {
	for _, byRound := range t.cell[op] {
		for _, p := range byRound {
			return p.Paced
		}
	}
	return false
}

func (t *table) errors(op, server string) int {
	n := 0
	for _, p := range t.cell[op][server] {
		n += p.Errors
	}
	return n
}

func (t *table) runMed(server string, f func(*runResult) float64) float64 {
	var xs []float64
	for _, r := range t.runs[server] {
		xs = append(xs, f(r))
	}
	return median(xs)
}

func (t *table) runRatio(a, b string, f func(*runResult) float64) float64 {
	var xs []float64
	for _, round := range t.rounds {
		ra, rb := t.runs[a][round], t.runs[b][round]
		if ra != nil && rb != nil && f(rb) != 0 {
			xs = append(xs, f(ra)/f(rb))
		}
	}
	return median(xs)
}

func report(o *options, servers []server, results []*runResult, local []localRun) string {
	var sb strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&sb, format, a...) }
	t := newTable(names(servers), results)

	if o.dv {
		p("One kind's rules as +k8s: tags (k8s: typed, validation-gen's functions) vs the same rules as kubebuilder markers (markers: the schema, on unstructured JSON), two generated servers reached directly (testdata/dv), %d rounds, %s, %s.\n",
			len(t.rounds), machine(), time.Now().UTC().Format("2006-01-02T15:04Z"))
	} else {
		p("Generated server (examples/wardle) vs k8s.io/sample-apiserver v0.37.2, %d rounds, %s, %s.\n",
			len(t.rounds), machine(), time.Now().UTC().Format("2006-01-02T15:04Z"))
	}
	workload(p, o, results)

	if len(servers) == 2 {
		a, b := servers[0].Name, servers[1].Name
		p("Medians over the rounds; ratios are %[1]s/%[2]s, the median of each round's pair.\n\n", a, b)
		tputTarget, p99Target := fmt.Sprintf(" (≥ %.1f)", targetThroughput), fmt.Sprintf(" (≤ %.1f)", targetP99)
		if o.dv {
			tputTarget, p99Target = "", ""
		}
		p("| operation | %[1]s ops/s | %[2]s ops/s | throughput ratio%[3]s | %[1]s p50 | %[2]s p50 | %[1]s p99 | %[2]s p99 | p99 ratio%[4]s | %[1]s CPU/op | %[2]s CPU/op | CPU/op ratio | target |\n",
			a, b, tputTarget, p99Target)
		p("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
		for _, op := range t.ops {
			tr, pr := t.ratio(op, a, b, tput), t.ratio(op, a, b, p99)
			status := "met"
			var missed []string
			if t.paced(op) {
				status = "met (p99; paced: throughput n/a)"
			} else if tr < targetThroughput {
				missed = append(missed, "throughput")
			}
			if pr > targetP99 {
				missed = append(missed, "p99")
			}
			if len(missed) > 0 {
				status = "**missed** (" + strings.Join(missed, ", ") + ")"
			}
			if o.dv { // no target: which side costs less is the question
				status = "n/a"
			}
			if ea, eb := t.errors(op, a), t.errors(op, b); ea+eb > 0 {
				status += fmt.Sprintf("; errors: %s %d, %s %d", a, ea, b, eb)
			}
			p("| %s | %.0f | %.0f | %.2f | %s | %s | %s | %s | %.2f | %s | %s | %.2f | %s |\n", op,
				t.med(op, a, tput), t.med(op, b, tput), tr,
				ms(t.med(op, a, p50)), ms(t.med(op, b, p50)),
				ms(t.med(op, a, p99)), ms(t.med(op, b, p99)), pr,
				ms(t.med(op, a, cpu)), ms(t.med(op, b, cpu)), t.ratio(op, a, b, cpu), status)
		}
	} else {
		a := servers[0].Name
		p("Medians over the rounds.\n\n| operation | %s ops/s | p50 | p99 | CPU/op | errors |\n|---|---|---|---|---|---|\n", a)
		for _, op := range t.ops {
			p("| %s | %.0f | %s | %s | %s | %d |\n", op, t.med(op, a, tput), ms(t.med(op, a, p50)), ms(t.med(op, a, p99)), ms(t.med(op, a, cpu)), t.errors(op, a))
		}
	}
	p("\n")

	p("| measure | %s |", strings.Join(t.servers, " | "))
	if len(servers) == 2 {
		p(" ratio |")
	}
	p("\n|---|%s", strings.Repeat("---|", len(servers)))
	if len(servers) == 2 {
		p("---|")
	}
	p("\n")
	row := func(what string, f func(r *runResult) float64, format func(float64) string) {
		p("| %s |", what)
		for _, s := range t.servers {
			p(" %s |", format(t.runMed(s, f)))
		}
		if len(servers) == 2 {
			p(" %.2f |", t.runRatio(t.servers[0], t.servers[1], f))
		}
		p("\n")
	}
	row("start-up to /readyz, cluster mode (exec → 200)", func(r *runResult) float64 { return r.Startup.Seconds() }, ms)
	row("peak RSS (VmHWM) after the round", func(r *runResult) float64 { return float64(r.Memory.HWM) }, func(x float64) string { return mib(int64(x)) })
	row("RSS (VmRSS) after the round", func(r *runResult) float64 { return float64(r.Memory.RSS) }, func(x float64) string { return mib(int64(x)) })
	p("\n")

	if len(local) > 0 {
		var ts, m []float64
		for _, l := range local {
			ts = append(ts, l.Startup.Seconds())
			m = append(m, float64(l.Memory.RSS))
		}
		status := "met"
		if median(ts) > targetLocalReady.Seconds() {
			status = "**missed**"
		}
		p("apigen local mode with embedded etcd (fresh --data-dir; exec → GET /readyz 200 through the kubeconfig it writes), %d runs: median %s (min %s, max %s); target ≤ %v: %s. RSS when ready (etcd included): %s.\n\n",
			len(local), ms(median(ts)), ms(slices.Min(ts)), ms(slices.Max(ts)), targetLocalReady, status, mib(int64(median(m))))
	}

	t.perRound(p, true)
	return sb.String()
}

// workload says what each side did per round and how loaded the machine was.
func workload(p func(string, ...any), o *options, results []*runResult) {
	var loads []float64
	for _, r := range results {
		for _, ph := range r.Phases {
			var l float64
			if _, err := fmt.Sscan(ph.Load, &l); err == nil {
				loads = append(loads, l)
			}
		}
	}
	if o.WritesOnly {
		p("Per round and side: %d workers; %d creates, %d gets, %d updates, %d merge patches, %d server-side applies.\n", o.Workers, o.Creates, o.Gets, o.Updates, o.Patches, o.Applies)
	} else {
		p("Per round and side: %d workers; %d creates, %d gets, %d updates, %d merge patches, %d server-side applies, %d lists of %d objects, %d lists of %d objects, %d watchers × %d creates as fast as the server takes them",
			o.Workers, o.Creates, o.Gets, o.Updates, o.Patches, o.Applies, o.ListSmallN, o.ListSmall, o.ListLargeN, o.ListLarge, o.Watchers, o.WatchEvents)
		if o.ListPage > 0 {
			p(", %d lists of %d objects in pages of %d", o.ListLargeN, o.ListLarge, o.ListPage)
		}
		if o.ListLargeWorkers > 0 {
			p(" (the lists of %d objects by %d workers)", o.ListLarge, o.ListLargeWorkers)
		}
		if o.WatchRate > 0 {
			p(", %d watchers × %d creates at %g/s", o.Watchers, o.WatchPacedEvents, o.WatchRate)
		}
		p(".\n")
	}
	if len(loads) > 0 {
		p("1-minute load average before each operation: median %.1f, min %.1f, max %.1f.\n", median(loads), slices.Min(loads), slices.Max(loads))
	}
	p("\n")
}

// perRound is every round's throughput, to judge the noise; with processes,
// each server's start-up and peak RSS too. Then the operations' notes.
func (t *table) perRound(p func(string, ...any), processes bool) {
	p("Throughput per round (ops/s)")
	if processes {
		p(", and start-up and peak RSS")
	}
	p(":\n\n| round | server |")
	for _, op := range t.ops {
		p(" %s |", op)
	}
	if processes {
		p(" start-up | peak RSS |")
	}
	p("\n|---|---|%s", strings.Repeat("---|", len(t.ops)))
	if processes {
		p("---|---|")
	}
	p("\n")
	for _, round := range t.rounds {
		for _, s := range t.servers {
			r := t.runs[s][round]
			if r == nil {
				continue
			}
			name := s
			if r.First {
				name += " (first)"
			}
			p("| %d | %s |", round, name)
			for _, op := range t.ops {
				cell := ""
				if ph := t.cell[op][s][round]; ph != nil {
					cell = fmt.Sprintf("%.0f", ph.Throughput())
					if ph.Errors > 0 {
						cell += fmt.Sprintf(" (%d err)", ph.Errors)
					}
				}
				p(" %s |", cell)
			}
			if processes {
				p(" %s | %s |", ms(r.Startup.Seconds()), mib(r.Memory.HWM))
			}
			p("\n")
		}
	}
	// A note every server has for an operation is given once.
	var notes []string
	for _, op := range t.ops {
		var opNotes []string
		by := map[string][]string{}
		for _, s := range t.servers {
			seen := map[string]bool{}
			for _, round := range t.rounds {
				if ph := t.cell[op][s][round]; ph != nil && ph.Note != "" && !seen[ph.Note] && len(seen) < 2 {
					seen[ph.Note] = true
					if by[ph.Note] == nil {
						opNotes = append(opNotes, ph.Note)
					}
					by[ph.Note] = append(by[ph.Note], s)
				}
			}
		}
		for _, n := range opNotes {
			if len(by[n]) == len(t.servers) && len(t.servers) > 1 {
				notes = append(notes, fmt.Sprintf("%s: %s", op, n))
				continue
			}
			for _, s := range by[n] {
				notes = append(notes, fmt.Sprintf("%s on %s: %s", op, s, n))
			}
		}
	}
	if len(notes) > 0 {
		p("\nNotes: %s.\n", strings.Join(notes, "; "))
	}
}

// sideMetrics are the metrics the side-by-side summaries give a table each.
var sideMetrics = []struct {
	name string
	f    func(*phaseResult) float64
	unit func(float64) string
}{
	{"throughput (ops/s; watch: deliveries/s)", tput, func(x float64) string { return fmt.Sprintf("%.0f", x) }},
	{"p50", p50, ms}, {"p99", p99, ms}, {"server CPU per request", cpu, ms},
}

// reportCRD is the CRD comparison's summary: each metric's medians per side,
// and the ratios of the paths to the generated server over the CRD's.
func reportCRD(o *options, results []*runResult, mem []memGrowth) string {
	var sb strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&sb, format, a...) }
	t := newTable(crdSides, results)
	p("Gizmo (testdata/gizmo: kubebuilder validation and a CEL rule) as a CRD in kube-apiserver (crd), through kube-apiserver to the generated server (aggregated) and to that server directly (direct), %d rounds, %s, %s.\n",
		len(t.rounds), machine(), time.Now().UTC().Format("2006-01-02T15:04Z"))
	workload(p, o, results)
	p("Medians over the rounds; ratios are the median of each round's ratio to crd. CPU/op is the CPU of every process serving the path (aggregated: kube-apiserver and the generated server; direct: the generated server and kube-apiserver answering its SubjectAccessReviews).\n\n")
	for _, m := range sideMetrics {
		p("| %s | crd | aggregated | direct | aggregated / crd | direct / crd |\n|---|---|---|---|---|---|\n", m.name)
		for _, op := range t.ops {
			if m.name[0] == 't' && t.paced(op) {
				continue
			}
			p("| %s | %s | %s | %s | %.2f | %.2f |\n", op, m.unit(t.med(op, "crd", m.f)), m.unit(t.med(op, "aggregated", m.f)), m.unit(t.med(op, "direct", m.f)),
				t.ratio(op, "aggregated", "crd", m.f), t.ratio(op, "direct", "crd", m.f))
		}
		p("\n")
	}
	p("| server CPU per request, by process | crd: kube-apiserver | aggregated: kube-apiserver | aggregated: apigen | direct: apigen | direct: kube-apiserver (SubjectAccessReviews) |\n|---|---|---|---|---|---|\n")
	by := func(name string) func(*phaseResult) float64 {
		return func(r *phaseResult) float64 {
			if r.OK == 0 {
				return 0
			}
			return (r.CPUBy[name] / time.Duration(r.OK)).Seconds()
		}
	}
	for _, op := range t.ops {
		p("| %s | %s | %s | %s | %s | %s |\n", op, ms(t.med(op, "crd", cpu)), ms(t.med(op, "aggregated", by("kube-apiserver"))), ms(t.med(op, "aggregated", by("apigen"))),
			ms(t.med(op, "direct", by("apigen"))), ms(t.med(op, "direct", by("kube-apiserver"))))
	}
	p("\n")
	if len(mem) > 0 {
		p("Memory added per 1000 objects (%d objects created in an empty namespace through each store; live heap after a forced GC, and RSS):\n\n", mem[0].Objects)
		p("| created through | kube-apiserver heap | apigen heap | total heap | kube-apiserver RSS | apigen RSS | total RSS |\n|---|---|---|---|---|---|---|\n")
		per := func(b int64, n int) string { return fmt.Sprintf("%.1f MiB", float64(b)/float64(n)*1000/(1<<20)) }
		for _, g := range mem {
			h, r := g.Heap["kube-apiserver"]+g.Heap["apigen"], g.RSS["kube-apiserver"]+g.RSS["apigen"]
			p("| %s | %s | %s | %s | %s | %s | %s |\n", g.Side, per(g.Heap["kube-apiserver"], g.Objects), per(g.Heap["apigen"], g.Objects), per(h, g.Objects),
				per(g.RSS["kube-apiserver"], g.Objects), per(g.RSS["apigen"], g.Objects), per(r, g.Objects))
		}
		if len(mem) == 2 {
			sum := func(m map[string]int64) float64 { return float64(m["kube-apiserver"] + m["apigen"]) }
			if c := sum(mem[0].Heap); c != 0 {
				p("\nHeap per object, aggregated / crd: %.2f.\n", sum(mem[1].Heap)/c)
			}
		}
		p("\n")
	}
	t.perRound(p, false)
	return sb.String()
}

func names(servers []server) []string {
	var n []string
	for _, s := range servers {
		n = append(n, s.Name)
	}
	return n
}

// reportStorageMediaType is -crd -storage-media-type's summary: the generated
// server storing JSON (direct) against the same server storing in the media
// type (side), both reached directly.
func reportStorageMediaType(o *options, side string, results []*runResult, mem []memGrowth) string {
	var sb strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&sb, format, a...) }
	t := newTable([]string{"direct", side}, results)
	other := mediaProc(side)
	p("Gizmo (testdata/gizmo) in two generated servers on one etcd, reached directly: storing JSON (direct) and storing %s (%s), %d rounds, %s, %s.\n",
		o.storageMediaType, side, len(t.rounds), machine(), time.Now().UTC().Format("2006-01-02T15:04Z"))
	workload(p, o, results)
	p("Medians over the rounds; ratios are the median of each round's ratio to direct. CPU/op is the generated server's and kube-apiserver's (the SubjectAccessReviews it answers); the server's own is in the second table.\n\n")
	for _, m := range sideMetrics {
		p("| %s | direct (JSON) | %s | %s / direct |\n|---|---|---|---|\n", m.name, side, side)
		for _, op := range t.ops {
			if m.name[0] == 't' && t.paced(op) {
				continue
			}
			p("| %s | %s | %s | %.2f |\n", op, m.unit(t.med(op, "direct", m.f)), m.unit(t.med(op, side, m.f)), t.ratio(op, side, "direct", m.f))
		}
		p("\n")
	}
	by := func(name string) func(*phaseResult) float64 {
		return func(r *phaseResult) float64 {
			if r.OK == 0 {
				return 0
			}
			return (r.CPUBy[name] / time.Duration(r.OK)).Seconds()
		}
	}
	p("| the generated server's own CPU per request | direct (JSON) | %s | %s / direct |\n|---|---|---|---|\n", side, side)
	for _, op := range t.ops {
		// Each side's process has its own name: the ratio pairs them round by round.
		var xs []float64
		for _, round := range t.rounds {
			pa, pb := t.cell[op][side][round], t.cell[op]["direct"][round]
			if pa != nil && pb != nil && by("apigen")(pb) != 0 {
				xs = append(xs, by(other)(pa)/by("apigen")(pb))
			}
		}
		p("| %s | %s | %s | %.2f |\n", op, ms(t.med(op, "direct", by("apigen"))), ms(t.med(op, side, by(other))), median(xs))
	}
	p("\n")
	if len(mem) == 2 {
		per := func(b int64, n int) string { return fmt.Sprintf("%.1f MiB", float64(b)/float64(n)*1000/(1<<20)) }
		p("Memory the generated server added per 1000 objects (%d objects created in an empty namespace through each; live heap after a forced GC, and RSS):\n\n", mem[0].Objects)
		p("| created through | heap | RSS |\n|---|---|---|\n")
		p("| direct (JSON) | %s | %s |\n", per(mem[0].Heap["apigen"], mem[0].Objects), per(mem[0].RSS["apigen"], mem[0].Objects))
		p("| %s | %s | %s |\n", side, per(mem[1].Heap[other], mem[1].Objects), per(mem[1].RSS[other], mem[1].Objects))
		if h := mem[0].Heap["apigen"]; h != 0 {
			p("\nHeap per object, %s / direct: %.2f.\n", side, float64(mem[1].Heap[other])/float64(h))
		}
		p("\n")
	}
	t.perRound(p, false)
	return sb.String()
}
