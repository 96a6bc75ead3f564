package loader

import (
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"strings"
)

// scanComments returns the comment groups of a Go file as go/parser groups them with
// ParseComments (its parser.next, over the same tokens), each where gengo's comment index
// keeps it: by the line it ends on, with name as its file. It scans the file's tokens and
// builds no syntax: of a package read from export data, gengo's index needs nothing else. ok is
// false when the file does not scan, or holds a line directive (the export data would place
// its declarations in the file and at the line the directive names).
func scanComments(name string, src []byte) (groups []commentGroup, ok bool) {
	file := token.NewFileSet().AddFile(name, -1, len(src))
	var s scanner.Scanner
	s.Init(file, src, nil, scanner.ScanComments)
	line := func(p token.Pos) int { return file.PositionFor(p, false).Line }
	var (
		pos    token.Pos
		tok    token.Token
		lit    string
		direct bool
	)
	next0 := func() { pos, tok, lit = s.Scan() }
	// group is go/parser's consumeCommentGroup: the comments that follow each other with at
	// most n lines between them.
	group := func(n int) {
		g := commentGroup{File: name}
		endline := line(pos)
		var end token.Pos
		for tok == token.COMMENT && line(pos) <= endline+n {
			direct = direct || strings.HasPrefix(lit, "//line ") || strings.HasPrefix(lit, "/*line ")
			endline = line(pos)
			if lit[1] == '*' {
				endline += strings.Count(lit, "\n")
			}
			g.Texts = append(g.Texts, lit)
			end = pos + token.Pos(len(lit))
			next0()
		}
		g.Line = line(end)
		groups = append(groups, g)
	}
	// next is go/parser's next: a comment on the line of the token before it starts a group
	// of its own (a line comment).
	next := func() {
		prev := pos
		next0()
		if tok == token.COMMENT {
			if line(pos) == line(prev) {
				group(0)
			}
			for tok == token.COMMENT {
				group(1)
			}
		}
	}
	for next(); tok != token.EOF; {
		next()
	}
	return groups, s.ErrorCount == 0 && !direct
}

// scanPackageComments returns the comment groups of a package's files (scanComments), each
// file named by its base name, or false when one does not scan or the package has files
// outside its directory (cgo's).
func scanPackageComments(files []string) ([]commentGroup, bool) {
	var groups []commentGroup
	for _, name := range files {
		if filepath.Dir(name) != filepath.Dir(files[0]) {
			return nil, false
		}
		src, err := os.ReadFile(name)
		if err != nil {
			return nil, false
		}
		g, ok := scanComments(filepath.Base(name), src)
		if !ok {
			return nil, false
		}
		groups = append(groups, g...)
	}
	return groups, true
}
