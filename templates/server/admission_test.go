package server

import (
	"strings"
	"testing"

	"k8s.io/apiserver/pkg/admission"
)

// Admission plugins need a name of their own and a constructor; validate says which does not.
func TestValidateAdmission(t *testing.T) {
	newPlugin := func(Informers) (admission.Interface, error) { return nil, nil }
	errs := validateAdmission([]AdmissionPlugin{
		{Name: "BanFlunder", New: newPlugin},
		{Name: "BanFlunder", New: newPlugin},
		{Name: "NamespaceLifecycle", New: newPlugin},
		{Name: "NoConstructor"},
	})
	var got []string
	for _, err := range errs {
		got = append(got, err.Error())
	}
	want := []string{
		"server.APIs: Admission[1]: another admission plugin is named BanFlunder",
		"server.APIs: Admission[2]: another admission plugin is named NamespaceLifecycle",
		`server.APIs: Admission[3] ("NoConstructor") needs a Name and a New function`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("validateAdmission:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
