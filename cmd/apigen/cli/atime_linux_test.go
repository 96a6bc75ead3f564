package cli

import (
	"syscall"
	"testing"
	"time"
)

// accessed is the access time of the file at name.
func accessed(t *testing.T, name string) time.Time {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(name, &st); err != nil {
		t.Fatal(err)
	}
	return time.Unix(st.Atim.Sec, st.Atim.Nsec)
}
