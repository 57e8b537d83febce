package guard

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/workspace"
)

const (
	// ListToolName lists a folder or a tree.
	ListToolName = "list_directory"
	// DefaultListEntries is the entries a listing shows when not told.
	DefaultListEntries = 200
	// MaxListEntries caps what a listing or a find shows, whatever asked.
	MaxListEntries = 5000
	// maxListDepth is a tree's deepest level (workspace.DefaultWalkDepth).
	maxListDepth = workspace.DefaultWalkDepth
	// listScanEntries bounds the entries a listing reads to count what it
	// leaves out; past it the count is a lower bound.
	listScanEntries = 100_000
)

func init() { registerLook(ListToolName, (*Guard).listCall) }

// DirEntry is one entry of a listing or a find.
type DirEntry struct {
	// Path is workspace-relative; Name its last element.
	Path string              `json:"path"`
	Name string              `json:"name"`
	Type workspace.EntryType `json:"type"`
	// Size is a regular file's size in bytes.
	Size int64 `json:"size,omitempty"`
	// Target is a link's target as written; links are never followed.
	Target string `json:"link_target,omitempty"`
	// Depth is 1 for the entries of the folder listed.
	Depth int `json:"depth"`
	// Omitted counts a shown folder's own entries the bound left out.
	Omitted int `json:"omitted,omitempty"`
}

// Listing is a folder's entries, or a tree's, as list_directory answers.
type Listing struct {
	// Path is the folder listed, workspace-relative ("." the root).
	Path  string `json:"path"`
	Depth int    `json:"depth"`
	// Entries are in tree order: by name in each folder, a folder's
	// entries right after it; the shallower levels are shown first when
	// the bound cuts.
	Entries []DirEntry `json:"entries"`
	// Totals of the entries shown.
	Files  int   `json:"files"`
	Dirs   int   `json:"directories"`
	Links  int   `json:"symlinks"`
	Others int   `json:"others"`
	Bytes  int64 `json:"total_bytes"`
	// Omitted counts the entries not shown; Partial says the count
	// stopped early (time, or the scan bound), so there may be more.
	Omitted int  `json:"omitted"`
	Partial bool `json:"partial,omitempty"`
	// MaxEntries is the bound applied.
	MaxEntries int `json:"max_entries"`
}

// ListRequest is a listing asked for in fields (ListDirectory, the CLI).
type ListRequest struct {
	RequestContext
	Path       string
	Depth      int // 0: 1
	MaxEntries int // 0: DefaultListEntries
	Exclude    []string
	Gitignore  bool
}

// ListDirectory lists a folder as the ListDirectory RPC asks, counted in
// the session as a call of list_directory.
func (g *Guard) ListDirectory(ctx context.Context, req ListRequest) (*Look, error) {
	args := setFields(map[string]any{"path": req.Path, "depth": req.Depth, "max_entries": req.MaxEntries,
		"exclude": req.Exclude, "gitignore": req.Gitignore})
	return g.lookRequest(ctx, req.RequestContext, ListToolName, args)
}

// lookArgs are the arguments list and find share.
type lookArgs struct {
	path      string
	max       int
	exclude   globSet
	gitignore bool
}

// readLookArgs reads them, or adds the violation that refuses them.
func readLookArgs(res *repair.Result, maxParam string) (lookArgs, bool) {
	a := lookArgs{max: DefaultListEntries}
	a.path, _ = res.Args["path"].(string)
	a.gitignore, _ = res.Args["gitignore"].(bool)
	n, err := intArg(res.Args[maxParam])
	if err != nil {
		res.Violate(repair.CodeInvalidValue, maxParam, maxParam+" must be a whole number")
		return a, false
	}
	if n > 0 {
		a.max = min(n, MaxListEntries)
	}
	ex, msg := compileGlobs("exclude", stringList(res.Args["exclude"]))
	if msg != "" {
		res.Violate(repair.CodeInvalidValue, "exclude", msg)
		return a, false
	}
	a.exclude = ex
	return a, true
}

// walkRefused adds the violation for a folder the walk refused; an error
// that is not the model's is returned.
func walkRefused(res *repair.Result, path string, err error) error {
	if workspace.CodeOf(err) == "" {
		return fmt.Errorf("walk %s: %w", path, err)
	}
	res.Violate(violationCode(err), "path", err.Error())
	return nil
}

func (g *Guard) listCall(ctx context.Context, ws *workspace.Workspace, res *repair.Result) (LookResult, error) {
	a, ok := readLookArgs(res, "max_entries")
	if !ok {
		return nil, nil
	}
	depth, err := intArg(res.Args["depth"])
	if err != nil {
		res.Violate(repair.CodeInvalidValue, "depth", "depth must be a whole number")
		return nil, nil
	}
	if rec, _ := res.Args["recursive"].(bool); rec && depth == 0 {
		depth = maxListDepth
	}
	depth = min(max(depth, 1), maxListDepth)
	l, err := list(ctx, ws, a, depth)
	if err != nil {
		return nil, walkRefused(res, a.path, err)
	}
	return l, nil
}

