package guard

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unsafe"

	"github.com/toolguard/toolguard/edit"
	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/session"
	"github.com/toolguard/toolguard/workspace"
)

const (
	CodeEditNotFound  = "EDIT_NOT_FOUND"
	CodeEditAmbiguous = "EDIT_AMBIGUOUS"
	CodeFileNotFound  = "FILE_NOT_FOUND"
	CodeFileExists    = "FILE_EXISTS"
	CodeNotRegular    = "NOT_REGULAR_FILE"
	CodeFileTooLarge  = "FILE_TOO_LARGE"
	// CodeEditCount refuses an edit whose expected_replacements is not the
	// number of occurrences.
	CodeEditCount = "EDIT_COUNT_MISMATCH"
	// CodeIsDirectory refuses a delete of a folder without recursive.
	CodeIsDirectory = "IS_DIRECTORY"
)

// ExecuteRequest is a call to validate and carry out in a workspace.
type ExecuteRequest struct {
	ValidateRequest
	Workspace string
	// ExpectedSHA256 is the file's hash as the model read it; a mismatch is
	// a FileChangedError and nothing is written.
	ExpectedSHA256 string
	// DryRun computes everything but writes nothing.
	DryRun bool
	// Partial applies the edits that can be; by default a batch is
	// all-or-nothing.
	Partial bool
}

// EditOutcome is one edit's result, with the file it concerned.
type EditOutcome struct {
	Index int
	Path  string
	edit.EditResult
}

// ChangeKind is what happened to a file.
type ChangeKind int

const (
	ChangeCreated ChangeKind = iota + 1
	ChangeModified
	ChangeDeleted
	ChangeMoved
	ChangeUnchanged
	// ChangeDirectoryCreated: create_directory made a folder.
	ChangeDirectoryCreated
)

// FileChange describes one file's change.
type FileChange struct {
	Path           string
	Kind           ChangeKind
	PreviousSHA256 string
	SHA256         string
	Size           int
	MovedTo        string
	// Directory: the path is a folder (created, moved or deleted); Entries
	// counts the names below one moved or deleted.
	Directory bool
	Entries   int
}

// Execution is the outcome of ExecuteWrite or ExecuteEdit; it fits the
// guard's MaxResponseBytes (elide.go).
type Execution struct {
	*Verdict
	Edits   []EditOutcome
	Changes []FileChange
	// Diff is the unified diff of everything changed, empty with DiffElided
	// set when too large.
	Diff       string
	DiffElided *Elision
	Applied    bool
	// Syntax has a check per changed file of a known language (syntax.go).
	Syntax  []SyntaxCheck
	written int64
	batch   *editBatch // set by edit calls, for their report
}

// Messages of a full or read-only workspace: the call was fine, the files
// are unchanged, and what would help.
const (
	WorkspaceFullMessage = "the workspace's disk is full (no space or quota left): nothing was written and the files are unchanged. " +
		"The call itself is fine; free space on the workspace's volume, then send it again"
	WorkspaceReadOnlyMessage = "the workspace is on a read-only file system: nothing was written and the files are unchanged. " +
		"The call itself is fine, but no change can be made until the workspace is mounted read-write; do not retry before then"
)

// StorageMessage returns the message of a full or read-only workspace, or
// false for any other error.
func StorageMessage(err error) (string, bool) {
	switch {
	case errors.Is(err, workspace.ErrFull):
		return WorkspaceFullMessage, true
	case errors.Is(err, workspace.ErrReadOnly):
		return WorkspaceReadOnlyMessage, true
	}
	return "", false
}

// UnknownWorkspaceError reports a workspace the server does not have.
type UnknownWorkspaceError struct{ Name string }

func (e *UnknownWorkspaceError) Error() string {
	return fmt.Sprintf("unknown workspace %q", e.Name)
}

// WrongToolError reports a call sent to the wrong RPC (an edit to
// ExecuteWrite): the tool name decides the RPC.
type WrongToolError struct {
	Tool string
	Want string
	// Declared: the call resolved to the request's own definition of a
	// tool, which the server never executes, even under a built-in's name.
	Declared bool
}

func (e *WrongToolError) Error() string {
	if e.Declared {
		return fmt.Sprintf("tool %q resolved to the request's own definition in tools, which the server does not execute; drop it from tools to execute the server's %s", e.Tool, e.Want)
	}
	return fmt.Sprintf("tool %q cannot be executed here; this call executes %s", e.Tool, e.Want)
}

// FileChangedError reports a file that changed since the model read it.
type FileChangedError struct {
	Path     string
	Expected string
	Actual   string
}

func (e *FileChangedError) Error() string {
	return fmt.Sprintf("%s changed since it was read (expected sha256 %s, found %s)", e.Path, e.Expected, shortHash(e.Actual))
}

