package servertest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"maps"
	"math/rand"
	"net/http"
	"os"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/randfill"
)

// RoundTripOptions bound a REST round trip.
type RoundTripOptions struct {
	// Objects is how many random objects are written per kind and version (6 when 0); with
	// protobuf, every other one travels as protobuf.
	Objects int
	// Seed seeds the fuzzer (a fixed one when 0), so a failure can be reproduced. The
	// environment variable SeedsEnv, when set, replaces it.
	Seed int64
	// DefaultsAtZero are the fields whose default the server applies where a client sends
	// their zero value: fields neither pointers nor omitempty, whose Go type cannot tell zero
	// from absent (apigen generate warns at each marker). Where an object sends such a field
	// at its zero value, it reads back the default.
	DefaultsAtZero []DefaultAtZero
}

// DefaultAtZero is a field of a Go struct type whose default the server applies when the
// field holds its zero value.
type DefaultAtZero struct {
	// Type is the struct type, Field the Go name of its field.
	Type  reflect.Type
	Field string
	// Default is the default, as JSON.
	Default string
}

// atZero are the rules of DefaultsAtZero by struct type and JSON name, the defaults decoded.
type atZero map[reflect.Type]map[string]any

// defaultsAtZero indexes rules by type and the fields' JSON names.
func defaultsAtZero(rules []DefaultAtZero) (atZero, error) {
	out := atZero{}
	for _, r := range rules {
		f, ok := r.Type.FieldByName(r.Field)
		if !ok || r.Type.Kind() != reflect.Struct {
			return nil, fmt.Errorf("DefaultsAtZero: %v has no field %s", r.Type, r.Field)
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			name = f.Name
		}
		var v any
		if err := utiljson.Unmarshal([]byte(r.Default), &v); err != nil {
			return nil, fmt.Errorf("DefaultsAtZero: the default of %v.%s: %w", r.Type, r.Field, err)
		}
		if out[r.Type] == nil {
			out[r.Type] = map[string]any{}
		}
		out[r.Type][name] = v
	}
	return out, nil
}

// apply is obj, JSON of Go type t, with each field a rule names that holds its zero value
// replaced by the rule's default: what the server reads back.
func (rules atZero) apply(t reflect.Type, obj any) any {
	if len(rules) == 0 || t == nil {
		return obj
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		m, ok := obj.(map[string]any)
		if !ok {
			return obj
		}
		out := shallowCopy(m)
		rules.applyFields(t, out)
		return out
	case reflect.Slice, reflect.Array:
		l, ok := obj.([]any)
		if !ok {
			return obj
		}
		out := make([]any, len(l))
		for i, v := range l {
			out[i] = rules.apply(t.Elem(), v)
		}
		return out
	case reflect.Map:
		m, ok := obj.(map[string]any)
		if !ok {
			return obj
		}
		out := make(map[string]any, len(m))
		for k, v := range m {
			out[k] = rules.apply(t.Elem(), v)
		}
		return out
	}
	return obj
}

// applyFields applies the rules to the fields of struct type t in m (a copy), and to those of
// the structs t inlines, as encoding/json inlines an embedded struct without a name.
func (rules atZero) applyFields(t reflect.Type, m map[string]any) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if tag == "-" || !f.IsExported() && !f.Anonymous {
			continue
		}
		if f.Anonymous && name == "" {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				rules.applyFields(ft, m)
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		v, ok := m[name]
		if !ok {
			continue
		}
		if def, ok := rules[t][name]; ok && zeroJSON(v) {
			m[name] = def
			continue
		}
		m[name] = rules.apply(f.Type, v)
	}
}

// zeroJSON reports whether v is the JSON of a zero number, string or boolean.
func zeroJSON(v any) bool {
	switch v := v.(type) {
	case int64:
		return v == 0
	case float64:
		return v == 0
	case string:
		return v == ""
	case bool:
		return !v
	}
	return false
}

// SeedsEnv names the environment variable that picks the fuzzer's seeds instead of
// RoundTripOptions.Seed: one seed ("7"), or a range ("1-50") whose seeds each kind takes in
// turn, each in a subtest seed=<n> of the kind's, so a kind can be tried on many random
// objects: ROUNDTRIP_SEEDS=1-50 go test ./pkg/apiserver -run 'TestRESTRoundTrip/<group>/'.
const SeedsEnv = "ROUNDTRIP_SEEDS"

