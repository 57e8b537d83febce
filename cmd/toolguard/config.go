package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/observe"
	"github.com/toolguard/toolguard/service"
)

// setting is one field of a command's configuration as the command line and
// the environment see it.
type setting[C any] struct {
	flag string
	// env is TOOLGUARD_ and the flag name in upper snake case (a test holds
	// every entry to that rule).
	env   string
	usage string
	value func(cfg *C) flag.Value
}

func init() { observe.Version = toolguardVersion }

// lift makes settings of a configuration part of a configuration holding it.
func lift[P, C any](settings []setting[P], part func(*C) *P) []setting[C] {
	out := make([]setting[C], len(settings))
	for i, s := range settings {
		out[i] = setting[C]{s.flag, s.env, s.usage, func(c *C) flag.Value { return s.value(part(c)) }}
	}
	return out
}

// coreSettings declares every guard.Config field once: serve, proxy, mcp
// and the offline commands share them.
var coreSettings = []setting[guard.Config]{
	{"workspace", "TOOLGUARD_WORKSPACE", "default workspace `directory` (must exist unless it is the default, which is created)",
		func(c *guard.Config) flag.Value { return (*stringValue)(&c.Workspace) }},
	{"tools-file", "TOOLGUARD_TOOLS_FILE", "optional YAML or JSON `file` of custom tool definitions",
		func(c *guard.Config) flag.Value { return (*stringValue)(&c.ToolsFile) }},
	{"mistake-limit", "TOOLGUARD_MISTAKE_LIMIT", "`number` of consecutive mistakes at which a verdict reports limit_reached",
		func(c *guard.Config) flag.Value { return (*uint32Value)(&c.MistakeLimit) }},
	{"session-ttl", "TOOLGUARD_SESSION_TTL", "idle `duration` after which a session is forgotten",
		func(c *guard.Config) flag.Value { return (*durationValue)(&c.SessionTTL) }},
	{"max-sessions", "TOOLGUARD_MAX_SESSIONS", "maximum `number` of sessions kept in memory; the least recently seen is evicted first",
		func(c *guard.Config) flag.Value { return (*intValue)(&c.MaxSessions) }},
	{"session-store", "TOOLGUARD_SESSION_STORE", "where session counters live: `memory` (this replica's own) or redis (shared by every replica; needs --redis-url)",
		func(c *guard.Config) flag.Value { return (*stringValue)(&c.SessionStore) }},
	{"redis-url", "TOOLGUARD_REDIS_URL", "`URL` of the Redis servers of the redis session store: redis://[user:password@]host:port[,host:port...]/db, or rediss:// for TLS; several hosts are a cluster's nodes or Sentinels (never logged: it may hold a password)",
		func(c *guard.Config) flag.Value { return (*stringValue)(&c.RedisURL) }},
	{"redis-mode", "TOOLGUARD_REDIS_MODE", "what --redis-url names: `auto` (Sentinel with --redis-master-name, a cluster with several hosts or a cluster node, else one server), single, cluster or sentinel",
		func(c *guard.Config) flag.Value { return (*stringValue)(&c.RedisMode) }},
	{"redis-master-name", "TOOLGUARD_REDIS_MASTER_NAME", "`name` of the master the Sentinels of --redis-url watch (Redis Sentinel)",
		func(c *guard.Config) flag.Value { return (*stringValue)(&c.RedisMasterName) }},
	{"redis-key-prefix", "TOOLGUARD_REDIS_KEY_PREFIX", "`prefix` of the sessions' Redis keys; replicas that share sessions share it",
		func(c *guard.Config) flag.Value { return (*stringValue)(&c.RedisKeyPrefix) }},
	{"redis-timeout", "TOOLGUARD_REDIS_TIMEOUT", "`duration` each Redis dial, read or write may take; a call whose count times out is answered with mistakes.not_counted",
		func(c *guard.Config) flag.Value { return (*durationValue)(&c.RedisTimeout) }},
	{"mode", "TOOLGUARD_MODE", "`mode`: enforce, or observe: a stream with execute_on_complete executes nothing (its verdicts are computed and sent all the same)",
		func(c *guard.Config) flag.Value { return (*stringValue)(&c.Mode) }},
	{"workspaces", "TOOLGUARD_WORKSPACES", "more named workspaces, as comma-separated `name=dir` pairs (the --workspace one is \"default\")",
		func(c *guard.Config) flag.Value { return (*listValue)(&c.Workspaces) }},
	{"agent-root", "TOOLGUARD_AGENT_ROOT", "the workspace root as the agent sees it (`path`, e.g. /home/user/project): absolute paths under it map onto the workspace",
		func(c *guard.Config) flag.Value { return (*stringValue)(&c.AgentRoot) }},
	{"max-file-bytes", "TOOLGUARD_MAX_FILE_BYTES", "largest file toolguard reads or writes, in `bytes`",
		func(c *guard.Config) flag.Value { return (*int64Value)(&c.MaxFileBytes) }},
	{"max-media-bytes", "TOOLGUARD_MAX_MEDIA_BYTES", "largest file read_media_file (ReadMediaFile) returns, in `bytes`",
		func(c *guard.Config) flag.Value { return (*int64Value)(&c.MaxMediaBytes) }},
	{"deny", "TOOLGUARD_DENY", "comma-separated gitignore-style `patterns` no call may touch, beside .git/ and each workspace's .toolguardignore",
		func(c *guard.Config) flag.Value { return (*listValue)(&c.Deny) }},
	{"undo-session-bytes", "TOOLGUARD_UNDO_SESSION_BYTES", "`bytes` of before-images undo_edit keeps per session, oldest dropped first (0: no undo history)",
		func(c *guard.Config) flag.Value { return (*int64Value)(&c.UndoSessionBytes) }},
	{"undo-total-bytes", "TOOLGUARD_UNDO_TOTAL_BYTES", "`bytes` of before-images undo_edit keeps for every session together, in memory (Redis: bounded by its TTL and maxmemory)",
		func(c *guard.Config) flag.Value { return (*int64Value)(&c.UndoTotalBytes) }},
	{"undo-ttl", "TOOLGUARD_UNDO_TTL", "how long (`duration`) undo_edit can undo a change",
		func(c *guard.Config) flag.Value { return (*durationValue)(&c.UndoTTL) }},
	{"idempotency-reply-bytes", "TOOLGUARD_IDEMPOTENCY_REPLY_BYTES", "largest answer, in `bytes`, kept for an idempotency key; a larger one leaves its key refusing retries (IDEMPOTENCY_REPLY_NOT_KEPT)",
		func(c *guard.Config) flag.Value { return (*intValue)(&c.IdempotencyReplyBytes) }},
	{"idempotency-keys", "TOOLGUARD_IDEMPOTENCY_KEYS", "idempotency keys (`count`) one session keeps, oldest dropped first",
		func(c *guard.Config) flag.Value { return (*intValue)(&c.IdempotencyKeys) }},
	{"idempotency-ttl", "TOOLGUARD_IDEMPOTENCY_TTL", "how long (`duration`) an idempotency key's answer is kept",
		func(c *guard.Config) flag.Value { return (*durationValue)(&c.IdempotencyTTL) }},
	{"lock-dir", "TOOLGUARD_LOCK_DIR", "`directory` of the lock files that serialise changes to a file across every server sharing the workspaces: outside them, on the same volume, on a file system with flock(2) (empty: locks within this process only; see docs/replicas.md)",
		func(c *guard.Config) flag.Value { return (*stringValue)(&c.LockDir) }},
	{"lock-timeout", "TOOLGUARD_LOCK_TIMEOUT", "longest `duration` a call waits for a file another call is changing before it fails with ABORTED (FILE_LOCKED)",
		func(c *guard.Config) flag.Value { return (*durationValue)(&c.LockTimeout) }},
	{"fuzzy-threshold", "TOOLGUARD_FUZZY_THRESHOLD", "lowest similarity (0..1) at which a fuzzy edit match is accepted",
		func(c *guard.Config) flag.Value { return (*float64Value)(&c.FuzzyThreshold) }},
	{"search-max-results", "TOOLGUARD_SEARCH_MAX_RESULTS", "most matching lines (or files) one search_files call returns, whatever it asks (`number`)",
		func(c *guard.Config) flag.Value { return (*intValue)(&c.SearchMaxResults) }},
	{"search-max-files", "TOOLGUARD_SEARCH_MAX_FILES", "most files one search_files call reads (`number`); past it the answer says it stopped early",
		func(c *guard.Config) flag.Value { return (*intValue)(&c.SearchMaxFiles) }},
	{"search-max-bytes", "TOOLGUARD_SEARCH_MAX_BYTES", "most `bytes` of files one search_files call reads, added up; past it the answer says it stopped early",
		func(c *guard.Config) flag.Value { return (*int64Value)(&c.SearchMaxBytes) }},
	{"search-timeout", "TOOLGUARD_SEARCH_TIMEOUT", "longest `duration` one search_files call runs; what it found by then is answered, saying it stopped early",
		func(c *guard.Config) flag.Value { return (*durationValue)(&c.SearchTimeout) }},
	{"syntax-check", "TOOLGUARD_SYNTAX_CHECK", "`mode` of the syntax check after each write and edit: report (written, the model told), refuse (nothing written, SYNTAX_ERROR) or off; for every workspace",
		func(c *guard.Config) flag.Value { return (*stringValue)(&c.SyntaxCheck) }},
	{"syntax-check-max-bytes", "TOOLGUARD_SYNTAX_CHECK_MAX_BYTES", "largest file (`bytes`) the syntax check parses; a larger one is not checked",
		func(c *guard.Config) flag.Value { return (*int64Value)(&c.SyntaxMaxBytes) }},
	{"syntax-check-timeout", "TOOLGUARD_SYNTAX_CHECK_TIMEOUT", "longest `duration` one syntax check parses a file; a slower one is not checked",
		func(c *guard.Config) flag.Value { return (*durationValue)(&c.SyntaxTimeout) }},
	{"syntax-check-max-memory", "TOOLGUARD_SYNTAX_CHECK_MAX_MEMORY", "most memory (`bytes`) the syntax checks running at once may hold together, each reserving its file's size times its language's factor (docs/limits.md); a check past it is not checked, the change made all the same",
		func(c *guard.Config) flag.Value { return (*int64Value)(&c.SyntaxMaxMemory) }},
}

