package main

import (
	"errors"
	"flag"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/service"
)

// env returns a lookup over m, standing in for os.LookupEnv.
func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := m[k]
		return v, ok
	}
}

// parseWith parses a command's configuration from args and the variables
// vars, as the command does, without printing.
func parseWith[C any](settings []setting[C], def C, args []string, vars map[string]string) (C, error) {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return parseSettings(fs, settings, def, args, env(vars))
}

func parse(args []string, vars map[string]string) (service.Config, error) {
	return parseWith(serveSettings, service.DefaultConfig(), args, vars)
}

// parseCase is a case of a command's configuration parsing.
type parseCase[C any] struct {
	name    string
	args    []string
	env     map[string]string
	want    func(c *C) // edits the default into the expected config
	wantErr []string   // substrings of the error; nil means success
}

// runParseCases parses each case with settings from def and checks the
// configuration or the error; -h must give flag.ErrHelp.
func runParseCases[C any](t *testing.T, settings []setting[C], def C, tests []parseCase[C]) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseWith(settings, def, tt.args, tt.env)
			if tt.wantErr != nil {
				if err == nil {
					t.Fatalf("got %+v, want an error", got)
				}
				for _, s := range tt.wantErr {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not mention %q", err, s)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			want := def
			tt.want(&want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
		})
	}
	if _, err := parseWith(settings, def, []string{"-h"}, nil); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: err = %v, want flag.ErrHelp", err)
	}
}

