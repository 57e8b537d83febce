package workspace

import (
	"strings"
	"time"
)

// removeTemps deletes the temporary files a crash left, those at least minAge
// old, best effort. It follows no link, skips .git, and bounds its depth and
// the entries it reads, so a huge tree costs a bounded start-up.
func (w *Workspace) removeTemps(minAge time.Duration) {
	type dir struct {
		rel   string
		depth int
	}
	stack := []dir{{".", 0}}
	seen := 0
	for len(stack) > 0 && seen < maxCleanupEntries {
		d := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		f, err := w.root.Open(d.rel)
		if err != nil {
			continue
		}
		for seen < maxCleanupEntries {
			ents, err := f.ReadDir(512)
			for _, e := range ents {
				seen++
				name := e.Name()
				child := name
				if d.rel != "." {
					child = d.rel + "/" + name
				}
				switch {
				case e.IsDir():
					if name != ".git" && d.depth+1 < maxCleanupDepth {
						stack = append(stack, dir{child, d.depth + 1})
					}
				case e.Type().IsRegular() && strings.HasPrefix(name, tempPrefix):
					if minAge > 0 {
						if fi, err := e.Info(); err != nil || time.Since(fi.ModTime()) < minAge {
							continue
						}
					}
					_ = w.root.Remove(child)
				}
			}
			if err != nil {
				break
			}
		}
		_ = f.Close()
	}
}
