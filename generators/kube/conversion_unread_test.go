package kube_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apigen-dev/apigen/generators/pipeline"
)

// unreadProject is a group with versions v1 (stored, the hub) and v1beta1 of Toy, whose
// v1beta1 spec has three parts that each carry a field v1 lacks, Legacy: conversion-gen notes
// it inside each autoConvert_ function as requiring manual conversion, and leaves the
// conversion of each part to a hand-written Convert_ function. Skips' never reads Legacy;
// Reads' reads it; Helps' passes its input whole to a helper, which may read any field; Nests'
// does not, but the spec's conversion, which holds Nests, does.
var unreadProject = map[string]string{
	"pkg/apis/toys/v1/doc.go": "// +groupName=toys.example.com\npackage v1\n",
	"pkg/apis/toys/v1/types.go": `package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// +apigen:resource:path=toys,scope=Namespaced
// +apigen:storageversion
type Toy struct {
	metav1.TypeMeta   ` + "`json:\",inline\"`" + `
	metav1.ObjectMeta ` + "`json:\"metadata,omitempty\"`" + `
	Spec ToySpec ` + "`json:\"spec\"`" + `
}

type ToySpec struct {
	Skips Skips ` + "`json:\"skips\"`" + `
	Reads Reads ` + "`json:\"reads\"`" + `
	Helps Helps ` + "`json:\"helps\"`" + `
	Nests Nests ` + "`json:\"nests\"`" + `
}

type Skips struct {
	Name        string            ` + "`json:\"name\"`" + `
	Annotations map[string]string ` + "`json:\"annotations,omitempty\"`" + `
}

type Reads struct {
	Name        string            ` + "`json:\"name\"`" + `
	Annotations map[string]string ` + "`json:\"annotations,omitempty\"`" + `
}

type Helps struct {
	Name        string            ` + "`json:\"name\"`" + `
	Annotations map[string]string ` + "`json:\"annotations,omitempty\"`" + `
}

type Nests struct {
	Name        string            ` + "`json:\"name\"`" + `
	Annotations map[string]string ` + "`json:\"annotations,omitempty\"`" + `
}

type ToyList struct {
	metav1.TypeMeta ` + "`json:\",inline\"`" + `
	metav1.ListMeta ` + "`json:\"metadata,omitempty\"`" + `
	Items []Toy ` + "`json:\"items\"`" + `
}
`,
	"pkg/apis/toys/v1beta1/doc.go": "// +groupName=toys.example.com\npackage v1beta1\n",
	"pkg/apis/toys/v1beta1/types.go": `package v1beta1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// +apigen:resource:path=toys,scope=Namespaced
type Toy struct {
	metav1.TypeMeta   ` + "`json:\",inline\"`" + `
	metav1.ObjectMeta ` + "`json:\"metadata,omitempty\"`" + `
	Spec ToySpec ` + "`json:\"spec\"`" + `
}

type ToySpec struct {
	Skips Skips ` + "`json:\"skips\"`" + `
	Reads Reads ` + "`json:\"reads\"`" + `
	Helps Helps ` + "`json:\"helps\"`" + `
	Nests Nests ` + "`json:\"nests\"`" + `
}

type Skips struct {
	Name   string ` + "`json:\"name\"`" + `
	Legacy string ` + "`json:\"legacy,omitempty\"`" + `
}

type Reads struct {
	Name   string ` + "`json:\"name\"`" + `
	Legacy string ` + "`json:\"legacy,omitempty\"`" + `
}

type Helps struct {
	Name   string ` + "`json:\"name\"`" + `
	Legacy string ` + "`json:\"legacy,omitempty\"`" + `
}

type Nests struct {
	Name   string ` + "`json:\"name\"`" + `
	Legacy string ` + "`json:\"legacy,omitempty\"`" + `
}

type ToyList struct {
	metav1.TypeMeta ` + "`json:\",inline\"`" + `
	metav1.ListMeta ` + "`json:\"metadata,omitempty\"`" + `
	Items []Toy ` + "`json:\"items\"`" + `
}
`,
	"pkg/apis/toys/v1beta1/conversion.go": `package v1beta1

import (
	"k8s.io/apimachinery/pkg/conversion"

	v1 "example.com/wardle/pkg/apis/toys/v1"
)

func Convert_v1beta1_Skips_To_v1_Skips(in *Skips, out *v1.Skips, s conversion.Scope) error {
	return autoConvert_v1beta1_Skips_To_v1_Skips(in, out, s)
}

func Convert_v1beta1_Reads_To_v1_Reads(in *Reads, out *v1.Reads, s conversion.Scope) error {
	if err := autoConvert_v1beta1_Reads_To_v1_Reads(in, out, s); err != nil {
		return err
	}
	if in.Legacy != "" {
		out.Annotations = map[string]string{"toys.example.com/legacy": in.Legacy}
	}
	return nil
}

func Convert_v1beta1_Helps_To_v1_Helps(in *Helps, out *v1.Helps, s conversion.Scope) error {
	if err := autoConvert_v1beta1_Helps_To_v1_Helps(in, out, s); err != nil {
		return err
	}
	keepLegacy(in, out)
	return nil
}

func keepLegacy(in *Helps, out *v1.Helps) {
	if in.Legacy != "" {
		out.Annotations = map[string]string{"toys.example.com/legacy": in.Legacy}
	}
}

// The spec's conversion keeps nests.legacy; the conversion of Nests itself leaves it alone, as
// k8s.io/kubernetes' object conversions carry fields their parts' conversions do not.
func Convert_v1beta1_ToySpec_To_v1_ToySpec(in *ToySpec, out *v1.ToySpec, s conversion.Scope) error {
	if err := autoConvert_v1beta1_ToySpec_To_v1_ToySpec(in, out, s); err != nil {
		return err
	}
	if in.Nests.Legacy != "" {
		out.Nests.Annotations = map[string]string{"toys.example.com/legacy": in.Nests.Legacy}
	}
	return nil
}

func Convert_v1beta1_Nests_To_v1_Nests(in *Nests, out *v1.Nests, s conversion.Scope) error {
	return autoConvert_v1beta1_Nests_To_v1_Nests(in, out, s)
}

func Convert_v1_Nests_To_v1beta1_Nests(in *v1.Nests, out *Nests, s conversion.Scope) error {
	if err := autoConvert_v1_Nests_To_v1beta1_Nests(in, out, s); err != nil {
		return err
	}
	out.Legacy = in.Annotations["toys.example.com/legacy"]
	return nil
}

func Convert_v1_Skips_To_v1beta1_Skips(in *v1.Skips, out *Skips, s conversion.Scope) error {
	if err := autoConvert_v1_Skips_To_v1beta1_Skips(in, out, s); err != nil {
		return err
	}
	out.Legacy = in.Annotations["toys.example.com/legacy"]
	return nil
}

func Convert_v1_Reads_To_v1beta1_Reads(in *v1.Reads, out *Reads, s conversion.Scope) error {
	if err := autoConvert_v1_Reads_To_v1beta1_Reads(in, out, s); err != nil {
		return err
	}
	out.Legacy = in.Annotations["toys.example.com/legacy"]
	return nil
}

func Convert_v1_Helps_To_v1beta1_Helps(in *v1.Helps, out *Helps, s conversion.Scope) error {
	if err := autoConvert_v1_Helps_To_v1beta1_Helps(in, out, s); err != nil {
		return err
	}
	out.Legacy = in.Annotations["toys.example.com/legacy"]
	return nil
}
`,
}

