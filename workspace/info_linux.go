//go:build linux

package workspace

import (
	"io/fs"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// statTimes returns a file's access and status-change times.
func statTimes(fi fs.FileInfo) (accessed, changed time.Time) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return time.Time{}, time.Time{}
	}
	return time.Unix(st.Atim.Unix()), time.Unix(st.Ctim.Unix())
}

// birthTime returns the creation time of name in dir where the file system
// records it (statx), zero otherwise. name is one component and a final
// link is not followed, so the look-up stays in dir.
func birthTime(dir *os.Root, name string) time.Time {
	d, err := dir.Open(".")
	if err != nil {
		return time.Time{}
	}
	defer func() { _ = d.Close() }()
	var st unix.Statx_t
	if err := unix.Statx(int(d.Fd()), name, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_BTIME, &st); err != nil || st.Mask&unix.STATX_BTIME == 0 {
		return time.Time{}
	}
	return time.Unix(st.Btime.Sec, int64(st.Btime.Nsec))
}
