package main

// The CRD comparison (-crd): one kind, testdata/gizmo's Gizmo (kubebuilder
// validation and a CEL rule), served three ways at once on one etcd and one
// kube-apiserver:
//
//   - crd: a CustomResourceDefinition that bin/controller-gen makes of the Go
//     types, installed into kube-apiserver, under group crd.bench.example.com
//     (the CRD's group is rewritten, nothing else, so both can be registered);
//   - aggregated: the server apigen generates from the same types, in cluster
//     mode as deployed (its ServiceAccount's token and generated RBAC,
//     delegated authentication and authorization), registered under
//     bench.example.com with an APIService, reached through kube-apiserver;
//   - direct: that same server process reached directly, authenticated as
//     kube-apiserver's front proxy for the same user (its CPU per request
//     counts kube-apiserver's too: the SubjectAccessReviews it answers).
//
// The workload's user is an ordinary one (bench, group bench-users, with a
// ClusterRole on both groups), not system:masters: kube-apiserver authorizes
// it with RBAC, and the generated server with SubjectAccessReviews to
// kube-apiserver, as for any user of a deployed server.

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/apigen-dev/apigen/test/cluster"
)

const (
	gizmoGroup     = "bench.example.com"
	crdGroup       = "crd." + gizmoGroup
	gizmoNamespace = "gizmo-system"    // +apigen:deploy's defaults for
	gizmoService   = "gizmo-apiserver" // a project named gizmo
	benchUser      = "bench"
	benchGroup     = "bench-users"
)

// crdSides are the three paths, in the order of the first round.
var crdSides = []string{"crd", "aggregated", "direct"}

// crdBench is the running comparison.
type crdBench struct {
	*bench
	kubectl   string
	server    *cluster.Process
	serverURL string
	targets   map[string]*target

	// With -storage-media-type: the second server, storing in that media
	// type, and its side's name.
	media     *cluster.Process
	mediaURL  string
	mediaSide string
}

// mediaSide names the side of the server started with
// --storage-media-type=mediaType: direct-cbor for application/cbor.
func mediaSide(mediaType string) string {
	sub := mediaType[strings.LastIndex(mediaType, "/")+1:]
	return "direct-" + strings.NewReplacer(".", "-", "+", "-").Replace(sub)
}

// mediaProc names a mediaSide's server process in the CPU and memory tables:
// apigen-cbor for direct-cbor.
func mediaProc(side string) string { return "apigen-" + strings.TrimPrefix(side, "direct-") }