func TestParseServeConfig(t *testing.T) {
	def := service.DefaultConfig()
	tests := []parseCase[service.Config]{
		{name: "defaults", want: func(*service.Config) {}},
		{
			name: "env over default",
			env:  map[string]string{"TOOLGUARD_LISTEN": "127.0.0.1:9000", "TOOLGUARD_MISTAKE_LIMIT": "5"},
			want: func(c *service.Config) { c.Listen = "127.0.0.1:9000"; c.MistakeLimit = 5 },
		},
		{
			name: "flag over env",
			args: []string{"--listen", "127.0.0.1:9001", "-mistake-limit=7"},
			env:  map[string]string{"TOOLGUARD_LISTEN": "127.0.0.1:9000", "TOOLGUARD_MISTAKE_LIMIT": "5"},
			want: func(c *service.Config) { c.Listen = "127.0.0.1:9001"; c.MistakeLimit = 7 },
		},
		{
			name: "flag and env on different fields",
			args: []string{"--session-ttl", "90s"},
			env:  map[string]string{"TOOLGUARD_DRAIN_DELAY": "2s"},
			want: func(c *service.Config) { c.SessionTTL = 90 * time.Second; c.DrainDelay = 2 * time.Second },
		},
		{
			name: "empty env value counts as unset",
			env:  map[string]string{"TOOLGUARD_LISTEN": "", "TOOLGUARD_MAX_SESSIONS": ""},
			want: func(*service.Config) {},
		},
		{
			name: "every field from env",
			env: map[string]string{
				"TOOLGUARD_LISTEN":                "127.0.0.1:1",
				"TOOLGUARD_AUTH_TOKENS_FILE":      "/tokens.yaml",
				"TOOLGUARD_ALLOW_UNAUTHENTICATED": "true",
				"TOOLGUARD_TLS_CERT":              "/tls/cert.pem",
				"TOOLGUARD_TLS_KEY":               "/tls/key.pem",
				"TOOLGUARD_TLS_CLIENT_CA":         "/tls/ca.pem",
				"TOOLGUARD_MAX_JSON_DEPTH":        "32",
				"TOOLGUARD_MAX_STREAMS":           "8",
				"TOOLGUARD_MAX_CONN_STREAMS":      "16",
				"TOOLGUARD_STREAM_WORKERS":        "3",
				"TOOLGUARD_RATE_LIMIT":            "2.5",
				"TOOLGUARD_RATE_BURST":            "5",
				"TOOLGUARD_WORKSPACE":             "/ws",
				"TOOLGUARD_TOOLS_FILE":            "/tools.yaml",
				"TOOLGUARD_LOG_FORMAT":            "console",
				"TOOLGUARD_LOG_LEVEL":             "debug",
				"TOOLGUARD_METRICS_LISTEN":        "127.0.0.1:9464",
				"TOOLGUARD_OTLP_ENDPOINT":         "collector:4317",
				"TOOLGUARD_OTLP_INSECURE":         "true",
				"TOOLGUARD_MISTAKE_LIMIT":         "9",
				"TOOLGUARD_SESSION_TTL":           "5m",
				"TOOLGUARD_MAX_SESSIONS":          "10",
				"TOOLGUARD_SESSION_STORE":         "redis",
				"TOOLGUARD_REDIS_URL":             "redis://:pw@redis:6379/2",
				"TOOLGUARD_REDIS_KEY_PREFIX":      "tg:",
				"TOOLGUARD_REDIS_MODE":            "sentinel",
				"TOOLGUARD_REDIS_MASTER_NAME":     "mymaster",
				"TOOLGUARD_REDIS_TIMEOUT":         "2s",
				"TOOLGUARD_UNDO_SESSION_BYTES":    "1024", "TOOLGUARD_UNDO_TOTAL_BYTES": "4096", "TOOLGUARD_UNDO_TTL": "1m",
				"TOOLGUARD_IDEMPOTENCY_REPLY_BYTES": "512", "TOOLGUARD_IDEMPOTENCY_KEYS": "3", "TOOLGUARD_IDEMPOTENCY_TTL": "2m",
				"TOOLGUARD_MODE":                     "observe",
				"TOOLGUARD_MAX_RECV_MSG_BYTES":       "1024",
				"TOOLGUARD_MAX_SEND_MSG_BYTES":       "2048",
				"TOOLGUARD_SHUTDOWN_TIMEOUT":         "3s",
				"TOOLGUARD_DRAIN_DELAY":              "250ms",
				"TOOLGUARD_WORKSPACES":               "docs=/docs, web = /web",
				"TOOLGUARD_AGENT_ROOT":               "/home/user/project",
				"TOOLGUARD_MAX_FILE_BYTES":           "4096",
				"TOOLGUARD_MAX_MEDIA_BYTES":          "2048",
				"TOOLGUARD_DENY":                     ".env,secrets/",
				"TOOLGUARD_FUZZY_THRESHOLD":          "0.8",
				"TOOLGUARD_SEARCH_MAX_RESULTS":       "7",
				"TOOLGUARD_SEARCH_MAX_FILES":         "8",
				"TOOLGUARD_SEARCH_MAX_BYTES":         "9",
				"TOOLGUARD_SEARCH_TIMEOUT":           "4s",
				"TOOLGUARD_SYNTAX_CHECK":             "refuse",
				"TOOLGUARD_SYNTAX_CHECK_MAX_BYTES":   "100",
				"TOOLGUARD_SYNTAX_CHECK_TIMEOUT":     "5ms",
				"TOOLGUARD_SYNTAX_CHECK_MAX_MEMORY":  "4096",
				"TOOLGUARD_LOCK_DIR":                 "/data/locks",
				"TOOLGUARD_LOCK_TIMEOUT":             "3s",
				"TOOLGUARD_MAX_CONNECTION_AGE":       "10m",
				"TOOLGUARD_MAX_CONNECTION_AGE_GRACE": "1m",
				"TOOLGUARD_MAX_CONNECTION_IDLE":      "2m",
				"TOOLGUARD_HANDSHAKE_TIMEOUT":        "3s",
				"TOOLGUARD_MAX_CONNECTIONS":          "12",
				"TOOLGUARD_MAX_RECEIVING_CALLS":      "6",
				"TOOLGUARD_MAX_CALL_BYTES":           "8192",
				"TOOLGUARD_MAX_PARAM_BYTES":          "4096",

				// The limits on streams.
				"TOOLGUARD_MAX_STREAMS_PER_PRINCIPAL": "2",
				"TOOLGUARD_STREAM_IDLE_TIMEOUT":       "20s",
				"TOOLGUARD_MAX_STREAM_BUFFER_BYTES":   "65536",
				"TOOLGUARD_MAX_UNARY_MEMORY_BYTES":    "8192",
			},
			want: func(c *service.Config) { *c = allSet },
		},
		{
			name: "every field from flags",
			args: []string{
				"--listen", "127.0.0.1:1", "--workspace", "/ws", "--tools-file", "/tools.yaml",
				"--auth-tokens-file", "/tokens.yaml", "--allow-unauthenticated",
				"--tls-cert", "/tls/cert.pem", "--tls-key", "/tls/key.pem", "--tls-client-ca", "/tls/ca.pem",
				"--max-json-depth", "32", "--max-streams", "8", "--max-conn-streams", "16", "--stream-workers", "3",
				"--rate-limit", "2.5", "--rate-burst", "5",
				"--log-format", "console", "--log-level", "debug", "--mistake-limit", "9",
				"--metrics-listen", "127.0.0.1:9464", "--otlp-endpoint", "collector:4317", "--otlp-insecure",
				"--session-ttl", "5m", "--max-sessions", "10", "--max-recv-msg-bytes", "1024",
				"--session-store", "redis", "--redis-url", "redis://:pw@redis:6379/2", "--redis-key-prefix", "tg:", "--redis-mode", "sentinel", "--redis-master-name", "mymaster", "--redis-timeout", "2s", "--mode", "observe",
				"--undo-session-bytes", "1024", "--undo-total-bytes", "4096", "--undo-ttl", "1m",
				"--idempotency-reply-bytes", "512", "--idempotency-keys", "3", "--idempotency-ttl", "2m",
				"--max-send-msg-bytes", "2048", "--shutdown-timeout", "3s", "--drain-delay", "250ms",
				"--workspaces", "docs=/docs, web = /web", "--agent-root", "/home/user/project", "--max-file-bytes", "4096", "--max-media-bytes", "2048",
				"--deny", ".env,secrets/", "--fuzzy-threshold", "0.8",
				"--search-max-results", "7", "--search-max-files", "8", "--search-max-bytes", "9", "--search-timeout", "4s",
				"--syntax-check", "refuse", "--syntax-check-max-bytes", "100", "--syntax-check-timeout", "5ms", "--syntax-check-max-memory", "4096",
				"--lock-dir", "/data/locks", "--lock-timeout", "3s",
				"--max-connection-age", "10m", "--max-connection-age-grace", "1m", "--max-connection-idle", "2m", "--handshake-timeout", "3s", "--max-connections", "12", "--max-receiving-calls", "6",
				"--max-call-bytes", "8192", "--max-param-bytes", "4096",
				"--max-streams-per-principal", "2", "--stream-idle-timeout", "20s", "--max-stream-buffer-bytes", "65536", "--max-unary-memory-bytes", "8192",
			},
			want: func(c *service.Config) { *c = allSet },
		},
		{
			name:    "bad uint env names the variable",
			env:     map[string]string{"TOOLGUARD_MISTAKE_LIMIT": "three"},
			wantErr: []string{`TOOLGUARD_MISTAKE_LIMIT="three"`, "whole number"},
		},
		{
			name:    "negative uint env",
			env:     map[string]string{"TOOLGUARD_MISTAKE_LIMIT": "-1"},
			wantErr: []string{"TOOLGUARD_MISTAKE_LIMIT"},
		},
		{
			name:    "uint env out of range",
			env:     map[string]string{"TOOLGUARD_MISTAKE_LIMIT": "4294967296"},
			wantErr: []string{"TOOLGUARD_MISTAKE_LIMIT"},
		},
		{
			name:    "bad duration env names the variable",
			env:     map[string]string{"TOOLGUARD_SESSION_TTL": "1 hour"},
			wantErr: []string{`TOOLGUARD_SESSION_TTL="1 hour"`, "duration"},
		},
		{
			name:    "bad int env names the variable",
			env:     map[string]string{"TOOLGUARD_MAX_RECV_MSG_BYTES": "16MB"},
			wantErr: []string{`TOOLGUARD_MAX_RECV_MSG_BYTES="16MB"`},
		},
		{
			name:    "every bad env value is reported",
			env:     map[string]string{"TOOLGUARD_MAX_SESSIONS": "x", "TOOLGUARD_DRAIN_DELAY": "y"},
			wantErr: []string{"TOOLGUARD_MAX_SESSIONS", "TOOLGUARD_DRAIN_DELAY"},
		},
		{
			// A broken environment is a broken deployment even when a flag
			// happens to override the variable.
			name:    "bad env is an error even when a flag overrides it",
			args:    []string{"--mistake-limit", "4"},
			env:     map[string]string{"TOOLGUARD_MISTAKE_LIMIT": "four"},
			wantErr: []string{"TOOLGUARD_MISTAKE_LIMIT"},
		},
		{
			name: "a bool flag takes an explicit value too",
			args: []string{"--otlp-insecure=false"},
			env:  map[string]string{"TOOLGUARD_OTLP_INSECURE": "1"},
			want: func(*service.Config) {},
		},
		{
			name:    "bad bool env names the variable",
			env:     map[string]string{"TOOLGUARD_OTLP_INSECURE": "yes please"},
			wantErr: []string{`TOOLGUARD_OTLP_INSECURE="yes please"`, "true or false"},
		},
		{
			name:    "bad flag value",
			args:    []string{"--shutdown-timeout", "soon"},
			wantErr: []string{"-shutdown-timeout", "duration"},
		},
		{
			name:    "unknown flag",
			args:    []string{"--port", "7700"},
			wantErr: []string{"-port"},
		},
		{
			name:    "stray argument",
			args:    []string{"--listen", "127.0.0.1:1", "extra"},
			wantErr: []string{`unexpected argument "extra"`},
		},
	}
	runParseCases(t, serveSettings, def, tests)
}

