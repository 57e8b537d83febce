package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"sync"
)

// openChecked opens t and checks it again with fstat, as it may have been swapped since.
func (w *Workspace) openChecked(orig string, t *target) (*os.File, fs.FileInfo, error) {
	w.counts.reads.Add(1)
	f, err := t.dir().OpenFile(t.name, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return nil, nil, w.ioError("open", orig, t.rel, err)
	}
	fi, err := f.Stat()
	switch {
	case err != nil:
		err = fmt.Errorf("workspace: stat %s: %w", t.rel, err)
	case !fi.Mode().IsRegular():
		err = w.notRegular(orig, t.rel, fi.Mode())
	case !os.SameFile(fi, t.info):
		err = refuse(CodeConflict, t.rel, fmt.Sprintf("file %q changed while toolguard was opening it; read it again and retry", orig), nil)
	case linkCount(fi) > 1:
		err = w.hardlink(orig, t.rel, linkCount(fi))
	case fi.Size() > w.maxBytes:
		err = w.tooLarge(orig, fi.Size())
	}
	if err != nil {
		_ = f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// read reads t whole and hashes it; it also returns the opened file's fstat.
func (w *Workspace) read(orig string, t *target) ([]byte, FileInfo, fs.FileInfo, error) {
	f, fi, err := w.openChecked(orig, t)
	if err != nil {
		return nil, FileInfo{}, nil, err
	}
	defer func() { _ = f.Close() }()
	data, err := readLimited(f, fi.Size(), w.maxBytes)
	if err != nil {
		return nil, FileInfo{}, nil, fmt.Errorf("workspace: read %s: %w", t.rel, err)
	}
	if int64(len(data)) > w.maxBytes {
		return nil, FileInfo{}, nil, w.tooLarge(orig, int64(len(data)))
	}
	w.counts.hashes.Add(1)
	info := FileInfo{Path: t.rel, Exists: true, Size: int64(len(data)), Mode: fi.Mode().Perm(), SHA256: SHA256Hex(data)}
	return data, info, fi, nil
}

// readLimited reads f to the end, at most max+1 bytes, starting with a buffer of size.
func readLimited(f io.Reader, size, max int64) ([]byte, error) {
	buf := make([]byte, 0, min(size, max)+1)
	for int64(len(buf)) <= max {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, int(min(int64(cap(buf)), max+1-int64(len(buf)))))
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
	return buf, nil
}

var copyBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// hash returns the SHA-256 of t and its permission bits without holding it in memory.
func (w *Workspace) hash(orig string, t *target) (string, fs.FileMode, error) {
	f, fi, err := w.openChecked(orig, t)
	if err != nil {
		return "", 0, err
	}
	defer func() { _ = f.Close() }()
	bp := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(bp)
	w.counts.hashes.Add(1)
	h := sha256.New()
	var n int64
	for {
		k, err := f.Read(*bp)
		h.Write((*bp)[:k])
		if n += int64(k); n > w.maxBytes {
			return "", 0, refuse(CodeTooLarge, orig, fmt.Sprintf("file %q is over %d bytes; toolguard reads and writes files of up to %d bytes", orig, w.maxBytes, w.maxBytes), nil)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", 0, fmt.Errorf("workspace: read %s: %w", t.rel, err)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), fi.Mode().Perm(), nil
}
