package main

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"

	"github.com/apigen-dev/apigen/test/cluster"
)

// The wardle API as both servers serve it. The load generator has its own
// copy of the v1alpha1 Flunder wire format (the root module can import
// neither examples/wardle nor sample-apiserver): only what the workload sets
// and reads. Status is kept as raw JSON, since the two servers' status types
// differ (apigen's has conditions, sample-apiserver's is empty) and neither
// lets a main-resource update change it.
var wardleGV = schema.GroupVersion{Group: "wardle.example.com", Version: "v1alpha1"}

type flunder struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              flunderSpec     `json:"spec,omitempty"`
	Status            json.RawMessage `json:"status,omitempty"`
}

type flunderSpec struct {
	Reference     string  `json:"reference,omitempty"`
	ReferenceType *string `json:"referenceType,omitempty"`
}

type flunderList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []flunder `json:"items"`
}

func (f *flunder) DeepCopyObject() runtime.Object {
	c := *f
	f.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	if f.Spec.ReferenceType != nil {
		t := *f.Spec.ReferenceType
		c.Spec.ReferenceType = &t
	}
	c.Status = append(json.RawMessage(nil), f.Status...)
	return &c
}

func (l *flunderList) DeepCopyObject() runtime.Object {
	c := *l
	l.ListMeta.DeepCopyInto(&c.ListMeta)
	c.Items = make([]flunder, len(l.Items))
	for i := range l.Items {
		c.Items[i] = *l.Items[i].DeepCopyObject().(*flunder)
	}
	return &c
}

var (
	scheme         = runtime.NewScheme()
	codecs         = serializer.NewCodecFactory(scheme)
	parameterCodec = runtime.NewParameterCodec(scheme)
)

func init() {
	scheme.AddKnownTypeWithName(wardleGV.WithKind("Flunder"), &flunder{})
	scheme.AddKnownTypeWithName(wardleGV.WithKind("FlunderList"), &flunderList{})
	metav1.AddToGroupVersion(scheme, wardleGV)
}

// newFlunder is the object every create sends: valid for both servers (a
// reference to another name; both default referenceType to Flunder), two
// labels, no status.
func newFlunder(ns, name string, i int) *flunder {
	return &flunder{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: ns,
			Labels: map[string]string{"app.kubernetes.io/name": "serverload", "serverload/index": fmt.Sprint(i)},
		},
		Spec: flunderSpec{Reference: fmt.Sprintf("ref-%d", i)},
	}
}

// credentials is how the load generator authenticates to both servers: as
// kube-apiserver's front proxy does when it forwards a request to an
// aggregated server. The client certificate is issued by the front-proxy
// (request-header) CA with the one allowed common name, and the user and group
// travel in X-Remote-User / X-Remote-Group. The group is system:masters, which
// the delegating authorizer of k8s.io/apiserver allows without a
// SubjectAccessReview: both servers authenticate and authorize every request
// the same way, locally, without calling kube-apiserver.
type credentials struct {
	tls *tls.Config
}

func newCredentials(servingCA *cluster.CA, proxy *cluster.Pair) (*credentials, error) {
	cert, err := tls.X509KeyPair(proxy.CertPEM, proxy.KeyPEM)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(servingCA.Cert)
	return &credentials{tls: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}}, nil
}

// httpClient is a new HTTP/2 connection pool with the front-proxy headers, as
// client-go would build one (one connection per pool: client-go multiplexes
// every request of a client on one HTTP/2 connection).
func (c *credentials) httpClient() *http.Client {
	tr := &http.Transport{
		TLSClientConfig:     c.tls.Clone(),
		ForceAttemptHTTP2:   true,
		MaxIdleConnsPerHost: 100,
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: 10 * time.Second,
	}
	return &http.Client{Transport: proxyHeaders{tr}}
}

type proxyHeaders struct{ rt *http.Transport }

func (p proxyHeaders) RoundTrip(r *http.Request) (*http.Response, error) {
	r2 := *r
	r2.Header = r.Header.Clone()
	r2.Header.Set("X-Remote-User", "bench")
	r2.Header.Set("X-Remote-Group", "system:masters")
	return p.rt.RoundTrip(&r2)
}

func closeIdle(hc *http.Client) { hc.Transport.(proxyHeaders).rt.CloseIdleConnections() }

// restClient is a client-go REST client for wardle.example.com/v1alpha1 at
// host over hc, JSON, without client-side rate limiting.
func restClient(host string, hc *http.Client) (*rest.RESTClient, error) {
	cfg := &rest.Config{
		Host:    host,
		APIPath: "/apis",
		ContentConfig: rest.ContentConfig{
			GroupVersion:         &wardleGV,
			NegotiatedSerializer: codecs.WithoutConversion(),
		},
		RateLimiter: flowcontrol.NewFakeAlwaysRateLimiter(),
		UserAgent:   "apigen-serverload",
		// sample-apiserver marks v1alpha1 deprecated: a Warning header on
		// every response, which client-go would log.
		WarningHandler: rest.NoWarnings{},
	}
	return rest.RESTClientForConfigAndClient(cfg, hc)
}