// allSet is the configuration the "every field" cases produce: every field
// differs from its default.
var allSet = service.Config{
	Config: guard.Config{
		Workspace:        "/ws",
		ToolsFile:        "/tools.yaml",
		MistakeLimit:     9,
		SessionTTL:       5 * time.Minute,
		MaxSessions:      10,
		SessionStore:     "redis",
		RedisURL:         "redis://:pw@redis:6379/2",
		RedisKeyPrefix:   "tg:",
		RedisMode:        "sentinel",
		RedisMasterName:  "mymaster",
		RedisTimeout:     2 * time.Second,
		UndoSessionBytes: 1024, UndoTotalBytes: 4096, UndoTTL: time.Minute,
		IdempotencyReplyBytes: 512, IdempotencyKeys: 3, IdempotencyTTL: 2 * time.Minute,
		Workspaces:       []string{"docs=/docs", "web = /web"},
		AgentRoot:        "/home/user/project",
		MaxFileBytes:     4096,
		MaxMediaBytes:    2048,
		Deny:             []string{".env", "secrets/"},
		FuzzyThreshold:   0.8,
		Mode:             guard.ModeObserve,
		SearchMaxResults: 7, SearchMaxFiles: 8, SearchMaxBytes: 9, SearchTimeout: 4 * time.Second,
		SyntaxCheck: "refuse", SyntaxMaxBytes: 100, SyntaxTimeout: 5 * time.Millisecond, SyntaxMaxMemory: 4096,
		LockDir:     "/data/locks",
		LockTimeout: 3 * time.Second,
	},
	Listen:                "127.0.0.1:1",
	AuthTokensFile:        "/tokens.yaml",
	AllowUnauthenticated:  true,
	TLSCert:               "/tls/cert.pem",
	TLSKey:                "/tls/key.pem",
	TLSClientCA:           "/tls/ca.pem",
	MaxJSONDepth:          32,
	MaxStreams:            8,
	MaxConnStreams:        16,
	StreamWorkers:         3,
	RateLimit:             2.5,
	RateBurst:             5,
	LogFormat:             "console",
	LogLevel:              "debug",
	MetricsListen:         "127.0.0.1:9464",
	OTLPEndpoint:          "collector:4317",
	OTLPInsecure:          true,
	MaxRecvMsgBytes:       1024,
	MaxSendMsgBytes:       2048,
	ShutdownTimeout:       3 * time.Second,
	DrainDelay:            250 * time.Millisecond,
	MaxConnectionAge:      10 * time.Minute,
	MaxConnectionAgeGrace: time.Minute,
	MaxConnectionIdle:     2 * time.Minute,
	HandshakeTimeout:      3 * time.Second,
	MaxConnections:        12,
	MaxReceivingCalls:     6,
	MaxCallBytes:          8192,
	MaxParamBytes:         4096,

	// The limits on streams.
	MaxStreamsPerPrincipal: 2,
	StreamIdleTimeout:      20 * time.Second,
	MaxStreamBufferBytes:   65536,
	MaxUnaryMemoryBytes:    8192,
}

