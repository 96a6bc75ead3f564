package markers

import "strings"

// k8sTagProblem says why a +k8s: tag (text without the "+") cannot be honoured, or "" when it
// can: kube.Validation runs every validation-gen tag of the version packages as kube-apiserver
// runs a built-in type's, and the tags of other generators are read by those generators.
// +k8s:ifEnabled and +k8s:ifDisabled make a rule depend on a validation option, which
// kube-apiserver's strategies define from their feature gates; a generated server defines
// none.
func k8sTagProblem(text string) (name, why string) {
	for _, option := range []string{"k8s:ifEnabled", "k8s:ifDisabled"} {
		if strings.Contains(text, option+"(") {
			return option, "the generated server defines no validation options (kube-apiserver's " +
				"strategies define them from their feature gates), so a request reaching the rule " +
				"would fail with an internal error; write it without the condition"
		}
	}
	return "", ""
}
