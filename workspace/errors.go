package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"syscall"
)

// Codes of the refusals a Workspace returns as *Error, each the model's to fix.
// A failure that is not the model's is a plain wrapped error.
const (
	CodeOutsideWorkspace = "OUTSIDE_WORKSPACE" // absolute elsewhere, or ".." above the root
	CodeDeniedPath       = "DENIED_PATH"       // a deny pattern: .git, the server's, .toolguardignore
	CodeInvalidPath      = "INVALID_PATH"      // empty, too long, control characters, a backslash
	CodeNotFound         = "NOT_FOUND"         // the file or a directory on its path
	CodeNotRegular       = "NOT_REGULAR"       // a directory, FIFO, socket or device; a trailing "/"
	CodeSymlink          = "SYMLINK"           // a link not followed: absolute, dangling, outside, a directory, a loop
	CodeHardlink         = "HARDLINK"          // a file with more than one hard link
	CodeTooLarge         = "TOO_LARGE"         // over Options.MaxFileBytes
	CodeConflict         = "CONFLICT"          // not the file expected: another hash, or changed meanwhile
)

// Failures of the file system rather than of the call, wrapping the system error.
var (
	ErrFull     = errors.New("the workspace's file system is full")      // ENOSPC, EDQUOT
	ErrReadOnly = errors.New("the workspace's file system is read-only") // EROFS
)

// Error is a refusal the model can act on; Err, when set, is the cause.
type Error struct {
	Code string // one of the Code constants
	Path string // the path as the caller gave it, or the workspace-relative one
	Msg  string // the sentence to hand back to the model
	Err  error  // the cause, if any
}

// Error returns the message for the model.
func (e *Error) Error() string {
	if e.Msg != "" {
		return e.Msg
	}
	if e.Err != nil {
		return e.Code + ": " + e.Path + ": " + e.Err.Error()
	}
	return e.Code + ": " + e.Path
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// IsCode reports whether err is (or wraps) an *Error with the given code.
func IsCode(err error, code string) bool {
	return CodeOf(err) == code && code != ""
}

// CodeOf returns the code of the *Error err is or wraps, or "".
func CodeOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

func refuse(code, path, msg string, cause error) *Error {
	return &Error{Code: code, Path: path, Msg: msg, Err: cause}
}

func (w *Workspace) linkedDir(orig, rel, dir string, rest []string) error {
	msg := fmt.Sprintf("path %q goes through %q, which is a symbolic link to a directory; toolguard does not follow links to directories", orig, dir)
	dest, err := w.root.Readlink(dir)
	switch {
	case err != nil:
	case isAbs(dest):
		msg += fmt.Sprintf(" (it points to the absolute path %q)", dest)
		if real, err := w.clean(dest); err == nil {
			msg += fmt.Sprintf(". Use the real path %q instead", path.Join(append([]string{real}, rest...)...))
			return refuse(CodeSymlink, rel, msg, nil)
		}
	default:
		if real, ok := joinInside(path.Dir(dir), toSlash(dest)); ok {
			msg += fmt.Sprintf(". Use the real path %q instead", path.Join(append([]string{real}, rest...)...))
			return refuse(CodeSymlink, rel, msg, nil)
		}
		msg += fmt.Sprintf(" (it points to %q, outside the workspace)", dest)
	}
	return refuse(CodeSymlink, rel, msg+". Write to a file inside the workspace instead", nil)
}

func (w *Workspace) dangling(orig string, links []string, target string) error {
	return refuse(CodeSymlink, links[0], fmt.Sprintf(
		"%q is a symbolic link to %q, which does not exist; toolguard does not read or write through dangling links. Write to the real file path instead", orig, target), nil)
}

func (w *Workspace) hardlink(orig, rel string, n uint64) error {
	return refuse(CodeHardlink, rel, fmt.Sprintf(
		"file %q has %d hard links; toolguard does not read or change files linked under other names (another name may be outside the workspace). Write a new file instead", orig, n), nil)
}

func (w *Workspace) notRegular(orig, rel string, mode fs.FileMode) error {
	msg := fmt.Sprintf("%q is %s, not a regular file; toolguard only reads and writes regular files", orig, kindOf(mode))
	if mode.IsDir() {
		msg = fmt.Sprintf("%q is a directory, not a file; give the path of a file (for example %q)", orig, path.Join(rel, "name.ext"))
	}
	return refuse(CodeNotRegular, rel, msg, nil)
}

func (w *Workspace) tooLarge(orig string, n int64) error {
	return refuse(CodeTooLarge, orig, fmt.Sprintf("file %q is %d bytes; toolguard reads and writes files of up to %d bytes", orig, n, w.maxBytes), nil)
}

// ioError classifies a failure after the checks: a race that put a link, a missing file
// or a wrong type on the way is the refusal the checks would have given.
func (w *Workspace) ioError(op, orig, rel string, err error) error {
	var errno syscall.Errno
	switch {
	case errors.Is(err, fs.ErrNotExist) && (op == "open" || op == "stat" || op == "readlink" || op == "remove"):
		// Gone since the checks; a missing temporary file is the server's problem.
		return refuse(CodeNotFound, rel, fmt.Sprintf("file %q does not exist in the workspace", orig), err)
	case errors.Is(err, fs.ErrNotExist) && op == "create":
		// The directory, held open since the checks, was removed.
		return refuse(CodeConflict, rel, fmt.Sprintf("the directory of %q was removed or replaced while toolguard was writing; look at the workspace again and retry", orig), err)
	case op == "readlink" && errors.As(err, &errno) && errno == syscall.EINVAL:
		// No longer a link: replaced since its lstat.
		return refuse(CodeConflict, rel, fmt.Sprintf("file %q changed while toolguard was reading it (a symbolic link was replaced); read it again and retry", orig), err)
	case strings.Contains(err.Error(), "path escapes from parent"):
		return refuse(CodeSymlink, rel, fmt.Sprintf("path %q leads out of the workspace through a symbolic link; toolguard does not follow links out of the workspace. Write to the real file path instead", orig), err)
	case errors.As(err, &errno) && errno == syscall.ELOOP:
		return refuse(CodeSymlink, rel, fmt.Sprintf("path %q goes through too many symbolic links; write to the real file path instead", orig), err)
	case errors.As(err, &errno) && errno == syscall.ENOTDIR:
		return refuse(CodeNotRegular, rel, fmt.Sprintf("path %q goes through a file where a directory is needed", orig), err)
	case errors.As(err, &errno) && errno == syscall.ENAMETOOLONG:
		return refuse(CodeInvalidPath, rel, fmt.Sprintf("path %q is too long for the file system", orig), err)
	}
	return ioFailure(op, rel, err)
}

// ioFailure wraps a failed call that is no refusal, marking a full or
// read-only file system, the environment's fault rather than the server's.
func ioFailure(op, rel string, err error) error {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		switch errno {
		case syscall.ENOSPC, syscall.EDQUOT:
			return fmt.Errorf("workspace: %s %s: %w: %w", op, rel, ErrFull, err)
		case syscall.EROFS:
			return fmt.Errorf("workspace: %s %s: %w: %w", op, rel, ErrReadOnly, err)
		}
	}
	return fmt.Errorf("workspace: %s %s: %w", op, rel, err)
}

func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m.IsRegular():
		return "a regular file"
	}
	return "a special file"
}