// seeds are the seeds the environment variable SeedsEnv names, or seed when it is not set.
func seeds(seed int64) ([]int64, error) {
	v := strings.TrimSpace(os.Getenv(SeedsEnv))
	if v == "" {
		return []int64{seed}, nil
	}
	from, to, isRange := strings.Cut(v, "-")
	first, err := strconv.ParseInt(from, 10, 64)
	last := first
	if err == nil && isRange {
		last, err = strconv.ParseInt(to, 10, 64)
	}
	if err != nil || first == 0 || last < first || first < 0 {
		return nil, fmt.Errorf("%s=%q: want a positive seed or a range of them, such as 1-50", SeedsEnv, v)
	}
	var out []int64
	for s := first; s <= last; s++ {
		out = append(out, s)
	}
	return out, nil
}

// Server-managed metadata: kube-apiserver sets these fields itself on every write (or
// refuses them on create), so what a client sends there is not kept.
var serverManagedMetadata = []string{
	"creationTimestamp", "deletionGracePeriodSeconds", "deletionTimestamp", "generation",
	"managedFields", "resourceVersion", "selfLink", "uid",
}

// RoundTrip writes random objects of every kind the server at cfg serves, in every version,
// through its REST API and reads them back: nothing the Go type can hold may be lost. It
// fills each kind's hub (the scheme's internal version) with funcs, as the codec round trip
// of pkg/apis/<group>/install does, converts it to the served version, creates it (JSON, and
// protobuf where the type has protobuf methods), compares what the create returns and what a
// get reads, and for a kind with a status subresource writes the status through /status and
// compares again. Each subtest is named group/version/Kind, so -run can pick kinds.
//
// Only kube-apiserver's documented rules are allowed to change an object, each by name:
//   - server-managed metadata (serverManagedMetadata) is the server's, and name and namespace
//     are the test's (the namespace is set in the hub, before it is converted, as a conversion
//     may read it);
//   - a kind with a status subresource resets its status on create (the read must carry the
//     empty status) and keeps its spec on a status update;
//   - defaulting may add fields, never change or remove one that was sent, but where a field
//     of opts.DefaultsAtZero is sent at its zero value: that one reads back its default (the
//     Go type cannot tell the zero value from absent; apigen generate warns at each);
//   - an empty list, map or object reads back as absent (JSON, protobuf and
//     apimachinery's semantic equality do not tell them apart);
//   - a value that validation refuses (422) is removed, at each path the server names, and
//     the object is written again; how often each path was refused is logged, and a kind of
//     which no object could be written fails.
//
// Any other difference fails with the JSON path of the field.
func RoundTrip(t *testing.T, cfg *rest.Config, scheme *runtime.Scheme, funcs fuzzer.FuzzerFuncs, opts RoundTripOptions) {
	t.Helper()
	if opts.Objects <= 0 {
		opts.Objects = 6
	}
	if opts.Seed == 0 {
		opts.Seed = 1
	}
	seedList, err := seeds(opts.Seed)
	if err != nil {
		t.Fatal(err)
	}
	rules, err := defaultsAtZero(opts.DefaultsAtZero)
	if err != nil {
		t.Fatal(err)
	}
	codecs := serializer.NewCodecFactory(scheme)
	client := httpClient(t, cfg)
	disco, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, lists, err := disco.ServerGroupsAndResources()
	if err != nil {
		t.Fatalf("discovery: %v", err)
	}
	bounded := boundedRecursion(scheme)
	kinds := 0
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			t.Fatal(err)
		}
		subresources := map[string]bool{}
		for _, r := range list.APIResources {
			if strings.Contains(r.Name, "/") && slices.Contains(r.Verbs, "update") {
				subresources[r.Name] = true
			}
		}
		for _, r := range list.APIResources {
			if strings.Contains(r.Name, "/") || !slices.Contains(r.Verbs, "create") || !slices.Contains(r.Verbs, "get") {
				continue
			}
			gvk := gv.WithKind(r.Kind)
			hub := schema.GroupVersionKind{Group: gv.Group, Version: runtime.APIVersionInternal, Kind: r.Kind}
			if !scheme.Recognizes(gvk) || !scheme.Recognizes(hub) {
				continue
			}
			kinds++
			k := kindTrip{
				gvk: gvk, hub: hub, resource: r.Name, namespaced: r.Namespaced, status: subresources[r.Name+"/status"],
				scheme: scheme, client: client, host: strings.TrimSuffix(cfg.Host, "/"),
				encoder: protobuf.NewSerializer(scheme, scheme), atZero: rules,
			}
			t.Run(gv.Group+"/"+gv.Version+"/"+r.Kind, func(t *testing.T) {
				trip := func(t *testing.T, s int64, names string) {
					// Each kind's objects follow from its name alone, not from its place in
					// discovery, so a run of one kind (-run) fills what the whole run fills.
					seed := s + kindSeed(gvk)
					all := fuzzer.MergeFuzzerFuncs(bounded, metafuzzer.Funcs, validMetadata, funcs)
					fill := fuzzer.FuzzerFor(all, rand.NewSource(seed), codecs)
					// Donors of values for required fields fill every pointer, list and map, so
					// that a required list has an element to give.
					full := fuzzer.FuzzerFor(all, rand.NewSource(-seed), codecs).NilChance(0).NumElements(1, 1)
					k.run(t, fill, full, opts.Objects, names)
				}
				if len(seedList) == 1 {
					trip(t, seedList[0], "roundtrip-"+gvk.Version)
					return
				}
				for _, s := range seedList {
					t.Run("seed="+strconv.FormatInt(s, 10), func(t *testing.T) {
						trip(t, s, "roundtrip-"+gvk.Version+"-s"+strconv.FormatInt(s, 10))
					})
				}
			})
		}
	}
	if kinds == 0 {
		t.Skip("the server serves no kind that can be created and read back")
	}
}

