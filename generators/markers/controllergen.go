package markers

import (
	"fmt"
	"strings"
	"sync"

	"sigs.k8s.io/controller-tools/pkg/applyconfiguration"
	"sigs.k8s.io/controller-tools/pkg/crd"
	"sigs.k8s.io/controller-tools/pkg/deepcopy"
	"sigs.k8s.io/controller-tools/pkg/genall"
	ctmarkers "sigs.k8s.io/controller-tools/pkg/markers"
	"sigs.k8s.io/controller-tools/pkg/rbac"
	"sigs.k8s.io/controller-tools/pkg/schemapatcher"
	"sigs.k8s.io/controller-tools/pkg/webhook"
)

// What controller-gen recognises in kubebuilder's namespace, asked of its own registry. Its
// collector skips a comment line the registry finds no definition for (controller-tools'
// markers.Collector: "if def == nil { continue }"), so a module with a misspelt marker builds
// with controller-gen; apigen warns at such a line instead of stopping.

// controllerGen is the registry controller-gen reads comments with when every generator of
// its (cmd/controller-gen's allGenerators) runs. crd's definitions go last, as they are the
// ones applyconfiguration's +kubebuilder:resource shares a name with.
var controllerGen = sync.OnceValue(func() *ctmarkers.Registry {
	reg := &ctmarkers.Registry{}
	for _, g := range []genall.Generator{applyconfiguration.Generator{}, schemapatcher.Generator{}, rbac.Generator{}, webhook.Generator{}, deepcopy.Generator{}, crd.Generator{}} {
		if err := g.RegisterMarkers(reg); err != nil {
			panic(fmt.Sprintf("controller-gen's markers: %v", err))
		}
	}
	return reg
})

// controllerGenIgnores says whether controller-gen skips the marker text (without its "+")
// at target, and if so why apigen ignores it too, with the spelling the author probably meant.
// A package marker in a type's comment is not skipped: controller-gen's collector takes it for
// the package's.
func controllerGenIgnores(text string, target Target) (string, bool) {
	reg := controllerGen()
	if reg.Lookup("+"+text, ctTargets[target]) != nil || target == Type && reg.Lookup("+"+text, ctmarkers.DescribesPackage) != nil {
		return "", false
	}
	why := "controller-gen knows no marker of this spelling and ignores it too"
	if meant := controllerGenMeant(text, target); meant != "" {
		why += fmt.Sprintf("; did you mean %q?", "+"+meant)
	}
	return why, true
}

// controllerGenMeant is the spelling controller-gen would read that text is closest to: its
// last ":" made "=" when that parses (+kubebuilder:object:generate:false, as real modules
// write it, for +kubebuilder:object:generate=false), else the nearest name it defines at
// target; empty when none is close.
func controllerGenMeant(text string, target Target) string {
	reg := controllerGen()
	if i := strings.LastIndex(text, ":"); i > 0 && !strings.Contains(text, "=") {
		fixed := text[:i] + "=" + text[i+1:]
		if def := reg.Lookup("+"+fixed, ctTargets[target]); def != nil {
			if _, err := def.Parse("+" + fixed); err == nil {
				return fixed
			}
		}
	}
	written := markerName(text)
	best, bestDist := "", 1<<30
	for _, def := range reg.AllDefinitions() {
		if def.Target != ctTargets[target] {
			continue
		}
		if d := levenshtein(written, def.Name); d < bestDist || d == bestDist && def.Name < best {
			best, bestDist = def.Name, d
		}
	}
	if best == "" || bestDist > max(2, len(best)/3) {
		return ""
	}
	return best
}
