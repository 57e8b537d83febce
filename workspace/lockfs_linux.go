//go:build linux

package workspace

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// lockFileSystem returns the file system type of lock directory dir (real,
// resolved), for the start log, and refuses one whose locks are known to
// stay on the node: NFS mounted with nolock or local_lock=flock|all, CIFS
// with nobrl. Their flock(2) succeeds, so the probe cannot tell; replicas
// on other nodes would then not exclude each other. A type not found is "".
func lockFileSystem(dir string) (string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", nil // no /proc: nothing to tell
	}
	defer func() { _ = f.Close() }()
	fstype, opts := mountOf(io.LimitReader(f, 16<<20), dir)
	return fstype, localLocks(dir, fstype, opts)
}

// mountOf finds the mount holding dir in mountinfo text: the longest mount
// point that is dir or one of its parents. It returns the type and options.
func mountOf(r io.Reader, dir string) (fstype string, opts []string) {
	best := -1
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 64<<10)
	for sc.Scan() {
		// id parent major:minor root mountpoint options [optional...] - type source superoptions
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		fields, tail := strings.Fields(pre), strings.Fields(post)
		if !ok || len(fields) < 6 || len(tail) < 3 {
			continue
		}
		mp := unescapeMount(fields[4])
		if mp != dir && !strings.HasPrefix(dir, strings.TrimSuffix(mp, "/")+"/") {
			continue
		}
		if len(mp) >= best { // later mounts over the same point win
			best = len(mp)
			fstype = tail[0]
			opts = append(strings.Split(fields[5], ","), strings.Split(tail[2], ",")...)
		}
	}
	return fstype, opts
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if c, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(c))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return filepath.Clean(b.String())
}

func localLocks(dir, fstype string, opts []string) error {
	var local string
	for _, o := range opts {
		if local != "" {
			break
		}
		switch {
		case strings.HasPrefix(fstype, "nfs") && (o == "nolock" || o == "local_lock=flock" || o == "local_lock=all"):
			local = o
		case (fstype == "cifs" || fstype == "smb3") && o == "nobrl":
			local = o
		}
	}
	if local == "" {
		return nil
	}
	return fmt.Errorf("workspace: lock directory %s is on %s mounted with %s, whose locks do not reach other nodes: replicas elsewhere would not wait for each other; mount it without %s (see docs/replicas.md)", dir, fstype, local, local)
}