// kindSeed is a positive number derived from gvk's name.
func kindSeed(gvk schema.GroupVersionKind) int64 {
	h := fnv.New64a()
	h.Write([]byte(gvk.String()))
	return int64(h.Sum64() >> 2)
}

// httpClient reaches the server at cfg with its credentials.
func httpClient(t *testing.T, cfg *rest.Config) *http.Client {
	t.Helper()
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return client
}

// validMetadata fills metadata with values that object-meta validation accepts where
// metafuzzer's random strings never pass: qualified label and annotation keys, label
// values, finalizer names. Everything else stays as metafuzzer fills it. It also fills
// json.RawMessage with JSON.
func validMetadata(serializer.CodecFactory) []any {
	word := func(c randfill.Continue) string {
		const letters = "abcdefghijklmnopqrstuvwxyz0123456789"
		b := make([]byte, 1+c.Intn(12))
		for i := range b {
			b[i] = letters[c.Intn(len(letters))]
		}
		return string(b)
	}
	return []any{
		// Raw JSON holds JSON, which random bytes are not: here, a JSON string.
		func(j *json.RawMessage, c randfill.Continue) {
			*j, _ = json.Marshal(c.String(0))
		},
		func(m *metav1.ObjectMeta, c randfill.Continue) {
			c.FillNoCustom(m)
			m.ResourceVersion = strconv.FormatUint(c.Uint64(), 10)
			m.CreationTimestamp = metav1.Unix(int64(c.Uint32()), 0).Rfc3339Copy()
			if m.DeletionTimestamp != nil {
				ts := metav1.Unix(int64(c.Uint32()), 0).Rfc3339Copy()
				m.DeletionTimestamp = &ts
			}
			m.Labels = words(c, word, func(c randfill.Continue) string { return word(c) })
			m.Annotations = words(c, func(c randfill.Continue) string { return "example.com/" + word(c) }, func(c randfill.Continue) string { return c.String(0) })
			m.Finalizers = nil
			for range c.Intn(3) {
				m.Finalizers = append(m.Finalizers, "example.com/"+word(c))
			}
			slices.Sort(m.Finalizers)
			m.Finalizers = slices.Compact(m.Finalizers)
			if len(m.OwnerReferences) == 0 {
				m.OwnerReferences = nil
			}
		},
	}
}

// words is a random map of up to three entries, nil when empty.
func words(c randfill.Continue, key, value func(randfill.Continue) string) map[string]string {
	var out map[string]string
	for range c.Intn(4) {
		if out == nil {
			out = map[string]string{}
		}
		out[key(c)] = value(c)
	}
	return out
}

// kindTrip is one kind in one served version.
type kindTrip struct {
	gvk, hub   schema.GroupVersionKind
	resource   string
	namespaced bool
	status     bool
	scheme     *runtime.Scheme
	client     *http.Client
	host       string
	encoder    runtime.Serializer
	fill       *randfill.Filler
	// full fills every pointer, list and map: the donors past the first few.
	full *randfill.Filler
	// donors are random objects of the served version and of the hub whose values fill
	// required fields, made once per kind.
	donors, hubDonors *[]map[string]any
	// atZero are the fields that read back their default where the zero value was sent.
	atZero atZero
}

// namespace is the namespace the kind's objects are written to: "default", or none for a
// cluster-scoped kind.
func (k kindTrip) namespace() string {
	if k.namespaced {
		return "default"
	}
	return ""
}

func (k kindTrip) path(name string, subresource ...string) string {
	p := []string{"/apis", k.gvk.Group, k.gvk.Version}
	if k.namespaced {
		p = append(p, "namespaces", k.namespace())
	}
	p = append(p, k.resource)
	if name != "" {
		p = append(p, name)
	}
	return strings.Join(append(p, subresource...), "/")
}

