package server

import (
	"runtime/debug"
	"strconv"

	utilversion "k8s.io/apimachinery/pkg/util/version"
	apimachineryversion "k8s.io/apimachinery/pkg/version"
	"k8s.io/apiserver/pkg/util/compatibility"
	basecompatibility "k8s.io/component-base/compatibility"
)

// version is the project's version, set at build time:
//
//	go build -ldflags "-X <module>/pkg/cmd/server.version=v1.2.3" ./cmd/apiserver
//
// Without it, the main module's version in the build info is used (go build
// stamps it from the repository's tag or commit), and v0.0.0-dev when there
// is none.
var version string

// devVersion is reported when the build says nothing about the version.
const devVersion = "v0.0.0-dev"

// projectVersion is the version /version and the OpenAPI documents report.
func projectVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return devVersion
}

// buildVersion makes /version report the project's version instead of the
// Kubernetes libraries'; what the libraries decide from the effective version
// (feature gates, API lifecycles) still uses theirs.
type buildVersion struct {
	basecompatibility.EffectiveVersion
}

// effectiveVersion is the server's: the Kubernetes libraries' with the
// project's Info.
func effectiveVersion() buildVersion {
	return buildVersion{compatibility.DefaultComponentGlobalsRegistry.EffectiveVersionFor(basecompatibility.DefaultKubeComponent)}
}

func (v buildVersion) Info() *apimachineryversion.Info {
	info := *v.EffectiveVersion.Info() // keeps the Go version, compiler and platform
	info.GitVersion = projectVersion()
	info.Major, info.Minor, info.GitCommit, info.GitTreeState, info.BuildDate = "", "", "", "", ""
	if sv, err := utilversion.ParseSemantic(info.GitVersion); err == nil {
		info.Major, info.Minor = strconv.Itoa(int(sv.Major())), strconv.Itoa(int(sv.Minor()))
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				info.GitCommit = s.Value
			case "vcs.modified":
				info.GitTreeState = map[string]string{"true": "dirty", "false": "clean"}[s.Value]
			case "vcs.time":
				info.BuildDate = s.Value
			}
		}
	}
	return &info
}
