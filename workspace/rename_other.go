//go:build !linux

package workspace

import (
	"errors"
	"os"
)

// renameAt renames a name in one held folder to a name in another; without
// renameat2 the existence check is under the workspace's lock only.
func renameAt(fromDir *os.Root, from string, toDir *os.Root, to string, noReplace bool) error {
	if noReplace {
		if _, err := toDir.Lstat(to); err == nil {
			return &os.LinkError{Op: "rename", Old: from, New: to, Err: os.ErrExist}
		}
	}
	if fromDir == toDir {
		return fromDir.Rename(from, to)
	}
	return &os.LinkError{Op: "rename", Old: from, New: to, Err: errCrossDir}
}

var errCrossDir = errors.New("moving between folders is supported on Linux only")
