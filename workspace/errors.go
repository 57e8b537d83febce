package workspace

import "errors"

// Codes of the refusals a Workspace returns as *Error. Each one is the
// model's to fix (another path, a fresh read); a failure that is not the
// model's fault (EIO, a permission problem of the server) is returned as a
// plain wrapped error instead, which callers map to an internal error. A full
// or read-only file system is not the model's fault either, but the caller
// must learn of it: such errors wrap ErrFull or ErrReadOnly.
const (
	// CodeOutsideWorkspace: an absolute path outside the workspace, or a
	// relative one whose ".." climbs above the workspace root.
	CodeOutsideWorkspace = "OUTSIDE_WORKSPACE"
	// CodeDeniedPath: the path matches a deny pattern (.git, the server's
	// list, the workspace's .toolguardignore).
	CodeDeniedPath = "DENIED_PATH"
	// CodeInvalidPath: empty, too long, a NUL or other control character, a
	// backslash (Unix), a name component over 255 bytes.
	CodeInvalidPath = "INVALID_PATH"
	// CodeNotFound: the file (or one of its directories) does not exist.
	CodeNotFound = "NOT_FOUND"
	// CodeNotRegular: a directory, FIFO, socket or device where a regular
	// file is needed, a file where a directory is needed, or a path that
	// ends with a slash (which names a directory).
	CodeNotRegular = "NOT_REGULAR"
	// CodeSymlink: a symbolic link toolguard refuses to follow (absolute,
	// dangling, pointing outside, a linked directory, a loop).
	CodeSymlink = "SYMLINK"
	// CodeHardlink: a regular file with more than one hard link.
	CodeHardlink = "HARDLINK"
	// CodeTooLarge: the file or the data is over Options.MaxFileBytes.
	CodeTooLarge = "TOO_LARGE"
	// CodeConflict: the file is not what the caller expected (its SHA-256
	// differs from WriteOptions.ExpectedSHA256, or it changed while being
	// read).
	CodeConflict = "CONFLICT"
)

// Failures of the workspace's file system rather than of the call. An
// error wrapping one of them also wraps the system error (errors.Is(err,
// syscall.ENOSPC) holds). When a write fails with one, its temporary file
// has been removed and the target is untouched.
var (
	// ErrFull: no space or no quota left (ENOSPC, EDQUOT).
	ErrFull = errors.New("the workspace's file system is full")
	// ErrReadOnly: the file system is mounted read-only (EROFS).
	ErrReadOnly = errors.New("the workspace's file system is read-only")
)

// Error is a refusal the model can act on. Msg is written for the model: it
// names the path and says what to do instead. Err, when set, is the
// underlying cause, for logs (Unwrap returns it, so errors.Is(err,
// fs.ErrNotExist) works for CodeNotFound).
type Error struct {
	Code string // one of the Code constants
	Path string // the path as the caller gave it, or the workspace-relative one
	Msg  string // the sentence to hand back to the model
	Err  error  // the cause, if any
}

// Error returns the model-facing message.
func (e *Error) Error() string {
	if e.Msg != "" {
		return e.Msg
	}
	if e.Err != nil {
		return e.Code + ": " + e.Path + ": " + e.Err.Error()
	}
	return e.Code + ": " + e.Path
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// IsCode reports whether err is (or wraps) an *Error with the given code.
func IsCode(err error, code string) bool {
	return CodeOf(err) == code && code != ""
}

// CodeOf returns the code of the *Error err is or wraps, or "" when err is
// nil or not a refusal (an I/O failure).
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