// TestServeRefusesExposedWithoutAuth follows the serve configuration path
// (environment, flags, validation) for the listen address: beyond loopback
// it needs a tokens file or --allow-unauthenticated.
func TestServeRefusesExposedWithoutAuth(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		refused bool
	}{
		{name: "default loopback", refused: false},
		{name: "IPv6 loopback", args: []string{"--listen", "[::1]:7700"}, refused: false},
		{name: "localhost", args: []string{"--listen", "localhost:7700"}, refused: false},
		{name: "every interface", args: []string{"--listen", "0.0.0.0:7700"}, refused: true},
		{name: "every interface, no host", args: []string{"--listen", ":7700"}, refused: true},
		{name: "every IPv6 interface", args: []string{"--listen", "[::]:7700"}, refused: true},
		{name: "a LAN address", env: map[string]string{"TOOLGUARD_LISTEN": "10.1.2.3:7700"}, refused: true},
		{name: "a host name", args: []string{"--listen", "toolguard.internal:7700"}, refused: true},
		{name: "with a tokens file", args: []string{"--listen", "0.0.0.0:7700", "--auth-tokens-file", "/tokens.yaml"}, refused: false},
		{name: "allowed by flag", args: []string{"--listen", "0.0.0.0:7700", "--allow-unauthenticated"}, refused: false},
		{name: "allowed by env", env: map[string]string{"TOOLGUARD_LISTEN": "0.0.0.0:7700", "TOOLGUARD_ALLOW_UNAUTHENTICATED": "true"}, refused: false},
		{name: "env allowance turned off by flag", args: []string{"--allow-unauthenticated=false"},
			env: map[string]string{"TOOLGUARD_LISTEN": "0.0.0.0:7700", "TOOLGUARD_ALLOW_UNAUTHENTICATED": "true"}, refused: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := parse(tt.args, tt.env)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			err = cfg.Validate()
			if !tt.refused {
				if err != nil {
					t.Fatalf("Validate: %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("listening on %s without authentication was accepted", cfg.Listen)
			}
			for _, s := range []string{cfg.Listen, "not a loopback address", "--auth-tokens-file", "TOOLGUARD_AUTH_TOKENS_FILE",
				"--allow-unauthenticated", "TOOLGUARD_ALLOW_UNAUTHENTICATED=true"} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not mention %q", err, s)
				}
			}
		})
	}

	// The command prints the reason as a usage error. (A bad log format too,
	// so that should the check fail, serve still would not start listening.)
	code, _, stderr := runCLI("serve", "--listen", "0.0.0.0:0", "--log-format", "xml")
	if code != 2 || !strings.Contains(stderr, "refusing to listen on 0.0.0.0:0 without authentication") {
		t.Errorf("serve --listen 0.0.0.0:0: exit %d, stderr %q; want 2 refusing to listen without authentication", code, stderr)
	}
}