// serverSettings declares the fields service.Config adds to the core's.
var serverSettings = []setting[service.Config]{
	{"listen", "TOOLGUARD_LISTEN", "TCP `address` to listen on",
		func(c *service.Config) flag.Value { return (*stringValue)(&c.Listen) }},
	{"auth-tokens-file", "TOOLGUARD_AUTH_TOKENS_FILE", "YAML or JSON `file` of bearer tokens (as SHA-256, see hash-token), each with its principal and workspaces (empty: no authentication)",
		func(c *service.Config) flag.Value { return (*stringValue)(&c.AuthTokensFile) }},
	{"allow-unauthenticated", "TOOLGUARD_ALLOW_UNAUTHENTICATED", "allow listening on a non-loopback address without --auth-tokens-file",
		func(c *service.Config) flag.Value { return (*boolValue)(&c.AllowUnauthenticated) }},
	{"tls-cert", "TOOLGUARD_TLS_CERT", "PEM `file` of the server's TLS certificate (with --tls-key; empty: plaintext)",
		func(c *service.Config) flag.Value { return (*stringValue)(&c.TLSCert) }},
	{"tls-key", "TOOLGUARD_TLS_KEY", "PEM `file` of the TLS certificate's private key",
		func(c *service.Config) flag.Value { return (*stringValue)(&c.TLSKey) }},
	{"tls-client-ca", "TOOLGUARD_TLS_CLIENT_CA", "PEM `file` of the CAs client certificates must chain to: requires a client certificate of every caller (mutual TLS)",
		func(c *service.Config) flag.Value { return (*stringValue)(&c.TLSClientCA) }},
	{"max-json-depth", "TOOLGUARD_MAX_JSON_DEPTH", "deepest nesting of JSON objects and arrays accepted in arguments_text, tool schemas and streamed calls' arguments (`levels`)",
		func(c *service.Config) flag.Value { return (*intValue)(&c.MaxJSONDepth) }},
	{"max-streams", "TOOLGUARD_MAX_STREAMS", "most StreamToolCalls streams open at once, server-wide (`number`)",
		func(c *service.Config) flag.Value { return (*intValue)(&c.MaxStreams) }},
	{"max-streams-per-principal", "TOOLGUARD_MAX_STREAMS_PER_PRINCIPAL", "most streams one authenticated principal may hold at once (`number`; 0: a quarter of --max-streams when the tokens file names two principals or more, otherwise no bound)",
		func(c *service.Config) flag.Value { return (*intValue)(&c.MaxStreamsPerPrincipal) }},
	{"stream-idle-timeout", "TOOLGUARD_STREAM_IDLE_TIMEOUT", "`duration` a stream may wait on its client, for a frame or to take an event, before it is ended with DEADLINE_EXCEEDED (0: never)",
		func(c *service.Config) flag.Value { return (*durationValue)(&c.StreamIdleTimeout) }},
	{"max-connections", "TOOLGUARD_MAX_CONNECTIONS", "most client connections open at once (`number`); more are closed at once, so clients retry after their backoff",
		func(c *service.Config) flag.Value { return (*intValue)(&c.MaxConnections) }},
	{"max-receiving-calls", "TOOLGUARD_MAX_RECEIVING_CALLS", "most calls whose request is still being received, server-wide (`number`; 0: no bound); past it a call is refused at once with SERVER_RECEIVING_BUSY, before its request is read. Small requests count too until their handler starts: see docs/limits.md before setting it",
		func(c *service.Config) flag.Value { return (*intValue)(&c.MaxReceivingCalls) }},
	{"max-conn-streams", "TOOLGUARD_MAX_CONN_STREAMS", "most concurrent calls on one client connection (`number`); more wait for a free one",
		func(c *service.Config) flag.Value { return (*uint32Value)(&c.MaxConnStreams) }},
	{"stream-workers", "TOOLGUARD_STREAM_WORKERS", "goroutines kept to run calls on (`number`; 0: a new goroutine for each call); a call that finds them all busy gets a goroutine of its own",
		func(c *service.Config) flag.Value { return (*uint32Value)(&c.StreamWorkers) }},
	{"rate-limit", "TOOLGUARD_RATE_LIMIT", "sustained calls per second each principal may make (`rate`; 0: unlimited)",
		func(c *service.Config) flag.Value { return (*float64Value)(&c.RateLimit) }},
	{"rate-burst", "TOOLGUARD_RATE_BURST", "calls a principal may make at once above --rate-limit (`number`)",
		func(c *service.Config) flag.Value { return (*intValue)(&c.RateBurst) }},
	{"create-workspaces", "TOOLGUARD_CREATE_WORKSPACES", "create the --workspace and --workspaces folders that do not exist",
		func(c *service.Config) flag.Value { return (*boolValue)(&c.CreateWorkspaces) }},
	{"log-format", "TOOLGUARD_LOG_FORMAT", "log `format`: json or console",
		func(c *service.Config) flag.Value { return (*stringValue)(&c.LogFormat) }},
	{"log-level", "TOOLGUARD_LOG_LEVEL", "log `level`: debug, info, warn or error",
		func(c *service.Config) flag.Value { return (*stringValue)(&c.LogLevel) }},
	{"metrics-listen", "TOOLGUARD_METRICS_LISTEN", "TCP `address` of the Prometheus /metrics endpoint, apart from the gRPC port (empty: no metrics)",
		func(c *service.Config) flag.Value { return (*stringValue)(&c.MetricsListen) }},
	{"otlp-endpoint", "TOOLGUARD_OTLP_ENDPOINT", "OTLP/gRPC collector to export traces to, as host:port or URL (empty: no tracing)",
		func(c *service.Config) flag.Value { return (*stringValue)(&c.OTLPEndpoint) }},
	{"otlp-insecure", "TOOLGUARD_OTLP_INSECURE", "export traces to the OTLP endpoint in plaintext rather than TLS",
		func(c *service.Config) flag.Value { return (*boolValue)(&c.OTLPInsecure) }},
	{"max-recv-msg-bytes", "TOOLGUARD_MAX_RECV_MSG_BYTES", "largest gRPC message the server accepts, in `bytes`",
		func(c *service.Config) flag.Value { return (*intValue)(&c.MaxRecvMsgBytes) }},
	{"max-send-msg-bytes", "TOOLGUARD_MAX_SEND_MSG_BYTES", "largest gRPC message the server sends, in `bytes`",
		func(c *service.Config) flag.Value { return (*intValue)(&c.MaxSendMsgBytes) }},
	{"shutdown-timeout", "TOOLGUARD_SHUTDOWN_TIMEOUT", "`duration` in-flight calls may run on at shutdown before they are cancelled",
		func(c *service.Config) flag.Value { return (*durationValue)(&c.ShutdownTimeout) }},
	{"drain-delay", "TOOLGUARD_DRAIN_DELAY", "`duration` to keep serving after reporting NOT_SERVING at shutdown, so load balancers can react",
		func(c *service.Config) flag.Value { return (*durationValue)(&c.DrainDelay) }},
	{"max-connection-age", "TOOLGUARD_MAX_CONNECTION_AGE", "`duration` after which a client connection is asked to reconnect, so clients rebalance across replicas (0: never)",
		func(c *service.Config) flag.Value { return (*durationValue)(&c.MaxConnectionAge) }},
	{"max-connection-age-grace", "TOOLGUARD_MAX_CONNECTION_AGE_GRACE", "`duration` calls may run on after their connection was asked to reconnect (0: no limit)",
		func(c *service.Config) flag.Value { return (*durationValue)(&c.MaxConnectionAgeGrace) }},
	{"max-connection-idle", "TOOLGUARD_MAX_CONNECTION_IDLE", "`duration` after which a client connection without a call is asked to close, freeing its slot of --max-connections; clients reconnect on their next call (0: never)",
		func(c *service.Config) flag.Value { return (*durationValue)(&c.MaxConnectionIdle) }},
	{"handshake-timeout", "TOOLGUARD_HANDSHAKE_TIMEOUT", "`duration` a new connection has to finish its TLS handshake and send gRPC's preface before it is closed",
		func(c *service.Config) flag.Value { return (*durationValue)(&c.HandshakeTimeout) }},
	{"max-call-bytes", "TOOLGUARD_MAX_CALL_BYTES", "largest streamed tool call (arguments or whole block) in `bytes`",
		func(c *service.Config) flag.Value { return (*intValue)(&c.MaxCallBytes) }},
	{"max-param-bytes", "TOOLGUARD_MAX_PARAM_BYTES", "largest parameter value of a streamed tool call in `bytes`",
		func(c *service.Config) flag.Value { return (*intValue)(&c.MaxParamBytes) }},
	{"max-stream-buffer-bytes", "TOOLGUARD_MAX_STREAM_BUFFER_BYTES", "most `bytes` of open calls all streams hold together; a call growing past what is left is dropped with CALL_TOO_LARGE",
		func(c *service.Config) flag.Value { return (*intValue)(&c.MaxStreamBufferBytes) }},
	{"max-unary-memory-bytes", "TOOLGUARD_MAX_UNARY_MEMORY_BYTES", "most `bytes` of memory the large unary requests being handled hold together, reckoned as request size times its RPC's factor; a request past what is left waits up to 5s, then is refused with SERVER_MEMORY_BUSY",
		func(c *service.Config) flag.Value { return (*intValue)(&c.MaxUnaryMemoryBytes) }},
}

