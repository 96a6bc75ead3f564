package model

import (
	"go/token"
	"strings"
	"testing"
)

func TestDefaultDeploy(t *testing.T) {
	if got, want := DefaultDeploy("My_Project.v2"), (Deploy{Namespace: "my-project-v2-system", Name: "my-project-v2-apiserver", Image: "my-project-v2-apiserver:latest"}); got != want {
		t.Errorf("DefaultDeploy = %+v, want %+v", got, want)
	}
	if got := DefaultDeploy("wardle").ServingCertSecret(); got != "wardle-apiserver-serving-cert" {
		t.Errorf("ServingCertSecret = %q", got)
	}
}

func TestValidateDeploy(t *testing.T) {
	marker := token.Position{Filename: "pkg/apis/doc.go", Line: 7, Column: 1}
	for _, tc := range []struct {
		name string
		p    Project
		want []string // one line per error, in order
	}{
		{"defaults", Project{Name: "wardle", Deploy: DefaultDeploy("wardle")}, nil},
		{"default from a bad project name", Project{Name: "2fast", Deploy: DefaultDeploy("2fast")}, []string{
			`project name "2fast" gives the default name "2fast-apiserver", which is not a valid Service name (at most 40 lower-case letters, digits and '-', starting with a letter and ending with a letter or digit; the bundled etcd's CronJob <name>-etcd-backup may have at most 52); choose one with // +apigen:deploy:name=<name> in pkg/apis/doc.go`,
		}},
		{"marker", Project{Name: "wardle", Deploy: Deploy{Namespace: "Wardle", Name: "wardle-" + strings.Repeat("x", 60), Image: "a b", Pos: marker}}, []string{
			`pkg/apis/doc.go:7:1: +apigen:deploy: image "a b" contains white space, which no image reference does`,
			`pkg/apis/doc.go:7:1: +apigen:deploy: name "wardle-` + strings.Repeat("x", 60) + `" is not a valid Service name (at most 40 lower-case letters, digits and '-', starting with a letter and ending with a letter or digit; the bundled etcd's CronJob <name>-etcd-backup may have at most 52)`,
			`pkg/apis/doc.go:7:1: +apigen:deploy: namespace "Wardle" is not a valid namespace name (at most 63 lower-case letters, digits and '-', starting and ending with a letter or digit)`,
		}},
		{"empty image", Project{Name: "wardle", Deploy: Deploy{Namespace: "apis", Name: "toys", Pos: marker}}, []string{
			`pkg/apis/doc.go:7:1: +apigen:deploy: image is empty; leave the argument out for the default toys:latest, or name an image such as example.com/toys:v0.1.0`,
		}},
	} {
		err := tc.p.Validate()
		var got []string
		if err != nil {
			got = strings.Split(err.Error(), "\n")
		}
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s:\ngot  %q\nwant %q", tc.name, got, tc.want)
		}
	}
}