// TestServeSettingsCoverConfig holds the settings table to its rules: every
// Config field has exactly one setting, and every env name is TOOLGUARD_ plus
// the upper-snake flag name.
func TestServeSettingsCoverConfig(t *testing.T) {
	checkSettingsCoverConfig(t, serveSettings, service.DefaultConfig(), "TOOLGUARD_")
}

// checkSettingsCoverConfig fails unless every field of C has exactly one
// setting, and every setting's variable is prefix and the upper-snake flag
// name.
func checkSettingsCoverConfig[C any](t *testing.T, settings []setting[C], def C, prefix string) {
	t.Helper()
	bound := map[string]string{} // field name -> flag
	for _, s := range settings {
		if want := prefix + strings.ToUpper(strings.ReplaceAll(s.flag, "-", "_")); s.env != want {
			t.Errorf("flag %q has env %q, want %q", s.flag, s.env, want)
		}
		// Find the field the setting binds by setting it through the value
		// and seeing which field changed.
		cfg := def
		v := s.value(&cfg)
		if err := v.Set(sample(v)); err != nil {
			t.Fatalf("flag %q: set sample: %v", s.flag, err)
		}
		if _, isBool := v.(*boolValue); isBool && reflect.DeepEqual(cfg, def) {
			_ = v.Set("false") // the default is true
		}
		changed := changedFields(def, cfg)
		if len(changed) != 1 {
			t.Fatalf("flag %q changes fields %v, want exactly one", s.flag, changed)
		}
		if prev, dup := bound[changed[0]]; dup {
			t.Errorf("field %s is bound by both %q and %q", changed[0], prev, s.flag)
		}
		bound[changed[0]] = s.flag
	}
	typ := reflect.TypeFor[C]()
	for _, name := range fieldNames(typ) {
		if bound[name] == "" {
			t.Errorf("%s.%s has no flag: add it to its settings table", typ, name)
		}
	}
}

