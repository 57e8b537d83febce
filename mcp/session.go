package mcp

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/internal/auth"
)

// sessionKey keys an authenticated caller's sessions with its principal, as
// the gRPC server does, so one principal never counts in another's. Without
// tokens (c nil) the id is used as sent.
func sessionKey(c *auth.Caller, id string) string {
	if c == nil {
		return id
	}
	return guard.SessionKey(c.Principal, c.Authenticated(), id)
}

const callerKey = "toolguard.caller"

// requireToken refuses HTTP requests without a valid bearer token and hands
// the caller to the tool handlers (the SDK's TokenInfo).
func requireToken(verify auth.Verifier, next http.Handler) http.Handler {
	return sdkauth.RequireBearerToken(func(_ context.Context, token string, _ *http.Request) (*sdkauth.TokenInfo, error) {
		c, err := verify(token)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", sdkauth.ErrInvalidToken, err)
		}
		// UserID binds an MCP session to its principal: the SDK refuses a
		// session id presented with another principal's token.
		return &sdkauth.TokenInfo{UserID: c.Principal, Extra: map[string]any{callerKey: c}}, nil
	}, &sdkauth.RequireBearerTokenOptions{AllowMissingExpiration: true})(next)
}

func callerOf(req *sdk.CallToolRequest) *auth.Caller {
	if req.Extra == nil || req.Extra.TokenInfo == nil {
		return nil
	}
	c, _ := req.Extra.TokenInfo.Extra[callerKey].(*auth.Caller)
	return c
}

// sessionID is the MCP session's id ("mcp:" and the transport's, or this
// process's for stdio, which has none).
func (s *Server) sessionID(ss *sdk.ServerSession) string {
	if ss != nil {
		if id := ss.ID(); id != "" {
			return "mcp:" + id
		}
	}
	return "mcp:" + s.stdioID
}

// rootsEntry caches a session's roots until the client says they changed.
type rootsEntry struct {
	once sync.Once
	dirs []string // nil: the client set no roots, nothing narrows
}

func (s *Server) rootsChanged(_ context.Context, req *sdk.RootsListChangedRequest) {
	s.roots.Delete(req.Session)
}

// workspaceFor picks the workspace a session's calls act on: the default
// one, narrowed by the client's roots to the workspaces inside one of them
// and by the caller's grants. A refusal is a message for the model.
func (s *Server) workspaceFor(ctx context.Context, ss *sdk.ServerSession, c *auth.Caller) (string, string) {
	names, refusal := s.workspacesFor(ctx, ss, c)
	if len(names) == 0 {
		return "", refusal
	}
	return names[0], ""
}

// workspacesFor lists the workspaces a session may act on, the one its
// calls act on by default first; none with a refusal for the model, or
// none at all when the server has none.
func (s *Server) workspacesFor(ctx context.Context, ss *sdk.ServerSession, c *auth.Caller) ([]string, string) {
	names := make([]string, 0, len(s.opts.Workspaces))
	for name := range s.opts.Workspaces {
		names = append(names, name)
	}
	// The default first, then by name: the choice is stable.
	sort.Slice(names, func(i, j int) bool {
		if (names[i] == guard.DefaultWorkspaceName) != (names[j] == guard.DefaultWorkspaceName) {
			return names[i] == guard.DefaultWorkspaceName
		}
		return names[i] < names[j]
	})
	if c != nil {
		names = slices.DeleteFunc(names, func(n string) bool { return !c.MayUse(n) })
		if len(names) == 0 {
			return nil, fmt.Sprintf("principal %q is granted none of the server's workspaces", c.Principal)
		}
	}
	roots := s.rootsOf(ctx, ss)
	if roots == nil {
		return names, ""
	}
	names = slices.DeleteFunc(names, func(n string) bool { return !insideAny(s.opts.Workspaces[n], roots) })
	if len(names) > 0 {
		return names, ""
	}
	return nil, fmt.Sprintf("the client's roots (%s) contain none of the server's workspaces; toolguard acts only inside a workspace the server was started with, and roots may narrow them but not add to them",
		strings.Join(roots, ", "))
}

// rootsOf asks a client that has roots for them, once per session and list.
func (s *Server) rootsOf(ctx context.Context, ss *sdk.ServerSession) []string {
	if ss == nil {
		return nil
	}
	ip := ss.InitializeParams()
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.RootsV2 == nil { //nolint:staticcheck // SA1019: roots still narrow clients on protocol versions before 2026-07-28
		return nil
	}
	v, loaded := s.roots.LoadOrStore(ss, &rootsEntry{})
	if !loaded {
		// Forget the session's roots when it ends: HTTP servers see many.
		go func() {
			_ = ss.Wait()
			s.roots.Delete(ss)
		}()
	}
	e := v.(*rootsEntry)
	e.once.Do(func() {
		res, err := ss.ListRoots(ctx, nil) //nolint:staticcheck // SA1019: roots still narrow clients on protocol versions before 2026-07-28
		if err != nil {
			// Roots only narrow: without them the server's workspaces stand.
			s.log.Warn("mcp: listing the client's roots failed", zap.Error(err))
			return
		}
		// An empty list sets no bounds: clients advertise roots without
		// listing any. A root that is no file URI is none the server knows.
		for _, r := range res.Roots {
			d, ok := fileURIPath(r.URI)
			if !ok {
				d = r.URI
			}
			e.dirs = append(e.dirs, d)
		}
	})
	return e.dirs
}

func fileURIPath(uri string) (string, bool) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || u.Path == "" {
		return "", false
	}
	return filepath.Clean(filepath.FromSlash(u.Path)), true
}

// insideAny reports whether dir is one of roots or below one.
func insideAny(dir string, roots []string) bool {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	for _, r := range roots {
		if real, err := filepath.EvalSymlinks(r); err == nil {
			r = real
		}
		rel, err := filepath.Rel(r, dir)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return true
		}
	}
	return false
}
