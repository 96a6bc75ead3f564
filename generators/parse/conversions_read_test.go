package parse

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apigen-dev/apigen/generators/model"
)

// TestReadConversion: what a hand-written Convert_ function reads of its input is every chain
// in.X.Y it mentions, however it mentions it (&in.X, in.X[i].Y, as an argument); a value it
// copies or hands to a function other than a conversion one is used whole; handing in to its
// own autoConvert_ reads nothing, and handing it anywhere else, or copying *in, reads it whole.
func TestReadConversion(t *testing.T) {
	for _, c := range []struct {
		body string
		want model.HandConversion
	}{
		{"return autoConvert_v1_A_To_v2_A(in, out, s)", model.HandConversion{CallsAuto: true, Whole: true}},
		{"out.N = in.N; return nil", model.HandConversion{Sets: []string{"N"}, Reads: []string{"N"}, Hands: []string{"N"}}},
		{"if err := autoConvert_v1_A_To_v2_A(in, out, s); err != nil { return err }\n" +
			"f(&in.Ptr, in.Deep.X, in.Arg); out.M = in.Method(); return nil",
			model.HandConversion{CallsAuto: true, Whole: true, Sets: []string{"M"}, Reads: []string{"Arg", "Deep.X", "Method", "Ptr"}, Hands: []string{"Arg", "Deep.X", "Ptr"}}},
		{"_ = autoConvert_v1_A_To_v2_A(in, out, s); return helper(in, out)", model.HandConversion{CallsAuto: true, Whole: true, ReadsWhole: true}},
		{"_ = autoConvert_v1_A_To_v2_A(in, out, s); x := *in; _ = x; return nil", model.HandConversion{CallsAuto: true, Whole: true, ReadsWhole: true}},
		{"_ = autoConvert_v1_A_To_v2_A(in, out, s); return in.Validate()", model.HandConversion{CallsAuto: true, Whole: true, Reads: []string{"Validate"}}},
		// A nil test and a conversion function read a field without using it whole; a
		// range copies it.
		{"_ = autoConvert_v1_A_To_v2_A(in, out, s)\nif in.Spec != nil { _ = Convert_v1_S_To_v2_S(in.Spec, &out.Spec, s) }\n" +
			"for i := range in.Items { out.Items[i].Name = in.Items[i].Meta.Name }\nreturn nil",
			model.HandConversion{CallsAuto: true, Whole: true, Sets: []string{"Items", "Spec"}, Reads: []string{"Items.Meta.Name", "Spec"}, Hands: []string{"Items", "Items.Meta.Name"}}},
	} {
		src := "package v1\n\nfunc Convert_v1_A_To_v2_A(in *A, out *v2.A, s conversion.Scope) error {\n" + c.body + "\n}\n"
		f, err := parser.ParseFile(token.NewFileSet(), "conversion.go", src, 0)
		if err != nil {
			t.Fatal(err)
		}
		got := readConversion(f.Decls[0].(*ast.FuncDecl), "in", "out", token.Position{})
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s: (-want +got):\n%s", c.body, diff)
		}
	}
}
