package main

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"

	"github.com/apigen-dev/apigen/test/cluster"
)

// kind is the API the workload drives: where it is served and what its objects
// hold. The load generator has its own copy of each wire format (the root
// module imports neither the benchmarked projects nor sample-apiserver): only
// what the workload sets, as raw JSON.
type kind struct {
	GV       schema.GroupVersion
	Kind     string
	Resource string
	// Spec is the spec of the i-th object at revision rev (0: as created; an
	// update or apply of revision rev > 0 changes it).
	Spec func(i, rev int) json.RawMessage
	// Patch is a JSON merge patch of the spec to revision rev.
	Patch func(rev int) []byte
	// Pad, when set, is an annotation every created object carries, to
	// give it a size (the -scale envelope).
	Pad string
}

// flunderKind is wardle.example.com/v1alpha1 as both servers of the
// sample-apiserver comparison serve it: creates send spec.reference ref-<i>
// (apigen refuses a self-reference) and no referenceType (both default it to
// Flunder); updates change the reference.
var flunderKind = &kind{
	GV:       schema.GroupVersion{Group: "wardle.example.com", Version: "v1alpha1"},
	Kind:     "Flunder",
	Resource: "flunders",
	Spec: func(i, rev int) json.RawMessage {
		if rev == 0 {
			return mustJSON(map[string]any{"reference": fmt.Sprintf("ref-%d", i)})
		}
		return mustJSON(map[string]any{"reference": fmt.Sprintf("ref-%d-u%d", i, rev)})
	},
	Patch: func(rev int) []byte {
		return mustJSON(map[string]any{"spec": map[string]any{"reference": fmt.Sprintf("ref-p%d", rev)}})
	},
}

// gizmoKind is the held-out kind of the CRD comparison
// (testdata/gizmo/pkg/apis/bench/v1) in group: an object of about
// descriptionBytes+600 bytes of JSON, valid for its schema and CEL rule
// (minReplicas <= replicas) at every revision.
func gizmoKind(group string, descriptionBytes int) *kind {
	desc := strings.Repeat("gizmo ", descriptionBytes/6+1)[:descriptionBytes]
	spec := func(i, rev int) map[string]any {
		return map[string]any{
			"owner":       fmt.Sprintf("team-%d", i%50),
			"replicas":    1 + (i+rev)%99,
			"minReplicas": 1,
			"mode":        []string{"Fast", "Slow"}[rev%2],
			"tags":        []string{"bench", "gizmo", fmt.Sprintf("shard-%d", i%16), fmt.Sprintf("rev-%d", rev)},
			"ports":       []map[string]any{{"name": "http", "port": 8080}, {"name": "metrics", "port": 9090 + rev%100}},
			"description": desc,
		}
	}
	return &kind{
		GV:       schema.GroupVersion{Group: group, Version: "v1"},
		Kind:     "Gizmo",
		Resource: "gizmos",
		Spec:     func(i, rev int) json.RawMessage { return mustJSON(spec(i, rev)) },
		Patch: func(rev int) []byte {
			return mustJSON(map[string]any{"spec": map[string]any{"replicas": 1 + rev%99, "mode": []string{"Fast", "Slow"}[rev%2]}})
		},
	}
}

func mustJSON(v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return data
}

// object is any kind's object as the workload sees it: metadata, the spec it
// sent and the status as raw JSON (the servers' status types differ, and no
// main-resource write changes it).
type object struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              json.RawMessage `json:"spec,omitempty"`
	Status            json.RawMessage `json:"status,omitempty"`
}

type objectList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []object `json:"items"`
}

func (o *object) DeepCopyObject() runtime.Object {
	c := *o
	o.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	c.Spec = append(json.RawMessage(nil), o.Spec...)
	c.Status = append(json.RawMessage(nil), o.Status...)
	return &c
}

func (l *objectList) DeepCopyObject() runtime.Object {
	c := *l
	l.ListMeta.DeepCopyInto(&c.ListMeta)
	c.Items = make([]object, len(l.Items))
	for i := range l.Items {
		c.Items[i] = *l.Items[i].DeepCopyObject().(*object)
	}
	return &c
}

var (
	scheme         = runtime.NewScheme()
	codecs         = serializer.NewCodecFactory(scheme)
	parameterCodec = runtime.NewParameterCodec(scheme)
)

// register adds k's object and list to the scheme (once per group version).
func register(k *kind) {
	if scheme.Recognizes(k.GV.WithKind(k.Kind)) {
		return
	}
	scheme.AddKnownTypeWithName(k.GV.WithKind(k.Kind), &object{})
	scheme.AddKnownTypeWithName(k.GV.WithKind(k.Kind+"List"), &objectList{})
	metav1.AddToGroupVersion(scheme, k.GV)
}

