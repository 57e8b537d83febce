// Package proxy is toolguard as an HTTP proxy between an agent and an
// OpenAI- or Anthropic-compatible model server: it forwards each request to
// one fixed upstream unchanged and repairs the tool calls in the answer,
// streamed (server-sent events) or not, with the same engine as the gRPC
// service. Agents that cannot be changed get toolguard by pointing their
// base URL at the proxy.
//
// Only the two APIs' generation endpoints are looked into: POST
// .../chat/completions (OpenAI) and POST .../v1/messages (Anthropic).
// Their calls are repaired and validated against the tool schemas the
// request itself declared (tools[].function.parameters,
// tools[].input_schema), and nothing else: a name the request did not
// declare is never a call to repair. Every other request (GET /v1/models,
// embeddings...) and every other answer (errors, other content types) goes
// through as it is.
package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/guard/failure"
	"github.com/toolguard/toolguard/internal/budget"
	"github.com/toolguard/toolguard/repair"
)

// maxSessionIDBytes bounds the session header, as the gRPC API bounds
// session ids.
const maxSessionIDBytes = guard.MaxSessionIDBytes

// Options are a Proxy's collaborators; the zero value is usable.
type Options struct {
	// Log receives the access log and a line per concluded call; nil logs
	// nothing.
	Log *zap.Logger
	// Observe builds the guard's Observer (the product's metrics) from its
	// tool registry; nil observes nothing.
	Observe func(*repair.Registry) (guard.Observer, error)
	// Metrics registers the proxy's own counter
	// (toolguard_proxy_calls_total): a prometheus.Registerer or an
	// observe.Endpoint; nil counts nothing.
	Metrics interface {
		Register(prometheus.Collector) error
	}
	// Transport carries requests upstream; nil builds one from the
	// configuration.
	Transport http.RoundTripper
}

// Proxy is the proxy's HTTP handler. It is safe for concurrent use.
type Proxy struct {
	cfg      Config
	log      *zap.Logger
	guard    *guard.Guard
	release  func() error // the guard's cleanup
	upstream *url.URL
	addV1    bool // the upstream was given with /v1: paths without it get it
	rp       *httputil.ReverseProxy
	metrics  *proxyMetrics
	budget   *budget.Bytes // bytes held by all requests (MaxHeldBytes)
	running  atomic.Int64  // requests being handled (MaxConcurrentRequests)
	rec      *recordFile   // nil unless Record
}

// New builds a proxy: a guard without tools of its own (a request's calls
// are checked against the tools it declares) over an in-memory session
// store, and the reverse proxy to cfg.Upstream. Close releases it.
func New(cfg Config, opts Options) (*Proxy, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("invalid configuration: %w", err)
	}
	u, _ := cfg.upstreamURL()
	log := opts.Log
	if log == nil {
		log = zap.NewNop()
	}
	g, release, err := guard.New(cfg.guardConfig(), guard.Options{NoBuiltinTools: true, Observe: opts.Observe})
	if err != nil {
		return nil, err
	}
	p := &Proxy{cfg: cfg, log: log, guard: g, release: release, upstream: u, budget: budget.New(cfg.MaxHeldBytes)}
	_, p.addV1 = cfg.UpstreamBase()
	if cfg.Record != "" {
		if p.rec, err = newRecordFile(cfg, log); err != nil {
			_ = release()
			return nil, err
		}
		p.release = func() error { return errors.Join(release(), p.rec.Close()) }
	}
	if opts.Metrics != nil {
		p.metrics = newProxyMetrics(cfg.Mode)
		if err := opts.Metrics.Register(p.metrics.vec); err != nil {
			_ = release()
			return nil, fmt.Errorf("register proxy metrics: %w", err)
		}
	}
	transport := opts.Transport
	if transport == nil {
		transport = newTransport(cfg)
	}
	p.rp = &httputil.ReverseProxy{
		Rewrite:        p.rewrite,
		Transport:      transport,
		ModifyResponse: p.modifyResponse,
		ErrorHandler:   p.upstreamError,
		ErrorLog:       zap.NewStdLog(log.Named("reverse_proxy")),
		BufferPool:     bufferPool{},
	}
	return p, nil
}

