package guard

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/toolguard/toolguard/workspace"
)

// A search walks the folder with the confined walker, which opens each
// file it passes in the directory it holds, and hands the open files to
// a pool of readers, one per CPU. Results are merged in walk order, so
// the answer is the same however the readers are scheduled: the first
// max_results matching lines by path (folder by folder, names in byte
// order), then line. The bounds on files and bytes are taken on what the
// walk hands out, from the sizes it saw, for the same reason.

const (
	// binaryProbe is how much of a file is read to tell text from binary:
	// a NUL byte in it marks a binary file, which is not read further.
	binaryProbe = 8 << 10
	// searchWindow bounds the files handed out and not yet merged.
	searchWindow = 256
	// maxSearchLineBytes bounds a line shown; a longer one is cut around
	// its match.
	maxSearchLineBytes = 500
)

// searchRun is one search's settings.
type searchRun struct {
	pat       *linePattern
	include   *glob
	exclude   globSet
	before    int
	after     int
	mode      string
	max       int
	gitignore bool
	maxFiles  int
	maxBytes  int64
	maxFile   int64
}

// fileJob is an open file handed to the readers, and its answer.
type fileJob struct {
	path string
	f    *os.File
	size int64
	done chan fileHits
}

// fileHits is what one file held.
type fileHits struct {
	matches  []SearchMatch
	count    int // matching lines, shown or not
	binary   bool
	skipped  bool // not read: the search's time ran out
	bytes    int64
	readFail bool
}

func (r *searchRun) run(ctx context.Context, ws *workspace.Workspace, top string) (*Searched, error) {
	out := &Searched{Path: top, Mode: r.mode, MaxResults: r.max, Before: r.before, After: r.after}
	jobs := make(chan *fileJob, searchWindow)
	order := make(chan *fileJob, searchWindow)
	var full atomic.Bool // the answer holds max_results: readers only count
	var readers sync.WaitGroup
	for range max(runtime.GOMAXPROCS(0), 1) {
		readers.Add(1)
		go func() {
			defer readers.Done()
			m := &matcher{p: r.pat, ctx: ctx}
			var buf []byte
			for j := range jobs {
				var h fileHits
				h, buf = r.scan(ctx, j, m, buf, &full)
				_ = j.f.Close()
				j.done <- h
			}
		}()
	}
	merged := make(chan struct{})
	go func() {
		defer close(merged)
		for j := range order {
			out.merge(j.path, <-j.done, &full)
		}
	}()
	// The walk's own counts, added to the merged ones at the end: the
	// merging goroutine writes out meanwhile.
	var dispatched int64
	var opened, large, unreadable int
	var cut string
	st, err := ws.Walk(ctx, top, workspace.WalkOptions{Gitignore: r.gitignore}, func(e *workspace.Entry) error {
		rel, isDir := below(top, e.Path), e.Type == workspace.EntryDir
		if r.exclude.match(rel, e.Name, isDir) {
			if isDir {
				return workspace.SkipDir
			}
			return nil
		}
		if e.Type != workspace.EntryFile || (r.include != nil && !r.include.match(rel, e.Name, false)) {
			return nil
		}
		switch {
		case opened >= r.maxFiles:
			cut = "files"
			return workspace.SkipAll
		case dispatched+e.Size > r.maxBytes:
			cut = "bytes"
			return workspace.SkipAll
		case e.Size > r.maxFile:
			large++
			return nil
		}
		f, err := e.Open()
		if err != nil {
			if workspace.CodeOf(err) == "" && !errors.Is(err, os.ErrNotExist) {
				unreadable++
			}
			return nil // a hard link, or changed since it was listed: not searched
		}
		opened++
		dispatched += e.Size
		j := &fileJob{path: e.Path, f: f, size: e.Size, done: make(chan fileHits, 1)}
		order <- j
		jobs <- j
		return nil
	})
	close(jobs)
	close(order)
	<-merged
	readers.Wait()
	out.FilesSearched += opened
	out.LargeSkipped += large
	out.UnreadableSkipped += unreadable
	out.Cut = cut
	if err != nil {
		return nil, err
	}
	if st.Cut == workspace.CutTime || ctx.Err() != nil {
		out.Cut = "time"
	} else if st.Cut == workspace.CutEntries && out.Cut == "" {
		out.Cut = "entries"
	}
	out.Partial = out.Cut != "" || st.Unread > 0 || st.Deep > 0
	return out, nil
}

