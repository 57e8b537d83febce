package guard

import (
	"context"
	"fmt"
	"strings"

	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/workspace"
)

// FindToolName finds files and folders by name.
const FindToolName = "find_files"

func init() { registerLook(FindToolName, (*Guard).findCall) }

// Found is what find_files answers.
type Found struct {
	// Pattern is the glob as given; Path the folder searched.
	Pattern string `json:"pattern"`
	Path    string `json:"path"`
	// Matches are in walk order: by name in each folder, a folder's
	// entries right after it.
	Matches []DirEntry `json:"matches"`
	// Omitted counts the matches past MaxResults; Partial says the search
	// stopped early (time, or the scan bound), so there may be more.
	Omitted    int  `json:"omitted"`
	Partial    bool `json:"partial,omitempty"`
	MaxResults int  `json:"max_results"`
}

// FindRequest is a find asked for in fields (FindFiles, the CLI).
type FindRequest struct {
	RequestContext
	Pattern    string
	Path       string
	Exclude    []string
	MaxResults int // 0: DefaultListEntries
	Gitignore  bool
}

// FindFiles finds files by name as the FindFiles RPC asks, counted in the
// session as a call of find_files.
func (g *Guard) FindFiles(ctx context.Context, req FindRequest) (*Look, error) {
	args := setFields(map[string]any{"path": req.Path, "max_results": req.MaxResults, "exclude": req.Exclude, "gitignore": req.Gitignore})
	args["pattern"] = req.Pattern
	return g.lookRequest(ctx, req.RequestContext, FindToolName, args)
}

func (g *Guard) findCall(ctx context.Context, ws *workspace.Workspace, res *repair.Result) (LookResult, error) {
	a, ok := readLookArgs(res, "max_results")
	if !ok {
		return nil, nil
	}
	raw, _ := res.Args["pattern"].(string)
	pat, dir, msg := findPattern(ws, a.path, raw)
	if msg != "" {
		res.Violate(repair.CodeInvalidValue, "pattern", msg)
		return nil, nil
	}
	f, err := find(ctx, ws, a, dir, pat)
	if err != nil {
		return nil, walkRefused(res, dir, err)
	}
	f.Pattern = raw
	return f, nil
}

// findPattern compiles raw; an absolute pattern ("/home/user/project/src/**/*.go")
// is taken apart: its folder, mapped into the workspace, is searched.
func findPattern(ws *workspace.Workspace, dir, raw string) (glob, string, string) {
	if strings.HasPrefix(raw, "/") {
		base, rest := splitGlob(raw)
		rel, err := ws.ResolveDir(base)
		if err != nil {
			return glob{}, "", fmt.Sprintf("pattern %q: %s", raw, err.Error())
		}
		if rest == "" {
			return glob{}, "", fmt.Sprintf("pattern %q names a folder, not a pattern; give the folder as path and a pattern such as \"**/*.go\"", raw)
		}
		g, msg := compileGlob("pattern", rest)
		if !g.byName {
			g.raw = raw
		}
		return g, rel, msg
	}
	g, msg := compileGlob("pattern", raw)
	return g, dir, msg
}

// splitGlob splits p at the last "/" before its first glob character.
func splitGlob(p string) (base, rest string) {
	meta := strings.IndexAny(p, "*?[{\\")
	if meta < 0 {
		return p, ""
	}
	i := strings.LastIndexByte(p[:meta], '/')
	return p[:i+1], p[i+1:]
}

func find(ctx context.Context, ws *workspace.Workspace, a lookArgs, dir string, pat glob) (*Found, error) {
	top, err := ws.ResolveDir(dir)
	if err != nil {
		return nil, err
	}
	f := &Found{Path: top, MaxResults: a.max}
	st, err := ws.Walk(ctx, top, workspace.WalkOptions{MaxEntries: listScanEntries, Gitignore: a.gitignore},
		func(e *workspace.Entry) error {
			rel, isDir := below(top, e.Path), e.Type == workspace.EntryDir
			if a.exclude.match(rel, e.Name, isDir) {
				if isDir {
					return workspace.SkipDir
				}
				return nil
			}
			if !pat.match(rel, e.Name, isDir) {
				return nil
			}
			if len(f.Matches) >= a.max {
				f.Omitted++
				return nil
			}
			f.Matches = append(f.Matches, DirEntry{Path: e.Path, Name: e.Name, Type: e.Type, Size: e.Size, Target: e.Target, Depth: e.Depth})
			return nil
		})
	if err != nil {
		return nil, err
	}
	f.Partial = st.Cut != workspace.CutNone || st.Unread > 0 || st.Deep > 0
	return f, nil
}

// Text renders the matches for the model: one path a line, folders with
// a trailing "/", links with their target, then what was left out.
func (f *Found) Text() string {
	var b strings.Builder
	where := "the workspace"
	if f.Path != "." {
		where = f.Path + "/"
	}
	if len(f.Matches) == 0 {
		fmt.Fprintf(&b, "No files match %q in %s", f.Pattern, where)
		if f.Partial {
			b.WriteString(" (the search stopped early, so some may have been missed)")
		}
		b.WriteString(".\n")
		return b.String()
	}
	for _, m := range f.Matches {
		switch m.Type {
		case workspace.EntryDir:
			b.WriteString(m.Path + "/")
		case workspace.EntryLink:
			b.WriteString(m.Path + " -> " + m.Target)
		default:
			b.WriteString(m.Path)
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "%s matching %q in %s", plural(len(f.Matches), "path"), f.Pattern, where)
	switch {
	case f.Omitted > 0 && f.Partial:
		fmt.Fprintf(&b, "; at least %d more not shown (max_results %d): narrow the pattern or the path", f.Omitted, f.MaxResults)
	case f.Omitted > 0:
		fmt.Fprintf(&b, "; %d more not shown (max_results %d): narrow the pattern or the path", f.Omitted, f.MaxResults)
	case f.Partial:
		b.WriteString("; the search stopped early, so there may be more")
	}
	b.WriteString(".\n")
	return b.String()
}
