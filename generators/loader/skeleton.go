package loader

import "bytes"

// skeleton returns a copy of Go source in which the inside of every top-level function body
// is reduced to empty statements: each run of code on a line becomes one ";" and spaces, and
// newlines and comments stay. So every position outside the bodies is where it was, and so is
// every comment, grouped as before (go/parser groups comments by their lines and by whether a
// token precedes them on their line, which the ";" keeps). Parsing the skeleton builds the same
// declarations as parsing the source, with empty bodies, in a fraction of the time and memory;
// most of a dependency's source is function bodies, which nothing apigen reads of a dependency
// needs.
//
// A top-level function declaration is found by "func" at the start of a line outside any
// parentheses, brackets or braces (as gofmt writes it); its body is the first brace at that
// level after the signature that does not open a struct or interface type. Source this does
// not understand (unbalanced brackets) comes back unchanged.
func skeleton(src []byte) []byte {
	out := bytes.Clone(src)
	var (
		nest     int  // open (, [ and { outside function bodies
		inSig    bool // after a top-level func keyword, before its body
		typeOpen bool // the last token was struct or interface: a { opens a type
		body     int  // brace depth inside a function body (0: not in one)
		run      bool // inside a body, this line's current run of code has its ";" already
	)
	// code blanks the code in out[i:j], inside a body: a ";" where a run starts.
	code := func(i, j int) {
		blank(out[i:j])
		if !run {
			out[i] = ';'
			run = true
		}
	}
	for i := 0; i < len(src); {
		c := src[i]
		// Comments, strings and runes: skipped whole (inside a body, comments are kept).
		if end, kind := literalEnd(src, i); end > i {
			if body > 0 {
				if kind == '/' {
					run = false // code after a comment on its line is another run
				} else {
					code(i, end)
					if bytes.IndexByte(src[i:end], '\n') >= 0 {
						run = false // the next token starts on this line, after the literal
					}
				}
			}
			typeOpen = false
			i = end
			continue
		}
		switch {
		case isLetter(c) || isDigit(c):
			j := i + 1
			for j < len(src) && (isLetter(src[j]) || isDigit(src[j])) {
				j++
			}
			word := src[i:j]
			if body == 0 && nest == 0 && string(word) == "func" && (i == 0 || src[i-1] == '\n') {
				inSig = true
			}
			typeOpen = string(word) == "struct" || string(word) == "interface"
			if body > 0 {
				code(i, j)
			}
			i = j
			continue
		case body > 0:
			switch c {
			case '{':
				body++
			case '}':
				body--
			case '\n':
				run = false
			}
			if body > 0 && c != '\n' && c != ' ' && c != '\t' && c != '\r' {
				code(i, i+1)
			}
		case c == '{' && inSig && nest == 0 && !typeOpen:
			body, inSig, run = 1, false, true // the { itself precedes what follows on its line
		case c == '(' || c == '[' || c == '{':
			nest++
		case c == ')' || c == ']' || c == '}':
			nest--
			if nest < 0 {
				return src
			}
		case c == '\n' && inSig && nest == 0:
			inSig = false // a declaration without a body
		}
		if c != ' ' && c != '\t' && c != '\r' {
			typeOpen = false
		}
		i++
	}
	if nest != 0 || body != 0 {
		return src
	}
	return out
}

// literalEnd returns the end of the comment, string or rune literal that starts at i, and its
// first byte ('/' for comments), or i when none starts there. An unterminated one ends at the
// end of the source.
func literalEnd(src []byte, i int) (int, byte) {
	switch c := src[i]; {
	case c == '/' && i+1 < len(src) && src[i+1] == '/':
		if j := bytes.IndexByte(src[i:], '\n'); j >= 0 {
			return i + j, '/' // the newline is not part of the comment
		}
		return len(src), '/'
	case c == '/' && i+1 < len(src) && src[i+1] == '*':
		if j := bytes.Index(src[i+2:], []byte("*/")); j >= 0 {
			return i + 2 + j + 2, '/'
		}
		return len(src), '/'
	case c == '`':
		if j := bytes.IndexByte(src[i+1:], '`'); j >= 0 {
			return i + 1 + j + 1, c
		}
		return len(src), c
	case c == '"' || c == '\'':
		for j := i + 1; j < len(src); j++ {
			switch src[j] {
			case '\\':
				j++
			case c:
				return j + 1, c
			case '\n':
				return j, c
			}
		}
		return len(src), c
	}
	return i, 0
}

// blank turns every byte but newlines into a space.
func blank(b []byte) {
	for i, c := range b {
		if c != '\n' {
			b[i] = ' '
		}
	}
}

// isLetter reports whether c may start an identifier; bytes of multi-byte UTF-8 characters
// count as letters, which keeps identifiers with non-ASCII letters whole.
func isLetter(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= 0x80
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
