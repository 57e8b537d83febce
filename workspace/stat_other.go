//go:build !unix

package workspace

import "io/fs"

const oNonblock = 0

// linkCount returns 1: the platform does not report hard links.
func linkCount(fs.FileInfo) uint64 { return 1 }

// fileOwner is a file's owner and group, which this platform does not have.
type fileOwner struct {
	uid, gid int
	known    bool
}

func ownerOf(fs.FileInfo) fileOwner { return fileOwner{} }

// inodeOf returns 0: the platform does not report inode numbers.
func inodeOf(fs.FileInfo) uint64 { return 0 }