// run writes objects random objects, named names-<i>, and reads them back.
func (k kindTrip) run(t *testing.T, fill, full *randfill.Filler, objects int, names string) {
	k.fill, k.full, k.donors, k.hubDonors = fill, full, &[]map[string]any{}, &[]map[string]any{}
	protobufServed := true
	refused := map[string]int{}
	written, viaProto := 0, 0
	for i := range objects {
		sent, err := k.random()
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("%s-%d", names, i)
		meta := sent["metadata"].(map[string]any)
		for _, f := range serverManagedMetadata {
			delete(meta, f)
		}
		meta["name"] = name
		delete(meta, "namespace")
		if ns := k.namespace(); ns != "" {
			meta["namespace"] = ns
		}
		asProto := i%2 == 1 && protobufServed && k.protobuf(sent)
		created, err := k.write(t, "POST", k.path(""), sent, asProto, refused)
		if asProto && notServedAs(err) {
			// The server chooses the encodings a kind can produce; it may serve JSON alone.
			t.Logf("the server does not take %s as protobuf (%v); JSON only", k.gvk.Kind, err)
			protobufServed, asProto = false, false
			created, err = k.write(t, "POST", k.path(""), sent, false, refused)
		}
		if err != nil {
			t.Errorf("creating %s: %v", name, err)
			continue
		}
		if created == nil {
			continue
		}
		written++
		if asProto {
			viaProto++
		}
		want := sent
		if k.status {
			// Rule: a kind with a status subresource resets its status on create.
			want = withStatus(sent, k.emptyStatus(t))
		}
		k.compare(t, "create", want, created)
		got, err := k.read(t, name, asProto)
		if err != nil {
			t.Fatalf("reading %s back: %v", name, err)
		}
		k.compare(t, "get after create", want, got)
		if !k.status {
			continue
		}
		// The status, written through /status onto what the create returned; the spec stays.
		update := withStatus(got, sent["status"])
		updated, err := k.write(t, "PUT", k.path(name, "status"), update, asProto, refused)
		if err != nil {
			t.Errorf("updating the status of %s: %v", name, err)
			continue
		}
		if updated == nil {
			continue
		}
		want = withStatus(got, update["status"])
		k.compare(t, "status update", want, updated)
		got, err = k.read(t, name, asProto)
		if err != nil {
			t.Fatalf("reading %s back: %v", name, err)
		}
		k.compare(t, "get after status update", want, got)
	}
	paths := make([]string, 0, len(refused))
	for p := range refused {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		t.Logf("validation refused %s (%d times)", p, refused[p])
	}
	t.Logf("%d of %d random objects written and read back (%d as protobuf)", written, objects, viaProto)
	if written == 0 {
		t.Errorf("validation refused every random %s: give the fuzzer functions that fill valid values", k.gvk.Kind)
	}
}

// random fills the kind's hub and converts it to the served version, as JSON.
func (k kindTrip) random() (map[string]any, error) {
	return k.randomWith(k.fill)
}

// randomWith is random, filled by fill. The hub is in the namespace the object is written to
// before it is converted: a conversion may read the object's namespace (Cluster API's v1beta1
// gives its references the object's), and what the server reads back is converted from the
// object as written, so a random namespace would read back changed where no field was lost.
func (k kindTrip) randomWith(fill *randfill.Filler) (map[string]any, error) {
	hub, err := k.scheme.New(k.hub)
	if err != nil {
		return nil, err
	}
	fill.Fill(hub)
	if m, err := apimeta.Accessor(hub); err == nil {
		m.SetNamespace(k.namespace())
	}
	obj, err := k.scheme.ConvertToVersion(hub, k.gvk.GroupVersion())
	if err != nil {
		return nil, fmt.Errorf("converting a random %s to %s: %w", k.gvk.Kind, k.gvk.Version, err)
	}
	obj.GetObjectKind().SetGroupVersionKind(k.gvk)
	return toMap(obj)
}

// protobuf reports whether the kind's Go type has protobuf methods.
func (k kindTrip) protobuf(obj map[string]any) bool {
	typed, err := k.typed(obj)
	if err != nil {
		return false
	}
	err = k.encoder.Encode(typed, &strings.Builder{})
	return !protobuf.IsNotMarshalable(err)
}

// typed decodes obj into the served version's Go type.
func (k kindTrip) typed(obj map[string]any) (runtime.Object, error) {
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	typed, err := k.scheme.New(k.gvk)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, typed); err != nil {
		return nil, err
	}
	typed.GetObjectKind().SetGroupVersionKind(k.gvk)
	return typed, nil
}

