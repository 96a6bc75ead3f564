package server

import (
	"fmt"
	"runtime/debug"
	"strings"

	apimachineryversion "k8s.io/apimachinery/pkg/version"
	basecompatibility "k8s.io/component-base/compatibility"
)

// buildVersion makes /version parseable in a plain `go build`. Without the
// -ldflags that Kubernetes' release builds use, the version is the literal
// placeholder "v0.0.0-master+$Format:%H$", and `kubectl version` fails on it.
// It is replaced by the Kubernetes release of the k8s.io libraries built in
// (known from the build info; test binaries have none).
type buildVersion struct {
	basecompatibility.EffectiveVersion
}

func (v buildVersion) Info() *apimachineryversion.Info {
	info := v.EffectiveVersion.Info()
	if info == nil || !strings.Contains(info.GitVersion, "$Format") {
		return info
	}
	bin := v.BinaryVersion()
	info.GitVersion, info.GitCommit = fmt.Sprintf("v%d.%d.0", bin.Major(), bin.Minor()), ""
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return info
	}
	for _, dep := range bi.Deps {
		// k8s.io/apiserver v0.X.Y belongs to Kubernetes v1.X.Y.
		if dep.Path == "k8s.io/apiserver" && strings.HasPrefix(dep.Version, "v0.") {
			info.GitVersion = "v1." + strings.TrimPrefix(dep.Version, "v0.")
		}
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" {
			info.GitCommit = s.Value
		}
	}
	return info
}