// serveSettings are every service.Config field's, the core's among them; a
// test fails when a field has no entry.
var serveSettings = append(serverSettings, lift(coreSettings, func(c *service.Config) *guard.Config { return &c.Config })...)

// bindSettings registers a flag for every setting, bound to cfg's field. The
// defaults usage shows are cfg's values now: bind before applying the
// environment.
func bindSettings[C any](fs *flag.FlagSet, settings []setting[C], cfg *C) {
	for _, s := range settings {
		fs.Var(s.value(cfg), s.flag, fmt.Sprintf("%s (env %s)", s.usage, s.env))
	}
}

// applyEnv sets every field whose variable lookup finds. An empty variable
// counts as unset: templates render optional values that way. Every bad
// value is reported with its variable.
func applyEnv[C any](settings []setting[C], cfg *C, lookup func(string) (string, bool)) error {
	var errs []error
	for _, s := range settings {
		v, ok := lookup(s.env)
		if !ok || v == "" {
			continue
		}
		if err := s.value(cfg).Set(v); err != nil {
			errs = append(errs, fmt.Errorf("environment variable %s=%q: %w", s.env, v, err))
		}
	}
	return errors.Join(errs...)
}

// errStrayArg refuses a positional argument.
var errStrayArg = errors.New("unexpected argument")

