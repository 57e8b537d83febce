package mcp

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/workspace"
)

// The answers of the filesystem profile, laid out as the reference file
// server lays out its own (profile_filesystem.go has the mapping).

// fsReadText is read_text_file: the text alone. head and tail give lines
// without the last one's line break, as the reference joins them.
func fsReadText(s *Server, ctx context.Context, c *fsCall) (*sdk.CallToolResult, error) {
	r, err := s.g.ReadCall(ctx, c.req)
	if err != nil {
		return nil, err
	}
	if !r.OK() {
		return fsRefused(r.Verdict), nil
	}
	text := r.Content
	if c.args != nil && (c.args["head"] != nil || c.args["tail"] != nil) {
		text = strings.TrimSuffix(strings.TrimSuffix(text, "\n"), "\r")
	}
	if r.Truncated {
		text += fmt.Sprintf("\n[toolguard: lines %d-%d of %d, cut at the size limit; read on with head or tail]", r.StartLine, r.EndLine, r.TotalLines)
	}
	return fsText(text), nil
}

// fsMedia is read_media_file: image or audio content, or an embedded
// resource, and the same as structuredContent.
func fsMedia(s *Server, ctx context.Context, c *fsCall) (*sdk.CallToolResult, error) {
	lk, err := s.g.LookCall(ctx, c.req)
	if err != nil {
		return nil, err
	}
	m, _ := lk.Result.(*guard.Media)
	if !lk.OK() || m == nil {
		return fsRefused(lk.Verdict), nil
	}
	data := base64.StdEncoding.EncodeToString(m.Data)
	var content sdk.Content
	var item map[string]any
	switch kind, _, _ := strings.Cut(m.MIMEType, "/"); kind {
	case "image":
		content = &sdk.ImageContent{Data: m.Data, MIMEType: m.MIMEType}
		item = map[string]any{"type": "image", "data": data, "mimeType": m.MIMEType}
	case "audio":
		content = &sdk.AudioContent{Data: m.Data, MIMEType: m.MIMEType}
		item = map[string]any{"type": "audio", "data": data, "mimeType": m.MIMEType}
	default:
		uri := (&url.URL{Scheme: "file", Path: filepath.ToSlash(s.realPath(c.req.Workspace, m.Path))}).String()
		content = &sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: uri, MIMEType: m.MIMEType, Blob: m.Data}}
		item = map[string]any{"type": "resource", "resource": map[string]any{"uri": uri, "mimeType": m.MIMEType, "blob": data}}
	}
	return &sdk.CallToolResult{Content: []sdk.Content{content}, StructuredContent: map[string]any{"content": []any{item}}}, nil
}

// fsReadMany is read_multiple_files: "path:\ntext\n" or "path: Error -
// why", apart by "\n---\n".
func fsReadMany(s *Server, ctx context.Context, c *fsCall) (*sdk.CallToolResult, error) {
	lk, err := s.g.LookCall(ctx, c.req)
	if err != nil {
		return nil, err
	}
	many, _ := lk.Result.(*guard.ReadMany)
	if many == nil || !lk.OK() && len(many.Files) == 0 {
		return fsRefused(lk.Verdict), nil
	}
	parts := make([]string, 0, len(many.Files))
	for _, f := range many.Files {
		if f.Error != nil {
			parts = append(parts, fmt.Sprintf("%s: Error - %s", f.Asked, f.Error.Message))
			continue
		}
		part := fmt.Sprintf("%s:\n%s\n", f.Asked, f.Content)
		if f.Truncated {
			part += fmt.Sprintf("[toolguard: lines %d-%d of %d, cut at the size limit]\n", f.StartLine, f.EndLine, f.TotalLines)
		}
		parts = append(parts, part)
	}
	return fsText(strings.Join(parts, "\n---\n")), nil
}

// fsEdit is edit_file: the edits as one multi_edit (dryRun a dry run),
// answered with the diff in a ```diff fence, its headers as the
// reference's diff library writes them.
func fsEdit(s *Server, ctx context.Context, c *fsCall) (*sdk.CallToolResult, error) {
	if c.args != nil {
		var dry bool
		_ = json.Unmarshal(c.args["dryRun"], &dry)
		c.req.DryRun = dry
	}
	ex, err := s.g.ExecuteEdit(ctx, c.req)
	if err != nil {
		return nil, err
	}
	if !ex.OK() {
		return fsRefused(ex.Verdict), nil
	}
	rel := c.str("path")
	if len(ex.Changes) > 0 {
		rel = ex.Changes[0].Path
	}
	abs := s.realPath(c.req.Workspace, rel)
	diff := "Index: " + abs + "\n" + strings.Repeat("=", 67) + "\n--- " + abs + "\toriginal\n+++ " + abs + "\tmodified\n"
	if i := strings.Index(ex.Diff, "\n@@ "); i >= 0 {
		diff += ex.Diff[i+1:]
	} else if ex.DiffElided != nil {
		diff += fmt.Sprintf("[toolguard: the diff, %d bytes, is too large to show]\n", ex.DiffElided.Size)
	}
	fence := "```"
	for strings.Contains(diff, fence) {
		fence += "`"
	}
	return fsText(fence + "diff\n" + diff + fence + "\n\n"), nil
}