func runCRD(ctx context.Context, o *options, root, dir string) error {
	log.Printf("building etcd, kube-apiserver, controller-gen, kubectl (hack/tools/build.sh), apigen, and the gizmo project ...")
	bins, err := cluster.Build(root)
	if err != nil {
		return err
	}
	controllerGen, err := buildTool(root, "controller-gen")
	if err != nil {
		return err
	}
	kubectl, err := buildTool(root, "kubectl")
	if err != nil {
		return err
	}
	proj, serverBin, crdFile, err := gizmoProject(root, dir, controllerGen)
	if err != nil {
		return err
	}

	c := &crdBench{bench: &bench{dir: dir}, kubectl: kubectl, targets: map[string]*target{}}
	if c.etcd, err = cluster.StartEtcd(bins.Etcd, filepath.Join(dir, "etcd"), 1); err != nil {
		return err
	}
	defer c.etcd.Stop()
	if c.kas, err = cluster.StartKubeAPIServer(bins.KubeAPIServer, filepath.Join(dir, "kube-apiserver"), c.etcd, "--profiling=true"); err != nil {
		return err
	}
	defer c.kas.Stop()

	pki := filepath.Join(dir, "pki")
	if err := os.MkdirAll(pki, 0o700); err != nil {
		return err
	}
	servingCA, err := cluster.NewCA(pki, "serving-ca", "serverload-serving-ca")
	if err != nil {
		return err
	}
	// kube-apiserver dials <service>.<namespace>.svc for the APIService.
	if c.serving, err = servingCA.Issue(pki, "serving", cluster.CertOptions{
		CommonName: "localhost", Server: true,
		DNSNames: []string{"localhost", gizmoService + "." + gizmoNamespace + ".svc"}, IPs: []net.IP{net.IPv4(127, 0, 0, 1)},
	}); err != nil {
		return err
	}
	proxy, err := c.kas.FrontProxyCA.Issue(pki, "proxy-client", cluster.CertOptions{CommonName: cluster.FrontProxyClientName})
	if err != nil {
		return err
	}
	// The user a direct request names is the one kube-apiserver's proxy
	// would name: the user, its groups and system:authenticated.
	if c.cred, err = newCredentials(servingCA, proxy, benchUser, benchGroup, "system:authenticated"); err != nil {
		return err
	}

	// The CRD, the server's generated namespace, ServiceAccount and RBAC, and
	// the workload's user's role on both groups.
	crdYAML, err := os.ReadFile(crdFile)
	if err != nil {
		return err
	}
	if crdYAML, err = renameCRDGroup(crdYAML, gizmoGroup, crdGroup); err != nil {
		return err
	}
	if err := c.apply(string(crdYAML)); err != nil {
		return err
	}
	for _, f := range []string{"namespace.yaml", "serviceaccount.yaml", "rbac.yaml"} {
		if _, err := c.run("", "apply", "-f", filepath.Join(proj, "config", "generated", f)); err != nil {
			return err
		}
	}
	if err := c.apply(benchRBAC); err != nil {
		return err
	}
	if _, err := c.run("", "wait", "--for=condition=Established", "--timeout=60s", "crd/gizmos."+crdGroup); err != nil {
		return err
	}
	token, err := c.run("", "create", "token", gizmoService, "-n", gizmoNamespace, "--duration=24h")
	if err != nil {
		return err
	}
	saKubeconfig, err := c.kas.TokenKubeconfig(gizmoService, strings.TrimSpace(token))
	if err != nil {
		return err
	}

	// The generated server, as its Deployment runs it, and its APIService.
	port, err := cluster.FreePort()
	if err != nil {
		return err
	}
	c.serverURL = "https://127.0.0.1:" + strconv.Itoa(port)
	c.server, err = cluster.Start(filepath.Join(dir, "gizmo-apiserver.log"), serverBin, c.clusterArgs(port, saKubeconfig)...)
	if err != nil {
		return err
	}
	defer c.server.Stop(20 * time.Second)
	adminHC := c.cred.as("serverload-admin", "system:masters").httpClient()
	if err := waitReady(ctx, adminHC, c.serverURL, c.server.Done()); err != nil {
		return fmt.Errorf("the generated server is not ready: %w\n%s", err, c.server.Describe())
	}
	if err := c.apply(apiService(port, servingCA.CertPEM)); err != nil {
		return err
	}
	if _, err := c.run("", "wait", "--for=condition=Available", "--timeout=90s", "apiservice/v1."+gizmoGroup); err != nil {
		return fmt.Errorf("%w\n%s", err, c.server.Describe())
	}

	// The sides of the rounds, the stores to fill for the lists, and the
	// sides whose objects the memory phase measures.
	sides, stores, memSides := crdSides, []string{"crd", "direct"}, []string{"crd", "aggregated"}
	if o.storageMediaType != "" {
		// The same server storing in another media type, in the same etcd
		// under another prefix, reached directly only (one APIService per
		// group): JSON against that media type, on one etcd and one
		// kube-apiserver answering both servers' SubjectAccessReviews.
		c.mediaSide = mediaSide(o.storageMediaType)
		port, err := cluster.FreePort()
		if err != nil {
			return err
		}
		c.mediaURL = "https://127.0.0.1:" + strconv.Itoa(port)
		args := append(c.clusterArgs(port, saKubeconfig), "--storage-media-type="+o.storageMediaType, "--etcd-prefix=/registry-"+strings.TrimPrefix(c.mediaSide, "direct-"))
		c.media, err = cluster.Start(filepath.Join(dir, "gizmo-apiserver-"+c.mediaSide+".log"), serverBin, args...)
		if err != nil {
			return err
		}
		defer c.media.Stop(20 * time.Second)
		if err := waitReady(ctx, adminHC, c.mediaURL, c.media.Done()); err != nil {
			return fmt.Errorf("the generated server with --storage-media-type=%s is not ready: %w\n%s", o.storageMediaType, err, c.media.Describe())
		}
		sides = []string{"direct", c.mediaSide}
		stores, memSides = sides, sides
	}

	if err := c.makeTargets(o.DescriptionBytes); err != nil {
		return err
	}
	namespaces := []string{"warm", listNamespace(o.ListSmall), listNamespace(o.ListLarge)}
	for _, side := range memSides {
		namespaces = append(namespaces, memNamespace(side))
	}
	for r := 0; r <= o.rounds; r++ {
		for _, side := range sides {
			namespaces = append(namespaces, roundNamespaces(side, r)...)
		}
	}
	if err := createNamespaces(ctx, c.kas, namespaces); err != nil {
		return err
	}

	// Two stores: the CRD's and the generated server's (aggregated and
	// direct read the same objects), or the two generated servers'. Filled
	// once, untimed, directly.
	for _, side := range stores {
		t := c.targets[side]
		log.Printf("%s: preparing %s and %s (%d workers)", side, listNamespace(o.ListSmall), listNamespace(o.ListLarge), o.prepareWorkers)
		start := time.Now()
		if err := fillListNamespaces(ctx, t, o); err != nil {
			return fmt.Errorf("%s: preparing: %w", side, err)
		}
		log.Printf("%s: prepared in %v", side, time.Since(start).Round(time.Second))
	}

	if o.pprofDir != "" {
		if err := os.MkdirAll(o.pprofDir, 0o755); err != nil {
			return err
		}
		cfg := o.config
		cfg.Creates, cfg.Gets, cfg.Updates = 0, 0, 0
		cfg.Patches, cfg.Applies = unbounded(cfg.Patches), unbounded(cfg.Applies)
		cfg.ListSmallN, cfg.ListLargeN, cfg.WatchEvents, cfg.WatchPacedEvents = 0, 0, 0, 0
		// Without a count bound, every write op needs objects: create runs
		// first, bounded by time only.
		cfg.PhaseTimeout = time.Duration(o.pprofSeconds) * time.Second
		for i, side := range sides {
			t := c.targets[side]
			if err := warmUp(ctx, t, i+1, cfg); err != nil {
				return fmt.Errorf("%s: %w", side, err)
			}
			if err := profileOps(ctx, o, t, cfg, i+1); err != nil {
				return fmt.Errorf("%s: %w", side, err)
			}
		}
		return nil
	}

	// Memory first, on processes that have served nothing but the list
	// preparation: after the rounds, shrinking watch-cache event windows and
	// expiring caches hide the objects' share (measured after the rounds, the
	// generated server grew by 2.6 and by -0.2 MiB per 1000 objects in two
	// runs; on fresh processes by 4.3).
	mem, err := c.memory(ctx, o, memSides)
	if err != nil {
		return err
	}

	// Every process stays up; each operation runs on each side in turn, the
	// order rotating between rounds, so that each side goes first as often.
	var results []*runResult
	ops := operations(o.config)
	for round := 1; round <= o.rounds; round++ {
		var order []string
		for i := range sides {
			order = append(order, sides[(i+round-1)%len(sides)])
		}
		var rs []*runResult
		var sessions []*session
		for i, side := range order {
			if err := warmUp(ctx, c.targets[side], round, o.config); err != nil {
				return fmt.Errorf("round %d: %s: %w", round, side, err)
			}
			rs = append(rs, &runResult{Server: side, Round: round, First: i == 0})
			sessions = append(sessions, newSession(c.targets[side], o.config, round))
		}
		for _, op := range ops {
			for i, side := range order {
				load := load1()
				p, err := op.measure(ctx, sessions[i], nil)
				if err != nil {
					return fmt.Errorf("round %d: %s %s: %w", round, side, op.Name, err)
				}
				p.Load = load
				rs[i].Phases = append(rs[i].Phases, p)
			}
		}
		for _, rr := range rs {
			log.Printf("round %d/%d %s: %s", round, o.rounds, rr.Server, brief(rr))
		}
		results = append(results, rs...)
	}

	summary := reportCRD(o, results, mem)
	if c.media != nil {
		summary = reportStorageMediaType(o, c.mediaSide, results, mem)
	}
	fmt.Print(summary)
	return writeResults(o, summary, struct {
		Rounds []*runResult
		Memory []memGrowth
	}{results, mem})
}