// write sends obj (POST or PUT) until the server takes it, leaving out each value validation
// refuses; it returns the object the server answers with, or nil when nothing could be left
// out to make validation accept it.
func (k kindTrip) write(t *testing.T, verb, path string, obj map[string]any, asProto bool, refused map[string]int) (map[string]any, error) {
	tried := map[string]bool{}
	for range 25 {
		out, err := k.do(t, verb, path, obj, asProto)
		if err == nil {
			return out, nil
		}
		var status apierrors.APIStatus
		if !apierrors.IsInvalid(err) || !errors.As(err, &status) || status.Status().Details == nil {
			return nil, err
		}
		changed := false
		for _, cause := range status.Status().Details.Causes {
			if how := k.repair(obj, cause, tried); how != "" {
				refused[cause.Field+" ("+string(cause.Type)+"): "+how]++
				changed = true
			}
		}
		if !changed {
			t.Logf("validation refused an object and named nothing to change: %v", err)
			refused["the whole object: "+err.Error()]++
			return nil, nil
		}
	}
	return nil, nil
}

// repair changes the value at the field a validation error names, in the served version or,
// where the path is the hub's (validation of the hub names its fields), in the hub, and
// converts back.
func (k kindTrip) repair(obj map[string]any, cause metav1.StatusCause, tried map[string]bool) string {
	before := runtime.DeepCopyJSON(obj)
	how := k.repairAt(obj, cause, tried)
	typed, err := k.typed(obj)
	if err != nil {
		// No longer the kind's Go type: undone.
		clear(obj)
		maps.Copy(obj, before)
		return ""
	}
	// What is sent is what the Go type holds, as a client encodes it: a value the repair
	// wrote that the type cannot carry (an enum's supported "" in an omitempty field, which
	// encoding/json leaves out) is not sent, so it is no loss either.
	if how != "" {
		if m, err := toMap(typed); err == nil {
			clear(obj)
			maps.Copy(obj, m)
		}
	}
	return how
}

func (k kindTrip) repairAt(obj map[string]any, cause metav1.StatusCause, tried map[string]bool) string {
	donor := func(i int) map[string]any {
		return cached(k.donors, i, func() map[string]any { m, _ := k.randomWith(k.donorFill(len(*k.donors))); return m })
	}
	if how := repair(obj, cause, tried, donor, func(m map[string]any) bool { _, err := k.typed(m); return err == nil }); how != "" {
		return how
	}
	hubMap, err := k.toHub(obj)
	if err != nil {
		return ""
	}
	hubDonor := func(i int) map[string]any {
		return cached(k.hubDonors, i, func() map[string]any {
			hub, err := k.scheme.New(k.hub)
			if err != nil {
				return nil
			}
			k.donorFill(len(*k.hubDonors)).Fill(hub)
			m, _ := toMap(hub)
			return m
		})
	}
	how := repair(hubMap, cause, tried, hubDonor, func(m map[string]any) bool { _, err := k.fromHub(m); return err == nil })
	if how == "" {
		return ""
	}
	m, err := k.fromHub(hubMap)
	if err != nil {
		return ""
	}
	clear(obj)
	maps.Copy(obj, m)
	return how + " (in the hub)"
}

// plainDonors are how many donors are filled as the random objects are; the others of
// donors fill every pointer, list and map (kindTrip.full).
const plainDonors, donors = 5, 10

// donorFill is the filler of the i-th donor.
func (k kindTrip) donorFill(i int) *randfill.Filler {
	if i < plainDonors {
		return k.fill
	}
	return k.full
}

// cached is the i-th of the objects kept in list, made by fill when there are fewer.
func cached(list *[]map[string]any, i int, fill func() map[string]any) map[string]any {
	for len(*list) <= i {
		*list = append(*list, fill())
	}
	return (*list)[i]
}

// toHub converts obj, of the served version, to the hub, as JSON.
func (k kindTrip) toHub(obj map[string]any) (map[string]any, error) {
	typed, err := k.typed(obj)
	if err != nil {
		return nil, err
	}
	hub, err := k.scheme.ConvertToVersion(typed, k.hub.GroupVersion())
	if err != nil {
		return nil, err
	}
	return toMap(hub)
}

// fromHub converts hub, as JSON, to the served version.
func (k kindTrip) fromHub(hub map[string]any) (map[string]any, error) {
	data, err := json.Marshal(hub)
	if err != nil {
		return nil, err
	}
	typed, err := k.scheme.New(k.hub)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, typed); err != nil {
		return nil, err
	}
	back, err := k.scheme.ConvertToVersion(typed, k.gvk.GroupVersion())
	if err != nil {
		return nil, err
	}
	back.GetObjectKind().SetGroupVersionKind(k.gvk)
	return toMap(back)
}

