//go:build !linux

package cli

import (
	"testing"
	"time"
)

// accessed is the zero time where the test does not read access times, so that
// TestCacheKeyHoldsEveryFileTheRunReads skips.
func accessed(*testing.T, string) time.Time { return time.Time{} }
