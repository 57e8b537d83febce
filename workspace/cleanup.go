package workspace

import (
	"strings"
	"time"
)

// SweepTemps removes the temporary files a crash left that are at least the
// workspace's age bound old at now (Options.CleanupMinAge, or
// DefaultCleanupMinAge when that is not positive): writes still in
// progress, here or on a replica sharing the volume, are younger. A server
// calls it every TempMaxAge, so a crash's leftovers go within two bounds
// without waiting for a restart.
func (w *Workspace) SweepTemps(now time.Time) { w.removeTemps(now, w.tempMaxAge) }

// TempMaxAge is the age past which SweepTemps removes a temporary file.
func (w *Workspace) TempMaxAge() time.Duration { return w.tempMaxAge }

// removeTemps deletes the temporary files a crash left, those at least minAge
// old at now, best effort. It follows no link, skips .git, and bounds its
// depth and the entries it reads, so a huge tree costs a bounded sweep.
func (w *Workspace) removeTemps(now time.Time, minAge time.Duration) {
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
						if fi, err := e.Info(); err != nil || now.Sub(fi.ModTime()) < minAge {
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
