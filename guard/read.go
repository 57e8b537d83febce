package guard

import (
	"bytes"
	"context"
	"encoding/json"
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
)

// readToolDef is read_file's definition: its path accepts the registry's
// spellings (param groups), its range those of the common read tools.
var readToolDef = repair.ToolDef{
	Name: ReadToolName,
	Description: "Read a text file in the workspace. Returns its lines (all of them, or `limit` lines from line `offset`), " +
		"with `  12 | ` line numbers when `line_numbers` is true, and the file's SHA-256, which an edit may give as its expected hash. " +
		"Binary files are refused.",
	Aliases: []string{"Read", "ReadFile", "read", "file_read", "view_file"},
	ParamAliases: []repair.ParamAliases{
		{Param: "offset", Aliases: []string{"start_line", "startLine", "line_offset"}},
		{Param: "limit", Aliases: []string{"line_count", "lineCount", "max_lines"}},
		{Param: "line_numbers", Aliases: []string{"lineNumbers", "numbered"}},
	},
	Parameters: map[string]any{
		"type": "object",
		"properties": map[string]any{
			"path":         map[string]any{"type": "string", "description": "The path of the file to read, relative to the workspace root."},
			"offset":       map[string]any{"type": "integer", "minimum": 1, "description": "The 1-based line to start reading at. Default 1."},
			"limit":        map[string]any{"type": "integer", "minimum": 1, "description": "How many lines to read. Default: to the end of the file."},
			"line_numbers": map[string]any{"type": "boolean", "description": "Prefix each line with its number, as `  12 | code`. Default false."},
		},
		"required":             []any{"path"},
		"additionalProperties": false,
	},
	Example: map[string]any{"path": "src/main.py", "offset": 1, "limit": 200},
}

// ReadTool returns the compiled read_file tool, for front ends that list tools.
func (g *Guard) ReadTool() *repair.Tool { return g.readTool }

// ReadRequest is a read asked for in fields (the ReadFile RPC, the CLI);
// ReadCall takes one as the model wrote it.
type ReadRequest struct {
	SessionID    string
	ModelID      string
	MistakeLimit uint32
	NoSession    bool
	Workspace    string
	Path         string
	// Offset is the 1-based first line (0: 1); Limit the line count (0: all).
	Offset, Limit int
	LineNumbers   bool
}

// Read is the outcome of a read. The file fields are set when the verdict is usable.
type Read struct {
	*Verdict
	// Path is the workspace-relative path read.
	Path string
	// Content holds lines StartLine..EndLine, exactly as in the file, or
	// numbered "  12 | code" (without line breaks' "\r") with LineNumbers.
	Content string
	// SHA256 and Size are the whole file's; TotalLines counts its lines.
	SHA256     string
	Size       int64
	TotalLines int
	// StartLine and EndLine are the 1-based lines returned (EndLine <
	// StartLine: none); Truncated says the answer stopped at the byte bound
	// before the range's end.
	StartLine, EndLine int
	Truncated          bool
}

// ReadFile reads a file as the ReadFile RPC asks: through read_file's
// checks, counted in the session as a call of the model.
func (g *Guard) ReadFile(ctx context.Context, req ReadRequest) (*Read, error) {
	args := map[string]any{"path": req.Path}
	if req.Offset != 0 {
		args["offset"] = req.Offset
	}
	if req.Limit != 0 {
		args["limit"] = req.Limit
	}
	if req.LineNumbers {
		args["line_numbers"] = true
	}
	text, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("encode read arguments: %w", err)
	}
	return g.ReadCall(ctx, ExecuteRequest{
		ValidateRequest: ValidateRequest{SessionID: req.SessionID, ModelID: req.ModelID, MistakeLimit: req.MistakeLimit,
			NoSession: req.NoSession, Call: repair.Call{Name: ReadToolName, Form: repair.FormText, Text: string(text)}},
		Workspace: req.Workspace,
	})
}

