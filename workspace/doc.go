// Package workspace owns confined file access for toolguard: it maps the
// paths models write onto a workspace directory opened as an os.Root, refuses
// anything that would reach outside it or touch what it must not (symlinks
// out, hard links, devices, deny patterns), writes files atomically and
// durably, serialises concurrent writers of one path, and applies edits with
// an exact-then-fuzzy matching ladder that changes only the matched span.
//
// It is a pure Go library: no gRPC, no protobuf. The edit engine (edit.go,
// searchreplace.go, patch.go, diff.go) works on strings and never touches the
// file system; the file side (workspace.go, write.go, deny.go) never parses
// edits.
package workspace
