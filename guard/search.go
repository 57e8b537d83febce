package guard

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/workspace"
)

// SearchToolName searches the contents of the workspace's files.
const SearchToolName = "search_files"

func init() { registerLook(SearchToolName, (*Guard).searchCall) }

// The output modes of search_files.
const (
	SearchContent = "content"            // matching lines, with context
	SearchFiles   = "files_with_matches" // the paths of the files that match
	SearchCount   = "count"              // each matching file with its count
)

const (
	// DefaultSearchResults is the matching lines (or files) a search shows
	// when not told.
	DefaultSearchResults = 100
	// maxSearchContext bounds the context lines around a match.
	maxSearchContext = 20
)

// SearchLimits are the server's bounds on one search (Config.Search*).
type SearchLimits struct {
	// MaxResults caps the matching lines (or files) shown, whatever asked.
	MaxResults int
	// MaxFiles and MaxBytes bound the files a search reads and their sizes
	// added up; Timeout its time. The answer says when one cut it.
	MaxFiles int
	MaxBytes int64
	Timeout  time.Duration
}

// DefaultSearchLimits are the bounds when not configured.
func DefaultSearchLimits() SearchLimits {
	return SearchLimits{MaxResults: 2000, MaxFiles: 100_000, MaxBytes: 1 << 30, Timeout: 20 * time.Second}
}

func (l SearchLimits) validate() []error {
	var errs []error
	if l.MaxResults <= 0 {
		errs = append(errs, errors.New("search max results must be positive"))
	}
	if l.MaxFiles <= 0 {
		errs = append(errs, errors.New("search max files must be positive"))
	}
	if l.MaxBytes <= 0 {
		errs = append(errs, errors.New("search max bytes must be positive"))
	}
	if l.Timeout <= 0 {
		errs = append(errs, errors.New("search timeout must be positive"))
	}
	return errs
}

// searchLimits gathers the Config's search bounds.
func (c Config) searchLimits() SearchLimits {
	return SearchLimits{MaxResults: c.SearchMaxResults, MaxFiles: c.SearchMaxFiles, MaxBytes: c.SearchMaxBytes, Timeout: c.SearchTimeout}
}

// withSearchLimits sets them.
func (c Config) withSearchLimits(l SearchLimits) Config {
	c.SearchMaxResults, c.SearchMaxFiles, c.SearchMaxBytes, c.SearchTimeout = l.MaxResults, l.MaxFiles, l.MaxBytes, l.Timeout
	return c
}

// orDefaults fills the bounds left unset (a Config built field by field).
func (l SearchLimits) orDefaults() SearchLimits {
	d := DefaultSearchLimits()
	return SearchLimits{MaxResults: cmp.Or(l.MaxResults, d.MaxResults), MaxFiles: cmp.Or(l.MaxFiles, d.MaxFiles),
		MaxBytes: cmp.Or(l.MaxBytes, d.MaxBytes), Timeout: cmp.Or(l.Timeout, d.Timeout)}
}

// lookTimeout is how long a look tool may walk the workspace.
func (g *Guard) lookTimeout(tool string) time.Duration {
	if tool == SearchToolName && g.search.Timeout > 0 {
		return g.search.Timeout
	}
	return LookTimeout
}

