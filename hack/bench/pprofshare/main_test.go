package main

import (
	"regexp"
	"testing"
	"time"
)

// A sample counts for the innermost frame that has a category: the JSON
// decoding under etcd's Get under the filters is etcd's, the filter's own
// work is the filter's, and a stack with no known frame is "other".
func TestSplit(t *testing.T) {
	traces := `File: apiserver
Type: cpu
-----------+-------------------------------------------------------
      10ms   sigs.k8s.io/json/internal/golang/encoding/json.(*decodeState).object
             k8s.io/apiserver/pkg/storage/etcd3.(*defaultDecoder).Decode
             k8s.io/apiserver/pkg/storage/etcd3.(*store).Get
             k8s.io/apiserver/pkg/server/filters.(*priorityAndFairnessHandler).Handle
             golang.org/x/net/http2.(*serverConn).runHandler
-----------+-------------------------------------------------------
      20ms   k8s.io/apiserver/pkg/util/flowcontrol/fairqueuing/queueset.(*queueSet).StartRequest
             k8s.io/apiserver/pkg/server/filters.(*priorityAndFairnessHandler).Handle
             golang.org/x/net/http2.(*serverConn).runHandler
-----------+-------------------------------------------------------
      30ms   runtime.futex
             runtime.mcall
-----------+-------------------------------------------------------
`
	res := make([]*regexp.Regexp, len(categories))
	for i, c := range categories {
		res[i] = regexp.MustCompile(c.pattern)
	}
	shares, total, err := split([]byte(traces), res)
	if err != nil {
		t.Fatal(err)
	}
	if total != 60*time.Millisecond {
		t.Errorf("total %v, want 60ms", total)
	}
	want := map[string]time.Duration{
		"etcd: decoding the stored object": 10 * time.Millisecond,
		"priority and fairness":            20 * time.Millisecond,
		other:                              30 * time.Millisecond,
	}
	if len(shares) != len(want) {
		t.Errorf("shares %v, want %v", shares, want)
	}
	for name, d := range want {
		if shares[name] != d {
			t.Errorf("%s: %v, want %v", name, shares[name], d)
		}
	}
}
