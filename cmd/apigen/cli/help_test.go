package cli

import (
	"regexp"
	"strings"
	"testing"

	"github.com/apigen-dev/apigen/generators/scaffold"
)

// TestHelp reads every command's --help as a user would: an example, the required flags
// marked, and no line wider than 100 columns.
func TestHelp(t *testing.T) {
	requiredFlags := map[string][]string{"init": {"domain"}, "new-api": {"group", "version", "kind"}}
	for _, name := range []string{"", "init", "new-api", "generate", "verify", "markers", "version"} {
		args := strings.Fields(name + " --help")
		code, out, errOut := run(args...)
		if code != 0 || errOut != "" {
			t.Fatalf("apigen %s: exit %d, stderr %q", strings.Join(args, " "), code, errOut)
		}
		if _, examples, _ := strings.Cut(out, "\nExamples:\n"); !strings.Contains(examples, "  apigen "+name) {
			t.Errorf("apigen %s --help has no example:\n%s", name, out)
		}
		for i, line := range strings.Split(out, "\n") {
			if len(line) > helpWidth {
				t.Errorf("apigen %s --help line %d has %d columns:\n%s", name, i+1, len(line), line)
			}
		}
		for _, flag := range requiredFlags[name] {
			// The flag's help, possibly wrapped, ends with "(required)" before the next flag.
			re := regexp.MustCompile(`(?m)^\s+--` + flag + ` string\s[^\n]*(\n\s{20,}[^\n]*)*\(required\)\n`)
			if !re.MatchString(out) {
				t.Errorf("apigen %s --help does not mark --%s as required:\n%s", name, flag, out)
			}
		}
	}
	if _, out, _ := run("generate", "--help"); strings.Contains(out, "(required)") {
		t.Errorf("generate has no required flag, but its help marks one:\n%s", out)
	}
}

// TestUsageMistakes: an unknown command, an unknown flag, a stray argument and a missing
// required flag each say what is wrong and point to the command's --help, with no usage dump.
func TestUsageMistakes(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"genrate"}, "apigen: unknown command \"genrate\" for \"apigen\"\n\nDid you mean this?\n\tgenerate\n\nRun 'apigen --help' for usage.\n"},
		{[]string{"generate", "--frob"}, "apigen: unknown flag: --frob\nRun 'apigen generate --help' for usage.\n"},
		{[]string{"verify", "extra"}, "apigen: unknown command \"extra\" for \"apigen verify\"\nRun 'apigen verify --help' for usage.\n"},
		{[]string{"new-api", "--group", "toys"}, "apigen: required flag(s) \"kind\", \"version\" not set\nRun 'apigen new-api --help' for usage.\n"},
	} {
		code, out, errOut := run(tc.args...)
		if code != 1 || out != "" || errOut != tc.want {
			t.Errorf("apigen %s: exit %d, stdout %q, stderr:\n%s\nwant exit 1 and:\n%s", strings.Join(tc.args, " "), code, out, errOut, tc.want)
		}
	}
}

// TestVersion: apigen version and apigen --version print the same build information: the
// module and its version, the Go toolchain and what new projects are pinned to.
func TestVersion(t *testing.T) {
	code, out, errOut := run("version")
	if code != 0 || errOut != "" {
		t.Fatalf("apigen version: exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{
		"apigen (devel)\n", // a test binary, like go build in a checkout, has no module version
		"  module:     github.com/apigen-dev/apigen\n",
		"  go:         go1.",
		"  new projects get: k8s.io/* " + scaffold.KubernetesVersion + ", etcd " + scaffold.EtcdVersion,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("apigen version lacks %q:\n%s", want, out)
		}
	}
	if code, flagOut, _ := run("--version"); code != 0 || flagOut != out {
		t.Errorf("apigen --version: exit %d, output:\n%s\nwant that of apigen version:\n%s", code, flagOut, out)
	}
}
