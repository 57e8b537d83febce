package main

import (
	"context"
	"flag"
	"io"

	"go.uber.org/zap"

	"github.com/toolguard/toolguard/internal/auth"
	"github.com/toolguard/toolguard/proxy"
)

// proxySettings declares every proxy.Config field once. The variables are
// TOOLGUARD_PROXY_*, so a proxy and a server sharing an environment do not
// take each other's settings.
var proxySettings = []setting[proxy.Config]{
	{"listen", "TOOLGUARD_PROXY_LISTEN", "TCP `address` the proxy listens on: loopback unless --allow-unauthenticated (the proxy authenticates no one)",
		func(c *proxy.Config) flag.Value { return (*stringValue)(&c.Listen) }},
	{"allow-unauthenticated", "TOOLGUARD_PROXY_ALLOW_UNAUTHENTICATED", "allow a --listen address beyond loopback: whoever reaches it can use the upstream through the proxy",
		func(c *proxy.Config) flag.Value { return (*boolValue)(&c.AllowUnauthenticated) }},
	{"upstream", "TOOLGUARD_PROXY_UPSTREAM", "`URL` of the OpenAI- or Anthropic-compatible model server every request goes to: its origin, optionally with a path prefix (http://127.0.0.1:8000, https://api.openai.com); a trailing /v1 is dropped, as requests carry it (a request without /v1 gets it back)",
		func(c *proxy.Config) flag.Value { return (*stringValue)(&c.Upstream) }},
	{"upstream-timeout", "TOOLGUARD_PROXY_UPSTREAM_TIMEOUT", "`duration` to wait for the upstream's response headers (a non-streamed answer sends them when it is complete; streams then run as long as they run)",
		func(c *proxy.Config) flag.Value { return (*durationValue)(&c.UpstreamTimeout) }},
	{"tools", "TOOLGUARD_PROXY_TOOLS", "comma-separated `names` of the tools whose calls are repaired, as requests declare them (empty: every declared tool)",
		func(c *proxy.Config) flag.Value { return (*listValue)(&c.Tools) }},
	{"strict", "TOOLGUARD_PROXY_STRICT", "a repaired call that still breaks its schema counts as a failure (see --fallback); off, it is sent repaired anyway when its arguments could be parsed",
		func(c *proxy.Config) flag.Value { return (*boolValue)(&c.Strict) }},
	{"mode", "TOOLGUARD_PROXY_MODE", "`mode`: enforce (repair, refuse, mark calls) or observe (every answer passes through as the upstream sent it; what enforce would have done is logged, one line per call, and counted with mode=\"observe\")",
		func(c *proxy.Config) flag.Value { return (*stringValue)(&c.Mode) }},
	{"fallback", "TOOLGUARD_PROXY_FALLBACK", "send a call that could not be repaired as the model wrote it, byte for byte; off, the client gets an error instead",
		func(c *proxy.Config) flag.Value { return (*boolValue)(&c.Fallback) }},
	{"rescue", "TOOLGUARD_PROXY_RESCUE", "turn a complete, valid call to a declared tool that the model server left in the answer's text (its parser missed it) into a tool call; other text goes as written",
		func(c *proxy.Config) flag.Value { return (*boolValue)(&c.Rescue) }},
	{"session-header", "TOOLGUARD_PROXY_SESSION_HEADER", "request `header` naming the session a request's calls are counted in (not forwarded upstream; without it nothing is counted)",
		func(c *proxy.Config) flag.Value { return (*stringValue)(&c.SessionHeader) }},
	{"mistake-limit", "TOOLGUARD_PROXY_MISTAKE_LIMIT", "`number` of consecutive mistakes at which a session's limit is reached",
		func(c *proxy.Config) flag.Value { return (*uint32Value)(&c.MistakeLimit) }},
	{"session-ttl", "TOOLGUARD_PROXY_SESSION_TTL", "idle `duration` after which a session is forgotten",
		func(c *proxy.Config) flag.Value { return (*durationValue)(&c.SessionTTL) }},
	{"max-sessions", "TOOLGUARD_PROXY_MAX_SESSIONS", "maximum `number` of sessions kept; the least recently seen is evicted first",
		func(c *proxy.Config) flag.Value { return (*intValue)(&c.MaxSessions) }},
	{"max-request-bytes", "TOOLGUARD_PROXY_MAX_REQUEST_BYTES", "largest request body to a generation endpoint, in `bytes` (413 beyond it)",
		func(c *proxy.Config) flag.Value { return (*int64Value)(&c.MaxRequestBytes) }},
	{"max-response-bytes", "TOOLGUARD_PROXY_MAX_RESPONSE_BYTES", "largest non-streamed answer read to repair, in `bytes` (a larger one passes through unrepaired)",
		func(c *proxy.Config) flag.Value { return (*int64Value)(&c.MaxResponseBytes) }},
	{"max-call-bytes", "TOOLGUARD_PROXY_MAX_CALL_BYTES", "largest streamed call held back to repair, in `bytes` of arguments (a larger one passes through unrepaired)",
		func(c *proxy.Config) flag.Value { return (*intValue)(&c.MaxCallBytes) }},
	{"max-held-bytes", "TOOLGUARD_PROXY_MAX_HELD_BYTES", "most `bytes` all requests hold together: request bodies, answers read to repair, streamed calls and the events behind them (a body past what is left: 503; an answer or call: passed through unrepaired)",
		func(c *proxy.Config) flag.Value { return (*int64Value)(&c.MaxHeldBytes) }},
	{"max-concurrent-requests", "TOOLGUARD_PROXY_MAX_CONCURRENT_REQUESTS", "most requests handled at once, of every path (`number`; 503 beyond it)",
		func(c *proxy.Config) flag.Value { return (*intValue)(&c.MaxConcurrentRequests) }},
	{"max-connections", "TOOLGUARD_PROXY_MAX_CONNECTIONS", "most client connections open at once (`number`); more are closed at once, so clients retry after their backoff",
		func(c *proxy.Config) flag.Value { return (*intValue)(&c.MaxConnections) }},
	{"record", "TOOLGUARD_PROXY_RECORD", "`file` each exchange whose calls are judged is appended to, as the upstream sent it, in toolguard eval's input format (credentials and --record-redact-headers redacted); empty: nothing is recorded",
		func(c *proxy.Config) flag.Value { return (*stringValue)(&c.Record) }},
	{"record-max-bytes", "TOOLGUARD_PROXY_RECORD_MAX_BYTES", "size in `bytes` past which the record file is rotated to FILE.1, FILE.2, ... (a larger exchange is not recorded)",
		func(c *proxy.Config) flag.Value { return (*int64Value)(&c.RecordMaxBytes) }},
	{"record-files", "TOOLGUARD_PROXY_RECORD_FILES", "`number` of rotated record files kept besides FILE (the oldest is removed)",
		func(c *proxy.Config) flag.Value { return (*intValue)(&c.RecordFiles) }},
	{"record-redact-headers", "TOOLGUARD_PROXY_RECORD_REDACT_HEADERS", "comma-separated request `headers` recorded as [redacted], besides Authorization, Proxy-Authorization, X-Api-Key, Api-Key, X-Goog-Api-Key and Cookie",
		func(c *proxy.Config) flag.Value { return (*listValue)(&c.RecordRedactHeaders) }},
	{"metrics-listen", "TOOLGUARD_PROXY_METRICS_LISTEN", "TCP `address` of the Prometheus /metrics endpoint, apart from the proxy's port (empty: no metrics)",
		func(c *proxy.Config) flag.Value { return (*stringValue)(&c.MetricsListen) }},
	{"log-format", "TOOLGUARD_PROXY_LOG_FORMAT", "log `format`: json or console",
		func(c *proxy.Config) flag.Value { return (*stringValue)(&c.LogFormat) }},
	{"log-level", "TOOLGUARD_PROXY_LOG_LEVEL", "log `level`: debug (adds each call's arguments), info, warn or error",
		func(c *proxy.Config) flag.Value { return (*stringValue)(&c.LogLevel) }},
	{"shutdown-timeout", "TOOLGUARD_PROXY_SHUTDOWN_TIMEOUT", "`duration` requests and streams in flight may run on at shutdown before they are cut",
		func(c *proxy.Config) flag.Value { return (*durationValue)(&c.ShutdownTimeout) }},
}

