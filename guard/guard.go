// Package guard is the core every front end shares: repair and validate a
// tool call, count it in its session, execute writes and edits. It knows no
// gRPC or HTTP: front ends map its domain errors to their own.
package guard

import (
	"go.uber.org/zap"

	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/cespare/xxhash/v2"

	"github.com/toolguard/toolguard/edit"
	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/session"
	"github.com/toolguard/toolguard/syntax"
	"github.com/toolguard/toolguard/workspace"
)

// Guard validates tool calls and tracks sessions, safe for concurrent use.
type Guard struct {
	reg              *repair.Registry
	sessions         session.Store
	limit            uint32
	tools            *toolCache
	workspaces       map[string]*workspace.Workspace
	defaultWorkspace string
	match            edit.MatchOptions
	maxResponse      int
	maxVerdict       int
	observer         Observer
	uncounted        func(sessionID string, err error)
	observeOnly      bool // Config.Mode observe: streams execute nothing
	readTool         *repair.Tool
	history          session.History // undo_edit's; nil records nothing
	replies          session.Replies // idempotency keys' answers (idempotency.go)
	log              *zap.Logger
	maxMedia         int64 // Config.MaxMediaBytes
	// search bounds search_files (Config.Search); maxFileBytes is the
	// largest file a search reads.
	search       SearchLimits
	maxFileBytes int64
	// syntaxMode and syntaxLimits: Config.SyntaxCheck and its bounds.
	syntaxMode   string
	syntaxLimits syntax.Limits
	syntaxCache  *syntaxCache // recent checks' results (syntax_cache.go)
	// syntaxBudget bounds the memory of the checks running at once
	// (Config.SyntaxMaxMemory); syntaxParse is syntax.Check, or a test's.
	syntaxBudget *syntax.Budget
	syntaxParse  func(ctx context.Context, path string, src []byte, lim syntax.Limits) syntax.Result
}

// Registry returns the server's tool registry.
func (g *Guard) Registry() *repair.Registry { return g.reg }

// MistakeLimit returns the server's mistake limit.
func (g *Guard) MistakeLimit() uint32 { return g.limit }

// ValidateRequest is one call to validate.
type ValidateRequest struct {
	SessionID string
	ModelID   string
	// MistakeLimit lowers the server's limit for this call when smaller.
	MistakeLimit uint32
	Call         repair.Call
	// CallID is the id the model or orchestrator gave the call ("" if none):
	// an execution with the id of the call just validated is the same turn.
	CallID string
	// Tools are definitions of tools the server does not know, for this call.
	Tools []repair.ToolDef
	// NoSession validates outside any session: nothing recorded, no repeat,
	// Mistakes.NotCounted (the proxy, without its session header).
	NoSession bool
	// Truncated marks a call cut off: it gets a TRUNCATED violation.
	Truncated bool
}

// Verdict is the outcome of one call.
type Verdict struct {
	*repair.Result
	// ArgumentsJSON is nil when the arguments did not parse. Its bytes are
	// never written once set: answers share them instead of copying.
	ArgumentsJSON []byte
	Feedback      string
	Mistakes      MistakeState
	// Elided lists the values an answer left out (elide.go, verdict.go).
	Elided []Elision
	// echo, when set, is what answers echo of Args (verdict.go): without
	// the unexpected parameters, ArgumentsJSON's source until shaped.
	echo map[string]any
	// encoded is the arguments' encoding as made, which Release gives back
	// (argsbuf.go), and encodedBuf its holder, if it had one.
	encoded    []byte
	encodedBuf *argsBuf
}

// MistakeState is a session's consecutive-mistake counter against a limit.
type MistakeState struct {
	Consecutive  uint32
	Limit        uint32
	LimitReached bool
	// NotCounted: store unreachable or no session; Consecutive is unknown.
	NotCounted bool
	// StoreUnavailable: not counted because the store could not be reached,
	// or failed to count a call that made a change.
	StoreUnavailable bool
}

func newMistakeState(consecutive, limit uint32) MistakeState {
	return MistakeState{Consecutive: consecutive, Limit: limit, LimitReached: consecutive >= limit}
}

// Validate repairs, validates and counts a call. A model's mistake is a
// verdict; errors are the caller's or the session store's.
func (g *Guard) Validate(ctx context.Context, req ValidateRequest) (*Verdict, error) {
	res, err := g.check(req)
	if err != nil {
		return nil, err
	}
	readEdits(res)
	v, err := g.count(ctx, req, res, false, false)
	if err != nil {
		return nil, err
	}
	if err := g.fit(v); err != nil {
		return nil, err
	}
	return v, nil
}

func (g *Guard) check(req ValidateRequest) (*repair.Result, error) {
	req = g.withReadTool(req)
	extra, err := g.compileTools(req.Tools)
	if err != nil {
		return nil, err
	}
	call, truncated := g.readBlock(req.Call, extra)
	res := g.reg.Validate(call, repair.Options{ModelID: req.ModelID, Tools: extra})
	res.Form = req.Call.Form // as it arrived, whoever read it
	viewRange(req, extra, res)
	if (req.Truncated || truncated) && !res.Has(repair.CodeTruncated) {
		res.Violate(repair.CodeTruncated, "", "The call was cut off before it was complete (the output ended or hit a length limit), so it was not used.")
	}
	return res, nil
}