// parseSettings builds a configuration with the precedence flag >
// environment > default. It returns flag.ErrHelp for -h; fs prints its own
// parse errors. The configuration is not validated.
func parseSettings[C any](fs *flag.FlagSet, settings []setting[C], def C, args []string, lookup func(string) (string, bool)) (C, error) {
	cfg := def
	bindSettings(fs, settings, &cfg)
	if err := applyEnv(settings, &cfg, lookup); err != nil {
		return cfg, err
	}
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		// A command whose configuration takes positional arguments reads
		// them, flags between them parsed too.
		if p, ok := any(&cfg).(interface{ setArgs([]string) }); ok {
			for fs.NArg() > 0 {
				p.setArgs(fs.Args()[:1])
				if err := fs.Parse(fs.Args()[1:]); err != nil {
					return cfg, err
				}
			}
			return cfg, nil
		}
		return cfg, fmt.Errorf("%w %q", errStrayArg, fs.Arg(0))
	}
	return cfg, nil
}

// runServer runs a long-running command: configuration, validation, logger,
// then serve with a context that ends at the first SIGINT or SIGTERM; a
// second signal kills the process at once. Exit status: 0 after -h or a
// clean stop, 2 for a bad command line or configuration, 1 when serve fails.
func runServer[C interface{ Validate() error }](fs *flag.FlagSet, settings []setting[C], def C, args []string, stderr io.Writer,
	logging func(C) (format, level string), serve func(context.Context, C, *zap.Logger) error) int {
	cfg, err := parseSettings(fs, settings, def, args, os.LookupEnv)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		if !isFlagError(fs, err) {
			fmt.Fprintf(stderr, "toolguard %s: %v\n", fs.Name(), err)
		}
		return 2
	}
	if err := cfg.Validate(); err != nil {
		fmt.Fprintf(stderr, "toolguard %s: invalid configuration: %v\n", fs.Name(), err)
		return 2
	}
	format, level := logging(cfg)
	log, err := observe.NewLogger(format, level)
	if err != nil {
		fmt.Fprintf(stderr, "toolguard %s: %v\n", fs.Name(), err)
		return 2
	}
	defer func() { _ = log.Sync() }()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	onSignal := context.AfterFunc(ctx, func() {
		log.Info("shutting down (signal again to exit immediately)",
			zap.String("cause", context.Cause(ctx).Error()))
		stop()
	})
	// Deferred after stop, so it runs first: returning for another reason
	// must not log a signal.
	defer onSignal()
	if err := serve(ctx, cfg, log); err != nil {
		log.Error("toolguard "+fs.Name()+" failed", zap.Error(err))
		return 1
	}
	return 0
}