// stringCandidates are values that the usual string patterns and formats accept: a DNS
// label, a DNS subdomain, a UUID, a number, an IP address, a date-time, a duration.
var stringCandidates = []string{"a", "a.example.com", "example.com/a", "00000000-0000-4000-8000-000000000001", "1", "10.0.0.1", "2026-01-01T00:00:00Z", "1s"}

// repair changes the value at the field a validation error names, so that the next write
// may pass: a value the field supports (the error lists them); for a required field, the
// value another random object holds there; for a string, values that the usual patterns
// and formats accept (a string the pattern the error names matches, then stringCandidates);
// for a number, 1; and at last no value at all. A
// change after which the object no longer decodes (valid reports that) is undone. It says
// what it did, or "" when it has nothing left to try.
//
// A value the repair puts in place of another is a new value: what was tried on the fields
// inside the old one (tried) is forgotten, so that they can be repaired again in the new one (a
// list element that a donor's replaced holds a field of its own that validation refuses).
func repair(obj map[string]any, cause metav1.StatusCause, tried map[string]bool, donor func(int) map[string]any, valid func(map[string]any) bool) string {
	how := repairOnce(obj, cause, tried, donor, valid)
	if how != "" {
		for key := range tried {
			if field, _, _ := strings.Cut(key, " "); len(field) > len(cause.Field) && strings.HasPrefix(field, cause.Field) &&
				(field[len(cause.Field)] == '.' || field[len(cause.Field)] == '[') {
				delete(tried, key)
			}
		}
	}
	return how
}

// repairOnce is repair, without forgetting what was tried inside the field.
func repairOnce(obj map[string]any, cause metav1.StatusCause, tried map[string]bool, donor func(int) map[string]any, valid func(map[string]any) bool) string {
	if cause.Field == "" {
		return ""
	}
	path := parsePath(cause.Field)
	try := func(how string) bool {
		if tried[cause.Field+" "+how] {
			return false
		}
		tried[cause.Field+" "+how] = true
		return true
	}
	v, present := at(obj, path)
	var current any
	if present {
		current = v.get()
	}
	// attempt sets the field to candidate, and undoes it when the object no longer decodes.
	attempt := func(candidate any) bool {
		if present {
			v.set(candidate)
		} else if !put(obj, path, candidate) {
			return false
		}
		if valid(obj) {
			return true
		}
		if present {
			v.set(current)
		} else if w, ok := at(obj, path); ok {
			w.remove()
		}
		return false
	}
	if cause.Type == metav1.CauseTypeFieldValueNotSupported {
		if supported := supportedValues(cause.Message, current); supported != nil && try("supported") && attempt(supported) {
			return "replaced by a supported value"
		}
	}
	if _, isObject := current.(map[string]any); !present || empty(current) || current == "" || isObject {
		for i := range donors {
			if !try("donor " + strconv.Itoa(i)) {
				continue
			}
			if d := donor(i); d != nil {
				if w, ok := at(d, path); ok && !empty(w.get()) && attempt(runtime.DeepCopyJSONValue(w.get())) {
					return "filled from another random object"
				}
			}
		}
	}
	if !present {
		return removeParent(obj, cause.Field, path, try, valid)
	}
	switch current.(type) {
	case string:
		if c := matching(cause.Message); c != "" && try("pattern") && attempt(c) {
			return "replaced by " + strconv.Quote(c) + ", which its pattern matches"
		}
		for _, c := range stringCandidates {
			if try(strconv.Quote(c)) && attempt(c) {
				return "replaced by " + strconv.Quote(c)
			}
		}
	case int64, float64:
		if try("1") && attempt(int64(1)) {
			return "replaced by 1"
		}
	}
	if try("remove") {
		v.remove()
		return "left out"
	}
	return removeParent(obj, cause.Field, path, try, valid)
}

// removeParent leaves out what holds the field at path: the list element or the object
// around it, where the field itself cannot be given a value validation takes.
func removeParent(obj map[string]any, field string, path []step, try func(string) bool, valid func(map[string]any) bool) string {
	if len(path) < 2 || !try("remove parent") {
		return ""
	}
	parent, ok := at(obj, path[:len(path)-1])
	if !ok {
		return ""
	}
	if _, isObject := parent.get().(map[string]any); !isObject {
		return "" // the path is not this object's (the hub's, where the version differs)
	}
	parent.remove()
	if !valid(obj) {
		return ""
	}
	return "left out what holds it"
}

