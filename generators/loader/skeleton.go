package loader

import (
	"bytes"
	"strings"
)

// skeleton returns a copy of Go source in which the inside of every top-level function body
// is reduced to empty statements: each run of code on a line that holds a comment becomes one
// ";" and spaces, other code becomes spaces, and newlines and comments stay. So every position
// outside the bodies is where it was, and so is every comment, grouped as before (go/parser
// groups comments by their lines and by whether a token lies between them or precedes them on
// their line, which the ";" keeps: two comments with code between them on lines of their own
// are more than a line apart, so in two groups anyway). Parsing the skeleton builds the same
// declarations as parsing the source, with empty bodies, in a fraction of the time and memory;
// most of a dependency's source is function bodies, which nothing apigen reads of a dependency
// needs. The elements of a composite literal that initializes a package-level variable are
// reduced the same way (see literalSkeleton), since dropBodies drops them after the parse.
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
		run      bool // inside a body, this line's current run of code has begun
		pending  = -1 // where the current run begins, if it has no ";" yet
		comment  bool // inside a body, this line has a comment before this point
		varNest  = -1 // the nesting of a var declaration's specs (0 or 1); -1: not in one
	)
	// code blanks the code in out[i:j], inside a body. A run that shares its line with a
	// comment begins with a ";"; the others need none (a token where no comment is on its line
	// changes no comment group), and go/parser makes a statement of each ";".
	code := func(i, j int) {
		blank(out[i:j])
		if !run {
			run = true
			if comment {
				out[i] = ';'
			} else {
				pending = i
			}
		}
	}
	// newLine ends the body's line.
	newLine := func() { run, pending, comment = false, -1, false }
	for i := 0; i < len(src); {
		c := src[i]
		// Comments, strings and runes: skipped whole (inside a body, comments are kept).
		if end, kind := literalEnd(src, i); end > i {
			if body > 0 {
				if kind == '/' {
					if pending >= 0 {
						out[pending] = ';' // the run before the comment on its line
					}
					newLine()
					comment = true // code after a comment on its line is another run
				} else {
					code(i, end)
					if bytes.IndexByte(src[i:end], '\n') >= 0 {
						newLine() // the next token starts on this line, after the literal
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
			if body == 0 && nest == 0 && (i == 0 || src[i-1] == '\n') {
				inSig = inSig || string(word) == "func"
				varNest = -1
				if string(word) == "var" {
					varNest = 0
					if k := skipSpace(src, j); k < len(src) && src[k] == '(' {
						varNest = 1
					}
				}
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
				newLine()
			}
			if body > 0 && c != '\n' && c != ' ' && c != '\t' && c != '\r' {
				code(i, i+1)
			}
		case c == '=' && nest == varNest && isAssign(src, i):
			if end := literalSkeleton(src, out, i+1); end > 0 {
				typeOpen = false
				i = end
				continue
			}
		case c == '{' && inSig && nest == 0 && !typeOpen:
			newLine()
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

// isAssign reports whether the = at i is an assignment, not part of ==, !=, <=, >= or :=.
func isAssign(src []byte, i int) bool {
	if i > 0 && strings.IndexByte("=!<>:", src[i-1]) >= 0 {
		return false
	}
	return i+1 >= len(src) || src[i+1] != '='
}

// skipSpace returns the index of the first byte at or after i that is not a space or a tab.
func skipSpace(src []byte, i int) int {
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	return i
}

// literalSkeleton reduces, in out, the elements of the composite literal that src holds after a
// package-level variable's = at i (an optional &, a type written without spaces outside
// brackets, then {...}, the whole value), and returns the index after its closing brace; or 0, with out
// unchanged, for any other value. Each run of code on a line inside the braces becomes "0," and
// spaces (a run of one byte, "0", only right before the closing brace), so the literal parses
// with as many elements as runs, its braces, every comment and every comment group where they
// were, which is all dropBodies leaves of it (dropElements). Literals it does not reduce are
// left to dropElements: a [...]T (whose length is the number of elements), a type that is not
// a named, slice, array or map type (a struct type's braces, a func literal, a conversion), a
// *T{} (a dereference of the literal), and elements with a string spanning lines.
func literalSkeleton(src, out []byte, i int) int {
	j := skipSpace(src, i)
	if j < len(src) && src[j] == '&' {
		j++
	}
	// The type: [] and [N] and map[K] prefixes (a * may follow each), then a name, optionally
	// qualified and instantiated.
	star, ellipsis := false, false
	for first := true; ; first = false {
		if j >= len(src) {
			return 0
		}
		switch c := src[j]; {
		case c == '[':
			end := bracketEnd(src, j)
			if end < 0 {
				return 0
			}
			if bytes.Contains(src[j:end], []byte("...")) {
				if string(src[j:end]) != "[...]" || !first {
					return 0 // only [...] as gofmt writes it, and only outermost
				}
				ellipsis = true
			}
			j, star = end, true
			continue
		case c == '*' && star:
			j, star = j+1, false
			continue
		case isLetter(c):
			k := j + 1
			for k < len(src) && (isLetter(src[k]) || isDigit(src[k])) {
				k++
			}
			switch string(src[j:k]) {
			case "map":
				if k >= len(src) || src[k] != '[' {
					return 0
				}
				end := bracketEnd(src, k)
				if end < 0 {
					return 0
				}
				j, star = end, true
				continue
			case "func", "struct", "interface", "chan":
				return 0
			}
			j = k
			if j+1 < len(src) && src[j] == '.' && isLetter(src[j+1]) {
				j++
				continue
			}
			if j < len(src) && src[j] == '[' {
				if j = bracketEnd(src, j); j < 0 {
					return 0
				}
			}
			if j >= len(src) || src[j] != '{' {
				return 0
			}
		default:
			return 0
		}
		break
	}
	if ellipsis {
		return elementsSkeleton(src, out, j)
	}
	open := j
	runStart, runEnd := -1, -1 // this line's current run of code, [runStart, runEnd)
	// flush writes the run's token; closing: the literal's closing brace follows on its line.
	flush := func(closing bool) bool {
		if runStart < 0 {
			return true
		}
		if runEnd-runStart < 2 && !closing {
			return false
		}
		blank(out[runStart:runEnd])
		out[runStart] = '0'
		if runEnd-runStart >= 2 {
			out[runStart+1] = ','
		}
		runStart = -1
		return true
	}
	depth := 0
	k := open
scan:
	for k < len(src) {
		if end, kind := literalEnd(src, k); end > k {
			if kind == '/' {
				if !flush(false) {
					break scan
				}
			} else {
				if bytes.IndexByte(src[k:end], '\n') >= 0 {
					break scan
				}
				if runStart < 0 {
					runStart = k
				}
				runEnd = end
			}
			k = end
			continue
		}
		switch c := src[k]; c {
		case '\n':
			if !flush(false) {
				break scan
			}
		case ' ', '\t', '\r':
		default:
			if c == '{' {
				depth++
			} else if c == '}' {
				depth--
			}
			if depth == 0 {
				// The literal must be the whole value (not T{}.f(), T{} + x).
				if e := skipSpace(src, k+1); e < len(src) && !bytes.HasPrefix(src[e:], []byte("//")) &&
					strings.IndexByte("\n\r,);", src[e]) < 0 {
					break scan
				}
				if !flush(true) {
					break scan
				}
				return k + 1
			}
			if k != open { // the opening brace stays
				if runStart < 0 {
					runStart = k
				}
				runEnd = k + 1
			}
		}
		k++
	}
	copy(out[i:k], src[i:k]) // not understood: the source stays as it was
	return 0
}

// elementsSkeleton reduces, in out, the elements of the [...]T literal whose { is at open, and
// returns the index after its closing brace; or 0, with out unchanged, when it does not (see
// literalSkeleton). The literal's length is its number of elements, so each element becomes one
// "0," (the last, without a comma, "0") at its first byte and spaces. That needs elements that
// each lie on one line with no comment inside, and no keys (dropElements keeps keyed elements).
func elementsSkeleton(src, out []byte, open int) int {
	depth := 0 // open brackets of every kind, the literal's { included
	elem := -1 // the first byte of the element being read (-1: between elements)
	k := open
scan:
	for k < len(src) {
		if end, kind := literalEnd(src, k); end > k {
			if kind == '/' {
				if elem >= 0 {
					break scan
				}
			} else {
				if bytes.IndexByte(src[k:end], '\n') >= 0 {
					break scan
				}
				if elem < 0 {
					elem = k
				}
			}
			k = end
			continue
		}
		switch c := src[k]; c {
		case '\n':
			if elem >= 0 {
				break scan
			}
		case ' ', '\t', '\r':
		case '{', '(', '[':
			if depth++; depth > 1 && elem < 0 {
				elem = k
			}
		case '}', ')', ']':
			if depth--; depth == 0 {
				if e := skipSpace(src, k+1); e < len(src) && !bytes.HasPrefix(src[e:], []byte("//")) &&
					strings.IndexByte("\n\r,);", src[e]) < 0 {
					break scan
				}
				if elem >= 0 { // the last element, without a comma
					blank(out[elem:k])
					out[elem] = '0'
				}
				return k + 1
			}
		case ',':
			if depth == 1 {
				if elem < 0 {
					break scan
				}
				blank(out[elem : k+1])
				out[elem], out[elem+1] = '0', ','
				elem = -1
			}
		case ':':
			if depth == 1 {
				break scan // a keyed element
			}
		default:
			if elem < 0 {
				elem = k
			}
		}
		k++
	}
	copy(out[open:k], src[open:k]) // not understood: the source stays as it was
	return 0
}

// bracketEnd returns the index after the ] that closes the [ at i (on the same line), or -1.
func bracketEnd(src []byte, i int) int {
	depth := 0
	for k := i; k < len(src); {
		if end, _ := literalEnd(src, k); end > k {
			k = end
			continue
		}
		switch src[k] {
		case '[':
			depth++
		case ']':
			if depth--; depth == 0 {
				return k + 1
			}
		case '\n':
			return -1
		}
		k++
	}
	return -1
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
