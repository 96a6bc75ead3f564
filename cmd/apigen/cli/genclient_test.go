package cli

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestGenClientTags serves k8s.io/api's certificates/v1 copied unchanged, with no apigen
// marker: its root types' +genclient tags declare the resources, +genclient:nonNamespaced their
// scope, a Status field their status subresource; the client method that calls
// CertificateSigningRequest's /approval, which the server does not serve, is a warning.
func TestGenClientTags(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a whole project")
	}
	apiDir := k8sAPIDir(t)
	files := map[string]string{}
	for _, name := range []string{"doc.go", "register.go", "types.go"} {
		files["pkg/apis/certificates/v1/"+name] = readTestFile(t, filepath.Join(apiDir, "certificates", "v1", name))
	}
	moduleCopy(t, files)
	code, stdout, stderr := run("generate", "--dump-model")
	if code != 0 {
		t.Fatalf("generate --dump-model: exit %d\n%s", code, stderr)
	}
	var p struct {
		Groups []struct {
			Name     string
			Versions []struct {
				Resources []struct {
					Kind         string
					Subresources struct{ Status bool }
				}
			}
			Kinds []struct{ Name, Plural, Scope string }
		}
	}
	if err := json.Unmarshal([]byte(stdout), &p); err != nil || len(p.Groups) != 1 || len(p.Groups[0].Versions) != 1 {
		t.Fatalf("model: %v\n%s", err, stdout)
	}
	var got []string
	for _, r := range p.Groups[0].Versions[0].Resources {
		i := slices.IndexFunc(p.Groups[0].Kinds, func(k struct{ Name, Plural, Scope string }) bool { return k.Name == r.Kind })
		if i < 0 {
			t.Fatalf("kind %s is not among the group's kinds:\n%s", r.Kind, stdout)
		}
		k := p.Groups[0].Kinds[i]
		got = append(got, strings.Join([]string{r.Kind, k.Plural, k.Scope, map[bool]string{true: "status", false: "-"}[r.Subresources.Status]}, " "))
	}
	// As kube-apiserver v1.37 serves certificates.k8s.io/v1.
	want := []string{
		"CertificateSigningRequest certificatesigningrequests Cluster status",
		"ClusterTrustBundle clustertrustbundles Cluster -",
		"PodCertificateRequest podcertificaterequests Namespaced status",
	}
	if p.Groups[0].Name != "certificates.k8s.io" || !slices.Equal(got, want) {
		t.Errorf("group %s, resources:\n%s\nwant certificates.k8s.io:\n%s", p.Groups[0].Name, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The method is named, and so is the subresource the rules are listed for; the package's
	// declarative validation rules run (beta ones too, as in kube-apiserver), so they are not.
	code, _, stderr = run("generate")
	wantWarnings := []string{
		"pkg/apis/certificates/v1/types.go:29:1: warning: +genclient:method=UpdateApproval: the server does not serve the approval subresource",
		`pkg/apis/certificates/v1/types.go:45:6: warning: +k8s:supportsSubresource="/approval" has no effect: CertificateSigningRequest serves no /approval subresource`,
	}
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	matches := len(lines) == len(wantWarnings)
	for i := 0; matches && i < len(lines); i++ {
		matches = strings.HasPrefix(lines[i], wantWarnings[i])
	}
	if code != 0 || !matches {
		t.Errorf("generate: exit %d, stderr:\n%s\nwant exit 0 and warnings starting:\n%s", code, stderr, strings.Join(wantWarnings, "\n"))
	}
	build := exec.Command("go", "build", "./...")
	if out, err := build.CombinedOutput(); err != nil {
		t.Errorf("go build: %v\n%s", err, out)
	}
}
