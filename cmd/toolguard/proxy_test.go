package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/toolguard/toolguard/proxy"
)

// proxyAllSet is the configuration the "every field" cases produce: every
// field differs from its default.
var proxyAllSet = proxy.Config{
	Listen:                "127.0.0.1:9000",
	AllowUnauthenticated:  true,
	Upstream:              "http://127.0.0.1:8081",
	UpstreamTimeout:       time.Minute,
	Tools:                 []string{"TodoWrite", "Write"},
	Strict:                false,
	Mode:                  proxy.ModeObserve,
	Fallback:              false,
	Rescue:                false,
	SessionHeader:         "X-Session",
	MistakeLimit:          5,
	SessionTTL:            10 * time.Minute,
	MaxSessions:           50,
	MaxRequestBytes:       1000,
	MaxResponseBytes:      2000,
	MaxCallBytes:          3000,
	MaxHeldBytes:          5000,
	MaxConcurrentRequests: 7,
	MaxConnections:        9,
	Record:                "rec.jsonl",
	RecordMaxBytes:        4096,
	RecordFiles:           2,
	RecordRedactHeaders:   []string{"X-Tenant", "X-Org"},
	MetricsListen:         "127.0.0.1:9465",
	LogFormat:             "console",
	LogLevel:              "debug",
	ShutdownTimeout:       3 * time.Second,
}

func TestParseProxyConfig(t *testing.T) {
	def := proxy.DefaultConfig()
	tests := []parseCase[proxy.Config]{
		{name: "defaults", want: func(*proxy.Config) {}},
		{
			name: "flag over env over default",
			args: []string{"--upstream", "http://flag:1"},
			env:  map[string]string{"TOOLGUARD_PROXY_UPSTREAM": "http://env:1", "TOOLGUARD_PROXY_MISTAKE_LIMIT": "4"},
			want: func(c *proxy.Config) { c.Upstream = "http://flag:1"; c.MistakeLimit = 4 },
		},
		{
			name: "serve's variables are not the proxy's",
			env:  map[string]string{"TOOLGUARD_LISTEN": "0.0.0.0:1", "TOOLGUARD_MISTAKE_LIMIT": "9"},
			want: func(*proxy.Config) {},
		},
		{
			name: "every field from env",
			env: map[string]string{
				"TOOLGUARD_PROXY_LISTEN":                  "127.0.0.1:9000",
				"TOOLGUARD_PROXY_ALLOW_UNAUTHENTICATED":   "true",
				"TOOLGUARD_PROXY_UPSTREAM":                "http://127.0.0.1:8081",
				"TOOLGUARD_PROXY_UPSTREAM_TIMEOUT":        "1m",
				"TOOLGUARD_PROXY_TOOLS":                   "TodoWrite, Write",
				"TOOLGUARD_PROXY_STRICT":                  "false",
				"TOOLGUARD_PROXY_MODE":                    "observe",
				"TOOLGUARD_PROXY_FALLBACK":                "false",
				"TOOLGUARD_PROXY_RESCUE":                  "false",
				"TOOLGUARD_PROXY_SESSION_HEADER":          "X-Session",
				"TOOLGUARD_PROXY_MISTAKE_LIMIT":           "5",
				"TOOLGUARD_PROXY_SESSION_TTL":             "10m",
				"TOOLGUARD_PROXY_MAX_SESSIONS":            "50",
				"TOOLGUARD_PROXY_MAX_REQUEST_BYTES":       "1000",
				"TOOLGUARD_PROXY_MAX_RESPONSE_BYTES":      "2000",
				"TOOLGUARD_PROXY_MAX_CALL_BYTES":          "3000",
				"TOOLGUARD_PROXY_MAX_HELD_BYTES":          "5000",
				"TOOLGUARD_PROXY_MAX_CONCURRENT_REQUESTS": "7",
				"TOOLGUARD_PROXY_MAX_CONNECTIONS":         "9",
				"TOOLGUARD_PROXY_RECORD":                  "rec.jsonl",
				"TOOLGUARD_PROXY_RECORD_MAX_BYTES":        "4096",
				"TOOLGUARD_PROXY_RECORD_FILES":            "2",
				"TOOLGUARD_PROXY_RECORD_REDACT_HEADERS":   "X-Tenant, X-Org",
				"TOOLGUARD_PROXY_METRICS_LISTEN":          "127.0.0.1:9465",
				"TOOLGUARD_PROXY_LOG_FORMAT":              "console",
				"TOOLGUARD_PROXY_LOG_LEVEL":               "debug",
				"TOOLGUARD_PROXY_SHUTDOWN_TIMEOUT":        "3s",
			},
			want: func(c *proxy.Config) { *c = proxyAllSet },
		},
		{
			name: "every field from flags",
			args: []string{
				"--listen", "127.0.0.1:9000", "--allow-unauthenticated", "--upstream", "http://127.0.0.1:8081", "--upstream-timeout", "1m",
				"--tools", "TodoWrite,Write", "--strict=false", "--mode", "observe", "--fallback=false", "--rescue=false", "--session-header", "X-Session",
				"--mistake-limit", "5", "--session-ttl", "10m", "--max-sessions", "50",
				"--max-request-bytes", "1000", "--max-response-bytes", "2000", "--max-call-bytes", "3000", "--max-held-bytes", "5000", "--max-concurrent-requests", "7", "--max-connections", "9",
				"--record", "rec.jsonl", "--record-max-bytes", "4096", "--record-files", "2", "--record-redact-headers", "X-Tenant,X-Org",
				"--metrics-listen", "127.0.0.1:9465", "--log-format", "console", "--log-level", "debug",
				"--shutdown-timeout", "3s",
			},
			want: func(c *proxy.Config) { *c = proxyAllSet },
		},
		{
			name:    "bad env values are named",
			env:     map[string]string{"TOOLGUARD_PROXY_STRICT": "maybe", "TOOLGUARD_PROXY_MAX_REQUEST_BYTES": "1MB"},
			wantErr: []string{`TOOLGUARD_PROXY_STRICT="maybe"`, "TOOLGUARD_PROXY_MAX_REQUEST_BYTES"},
		},
		{name: "bad flag", args: []string{"--upstream-timeout", "soon"}, wantErr: []string{"-upstream-timeout"}},
		{name: "stray argument", args: []string{"now"}, wantErr: []string{`unexpected argument "now"`}},
	}
	runParseCases(t, proxySettings, def, tests)
}