func shortHash(h string) string {
	if h == "" {
		return "no file"
	}
	return h
}

// Workspace returns the workspace a request names.
func (g *Guard) workspace(name string) (*workspace.Workspace, error) {
	if name == "" {
		name = g.defaultWorkspace
	}
	ws := g.workspaces[name]
	if ws == nil {
		return nil, &UnknownWorkspaceError{Name: name}
	}
	return ws, nil
}

// ExecuteWrite validates a write call and writes the file atomically. A
// model's mistake, a refused path included, is a verdict and nothing is
// written.
func (g *Guard) ExecuteWrite(ctx context.Context, req ExecuteRequest) (*Execution, error) {
	return g.execute(ctx, req, writeTools, g.write)
}

var writeTools = []string{"write_to_file"}

// Action is what a front end does with a call of a tool.
type Action int

const (
	// ActionValidate: repaired and validated only (a caller's own tool, todo_write).
	ActionValidate Action = iota
	// ActionWrite: ExecuteWrite.
	ActionWrite
	// ActionEdit: ExecuteEdit.
	ActionEdit
	// ActionRead: ReadCall.
	ActionRead
	// ActionLook: LookCall, the read-only tools that look around (look.go).
	ActionLook
)

// ActionOf says how a tool of the registry (or ReadTool) is carried out;
// only toolguard's own tools are executed.
func (g *Guard) ActionOf(t *repair.Tool) Action {
	switch {
	case t == g.readTool:
		return ActionRead
	case !t.Builtin():
		return ActionValidate
	case isLook(t):
		return ActionLook
	case slices.Contains(writeTools, t.Name()):
		return ActionWrite
	case slices.Contains(editTools, t.Name()):
		return ActionEdit
	}
	return ActionValidate
}

// checkFor opens the request's workspace and repairs and validates its
// call, which must be of a tool that fits (a typed entry point's, want
// naming them): a call of another is the caller's WrongToolError.
func (g *Guard) checkFor(req ExecuteRequest, fits func(*repair.Tool) bool, want string) (*workspace.Workspace, *repair.Result, error) {
	ws, err := g.workspace(req.Workspace)
	if err != nil {
		return nil, nil, err
	}
	res, err := g.check(req.ValidateRequest)
	if err != nil {
		return nil, nil, err
	}
	if res.Tool != nil && !fits(res.Tool) {
		return nil, nil, &WrongToolError{Tool: res.Tool.Name(), Want: want}
	}
	return ws, res, nil
}

// execute is what ExecuteWrite and ExecuteEdit share; execution failures
// count as mistakes too.
func (g *Guard) execute(ctx context.Context, req ExecuteRequest, tools []string,
	run func(context.Context, *workspace.Workspace, ExecuteRequest, *repair.Result, *Execution) error) (*Execution, error) {
	want := strings.Join(tools, ", ")
	ws, res, err := g.checkFor(req, func(t *repair.Tool) bool { return slices.Contains(tools, t.Name()) }, want)
	if err == nil && res.Tool != nil && !res.Tool.Builtin() {
		// Only the server's own tools run: the request's definition
		// under a built-in's name is the caller's to carry out.
		err = &WrongToolError{Tool: res.Tool.Name(), Want: want, Declared: true}
	}
	if err != nil {
		return nil, err
	}
	ex := &Execution{}
	ran := res.OK()
	if ran {
		if err := run(ctx, ws, withExpected(req, res), res, ex); err != nil {
			return nil, err
		}
		g.textEditorMessages(req.ValidateRequest, res, ex)
	}
	v, err := g.conclude(ctx, req.ValidateRequest, res, ex.Applied)
	if err != nil {
		return nil, err
	}
	ex.Verdict = v
	if ran {
		editFeedback(res, ex)
		reportSyntax(res, ex)
		g.observer.Execution(ex)
	}
	if err := g.elide(ex); err != nil {
		return nil, err
	}
	return ex, nil
}

// withExpected takes the hash the model gave (expected_sha256, as read_file
// gave it) when the caller gave none.
func withExpected(req ExecuteRequest, res *repair.Result) ExecuteRequest {
	if req.ExpectedSHA256 == "" {
		req.ExpectedSHA256, _ = res.Args["expected_sha256"].(string)
	}
	return req
}