// put sets the value at path, making the objects on its way; it reports false where a list
// index names no element or something that is not an object is on the way. A list element on
// the way is entered (a required list of spec.rules[0] is filled in the element there).
func put(obj map[string]any, path []step, v any) bool {
	var in any = obj
	for i, s := range path {
		last := i == len(path)-1
		switch o := in.(type) {
		case map[string]any:
			if s.index >= 0 {
				return false
			}
			if last {
				o[s.name] = v
				return true
			}
			next, ok := o[s.name]
			if !ok || next == nil {
				if path[i+1].index >= 0 {
					return false // no list to index
				}
				next = map[string]any{}
				o[s.name] = next
			}
			in = next
		case []any:
			if s.index < 0 || s.index >= len(o) || last {
				return false
			}
			in = o[s.index]
		default:
			return false
		}
	}
	return false
}

// supportedValues is the first of the values a NotSupported error lists, of the type of
// current.
func supportedValues(message string, current any) any {
	_, list, ok := strings.Cut(message, "supported values: ")
	if !ok {
		return nil
	}
	first, _, _ := strings.Cut(list, ", ")
	if s, err := strconv.Unquote(first); err == nil {
		if _, isString := current.(string); isString {
			return s
		}
	}
	if _, isNumber := current.(int64); isNumber {
		if n, err := strconv.ParseInt(strings.Trim(first, `"`), 10, 64); err == nil {
			return n
		}
	}
	return nil
}

// value is a place in a JSON object.
type value struct {
	get    func() any
	set    func(any)
	remove func()
}

// at finds the place path names in obj.
func at(obj any, path []step) (value, bool) {
	if len(path) == 0 {
		return value{}, false
	}
	switch o := obj.(type) {
	case map[string]any:
		v, ok := o[path[0].name]
		if !ok {
			return value{}, false
		}
		if len(path) == 1 {
			key := path[0].name
			return value{
				get:    func() any { return o[key] },
				set:    func(v any) { o[key] = v },
				remove: func() { delete(o, key) },
			}, true
		}
		if l, ok := v.([]any); ok && len(path) == 2 && path[1].index >= 0 && path[1].index < len(l) {
			key, i := path[0].name, path[1].index
			return value{
				get:    func() any { return l[i] },
				set:    func(v any) { l[i] = v },
				remove: func() { o[key] = slices.Delete(slices.Clone(l), i, i+1) },
			}, true
		}
		return at(v, path[1:])
	case []any:
		if path[0].index < 0 || path[0].index >= len(o) {
			return value{}, false
		}
		return at(o[path[0].index], path[1:])
	}
	return value{}, false
}

// notServedAs reports an answer that refuses the request's encoding: 406 Not Acceptable or
// 415 Unsupported Media Type.
func notServedAs(err error) bool {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		code := status.Status().Code
		return code == http.StatusNotAcceptable || code == http.StatusUnsupportedMediaType
	}
	return err != nil && (strings.Contains(err.Error(), "406 Not Acceptable") || strings.Contains(err.Error(), "415 Unsupported Media Type"))
}

// read gets the object named name.
func (k kindTrip) read(t *testing.T, name string, asProto bool) (map[string]any, error) {
	return k.do(t, "GET", k.path(name), nil, asProto)
}