// TestProxySettingsCoverConfig: every proxy.Config field has exactly one
// setting, whose variable is TOOLGUARD_PROXY_ and the upper-snake flag.
func TestProxySettingsCoverConfig(t *testing.T) {
	checkSettingsCoverConfig(t, proxySettings, proxy.DefaultConfig(), "TOOLGUARD_PROXY_")
}

func TestProxyCommand(t *testing.T) {
	code, stdout, _ := runCLI("help", "proxy")
	if code != 0 {
		t.Fatalf("help proxy: exit %d", code)
	}
	for _, s := range proxySettings {
		if !strings.Contains(stdout, "-"+s.flag) || !strings.Contains(stdout, s.env) {
			t.Errorf("help proxy does not document -%s with %s", s.flag, s.env)
		}
	}
	if !strings.Contains(stdout, "(default 127.0.0.1:7701)") {
		t.Errorf("help proxy does not show the listen default:\n%s", stdout)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "upstream URL is required"},
		{[]string{"--upstream", "http://127.0.0.1:8081/?key=x"}, "query"},
		{[]string{"--upstream", "http://127.0.0.1:8081", "--strict=maybe"}, "-strict"},
	} {
		if code, _, stderr := runCLI(append([]string{"proxy"}, tt.args...)...); code != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("proxy %q: exit %d, stderr %q; want 2 mentioning %q", tt.args, code, stderr, tt.want)
		}
	}
}