func (g *Guard) write(ctx context.Context, ws *workspace.Workspace, req ExecuteRequest, res *repair.Result, ex *Execution) error {
	path, _ := res.Args["path"].(string)
	content, _ := res.Args["content"].(string)
	f, err := open(ws, res, "path", path)
	if f == nil {
		return err
	}
	defer f.Close()
	rel, old, existed, oldHash := f.Path(), f.Data(), f.Info().Exists, f.Info().SHA256
	if req.ExpectedSHA256 != "" && !strings.EqualFold(req.ExpectedSHA256, oldHash) {
		return &FileChangedError{Path: rel, Expected: req.ExpectedSHA256, Actual: oldHash}
	}
	if existed {
		content = keepLineEndings(res, string(old), content)
	}
	from := rel
	if !existed {
		from = "" // created: the diff comes from /dev/null
	}
	ex.Diff, ex.DiffElided = joinDiffs(edit.Unified(from, rel, string(old), content))
	// The content's bytes, hashed, checked and written, never changed: a
	// view, not copies of a content that may be megabytes.
	data := unsafe.Slice(unsafe.StringData(content), len(content))
	change := FileChange{Path: rel, PreviousSHA256: oldHash, Size: len(content), SHA256: workspace.SHA256Hex(data)}
	switch {
	case !existed:
		change.Kind = ChangeCreated
	case string(old) == content:
		change.Kind = ChangeUnchanged
	default:
		change.Kind = ChangeModified
	}
	ex.Changes = []FileChange{change}
	if change.Kind != ChangeUnchanged {
		var before []byte
		if existed {
			before = old
		}
		if g.refuseSyntax(res, "content", res.ToolName, g.checkSyntax(ex, rel, before, data, nil)) {
			g.checkAnswer(res, ex)
			return nil
		}
	}
	if !g.checkAnswer(res, ex) {
		return nil
	}
	if req.DryRun || change.Kind == ChangeUnchanged {
		return nil
	}
	if err := f.Write(data); err != nil {
		return g.fileError(res, "path", rel, err)
	}
	ex.written += int64(len(content))
	ex.Applied = true
	g.remember(ctx, req, ws, session.Change{Path: rel, Existed: existed, Before: old, AfterSHA256: change.SHA256})
	return nil
}

// keepLineEndings gives LF-only content the CRLF and BOM of the file it
// overwrites, so the diff shows what changed rather than every line; the
// arguments keep the content as the model sent it.
func keepLineEndings(res *repair.Result, old, content string) string {
	out, crlf, bom := edit.KeepLineEndings(old, content)
	var kept []string
	if crlf {
		kept = append(kept, "CRLF line endings")
	}
	if bom {
		kept = append(kept, "byte order mark")
	}
	if len(kept) > 0 {
		res.AddRepair(repair.CodeLineEndingsKept, "content",
			"the file's "+strings.Join(kept, " and its ")+" kept: the content had only LF line breaks and no byte order mark")
	}
	return out
}

// resolve maps a model's path into the workspace; a refusal is a violation.
func resolve(ws *workspace.Workspace, res *repair.Result, param, path string) (workspace.Resolved, bool) {
	r, err := ws.ResolveFile(path)
	if err != nil {
		res.Violate(violationCode(err), param, err.Error())
		return workspace.Resolved{}, false
	}
	return r, true
}

// open opens a file for a read-modify-write; a refusal becomes a violation
// on param (nil file, nil error).
func open(ws *workspace.Workspace, res *repair.Result, param, path string) (*workspace.File, error) {
	f, err := ws.OpenFile(path)
	var we *workspace.Error
	switch {
	case err == nil:
		return f, nil
	case !errors.As(err, &we):
		return nil, fmt.Errorf("read %s: %w", path, err)
	case we.Code == workspace.CodeConflict:
		return nil, &FileChangedError{Path: we.Path, Expected: "(as opened)", Actual: "(changed while being read)"}
	}
	res.Violate(violationCode(err), param, err.Error())
	return nil, nil
}

// fileError turns a failure about the path into a violation the model can
// fix, and returns the server's own.
func (g *Guard) fileError(res *repair.Result, param, rel string, err error) error {
	if workspace.IsCode(err, workspace.CodeConflict) {
		return &FileChangedError{Path: rel, Expected: "(as read)", Actual: "(changed while writing)"}
	}
	var we *workspace.Error
	if errors.As(err, &we) {
		res.Violate(violationCode(err), param, err.Error())
		return nil
	}
	return fmt.Errorf("write %s: %w", rel, err)
}

func violationCode(err error) string {
	var we *workspace.Error
	if !errors.As(err, &we) {
		return repair.CodeInvalidValue
	}
	switch we.Code {
	case workspace.CodeOutsideWorkspace:
		return repair.CodeOutsideWorkspace
	case workspace.CodeDeniedPath, workspace.CodeSymlink, workspace.CodeHardlink:
		return repair.CodeDeniedPath
	case workspace.CodeNotFound:
		return CodeFileNotFound
	case workspace.CodeNotRegular:
		return CodeNotRegular
	case workspace.CodeTooLarge:
		return CodeFileTooLarge
	case workspace.CodeExists:
		return CodeFileExists
	case workspace.CodeIsDirectory:
		return CodeIsDirectory
	default:
		return repair.CodeInvalidValue
	}
}