// readEdits reads the diff or patch of a checked call that will not be
// executed now: one execution could not read (cut off) is no usable call at
// validation either. An execution reads it itself. A caller's own tool of
// the same name is not ours to read.
func readEdits(res *repair.Result) {
	if res.OK() && res.Tool != nil && res.Tool.Builtin() && slices.Contains(editTools, res.Tool.Name()) {
		planEdits(res)
	}
}

// conclude counts a checked call that was sent to be executed (executed
// unless unusable): any violation is a mistake. applied says a change was
// made, which a verdict must never report as failed.
func (g *Guard) conclude(ctx context.Context, req ValidateRequest, res *repair.Result, applied bool) (*Verdict, error) {
	return g.count(ctx, req, res, true, applied)
}

// count counts a checked call in its session and writes its verdict. An
// execution of the call the session just validated is that validation's
// turn (session.Outcome): the README's validate-then-execute is one call.
func (g *Guard) count(ctx context.Context, req ValidateRequest, res *repair.Result, execution, applied bool) (*Verdict, error) {
	echo := res.Args
	if g.verdictBudget() > 0 {
		echo = res.EchoArgs() // verdict.go: no answer echoes them
	}
	argsJSON, buf, err := g.echoJSON(echo)
	if err != nil {
		return nil, fmt.Errorf("encode arguments: %w", err)
	}
	var m MistakeState
	var st session.State
	if !req.NoSession {
		var fp uint64
		if fp, err = fingerprint(res, req.Call, argsJSON, echo); err != nil {
			return nil, err
		}
		st, err = g.sessions.Record(ctx, req.SessionID, session.Outcome{Usable: res.OK(), Fingerprint: fp,
			CallID: req.CallID, Execution: execution})
	}
	switch {
	case req.NoSession:
		m = MistakeState{Limit: g.effectiveLimit(req.MistakeLimit), NotCounted: true}
	case errors.Is(err, session.ErrUnavailable) || (err != nil && applied):
		// Only counting needs the shared store: go on uncounted. Once a
		// change is made, no store failure (a timeout, a redirect, a script
		// error, a cancelled call) may turn its answer into an error: a
		// caller retrying it would apply it twice.
		if g.uncounted != nil {
			g.uncounted(req.SessionID, err)
		}
		m = MistakeState{Limit: g.effectiveLimit(req.MistakeLimit), NotCounted: true, StoreUnavailable: true}
	case err != nil:
		return nil, fmt.Errorf("record session %q: %w", req.SessionID, err)
	default:
		// A repeat that changed a file was not useless: it stays usable.
		if st.Repeated && !applied {
			res.Violate(repair.CodeRepeatedCall, "", fmt.Sprintf("This exact call was made %d times in a row; sending it again will not work any better.", st.Repeats))
		}
		m = newMistakeState(st.Consecutive, g.effectiveLimit(req.MistakeLimit))
	}
	v := &Verdict{
		Result:        res,
		ArgumentsJSON: argsJSON,
		Feedback:      repair.Feedback(res, repair.Mistakes{Consecutive: m.Consecutive, Limit: m.Limit}),
		Mistakes:      m,
		encoded:       argsJSON,
		encodedBuf:    buf,
	}
	if len(echo) != len(res.Args) {
		v.echo = echo
	}
	g.observeVerdict(v)
	return v, nil
}

// effectiveLimit applies a request's limit, which may only lower the server's.
func (g *Guard) effectiveLimit(requested uint32) uint32 {
	if requested > 0 && requested < g.limit {
		return requested
	}
	return g.limit
}

type Session struct {
	ID       string
	State    session.State
	Mistakes MistakeState
}

// Session returns a session's state.
func (g *Guard) Session(ctx context.Context, id string) (Session, error) {
	st, err := g.sessions.Get(ctx, id)
	if err != nil {
		return Session{}, fmt.Errorf("read session %q: %w", id, err)
	}
	return Session{ID: id, State: st, Mistakes: newMistakeState(st.Consecutive, g.limit)}, nil
}

