package e2e

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/apigen-dev/apigen/test/cluster"
)

// etcdGuide is the page that shows users the external-etcd overlay and the restore procedure
// this test applies as written.
const etcdGuide = "docs/guides/etcd.md"

// externalEtcdOverlay is config/default with the external-etcd component as the etcd guide's
// (docs/guides/etcd.md) "An etcd you already run" shows it: its components and the ConfigMap of
// its two inputs.
func externalEtcdOverlay(t *testing.T, guide string) string {
	t.Helper()
	const start = "```yaml\ncomponents:\n"
	from := strings.Index(guide, start)
	to := strings.Index(guide[max(from, 0)+len(start):], "```")
	if from < 0 || to < 0 || !strings.Contains(guide[from:from+len(start)+to], "external-etcd") {
		t.Fatalf("%s shows no config/default with the external-etcd component (a block starting %q)", etcdGuide, start)
	}
	return "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- ../generated\n" +
		guide[from+len("```yaml\n"):from+len(start)+to]
}

// TestBundledEtcd proves the etcd that config/default deploys with the server, where it can
// run without a kubelet: every document of config/default, with the bundled etcd and with
// the external-etcd component instead, passes a real kube-apiserver's validation and
// admission (restricted Pod Security included); then the generated StatefulSet's etcd
// container runs as three local members, and the Deployment's server container against
// them, with exactly the arguments and the certificates (the certs command's Secrets) the
// manifests declare.
func TestBundledEtcd(t *testing.T) {
	tc := tools(t)
	bins, err := controlPlane()
	if err != nil {
		t.Fatal(err)
	}
	etcdctl, etcdutl := etcdTool(t, tc.root, "etcdctl"), etcdTool(t, tc.root, "etcdutl")
	work := t.TempDir()
	proj := filepath.Join(work, "wardle")
	copyTree(t, filepath.Join(tc.root, "examples", "wardle"), proj)
	serverBin := wardleServer(t, tc)
	mustSucceed(t, runCmd(cmdOpts{Dir: proj}, serverBin, "certs"))

	// kube-apiserver, on an etcd of its own, validates the manifests and is the server's
	// delegated authenticator and authorizer.
	kasEtcd, err := cluster.StartEtcd(bins.Etcd, filepath.Join(work, "kas-etcd"), 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(kasEtcd.Stop)
	kas, err := cluster.StartKubeAPIServer(bins.KubeAPIServer, filepath.Join(work, "kas"), kasEtcd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(kas.Stop)
	admin := &kubectl{bin: tc.kubectl, kubeconfig: kas.AdminKubeconfig, cacheDir: filepath.Join(work, "kube-cache")}

	bundledYAML := admin.ok(t, "kustomize", filepath.Join(proj, "config", "default"))
	guide := readFile(t, filepath.Join(tc.root, etcdGuide))
	external := externalEtcdOverlay(t, guide)
	writeFile(t, filepath.Join(proj, "config", "external", "kustomization.yaml"), external)
	externalYAML := admin.ok(t, "kustomize", filepath.Join(proj, "config", "external"))
	bundled := parseManifests(t, bundledYAML)

	t.Run("config/default passes kube-apiserver's validation and admission", func(t *testing.T) {
		// The Namespace for real, so that Pod Security admission reads its labels.
		admin.okStdin(t, toYAML(t, bundled.of("Namespace")[0]), "apply", "-f", "-")
		dryRun(t, admin, bundledYAML, len(bundled.objs))

		// The control: without its container's securityContext, the same StatefulSet draws
		// Pod Security's warning, so the silence above means something.
		sts := runtime.DeepCopyJSON(bundled.of("StatefulSet")[0])
		containers, _, _ := unstructured.NestedSlice(sts, "spec", "template", "spec", "containers")
		delete(containers[0].(map[string]any), "securityContext")
		if err := unstructured.SetNestedSlice(sts, containers, "spec", "template", "spec", "containers"); err != nil {
			t.Fatal(err)
		}
		if r := admin.run(toYAML(t, sts), "apply", "--dry-run=server", "-f", "-"); !strings.Contains(r.Stderr, "PodSecurity") {
			t.Errorf("a StatefulSet without securityContext drew no Pod Security warning, so the check above cannot fail:\n%s", r)
		}
	})
	t.Run("the external-etcd component removes the bundled etcd and passes too", func(t *testing.T) {
		ext := parseManifests(t, externalYAML)
		for _, obj := range ext.objs {
			if obj.GetLabels()["app.kubernetes.io/instance"] == bundled.statefulSet(t).Name || obj.GetKind() == "ConfigMap" {
				t.Errorf("with external-etcd, config/default still has %s %s", obj.GetKind(), obj.GetName())
			}
		}
		if kinds := ext.kinds(); kinds["StatefulSet"]+kinds["CronJob"]+kinds["NetworkPolicy"]+kinds["PersistentVolumeClaim"] != 0 || kinds["Secret"] != 1 {
			t.Errorf("with external-etcd: %v; want no StatefulSet, CronJob, NetworkPolicy or claim, and only the serving Secret", kinds)
		}
		pod := ext.deployment(t).Spec.Template.Spec
		if env := pod.Containers[0].Env; len(env) != 1 || env[0].Value != "https://etcd-a.example.com:2379,https://etcd-b.example.com:2379" {
			t.Errorf("with external-etcd, the Deployment's env is %+v; want ETCD_SERVERS from the input", env)
		}
		if !slices.ContainsFunc(pod.Volumes, func(v corev1.Volume) bool { return v.Secret != nil && v.Secret.SecretName == "corp-etcd-client" }) {
			t.Errorf("with external-etcd, the Deployment does not mount the input's Secret corp-etcd-client: %+v", pod.Volumes)
		}
		admin.okStdin(t, toYAML(t, bundled.of("Namespace")[0]), "apply", "-f", "-")
		dryRun(t, admin, externalYAML, len(ext.objs))

		// Without its input the component stops kustomize rather than keep the bundled address.
		writeFile(t, filepath.Join(proj, "config", "external", "kustomization.yaml"), external[:strings.Index(external, "configMapGenerator")])
		if r := admin.run("", "kustomize", filepath.Join(proj, "config", "external")); r.ExitCode == 0 || !strings.Contains(r.Stderr, "external-etcd") {
			t.Errorf("external-etcd without its ConfigMap: want an error naming it, got:\n%s", r)
		}
	})

	local := &localCluster{m: bundled, work: work, bins: map[string]string{"etcd": bins.Etcd, "etcdctl": etcdctl, "etcdutl": etcdutl, "": serverBin}}
	nw := local.newNetwork(t, "cluster")
	members := local.startEtcd(t, nw)
	srv := local.startServer(t, nw, kas)
	dyn := srv.client(t)

	flunders := dyn.Resource(flundersGVR).Namespace("default")
	var created []string // acknowledged creates
	create := func(name string) error {
		obj := flunderObject(flundersGVR, map[string]any{"name": name})
		obj.Object["spec"] = map[string]any{"reference": "etcd"}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, err := flunders.Create(ctx, obj, metav1.CreateOptions{})
		if err == nil {
			created = append(created, name)
		}
		return err
	}

	t.Run("the server writes over TLS with its client certificate", func(t *testing.T) {
		for i := range 5 {
			if err := create(fmt.Sprintf("before-%d", i)); err != nil {
				t.Fatalf("creating a flunder through the server: %v\n%s", err, srv.proc.Describe())
			}
		}
		// The backup Job's connection (the client Service, the client Secret) sees them.
		keys := local.etcdctl(t, nw, "get", "/registry/wardle", "--prefix", "--keys-only")
		for _, name := range created {
			if !strings.Contains(keys, "/flunders/default/"+name+"\n") {
				t.Errorf("etcd has no key of flunder %s:\n%s", name, keys)
			}
		}
	})

	t.Run("a client without a certificate is refused", func(t *testing.T) {
		local.checkCertRequired(t, nw)
	})

	t.Run("writes go on with the leader killed", func(t *testing.T) {
		// The harder loss: a write in flight while the other two elect a new leader may time
		// out (etcd's "request timed out", a 500 from the server), as it would in a cluster.
		// What must hold: writes succeed again within seconds, and every acknowledged one is
		// kept.
		leader := local.leader(t, nw)
		members[leader].Kill()
		nw.dead[local.pods[leader]] = true
		t.Logf("killed the leader, %s", local.pods[leader])
		killed := time.Now()
		var failed []error
		for i := 0; len(created) < 15 && time.Since(killed) < 60*time.Second; i++ {
			if err := create(fmt.Sprintf("after-kill-%d", i)); err != nil {
				failed = append(failed, err)
				time.Sleep(100 * time.Millisecond)
			}
		}
		t.Logf("%d creates acknowledged, %d failed in the election after the kill: %v", len(created)-5, len(failed), failed)
		if len(created) < 15 {
			t.Fatalf("writes did not resume within a minute of killing %s\n%s", local.pods[leader], srv.proc.Describe())
		}
		checkFlunders(t, flunders, created)
	})

	var snapshot string
	t.Run("the CronJob takes a snapshot", func(t *testing.T) { snapshot = local.backup(t, nw) })

	t.Run("writes stop with a second member lost", func(t *testing.T) {
		// The control for the two above: one member of three is a quorum no longer.
		for i, m := range members {
			if !nw.dead[local.pods[i]] {
				m.Kill()
				nw.dead[local.pods[i]] = true
				break
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		obj := flunderObject(flundersGVR, map[string]any{"name": "without-quorum"})
		if _, err := flunders.Create(ctx, obj, metav1.CreateOptions{}); err == nil {
			t.Error("a create succeeded with two of three etcd members gone")
		} else {
			t.Logf("create without a quorum: %v", err)
		}
	})

	t.Run("the snapshot restores into a fresh cluster", func(t *testing.T) {
		if snapshot == "" {
			t.Skip("no snapshot")
		}
		srv.proc.Stop(stopTimeout)
		for _, m := range members {
			m.Stop(10 * time.Second)
		}
		fresh := local.newNetwork(t, "restored")
		// The namespace's default ServiceAccount, which kube-controller-manager (not run
		// here) creates in every namespace, and the restore pod runs as.
		admin.ok(t, "create", "serviceaccount", "default", "-n", bundled.statefulSet(t).Namespace)
		dryRun(t, admin, toYAML(t, local.guideRestore(t, guide, 0)...), 2)
		local.restore(t, fresh, snapshot, guide)
		local.startEtcd(t, fresh)
		srv = local.startServer(t, fresh, kas)
		checkFlunders(t, srv.client(t).Resource(flundersGVR).Namespace("default"), created)
	})
}

// dryRun applies a YAML stream with --dry-run=server and checks that kube-apiserver took
// every document without a warning (Pod Security warns about a workload it would refuse pods of).
func dryRun(t *testing.T, admin *kubectl, stream string, docs int) {
	t.Helper()
	r := admin.run(stream, "apply", "--dry-run=server", "-f", "-")
	if r.ExitCode != 0 || strings.Contains(r.Stderr, "Warning") || strings.Contains(r.Stderr, "PodSecurity") {
		t.Fatalf("kubectl apply --dry-run=server refused or warned:\n%s", r)
	}
	if n := strings.Count(r.Stdout, "(server dry run)"); n != docs {
		t.Errorf("kubectl apply --dry-run=server accepted %d documents, want %d:\n%s", n, docs, r.Stdout)
	}
}

// checkFlunders lists the flunders and fails unless every name in want is among them.
func checkFlunders(t *testing.T, c dynamic.ResourceInterface, want []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	list, err := c.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("listing flunders: %v", err)
	}
	var got []string
	for _, item := range list.Items {
		got = append(got, item.GetName())
	}
	sort.Strings(got)
	for _, name := range want {
		if _, found := slices.BinarySearch(got, name); !found {
			t.Errorf("flunder %s is missing; the server lists %v", name, got)
		}
	}
}

// etcdTool builds bin/<tool> (etcdctl, etcdutl) from hack/tools/<tool>.
func etcdTool(t *testing.T, root, tool string) string {
	t.Helper()
	mustSucceed(t, runCmd(cmdOpts{Dir: root, Timeout: buildTimeout}, filepath.Join(root, "hack", "tools", "build.sh"), tool))
	return filepath.Join(root, "bin", tool)
}

// manifests are the objects of a kustomize build, decoded.
type manifests struct {
	objs []*unstructured.Unstructured
}

func parseManifests(t *testing.T, stream string) *manifests {
	t.Helper()
	m := &manifests{}
	for _, doc := range strings.Split(stream, "\n---\n") {
		m.objs = append(m.objs, &unstructured.Unstructured{Object: yamlToObject(t, doc)})
	}
	return m
}

func (m *manifests) of(kind string) []map[string]any {
	var out []map[string]any
	for _, o := range m.objs {
		if o.GetKind() == kind {
			out = append(out, o.Object)
		}
	}
	return out
}

func (m *manifests) kinds() map[string]int {
	k := map[string]int{}
	for _, o := range m.objs {
		k[o.GetKind()]++
	}
	return k
}

// typed converts the only object of kind into out.
func (m *manifests) typed(t *testing.T, kind string, out runtime.Object) {
	t.Helper()
	objs := m.of(kind)
	if len(objs) != 1 {
		t.Fatalf("config/default has %d objects of kind %s, want 1", len(objs), kind)
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(objs[0], out, true); err != nil {
		t.Fatalf("%s: %v", kind, err)
	}
}

func (m *manifests) statefulSet(t *testing.T) *appsv1.StatefulSet {
	s := &appsv1.StatefulSet{}
	m.typed(t, "StatefulSet", s)
	return s
}

func (m *manifests) deployment(t *testing.T) *appsv1.Deployment {
	d := &appsv1.Deployment{}
	m.typed(t, "Deployment", d)
	return d
}

func (m *manifests) cronJob(t *testing.T) *batchv1.CronJob {
	c := &batchv1.CronJob{}
	m.typed(t, "CronJob", c)
	return c
}

// secret returns the data of the Secret name, decoded.
func (m *manifests) secret(t *testing.T, name string) map[string][]byte {
	t.Helper()
	for _, o := range m.objs {
		if o.GetKind() == "Secret" && o.GetName() == name {
			data := map[string][]byte{}
			raw, _, _ := unstructured.NestedStringMap(o.Object, "data")
			for k, v := range raw {
				b, err := base64.StdEncoding.DecodeString(v)
				if err != nil {
					t.Fatalf("Secret %s key %s: %v", name, k, err)
				}
				data[k] = b
			}
			return data
		}
	}
	t.Fatalf("config/default has no Secret %s", name)
	return nil
}

// localCluster runs the containers of the generated manifests as local processes. No
// kubelet runs here, so it stands in for one the way that matters for these containers:
// it expands $(VAR) from the container's env as the kubelet does, gives each volume a
// directory (a Secret's keys as files, a claim or emptyDir empty), rewrites every mount
// path in the arguments to that directory, and maps the cluster's network to 127.0.0.1
// (see network). Everything else in the arguments is passed unchanged.
type localCluster struct {
	m    *manifests
	work string
	bins map[string]string // a container's command[0] → the binary; "" is the server's image
	pods []string          // the StatefulSet's pods, in order
}

// network stands in for the cluster's DNS, Services and pod network on 127.0.0.1, where
// pods cannot all listen on 2379 and names do not resolve: each pod's container port gets
// its own free local port, a pod's DNS name (under its headless Service) and 0.0.0.0 in
// that pod's own arguments resolve to the pod, and a ClusterIP Service's name resolves to
// the first live pod it selects, as kube-proxy would pick a ready endpoint. The TLS names
// are then 127.0.0.1, which the etcd certificates hold (as kubeadm's do).
type network struct {
	name     string
	ports    map[string]map[int32]int // pod → container port → local port
	pods     map[string]string        // DNS name → pod
	services map[string][]string      // Service DNS name → the pods it selects
	svcPorts map[string]map[int32]int32
	dead     map[string]bool
}

var (
	urlHostPort = regexp.MustCompile(`(https?://)([^/:,\s]+):(\d+)`)
	varRef      = regexp.MustCompile(`\$\((\w+)\)`)             // the kubelet's $(VAR)
	portFlag    = regexp.MustCompile(`^(--[a-z-]*port=)(\d+)$`) // --secure-port=8443
	isLeader    = regexp.MustCompile(`(?m)^etcd_server_is_leader 1$`)
)

func (l *localCluster) newNetwork(t *testing.T, name string) *network {
	sts := l.m.statefulSet(t)
	n := &network{name: name, ports: map[string]map[int32]int{}, pods: map[string]string{}, services: map[string][]string{},
		svcPorts: map[string]map[int32]int32{}, dead: map[string]bool{}}
	l.pods = nil
	for i := range int(*sts.Spec.Replicas) {
		pod := fmt.Sprintf("%s-%d", sts.Name, i)
		l.pods = append(l.pods, pod)
		for _, suffix := range []string{".svc", ".svc.cluster.local"} {
			n.pods[pod+"."+sts.Spec.ServiceName+"."+sts.Namespace+suffix] = pod
		}
		n.ports[pod] = map[int32]int{}
		for _, p := range sts.Spec.Template.Spec.Containers[0].Ports {
			n.ports[pod][p.ContainerPort] = freePort(t)
		}
	}
	// ClusterIP Services that select the StatefulSet's pods; a port's targetPort names a
	// container port.
	named := map[string]int32{}
	for _, p := range sts.Spec.Template.Spec.Containers[0].Ports {
		named[p.Name] = p.ContainerPort
	}
	for _, obj := range l.m.of("Service") {
		svc := &corev1.Service{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, svc); err != nil {
			t.Fatal(err)
		}
		if svc.Spec.ClusterIP == corev1.ClusterIPNone || !selects(svc.Spec.Selector, sts.Spec.Template.Labels) {
			continue
		}
		host := svc.Name + "." + svc.Namespace + ".svc"
		n.services[host] = l.pods
		n.svcPorts[host] = map[int32]int32{}
		for _, p := range svc.Spec.Ports {
			target := p.TargetPort.IntVal
			if p.TargetPort.Type == intstr.String {
				target = named[p.TargetPort.StrVal]
			}
			n.svcPorts[host][p.Port] = target
		}
	}
	return n
}

func selects(selector, labels map[string]string) bool {
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return len(selector) > 0
}

// rewrite maps every URL's host:port in s, as seen from pod, to 127.0.0.1:<local port>. A
// host it does not know fails the test: the manifests name something this test does not run.
func (n *network) rewrite(t *testing.T, pod, s string) string {
	t.Helper()
	return urlHostPort.ReplaceAllStringFunc(s, func(u string) string {
		m := urlHostPort.FindStringSubmatch(u)
		host, port := m[2], m[3]
		p, _ := strconv.Atoi(port)
		target, containerPort := "", int32(p)
		switch {
		case host == "0.0.0.0":
			target = pod
		case n.pods[host] != "":
			target = n.pods[host]
		case n.services[host] != nil:
			for _, candidate := range n.services[host] {
				if !n.dead[candidate] {
					target = candidate
					break
				}
			}
			containerPort = n.svcPorts[host][int32(p)]
		}
		local, ok := n.ports[target][containerPort]
		if target == "" || !ok {
			t.Fatalf("%s: %s names %s:%s, which the local cluster does not run", n.name, s, host, port)
		}
		return fmt.Sprintf("%s127.0.0.1:%d", m[1], local)
	})
}

// containerArgs prepares a container of a pod for a local run: its volumes in
// <work>/<network>/<pod>/<volume> (claims by name in <work>/<network>/claims, so that a
// Job finds what the last one left), its arguments expanded, mapped and rewritten.
func (l *localCluster) containerArgs(t *testing.T, n *network, pod string, spec corev1.PodSpec, c corev1.Container) (bin string, args []string) {
	dir := filepath.Join(l.work, n.name, pod)
	mounts := map[string]string{}
	for _, vm := range c.VolumeMounts {
		// A StatefulSet's claim template: its claim is <template>-<pod>.
		local := filepath.Join(l.work, n.name, "claims", vm.Name+"-"+pod)
		for _, v := range spec.Volumes {
			if v.Name != vm.Name {
				continue
			}
			local = filepath.Join(dir, vm.Name)
			switch {
			case v.Secret != nil:
				for key, value := range l.m.secret(t, v.Secret.SecretName) {
					writeFile(t, filepath.Join(local, key), string(value))
					if err := os.Chmod(filepath.Join(local, key), 0o600); err != nil {
						t.Fatal(err)
					}
				}
			case v.PersistentVolumeClaim != nil:
				local = filepath.Join(l.work, n.name, "claims", v.PersistentVolumeClaim.ClaimName)
			}
		}
		if err := os.MkdirAll(local, 0o700); err != nil {
			t.Fatal(err)
		}
		mounts[vm.MountPath] = local
	}
	env := map[string]string{}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.name":
			env[e.Name] = pod
		case e.ValueFrom == nil:
			env[e.Name] = e.Value
		default:
			t.Fatalf("container %s: env %s comes from %+v, which this test does not provide", c.Name, e.Name, e.ValueFrom)
		}
	}
	ports := map[int32]bool{}
	for _, p := range c.Ports {
		ports[p.ContainerPort] = true
	}
	// One pass over every mount path, the longest first, so that a local directory put in
	// (under /tmp, say) is never taken for a mount path (the server mounts /tmp).
	var paths []string
	for p := range mounts {
		paths = append(paths, regexp.QuoteMeta(p))
	}
	sort.Slice(paths, func(i, j int) bool { return len(paths[i]) > len(paths[j]) })
	mountPath := regexp.MustCompile(`(^|=)(` + strings.Join(paths, "|") + `)(/|$)`)
	for _, a := range append(slices.Clone(c.Command[min(1, len(c.Command)):]), c.Args...) {
		a = varRef.ReplaceAllStringFunc(a, func(v string) string {
			if value, ok := env[v[2:len(v)-1]]; ok {
				return value
			}
			return v
		})
		a = n.rewrite(t, pod, a)
		if len(paths) > 0 {
			a = mountPath.ReplaceAllStringFunc(a, func(m string) string {
				g := mountPath.FindStringSubmatch(m)
				return g[1] + mounts[g[2]] + g[3]
			})
		}
		// A listening port flag (--secure-port=8443) of a declared container port.
		if m := portFlag.FindStringSubmatch(a); m != nil {
			if p, _ := strconv.Atoi(m[2]); ports[int32(p)] {
				if n.ports[pod] == nil {
					n.ports[pod] = map[int32]int{}
				}
				if _, ok := n.ports[pod][int32(p)]; !ok {
					n.ports[pod][int32(p)] = freePort(t)
				}
				a = m[1] + strconv.Itoa(n.ports[pod][int32(p)])
			}
		}
		args = append(args, a)
	}
	name := ""
	if len(c.Command) > 0 {
		name = c.Command[0]
	}
	bin, ok := l.bins[name]
	if !ok {
		t.Fatalf("container %s runs %q, which this test has no binary for", c.Name, name)
	}
	return bin, args
}

// startEtcd starts every member of the StatefulSet and waits until each answers its
// readiness probe.
func (l *localCluster) startEtcd(t *testing.T, n *network) []*process {
	sts := l.m.statefulSet(t)
	c := sts.Spec.Template.Spec.Containers[0]
	var procs []*process
	for _, pod := range l.pods {
		bin, args := l.containerArgs(t, n, pod, sts.Spec.Template.Spec, c)
		procs = append(procs, startProcess(t, cmdOpts{}, filepath.Join(l.work, n.name, pod+".log"), bin, args...))
	}
	// Ready by the readiness probe, then alive by the startup and liveness probes too.
	for i, pod := range l.pods {
		for _, probe := range []struct {
			what string
			p    *corev1.Probe
		}{{"readiness", c.ReadinessProbe}, {"startup", c.StartupProbe}, {"liveness", c.LivenessProbe}} {
			url := probeURL(t, n, pod, c, probe.p)
			err := poll(60*time.Second, func() error {
				if procs[i].Exited() {
					return stopPolling{fmt.Errorf("exited")}
				}
				code, body, err := anonymousGet(url)
				if err != nil || code != http.StatusOK {
					return fmt.Errorf("%s: %d %v %s", url, code, err, body)
				}
				return nil
			})
			if err != nil {
				t.Fatalf("etcd member %s fails its %s probe: %v\n%s", pod, probe.what, err, procs[i].Describe())
			}
		}
	}
	return procs
}

// probeURL is the local URL of a container's HTTP probe.
func probeURL(t *testing.T, n *network, pod string, c corev1.Container, probe *corev1.Probe) string {
	t.Helper()
	if probe == nil || probe.HTTPGet == nil {
		t.Fatalf("container %s: probe %+v is not an HTTP GET", c.Name, probe)
	}
	get := probe.HTTPGet
	var port int32
	for _, p := range c.Ports {
		if p.Name == get.Port.StrVal || p.ContainerPort == get.Port.IntVal {
			port = p.ContainerPort
		}
	}
	scheme := strings.ToLower(string(get.Scheme))
	if scheme == "" {
		scheme = "http" // the kubelet's default
	}
	return fmt.Sprintf("%s://127.0.0.1:%d%s", scheme, n.ports[pod][port], get.Path)
}

// leader is the member whose metrics (on the port of its probes) say it leads.
func (l *localCluster) leader(t *testing.T, n *network) int {
	t.Helper()
	c := l.m.statefulSet(t).Spec.Template.Spec.Containers[0]
	for i, pod := range l.pods {
		u := probeURL(t, n, pod, c, c.LivenessProbe)
		u = u[:strings.LastIndex(u, "/")] + "/metrics"
		if _, body, err := anonymousGet(u); err == nil && isLeader.MatchString(body) {
			return i
		}
	}
	t.Fatal("no member reports etcd_server_is_leader 1")
	return -1
}

// secretOf is the Secret of the pod's volume name.
func secretOf(t *testing.T, spec corev1.PodSpec, volume string) string {
	t.Helper()
	for _, v := range spec.Volumes {
		if v.Name == volume && v.Secret != nil {
			return v.Secret.SecretName
		}
	}
	t.Fatalf("no Secret volume %s in %+v", volume, spec.Volumes)
	return ""
}

// localServer is the Deployment's container running locally.
type localServer struct {
	proc       *process
	kubeconfig string
}

// startServer runs the Deployment's container against the network's etcd. The pod's
// in-cluster configuration (its service account) is replaced by kubeconfig flags for
// kube-apiserver, and it binds 127.0.0.1 instead of every address.
func (l *localCluster) startServer(t *testing.T, n *network, kas *cluster.KubeAPIServer) *localServer {
	d := l.m.deployment(t)
	c := d.Spec.Template.Spec.Containers[0]
	pod := d.Name + "-" + n.name
	bin, args := l.containerArgs(t, n, pod, d.Spec.Template.Spec, c)
	args = append(args, "--bind-address=127.0.0.1",
		"--kubeconfig="+kas.AdminKubeconfig, "--authentication-kubeconfig="+kas.AdminKubeconfig, "--authorization-kubeconfig="+kas.AdminKubeconfig)
	s := &localServer{proc: startProcess(t, cmdOpts{Dir: l.work}, filepath.Join(l.work, n.name, "apiserver.log"), bin, args...)}

	// A client certificate of kube-apiserver's client CA in system:masters: the server
	// authenticates it with the CA kube-apiserver publishes, and always allows the group.
	pair, err := kas.ClientCA.Issue(kas.Dir, "etcd-test-admin", cluster.CertOptions{CommonName: "etcd-test-admin", Groups: []string{"system:masters"}})
	if err != nil {
		t.Fatal(err)
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["local"] = &clientcmdapi.Cluster{
		Server:                   fmt.Sprintf("https://127.0.0.1:%d", n.ports[pod][c.Ports[0].ContainerPort]),
		CertificateAuthorityData: l.m.secret(t, secretOf(t, d.Spec.Template.Spec, "serving-cert"))["ca.crt"],
		TLSServerName:            d.Name + "." + d.Namespace + ".svc",
	}
	cfg.AuthInfos["admin"] = &clientcmdapi.AuthInfo{ClientCertificateData: pair.CertPEM, ClientKeyData: pair.KeyPEM}
	cfg.Contexts["local"] = &clientcmdapi.Context{Cluster: "local", AuthInfo: "admin"}
	cfg.CurrentContext = "local"
	s.kubeconfig = filepath.Join(l.work, n.name, "server.kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, s.kubeconfig); err != nil {
		t.Fatal(err)
	}
	// Ready by its readiness probe, and then authenticating the certificate: /readyz is
	// open to anyone, and the client CA comes from kube-apiserver a moment later (until then
	// the certificate counts as system:anonymous, whom discovery refuses).
	for _, path := range []string{c.ReadinessProbe.HTTPGet.Path, "/apis"} {
		err = poll(readyTimeout, func() error {
			if s.proc.Exited() {
				return stopPolling{fmt.Errorf("the server exited")}
			}
			code, body, err := restGet(restConfig(t, s.kubeconfig), path)
			if err != nil || code != http.StatusOK {
				return fmt.Errorf("%d %v %s", code, err, body)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("the server does not answer GET %s: %v\n%s", path, err, s.proc.Describe())
		}
	}
	return s
}

func (s *localServer) client(t *testing.T) dynamic.Interface { return dynamicFor(t, s.kubeconfig) }

// etcdctl runs etcdctl with the connection the backup CronJob's container uses (its
// --endpoints, --cacert, --cert and --key) and the given command, and returns its output.
func (l *localCluster) etcdctl(t *testing.T, n *network, command ...string) string {
	t.Helper()
	bin, args := l.cronJobArgs(t, n)
	args = append(slices.DeleteFunc(args, func(a string) bool { return !strings.HasPrefix(a, "--") }), command...)
	return mustSucceed(t, runCmd(cmdOpts{}, bin, args...)).Stdout
}

func (l *localCluster) cronJobArgs(t *testing.T, n *network) (string, []string) {
	cj := l.m.cronJob(t)
	spec := cj.Spec.JobTemplate.Spec.Template.Spec
	return l.containerArgs(t, n, cj.Name, spec, spec.Containers[0])
}

// backup runs the CronJob's container and returns the snapshot it wrote.
func (l *localCluster) backup(t *testing.T, n *network) string {
	bin, args := l.cronJobArgs(t, n)
	r := mustSucceed(t, runCmd(cmdOpts{}, bin, args...))
	snapshot := args[len(args)-1]
	if fi, err := os.Stat(snapshot); err != nil || fi.Size() == 0 {
		t.Fatalf("the backup Job wrote no snapshot at %s (%v):\n%s", snapshot, err, r)
	}
	t.Logf("snapshot by the CronJob's command: %s", strings.Join(r.Args, " "))
	return snapshot
}

// guideRestore returns the claim and the pod of the etcd guide's restore procedure (the
// heredoc of its loop) for member i, with the shell variables set as the guide sets them
// from the manifests.
func (l *localCluster) guideRestore(t *testing.T, guide string, i int) []map[string]any {
	t.Helper()
	const start, end = "kubectl -n $NS apply -f - <<EOF\n", "\nEOF\n"
	from := strings.Index(guide, start)
	to := strings.Index(guide[max(from, 0):], end)
	if from < 0 || to < 0 {
		t.Fatalf("%s has no restore heredoc starting %q", etcdGuide, start)
	}
	sts := l.m.statefulSet(t)
	vars := map[string]string{"NS": sts.Namespace, "NAME": l.m.deployment(t).Name, "ETCD": sts.Name, "i": strconv.Itoa(i)}
	for _, a := range sts.Spec.Template.Spec.Containers[0].Args {
		if v, ok := strings.CutPrefix(a, "--initial-cluster="); ok {
			vars["CLUSTER"] = v
		}
	}
	text := os.Expand(guide[from+len(start):from+to], func(name string) string {
		v, ok := vars[name]
		if !ok {
			t.Fatalf("%s's restore uses $%s, which this test does not set", etcdGuide, name)
		}
		return v
	})
	var objs []map[string]any
	for _, doc := range strings.Split(text, "\n---\n") {
		obj := yamlToObject(t, doc)
		if err := unstructured.SetNestedField(obj, sts.Namespace, "metadata", "namespace"); err != nil {
			t.Fatal(err)
		}
		objs = append(objs, obj)
	}
	return objs
}

// restore runs the etcd guide's restore pod for each member on the network's claims, after
// copying the snapshot to the backup claim, as it would hold it.
func (l *localCluster) restore(t *testing.T, n *network, snapshot, guide string) {
	backup := filepath.Join(l.work, n.name, "claims", l.m.cronJob(t).Name, filepath.Base(snapshot))
	writeFile(t, backup, readFile(t, snapshot))
	for i, member := range l.pods {
		objs := l.guideRestore(t, guide, i)
		pod := &corev1.Pod{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(objs[len(objs)-1], pod, true); err != nil {
			t.Fatalf("%s's restore pod: %v", etcdGuide, err)
		}
		bin, args := l.containerArgs(t, n, member, pod.Spec, pod.Spec.Containers[0])
		r := mustSucceed(t, runCmd(cmdOpts{}, bin, args...))
		t.Logf("restored %s: %s", member, strings.Join(r.Args, " "))
	}
}

// checkCertRequired connects to every member's client and peer ports with etcd's CA but
// without a certificate (refused), then with the certificate the port expects (answered), so
// the refusal is about the certificate.
func (l *localCluster) checkCertRequired(t *testing.T, n *network) {
	sts := l.m.statefulSet(t)
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(l.m.secret(t, secretOf(t, sts.Spec.Template.Spec, "server-tls"))["ca.crt"])
	client := l.m.secret(t, secretOf(t, l.m.cronJob(t).Spec.JobTemplate.Spec.Template.Spec, "client-tls"))
	peer := l.m.secret(t, secretOf(t, sts.Spec.Template.Spec, "peer-tls"))
	port := map[string]int32{}
	for _, p := range sts.Spec.Template.Spec.Containers[0].Ports {
		port[p.Name] = p.ContainerPort
	}
	get := func(url string, pair map[string][]byte) error {
		cfg := &tls.Config{RootCAs: pool}
		if pair != nil {
			cert, err := tls.X509KeyPair(pair["tls.crt"], pair["tls.key"])
			if err != nil {
				t.Fatal(err)
			}
			cfg.Certificates = []tls.Certificate{cert}
		}
		hc := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: cfg}}
		resp, err := hc.Get(url)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s", resp.Status)
		}
		return nil
	}
	for _, pod := range l.pods {
		for _, c := range []struct {
			port int32
			path string
			cert map[string][]byte
		}{{port["client"], "/health", client}, {port["peer"], "/members", peer}} {
			url := fmt.Sprintf("https://127.0.0.1:%d%s", n.ports[pod][c.port], c.path)
			if err := get(url, nil); err == nil {
				t.Errorf("%s port %d answered %s without a client certificate", pod, c.port, c.path)
			} else {
				t.Logf("%s port %d without a certificate: %v", pod, c.port, err)
			}
			if err := get(url, c.cert); err != nil {
				t.Errorf("%s port %d with the certificate: %v", pod, c.port, err)
			}
		}
	}
	// etcdctl with the CronJob's flags but without --cert and --key.
	bin, args := l.cronJobArgs(t, n)
	args = slices.DeleteFunc(args, func(a string) bool {
		return !strings.HasPrefix(a, "--") || strings.HasPrefix(a, "--cert=") || strings.HasPrefix(a, "--key=")
	})
	if r := runCmd(cmdOpts{}, bin, append(args, "--dial-timeout=3s", "--command-timeout=5s", "get", "/", "--prefix", "--keys-only")...); r.ExitCode == 0 {
		t.Errorf("etcdctl without a client certificate read etcd:\n%s", r)
	}
}