// list walks the folder to depth, reading up to listScanEntries to count
// what it leaves out, and shows the shallowest a.max entries.
func list(ctx context.Context, ws *workspace.Workspace, a lookArgs, depth int) (*Listing, error) {
	top, err := ws.ResolveDir(a.path)
	if err != nil {
		return nil, err
	}
	var all []DirEntry
	st, err := ws.Walk(ctx, top, workspace.WalkOptions{MaxDepth: depth, MaxEntries: listScanEntries, Gitignore: a.gitignore},
		func(e *workspace.Entry) error {
			if a.exclude.match(below(top, e.Path), e.Name, e.Type == workspace.EntryDir) {
				if e.Type == workspace.EntryDir {
					return workspace.SkipDir
				}
				return nil
			}
			all = append(all, DirEntry{Path: e.Path, Name: e.Name, Type: e.Type, Size: e.Size, Target: e.Target, Depth: e.Depth})
			return nil
		})
	if err != nil {
		return nil, err
	}
	// Names past a folder's read bound are not counted: some may be denied.
	l := &Listing{Path: top, Depth: depth, MaxEntries: a.max, Partial: st.Cut != workspace.CutNone || st.Unread > 0}
	l.Entries = shallowest(all, a.max)
	l.Omitted = len(all) - len(l.Entries)
	for _, e := range l.Entries {
		switch e.Type {
		case workspace.EntryFile:
			l.Files++
			l.Bytes += e.Size
		case workspace.EntryDir:
			l.Dirs++
		case workspace.EntryLink:
			l.Links++
		default:
			l.Others++
		}
	}
	return l, nil
}

// shallowest keeps the first max entries by depth, then tree order, and
// counts in each kept folder its own entries left out.
func shallowest(all []DirEntry, max int) []DirEntry {
	if len(all) <= max {
		return all
	}
	order := make([]int, len(all))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return all[a].Depth - all[b].Depth })
	keep := make([]bool, len(all))
	for _, i := range order[:max] {
		keep[i] = true
	}
	shown := make([]DirEntry, 0, max)
	index := map[string]int{} // a kept folder's index in shown
	for i, e := range all {
		if keep[i] {
			if e.Type == workspace.EntryDir {
				index[e.Path] = len(shown)
			}
			shown = append(shown, e)
			continue
		}
		if j, ok := index[parentOf(e.Path)]; ok {
			shown[j].Omitted++
		}
	}
	return shown
}

func parentOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return "."
}

// Text renders the listing for the model: one entry a line, then totals
// and what was left out.
func (l *Listing) Text() string {
	var b strings.Builder
	topOmitted := l.Omitted
	for _, e := range l.Entries {
		b.WriteString(entryLine(e))
		if e.Omitted > 0 {
			fmt.Fprintf(&b, " (%d more not shown)", e.Omitted)
		}
		b.WriteByte('\n')
		topOmitted -= e.Omitted
	}
	where := "the workspace root"
	if l.Path != "." {
		where = l.Path + "/"
	}
	if len(l.Entries) == 0 && l.Omitted == 0 {
		fmt.Fprintf(&b, "%s is empty.\n", upperFirst(where))
		return b.String()
	}
	fmt.Fprintf(&b, "%s", totals(l.Dirs, l.Files, l.Links, l.Others, l.Bytes))
	if l.Omitted > 0 {
		more := fmt.Sprintf("%d", l.Omitted)
		if l.Partial {
			more = "at least " + more
		}
		fmt.Fprintf(&b, "; %s more entries not shown (max_entries %d): list a folder on its own, narrow with exclude, or raise max_entries", more, l.MaxEntries)
	} else if l.Partial {
		b.WriteString("; the listing stopped early, so there may be more entries")
	}
	b.WriteString(".\n")
	return b.String()
}

func entryLine(e DirEntry) string {
	switch e.Type {
	case workspace.EntryDir:
		return "[DIR] " + e.Path + "/"
	case workspace.EntryLink:
		return "[LINK] " + e.Path + " -> " + e.Target
	case workspace.EntryFile:
		return "[FILE] " + e.Path + " (" + HumanSize(e.Size) + ")"
	}
	return "[OTHER] " + e.Path
}

func totals(dirs, files, links, others int, bytes int64) string {
	parts := []string{plural(dirs, "folder"), plural(files, "file") + " (" + HumanSize(bytes) + ")"}
	if links > 0 {
		parts = append(parts, plural(links, "link"))
	}
	if others > 0 {
		parts = append(parts, plural(others, "other entry"))
	}
	return strings.Join(parts, ", ")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	if strings.HasSuffix(what, "entry") {
		return fmt.Sprintf("%d %sentries", n, strings.TrimSuffix(what, "entry"))
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// HumanSize writes a byte count as people read it: 512 B, 1.2 KB, 3.4 MB.
func HumanSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %cB", float64(n)/float64(div), "KMGTP"[exp])
}
