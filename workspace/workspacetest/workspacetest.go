// Package workspacetest prepares file systems for tests of code that writes
// a workspace: a small tmpfs that fills up, and a read-only bind mount. Both
// mount, so they need Linux and root; elsewhere the test is skipped, and the
// message says why.
package workspacetest
