package loader

// What the loader assumes of the go command's go list (and of go/packages, which runs it):
//
//   - go list takes a flag's last value, and go/packages puts the load's build flags after
//     its own, so that notCompiled turns off the -compiled go/packages asks for, and go list
//     then lists no compiled files (go/packages takes the Go files for them);
//   - with -export and -n, go list names the export data the go build cache holds and
//     builds nothing: a package it would have to compile is listed without Export
//     (goExportData, listedExports);
//   - without a GOPACKAGESDRIVER, go/packages asks the go command, so that the go build
//     cache's answers are for the very packages the load lists (goListDriver).
//
// TestAssumeGoListCompiledFalse and TestAssumeGoListExportBuildsNothing fail should the go
// command change any of it.

import (
	"os"
	"os/exec"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"
)

// notCompiled is the go list flag that stops the load's go list from working out the files the
// compiler would read. controller-tools' loader asks go/packages for them
// (NeedCompiledGoFiles), for which the go command hashes every file of the graph and asks
// the compiler, assembler, cgo and C compiler for their versions: ~0.3 s of CPU and ~0.2 s
// of wall time on examples/wardle, before the load can start. go list takes a flag's last
// value, and go/packages puts the build flags after its own; listing no compiled files, go
// list lists the Go files instead. They are the same files but in a package that uses cgo,
// which the go command compiles from what cgo makes of its files, with the imports cgo adds
// (runtime/cgo): the standard library's cgo packages come from export data, and a load that
// checks one from source (checkedCgo) is done again with the compiled files.
const notCompiled = "-compiled=false"

// listedExports is the go command's answer of a go list asked by asksList: the export data of
// the packages of the graph at roots, but the seed's packages that loads take from source.
func listedExports(roots []*packages.Package) *goQuery {
	q := &goQuery{done: make(chan struct{}), export: map[string]string{}}
	close(q.done)
	packages.Visit(roots, nil, func(p *packages.Package) {
		if p.Module == nil && p.ExportFile != "" && !slices.Contains(stdSeed.Source, p.PkgPath) {
			q.export[p.PkgPath] = p.ExportFile
		}
	})
	return q
}

// goListDriver reports whether go/packages asks the go command for the load's metadata (and
// not a GOPACKAGESDRIVER), so that the go command's build cache answers for the same packages.
func goListDriver() bool {
	d := os.Getenv("GOPACKAGESDRIVER")
	return d == "" || d == "off"
}

// goExportData returns the files of the go build cache that hold the export data of the
// standard library's packages patterns name, for the files and build configuration the load's go
// list chose: the go command runs in the same directory and environment, with the flags
// go/packages and controller-tools give it, and with -n, so that a package that is not in the
// cache (stale, a cleaned cache, another configuration) is left out rather than compiled (-n
// is go build's "print the commands but do not run them"; go list prints no Export for a
// package it would have to build). It is nil when the go command fails.
func goExportData(dir string, patterns []string) map[string]string {
	args := []string{"list", "-n", "-e", "-export", "-buildvcs=false", "-pgo=off", "-tags=" + BuildTag}
	args = append(args, "-f", "{{if .Standard}}{{.ImportPath}}\t{{.Export}}{{end}}", "--")
	cmd := exec.Command("go", append(args, patterns...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PWD="+dir) // as go/packages runs it
	out, err := cmd.Output()
	if err != nil {
		return nil
	}
	export := map[string]string{}
	for line := range strings.Lines(string(out)) {
		path, name, _ := strings.Cut(strings.TrimSuffix(line, "\n"), "\t")
		if name != "" {
			export[path] = name
		}
	}
	return export
}
