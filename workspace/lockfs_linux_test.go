//go:build linux

package workspace

import (
	"strings"
	"testing"
)

const mountinfo = `22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw
40 22 0:40 / /mnt/shared rw,relatime shared:2 - nfs4 srv:/export rw,vers=4.1,local_lock=none
41 22 0:41 / /mnt/nolock rw shared:3 - nfs srv:/x rw,vers=3,nolock,local_lock=all
42 22 0:42 / /mnt/my\040share rw - cifs //srv/s rw,nobrl
43 22 0:43 / /mnt/sharedx rw - tmpfs tmpfs rw
`

// TestLockFileSystem: the mount holding the lock directory is the longest
// mount point above it; NFS and CIFS mounts whose locks stay on the node
// are refused, others only named.
func TestLockFileSystem(t *testing.T) {
	for _, tc := range []struct {
		dir, fstype, refused string
	}{
		{"/srv/locks", "ext4", ""},
		{"/mnt/shared/locks", "nfs4", ""},
		{"/mnt/shared", "nfs4", ""},
		{"/mnt/sharedx/locks", "tmpfs", ""},
		{"/mnt/nolock/locks", "nfs", "nolock"},
		{"/mnt/my share/locks", "cifs", "nobrl"},
	} {
		fstype, opts := mountOf(strings.NewReader(mountinfo), tc.dir)
		if fstype != tc.fstype {
			t.Errorf("%s: type %q, want %q", tc.dir, fstype, tc.fstype)
		}
		err := localLocks(tc.dir, fstype, opts)
		if (err == nil) != (tc.refused == "") || (err != nil && !strings.Contains(err.Error(), "mounted with "+tc.refused)) {
			t.Errorf("%s: %v, want refused for %q", tc.dir, err, tc.refused)
		}
	}
}

// FuzzMountOf: any mountinfo text gives a type and options or nothing,
// never a panic, and the refusal check takes whatever it gives.
func FuzzMountOf(f *testing.F) {
	f.Add(mountinfo, "/mnt/my share/locks")
	f.Add("1 2 3 4 \\", "/")
	f.Fuzz(func(t *testing.T, text, dir string) {
		fstype, opts := mountOf(strings.NewReader(text), dir)
		_ = localLocks(dir, fstype, opts)
	})
}