// newTransport is the upstream's HTTP client transport: the response
// headers must come within UpstreamTimeout; bodies are taken as they come
// (no transparent decompression: what the upstream encodes, the client
// decodes).
func newTransport(cfg Config) *http.Transport {
	return &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   32,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
		ResponseHeaderTimeout: cfg.UpstreamTimeout,
		DisableCompression:    true,
	}
}

// Close releases the session store and closes the record file.
func (p *Proxy) Close() error { return p.release() }

// guardConfig is the core's configuration: in-memory sessions only.
func (c Config) guardConfig() guard.Config {
	g := guard.DefaultConfig()
	g.MistakeLimit, g.SessionTTL, g.MaxSessions = c.MistakeLimit, c.SessionTTL, c.MaxSessions
	return g
}

type requestKey struct{}

// requestOf returns the request state of a request the proxy looks into.
func requestOf(ctx context.Context) *request {
	rs, _ := ctx.Value(requestKey{}).(*request)
	return rs
}

// cleanPath reports a path without . and .. segments or empty ones, which
// could climb out of the upstream's path prefix.
func cleanPath(p string) bool {
	if !strings.HasPrefix(p, "/") {
		return false
	}
	for i, seg := range strings.Split(p[1:], "/") {
		if seg == "." || seg == ".." || seg == "" && i < strings.Count(p[1:], "/") {
			return false
		}
	}
	return true
}

// route returns the API whose generation endpoint the request is for, or 0.
func route(r *http.Request) api {
	if r.Method != http.MethodPost {
		return 0
	}
	switch p := r.URL.Path; {
	case strings.HasSuffix(p, "/chat/completions"):
		return apiOpenAI
	case strings.HasSuffix(p, "/v1/messages") || p == "/messages":
		return apiAnthropic
	}
	return 0
}

func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	sw := &statusWriter{ResponseWriter: w}
	var rs *request
	defer func() { p.accessLog(r, sw, rs, time.Since(start)) }()
	// The upstream request's body is sent while the answer comes back:
	// the server must not consume and close the client's body when the
	// answer's headers are written (HTTP/1), or the upstream request
	// would fail mid-answer.
	_ = http.NewResponseController(sw).EnableFullDuplex()
	// With full duplex, an upstream request that failed before reading
	// the whole body can leave that read in flight when the handler
	// returns; the server then reads the connection's next request
	// concurrently and panics (golang/go#68560). Closing the body waits
	// for the read in flight and ends it.
	defer func() { _ = r.Body.Close() }()

	if !p.enter() {
		p.log.Warn("request refused: the proxy is handling its maximum of requests", zap.String("path", r.URL.Path),
			zap.Int("max_concurrent_requests", p.cfg.MaxConcurrentRequests))
		p.overloaded(sw, route(r), fmt.Sprintf("toolguard proxy is handling its maximum of %d requests at once (--max-concurrent-requests); retry shortly", p.cfg.MaxConcurrentRequests))
		return
	}
	defer p.leave()

	// Not a forward proxy: the upstream is the configured one, whatever
	// the request line or the Host header says.
	if r.Method == http.MethodConnect || !strings.HasPrefix(r.RequestURI, "/") {
		p.refuse(sw, 0, http.StatusBadRequest, "invalid_request_error", "toolguard proxy is not a forward proxy: send requests to it as to the model server (its base URL)")
		return
	}
	if !cleanPath(r.URL.Path) {
		p.refuse(sw, 0, http.StatusBadRequest, "invalid_request_error", "the request path is not clean (a . or .. segment, or //)")
		return
	}
	a := route(r)
	sessionID := r.Header.Get(p.cfg.SessionHeader)
	r.Header.Del(p.cfg.SessionHeader) // addressed to the proxy, not the upstream
	if len(sessionID) > maxSessionIDBytes || !utf8.ValidString(sessionID) {
		p.refuse(sw, a, http.StatusBadRequest, "invalid_request_error",
			fmt.Sprintf("header %s: a session id of at most %d bytes of UTF-8", p.cfg.SessionHeader, maxSessionIDBytes))
		return
	}
	if a != 0 {
		// The body is held until the answer is sent: the upstream request
		// reads it, and may read it again when retried.
		h := &hold{b: p.budget}
		defer h.free()
		body, ok := p.readRequestBody(sw, r, a, h)
		if !ok {
			return
		}
		rs = p.newRequest(r.Context(), a, body, sessionID)
		if p.rec != nil && rs.repairs {
			rs.rec = p.rec.begin(r, body)
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength, r.TransferEncoding = int64(len(body)), nil
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		r = r.WithContext(context.WithValue(r.Context(), requestKey{}, rs))
	}
	p.rp.ServeHTTP(sw, r)
}

