package guard

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/workspace"
)

const (
	// ReadToolName is the read tool every front end offers beside the
	// registry's: agents read before they edit.
	ReadToolName = "read_file"
	// CodeBinaryFile refuses a read of a file that is not UTF-8 text.
	CodeBinaryFile = "BINARY_FILE"
	// DefaultMaxReadBytes bounds the text one read returns; past it the
	// answer is cut at a line and says so.
	DefaultMaxReadBytes = 256 << 10
	// binarySniffBytes is how much of a file decides whether it is text.
	binarySniffBytes = 8 << 10
	// minReadBytes is the least a read returns when the bound is smaller:
	// room for a line number and a character, so a long line makes progress.
	minReadBytes = 64
)

// readToolDef is read_file's definition: its path accepts the registry's
// spellings (param groups), its range those of the common read tools.
var readToolDef = repair.ToolDef{
	Name: ReadToolName,
	Description: "Read a text file in the workspace. Returns its lines (all of them, `limit` lines from line `offset`, or the first `head` or last `tail` lines), " +
		"with `  12 | ` line numbers when `line_numbers` is true, and the file's SHA-256, which an edit may give as its expected hash. " +
		"A line longer than one answer is read on with `column`, as the cut answer says. Binary files are refused.",
	Aliases: []string{"Read", "ReadFile", "read", "file_read", "view_file"},
	ParamAliases: []repair.ParamAliases{
		{Param: "offset", Aliases: []string{"start_line", "startLine", "line_offset"}},
		{Param: "limit", Aliases: []string{"line_count", "lineCount", "max_lines"}},
		{Param: "line_numbers", Aliases: []string{"lineNumbers", "numbered"}},
		{Param: "column", Aliases: []string{"start_column", "startColumn"}},
	},
	Parameters: map[string]any{
		"type": "object",
		"properties": map[string]any{
			"path":         map[string]any{"type": "string", "description": "The path of the file to read, relative to the workspace root."},
			"offset":       map[string]any{"type": "integer", "minimum": 1, "description": "The 1-based line to start reading at. Default 1."},
			"limit":        map[string]any{"type": "integer", "minimum": 1, "description": "How many lines to read. Default: to the end of the file."},
			"line_numbers": map[string]any{"type": "boolean", "description": "Prefix each line with its number, as `  12 | code`. Default false."},
			"column":       map[string]any{"type": "integer", "minimum": 1, "description": "The 1-based byte of line `offset` to start at, to read on in a line cut at the size limit. Default 1."},
			"head":         headParam,
			"tail":         tailParam,
		},
		"required":             []any{"path"},
		"additionalProperties": false,
	},
	Example: map[string]any{"path": "src/main.py", "offset": 1, "limit": 200},
}

// headParam and tailParam are the line options of every text read tool
// (the reference file server's read_text_file has them).
var (
	headParam = map[string]any{"type": "integer", "minimum": 1, "description": "Return only the first N lines. Not with tail, offset or limit."}
	tailParam = map[string]any{"type": "integer", "minimum": 1, "description": "Return only the last N lines. Not with head, offset or limit."}
)

// ReadTool returns the compiled read_file tool, for front ends that list tools.
func (g *Guard) ReadTool() *repair.Tool { return g.readTool }

// ReadRequest is a read asked for in fields (the ReadFile RPC, the CLI);
// ReadCall takes one as the model wrote it.
type ReadRequest struct {
	RequestContext
	Path string
	// Offset is the 1-based first line (0: 1); Limit the line count (0: all).
	Offset, Limit int
	// Column is the 1-based byte of line Offset to start at (0: 1).
	Column      int
	LineNumbers bool
	// Head and Tail, when set, return the first or last lines (not both,
	// and neither with Offset or Limit).
	Head, Tail int
}

// Read is the outcome of a read. The file fields are set when the verdict is usable.
type Read struct {
	*Verdict
	FileText
}

// FileText is the text a read returns of one file, and what it says of the
// whole file. Its JSON (structured answers) leaves the text out: that is
// the answer's content.
type FileText struct {
	// Path is the workspace-relative path read.
	Path string `json:"path"`
	// Content holds lines StartLine..EndLine, exactly as in the file, or
	// numbered "  12 | code" (without line breaks' "\r") with LineNumbers.
	Content string `json:"-"`
	// SHA256 and Size are the whole file's; TotalLines counts its lines.
	SHA256     string `json:"sha256"`
	Size       int64  `json:"size"`
	TotalLines int    `json:"total_lines"`
	// StartLine and EndLine are the 1-based lines returned (EndLine <
	// StartLine: none); Truncated says the answer stopped at the byte bound
	// before the range's end.
	StartLine int  `json:"start_line"`
	EndLine   int  `json:"end_line"`
	Truncated bool `json:"truncated,omitempty"`
	// NextColumn, when the bound cut line EndLine inside it, is the 1-based
	// byte of that line the rest starts at; 0 otherwise.
	NextColumn int `json:"-"`
}

