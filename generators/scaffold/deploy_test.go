package scaffold

import (
	"go/token"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"

	"github.com/apigen-dev/apigen/generators/engine"
	"github.com/apigen-dev/apigen/generators/manifests"
	"github.com/apigen-dev/apigen/generators/markers"
	"github.com/apigen-dev/apigen/generators/model"
)

// generatedDeployment renders config/generated/deployment.yaml for a project with these
// deployment names, as apigen generate would.
func generatedDeployment(t *testing.T, d model.Deploy) (*appsv1.Deployment, []byte) {
	t.Helper()
	out, err := engine.Run(&engine.Context{Project: &model.Project{Module: "example.com/heldout", Name: "heldout", Deploy: d}},
		[]engine.Generator{manifests.New()})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := out.Get(path.Join(manifests.Dir, "deployment.yaml"))
	j, err := yaml.YAMLToJSON(b)
	if err != nil {
		t.Fatal(err)
	}
	obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(j, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return obj.(*appsv1.Deployment), b
}

// TestInitDeploy checks what init writes for deploying: the deployment names spelled out in
// pkg/apis/doc.go, config/default, the Dockerfile and the Makefile targets, and that they agree
// with the manifests apigen generates.
func TestInitDeploy(t *testing.T) {
	root := t.TempDir()
	res, err := Init(root, InitOptions{Repo: "example.com/heldout", Domain: "heldout.io", Year: "2031"})
	if err != nil {
		t.Fatal(err)
	}

	// The marker init writes holds the defaults, so it changes nothing until edited.
	defaults := model.DefaultDeploy("heldout")
	var deploy *markers.Deploy
	for _, line := range strings.Split(read(t, root, "pkg/apis/doc.go"), "\n") {
		m, err := markers.Apigen().Parse(line, markers.Package, token.Position{})
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if m != nil && m.Def.Name == markers.DeployMarker {
			deploy = m.Args.(*markers.Deploy)
		}
	}
	if deploy == nil || deploy.Namespace == nil || deploy.Name == nil || deploy.Image == nil {
		t.Fatalf("pkg/apis/doc.go lacks +apigen:deploy with every argument:\n%s", read(t, root, "pkg/apis/doc.go"))
	}
	if got := (model.Deploy{Namespace: *deploy.Namespace, Name: *deploy.Name, Image: *deploy.Image}); got != defaults {
		t.Errorf("+apigen:deploy in doc.go = %+v, want the defaults %+v", got, defaults)
	}

	// config/default: the generated manifests plus the certs component; no namespace field.
	var kust struct {
		APIVersion string   `json:"apiVersion"`
		Kind       string   `json:"kind"`
		Resources  []string `json:"resources"`
		Components []string `json:"components"`
	}
	kustText := read(t, root, "config/default/kustomization.yaml")
	if err := yaml.UnmarshalStrict([]byte(kustText), &kust); err != nil {
		t.Fatalf("config/default/kustomization.yaml: %v", err)
	}
	if kust.Kind != "Kustomization" || !slices.Equal(kust.Resources, []string{"../generated"}) || !slices.Equal(kust.Components, []string{"../certs"}) {
		t.Errorf("config/default/kustomization.yaml = %+v", kust)
	}
	for _, want := range []string{"# - ../generated/cert-manager", "go run ./cmd/apiserver certs", `no "namespace:" field`} {
		if !strings.Contains(kustText, want) {
			t.Errorf("config/default/kustomization.yaml lacks %q", want)
		}
	}
	if !strings.Contains(read(t, root, ".gitignore"), "\n/config/certs/\n") {
		t.Error(".gitignore does not ignore /config/certs/ (it holds private keys)")
	}
	dockerignore := strings.Fields(read(t, root, ".dockerignore"))
	for _, want := range []string{"bin/", "apiserver", ".apigen/", "config/certs/"} {
		if !slices.Contains(dockerignore, want) {
			t.Errorf(".dockerignore lacks %s", want)
		}
	}

	// The Dockerfile builds the main package init wrote and runs as the Deployment's user.
	dockerfile := read(t, root, "Dockerfile")
	build := regexp.MustCompile(`(?m)^RUN CGO_ENABLED=0 go build -trimpath -ldflags=-s -o (\S+) \./(\S+)$`).FindStringSubmatch(dockerfile)
	if build == nil {
		t.Fatalf("the Dockerfile has no CGO_ENABLED=0 go build line:\n%s", dockerfile)
	}
	if !slices.Contains(res.Written, build[2]+"/main.go") {
		t.Errorf("the Dockerfile builds ./%s, but init wrote no %s/main.go (wrote %v)", build[2], build[2], res.Written)
	}
	for _, want := range []string{
		"FROM golang:" + GoVersion + " AS build\n",
		"COPY go.mod go.sum ./\nRUN go mod download\nCOPY . .\n",
		"FROM gcr.io/distroless/static-debian12:nonroot\n",
		"COPY --from=build " + build[1] + " /apiserver\n",
		`ENTRYPOINT ["/apiserver"]`,
	} {
		if !strings.Contains(dockerfile, want) {
			t.Errorf("the Dockerfile lacks %q:\n%s", want, dockerfile)
		}
	}
	if strings.Contains(dockerfile, "replaces apigen") {
		t.Errorf("the Dockerfile warns about a replace directive go.mod does not have:\n%s", dockerfile)
	}
	user := regexp.MustCompile(`(?m)^USER (\d+):(\d+)$`).FindStringSubmatch(dockerfile)
	d, deploymentYAML := generatedDeployment(t, defaults)
	psc := d.Spec.Template.Spec.SecurityContext
	if user == nil || psc == nil || psc.RunAsUser == nil || psc.RunAsGroup == nil ||
		user[1] != strconv.FormatInt(*psc.RunAsUser, 10) || user[2] != strconv.FormatInt(*psc.RunAsGroup, 10) {
		t.Errorf("the Dockerfile's USER %v does not match the Deployment's runAsUser/runAsGroup %+v", user, psc)
	}

	// make image tags the image the Deployment runs, read back with this sed expression.
	makefile := read(t, root, "Makefile")
	const imgLine = "IMG ?= $(shell sed -n 's/^ *image: *//p' config/generated/deployment.yaml)"
	if !strings.Contains(makefile, "\n"+imgLine+"\n") {
		t.Errorf("Makefile lacks %q:\n%s", imgLine, makefile)
	}
	images := regexp.MustCompile(`(?m)^ *image: *(.*)$`).FindAllStringSubmatch(string(deploymentYAML), -1)
	if len(images) != 1 || images[0][1] != defaults.Image {
		t.Errorf("the Makefile's sed finds %v in deployment.yaml, want only %s", images, defaults.Image)
	}
	for _, want := range []string{"\t$(CONTAINER_TOOL) build -t $(IMG) .\n", "\tgo run ./cmd/apiserver certs\n", "\t$(KUBECTL) apply -k config/default\n"} {
		if !strings.Contains(makefile, want) {
			t.Errorf("Makefile lacks %q", want)
		}
	}

	// With apigen replaced by a local checkout, the Dockerfile says why its build fails.
	root = t.TempDir()
	if _, err := Init(root, InitOptions{Repo: "example.com/heldout", Domain: "heldout.io", ApigenReplace: "/src/apigen"}); err != nil {
		t.Fatal(err)
	}
	if got := read(t, root, "Dockerfile"); !strings.Contains(got, "go.mod replaces apigen with a directory outside this build context") {
		t.Errorf("the Dockerfile does not explain the replace directive:\n%s", got)
	}
}
