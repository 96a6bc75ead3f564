package cachefile

import (
	"runtime"
	"strings"
	"testing"
)

func TestExecutable(t *testing.T) {
	id, err := Executable()
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "linux" && !strings.HasPrefix(id, "buildid ") {
		t.Errorf("Executable() = %q; want the test binary's build ID", id)
	}
	for id, want := range map[string]bool{
		"CNLB3ASSQX1uGZhj_mHf/mv_cqU4V_Ms1lApiXVNO/Luz0sK6IqAKBUNbQ39NP/ghFr5VXaRhMS9E9bAzfk": true,
		"redacted": false,
		"":         false,
		"CNLB3ASSQX1uGZhj_mHf/mv_cqU4V_Ms1lApiXVNO":                                          false,
		"CNLB3ASSQX1uGZhj_mHf/mv_cqU4V_Ms1lApiXVNO/Luz0sK6IqAKBUNbQ39NP/ghFr5VXaRhMS9E9bAzf": false,
		"CNLB3ASSQX1uGZhj_mHf/mv_cqU4V_Ms1lApiXVNO/Luz0sK6IqAKBUNbQ39NP/ghFr5VXaRhMS9E9bAz!": false,
	} {
		if got := contentDerived(id); got != want {
			t.Errorf("contentDerived(%q) = %t, want %t", id, got, want)
		}
	}
}
