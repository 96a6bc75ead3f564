package markers

import (
	"strings"

	"k8s.io/code-generator/cmd/validation-gen/validators"
)

// k8sSchemaTags are the +k8s: validation tags controller-tools maps into the kind's schema,
// which the server enforces as kube-apiserver enforces a CRD's; why, when that is not quite
// what kube-apiserver does for a built-in type.
var k8sSchemaTags = map[string]string{
	"k8s:listType": "", "k8s:listMapKey": "", "k8s:enum": "", "k8s:required": "", "k8s:optional": "",
	"k8s:maxItems": "", "k8s:minimum": "", "k8s:maximum": "",
	"k8s:immutable": "on a field left unset at create, which may still be set later (apigen enforces it as a " +
		"CRD's transition rule, self == oldSelf); kube-apiserver refuses that change for a built-in type",
}

// k8sTag reads a +k8s: tag (text without the "+") that validation-gen knows: its name as
// written, and why it does not have the meaning kube-apiserver gives it here; ok is false for
// a tag that does (the schema enforces it), for a tag that is not a validation tag (another
// generator's, such as k8s:deepcopy-gen, read by that generator) and for an alpha rule, which
// kube-apiserver only shadows (it logs a violation and refuses nothing, as a rule not run does).
func k8sTag(text string) (name, why string, ok bool) {
	end := strings.IndexFunc(text[len("k8s:"):], func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	})
	name = text
	if end >= 0 {
		name = text[:len("k8s:")+end]
	}
	if name == "k8s:alpha" || !validators.IsKnownTag(name) {
		return name, "", false
	}
	why, inSchema := k8sSchemaTags[name]
	switch {
	case inSchema && why == "":
		return name, "", false
	case inSchema:
		return name, why, true
	case name == "k8s:beta":
		return name, "apigen does not run declarative validation's beta rules yet; kube-apiserver enforces them " +
			"while the DeclarativeValidationBeta gate is on", true
	}
	return name, "apigen does not enforce it yet (kube-apiserver runs it through validation-gen); " +
		"write the rule as a +kubebuilder:validation marker or a CEL rule for now", true
}
