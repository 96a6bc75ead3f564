//go:build cgo

// Package native uses cgo.
package native

// static int twice(int n) { return 2 * n; }
import "C"

// Level is as the C library counts it.
type Level int32

// Twice asks C.
func (l Level) Twice() Level { return Level(C.twice(C.int(l))) }