// Next is the offset and column of the read that returns the rest of a
// truncated one: line EndLine+1, or line EndLine from NextColumn when the
// cut fell inside it (column 0: from the line's start). 0, 0 when the read
// was not truncated.
func (r *FileText) Next() (offset, column int) {
	switch {
	case !r.Truncated:
		return 0, 0
	case r.NextColumn > 0:
		return r.EndLine, r.NextColumn
	default:
		return r.EndLine + 1, 0
	}
}

// ReadOn says how to read the rest of a truncated read, as read_file's
// arguments: "offset 7", or "offset 3 and column 262081" within a line
// longer than the bound. "" when the read was not truncated.
func (r *FileText) ReadOn() string {
	offset, column := r.Next()
	switch {
	case offset == 0:
		return ""
	case column > 0:
		return fmt.Sprintf("offset %d and column %d", offset, column)
	default:
		return fmt.Sprintf("offset %d", offset)
	}
}

// ColumnError refuses the column of a read asked for in fields (ReadFile):
// there the column is the caller's, copied from a previous answer's, so a
// wrong one is the caller's mistake, not a verdict counted in the session.
type ColumnError struct {
	// Line and Column are the ones asked for; Message says which column to
	// give instead.
	Line, Column int
	Message      string
}

func (e *ColumnError) Error() string { return e.Message }

// ReadFile reads a file as the ReadFile RPC asks: through read_file's
// checks, counted in the session as a call of the model. A column past the
// end of its line or inside a character is a *ColumnError, and nothing is
// counted.
func (g *Guard) ReadFile(ctx context.Context, req ReadRequest) (*Read, error) {
	args := setFields(map[string]any{"offset": req.Offset, "limit": req.Limit, "line_numbers": req.LineNumbers,
		"column": req.Column, "head": req.Head, "tail": req.Tail})
	args["path"] = req.Path
	call, err := req.call(ReadToolName, args)
	if err != nil {
		return nil, err
	}
	return g.readCall(ctx, call, true)
}

// ReadCall repairs and validates a read_file call (under any of its names)
// and reads the file. A refused path, a binary file or a range past the end
// is a verdict the model can act on.
func (g *Guard) ReadCall(ctx context.Context, req ExecuteRequest) (*Read, error) {
	return g.readCall(ctx, req, false)
}

// readCall is ReadCall; callersColumn returns a wrong column as a
// *ColumnError instead of a violation.
func (g *Guard) readCall(ctx context.Context, req ExecuteRequest, callersColumn bool) (*Read, error) {
	req.Tools = append([]repair.ToolDef{readCallDef}, req.Tools...)
	ws, res, err := g.checkFor(req, func(t *repair.Tool) bool { return t.Name() == ReadToolName }, ReadToolName)
	if err != nil {
		return nil, err
	}
	out := &Read{}
	if res.OK() {
		if err := g.read(ws, res, out, callersColumn); err != nil {
			return nil, err
		}
		if err := g.viewFolder(ctx, ws, req.ValidateRequest, res, out); err != nil {
			return nil, err
		}
	}
	v, err := g.concludeAnswered(ctx, req.ValidateRequest, res)
	if err != nil {
		return nil, err
	}
	out.Verdict = v
	if !v.OK() {
		*out = Read{Verdict: v}
	}
	return out, nil
}

// read fills out from the file res names, or adds the violation that
// refuses it; a wrong column is returned instead when it is the caller's.
func (g *Guard) read(ws *workspace.Workspace, res *repair.Result, out *Read, callersColumn bool) error {
	path, _ := res.Args["path"].(string)
	rng, numbered, bad := rangeOf(res.Args, true)
	if bad != nil {
		res.Violate(bad.Code, bad.Param, bad.Message)
		return nil
	}
	text, bad, err := g.readText(ws, path, rng, numbered, g.maxReadBytes())
	var ce *ColumnError
	switch {
	case errors.As(err, &ce) && callersColumn:
		return ce
	case errors.As(err, &ce):
		res.Violate(repair.CodeInvalidValue, "column", ce.Message)
	case err != nil:
		return err
	case bad != nil:
		res.Violate(bad.Code, bad.Param, bad.Message)
	default:
		out.FileText = text
	}
	return nil
}

