package engine

import (
	"bytes"
	"fmt"

	"golang.org/x/tools/imports"
)

// FormatGo formats generated Go source in memory (never by running gofmt, whose presence and
// version vary between machines). A formatting failure is a bug in a generator; the error
// carries the numbered source so it can be found, and nothing is written.
//
// It is goimports' formatting, which prints the file as gofmt does (go/format is its last
// step) and groups the standard library's imports apart from the others, as Kubernetes code is
// written. FormatOnly: imports are neither added nor removed.
func FormatGo(name string, src []byte) ([]byte, error) {
	out, err := imports.Process(name, src, &imports.Options{FormatOnly: true, Comments: true, TabIndent: true, TabWidth: 8})
	if err != nil {
		return nil, fmt.Errorf("%s: generated Go does not format: %v\n%s", name, err, numbered(src))
	}
	return out, nil
}

func numbered(src []byte) []byte {
	var b bytes.Buffer
	for i, line := range bytes.Split(src, []byte("\n")) {
		fmt.Fprintf(&b, "%5d\t%s\n", i+1, line)
	}
	return b.Bytes()
}