// fsListing runs the listing a list tool maps onto.
func (s *Server) fsListing(ctx context.Context, c *fsCall) (*guard.Listing, *sdk.CallToolResult, error) {
	lk, err := s.g.LookCall(ctx, c.req)
	if err != nil {
		return nil, nil, err
	}
	l, _ := lk.Result.(*guard.Listing)
	if !lk.OK() || l == nil {
		return nil, fsRefused(lk.Verdict), nil
	}
	return l, nil, nil
}

// fsMore says what a bound left out; the reference has no bound.
func fsMore(omitted int, partial bool) string {
	switch {
	case omitted > 0:
		return fmt.Sprintf("\n[toolguard: %d more not shown]", omitted)
	case partial:
		return "\n[toolguard: the walk stopped early, so there may be more]"
	}
	return ""
}

// fsKind is "[DIR]" or "[FILE]": links and others are files to the reference.
func fsKind(t workspace.EntryType) string {
	if t == workspace.EntryDir {
		return "[DIR]"
	}
	return "[FILE]"
}

// fsList is list_directory: "[DIR] name" and "[FILE] name" lines.
func fsList(s *Server, ctx context.Context, c *fsCall) (*sdk.CallToolResult, error) {
	l, refused, err := s.fsListing(ctx, c)
	if l == nil {
		return refused, err
	}
	lines := make([]string, 0, len(l.Entries))
	for _, e := range l.Entries {
		lines = append(lines, fsKind(e.Type)+" "+e.Name)
	}
	return fsText(strings.Join(lines, "\n") + fsMore(l.Omitted, l.Partial)), nil
}

// fsListSizes is list_directory_with_sizes: names padded to 30, sizes
// right-aligned to 10, by name or by size (largest first), then totals.
func fsListSizes(s *Server, ctx context.Context, c *fsCall) (*sdk.CallToolResult, error) {
	l, refused, err := s.fsListing(ctx, c)
	if l == nil {
		return refused, err
	}
	entries := slices.Clone(l.Entries)
	if c.str("sortBy") == "size" {
		slices.SortStableFunc(entries, func(a, b guard.DirEntry) int { return cmp.Compare(b.Size, a.Size) })
	} else {
		slices.SortStableFunc(entries, func(a, b guard.DirEntry) int {
			return cmp.Or(cmp.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)), cmp.Compare(a.Name, b.Name))
		})
	}
	var b strings.Builder
	var files, dirs int
	var total int64
	for _, e := range entries {
		size := ""
		if e.Type == workspace.EntryDir {
			dirs++
		} else {
			files++
			total += e.Size
			size = fmt.Sprintf("%10s", fsSize(e.Size))
		}
		fmt.Fprintf(&b, "%s %-30s %s\n", fsKind(e.Type), e.Name, size)
	}
	fmt.Fprintf(&b, "\nTotal: %d files, %d directories\nCombined size: %s", files, dirs, fsSize(total))
	return fsText(b.String() + fsMore(l.Omitted, l.Partial)), nil
}

// fsSize is the reference's formatSize: bytes, or two decimals of the
// largest unit below the size.
func fsSize(n int64) string {
	units := []string{"B", "KB", "MB", "GB", "TB"}
	if n <= 0 {
		return "0 B"
	}
	i := int(math.Floor(math.Log(float64(n)) / math.Log(1024)))
	if i <= 0 {
		return fmt.Sprintf("%d B", n)
	}
	i = min(i, len(units)-1)
	return fmt.Sprintf("%.2f %s", float64(n)/math.Pow(1024, float64(i)), units[i])
}

// fsNode is one entry of directory_tree's JSON.
type fsNode struct {
	Name     string    `json:"name"`
	Type     string    `json:"type"`
	Children []*fsNode `json:"children,omitempty"`
	dir      bool
}