// rangeOf reads the line options of a read tool's arguments: offset, limit
// and column (withOffset), head, tail and line_numbers; a wrong combination
// is the violation returned.
func rangeOf(args map[string]any, withOffset bool) (lineRange, bool, *repair.Violation) {
	var rng lineRange
	numbered, _ := args["line_numbers"].(bool)
	params := []struct {
		name string
		n    *int
	}{{"head", &rng.head}, {"tail", &rng.tail}}
	if withOffset {
		params = append(params, []struct {
			name string
			n    *int
		}{{"offset", &rng.offset}, {"limit", &rng.limit}, {"column", &rng.column}}...)
	}
	for _, p := range params {
		var err error
		if *p.n, err = intArg(args[p.name]); err != nil {
			return rng, false, &repair.Violation{Code: repair.CodeInvalidValue, Param: p.name, Message: "head, tail, offset, limit and column must be whole numbers"}
		}
	}
	switch {
	case rng.head > 0 && rng.tail > 0:
		return rng, false, &repair.Violation{Code: repair.CodeInvalidValue, Param: "tail", Message: "give head or tail, not both"}
	case (rng.head > 0 || rng.tail > 0) && (rng.offset > 0 || rng.limit > 0 || rng.column > 0):
		return rng, false, &repair.Violation{Code: repair.CodeInvalidValue, Param: "offset", Message: "give head or tail, or offset and limit, not both"}
	}
	return rng, numbered, nil
}

// readText reads the lines rng selects of the file at path, within maxBytes:
// the one read of every text read tool, confined and deny-aware, text only.
// What the model can act on (a refused path, a binary file, a range past the
// end) is the violation returned; a column that does not fit is a
// *ColumnError; anything else is the server's error.
func (g *Guard) readText(ws *workspace.Workspace, path string, rng lineRange, numbered bool, maxBytes int) (FileText, *repair.Violation, error) {
	data, info, err := ws.ReadFile(path)
	switch {
	case workspace.IsCode(err, workspace.CodeConflict):
		return FileText{}, nil, &FileChangedError{Path: path, Expected: "(as opened)", Actual: "(changed while being read)"}
	case err != nil:
		if workspace.CodeOf(err) == "" {
			return FileText{}, nil, fmt.Errorf("read %s: %w", path, err)
		}
		return FileText{}, &repair.Violation{Code: violationCode(err), Param: "path", Message: err.Error()}, nil
	}
	if msg := binaryReason(data); msg != "" {
		return FileText{}, &repair.Violation{Code: CodeBinaryFile, Param: "path", Message: fmt.Sprintf("file %q is %s; text reads return text only, so it was not read (read_media_file returns images and other media)", path, msg)}, nil
	}
	sel, err := selectLines(data, rng, maxBytes, numbered)
	var re *rangeError
	switch {
	case errors.As(err, &re):
		return FileText{}, &repair.Violation{Code: repair.CodeInvalidValue, Param: re.param, Message: re.msg}, nil
	case err != nil:
		return FileText{}, nil, err
	}
	return FileText{Path: info.Path, Content: sel.text, SHA256: info.SHA256, Size: info.Size, TotalLines: sel.total,
		StartLine: sel.start, EndLine: sel.end, Truncated: sel.truncated, NextColumn: sel.next}, nil, nil
}

// maxReadBytes keeps a read's text well inside the answer's budget.
func (g *Guard) maxReadBytes() int {
	if b := g.answerBudget(); b > 0 && b/2 < DefaultMaxReadBytes {
		return b / 2
	}
	return DefaultMaxReadBytes
}

func intArg(v any) (int, error) {
	switch n := v.(type) {
	case nil:
		return 0, nil
	case json.Number:
		i, err := strconv.ParseInt(string(n), 10, 0)
		return int(i), err
	case int:
		return n, nil
	case float64:
		if n != float64(int32(n)) {
			return 0, fmt.Errorf("%v is not a whole number", n)
		}
		return int(n), nil
	}
	return 0, fmt.Errorf("%v is not a number", v)
}

// binaryReason says why data is not text: a NUL byte in its first 8 KB, or
// bytes anywhere that are not UTF-8 (no API answer can carry those as text).
// "" for text.
func binaryReason(data []byte) string {
	head := data[:min(len(data), binarySniffBytes)]
	if i := bytes.IndexByte(head, 0); i >= 0 {
		return fmt.Sprintf("binary (a NUL byte at offset %d)", i)
	}
	if !utf8.Valid(data) {
		return fmt.Sprintf("not UTF-8 text (an invalid byte sequence at offset %d)", invalidOffset(data))
	}
	return ""
}