// newRequest reads what the proxy needs from a request body: the model and
// the declared tools whose schemas compile. A body it cannot read is
// forwarded all the same, and its answer passed through.
func (p *Proxy) newRequest(ctx context.Context, a api, body []byte, sessionID string) *request {
	log := p.log.With(zap.String("api", a.String()))
	if sessionID != "" {
		log = log.With(zap.String("session_id", sessionID))
	}
	rs := &request{ctx: ctx, api: a, session: sessionID, log: log, actions: map[action]int{}}
	var req struct {
		Model string            `json:"model"`
		Tools []json.RawMessage `json:"tools"`
	}
	if json.Unmarshal(body, &req) != nil {
		return rs
	}
	rs.model = req.Model
	for i, raw := range req.Tools {
		def, ok := toolDef(a, raw)
		if !ok {
			continue
		}
		t, err := p.guard.CompileTool(def)
		if err != nil {
			// The call goes on as written; the reason tells a schema that
			// refers outside itself (never loaded) from a broken one.
			log.Debug("declared tool not repaired: its schema does not compile", zap.Int("tool_index", i), zap.String("tool", def.Name),
				zap.String("reason", string(failure.Classify(err).Reason)), zap.Error(err))
			continue
		}
		rs.tools = append(rs.tools, t)
		if len(p.cfg.Tools) == 0 || slices.Contains(p.cfg.Tools, t.Name()) {
			rs.repairs = true
		}
	}
	return rs
}

// toolDef reads one declared tool: a function tool of OpenAI's
// ({"type":"function","function":{name, parameters}}) or a client tool of
// Anthropic's ({name, input_schema}). Other tools (server tools, custom
// free-form tools) have no schema to repair against.
func toolDef(a api, raw json.RawMessage) (repair.ToolDef, bool) {
	if a == apiAnthropic {
		var t struct {
			Name        string         `json:"name"`
			Description string         `json:"description"`
			InputSchema map[string]any `json:"input_schema"`
		}
		if json.Unmarshal(raw, &t) != nil || t.Name == "" || t.InputSchema == nil {
			return repair.ToolDef{}, false
		}
		return repair.ToolDef{Name: t.Name, Description: t.Description, Parameters: t.InputSchema}, true
	}
	var t struct {
		Type     string `json:"type"`
		Function *struct {
			Name        string         `json:"name"`
			Description string         `json:"description"`
			Parameters  map[string]any `json:"parameters"`
		} `json:"function"`
	}
	if json.Unmarshal(raw, &t) != nil || t.Function == nil || t.Function.Name == "" || (t.Type != "" && t.Type != "function") {
		return repair.ToolDef{}, false
	}
	return repair.ToolDef{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters}, true
}