// MarshalJSON gives a directory its children array, empty or not, and a
// file none.
func (n *fsNode) MarshalJSON() ([]byte, error) {
	if n.dir {
		children := n.Children
		if children == nil {
			children = []*fsNode{}
		}
		return json.Marshal(struct {
			Name     string    `json:"name"`
			Type     string    `json:"type"`
			Children []*fsNode `json:"children"`
		}{n.Name, n.Type, children})
	}
	return json.Marshal(struct {
		Name string `json:"name"`
		Type string `json:"type"`
	}{n.Name, n.Type})
}

// fsTree is directory_tree: the tree as JSON, indented by two spaces.
func fsTree(s *Server, ctx context.Context, c *fsCall) (*sdk.CallToolResult, error) {
	l, refused, err := s.fsListing(ctx, c)
	if l == nil {
		return refused, err
	}
	root := &fsNode{dir: true}
	byPath := map[string]*fsNode{l.Path: root}
	for _, e := range l.Entries {
		n := &fsNode{Name: e.Name, Type: "file", dir: e.Type == workspace.EntryDir}
		if n.dir {
			n.Type = "directory"
			byPath[e.Path] = n
		}
		parent := byPath[parentPath(e.Path)]
		if parent == nil {
			continue // below a folder the bound left out
		}
		parent.Children = append(parent.Children, n)
	}
	top := root.Children
	if top == nil {
		top = []*fsNode{}
	}
	out, err := json.MarshalIndent(top, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("mcp: directory_tree: %w", err)
	}
	return fsText(string(out) + fsMore(l.Omitted, l.Partial)), nil
}

func parentPath(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return "."
}

// fsSearch is search_files: the real paths of the matches, one a line, in
// the reference's walk order; a pattern without "/" matches in the folder
// itself, as the reference's glob of the relative path does.
func fsSearch(s *Server, ctx context.Context, c *fsCall) (*sdk.CallToolResult, error) {
	lk, err := s.g.LookCall(ctx, c.req)
	if err != nil {
		return nil, err
	}
	f, _ := lk.Result.(*guard.Found)
	if !lk.OK() || f == nil {
		return fsRefused(lk.Verdict), nil
	}
	pattern := c.str("pattern")
	matches := slices.Clone(f.Matches)
	if !strings.Contains(pattern, "/") && !strings.Contains(pattern, "**") {
		matches = slices.DeleteFunc(matches, func(e guard.DirEntry) bool { return e.Depth > 1 })
	}
	// Each folder's entries right after it, by name: a walk's pre-order.
	slices.SortStableFunc(matches, func(a, b guard.DirEntry) int {
		return slices.Compare(strings.Split(a.Path, "/"), strings.Split(b.Path, "/"))
	})
	if len(matches) == 0 {
		return fsText("No matches found" + fsMore(f.Omitted, f.Partial)), nil
	}
	lines := make([]string, 0, len(matches))
	for _, m := range matches {
		lines = append(lines, s.realPath(c.req.Workspace, m.Path))
	}
	return fsText(strings.Join(lines, "\n") + fsMore(f.Omitted, f.Partial)), nil
}

// fsInfo is get_file_info: "key: value" lines in the reference's order,
// times as JavaScript's Date prints them.
func fsInfo(s *Server, ctx context.Context, c *fsCall) (*sdk.CallToolResult, error) {
	lk, err := s.g.LookCall(ctx, c.req)
	if err != nil {
		return nil, err
	}
	info, _ := lk.Result.(*guard.Info)
	if !lk.OK() || info == nil || len(info.Paths) == 0 {
		return fsRefused(lk.Verdict), nil
	}
	p := info.Paths[0]
	if p.Error != nil {
		return errorResult(p.Error.Message), nil
	}
	if p.Denied {
		return errorResult(fmt.Sprintf("%s is denied by the workspace policy (pattern %s)", p.Asked, p.DeniedBy)), nil
	}
	created := p.Created
	if created.IsZero() {
		created = p.Changed
	}
	text := fmt.Sprintf("size: %d\ncreated: %s\nmodified: %s\naccessed: %s\nisDirectory: %t\nisFile: %t\npermissions: %03o",
		p.Size, jsDate(created), jsDate(p.Modified), jsDate(p.Accessed), p.Kind == guard.KindDirectory, p.Kind == guard.KindFile, uint32(p.Mode.Perm()))
	return fsText(text), nil
}

// jsDate is t as JavaScript's Date.prototype.toString writes it.
func jsDate(t time.Time) string {
	t = t.Local()
	zone, _ := t.Zone()
	if zone == "UTC" {
		zone = "Coordinated Universal Time"
	}
	return t.Format("Mon Jan 02 2006 15:04:05 GMT-0700") + " (" + zone + ")"
}
