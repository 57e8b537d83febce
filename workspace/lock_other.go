//go:build !unix

package workspace

import (
	"errors"
	"os"
)

// errNoFileLocks refuses a lock directory where toolguard has no file
// locks: a replica that believed itself excluded would lose updates.
var errNoFileLocks = errors.New("cross-process locks are only implemented on Unix")

func tryLockFile(*os.File) (bool, error) { return false, errNoFileLocks }

func unlockFile(*os.File) error { return nil }
