package mcp

import (
	"context"
	"encoding/json"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolguard/toolguard/guard"
)

// IdempotencyKeyMeta is the `_meta` key of a tools/call that carries an
// idempotency key: a call that changes files then runs at most once per
// session and key, a retry getting the first result (guard.Once).
const IdempotencyKeyMeta = "toolguard.dev/idempotency_key"

// idempotencyKey returns the key a call carries in its _meta, "" if none.
func idempotencyKey(req *sdk.CallToolRequest) string {
	if req == nil || req.Params == nil {
		return ""
	}
	key, _ := req.Params.Meta[IdempotencyKeyMeta].(string)
	return key
}

// once runs a change under its idempotency key: the call's identity is its
// tool, workspace and arguments as sent; the result kept is its JSON.
func (s *Server) once(ctx context.Context, key, tool string, req guard.ExecuteRequest,
	run func(context.Context) (*sdk.CallToolResult, error)) (*sdk.CallToolResult, error) {
	if key == "" {
		return run(ctx)
	}
	identity, err := json.Marshal([]string{tool, req.Workspace, req.Call.Text})
	if err != nil {
		return nil, err
	}
	var failed error
	answer, err := s.g.Once(ctx, req.SessionID, key, identity, func(ctx context.Context) ([]byte, error) {
		res, err := run(ctx)
		if err != nil {
			failed = err
			return nil, err
		}
		return json.Marshal(res)
	})
	if err != nil {
		if failed != nil {
			return nil, failed
		}
		return nil, err
	}
	res := new(sdk.CallToolResult)
	if err := json.Unmarshal(answer, res); err != nil {
		return nil, err
	}
	return res, nil
}