// merge adds one file's hits, in walk order, keeping the first max.
func (s *Searched) merge(path string, h fileHits, full *atomic.Bool) {
	s.BytesRead += h.bytes
	switch {
	case h.skipped:
		s.FilesSearched--
		return
	case h.readFail:
		s.FilesSearched--
		s.UnreadableSkipped++
		return
	case h.binary:
		s.FilesSearched--
		s.BinarySkipped++
		return
	case h.count == 0:
		return
	}
	s.FilesMatched++
	s.TotalMatches += h.count
	if s.Mode != SearchContent {
		if len(s.Files) < s.MaxResults {
			s.Files = append(s.Files, SearchFile{Path: path, Count: h.count})
		} else {
			s.Omitted++
		}
	} else {
		take := min(len(h.matches), s.MaxResults-len(s.Matches))
		for _, m := range h.matches[:take] {
			m.Path = path
			s.Matches = append(s.Matches, m)
		}
		s.Omitted += h.count - take
	}
	if len(s.Matches) >= s.MaxResults || len(s.Files) >= s.MaxResults {
		full.Store(true)
	}
}

// scan reads one file and finds its matching lines; buf is the reader's
// buffer, grown as needed and handed back.
func (r *searchRun) scan(ctx context.Context, j *fileJob, m *matcher, buf []byte, full *atomic.Bool) (fileHits, []byte) {
	var h fileHits
	if ctx.Err() != nil {
		h.skipped = true
		return h, buf
	}
	if int64(cap(buf)) < j.size+1 {
		buf = make([]byte, j.size+1)
	}
	data := buf[:j.size+1]
	probe := min(len(data), binaryProbe)
	n, err := io.ReadFull(j.f, data[:probe])
	h.bytes = int64(n)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		h.readFail = true
		return h, buf
	}
	if bytes.IndexByte(data[:n], 0) >= 0 {
		h.binary = true
		return h, buf
	}
	if n == probe && probe < len(data) {
		k, err := io.ReadFull(j.f, data[probe:])
		h.bytes += int64(k)
		n += k
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
			h.readFail = true
			return h, buf
		}
	}
	// The size the walk saw is what is searched: a file grown since is
	// searched to that size.
	data = data[:min(int64(n), j.size)]
	h.bytes = min(h.bytes, j.size)
	r.find(data, m, &h, full)
	return h, buf
}

// find collects data's matching lines into h.
func (r *searchRun) find(data []byte, m *matcher, h *fileHits, full *atomic.Bool) {
	line, last := 1, 0
	m.each(data, func(lm lineMatch) bool {
		h.count++
		if r.mode == SearchFiles {
			return false
		}
		if r.mode == SearchCount || len(h.matches) >= r.max || full.Load() {
			return true
		}
		line += bytes.Count(data[last:lm.start], []byte{'\n'})
		last = lm.start
		h.matches = append(h.matches, SearchMatch{
			Line: line, Column: lm.col + 1, Text: showLine(data[lm.start:lm.end], lm.col),
			Before: linesBefore(data, lm.start, r.before), After: linesAfter(data, lm.end, r.after),
		})
		return true
	})
}

// linesBefore returns up to n lines before the line starting at start.
func linesBefore(data []byte, start, n int) []string {
	if n == 0 || start == 0 {
		return nil
	}
	var out []string
	end := start - 1 // the newline ending the line before
	for ; n > 0 && end >= 0; n-- {
		s := bytes.LastIndexByte(data[:end], '\n') + 1
		out = append(out, showLine(data[s:end], 0))
		end = s - 1
	}
	for i, k := 0, len(out)-1; i < k; i, k = i+1, k-1 {
		out[i], out[k] = out[k], out[i]
	}
	return out
}

// linesAfter returns up to n lines after the line ending at end.
func linesAfter(data []byte, end, n int) []string {
	var out []string
	for s := end + 1; n > 0 && s < len(data); n-- {
		e := len(data)
		if i := bytes.IndexByte(data[s:], '\n'); i >= 0 {
			e = s + i
		}
		out = append(out, showLine(data[s:e], 0))
		s = e + 1
	}
	return out
}

// showLine is a line as the answer shows it: without its "\r", valid
// UTF-8, and cut to maxSearchLineBytes around col.
func showLine(b []byte, col int) string {
	b = bytes.TrimSuffix(b, []byte{'\r'})
	if len(b) <= maxSearchLineBytes {
		return strings.ToValidUTF8(string(b), "\uFFFD")
	}
	start := max(0, min(col-maxSearchLineBytes/5, len(b)-maxSearchLineBytes))
	end := start + maxSearchLineBytes
	s := strings.ToValidUTF8(string(b[start:end]), "\uFFFD")
	if start > 0 {
		s = "…" + s
	}
	if end < len(b) {
		s += "…"
	}
	return s
}
