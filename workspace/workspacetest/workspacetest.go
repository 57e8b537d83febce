// Package workspacetest prepares file systems for tests of code that uses
// a workspace: files laid out in a folder, a small tmpfs that fills up, and
// a read-only bind mount. The last two mount, so they need Linux and root;
// elsewhere the test is skipped, and the message says why.
package workspacetest
