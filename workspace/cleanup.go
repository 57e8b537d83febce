package workspace

import (
	"strings"
	"time"
)

// removeTemps deletes the temporary files (.toolguard-tmp-*) a crash left
// behind. It walks the workspace through the Root without following
// symbolic links, skips .git directories (toolguard never writes there),
// goes at most 32 directories deep and looks at most at 500,000 entries, so
// a huge tree costs a bounded start-up. Files younger than minAge are kept.
// Failures are ignored: cleanup is best effort.
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
		f.Close()
	}
}
