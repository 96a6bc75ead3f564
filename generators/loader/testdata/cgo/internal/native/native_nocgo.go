//go:build !cgo

// Package native uses cgo, when it is on.
package native

// Level is as the C library counts it.
type Level int32

// Twice doubles the level.
func (l Level) Twice() Level { return 2 * l }
