package cluster

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// What a kube-apiserver started with --enable-aggregator-routing=true needs to pick a
// replica per request as it does in a cluster: the replicas listed in the EndpointSlices of
// the APIService's Service, and, to tell which replica served a request, the Audit-ID header
// each request names itself with and each replica's audit log.

// ErrNoHostAddress: the machine has no IPv4 address an EndpointSlice accepts.
var ErrNoHostAddress = errors.New("no IPv4 address outside the loopback and link-local ranges")

// HostAddress is an IPv4 address of this machine outside the loopback and link-local
// ranges, which an EndpointSlice refuses.
func HostAddress() (string, error) {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return "", err
	}
	for _, addr := range addrs {
		if n, ok := addr.(*net.IPNet); ok {
			if ip := n.IP.To4(); ip != nil && !ip.IsLoopback() && !ip.IsLinkLocalUnicast() {
				return ip.String(), nil
			}
		}
	}
	return "", ErrNoHostAddress
}

// Route lists a replica at ip:port in an EndpointSlice of the Service namespace/service,
// ready, named name, as the EndpointSlice controller lists a ready Pod.
func Route(ctx context.Context, cs kubernetes.Interface, namespace, service, name, ip string, port int) error {
	portName, proto, p := "https", corev1.ProtocolTCP, int32(port)
	ready := true
	slice := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: namespace,
			Labels: map[string]string{discoveryv1.LabelServiceName: service},
		},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: &portName, Port: &p, Protocol: &proto}},
		Endpoints: []discoveryv1.Endpoint{{
			Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: &ready},
		}},
	}
	_, err := cs.DiscoveryV1().EndpointSlices(namespace).Create(ctx, slice, metav1.CreateOptions{})
	return err
}

// AuditPolicy records the creates and watches of resource in group (a watch when its
// response starts), in namespaces when given (all otherwise), and nothing else.
func AuditPolicy(group, resource string, namespaces ...string) string {
	ns := ""
	if len(namespaces) > 0 {
		ns = fmt.Sprintf("\n  namespaces: [%s]", strings.Join(namespaces, ", "))
	}
	return fmt.Sprintf(`apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
  verbs: [create, watch]
  resources: [{group: %s, resources: [%s]}]%s
- level: None
`, group, resource, ns)
}

type auditIDKey struct{}

// WithAuditID makes the requests made with ctx through an AuditIDTransport name themselves id.
func WithAuditID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, auditIDKey{}, id)
}

// AuditIDTransport sets the Audit-ID header of a request whose context carries one
// (WithAuditID). kube-apiserver keeps the ID and passes it on to the server it proxies to,
// whose audit log then names it.
type AuditIDTransport struct{ RT http.RoundTripper }

func (a AuditIDTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if id, ok := req.Context().Value(auditIDKey{}).(string); ok {
		req = req.Clone(req.Context())
		req.Header.Set("Audit-ID", id)
	}
	return a.RT.RoundTrip(req)
}

// CloseIdleConnections closes the idle connections of the transport underneath.
func (a AuditIDTransport) CloseIdleConnections() {
	if c, ok := a.RT.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// AuditIDs are the IDs of the events in the audit log at path (none while it does not
// exist).
func AuditIDs(path string) ([]string, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var ids []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var ev struct {
			AuditID string `json:"auditID"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.AuditID != "" {
			ids = append(ids, ev.AuditID)
		}
	}
	return ids, sc.Err()
}
