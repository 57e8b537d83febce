// Package workspace is toolguard's confined file access: it maps the paths
// models write onto a directory opened as an os.Root, refuses what it must not
// touch, writes files atomically and durably, and serialises the writers of a
// path. Package edit changes the text; this one reads and writes it.
//
// Paths (Resolve) are cleaned lexically into workspace-relative slash paths.
// Refused: the empty path, over 4,096 bytes, a name over 255 bytes, control
// characters, and on Unix a backslash, as "src\main.go" means src/main.go and
// ".git\config" is .git/config to a Windows file server (INVALID_PATH); a ".."
// above the root even if the path comes back in, an absolute path under
// neither the agent's nor the server's view of the root (OUTSIDE_WORKSPACE); a
// trailing "/" (NOT_REGULAR). Deny patterns (deny.go) match the cleaned path.
//
// Symbolic links: os.Root keeps every link inside the root. On top of it a
// linked directory on the way is refused with the real path to use instead, an
// absolute link is never followed, and a relative link as the last name is
// followed (up to 8) to a target checked like any path. Remove and Rename
// refuse a link rather than act on it or on what it points to.
//
// Files: only regular files with one hard link (another name may be outside:
// HARDLINK), up to Options.MaxFileBytes.
//
// Races: each directory on the way is checked, then opened as an os.Root below
// the one before, and the operation acts on a name in the last one held, so a
// directory swapped after its check cannot lead it out. The file is opened
// O_NONBLOCK and checked again with fstat; a file that changed between its
// check and its use is CONFLICT: read it again and retry.
//
// Writes never change a file in place: a temporary file, created exclusively
// next to the target, is fsynced and renamed over it, and the directory
// fsynced, so a reader or a crash sees the old file or the new one, whole.
// Open removes the temporary files a crash left behind.
package workspace