// gizmoProject makes the apigen project of testdata/gizmo in dir/gizmo (apigen
// init and generate, by an apigen built from root), builds its server, and
// makes the CRD of the same types with controller-gen. It returns the
// project, the server binary and the CRD's file.
func gizmoProject(root, dir, controllerGen string) (proj, bin, crd string, err error) {
	apigen, err := buildApigen(root, dir)
	if err != nil {
		return "", "", "", err
	}
	proj = filepath.Join(dir, "gizmo")
	if err := generateProject(apigen, filepath.Join(root, "hack", "bench", "serverload", "testdata", "gizmo"), proj); err != nil {
		return "", "", "", err
	}
	crds := filepath.Join(dir, "crds")
	env := goEnv()
	if err := command(proj, env, controllerGen, "crd", "paths=./pkg/apis/...", "output:crd:dir="+crds); err != nil {
		return "", "", "", err
	}
	bin, err = buildServer(proj, dir, "gizmo-apiserver")
	if err != nil {
		return "", "", "", err
	}
	return proj, bin, filepath.Join(crds, gizmoGroup+"_gizmos.yaml"), nil
}

// buildApigen builds apigen from root into dir.
func buildApigen(root, dir string) (string, error) {
	apigen := filepath.Join(dir, "apigen")
	return apigen, command(root, nil, "go", "build", "-o", apigen, "./cmd/apigen")
}

