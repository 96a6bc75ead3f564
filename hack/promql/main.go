// Command promql parses PromQL expressions with Prometheus's own parser (what promtool does
// for rule files) and lists the metrics each one names. test/e2e feeds it every expression of
// the generated monitoring component and checks the names against a running server. It is a
// module of its own so that apigen's go.mod does not carry Prometheus.
//
// Input: one JSON object per line, {"where": "...", "expr": "..."}. Output: one line per
// metric name, sorted and unique. Any expression that does not parse is reported as
// "where: error" on stderr, and the exit code is 1.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/prometheus/prometheus/promql/parser"
)

type expression struct {
	Where string `json:"where"`
	Expr  string `json:"expr"`
}

func main() {
	names, errs := metricNames(os.Stdin)
	for _, e := range errs {
		fmt.Fprintln(os.Stderr, e)
	}
	for _, n := range names {
		fmt.Println(n)
	}
	if len(errs) > 0 {
		os.Exit(1)
	}
}

// metricNames parses every expression in r and returns the metric names they select.
func metricNames(r io.Reader) ([]string, []error) {
	p := parser.NewParser(parser.Options{})
	var names []string
	var errs []error
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e expression
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			errs = append(errs, fmt.Errorf("input line %q: %w", sc.Text(), err))
			continue
		}
		expr, err := p.ParseExpr(e.Expr)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", e.Where, err))
			continue
		}
		parser.Inspect(expr, func(n parser.Node, _ []parser.Node) error {
			if vs, ok := n.(*parser.VectorSelector); ok {
				if vs.Name == "" {
					errs = append(errs, fmt.Errorf("%s: a selector without a metric name: %s", e.Where, vs))
				}
				names = append(names, vs.Name)
			}
			return nil
		})
	}
	if err := sc.Err(); err != nil {
		errs = append(errs, err)
	}
	slices.Sort(names)
	return slices.Compact(names), errs
}
