package e2e

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/apigen-dev/apigen/test/cluster"
	"github.com/apigen-dev/apigen/test/kapi"
)

// draGroup is the built-in group TestDeclarativeValidationDiff serves twice.
const draGroup = "resource.k8s.io"

// TestDeclarativeValidationDiff is issue 24's proof: resource.k8s.io/v1, whose types carry
// declarative validation (+k8s: tags, most of them beta since 1.37, enforced because the
// DeclarativeValidationBeta gate is on by default), is served natively by a real
// kube-apiserver v1.37 and by the server apigen generates from an unchanged copy of
// k8s.io/api/resource/v1 (the copy keeps the group; it is a separate local server). Every
// object of the corpus (declarativeCorpus) goes to both with client-go: whether a request is
// accepted, the field paths of a 422's causes and the object each keeps must be the same.
// kube-apiserver runs its hand-written validation besides the declarative rules (and drops the
// errors of it that the rules cover), defaults fields and drops those of disabled feature
// gates: each case where that makes the answers differ says so, and what the generated server
// answers instead.
//
// Objects that break a rule are also written straight into both servers' etcd and then
// updated, for ratcheting.
//
// resource.k8s.io is chosen because kube-apiserver serves it by default and most of its
// hand-written validation has moved to declarative rules: kube-apiserver marks those errors
// covered and drops each one that an enforced rule reports too, so on a create or a changed
// value the rules alone decide (an unchanged value that a rule ratchets is another matter:
// see diffHandWrittenNoRatcheting).
func TestDeclarativeValidationDiff(t *testing.T) {
	tc := tools(t)
	work := t.TempDir()
	proj := draProject(t, tc, work)

	start := time.Now()
	etcd, kas := startControlPlane(t, work)
	t.Logf("etcd and kube-apiserver ready in %s", time.Since(start).Round(time.Millisecond))

	bin := filepath.Join(work, "apiserver")
	buildServer(t, proj, bin)
	kubeconfig, dataDir, port := filepath.Join(work, "kubeconfig"), filepath.Join(work, "data"), freePort(t)
	srv := startServer(t, bin, proj, port, dataDir, kubeconfig, filepath.Join(work, "server.log"))
	native, generated := dynamicFor(t, kas.AdminKubeconfig), dynamicFor(t, kubeconfig)

	var stored []validationCase
	for _, c := range declarativeCorpus {
		if c.stored {
			stored = append(stored, c)
			continue
		}
		t.Run(c.name, func(t *testing.T) { runValidationCase(t, c, native, generated) })
	}

	// Objects that break a rule, written into each server's etcd next to an object of their
	// kind that the corpus created (the generated server's embedded etcd while it is stopped),
	// then updated through the API: ratcheting.
	ctx, cancel := context.WithTimeout(context.Background(), cmdTimeout)
	defer cancel()
	kasEtcd := clusterEtcdClient(t, etcd)
	storeObjects(ctx, t, kasEtcd, stored)
	stopServer(t, srv)
	withEtcd(t, dataDir, func(ctx context.Context, c *clientv3.Client) { storeObjects(ctx, t, c, stored) })
	startServer(t, bin, proj, port, dataDir, kubeconfig, filepath.Join(work, "server-restarted.log"))
	generated = dynamicFor(t, kubeconfig)
	for _, c := range stored {
		t.Run(c.name, func(t *testing.T) { runValidationCase(t, c, native, generated) })
	}
	t.Logf("%d objects sent to kube-apiserver and to the generated server (%d of them written into etcd first)", len(declarativeCorpus), len(stored))
}

// storedNear are the objects, by kind, next to which storeObjects writes the stored cases'
// objects: corpus objects created through the API, whose etcd key shows the server's layout.
var storedNear = map[string]string{"DeviceClass": "class-valid", "ResourceClaim": "claim-valid", "ResourceSlice": "slice-valid"}