// StoreReady reports whether the session store answers; a store in this
// process (memory) always does. A front end shows it as readiness.
func (g *Guard) StoreReady(ctx context.Context) error {
	if p, ok := g.sessions.(pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

// StoreRemote reports whether the session store is a server that may be
// away (StoreReady can fail).
func (g *Guard) StoreRemote() bool {
	_, ok := g.sessions.(pinger)
	return ok
}

type pinger interface{ Ping(context.Context) error }

// summaryMistakes is a stream's end's mistakes; an unreachable store says
// NotCounted.
func (g *Guard) summaryMistakes(ctx context.Context, id string, requested uint32) (MistakeState, error) {
	limit := g.effectiveLimit(requested)
	st, err := g.sessions.Get(ctx, id)
	switch {
	case errors.Is(err, session.ErrUnavailable):
		return MistakeState{Limit: limit, NotCounted: true, StoreUnavailable: true}, nil
	case err != nil:
		return MistakeState{}, fmt.Errorf("read session %q: %w", id, err)
	}
	return newMistakeState(st.Consecutive, limit), nil
}

// ResetSession forgets a session and returns its (empty) state.
func (g *Guard) ResetSession(ctx context.Context, id string) (Session, error) {
	if err := g.sessions.Reset(ctx, id); err != nil {
		return Session{}, fmt.Errorf("reset session %q: %w", id, err)
	}
	return Session{ID: id, Mistakes: newMistakeState(0, g.limit)}, nil
}

// CompileTool compiles a request's tool definition, reusing an identical
// one's compilation (the proxy compiles a request's tools before any call).
func (g *Guard) CompileTool(def repair.ToolDef) (*repair.Tool, error) {
	tools, err := g.compileTools([]repair.ToolDef{def})
	if err != nil {
		return nil, err
	}
	return tools[0], nil
}

// InvalidToolDefinitionError is a request's unusable tool definition.
type InvalidToolDefinitionError struct {
	Index int
	Name  string
	Err   error
}

func (e *InvalidToolDefinitionError) Error() string {
	return fmt.Sprintf("tool definition %d (%q): %v", e.Index, e.Name, e.Err)
}

func (e *InvalidToolDefinitionError) Unwrap() error { return e.Err }

// Reason is SCHEMA_REF_NOT_ALLOWED for a schema that refers outside itself,
// else INVALID_TOOL_DEFINITION.
func (e *InvalidToolDefinitionError) Reason() string {
	if re := (*repair.SchemaRefError)(nil); errors.As(e.Err, &re) {
		return "SCHEMA_REF_NOT_ALLOWED"
	}
	return "INVALID_TOOL_DEFINITION"
}

// compileTools compiles request tools, cached: the same tools come with
// every call, and compiling costs far more than validating.
func (g *Guard) compileTools(defs []repair.ToolDef) ([]*repair.Tool, error) {
	if len(defs) == 0 {
		return nil, nil
	}
	out := make([]*repair.Tool, len(defs))
	for i, def := range defs {
		key, err := defKey(def)
		if err != nil {
			return nil, &InvalidToolDefinitionError{Index: i, Name: def.Name, Err: err}
		}
		if t := g.tools.get(key); t != nil {
			out[i] = t
			continue
		}
		t, err := g.reg.Compile(def)
		if err != nil {
			return nil, &InvalidToolDefinitionError{Index: i, Name: def.Name, Err: err}
		}
		g.tools.put(key, t)
		out[i] = t
	}
	return out, nil
}

func defKey(def repair.ToolDef) ([sha256.Size]byte, error) {
	raw, err := json.Marshal(def) // map keys are sorted: equal definitions give equal bytes
	if err != nil {
		return [sha256.Size]byte{}, err
	}
	return sha256.Sum256(raw), nil
}

// fingerprint identifies a call for repeat detection, stable across
// processes so replicas agree. xxhash rather than FNV: it runs over the
// whole arguments on every call, at several GB/s instead of about one.
// When argsJSON is the encoding of echo, a part of the arguments, each
// parameter left out adds the hash of its name and value: in any order, so
// that a million unknown keys are neither sorted nor encoded into one text.
func fingerprint(res *repair.Result, call repair.Call, argsJSON []byte, echo map[string]any) (uint64, error) {
	h := xxhash.New()
	_, _ = h.WriteString(res.ToolName)
	_, _ = h.Write([]byte{0})
	if argsJSON != nil {
		_, _ = h.Write(argsJSON)
	} else if echo == nil {
		_, _ = h.WriteString(call.Text)
	}
	sum := h.Sum64()
	if argsJSON == nil && echo != nil {
		// echoJSON did not encode them: the same bytes, hashed as encoded.
		var err error
		if sum, err = streamedSum(res.ToolName, echo); err != nil {
			return 0, err
		}
	}
	if len(echo) != len(res.Args) {
		var buf []byte
		for k, v := range res.Args {
			if _, echoed := echo[k]; echoed {
				continue
			}
			var err error
			if buf, err = repair.AppendJSON(append(append(buf[:0], k...), 0), v); err != nil {
				return 0, fmt.Errorf("encode parameter %q: %w", k, err)
			}
			sum += xxhash.Sum64(buf)
		}
	}
	if sum != 0 {
		return sum, nil
	}
	return 1, nil
}

// toolCache is a bounded cache that drops an arbitrary entry when full: the
// working set is a few tool lists.
type toolCache struct {
	mu  sync.RWMutex
	max int
	m   map[[sha256.Size]byte]*repair.Tool
}

func newToolCache(max int) *toolCache {
	return &toolCache{max: max, m: make(map[[sha256.Size]byte]*repair.Tool)}
}

func (c *toolCache) get(k [sha256.Size]byte) *repair.Tool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.m[k]
}

func (c *toolCache) put(k [sha256.Size]byte, t *repair.Tool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= c.max {
		for old := range c.m {
			delete(c.m, old)
			break
		}
	}
	c.m[k] = t
}