// do sends obj (none when nil) as JSON or protobuf and returns the object the server answers
// with, or its error as an APIStatus.
func (k kindTrip) do(t *testing.T, verb, path string, obj map[string]any, asProto bool) (map[string]any, error) {
	contentType := runtime.ContentTypeJSON
	if asProto {
		contentType = runtime.ContentTypeProtobuf
	}
	var body []byte
	if obj != nil {
		var err error
		if body, err = json.Marshal(obj); err != nil {
			return nil, err
		}
		if asProto {
			typed, err := k.typed(obj)
			if err != nil {
				return nil, err
			}
			var buf bytes.Buffer
			if err := k.encoder.Encode(typed, &buf); err != nil {
				return nil, err
			}
			body = buf.Bytes()
		}
	}
	req, err := http.NewRequestWithContext(t.Context(), verb, k.host+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", contentType)
	if obj != nil {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := k.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		status := &metav1.Status{}
		if asProto {
			_, _, err = k.encoder.Decode(raw, nil, status)
		} else {
			err = json.Unmarshal(raw, status)
		}
		if err != nil || status.Status == "" {
			return nil, fmt.Errorf("%s %s: %s: %s", verb, path, resp.Status, raw)
		}
		return nil, &apierrors.StatusError{ErrStatus: *status}
	}
	if !asProto {
		var out map[string]any
		return out, utiljson.Unmarshal(raw, &out)
	}
	typed, err := k.scheme.New(k.gvk)
	if err != nil {
		return nil, err
	}
	if _, _, err := k.encoder.Decode(raw, nil, typed); err != nil {
		return nil, fmt.Errorf("decoding the protobuf answer to %s %s: %w", verb, path, err)
	}
	typed.GetObjectKind().SetGroupVersionKind(k.gvk)
	return toMap(typed)
}

// emptyStatus is the status of a new object of the kind, as JSON.
func (k kindTrip) emptyStatus(t *testing.T) any {
	obj, err := k.scheme.New(k.gvk)
	if err != nil {
		t.Fatal(err)
	}
	m, err := toMap(obj)
	if err != nil {
		t.Fatal(err)
	}
	return m["status"]
}

// compare fails on every field of want that got lost or changed, apart from metadata the
// server manages.
//
// Rule: a field of DefaultsAtZero sent at its zero value reads back its default.
func (k kindTrip) compare(t *testing.T, step string, want, got map[string]any) {
	t.Helper()
	if len(k.atZero) > 0 {
		if typed, err := k.scheme.New(k.gvk); err == nil {
			want, _ = k.atZero.apply(reflect.TypeOf(typed), want).(map[string]any)
		}
	}
	want, got = withoutServerMetadata(want), withoutServerMetadata(got)
	for _, d := range diff("", want, got) {
		t.Errorf("%s %s %s: %s", k.gvk.Kind, k.gvk.Version, step, d)
	}
}

func withoutServerMetadata(obj map[string]any) map[string]any {
	out := shallowCopy(obj)
	if meta, ok := obj["metadata"].(map[string]any); ok {
		meta = shallowCopy(meta)
		for _, f := range serverManagedMetadata {
			delete(meta, f)
		}
		out["metadata"] = meta
	}
	return out
}

// withStatus is obj with its status replaced.
func withStatus(obj map[string]any, status any) map[string]any {
	out := shallowCopy(obj)
	delete(out, "status")
	if status != nil {
		out["status"] = status
	}
	return out
}

func shallowCopy(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// toMap is obj as JSON decodes it (integers as int64).
func toMap(obj any) (map[string]any, error) {
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	return out, utiljson.Unmarshal(data, &out)
}

// empty reports whether v holds nothing: null, an empty list or an empty object.
func empty(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case []any:
		return len(v) == 0
	case map[string]any:
		return len(v) == 0
	}
	return false
}

// diff lists each value of want that got does not hold, by JSON path. Fields got adds
// (defaults) are not differences.
func diff(path string, want, got any) []string {
	if empty(want) {
		if empty(got) {
			return nil
		}
		if _, ok := got.(map[string]any); ok {
			return nil // an empty object defaulting filled
		}
	}
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: sent %s, read back %s", orRoot(path), show(want), show(got))}
		}
		var out []string
		for _, key := range sortedKeys(w) {
			p := path + "." + key
			if !isIdentifier(key) {
				p = path + "[" + strconv.Quote(key) + "]"
			}
			gv, ok := g[key]
			if !ok && !empty(w[key]) {
				out = append(out, fmt.Sprintf("%s: sent %s, dropped", p, show(w[key])))
				continue
			}
			out = append(out, diff(p, w[key], gv)...)
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return []string{fmt.Sprintf("%s: sent %s, read back %s", orRoot(path), show(want), show(got))}
		}
		var out []string
		for i := range w {
			out = append(out, diff(fmt.Sprintf("%s[%d]", path, i), w[i], g[i])...)
		}
		return out
	}
	if !reflect.DeepEqual(want, got) {
		return []string{fmt.Sprintf("%s: sent %s, read back %s", orRoot(path), show(want), show(got))}
	}
	return nil
}

func orRoot(path string) string {
	if path == "" {
		return "."
	}
	return path
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r == '$' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// show prints a value shortly.
func show(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(data) > 120 {
		return string(data[:117]) + "..."
	}
	return string(data)
}

// step is one element of a field path: a field name, a list index or a map key.
type step struct {
	name  string
	index int // -1 unless a list index
}

// parsePath reads a field path as apimachinery's field.Path prints it: names joined by
// dots, [i] for a list index, [key] for a map key.
func parsePath(s string) []step {
	var out []step
	for s != "" {
		switch s[0] {
		case '.':
			s = s[1:]
		case '[':
			end := strings.IndexByte(s, ']')
			if end < 0 {
				return append(out, step{name: s[1:], index: -1})
			}
			in := s[1:end]
			s = s[end+1:]
			if i, err := strconv.Atoi(in); err == nil {
				out = append(out, step{name: in, index: i})
			} else {
				out = append(out, step{name: in, index: -1})
			}
		default:
			end := strings.IndexAny(s, ".[")
			if end < 0 {
				end = len(s)
			}
			out = append(out, step{name: s[:end], index: -1})
			s = s[end:]
		}
	}
	return out
}
