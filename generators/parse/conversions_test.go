package parse_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// crProject is project with sigs.k8s.io/controller-runtime/pkg/conversion as controller-runtime
// v0.25.2 declares it, from a directory beside the module (the parser only reads the
// interfaces' names; testdata/builds/controller_runtime_conversion builds against the real
// module).
func crProject(t *testing.T, files map[string]string) string {
	t.Helper()
	files["controller-runtime/go.mod"] = "module sigs.k8s.io/controller-runtime\n\ngo 1.26.0\n"
	files["controller-runtime/pkg/conversion/conversion.go"] = `package conversion

import "k8s.io/apimachinery/pkg/runtime"

type Convertible interface {
	runtime.Object
	ConvertTo(dst Hub) error
	ConvertFrom(src Hub) error
}

type Hub interface {
	runtime.Object
	Hub()
}
`
	dir := project(t, files)
	f, err := os.OpenFile(filepath.Join(dir, "go.mod"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := fmt.Fprint(f, "\nrequire sigs.k8s.io/controller-runtime v0.25.2\n\nreplace sigs.k8s.io/controller-runtime => ./controller-runtime\n"); err != nil {
		t.Fatal(err)
	}
	return dir
}

// cronJob declares CronJob in package version (storage: with +apigen:storageversion), with the
// given methods.
func cronJob(version string, storage bool, methods string) string {
	marker := "// +apigen:resource\n"
	if storage {
		marker += "// +apigen:storageversion\n"
	}
	return "package " + version + `

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/conversion"
)

var _ conversion.Hub

` + marker + `type CronJob struct {
	metav1.TypeMeta   ` + "`json:\",inline\"`" + `
	metav1.ObjectMeta ` + "`json:\"metadata,omitempty\"`" + `
}

type CronJobList struct {
	metav1.TypeMeta ` + "`json:\",inline\"`" + `
	metav1.ListMeta ` + "`json:\"metadata,omitempty\"`" + `
	Items []CronJob ` + "`json:\"items\"`" + `
}
` + methods
}

const (
	hubMethod   = "\nfunc (*CronJob) Hub() {}\n"
	convertTo   = "\nfunc (c *CronJob) ConvertTo(dst conversion.Hub) error { return nil }\n"
	convertFrom = "\nfunc (c *CronJob) ConvertFrom(src conversion.Hub) error { return nil }\n"
)

// groupFiles is a group's two versions of CronJob, v2 stored, with the given methods.
func groupFiles(group, v1Methods, v2Methods string) map[string]string {
	dir := "pkg/apis/" + group + "/"
	doc := func(v string) string { return "// +groupName=" + group + ".example.com\npackage " + v + "\n" }
	return map[string]string{
		dir + "v1/doc.go": doc("v1"), dir + "v1/types.go": cronJob("v1", false, v1Methods),
		dir + "v2/doc.go": doc("v2"), dir + "v2/types.go": cronJob("v2", true, v2Methods),
	}
}

// The model records the part each version's type plays in controller-runtime's conversions.
func TestControllerRuntimeConversionRoles(t *testing.T) {
	p, err := load(t, crProject(t, groupFiles("batch", convertTo+convertFrom, hubMethod)))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range p.Groups[0].Versions {
		r := v.Kind("CronJob")
		got = append(got, fmt.Sprintf("%s %s %s:%d", v.Name, r.Conversion, r.ConversionPos.Filename, r.ConversionPos.Line))
	}
	want := []string{"v1 spoke pkg/apis/batch/v1/types.go:22", "v2 hub pkg/apis/batch/v2/types.go:23"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("roles (-want +got):\n%s", diff)
	}
	if !p.Groups[0].Versions[0].Kind("CronJob").ConvertsByMethods() {
		t.Error("v1's CronJob does not convert by its methods")
	}
}

// A hub that is not the storage version is the kind's hub all the same: the storage version
// converts to and from it with its own ConvertTo and ConvertFrom, as kueue v0.15 ships it.
func TestHubThatIsNotTheStorageVersion(t *testing.T) {
	p, err := load(t, crProject(t, groupFiles("hubnotstored", hubMethod, convertTo+convertFrom)))
	if err != nil {
		t.Fatal(err)
	}
	g := p.Groups[0]
	hub, _ := g.Hub("CronJob")
	stored, _ := g.Stored("CronJob")
	if hub == nil || stored == nil || hub.Name != "v1" || stored.Name != "v2" {
		t.Errorf("hub %v, storage version %v; want v1 and v2", hub, stored)
	}
	if hubs := g.Hubs(); len(hubs) != 1 || hubs[0].Version != hub {
		t.Errorf("Hubs() = %v, want CronJob's hub v1", hubs)
	}
}

// A spoke needs a hub; Convertible needs both methods,
// with controller-runtime's signature; a group with internal types converts through them, so
// Hub() and ConvertTo there are never called. A method named so with another signature and
// no twin of Convertible's signature is some other method.
func TestControllerRuntimeConversionErrors(t *testing.T) {
	files := map[string]string{}
	for group, methods := range map[string][2]string{
		"nohub":        {convertTo + convertFrom, ""},
		"onlyto":       {convertTo, hubMethod},
		"badfrom":      {convertTo + "\nfunc (c *CronJob) ConvertFrom(src *CronJob) error { return nil }\n", hubMethod},
		"storedspoke":  {"", convertTo + convertFrom},
		"withinternal": {convertTo + convertFrom, hubMethod},
		"unrelated":    {"\nfunc (c *CronJob) ConvertTo(format string) string { return format }\n", "\nfunc (*CronJob) Hub() string { return \"\" }\n"},
	} {
		for name, content := range groupFiles(group, methods[0], methods[1]) {
			files[name] = content
		}
	}
	// A group with internal types converts through them.
	files["pkg/apis/withinternal/types.go"] = strings.Replace(cronJob("withinternal", false, ""), "// +apigen:resource\n", "", 1)
	_, err := load(t, crProject(t, files))
	if err == nil {
		t.Fatal("want errors, got none")
	}
	want := strings.Join([]string{
		"pkg/apis/badfrom/v1/types.go:24:19: method CronJob.ConvertFrom has signature func(*CronJob) error; with CronJob.ConvertTo it must implement controller-runtime's conversion.Convertible, which needs func(sigs.k8s.io/controller-runtime/pkg/conversion.Hub) error",
		"pkg/apis/nohub/v1/types.go:22:19: method CronJob.ConvertTo converts v1 to its hub, but CronJob's storage version v2 declares no Hub() on CronJob; add func (*CronJob) Hub() {} in pkg/apis/nohub/v2",
		"pkg/apis/onlyto/v1/types.go:22:19: CronJob has ConvertTo but no ConvertFrom; controller-runtime's conversion.Convertible needs both, so that the server converts CronJob to its hub and back: add func (*CronJob) ConvertFrom(src conversion.Hub) error",
		"pkg/apis/storedspoke/v2/types.go:23:19: method CronJob.ConvertTo is never called: v2 is CronJob's storage version, which is its hub; give v2's CronJob a Hub() method instead, and ConvertTo/ConvertFrom to the other versions",
		"pkg/apis/withinternal/v1/types.go:22:19: method CronJob.ConvertTo is never called: group withinternal.example.com has internal types in pkg/apis/withinternal, which are every kind's hub; convert v1 to and from them with Convert_ functions",
		"pkg/apis/withinternal/v2/types.go:23:17: method CronJob.Hub is never called: group withinternal.example.com has internal types in pkg/apis/withinternal, which are every kind's hub; convert v2 to and from them with Convert_ functions",
	}, "\n")
	if diff := cmp.Diff(want, err.Error()); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}