// rewrite makes the upstream request: the same method, path (under the
// upstream's prefix), query, headers and body, to the configured upstream.
func (p *Proxy) rewrite(pr *httputil.ProxyRequest) {
	if p.addV1 && pr.Out.URL.Path != "/v1" && !strings.HasPrefix(pr.Out.URL.Path, "/v1/") {
		// A client whose base URL is the proxy's root, behind an upstream
		// given as .../v1: the /v1 it was given goes back where it was.
		pr.Out.URL.Path, pr.Out.URL.RawPath = "/v1"+pr.Out.URL.Path, ""
	}
	pr.SetURL(p.upstream)
	// Rewrite drops the X-Forwarded-* headers; the client's own go on
	// unchanged, and the proxy adds none.
	for _, h := range []string{"X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto"} {
		if v, ok := pr.In.Header[h]; ok {
			pr.Out.Header[h] = v
		}
	}
	if rs := requestOf(pr.In.Context()); rs != nil && rs.repairs {
		// The answer is read to repair it: ask for it unencoded.
		pr.Out.Header.Del("Accept-Encoding")
	}
}

// modifyResponse puts the repair between the upstream's answer and the
// client, for a generation request that declared tools and got a 2xx
// answer in JSON or server-sent events. Anything else passes as it is.
func (p *Proxy) modifyResponse(resp *http.Response) error {
	rs := requestOf(resp.Request.Context())
	if rs == nil || !rs.repairs || resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil
	}
	if ce := resp.Header.Get("Content-Encoding"); ce != "" && !strings.EqualFold(ce, "identity") {
		rs.log.Debug("answer passed through unrepaired: it is encoded", zap.String("content_encoding", ce))
		return nil
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case mt == "text/event-stream":
		resp.Body = p.newSSEReader(rs, p.newRecordingBody(rs, resp.StatusCode, resp.Body), true)
		resp.ContentLength = -1
		resp.Header.Del("Content-Length")
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		return p.fixJSONResponse(rs, resp)
	}
	return nil
}

// streamProcessor follows a streamed answer: the rescue (when on and
// asked for), then the fixer f of the request's API.
func (p *Proxy) streamProcessor(rs *request, f *fixer, rescue bool) eventProcessor {
	if rescue && p.observingRescue() && len(rs.tools) > 0 {
		var next eventProcessor = openAIFixer{f}
		if rs.api == apiAnthropic {
			next = anthropicFixer{f}
		}
		return p.newRescueTap(rs, next)
	}
	if rs.api == apiAnthropic {
		if rescue && p.rescuing() {
			return &anthropicRescue{next: anthropicFixer{f}, f: f, p: p, rs: rs}
		}
		f.runs = true
		return anthropicFixer{f}
	}
	if rescue {
		if r := p.newRescuer(rs, 0); r != nil {
			return &openAIRescue{next: openAIFixer{f}, f: f, r: r}
		}
	}
	f.runs = true
	return openAIFixer{f}
}

// fixJSONResponse repairs a non-streamed answer, or passes one larger than
// MaxResponseBytes through unrepaired.
func (p *Proxy) fixJSONResponse(rs *request, resp *http.Response) error {
	limit := p.cfg.MaxResponseBytes
	h := &hold{b: p.budget}
	buf, rest, err := readHeld(resp.Body, resp.ContentLength, limit, h)
	if rest != nil {
		if errors.Is(err, errOverBudget) {
			rs.log.Warn("answer passed through unrepaired: the bodies and calls held are at the budget", zap.Int64("max_held_bytes", p.cfg.MaxHeldBytes))
		} else {
			rs.log.Warn("answer passed through unrepaired: larger than the response limit", zap.Int64("max_response_bytes", limit))
		}
		// What was read goes out as it came, then the rest; what it
		// holds stays counted until it has gone.
		resp.Body = &heldBody{Reader: rest, Closer: resp.Body, h: h}
		return nil
	}
	if err != nil {
		h.free()
		return fmt.Errorf("read the upstream's answer: %w", err)
	}
	_ = resp.Body.Close()
	p.recordExchange(rs, resp.StatusCode, buf, false)
	res := p.fixBody(rs, buf)
	body := res.body
	if res.refused == "" {
		body = p.rescueBody(rs, body)
	}
	if res.refused != "" {
		resp.StatusCode, resp.Status = http.StatusBadGateway, "502 Bad Gateway"
		resp.Header.Set("Content-Type", "application/json")
		body = errorBody(rs.api, "toolguard_error", res.refused)
	}
	if res.truncated > 0 {
		resp.Header.Set("X-Toolguard-Truncated-Calls", strconv.Itoa(res.truncated))
	}
	resp.Body = &heldBody{Reader: bytes.NewReader(body), Closer: io.NopCloser(nil), h: h}
	resp.ContentLength = int64(len(body))
	resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
	return nil
}

