// Package workspace owns confined file access for toolguard: it maps the
// paths models write onto a workspace directory opened as an os.Root, refuses
// anything that would reach outside it or touch what it must not (symlinks
// out, hard links, devices, deny patterns), writes files atomically and
// durably, and serialises concurrent writers of one path. The edit engine it
// serves is package edit, which works on text alone.
//
// It is a pure Go library: no gRPC, no protobuf.
package workspace
