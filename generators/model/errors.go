package model

import (
	"cmp"
	"fmt"
	"go/token"
	"slices"
	"strings"
)

// Error is a problem with the user's input, positioned at the line that causes it.
type Error struct {
	Pos token.Position
	Msg string
}

func (e *Error) Error() string {
	if !e.Pos.IsValid() {
		return e.Msg
	}
	return fmt.Sprintf("%s: %s", e.Pos, e.Msg)
}

// ErrorList collects every problem of a run so that all of them are reported at once.
type ErrorList []*Error

// Add appends a positioned error, unless the list holds it already.
func (l *ErrorList) Add(pos token.Position, format string, args ...any) {
	e := &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
	// One line of the user's is one problem, however many versions reach it (a field that a
	// kind declared as a defined type of another version's shares with it).
	if slices.ContainsFunc(*l, func(o *Error) bool { return *o == *e }) {
		return
	}
	*l = append(*l, e)
}

// Err returns the list sorted by position as an error, or nil when it is empty.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	sorted := slices.Clone(l)
	slices.SortStableFunc(sorted, func(a, b *Error) int {
		return cmp.Or(
			strings.Compare(a.Pos.Filename, b.Pos.Filename),
			cmp.Compare(a.Pos.Line, b.Pos.Line),
			cmp.Compare(a.Pos.Column, b.Pos.Column),
			strings.Compare(a.Msg, b.Msg),
		)
	})
	return sorted
}

func (l ErrorList) Error() string {
	lines := make([]string, len(l))
	for i, e := range l {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}