// storeObjects writes each stored case's object into an etcd, at the key its server would
// have used, with the metadata a create would have set.
func storeObjects(ctx context.Context, t *testing.T, c *clientv3.Client, cases []validationCase) {
	t.Helper()
	resp, err := c.Get(ctx, "/", clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		t.Fatal(err)
	}
	for i, sc := range cases {
		near := "/" + sc.resource().resource + "/"
		if sc.resource().namespaced {
			near += "default/"
		}
		near += storedNear[sc.kind]
		var key string
		for _, kv := range resp.Kvs {
			if k := string(kv.Key); strings.HasSuffix(k, near) {
				key = strings.TrimSuffix(k, storedNear[sc.kind]) + sc.objectName()
			}
		}
		if key == "" {
			t.Fatalf("no etcd key ends in %s", near)
		}
		o := sc.object("v1", sc.content)
		meta := o["metadata"].(map[string]any)
		meta["uid"] = fmt.Sprintf("5f0c1c9e-0000-4000-8000-%012d", i)
		meta["creationTimestamp"] = "2026-01-01T00:00:00Z"
		if !sc.resource().noGeneration {
			meta["generation"] = 1
		}
		if _, err := c.Put(ctx, key, draJSON(o)); err != nil {
			t.Fatal(err)
		}
	}
}