// fieldNames lists the fields of a struct type, those of embedded structs
// (the core's settings) in place of the embedded field.
func fieldNames(typ reflect.Type) []string {
	var names []string
	for f := range typ.Fields() {
		switch {
		case !f.IsExported(): // a test's hook, not a setting
		case f.Anonymous && f.Type.Kind() == reflect.Struct:
			names = append(names, fieldNames(f.Type)...)
		default:
			names = append(names, f.Name)
		}
	}
	return names
}

// sample returns a value for v that differs from every default.
func sample(v flag.Value) string {
	switch v.(type) {
	case *durationValue:
		return "17s"
	case *stringValue:
		return "sample"
	case *boolValue:
		return "true"
	default:
		return "17"
	}
}

func changedFields[C any](a, b C) []string {
	return changedIn(reflect.ValueOf(a), reflect.ValueOf(b))
}

func changedIn(va, vb reflect.Value) []string {
	var names []string
	for i := range va.NumField() {
		f := va.Type().Field(i)
		switch {
		case !f.IsExported(): // a test's hook, not a setting
		case f.Anonymous && f.Type.Kind() == reflect.Struct:
			names = append(names, changedIn(va.Field(i), vb.Field(i))...)
		case !reflect.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()):
			names = append(names, f.Name)
		}
	}
	return names
}

// TestServeUsageListsEnv checks that -h documents each flag with its env
// twin and the default.
func TestServeUsageListsEnv(t *testing.T) {
	var out strings.Builder
	if code := runServe([]string{"-h"}, nil, io.Discard, &out); code != 0 {
		t.Fatalf("serve -h exited %d", code)
	}
	for _, s := range serveSettings {
		if !strings.Contains(out.String(), "-"+s.flag) || !strings.Contains(out.String(), s.env) {
			t.Errorf("serve -h does not document -%s with %s:\n%s", s.flag, s.env, out.String())
		}
	}
	if !strings.Contains(out.String(), "(default 127.0.0.1:7700)") {
		t.Errorf("serve -h does not show the listen default:\n%s", out.String())
	}
}
