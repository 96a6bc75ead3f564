package server

import (
	"maps"
	"testing"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
)

// registered is RegisterValidationOptions run before any test binds the feature gates to flags,
// as NewCommand runs it before it makes the flags: an option of the project's own, and one that
// is already a gate of the Kubernetes libraries (which it keeps as it is).
var registered = RegisterValidationOptions([]string{"ApigenTestOption", "DeclarativeValidationBeta"})

// A validation option is the server's feature gate of that name, as kube-apiserver's strategies
// set each option from the gate: off by default for the project's own, enabled by
// --feature-gates; a gate of the libraries keeps its default; an option without a gate is off.
func TestValidationOptionsFollowFeatureGates(t *testing.T) {
	if registered != nil {
		t.Fatal(registered)
	}
	options := func() map[string]bool {
		return NewDeclarativeValidation(nil, "ApigenTestOption", "DeclarativeValidationBeta", "NoSuchGate").options
	}
	want := map[string]bool{"ApigenTestOption": false, "DeclarativeValidationBeta": true, "NoSuchGate": false}
	if got := options(); !maps.Equal(got, want) {
		t.Errorf("by default: got %v, want %v", got, want)
	}
	if spec := utilfeature.DefaultMutableFeatureGate.GetAll()["ApigenTestOption"]; spec.PreRelease != featuregate.Alpha || spec.Default {
		t.Errorf("the option's gate is %+v, want alpha and off by default", spec)
	}
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, "ApigenTestOption", true)
	want["ApigenTestOption"] = true
	if got := options(); !maps.Equal(got, want) {
		t.Errorf("with --feature-gates=ApigenTestOption=true: got %v, want %v", got, want)
	}
	if err := RegisterValidationOptions([]string{"ApigenTestOption"}); err != nil {
		t.Errorf("registering a known option again: %v", err)
	}
}

// crdScale alone decides which scale subresources are checked as a custom resource's: the
// generated code passes every version's, and a structured selector (a workload's
// metav1.LabelSelector) or a version without one is left out.
func TestCRDScale(t *testing.T) {
	scales := map[string]ScalePaths{
		"v1":      {SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas", LabelSelectorPath: ".status.selector"},
		"v1beta1": {SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas"},
		"apps":    {SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas", LabelSelectorPath: ".spec.selector", LabelSelectorStructured: true},
	}
	if got := crdScale(scales, "v1"); got == nil || got.SpecReplicasPath != ".spec.replicas" || got.StatusReplicasPath != ".status.replicas" ||
		got.LabelSelectorPath == nil || *got.LabelSelectorPath != ".status.selector" {
		t.Errorf("v1: got %+v, want the CRD scale with its string selector", got)
	}
	if got := crdScale(scales, "v1beta1"); got == nil || got.LabelSelectorPath != nil {
		t.Errorf("v1beta1: got %+v, want the CRD scale without a selector", got)
	}
	if got := crdScale(scales, "apps"); got != nil {
		t.Errorf("structured selector: got %+v, want nil (a workload's scale is not checked as a CRD's)", got)
	}
	if got := crdScale(scales, "v2"); got != nil {
		t.Errorf("version without a scale: got %+v, want nil", got)
	}
}
