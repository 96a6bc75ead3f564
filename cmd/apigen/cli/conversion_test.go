package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestConversionThatLosesAField restores the pitfall examples/wardle once had: hand-written
// conversions of FlunderSpec written before spec.replicas existed, which neither call their
// autoConvert_ function nor set Replicas. generate warns at both functions and names the field;
// the project's generated round-trip test fails on the field, and passes once the functions
// call autoConvert_ again (the example as committed).
func TestConversionThatLosesAField(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a whole project and runs its tests")
	}
	dir := wardleCopy(t)
	conversion := filepath.Join(dir, "pkg/apis/wardle/v1alpha1/conversion.go")
	fixed := readTestFile(t, conversion)
	lossy := fixed
	for _, auto := range []string{
		"autoConvert_v1alpha1_FlunderSpec_To_v1beta1_FlunderSpec",
		"autoConvert_v1beta1_FlunderSpec_To_v1alpha1_FlunderSpec",
	} {
		call := "\tif err := " + auto + "(in, out, s); err != nil {\n\t\treturn err\n\t}\n"
		if !strings.Contains(lossy, call) {
			t.Fatalf("examples/wardle's conversion.go no longer calls %s as this test expects", auto)
		}
		lossy = strings.Replace(lossy, call, "", 1)
	}
	if err := os.WriteFile(conversion, []byte(lossy), 0o644); err != nil {
		t.Fatal(err)
	}
	want := `pkg/apis/wardle/v1alpha1/conversion.go:14:6: warning: Convert_v1alpha1_FlunderSpec_To_v1beta1_FlunderSpec loses v1beta1.FlunderSpec.Replicas on every conversion: it neither sets it nor calls autoConvert_v1alpha1_FlunderSpec_To_v1beta1_FlunderSpec, which would; call autoConvert_v1alpha1_FlunderSpec_To_v1beta1_FlunderSpec first, then convert what it leaves to you
pkg/apis/wardle/v1alpha1/conversion.go:28:6: warning: Convert_v1beta1_FlunderSpec_To_v1alpha1_FlunderSpec loses FlunderSpec.Replicas on every conversion: it neither sets it nor calls autoConvert_v1beta1_FlunderSpec_To_v1alpha1_FlunderSpec, which would; call autoConvert_v1beta1_FlunderSpec_To_v1alpha1_FlunderSpec first, then convert what it leaves to you
`
	if code, _, errOut := run("generate"); code != 0 || errOut != want {
		t.Errorf("generate with the lossy conversion: exit %d, stderr:\n%s\nwant exit 0 and:\n%s", code, errOut, want)
	}
	roundTrip := func() (string, error) {
		cmd := exec.Command("go", "test", "-count=1", "./pkg/apis/wardle/install/")
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := roundTrip(); err == nil || !strings.Contains(out, "Replicas:") {
		t.Errorf("the generated round-trip test passed the lossy conversion, or failed on something else: %v\n%s", err, out)
	}

	if err := os.WriteFile(conversion, []byte(fixed), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := run("generate"); code != 0 || errOut != "" {
		t.Errorf("generate with the conversion as committed: exit %d, stderr:\n%s", code, errOut)
	}
	if out, err := roundTrip(); err != nil {
		t.Errorf("the generated round-trip test fails on examples/wardle: %v\n%s", err, out)
	}
}