// TestProxyRefusesExposedWithoutAllow follows the proxy's configuration
// path for the listen address: beyond loopback it needs
// --allow-unauthenticated, serve's flag for the same choice.
func TestProxyRefusesExposedWithoutAllow(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		refused bool
	}{
		{name: "default loopback", refused: false},
		{name: "IPv6 loopback", args: []string{"--listen", "[::1]:7701"}, refused: false},
		{name: "localhost", args: []string{"--listen", "localhost:7701"}, refused: false},
		{name: "every interface", args: []string{"--listen", "0.0.0.0:7701"}, refused: true},
		{name: "every interface, no host", args: []string{"--listen", ":7701"}, refused: true},
		{name: "every IPv6 interface", args: []string{"--listen", "[::]:7701"}, refused: true},
		{name: "a LAN address", env: map[string]string{"TOOLGUARD_PROXY_LISTEN": "10.1.2.3:7701"}, refused: true},
		{name: "a host name", args: []string{"--listen", "proxy.internal:7701"}, refused: true},
		{name: "serve's allowance is not the proxy's", env: map[string]string{"TOOLGUARD_PROXY_LISTEN": "0.0.0.0:7701", "TOOLGUARD_ALLOW_UNAUTHENTICATED": "true"}, refused: true},
		{name: "allowed by flag", args: []string{"--listen", "0.0.0.0:7701", "--allow-unauthenticated"}, refused: false},
		{name: "allowed by env", env: map[string]string{"TOOLGUARD_PROXY_LISTEN": "0.0.0.0:7701", "TOOLGUARD_PROXY_ALLOW_UNAUTHENTICATED": "true"}, refused: false},
		{name: "env allowance turned off by flag", args: []string{"--allow-unauthenticated=false"},
			env: map[string]string{"TOOLGUARD_PROXY_LISTEN": "0.0.0.0:7701", "TOOLGUARD_PROXY_ALLOW_UNAUTHENTICATED": "true"}, refused: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := parseWith(proxySettings, proxy.DefaultConfig(), append([]string{"--upstream", "http://127.0.0.1:8081"}, tt.args...), tt.env)
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
				t.Fatalf("listening on %s was accepted", cfg.Listen)
			}
			for _, s := range []string{cfg.Listen, "not a loopback address", "--allow-unauthenticated", "TOOLGUARD_PROXY_ALLOW_UNAUTHENTICATED=true"} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not mention %q", err, s)
				}
			}
		})
	}

	// The command refuses before it listens: a usage error.
	code, _, stderr := runCLI("proxy", "--listen", "0.0.0.0:0", "--upstream", "http://127.0.0.1:8081")
	if code != 2 || !strings.Contains(stderr, "refusing to listen on 0.0.0.0:0") {
		t.Errorf("proxy --listen 0.0.0.0:0: exit %d, stderr %q; want 2 refusing to listen", code, stderr)
	}
}

// TestServeProxy runs the command's server against a fake upstream and
// stops it as a signal would. The upstream is written as agents write base
// URLs, ending in /v1: the log says it is dropped and names the URL used,
// and requests are not sent to /v1/v1.
func TestServeProxy(t *testing.T) {
	in := []byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"function\":{\"name\":\"Save\",\"arguments\":\"{'path': 'a'}\"}}]},\"finish_reason\":null}]}\n\ndata: [DONE]\n\n")
	paths := make(chan string, 1)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case paths <- r.URL.Path:
		default:
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(in)
	}))
	defer up.Close()
	cfg := proxy.DefaultConfig()
	cfg.Listen, cfg.Upstream = "127.0.0.1:0", up.URL+"/v1/"
	core, logs := observer.New(zapcore.InfoLevel)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serveProxy(ctx, cfg, zap.New(core)) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serveProxy: %v", err)
		}
	}()
	req := `{"model":"m","stream":true,"tools":[{"type":"function","function":{"name":"Save","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}}]}`
	// The port is the one the proxy took: its serving line names it.
	var addr string
	for deadline := time.Now().Add(2 * time.Minute); addr == ""; time.Sleep(10 * time.Millisecond) {
		if serving := logs.FilterMessageSnippet("serving ").All(); len(serving) > 0 {
			addr, _ = serving[0].ContextMap()["address"].(string)
		} else if time.Now().After(deadline) {
			t.Fatal("the proxy has not started serving after 2 minutes")
		}
	}
	resp, err := http.Post("http://"+addr+"/v1/chat/completions", "application/json", strings.NewReader(req))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Contains(body, []byte(`"arguments":"{\"path\":\"a\"}"`)) {
		t.Fatalf("the call was not repaired:\n%s", body)
	}
	if p := <-paths; p != "/v1/chat/completions" {
		t.Errorf("the upstream got %s, want /v1/chat/completions", p)
	}
	dropped := logs.FilterMessageSnippet("ends in /v1").All()
	if len(dropped) != 1 || dropped[0].Level != zapcore.InfoLevel || dropped[0].ContextMap()["upstream"] != up.URL {
		t.Errorf("want one info line naming the upstream used (%s); got %v", up.URL, dropped)
	}
	if started := logs.FilterMessage("starting toolguard proxy").All(); len(started) != 1 || started[0].ContextMap()["upstream"] != up.URL {
		t.Errorf("the start line names another upstream than %s: %v", up.URL, started)
	}
}
