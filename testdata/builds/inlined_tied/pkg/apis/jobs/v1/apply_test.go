package v1_test

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"

	v1 "example.com/wardle/pkg/apis/jobs/v1"
	applyv1 "example.com/wardle/pkg/generated/applyconfiguration/jobs/v1"
)

// TestApplyConfigurationIsTheJSON compares the keys of JobSpec's apply configuration, every
// field set, with those encoding/json writes for a JobSpec with every field set: Retry's and
// Backoff's limits tie, so neither is written, and the apply configuration has neither. What
// the apply configuration writes decodes into a JobSpec that encodes to the same JSON.
func TestApplyConfigurationIsTheJSON(t *testing.T) {
	one, two := int32(1), int32(2)
	spec := v1.JobSpec{
		Image:    "i",
		Retry:    &v1.Retry{Limit: &one, Delay: "1s"},
		Backoff:  &v1.Backoff{Limit: &two, Factor: 2},
		Fallback: &v1.Retry{Limit: &one, Delay: "2s"},
	}
	apply := applyv1.JobSpec().
		WithImage("i").
		WithDelay("1s").
		WithFactor(2).
		WithFallback(applyv1.Retry().WithLimit(1).WithDelay("2s"))
	applied := marshal(t, apply)
	if got, want := keys(t, applied), keys(t, marshal(t, spec)); !slices.Equal(got, want) {
		t.Errorf("JobSpec's apply configuration writes %v, encoding/json writes %v for JobSpec", got, want)
	}
	var back v1.JobSpec
	if err := json.Unmarshal(applied, &back); err != nil {
		t.Fatal(err)
	}
	if again := marshal(t, back); string(again) != string(applied) {
		t.Errorf("the apply configuration writes %s, the JobSpec it decodes into %s", applied, again)
	}
	// Retry's own apply configuration, fallback's, is whole.
	if got := keys(t, marshal(t, apply.Fallback)); !slices.Equal(got, []string{"delay", "limit"}) {
		t.Errorf("Retry's apply configuration writes %v, want [delay limit]", got)
	}
}

func marshal(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func keys(t *testing.T, data []byte) []string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return slices.Sorted(maps.Keys(m))
}
