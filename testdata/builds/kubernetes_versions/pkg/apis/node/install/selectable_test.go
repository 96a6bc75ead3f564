package install

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	v1 "example.com/wardle/pkg/apis/node/v1"
	v1beta1 "example.com/wardle/pkg/apis/node/v1beta1"
)

// Both versions register themselves (their register.go), so the install package registers the
// field selectors of their selectable fields, as apigen's register file does for the others.
func TestSelectableFieldsOfPackagesThatRegisterThemselves(t *testing.T) {
	scheme := runtime.NewScheme()
	Install(scheme)
	for _, gv := range []schema.GroupVersion{v1.SchemeGroupVersion, v1beta1.SchemeGroupVersion} {
		gvk := gv.WithKind("RuntimeClass")
		if label, value, err := scheme.ConvertFieldLabel(gvk, "handler", "runsc"); err != nil || label != "handler" || value != "runsc" {
			t.Errorf("%s: field selector handler=runsc gives %q=%q, %v; want it accepted", gvk, label, value, err)
		}
		if _, _, err := scheme.ConvertFieldLabel(gvk, "overhead", "x"); err == nil {
			t.Errorf("%s: field selector overhead=x accepted; want it refused", gvk)
		}
	}
}
