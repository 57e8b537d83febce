//go:build !linux

package workspacetest

import "testing"

// SmallTmpfs needs Linux: the test is skipped.
func SmallTmpfs(t testing.TB, size int) string {
	t.Helper()
	t.Skip("a tmpfs can only be mounted on Linux, so this test cannot run here")
	return ""
}

// ReadOnly needs Linux: the test is skipped.
func ReadOnly(t testing.TB, dir string) string {
	t.Helper()
	t.Skip("a read-only bind mount needs Linux, so this test cannot run here")
	return ""
}
