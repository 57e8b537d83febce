package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// ErrNotWritable is a workspace folder the process may not create files in:
// most often a volume whose files belong to another user, on a storage class
// that does not apply the pod's fsGroup (NFS, EFS, CephFS).
var ErrNotWritable = errors.New("the workspace is not writable by this server")

// CheckWritable creates and removes a file in dir, as a change would, so
// that a server that could not write says so at start rather than at the
// first call. A read-only mount is no error (reads still serve; writes fail
// with ErrReadOnly); a permission refusal is ErrNotWritable, with who the
// process is and who owns the folder.
func CheckWritable(dir string) error {
	name := filepath.Join(dir, tempPrefix+"probe-"+strconv.Itoa(os.Getpid())+"-"+strconv.FormatInt(time.Now().UnixNano(), 36))
	f, err := probeOpen(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	switch {
	case err == nil:
		_ = f.Close()
		return os.Remove(name)
	case errors.Is(ioFailure("probe", dir, err), ErrReadOnly):
		return nil
	case errors.Is(err, fs.ErrPermission):
		owner := "an unknown owner"
		if fi, serr := os.Stat(dir); serr == nil {
			if o := ownerOf(fi); o.known {
				owner = fmt.Sprintf("uid %d, gid %d, mode %v", o.uid, o.gid, fi.Mode().Perm())
			}
		}
		return fmt.Errorf("%w: %s (%s) refuses files to uid %d, gid %d, groups %v: on Kubernetes the volume ignores the pod's fsGroup (NFS, EFS, CephFS do); give the folder to the server's user with an init container, or set the storage class's uid/gid (docs/deployment.md): %w",
			ErrNotWritable, dir, owner, os.Getuid(), os.Getgid(), groups(), err)
	default:
		return fmt.Errorf("workspace: probe %s: %w", dir, err)
	}
}

// probeOpen is os.OpenFile; tests running as root, whom permissions do not
// stop, replace it.
var probeOpen = os.OpenFile

func groups() []int {
	g, _ := os.Getgroups()
	return g
}
