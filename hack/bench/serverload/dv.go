package main

// The declarative validation comparison (-dv): one kind with one rule set,
// written two ways, served by two generated servers side by side on the same
// etcd and kube-apiserver, each reached directly as in the sample-apiserver
// comparison (system:masters through the front-proxy headers: no
// SubjectAccessReviews, so the CPU is the server's own):
//
//   - k8s: testdata/dv/k8s, the rules as +k8s: tags, run typed by the
//     validation-gen functions apigen generates (server.DeclarativeValidation);
//   - markers: testdata/dv/markers, the same rules as kubebuilder markers,
//     enforced through the schema (server.SchemaValidation: the object turned
//     into unstructured JSON and checked by kube-apiserver's CRD validation).
//
// testdata/gizmo's CEL rule has no +k8s: form and is in neither. Each side is
// its own group (same length), so each keeps its objects under its own etcd
// prefix. Only the writes and get (the control: no validation) are run.

import (
	"log"
	"path/filepath"
)

const (
	dvK8sGroup     = "k8s.bench.example.com"
	dvMarkersGroup = "markers.bench.example.com"
)

// dvServers generates and builds the two servers of the comparison in dir,
// with an apigen built from root; the +k8s: side first, so that ratios read
// k8s / markers.
func dvServers(root, dir string, descriptionBytes int) ([]server, error) {
	log.Printf("building apigen and the two gizmo projects (testdata/dv) ...")
	apigen, err := buildApigen(root, dir)
	if err != nil {
		return nil, err
	}
	var servers []server
	for _, side := range []struct{ name, group string }{{"k8s", dvK8sGroup}, {"markers", dvMarkersGroup}} {
		proj := filepath.Join(dir, "dv-"+side.name)
		if err := generateProject(apigen, filepath.Join(root, "hack", "bench", "serverload", "testdata", "dv", side.name), proj); err != nil {
			return nil, err
		}
		bin, err := buildServer(proj, dir, "dv-"+side.name+"-apiserver")
		if err != nil {
			return nil, err
		}
		k := gizmoKind(side.group, descriptionBytes)
		register(k)
		servers = append(servers, server{Name: side.name, Bin: bin, Kind: k})
	}
	return servers, nil
}
