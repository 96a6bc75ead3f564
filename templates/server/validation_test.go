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