// isFlagError reports whether fs.Parse returned (and printed) err.
func isFlagError(fs *flag.FlagSet, err error) bool {
	return fs.Parsed() && !errors.Is(err, errStrayArg)
}

// flag.Value implementations for the Config field types. String accepts a
// nil receiver: the flag package calls it on a zero value.

type stringValue string

func (v *stringValue) Set(s string) error { *v = stringValue(s); return nil }
func (v *stringValue) String() string {
	if v == nil {
		return ""
	}
	return string(*v)
}

type intValue int

func (v *intValue) Set(s string) error {
	n, err := strconv.ParseInt(s, 10, strconv.IntSize)
	if err != nil {
		return errors.New("want a whole number")
	}
	*v = intValue(n)
	return nil
}

func (v *intValue) String() string {
	if v == nil {
		return "0"
	}
	return strconv.Itoa(int(*v))
}

type uint32Value uint32

func (v *uint32Value) Set(s string) error {
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil {
		return fmt.Errorf("want a whole number from 0 to %d", uint32(math.MaxUint32))
	}
	*v = uint32Value(n)
	return nil
}

func (v *uint32Value) String() string {
	if v == nil {
		return "0"
	}
	return strconv.FormatUint(uint64(*v), 10)
}

type durationValue time.Duration

func (v *durationValue) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return errors.New("want a duration such as 500ms, 30s or 1h")
	}
	*v = durationValue(d)
	return nil
}