// generateProject makes an apigen project named gizmo in proj of the API
// packages under src (apigen init, a copy of src, apigen generate).
func generateProject(apigen, src, proj string) error {
	if err := os.MkdirAll(proj, 0o755); err != nil {
		return err
	}
	env := goEnv()
	if err := command(proj, env, apigen, "init", "--repo", "example.com/gizmo", "--domain", "example.com"); err != nil {
		return err
	}
	if err := copyProject(src, proj); err != nil {
		return err
	}
	return command(proj, env, apigen, "generate")
}

func command(dir string, env []string, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s (in %s): %v\n%s", filepath.Base(name), strings.Join(args, " "), dir, err, out)
	}
	return nil
}

// renameCRDGroup moves a CRD from group from to group to: its spec.group and
// its name; the schema is untouched.
func renameCRDGroup(data []byte, from, to string) ([]byte, error) {
	var crd map[string]any
	if err := yaml.Unmarshal(data, &crd); err != nil {
		return nil, err
	}
	meta, _ := crd["metadata"].(map[string]any)
	spec, _ := crd["spec"].(map[string]any)
	if meta == nil || spec == nil || spec["group"] != from {
		return nil, fmt.Errorf("not a CRD of group %s", from)
	}
	spec["group"] = to
	meta["name"] = strings.TrimSuffix(meta["name"].(string), from) + to
	return yaml.Marshal(crd)
}

// benchRBAC lets the workload's user do everything to gizmos of both groups.
var benchRBAC = fmt.Sprintf(`apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: serverload-gizmos
rules:
- apiGroups: [%[1]q, %[2]q]
  resources: [gizmos, gizmos/status]
  verbs: ["*"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: serverload-gizmos
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: serverload-gizmos}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: Group, name: %[3]q}
`, gizmoGroup, crdGroup, benchGroup)

// apiService is the generated APIService with its caBundle, behind a Service
// of type ExternalName for 127.0.0.1 on the server's port (the test overlay
// of docs/design.md: loopback endpoints are refused).
func apiService(port int, caPEM []byte) string {
	return externalNameService(gizmoNamespace, gizmoService, port) + "---\n" +
		apiServiceManifest(gizmoGroup, "v1", gizmoNamespace, gizmoService, port, caPEM)
}

