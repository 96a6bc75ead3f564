package loader

import (
	"go/token"
	"go/types"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAssumeExportData: the go build cache's export data of the standard library reads
// (readExportFile, readExport), its positions name the package's files in one directory,
// $GOROOT/src/<path>/ as the compiler writes it (exportFileNames), and the compiler still names the unnamed
// results of a function that returns from inside a range-over-func loop (reflect's
// Value.Comparable), which a load from source does not (namesResults). When the last fails
// after a Go upgrade, the compiler no longer does so and namesResults can go.
func TestAssumeExportData(t *testing.T) {
	const root = "testdata/project"
	pkgs := []string{"strings", "reflect"}
	cached := goBuildCached(t, root, pkgs...)
	export := goExportData(root, pkgs)
	read := func(path string) (*token.FileSet, *types.Package, []byte) {
		t.Helper()
		if !cached[path] || export[path] == "" {
			t.Skipf("the go build cache does not hold %s as the load builds it", path)
		}
		data, err := readExportFile(export[path])
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		tp, err := readExport(data, fset, map[string]*types.Package{}, path)
		if err != nil {
			t.Fatalf("the export data of %s does not read: %v", path, err)
		}
		return fset, tp, data
	}
	t.Run("file names", func(t *testing.T) {
		fset, tp, _ := read("strings")
		cmd := exec.Command("go", "list", "-f", "{{.Dir}}{{range .GoFiles}} {{.}}{{end}}", "strings")
		cmd.Dir = root
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		fields := strings.Fields(string(out))
		dir, files := fields[0], fields[1:]
		for i, f := range files {
			files[i] = filepath.Join(dir, f)
		}
		// The compiler writes $GOROOT literally (or nothing, with -trimpath).
		prefix, ok := exportFileNames(fset, tp, files)
		if !ok || prefix != "$GOROOT/src/strings/" && prefix != "strings/" {
			t.Errorf("the export data of strings names its files %q (ok %t), want $GOROOT/src/strings/ or strings/", prefix, ok)
		}
	})
	t.Run("named results", func(t *testing.T) {
		_, tp, data := read("reflect")
		if !namesResults(data) {
			t.Error("reflect's export data names no results #rv: the compiler no longer renames them, namesResults can go")
		}
		m, _, _ := types.LookupFieldOrMethod(tp.Scope().Lookup("Value").Type(), false, tp, "Comparable")
		sig, ok := m.(*types.Func)
		if !ok || sig.Signature().Results().Len() != 1 || !strings.HasPrefix(sig.Signature().Results().At(0).Name(), "#rv") {
			t.Errorf("reflect.Value.Comparable from export data: %v, want a result named #rv1", m)
		}
	})
}