func (v *durationValue) String() string {
	if v == nil {
		return "0s"
	}
	return time.Duration(*v).String()
}

// listValue is a comma-separated list; an empty string is the empty list.
type listValue []string

func (v *listValue) Set(s string) error {
	*v = nil
	for _, e := range strings.Split(s, ",") {
		if e = strings.TrimSpace(e); e != "" {
			*v = append(*v, e)
		}
	}
	return nil
}

func (v *listValue) String() string {
	if v == nil {
		return ""
	}
	return strings.Join(*v, ",")
}

// boolValue is a boolean flag: --name alone means true.
type boolValue bool

func (v *boolValue) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("want true or false")
	}
	*v = boolValue(b)
	return nil
}

func (v *boolValue) String() string {
	if v == nil {
		return "false"
	}
	return strconv.FormatBool(bool(*v))
}

func (v *boolValue) IsBoolFlag() bool { return true }

type int64Value int64

func (v *int64Value) Set(s string) error {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return errors.New("not an integer")
	}
	*v = int64Value(n)
	return nil
}

func (v *int64Value) String() string {
	if v == nil {
		return "0"
	}
	return strconv.FormatInt(int64(*v), 10)
}

type float64Value float64

func (v *float64Value) Set(s string) error {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) {
		return errors.New("not a number")
	}
	*v = float64Value(f)
	return nil
}

func (v *float64Value) String() string {
	if v == nil {
		return "0"
	}
	return strconv.FormatFloat(float64(*v), 'g', -1, 64)
}

// bindSetting registers a core setting's flag on fs, without its
// environment twin, so the offline commands share serve's parsing and
// wording.
func bindSetting(fs *flag.FlagSet, cfg *guard.Config, name string) {
	s := coreSetting(name)
	fs.Var(s.value(cfg), s.flag, s.usage)
}

// coreSetting is the core's setting of that flag name.
func coreSetting(name string) setting[guard.Config] {
	for _, s := range coreSettings {
		if s.flag == name {
			return s
		}
	}
	panic("no core setting " + name)
}

func serveSetting(name string) setting[service.Config] {
	for _, s := range serveSettings {
		if s.flag == name {
			return s
		}
	}
	panic("no serve setting " + name)
}
