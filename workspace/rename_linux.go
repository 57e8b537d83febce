//go:build linux

package workspace

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// renameAt renames a name in one held folder to a name in another, with
// renameat(2) on their descriptors: no path is walked again. noReplace
// makes an existing destination fail with EEXIST, atomically.
func renameAt(fromDir *os.Root, from string, toDir *os.Root, to string, noReplace bool) error {
	fd, err := fromDir.Open(".")
	if err != nil {
		return err
	}
	defer func() { _ = fd.Close() }()
	td, err := toDir.Open(".")
	if err != nil {
		return err
	}
	defer func() { _ = td.Close() }()
	var flags uint
	if noReplace {
		flags = unix.RENAME_NOREPLACE
	}
	err = unix.Renameat2(int(fd.Fd()), from, int(td.Fd()), to, flags)
	if noReplace && (errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS)) {
		// A file system without RENAME_NOREPLACE: checked under the lock.
		if _, serr := toDir.Lstat(to); serr == nil {
			return &os.LinkError{Op: "rename", Old: from, New: to, Err: os.ErrExist}
		}
		err = unix.Renameat(int(fd.Fd()), from, int(td.Fd()), to)
	}
	if err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	return nil
}