// runProxy runs the repairing HTTP proxy until SIGINT or SIGTERM.
func runProxy(args []string, _ io.Reader, _, stderr io.Writer) int {
	fs := newFlagSet("proxy", "Usage: toolguard proxy --upstream URL [flags]\n\n"+
		"Runs an HTTP proxy in front of an OpenAI- or Anthropic-compatible model server: requests go to\n"+
		"--upstream unchanged, and the tool calls in the answers to POST .../chat/completions and\n"+
		"POST /v1/messages (streamed or not) come back repaired against the tools each request declares.\n"+
		"Point the agent's base URL at the proxy. Runs until SIGINT or SIGTERM.\n"+
		"Every flag has a TOOLGUARD_PROXY_* environment twin; a flag wins over its variable.\n\nFlags:\n\n", stderr)
	return runServer(fs, proxySettings, proxy.DefaultConfig(), args, stderr,
		func(c proxy.Config) (string, string) { return c.LogFormat, c.LogLevel }, serveProxy)
}

// serveProxy logs the configuration and runs the proxy until ctx ends.
func serveProxy(ctx context.Context, cfg proxy.Config, log *zap.Logger) error {
	upstream, trimmed := cfg.UpstreamBase()
	if trimmed {
		log.Info("the upstream URL ends in /v1, and requests carry /v1 in their own path: it is dropped, so a request to /v1/chat/completions goes to the upstream's /v1/chat/completions (and one to /chat/completions gets the /v1 back)",
			zap.String("upstream", upstream))
	}
	log.Info("starting toolguard proxy",
		zap.String("version", version),
		zap.String("listen", cfg.Listen),
		zap.String("upstream", upstream),
		zap.Strings("tools", cfg.Tools),
		zap.String("mode", cfg.Mode),
		zap.Bool("strict", cfg.Strict),
		zap.Bool("fallback", cfg.Fallback),
		zap.Bool("rescue", cfg.Rescue),
		zap.String("session_header", cfg.SessionHeader),
		zap.Duration("upstream_timeout", cfg.UpstreamTimeout),
		zap.String("metrics_listen", cfg.MetricsListen),
		zap.String("record", cfg.Record),
		zap.Int64("max_held_bytes", cfg.MaxHeldBytes),
		zap.Int("max_concurrent_requests", cfg.MaxConcurrentRequests),
	)
	if cfg.AllowUnauthenticated && !auth.IsLoopback(cfg.Listen) {
		log.Warn("listening beyond loopback without authentication (--allow-unauthenticated): whoever reaches the proxy can use the upstream through it", zap.String("listen", cfg.Listen))
	}
	if err := proxy.ListenAndServe(ctx, cfg, log); err != nil {
		return err
	}
	return nil
}