// newObject is the object every create sends: valid for every server of the
// comparison, two labels, no status.
func (k *kind) newObject(ns, name string, i int) *object {
	o := &object{
		TypeMeta: metav1.TypeMeta{APIVersion: k.GV.String(), Kind: k.Kind},
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: ns,
			Labels: map[string]string{"app.kubernetes.io/name": "serverload", "serverload/index": fmt.Sprint(i)},
		},
		Spec: k.Spec(i, 0),
	}
	if k.Pad != "" {
		o.Annotations = map[string]string{"serverload/pad": k.Pad}
	}
	return o
}

// credentials is how the load generator authenticates to a server directly:
// as kube-apiserver's front proxy does when it forwards a request to an
// aggregated server. The client certificate is issued by the front-proxy
// (request-header) CA with the one allowed common name, and the user and
// groups travel in X-Remote-User / X-Remote-Group. In the sample-apiserver
// comparison the group is system:masters, which the delegating authorizer of
// k8s.io/apiserver allows without a SubjectAccessReview: both servers
// authenticate and authorize every request the same way, locally, without
// calling kube-apiserver. The CRD comparison sends an ordinary user, whom the
// server authorizes with SubjectAccessReviews, as it does through
// kube-apiserver.
type credentials struct {
	tls    *tls.Config
	user   string
	groups []string
}

func newCredentials(servingCA *cluster.CA, proxy *cluster.Pair, user string, groups ...string) (*credentials, error) {
	cert, err := tls.X509KeyPair(proxy.CertPEM, proxy.KeyPEM)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(servingCA.Cert)
	return &credentials{
		tls:  &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12},
		user: user, groups: groups,
	}, nil
}

// as is the same front proxy for another user.
func (c *credentials) as(user string, groups ...string) *credentials {
	return &credentials{tls: c.tls, user: user, groups: groups}
}

// httpClient is a new HTTP/2 connection pool with the front-proxy headers, as
// client-go would build one (one connection per pool: client-go multiplexes
// every request of a client on one HTTP/2 connection).
func (c *credentials) httpClient() *http.Client {
	return &http.Client{Transport: proxyHeaders{newTransport(c.tls), c.user, c.groups}}
}

// newTransport is a new HTTP/2 connection pool with tlsConfig, the same for
// every path of a comparison.
func newTransport(tlsConfig *tls.Config) *http.Transport {
	return &http.Transport{
		TLSClientConfig:     tlsConfig.Clone(),
		ForceAttemptHTTP2:   true,
		MaxIdleConnsPerHost: 100,
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: 10 * time.Second,
	}
}

type proxyHeaders struct {
	rt     *http.Transport
	user   string
	groups []string
}

func (p proxyHeaders) RoundTrip(r *http.Request) (*http.Response, error) {
	r2 := *r
	r2.Header = r.Header.Clone()
	r2.Header.Set("X-Remote-User", p.user)
	for _, g := range p.groups {
		r2.Header.Add("X-Remote-Group", g)
	}
	return p.rt.RoundTrip(&r2)
}

func (p proxyHeaders) CloseIdleConnections() { p.rt.CloseIdleConnections() }

// closeIdle closes the idle connections of a client made by httpClient or by
// client-go.
func closeIdle(hc *http.Client) {
	if c, ok := hc.Transport.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
		return
	}
	hc.CloseIdleConnections()
}

// restConfig is the load generator's client-go config for k: JSON, no
// client-side rate limit.
func restConfig(cfg *rest.Config, k *kind) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.APIPath = "/apis"
	cfg.ContentConfig = rest.ContentConfig{
		GroupVersion:         &k.GV,
		NegotiatedSerializer: codecs.WithoutConversion(),
	}
	cfg.RateLimiter = flowcontrol.NewFakeAlwaysRateLimiter()
	cfg.UserAgent = "apigen-serverload"
	// sample-apiserver marks v1alpha1 deprecated: a Warning header on
	// every response, which client-go would log.
	cfg.WarningHandler = rest.NoWarnings{}
	return cfg
}

// restClient is a client-go REST client for k at host over hc.
// clients is a target's newClient: REST clients of kind k at host, each on
// connections of its own (newHC's), released by the func it returns with it.
func clients(host string, k *kind, newHC func() *http.Client) func() (*rest.RESTClient, func(), error) {
	return func() (*rest.RESTClient, func(), error) {
		hc := newHC()
		rc, err := restClient(host, hc, k)
		return rc, func() { closeIdle(hc) }, err
	}
}

// tlsHTTPClient makes HTTP clients on new connection pools with tlsConfig.
func tlsHTTPClient(tlsConfig *tls.Config) func() *http.Client {
	return func() *http.Client { return &http.Client{Transport: newTransport(tlsConfig)} }
}

func restClient(host string, hc *http.Client, k *kind) (*rest.RESTClient, error) {
	return rest.RESTClientForConfigAndClient(restConfig(&rest.Config{Host: host}, k), hc)
}
