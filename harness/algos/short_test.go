package algos

import "testing"

// skipLongReproduction skips a reproduction that runs for seconds under
// `go test -short`, the fast path; the full suite (`go test ./...`, and
// CI) runs it.
func skipLongReproduction(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("a long reproduction: run without -short")
	}
}