// SearchMatch is a matching line.
type SearchMatch struct {
	// Path is workspace-relative; Line counts from 1; Column is the byte
	// offset of the first match in the line, from 1.
	Path   string `json:"path"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	// Text is the line, cut around the match when long.
	Text string `json:"text"`
	// Before and After are the context lines asked for.
	Before []string `json:"before,omitempty"`
	After  []string `json:"after,omitempty"`
}

// SearchFile is a matching file and its count of matching lines (1 in
// files_with_matches mode, which stops at a file's first).
type SearchFile struct {
	Path  string `json:"path"`
	Count int    `json:"count"`
}

// Searched is what search_files answers.
type Searched struct {
	Pattern string `json:"pattern"`
	// Path is the folder searched, workspace-relative.
	Path string `json:"path"`
	Mode string `json:"output_mode"`
	// Matches (content mode) and Files (the other modes) are by path,
	// folder by folder, then by line.
	Matches []SearchMatch `json:"matches,omitempty"`
	Files   []SearchFile  `json:"files,omitempty"`
	// TotalMatches counts the matching lines found, shown or not;
	// FilesMatched the files holding them.
	TotalMatches int `json:"total_matches"`
	FilesMatched int `json:"files_matched"`
	// Omitted counts what max_results left out: lines, or files.
	Omitted int `json:"omitted"`
	// FilesSearched were read; the skipped ones were not: binary (a NUL
	// byte in the first 8 KB), over the file size bound, or unreadable.
	FilesSearched     int   `json:"files_searched"`
	BinarySkipped     int   `json:"binary_skipped"`
	LargeSkipped      int   `json:"large_skipped"`
	UnreadableSkipped int   `json:"unreadable_skipped"`
	BytesRead         int64 `json:"bytes_read"`
	// Partial says the search stopped early, Cut why: "time", "files",
	// "bytes" (the server's bounds) or "entries" (the walk's).
	Partial    bool   `json:"partial,omitempty"`
	Cut        string `json:"cut,omitempty"`
	MaxResults int    `json:"max_results"`
	// Before and After are the context lines asked for.
	Before int `json:"context_before,omitempty"`
	After  int `json:"context_after,omitempty"`
}

// SearchRequest is a search asked for in fields (SearchFiles, the CLI).
type SearchRequest struct {
	RequestContext
	Pattern    string
	Path       string
	Include    string
	Exclude    []string
	Literal    bool
	IgnoreCase bool
	SmartCase  bool
	Before     int
	After      int
	Context    int
	MaxResults int // 0: DefaultSearchResults
	OutputMode string
	Gitignore  bool
}

// SearchFiles searches file contents as the SearchFiles RPC asks, counted
// in the session as a call of search_files.
func (g *Guard) SearchFiles(ctx context.Context, req SearchRequest) (*Look, error) {
	args := setFields(map[string]any{"path": req.Path, "include": req.Include, "exclude": req.Exclude, "literal": req.Literal,
		"ignore_case": req.IgnoreCase, "smart_case": req.SmartCase, "before": req.Before, "after": req.After, "context": req.Context,
		"max_results": req.MaxResults, "output_mode": req.OutputMode, "gitignore": req.Gitignore})
	args["pattern"] = req.Pattern
	return g.lookRequest(ctx, req.RequestContext, SearchToolName, args)
}

func (g *Guard) searchCall(ctx context.Context, ws *workspace.Workspace, res *repair.Result) (LookResult, error) {
	a, ok := readLookArgs(res, "max_results")
	if !ok {
		return nil, nil
	}
	r := &searchRun{exclude: a.exclude, gitignore: a.gitignore, max: DefaultSearchResults,
		maxFiles: g.search.MaxFiles, maxBytes: g.search.MaxBytes, maxFile: g.maxFileBytes}
	if n, _ := intArg(res.Args["max_results"]); n > 0 {
		r.max = min(n, g.search.MaxResults)
	}
	if !r.readArgs(res) {
		return nil, nil
	}
	top, err := ws.ResolveDir(a.path)
	if err != nil {
		return nil, walkRefused(res, a.path, err)
	}
	s, err := r.run(ctx, ws, top)
	if err != nil {
		return nil, walkRefused(res, a.path, err)
	}
	s.Pattern, _ = res.Args["pattern"].(string)
	return s, nil
}

// readArgs reads what search_files adds to the look arguments, or adds
// the violation that refuses them.
func (r *searchRun) readArgs(res *repair.Result) bool {
	str := func(k string) string { s, _ := res.Args[k].(string); return s }
	flag := func(k string) bool { b, _ := res.Args[k].(bool); return b }
	r.mode = SearchContent
	if m := str("output_mode"); m != "" {
		if !slices.Contains([]string{SearchContent, SearchFiles, SearchCount}, m) {
			res.Violate(repair.CodeInvalidValue, "output_mode", fmt.Sprintf("output_mode %q: want %s, %s or %s", m, SearchContent, SearchFiles, SearchCount))
			return false
		}
		r.mode = m
	}
	if inc := str("include"); inc != "" {
		gl, msg := compileGlob("include", inc)
		if msg != "" {
			res.Violate(repair.CodeInvalidValue, "include", msg)
			return false
		}
		r.include = &gl
	}
	nums := map[string]*int{"before": &r.before, "after": &r.after}
	c, err := intArg(res.Args["context"])
	for _, k := range []string{"context", "before", "after"} {
		n, e := intArg(res.Args[k])
		if e != nil || n < 0 || n > maxSearchContext || err != nil {
			res.Violate(repair.CodeInvalidValue, k, fmt.Sprintf("%s must be a whole number of lines from 0 to %d", k, maxSearchContext))
			return false
		}
		if p := nums[k]; p != nil {
			*p = n
			if _, given := res.Args[k]; !given {
				*p = c
			}
		}
	}
	pat, msg := compileSearchPattern(str("pattern"), flag("literal"), flag("ignore_case"), flag("smart_case"))
	if msg != "" {
		res.Violate(repair.CodeInvalidValue, "pattern", msg)
		return false
	}
	r.pat = pat
	return true
}

// Text renders the search for the model: "path:line: text" for a match,
// "path-line- text" for a context line, "--" between groups apart; then
// what was searched and what was left out.
func (s *Searched) Text() string {
	var b strings.Builder
	where := "the workspace"
	if s.Path != "." {
		where = s.Path + "/"
	}
	switch s.Mode {
	case SearchFiles:
		for _, f := range s.Files {
			b.WriteString(f.Path + "\n")
		}
	case SearchCount:
		for _, f := range s.Files {
			fmt.Fprintf(&b, "%s:%d\n", f.Path, f.Count)
		}
	default:
		s.writeLines(&b)
	}
	if s.TotalMatches == 0 {
		fmt.Fprintf(&b, "No matches for %q in %s (%s)", s.Pattern, where, s.searchedText())
	} else if s.Mode == SearchFiles {
		fmt.Fprintf(&b, "%s matching %q in %s (%s)", plural(s.FilesMatched, "file"), s.Pattern, where, s.searchedText())
	} else {
		fmt.Fprintf(&b, "%s in %s matching %q in %s (%s)", plural(s.TotalMatches, "matching line"), plural(s.FilesMatched, "file"), s.Pattern, where, s.searchedText())
	}
	what := "matching lines"
	if s.Mode != SearchContent {
		what = "files"
	}
	if s.Omitted > 0 {
		fmt.Fprintf(&b, "; %d more %s not shown (max_results %d): narrow the pattern, the path or include", s.Omitted, what, s.MaxResults)
	}
	if s.Partial {
		b.WriteString("; " + s.cutText())
	}
	b.WriteString(".\n")
	return b.String()
}

// searchedText says what was read and what was skipped.
func (s *Searched) searchedText() string {
	parts := []string{"searched " + plural(s.FilesSearched, "file")}
	if s.BinarySkipped > 0 {
		parts = append(parts, fmt.Sprintf("%d binary skipped", s.BinarySkipped))
	}
	if s.LargeSkipped > 0 {
		parts = append(parts, fmt.Sprintf("%d over the size bound skipped", s.LargeSkipped))
	}
	if s.UnreadableSkipped > 0 {
		parts = append(parts, fmt.Sprintf("%d unreadable skipped", s.UnreadableSkipped))
	}
	return strings.Join(parts, ", ")
}

func (s *Searched) cutText() string {
	switch s.Cut {
	case "time":
		return "the search ran out of time and stopped early, so there may be more: narrow the path or include"
	case "files":
		return "the search reached the server's bound on files read and stopped early, so there may be more: narrow the path or include"
	case "bytes":
		return "the search reached the server's bound on bytes read and stopped early, so there may be more: narrow the path or include"
	}
	return "the search stopped early (a folder too large or too deep), so there may be more"
}

// writeLines writes the matches with their context, each line once.
func (s *Searched) writeLines(b *strings.Builder) {
	type shown struct {
		line  int
		text  string
		match bool
	}
	for i := 0; i < len(s.Matches); {
		path := s.Matches[i].Path
		lines := map[int]shown{}
		for ; i < len(s.Matches) && s.Matches[i].Path == path; i++ {
			m := s.Matches[i]
			for k, t := range m.Before {
				n := m.Line - len(m.Before) + k
				if _, ok := lines[n]; !ok {
					lines[n] = shown{n, t, false}
				}
			}
			for k, t := range m.After {
				n := m.Line + 1 + k
				if _, ok := lines[n]; !ok {
					lines[n] = shown{n, t, false}
				}
			}
			lines[m.Line] = shown{m.Line, m.Text, true}
		}
		order := slices.Sorted(maps.Keys(lines))
		for k, n := range order {
			if k > 0 && n != order[k-1]+1 {
				b.WriteString("--\n")
			}
			if l := lines[n]; l.match {
				fmt.Fprintf(b, "%s:%d: %s\n", path, n, l.text)
			} else {
				fmt.Fprintf(b, "%s-%d- %s\n", path, n, l.text)
			}
		}
		if (s.Before > 0 || s.After > 0) && i < len(s.Matches) {
			b.WriteString("--\n")
		}
	}
}