// clusterEtcdClient is a client of test/cluster's etcd, with its client certificate.
func clusterEtcdClient(t *testing.T, e *cluster.Etcd) *clientv3.Client {
	t.Helper()
	pair, err := tls.X509KeyPair(e.Client.CertPEM, e.Client.KeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(e.CA.CertPEM)
	c, err := clientv3.New(clientv3.Config{
		Endpoints:   e.Endpoints,
		DialTimeout: 10 * time.Second,
		TLS:         &tls.Config{Certificates: []tls.Certificate{pair}, RootCAs: roots, MinVersion: tls.VersionTLS12},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// draProject is a new project with an unchanged copy of k8s.io/api/resource/v1 (the files
// k8s.io/api's generators wrote left out), generated.
func draProject(t *testing.T, tc *toolchain, work string) string {
	t.Helper()
	proj := initProject(t, tc, work, "example.com/dra")
	r := mustSucceed(t, runCmd(cmdOpts{Dir: proj, Env: goEnv}, "go", "list", "-m", "-f", "{{.Dir}}", "k8s.io/api"))
	src := filepath.Join(strings.TrimSpace(r.Stdout), "resource", "v1")
	dst := filepath.Join(proj, "pkg", "apis", "resource", "v1")
	files, _ := filepath.Glob(filepath.Join(src, "*.go"))
	for _, f := range files {
		if name := filepath.Base(f); !kapi.Generated(name) {
			writeFile(t, filepath.Join(dst, name), readFile(t, f))
		}
	}
	mustSucceed(t, runCmd(cmdOpts{Dir: proj, Env: goEnv}, tc.apigen, "generate"))
	return proj
}

// Reasons for the differences between kube-apiserver and the generated server on
// resource.k8s.io/v1: none is the declarative rules'.
const (
	diffHandWritten = "kube-apiserver's hand-written validation (k8s.io/kubernetes pkg/apis/resource/validation) checks this, with no declarative rule for it; the generated server runs only the types' rules"
	diffDefaulting  = "kube-apiserver's hand-written defaulting (pkg/apis/resource/v1/defaults.go) sets it; the types have no +default for it, so the generated server keeps it empty"
	// kube-apiserver's migration rule (k8s.io/apimachinery validate.FilterCoveredHandwrittenErrors).
	diffHandWrittenNoRatcheting = "kube-apiserver's hand-written validation checks this field too, without ratcheting, and drops its own error (marked covered by declarative) only where an enforced beta declarative error matches it; the rule ratchets the unchanged value, so no declarative error matches and the hand-written one refuses the update; the generated server runs only the rules, which ratchet"
	// A device's status names the device by driver, pool, device and shareID, and an
	// allocated device with that shareID would break the same rule in the allocation.
	diffDeviceNotAllocated = "kube-apiserver's hand-written validation refuses a device status that names no allocated device (\"must be an allocated device in the claim\"); the allocation cannot hold the same invalid shareID, which its own +k8s:format=k8s-uuid refuses, so the rule cannot be broken alone"
	// The generated server has no feature gates: it keeps every field of the types and
	// validates it; a +k8s:ifEnabled/ifDisabled option is defined disabled (apigen generate
	// warns so).
	diffGateOptionalNodeOperations = "kube-apiserver drops spec.skipNodeOperations while its feature gate DRAOptionalNodeOperations is off (the default in v1.37), so it never validates it; the generated server keeps the field and runs its +k8s:enum"
	diffGatePartitionableType      = "kube-apiserver drops spec.partitionTypeAttribute while its feature gate DRAPartitionableDevicesType is off (the default in v1.37), before the rules run; the generated server keeps the field, and its +k8s:ifDisabled(DRAPartitionableDevicesType)=+k8s:forbidden rule refuses it, as kube-apiserver's would if the field reached it"
)

// JSON builders for the corpus.
func draJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// obj parses JSON for a builder (panics on a malformed literal).
func obj(s string) map[string]any {
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		panic(fmt.Sprintf("%v: %s", err, s))
	}
	return m
}

func repeated(n int, item func(i int) any) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = item(i)
	}
	return out
}

const (
	draDriver  = "dra.example.com"
	celDriver  = `device.driver == "dra.example.com"`
	longDriver = "a123456789012345678901234567890123456789012345678901.example.com" // 64 characters
)

// deviceClass is a DeviceClass's content with spec.
func deviceClass(spec string) string { return `{"spec":` + spec + `}` }

// exactRequest is a ResourceClaim's request of one device of a class, with extra fields.
func exactRequest(name, extra string) map[string]any {
	e := obj(`{"deviceClassName":"gpu.example.com","allocationMode":"ExactCount","count":1` + extra + `}`)
	return map[string]any{"name": name, "exactly": e}
}

// claim is a ResourceClaim's content with these requests and more fields of spec.devices.
func claim(requests []any, devices string) string {
	d := obj(`{` + devices + `}`)
	d["requests"] = requests
	return draJSON(map[string]any{"spec": map[string]any{"devices": d}})
}

func oneRequest(extra string) []any { return []any{exactRequest("gpu", extra)} }

// slice is a ResourceSlice's content with more fields of spec.
func slice(fields string) string {
	return `{"spec":{"driver":"dra.example.com","pool":{"name":"pool","generation":1,"resourceSliceCount":1},"allNodes":true,` + fields + `}}`
}

// allocation is a ResourceClaim status with the request gpu allocated.
const allocation = `{"status":{"allocation":{"devices":{"results":[{"request":"gpu","driver":"dra.example.com","pool":"pool","device":"dev-0"}]}}}}`

func draCase(c validationCase) validationCase { c.group = draGroup; return c }

var declarativeCorpus = func() []validationCase {
	selector := map[string]any{"cel": map[string]any{"expression": celDriver}}
	opaque := func(i int) any { return obj(`{"opaque":{"driver":"dra.example.com","parameters":{"n":1}}}`) }
	classWith := func(field string, v any) string { return deviceClass(draJSON(map[string]any{field: v})) }
	requests := func(n int) []any {
		return repeated(n, func(i int) any { return exactRequest(fmt.Sprintf("r%d", i), "") })
	}
	sub := func(i int) any {
		return obj(fmt.Sprintf(`{"name":"s%d","deviceClassName":"gpu.example.com","allocationMode":"ExactCount","count":1}`, i))
	}
	firstAvailable := func(subs ...any) []any { return []any{map[string]any{"name": "gpu", "firstAvailable": subs}} }
	cases := []validationCase{
		// DeviceClass.
		{name: "class valid", kind: "DeviceClass", content: deviceClass(`{"selectors":[{"cel":{"expression":` + draJSON(celDriver) + `}}],"config":[{"opaque":{"driver":"dra.example.com","parameters":{"a":"b"}}}],"extendedResourceName":"example.com/gpu"}`)},
		{name: "class name not a long name", markers: markers("format=k8s-long-name"), kind: "DeviceClass", meta: `{"name":"Bad_Class"}`, content: deviceClass(`{}`), want: fields("metadata.name")},
		{name: "class selectors max items", markers: markers("maxItems"), kind: "DeviceClass", content: classWith("selectors", repeated(33, func(int) any { return selector })), want: fields("spec.selectors")},
		{name: "class config max items", markers: markers("maxItems"), kind: "DeviceClass", content: classWith("config", repeated(33, opaque)), want: fields("spec.config")},
		{name: "class extended resource name format", markers: markers("format=k8s-extended-resource-name"), kind: "DeviceClass", content: deviceClass(`{"extendedResourceName":"not an extended name"}`), want: fields("spec.extendedResourceName")},
		{name: "class config driver required", markers: markers("required"), kind: "DeviceClass", content: deviceClass(`{"config":[{"opaque":{"parameters":{"a":"b"}}}]}`), want: fields("spec.config[0].opaque.driver")},
		{name: "class config driver format", markers: markers("format=k8s-long-name-caseless"), kind: "DeviceClass", content: deviceClass(`{"config":[{"opaque":{"driver":"Bad_Driver","parameters":{"a":"b"}}}]}`), want: fields("spec.config[0].opaque.driver")},
		{name: "class config driver max length", markers: markers("maxLength"), kind: "DeviceClass", content: deviceClass(`{"config":[{"opaque":{"driver":"` + longDriver + `","parameters":{"a":"b"}}}]}`), want: fields("spec.config[0].opaque.driver")},
		{name: "class update within the rules", markers: markers("update"), kind: "DeviceClass", content: deviceClass(`{}`), patches: patches(mainPatch(`{"spec":{"extendedResourceName":"example.com/fpga"}}`))},
		{name: "class update breaks a rule", markers: markers("update", "format=k8s-extended-resource-name"), kind: "DeviceClass", content: deviceClass(`{}`), patches: patches(mainPatch(`{"spec":{"extendedResourceName":"no"}}`)), want: fields("spec.extendedResourceName")},
		// Hand-written only.
		{name: "class config without opaque", markers: markers("hand-written"), kind: "DeviceClass", content: deviceClass(`{"config":[{}]}`), want: fields("spec.config[0].opaque"),
			differs: diffHandWritten},
		{name: "class selector without cel", markers: markers("hand-written"), kind: "DeviceClass", content: deviceClass(`{"selectors":[{}]}`), want: fields("spec.selectors[0].cel"),
			differs: diffHandWritten},
		{name: "class selector cel does not compile", markers: markers("hand-written"), kind: "DeviceClass", content: deviceClass(`{"selectors":[{"cel":{"expression":"device.driver =="}}]}`), want: fields("spec.selectors[0].cel.expression"),
			differs: diffHandWritten},

		// ResourceClaim.
		{name: "claim valid", kind: "ResourceClaim", content: claim(oneRequest(`,"selectors":[{"cel":{"expression":`+draJSON(celDriver)+`}}],"tolerations":[{"key":"example.com/taint","operator":"Equal","value":"v","effect":"NoSchedule"}]`), `"constraints":[{"requests":["gpu"],"matchAttribute":"dra.example.com/model"}],"config":[{"requests":["gpu"],"opaque":{"driver":"dra.example.com","parameters":{"a":"b"}}}]`)},
		{name: "claim requests max items", markers: markers("maxItems"), kind: "ResourceClaim", content: claim(requests(33), ``), want: fields("spec.devices.requests")},
		{name: "claim request names unique", markers: markers("unique=map", "listMapKey"), kind: "ResourceClaim", content: claim([]any{exactRequest("gpu", ""), exactRequest("gpu", "")}, ``), want: fields("spec.devices.requests[1]")},
		{name: "claim first available max items", markers: markers("maxItems"), kind: "ResourceClaim", content: claim(firstAvailable(repeated(9, sub)...), ``), want: fields("spec.devices.requests[0].firstAvailable")},
		{name: "claim subrequest class name format", markers: markers("format=k8s-long-name"), kind: "ResourceClaim", content: claim(firstAvailable(obj(`{"name":"s0","deviceClassName":"Bad_Class","allocationMode":"ExactCount","count":1}`)), ``), want: fields("spec.devices.requests[0].firstAvailable[0].deviceClassName")},
		{name: "claim subrequest class name required", markers: markers("required"), kind: "ResourceClaim", content: claim(firstAvailable(obj(`{"name":"s0","allocationMode":"ExactCount","count":1}`)), ``), want: fields("spec.devices.requests[0].firstAvailable[0].deviceClassName")},
		{name: "claim allocation mode enum", markers: markers("enum"), kind: "ResourceClaim", content: claim([]any{map[string]any{"name": "gpu", "exactly": obj(`{"deviceClassName":"gpu.example.com","allocationMode":"Some","count":1}`)}}, ``), want: fields("spec.devices.requests[0].exactly.allocationMode")},
		{name: "claim toleration operator enum", markers: markers("enum"), kind: "ResourceClaim", content: claim(oneRequest(`,"tolerations":[{"key":"example.com/taint","operator":"Maybe","value":"v"}]`), ``), want: fields("spec.devices.requests[0].exactly.tolerations[0].operator")},
		{name: "claim toleration key format", markers: markers("format=k8s-label-key"), kind: "ResourceClaim", content: claim(oneRequest(`,"tolerations":[{"key":"bad key!","operator":"Exists"}]`), ``), want: fields("spec.devices.requests[0].exactly.tolerations[0].key")},
		{name: "claim selectors max items", markers: markers("maxItems"), kind: "ResourceClaim", content: claim([]any{map[string]any{"name": "gpu", "exactly": map[string]any{"deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": 1, "selectors": repeated(33, func(int) any { return selector })}}}, ``), want: fields("spec.devices.requests[0].exactly.selectors")},
		{name: "claim constraint requests unique", markers: markers("unique=set"), kind: "ResourceClaim", content: claim(oneRequest(``), `"constraints":[{"requests":["gpu","gpu"],"matchAttribute":"dra.example.com/model"}]`), want: fields("spec.devices.constraints[0].requests[1]")},
		{name: "claim constraint attribute format", markers: markers("format=k8s-resource-fully-qualified-name"), kind: "ResourceClaim", content: claim(oneRequest(``), `"constraints":[{"requests":["gpu"],"matchAttribute":"not an attribute"}]`), want: fields("spec.devices.constraints[0].matchAttribute")},
		{name: "claim config requests unique", markers: markers("unique=set"), kind: "ResourceClaim", content: claim(oneRequest(``), `"config":[{"requests":["gpu","gpu"],"opaque":{"driver":"dra.example.com","parameters":{"a":"b"}}}]`), want: fields("spec.devices.config[0].requests[1]")},
		{name: "claim config driver max length", markers: markers("maxLength"), kind: "ResourceClaim", content: claim(oneRequest(``), `"config":[{"opaque":{"driver":"`+longDriver+`","parameters":{"a":"b"}}}]`), want: fields("spec.devices.config[0].opaque.driver")},
		{name: "claim spec immutable", markers: markers("immutable"), kind: "ResourceClaim", content: claim(oneRequest(``), ``), patches: patches(mainPatch(`{"spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"other.example.com","allocationMode":"ExactCount","count":1}}]}}}`)), want: fields("spec")},
		{name: "claim metadata update with spec unchanged", markers: markers("immutable"), kind: "ResourceClaim", content: claim(oneRequest(``), ``), patches: patches(mainPatch(`{"metadata":{"labels":{"a":"b"}}}`))},
		{name: "claim allocation mode defaulted", markers: markers("defaulting"), kind: "ResourceClaim", content: claim([]any{obj(`{"name":"gpu","exactly":{"deviceClassName":"gpu.example.com"}}`)}, ``),
			differs: diffDefaulting},
		// Status.
		{name: "claim allocated", markers: markers("status"), kind: "ResourceClaim", content: claim(oneRequest(``), ``), patches: patches(statusPatch(allocation))},
		{name: "claim allocation no modify", markers: markers("update=NoModify"), kind: "ResourceClaim", content: claim(oneRequest(``), ``), patches: patches(statusPatch(allocation), statusPatch(`{"status":{"allocation":{"devices":{"results":[{"request":"gpu","driver":"dra.example.com","pool":"pool","device":"dev-1"}]}}}}`)), want: fields("status.allocation")},
		{name: "claim reserved for unique", markers: markers("listType=map", "listMapKey"), kind: "ResourceClaim", content: claim(oneRequest(``), ``), patches: patches(statusPatch(allocation), statusPatch(`{"status":{"reservedFor":[{"resource":"pods","name":"a","uid":"u1"},{"resource":"pods","name":"b","uid":"u1"}]}}`)), want: fields("status.reservedFor[1]")},
		{name: "claim device status share id format", markers: markers("format=k8s-uuid"), kind: "ResourceClaim", content: claim(oneRequest(``), ``), patches: patches(statusPatch(allocation), statusPatch(`{"status":{"devices":[{"driver":"dra.example.com","pool":"pool","device":"dev-0","shareID":"not-a-uuid"}]}}`)), want: fields("status.devices[0]", "status.devices[0].shareID"),
			differs: diffDeviceNotAllocated, typedCode: 422, typedWant: fields("status.devices[0].shareID")},
		{name: "claim device status hardware address max bytes", markers: markers("maxBytes"), kind: "ResourceClaim", content: claim(oneRequest(``), ``), patches: patches(statusPatch(allocation), statusPatch(`{"status":{"devices":[{"driver":"dra.example.com","pool":"pool","device":"dev-0","networkData":{"hardwareAddress":"`+strings.Repeat("a", 129)+`"}}]}}`)), want: fields("status.devices[0].networkData.hardwareAddress")},
		{name: "claim device status ips unique", markers: markers("unique=set"), kind: "ResourceClaim", content: claim(oneRequest(``), ``), patches: patches(statusPatch(allocation), statusPatch(`{"status":{"devices":[{"driver":"dra.example.com","pool":"pool","device":"dev-0","networkData":{"ips":["10.0.0.1/24","10.0.0.1/24"]}}]}}`)), want: fields("status.devices[0].networkData.ips[1]")},

		// ResourceSlice.
		// Stored past validation, then updated: ratcheting.
		{name: "stored class ratchets an unchanged invalid field", markers: markers("ratcheting"), kind: "DeviceClass", stored: true, content: deviceClass(`{"extendedResourceName":"not valid!"}`), patches: patches(mainPatch(`{"metadata":{"labels":{"a":"b"}}}`)), want: fields("spec.extendedResourceName"),
			differs: diffHandWrittenNoRatcheting},
		{name: "stored class ratchets when another field changes", markers: markers("ratcheting"), kind: "DeviceClass", stored: true, content: deviceClass(`{"extendedResourceName":"not valid!"}`), patches: patches(mainPatch(`{"spec":{"selectors":[{"cel":{"expression":` + draJSON(celDriver) + `}}]}}`)), want: fields("spec.extendedResourceName"),
			differs: diffHandWrittenNoRatcheting},
		{name: "stored class refuses a changed invalid field", markers: markers("ratcheting", "format=k8s-extended-resource-name"), kind: "DeviceClass", stored: true, content: deviceClass(`{"extendedResourceName":"not valid!"}`), patches: patches(mainPatch(`{"spec":{"extendedResourceName":"still not valid!"}}`)), want: fields("spec.extendedResourceName")},
		{name: "stored class with too many selectors ratchets", markers: markers("ratcheting", "maxItems"), kind: "DeviceClass", stored: true, content: classWith("selectors", repeated(33, func(int) any { return selector })), patches: patches(mainPatch(`{"metadata":{"labels":{"a":"b"}}}`)), want: fields("spec.selectors"),
			differs: diffHandWrittenNoRatcheting},
		{name: "stored class with too many selectors refuses one more", markers: markers("ratcheting", "maxItems"), kind: "DeviceClass", stored: true, content: classWith("selectors", repeated(33, func(int) any { return selector })), patches: patches(mainPatch(classWith("selectors", repeated(34, func(int) any { return selector })))), want: fields("spec.selectors")},
		{name: "stored claim ratchets its spec on a status write", markers: markers("ratcheting", "format=k8s-label-key"), kind: "ResourceClaim", stored: true, content: claim(oneRequest(`,"tolerations":[{"key":"bad key!","operator":"Exists"}]`), ``), patches: patches(statusPatch(allocation))},
		// A stable rule with no hand-written counterpart: kube-apiserver keeps a field of a
		// disabled gate that the stored object already uses, and ratchets like the generated server.
		{name: "stored slice ratchets an unchanged invalid item", markers: markers("ratcheting", "enum"), kind: "ResourceSlice", stored: true, content: slice(`"devices":[{"name":"dev-0"}],"skipNodeOperations":["Never"]`), patches: patches(mainPatch(`{"metadata":{"labels":{"a":"b"}}}`))},
		{name: "stored slice refuses a new invalid item", markers: markers("ratcheting", "enum"), kind: "ResourceSlice", stored: true, content: slice(`"devices":[{"name":"dev-0"}],"skipNodeOperations":["Never"]`), patches: patches(mainPatch(`{"spec":{"skipNodeOperations":["Never","Sometimes"]}}`)), want: fields("spec.skipNodeOperations[1]")},
		{name: "stored slice ratchets an unchanged item of a changed set", markers: markers("ratcheting", "enum"), kind: "ResourceSlice", stored: true, content: slice(`"devices":[{"name":"dev-0"}],"skipNodeOperations":["Never"]`), patches: patches(mainPatch(`{"spec":{"skipNodeOperations":["Never","*"]}}`))},

		{name: "slice valid", kind: "ResourceSlice", content: slice(`"devices":[{"name":"dev-0","attributes":{"model":{"string":"a"}}}]`)},
		{name: "slice attribute union two members", markers: markers("unionMember"), kind: "ResourceSlice", content: slice(`"devices":[{"name":"dev-0","attributes":{"model":{"string":"a","int":1}}}]`), want: fields("spec.devices[0].attributes[model]")},
		{name: "slice attribute union no member", markers: markers("unionMember"), kind: "ResourceSlice", content: slice(`"devices":[{"name":"dev-0","attributes":{"model":{}}}]`), want: fields("spec.devices[0].attributes[model]")},
		{name: "slice counter set name format", markers: markers("format=k8s-short-name"), kind: "ResourceSlice", content: slice(`"sharedCounters":[{"name":"Bad_Set","counters":{"mem":{"value":"1"}}}]`), want: fields("spec.sharedCounters[0].name")},
		{name: "slice counter name format", markers: markers("eachKey"), kind: "ResourceSlice", content: slice(`"sharedCounters":[{"name":"set","counters":{"Bad_Counter":{"value":"1"}}}]`), want: fields("spec.sharedCounters[0].counters")},
		{name: "slice counter sets unique", markers: markers("unique=map"), kind: "ResourceSlice", content: slice(`"sharedCounters":[{"name":"set","counters":{"mem":{"value":"1"}}},{"name":"set","counters":{"mem":{"value":"1"}}}]`), want: fields("spec.sharedCounters[1]")},
		{name: "slice skip node operations enum", markers: markers("enum"), kind: "ResourceSlice", content: slice(`"devices":[{"name":"dev-0"}],"skipNodeOperations":["Never"]`), want: nil,
			differs: diffGateOptionalNodeOperations, typedCode: 422, typedWant: fields("spec.skipNodeOperations[0]")},
		{name: "slice partition type attribute forbidden", markers: markers("ifDisabled", "forbidden"), kind: "ResourceSlice", content: slice(`"devices":[{"name":"dev-0"}],"partitionTypeAttribute":"dra.example.com/type"`), want: nil,
			differs: diffGatePartitionableType, typedCode: 422, typedWant: fields("spec.partitionTypeAttribute")},
	}
	for i := range cases {
		cases[i] = draCase(cases[i])
	}
	return cases
}()
