package main

import (
	"slices"
	"strings"
	"testing"
)

func TestMetricNames(t *testing.T) {
	in := `{"where": "a", "expr": "sum(rate(apiserver_request_total{code=~\"5..\"}[5m])) / sum(rate(apiserver_request_total[5m]))"}
{"where": "b", "expr": "histogram_quantile(0.99, sum by (le) (rate(etcd_request_duration_seconds_bucket[5m])))"}
{"where": "c", "expr": "absent(up == 1)"}
`
	names, errs := metricNames(strings.NewReader(in))
	if want := []string{"apiserver_request_total", "etcd_request_duration_seconds_bucket", "up"}; len(errs) > 0 || !slices.Equal(names, want) {
		t.Errorf("got %v %v, want %v", names, errs, want)
	}
}

func TestSyntaxErrors(t *testing.T) {
	in := `{"where": "broken", "expr": "sum(rate(apiserver_request_total[5m])"}
{"where": "nameless", "expr": "rate({job=\"x\"}[5m])"}
`
	_, errs := metricNames(strings.NewReader(in))
	if len(errs) != 2 || !strings.HasPrefix(errs[0].Error(), "broken: ") || !strings.HasPrefix(errs[1].Error(), "nameless: ") {
		t.Errorf("got %v; want one error for each expression", errs)
	}
}