// TestConversionThatNeverReadsAField: generate warns, at the hand-written function, when a
// Convert_ function calls its autoConvert_ but never reads a field conversion-gen noted as
// requiring manual conversion, naming the field and conversion-gen's reason; it does not warn
// at one that reads the field, nor at one that hands its input to a helper, nor at one whose
// field the conversion of the enclosing type reads. The same holds
// when the project ships conversion-gen's own zz_generated.conversion.go, which apigen keeps
// and does not regenerate (Cluster API's and Kueue's spoke versions).
func TestConversionThatNeverReadsAField(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a project twice")
	}
	root := t.TempDir()
	files := map[string]string{}
	for name, content := range unreadProject {
		files[name] = content
	}
	for _, name := range []string{"go.mod", "go.sum"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "examples", "wardle", name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = string(data)
	}
	write := func(name, content string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range files {
		write(name, content)
	}
	want := "pkg/apis/toys/v1beta1/conversion.go:9:6: warning: Convert_v1beta1_Skips_To_v1_Skips calls autoConvert_v1beta1_Skips_To_v1_Skips " +
		"but never reads Skips.Legacy, which conversion-gen cannot convert (does not exist in peer-type): objects lose it whenever they " +
		"cross this conversion; convert it in Convert_v1beta1_Skips_To_v1_Skips (into an annotation, or the peer's equivalent field)"
	const conversions = "pkg/apis/toys/v1beta1/zz_generated.conversion.go"
	check := func(how string) *pipeline.Result {
		t.Helper()
		res, err := pipeline.Run(root, pipeline.Options{})
		if err != nil {
			t.Fatalf("%s: %v", how, err)
		}
		var unread []string
		for _, w := range strings.Split(res.Project.Warnings.Error(), "\n") {
			if strings.Contains(w, "never reads") {
				unread = append(unread, w)
			}
		}
		if len(unread) != 1 || unread[0] != want {
			t.Errorf("%s: warnings about fields never read:\n%s\nwant exactly:\n%s", how, strings.Join(unread, "\n"), want)
		}
		return res
	}
	res := check("apigen's conversions")
	src, ok := res.Output.Get(conversions)
	if !ok {
		t.Fatalf("no %s among %q", conversions, res.Output.Paths())
	}
	for _, note := range []string{"// WARNING: in.Legacy requires manual conversion: does not exist in peer-type", "// WARNING: in.Annotations requires manual conversion: does not exist in peer-type"} {
		if strings.Count(string(src), note) != 4 {
			t.Errorf("%s should note %q in each part's autoConvert_ function:\n%s", conversions, note, src)
		}
	}

	// As the project would ship it: conversion-gen's own file, which apigen keeps.
	shipped := strings.Replace(string(src), "// Code generated by apigen. DO NOT EDIT.", "// Code generated by conversion-gen. DO NOT EDIT.", 1)
	if shipped == string(src) {
		t.Fatalf("%s has no apigen header to replace:\n%s", conversions, src)
	}
	write(conversions, shipped)
	res = check("conversion-gen's own conversions")
	if _, ok := res.Output.Get(conversions); ok {
		t.Errorf("apigen generates %s although the project ships conversion-gen's", conversions)
	}
}
