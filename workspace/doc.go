// Package workspace is toolguard's confined file access: it maps the paths
// models write onto a directory opened as an os.Root, refuses what it must not
// touch, writes files atomically and durably, and serialises the writers of a
// path. Package edit changes the text; this one reads and writes it.
//
// Paths are cleaned lexically; refused are control characters, a backslash on
// Unix (to a Windows file server ".git\config" is .git/config), a ".." above
// the root even if the path comes back in, absolute paths outside both the
// agent's and the server's view of the root, a trailing "/", and deny patterns.
// A linked directory on the way is refused with the real path to use, an
// absolute link never followed, a relative link as the last name followed to
// a target checked like any path. Only regular files with one hard link are
// read or written: another name may be outside.
//
// Races: each directory on the way is checked, then opened below the one
// before, and the operation acts on a name in the last one held, so a
// directory swapped after its check cannot lead it out; the file is checked
// again with fstat once open, and one changed meanwhile is a CONFLICT.
//
// A write never changes a file in place: a temporary file, created
// exclusively beside it, is fsynced and renamed over it, so a reader or a
// crash sees the old file or the new one, whole.
//
// Lock serialises the read-modify-writes of a path: in the process, and with
// Options.LockDir across the processes sharing the workspace, through
// flock(2) on lock files outside it; a wait is bounded by Options.LockTimeout.
package workspace