// externalNameService is the Service namespace/name of type ExternalName for
// 127.0.0.1 on port.
func externalNameService(namespace, name string, port int) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Service
metadata: {name: %[2]s, namespace: %[1]s}
spec: {type: ExternalName, externalName: 127.0.0.1, ports: [{name: https, port: %[3]d, protocol: TCP}]}
`, namespace, name, port)
}

// apiServiceManifest is the APIService of group/version that names the
// Service namespace/service on port, with the caBundle caPEM.
func apiServiceManifest(group, version, namespace, service string, port int, caPEM []byte) string {
	return fmt.Sprintf(`apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: %[2]s.%[1]s}
spec:
  group: %[1]s
  version: %[2]s
  service: {namespace: %[3]s, name: %[4]s, port: %[5]d}
  caBundle: %[6]s
  groupPriorityMinimum: 1000
  versionPriority: 100
`, group, version, namespace, service, port, base64.StdEncoding.EncodeToString(caPEM))
}

// run runs kubectl as kube-apiserver's admin with stdin; it returns stdout.
func (c *crdBench) run(stdin string, args ...string) (string, error) {
	cmd := exec.Command(c.kubectl, append([]string{"--kubeconfig=" + c.kas.AdminKubeconfig}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("kubectl %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String(), nil
}

func (c *crdBench) apply(manifest string) error {
	_, err := c.run(manifest, "apply", "-f", "-")
	return err
}

// makeTargets builds the three paths. Through kube-apiserver the workload
// authenticates with a client certificate of the bench user; every client,
// there and direct, is the same HTTP/2 transport.
func (c *crdBench) makeTargets(descriptionBytes int) error {
	crdK, genK := gizmoKind(crdGroup, descriptionBytes), gizmoKind(gizmoGroup, descriptionBytes)
	register(crdK)
	register(genK)

	user, err := c.kas.ClientCA.Issue(c.kas.Dir, "user-"+benchUser, cluster.CertOptions{CommonName: benchUser, Groups: []string{benchGroup}})
	if err != nil {
		return err
	}
	cert, err := tls.X509KeyPair(user.CertPEM, user.KeyPEM)
	if err != nil {
		return err
	}
	pool := x509.NewCertPool()
	pool.AddCert(c.kas.ServingCA.Cert)
	userTLS := &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}

	adminCfg, err := c.kas.AdminConfig()
	if err != nil {
		return err
	}
	adminHC, err := rest.HTTPClientFor(adminCfg)
	if err != nil {
		return err
	}
	kasProc := &proc{Name: "kube-apiserver", Pid: c.kas.Process.Pid(), URL: c.kas.URL, HC: adminHC}
	direct, err := directTarget("direct", c.serverURL, c.cred, genK, c.server.Pid())
	if err != nil {
		return err
	}
	direct.procs[0].Name, direct.prefix = "apigen", "direct"
	apigenProc := direct.procs[0]
	// The SubjectAccessReviews the server sends are the direct path's cost
	// in kube-apiserver.
	direct.procs = append(direct.procs, kasProc)
	c.targets["direct"] = direct

	if c.media != nil {
		t, err := directTarget(c.mediaSide, c.mediaURL, c.cred, genK, c.media.Pid())
		if err != nil {
			return err
		}
		t.procs[0].Name, t.prefix = mediaProc(c.mediaSide), c.mediaSide
		t.procs = append(t.procs, kasProc)
		c.targets[c.mediaSide] = t
	}

	through := func(name string, k *kind, procs ...*proc) error {
		newClient := clients(c.kas.URL, k, tlsHTTPClient(userTLS))
		rc, _, err := newClient()
		if err != nil {
			return err
		}
		c.targets[name] = &target{name: name, k: k, rc: rc, newClient: newClient, procs: procs, prefix: name}
		return nil
	}
	if err := through("crd", crdK, kasProc); err != nil {
		return err
	}
	return through("aggregated", genK, kasProc, apigenProc)
}

func memNamespace(side string) string { return "mem-" + side }

// memGrowth is what creating Objects objects through one side added to each
// process: the live heap (after a forced garbage collection) and the RSS.
type memGrowth struct {
	Side    string
	Objects int
	Heap    map[string]int64
	RSS     map[string]int64
}

// memory creates -mem-objects objects of each store (the CRD's, then the
// generated server's, through kube-apiserver; or through each of sides) in an
// empty namespace and measures what each process grew by: the live heap after
// a forced garbage collection, and the RSS.
func (c *crdBench) memory(ctx context.Context, o *options, sides []string) ([]memGrowth, error) {
	if o.MemObjects <= 0 {
		return nil, nil
	}
	var procs []*proc
	for _, side := range sides {
		for _, p := range c.targets[side].procs {
			if !slices.ContainsFunc(procs, func(q *proc) bool { return q.Name == p.Name }) {
				procs = append(procs, p)
			}
		}
	}
	sample := func() (map[string]int64, map[string]int64, error) {
		heap, rss := map[string]int64{}, map[string]int64{}
		for _, p := range procs {
			// Twice: the first collection's finalizers free more.
			h, err := liveHeap(ctx, p)
			if err == nil {
				h, err = liveHeap(ctx, p)
			}
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", p.Name, err)
			}
			m, err := readMemory(p.Pid)
			if err != nil {
				return nil, nil, err
			}
			heap[p.Name], rss[p.Name] = h, m.RSS
		}
		return heap, rss, nil
	}
	// With -heap-profiles, each process's live heap before and after each side's objects:
	// go tool pprof -base <side>-<process>-before.pb.gz <side>-<process>-after.pb.gz.
	profiles := func(side, when string) error {
		if o.heapProfiles == "" {
			return nil
		}
		if err := os.MkdirAll(o.heapProfiles, 0o755); err != nil {
			return err
		}
		for _, p := range procs {
			// Right after a garbage collection: the live heap.
			if err := fetchProfile(ctx, p, "heap?gc=1", filepath.Join(o.heapProfiles, side+"-"+p.Name+"-"+when+".pb.gz")); err != nil {
				return err
			}
		}
		return nil
	}
	var out []memGrowth
	for _, side := range sides {
		h0, r0, err := sample()
		if err != nil {
			return nil, err
		}
		if err := profiles(side, "before"); err != nil {
			return nil, err
		}
		if err := ensureObjects(ctx, c.targets[side], memNamespace(side), o.MemObjects, o.Workers); err != nil {
			return nil, fmt.Errorf("memory, %s: %w", side, err)
		}
		time.Sleep(2 * time.Second) // the watch caches catch up
		h1, r1, err := sample()
		if err != nil {
			return nil, err
		}
		if err := profiles(side, "after"); err != nil {
			return nil, err
		}
		g := memGrowth{Side: side, Objects: o.MemObjects, Heap: map[string]int64{}, RSS: map[string]int64{}}
		for name := range h0 {
			g.Heap[name], g.RSS[name] = h1[name]-h0[name], r1[name]-r0[name]
		}
		log.Printf("memory, %d objects through %s: heap %v, RSS %v", o.MemObjects, side, g.Heap, g.RSS)
		out = append(out, g)
	}
	return out, nil
}

// liveHeap is the process's heap in use right after a garbage collection
// (GET /debug/pprof/heap?gc=1, the runtime.MemStats it prints).
func liveHeap(ctx context.Context, p *proc) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.URL+"/debug/pprof/heap?gc=1&debug=1", nil)
	if err != nil {
		return 0, err
	}
	resp, err := p.HC.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("/debug/pprof/heap: %s", resp.Status)
	}
	for line := range strings.Lines(string(body)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "# HeapAlloc = "); ok {
			return strconv.ParseInt(v, 10, 64)
		}
	}
	return 0, fmt.Errorf("/debug/pprof/heap: no HeapAlloc")
}
