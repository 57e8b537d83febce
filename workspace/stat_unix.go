//go:build unix

package workspace

import (
	"io/fs"
	"syscall"
)

// oNonblock keeps an open from blocking on a FIFO swapped in after the checks.
const oNonblock = syscall.O_NONBLOCK

// linkCount returns the number of hard links of a file.
func linkCount(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink) // uint16 on Darwin, uint32 on linux/arm64
	}
	return 1
}

// fileOwner is a file's owner and group, where the platform has them.
type fileOwner struct {
	uid, gid int
	known    bool
}

func ownerOf(fi fs.FileInfo) fileOwner {
	if fi == nil {
		return fileOwner{}
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileOwner{}
	}
	return fileOwner{uid: int(st.Uid), gid: int(st.Gid), known: true}
}

// inodeOf returns a file's inode number, 0 where there is none.
func inodeOf(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino) //nolint:unconvert // uint32 on some platforms
	}
	return 0
}