func invalidOffset(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}

// selection is the lines a read returns.
type selection struct {
	text       string
	total      int
	start, end int
	truncated  bool
	next       int // the 1-based byte of line end to read on from, when cut inside it
}

// lineRange is a read's range: 1-based first line and byte in it (0: 1),
// line count (0: to the end); or the first head or last tail lines.
type lineRange struct{ offset, column, limit, head, tail int }

// rangeError refuses a range, naming the argument to change.
type rangeError struct{ param, msg string }

func (e *rangeError) Error() string { return e.msg }

// selectLines returns r's lines within maxBytes (at least minReadBytes):
// past it the text stops after the last whole line that fits or, when even
// the first does not, inside it at a character, and says where to read on.
func selectLines(data []byte, r lineRange, maxBytes int, numbered bool) (selection, error) {
	maxBytes = max(maxBytes, minReadBytes)
	lines := splitLines(string(data))
	switch {
	case r.head > 0:
		r.offset, r.limit = 1, r.head
	case r.tail > 0:
		r.offset, r.limit = max(1, len(lines)-r.tail+1), r.tail
	}
	s := selection{total: len(lines), start: max(r.offset, 1)}
	if s.start > len(lines) && !(s.start == 1 && len(lines) == 0) {
		return s, &rangeError{"offset", fmt.Sprintf("offset %d is past the end of the file, which has %d lines; give an offset from 1 to %d", s.start, len(lines), max(len(lines), 1))}
	}
	from, err := firstByte(lines, s.start, r.column)
	if err != nil {
		return s, err
	}
	last := len(lines)
	if r.limit > 0 {
		last = min(last, s.start-1+r.limit)
	}
	width := max(4, len(strconv.Itoa(last)))
	var b strings.Builder
	s.end = s.start - 1
	for i := s.start - 1; i < last; i++ {
		raw := lines[i][from:]
		line := shownLine(raw, i, from, width, numbered)
		if b.Len()+len(line) > maxBytes {
			s.truncated = true
			if b.Len() == 0 {
				n := cutLen(raw, maxBytes-len(shownLine("", i, from, width, numbered)))
				b.WriteString(shownLine(raw[:n], i, from, width, numbered))
				s.end, s.next = i+1, from+n+1
			}
			break
		}
		b.WriteString(line)
		s.end = i + 1
		from = 0
	}
	s.text = b.String()
	return s, nil
}

// firstByte checks column against line start and returns its 0-based byte.
func firstByte(lines []string, start, column int) (int, error) {
	if column <= 1 {
		return 0, nil
	}
	line := ""
	if start <= len(lines) {
		line = lines[start-1]
	}
	switch {
	case column > len(line):
		return 0, &ColumnError{Line: start, Column: column, Message: fmt.Sprintf("column %d is past the end of line %d, which has %d bytes; give a column from 1 to %d", column, start, len(line), max(len(line), 1))}
	case !utf8.RuneStart(line[column-1]):
		n := column - 1
		for n > 0 && !utf8.RuneStart(line[n]) {
			n--
		}
		return 0, &ColumnError{Line: start, Column: column, Message: fmt.Sprintf("column %d of line %d falls inside a character; give column %d, where it starts", column, start, n+1)}
	}
	return column - 1, nil
}

// shownLine is raw, bytes from of line i, as the read shows it.
func shownLine(raw string, i, from, width int, numbered bool) string {
	if !numbered {
		return raw
	}
	if i == 0 && from == 0 {
		raw = strings.TrimPrefix(raw, "\uFEFF")
	}
	return NumberedLine(width, i+1, strings.TrimSuffix(strings.TrimSuffix(raw, "\n"), "\r"))
}

// cutLen is how much of s to show within n bytes: whole characters, yet at
// least one byte, so a read always makes progress.
func cutLen(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	k := len(cutAtRune(s, n))
	if k == 0 {
		k = min(len(s), max(n, 1))
	}
	return k
}

// NumberedLine is one line in the read-tool shape "  12 | code\n" that the
// edit path strips again (repair/contentfix), numbers right-aligned to width.
func NumberedLine(width, n int, text string) string {
	return fmt.Sprintf("%*d | %s\n", width, n, text)
}

// splitLines splits s after each "\n"; a last line without one is a line.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func cutAtRune(s string, n int) string {
	if n >= len(s) {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