// ReadCall repairs and validates a read_file call (under any of its names)
// and reads the file. A refused path, a binary file or a range past the end
// is a verdict the model can act on.
func (g *Guard) ReadCall(ctx context.Context, req ExecuteRequest) (*Read, error) {
	ws, err := g.workspace(req.Workspace)
	if err != nil {
		return nil, err
	}
	req.Tools = append([]repair.ToolDef{readToolDef}, req.Tools...)
	res, err := g.check(req.ValidateRequest)
	if err != nil {
		return nil, err
	}
	if res.Tool != nil && res.Tool.Name() != ReadToolName {
		return nil, &WrongToolError{Tool: res.Tool.Name(), Want: ReadToolName}
	}
	out := &Read{}
	if res.OK() {
		if err := g.read(ws, res, out); err != nil {
			return nil, err
		}
	}
	// A read answered is never useless: the file may have changed since the
	// last one, so a repeat of it stays usable.
	v, err := g.conclude(ctx, req.ValidateRequest, res, res.OK())
	if err != nil {
		return nil, err
	}
	if err := g.fit(v); err != nil {
		return nil, err
	}
	out.Verdict = v
	if !v.OK() {
		*out = Read{Verdict: v}
	}
	return out, nil
}

// read fills out from the file res names, or adds the violation that refuses it.
func (g *Guard) read(ws *workspace.Workspace, res *repair.Result, out *Read) error {
	path, _ := res.Args["path"].(string)
	offset, oerr := intArg(res.Args["offset"])
	limit, lerr := intArg(res.Args["limit"])
	numbered, _ := res.Args["line_numbers"].(bool)
	if oerr != nil || lerr != nil {
		param := "offset"
		if oerr == nil {
			param = "limit"
		}
		res.Violate(repair.CodeInvalidValue, param, "offset and limit must be whole numbers of lines")
		return nil
	}
	data, info, err := ws.ReadFile(path)
	switch {
	case workspace.IsCode(err, workspace.CodeConflict):
		return &FileChangedError{Path: path, Expected: "(as opened)", Actual: "(changed while being read)"}
	case err != nil:
		if workspace.CodeOf(err) == "" {
			return fmt.Errorf("read %s: %w", path, err)
		}
		res.Violate(violationCode(err), "path", err.Error())
		return nil
	}
	if msg := binaryReason(data); msg != "" {
		res.Violate(CodeBinaryFile, "path", fmt.Sprintf("file %q is %s; read_file returns text only, so it was not read", path, msg))
		return nil
	}
	sel, err := selectLines(data, offset, limit, g.maxReadBytes(), numbered)
	if err != nil {
		res.Violate(repair.CodeInvalidValue, "offset", err.Error())
		return nil
	}
	*out = Read{Path: info.Path, Content: sel.text, SHA256: info.SHA256, Size: info.Size, TotalLines: sel.total,
		StartLine: sel.start, EndLine: sel.end, Truncated: sel.truncated}
	return nil
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
}

// selectLines returns limit lines from the 1-based line offset (0: from the
// first; limit 0: to the end), within maxBytes: past it the text stops after
// the last whole line that fits (or inside the first line, at a character,
// when even that one does not fit) and says it was truncated.
func selectLines(data []byte, offset, limit, maxBytes int, numbered bool) (selection, error) {
	lines := splitLines(string(data))
	s := selection{total: len(lines), start: max(offset, 1)}
	if s.start > len(lines) && !(s.start == 1 && len(lines) == 0) {
		return s, fmt.Errorf("offset %d is past the end of the file, which has %d lines; give an offset from 1 to %d", s.start, len(lines), max(len(lines), 1))
	}
	last := len(lines)
	if limit > 0 {
		last = min(last, s.start-1+limit)
	}
	width := max(4, len(strconv.Itoa(last)))
	var b strings.Builder
	s.end = s.start - 1
	for i := s.start - 1; i < last; i++ {
		line := lines[i]
		if numbered {
			if i == 0 {
				line = strings.TrimPrefix(line, "\uFEFF")
			}
			line = NumberedLine(width, i+1, strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r"))
		}
		if b.Len()+len(line) > maxBytes {
			s.truncated = true
			if b.Len() == 0 {
				b.WriteString(cutAtRune(line, maxBytes))
				s.end = i + 1
			}
			break
		}
		b.WriteString(line)
		s.end = i + 1
	}
	s.text = b.String()
	return s, nil
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