// upstreamError answers a request the upstream did not answer: 504 when
// its response headers did not come in time, 502 otherwise; nothing when
// the client went away. The error is logged without the request's URL,
// whose query may hold a key.
func (p *Proxy) upstreamError(w http.ResponseWriter, r *http.Request, err error) {
	if r.Context().Err() != nil {
		p.log.Debug("client went away before the answer", zap.String("path", r.URL.Path))
		if sw, ok := w.(*statusWriter); ok {
			sw.status = statusClientClosed
		}
		return
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	status, errType := http.StatusBadGateway, "upstream_error"
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.DeadlineExceeded) {
		status, errType = http.StatusGatewayTimeout, "upstream_timeout"
	}
	p.log.Warn("upstream request failed", zap.String("path", r.URL.Path), zap.Int("status", status), zap.Error(err))
	p.refuse(w, route(r), status, errType, fmt.Sprintf("toolguard proxy: the upstream did not answer (%s)", http.StatusText(status)))
}

// refuse answers with an error in the API's shape (OpenAI's for other
// paths).
func (p *Proxy) refuse(w http.ResponseWriter, a api, status int, errType, message string) {
	if a == 0 {
		a = apiOpenAI
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(errorBody(a, errType, message))
}

// statusClientClosed is the status the access log shows for a client
// that went away (nginx's 499).
const statusClientClosed = 499

// accessLog writes one line per request: never a header or the query
// string, which may hold keys.
func (p *Proxy) accessLog(r *http.Request, sw *statusWriter, rs *request, d time.Duration) {
	status := sw.status
	if status == 0 {
		status = http.StatusOK
	}
	if r.Context().Err() != nil && status < 400 && !sw.wrote {
		status = statusClientClosed
	}
	fields := []zap.Field{
		zap.String("method", r.Method), zap.String("path", r.URL.Path), zap.Int("status", status),
		zap.Duration("duration", d),
	}
	if rs != nil {
		fields = append(fields, zap.String("api", rs.api.String()), zap.Int("tools_declared", len(rs.tools)))
		if rs.session != "" {
			fields = append(fields, zap.String("session_id", rs.session))
		}
		for _, a := range actions {
			if n := rs.actions[a]; n > 0 {
				fields = append(fields, zap.Int("calls_"+string(a), n))
			}
		}
	}
	p.log.Info("proxied request", fields...)
}

// statusWriter records the status written, for the access log.
type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (w *statusWriter) WriteHeader(code int) {
	if code >= 200 && w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.wrote = true
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Flush() { _ = http.NewResponseController(w.ResponseWriter).Flush() }

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// bufferPool gives the reverse proxy its copy buffers.
type bufferPool struct{}

// copyBufferSize bounds each write to the client. A read returns what has
// come, so a large buffer delays nothing; it matters when a held call is
// released at once (see drainBudget).
const copyBufferSize = 128 << 10

var copyBuffers = make(chan []byte, 64)

func (bufferPool) Get() []byte {
	select {
	case b := <-copyBuffers:
		return b
	default:
		return make([]byte, copyBufferSize)
	}
}

func (bufferPool) Put(b []byte) {
	select {
	case copyBuffers <- b:
	default:
	}
}
