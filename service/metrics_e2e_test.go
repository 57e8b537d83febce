package service_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/observe"
	"github.com/toolguard/toolguard/service"
	"github.com/toolguard/toolguard/service/servicetest"
)

// scrape fetches addr's /metrics and returns the body and its families.
func scrape(t *testing.T, addr string) (string, map[string]*dto.MetricFamily) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/metrics", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("scrape: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("scrape: read: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("scrape: %s\n%s", resp.Status, body)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(string(body)))
	if err != nil {
		t.Fatalf("scrape: parse: %v\n%s", err, body)
	}
	return string(body), families
}

// counterValue returns the value of the family's series with exactly these
// labels, and whether it exists.
func counterValue(families map[string]*dto.MetricFamily, name string, labels map[string]string) (float64, bool) {
	for _, m := range families[name].GetMetric() {
		if len(m.GetLabel()) != len(labels) {
			continue
		}
		match := true
		for _, l := range m.GetLabel() {
			if labels[l.GetName()] != l.GetValue() {
				match = false
			}
		}
		if match {
			if h := m.GetHistogram(); h != nil {
				return float64(h.GetSampleCount()), true
			}
			return m.GetCounter().GetValue(), true
		}
	}
	return 0, false
}

// TestMetricsEndpoint drives every kind of call through a real loopback
// server with metrics on, scrapes /metrics and checks that each counter
// moved under the right labels, and that nothing a caller wrote became a
// label value.
func TestMetricsEndpoint(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "app.py"), []byte("def main():\n    print(\"hello\")\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	conn, cfg := servicetest.Start(t, service.Config{Config: guard.Config{Workspace: dir}, MetricsListen: "on"})
	if !strings.HasPrefix(cfg.MetricsListen, "127.0.0.1:") || cfg.MetricsListen == "127.0.0.1:0" || cfg.MetricsListen == cfg.Listen {
		t.Fatalf("metrics address %q (gRPC on %q), want a bound loopback port of its own", cfg.MetricsListen, cfg.Listen)
	}
	client := toolguardv1.NewToolGuardServiceClient(conn)
	ctx := context.Background()
	validate := func(session, model, name, args string) *toolguardv1.Verdict {
		t.Helper()
		resp, err := client.ValidateToolCall(ctx, &toolguardv1.ValidateToolCallRequest{
			Context: &toolguardv1.RequestContext{SessionId: session, ModelId: model},
			Call:    &toolguardv1.ToolCall{Name: name, Arguments: &toolguardv1.ToolCall_ArgumentsText{ArgumentsText: args}},
		})
		if err != nil {
			t.Fatalf("ValidateToolCall: %v", err)
		}
		return resp.GetVerdict()
	}

	// A repaired call from a Claude 4 model: an alias and two renames.
	if v := validate("repaired", "claude-sonnet-4-5", "Write", `{"file_path":"src/app.py","text":"x"}`); !v.GetOk() || len(v.GetRepairs()) != 3 {
		t.Fatalf("repaired call: %v", v)
	}
	// The same mistake three times from a generic model: a violation each
	// time, a repeat and the limit the third time.
	for range 3 {
		validate("mistakes", "gpt-4o", "write_to_file", `{"path":"a.py"}`)
	}
	// A tool nobody has: its raw name must not become a label.
	validate("unknown", "", "launch_rockets_x9", `{}`)

	// An edit found by the Unicode rung.
	edit, err := client.ExecuteEdit(ctx, &toolguardv1.ExecuteEditRequest{
		Context: &toolguardv1.RequestContext{SessionId: "edit"},
		Call: &toolguardv1.ToolCall{Name: "Edit", Arguments: &toolguardv1.ToolCall_ArgumentsText{
			ArgumentsText: `{"file_path":"app.py","old_string":"print(“hello”)","new_string":"print(\"hi\")"}`}},
	})
	if err != nil || !edit.GetApplied() {
		t.Fatalf("ExecuteEdit: %v, %v", edit, err)
	}
	editedSize := edit.GetChanges()[0].GetSize()

	// A stream with one usable call, executed on completion, and one cut
	// off by the length limit.
	frames := append([]*toolguardv1.StreamToolCallsRequest{startFrame("stream", toolguardv1.StreamFormat_STREAM_FORMAT_XML_TAGS,
		&toolguardv1.StreamOptions{ExecuteOnComplete: true})},
		textFrames("Writing.<write_to_file><path>b.txt</path><content>hi</content></write_to_file><write_to_file><path>c.txt</path><content>cut", 9)...)
	if _, err := streamRun(t, client, append(frames, endFrame("length"))); err != nil {
		t.Fatalf("StreamToolCalls: %v", err)
	}

	body, families := scrape(t, cfg.MetricsListen)
	want := []struct {
		name   string
		labels map[string]string
		value  float64
	}{
		{"toolguard_repairs_total", map[string]string{"code": "TOOL_ALIAS", "model_family": "native-next-gen"}, 1},
		// Two parameters renamed, one call: counted once.
		{"toolguard_repairs_total", map[string]string{"code": "ALIAS_RENAMED", "model_family": "native-next-gen"}, 1},
		{"toolguard_violations_total", map[string]string{"code": "MISSING_REQUIRED", "tool": "write_to_file"}, 3},
		{"toolguard_violations_total", map[string]string{"code": "REPEATED_CALL", "tool": "write_to_file"}, 1},
		{"toolguard_violations_total", map[string]string{"code": "UNKNOWN_TOOL", "tool": "other"}, 1},
		// The streamed call's value and block were both cut off: once.
		{"toolguard_violations_total", map[string]string{"code": "TRUNCATED", "tool": "write_to_file"}, 1},
		{"toolguard_mistake_limit_reached_total", map[string]string{"model_family": "generic"}, 1},
		{"toolguard_verdicts_total", map[string]string{"tool": "write_to_file", "outcome": "usable"}, 2},
		{"toolguard_verdicts_total", map[string]string{"tool": "write_to_file", "outcome": "unusable"}, 4},
		{"toolguard_verdicts_total", map[string]string{"tool": "edit", "outcome": "usable"}, 1},
		{"toolguard_verdicts_total", map[string]string{"tool": "other", "outcome": "unusable"}, 1},
		{"toolguard_edit_outcomes_total", map[string]string{"status": "APPLIED", "rung": "UNICODE"}, 1},
		{"toolguard_written_bytes_total", map[string]string{}, float64(editedSize) + 2},
		{"toolguard_stream_calls_total", map[string]string{"format": "xml_tags", "outcome": "usable"}, 1},
		{"toolguard_stream_calls_total", map[string]string{"format": "xml_tags", "outcome": "truncated"}, 1},
		// go-grpc-middleware's server metrics, the handling-time histogram
		// included.
		{"grpc_server_handled_total", map[string]string{"grpc_type": "unary", "grpc_service": "toolguard.v1.ToolGuardService", "grpc_method": "ValidateToolCall", "grpc_code": "OK"}, 5},
		{"grpc_server_handled_total", map[string]string{"grpc_type": "unary", "grpc_service": "toolguard.v1.ToolGuardService", "grpc_method": "ExecuteEdit", "grpc_code": "OK"}, 1},
		{"grpc_server_handled_total", map[string]string{"grpc_type": "bidi_stream", "grpc_service": "toolguard.v1.ToolGuardService", "grpc_method": "StreamToolCalls", "grpc_code": "OK"}, 1},
		{"grpc_server_handling_seconds", map[string]string{"grpc_type": "unary", "grpc_service": "toolguard.v1.ToolGuardService", "grpc_method": "ValidateToolCall"}, 5},
		// Initialized at zero for every method.
		{"grpc_server_handled_total", map[string]string{"grpc_type": "unary", "grpc_service": "toolguard.v1.ToolGuardService", "grpc_method": "ResetSession", "grpc_code": "OK"}, 0},
	}
	for _, w := range want {
		got, ok := counterValue(families, w.name, w.labels)
		if !ok || got != w.value {
			t.Errorf("%s%v = %v (present %v), want %v", w.name, w.labels, got, ok, w.value)
		}
	}
	if m := families["toolguard_streams_max"].GetMetric(); len(m) != 1 || m[0].GetGauge().GetValue() != float64(cfg.MaxStreams) {
		t.Errorf("toolguard_streams_max = %v, want %d", m, cfg.MaxStreams)
	}
	if m := families["toolguard_streams_open"].GetMetric(); len(m) != 1 || m[0].GetGauge().GetValue() != 0 {
		t.Errorf("toolguard_streams_open = %v after every stream ended, want 0", m)
	}
	build := families["toolguard_build_info"].GetMetric()
	if len(build) != 1 || build[0].GetGauge().GetValue() != 1 {
		t.Errorf("toolguard_build_info = %v, want one series of value 1", build)
	} else if labels := fmt.Sprint(build[0].GetLabel()); !strings.Contains(labels, runtime.Version()) || !strings.Contains(labels, observe.Version) {
		t.Errorf("toolguard_build_info labels %s, want the Go version and %q", labels, observe.Version)
	}
	for _, name := range []string{"go_goroutines", "go_memstats_alloc_bytes", "grpc_server_started_total", "grpc_server_msg_received_total"} {
		if families[name] == nil {
			t.Errorf("%s is not exported", name)
		}
	}
	if strings.Contains(body, "launch_rockets") || strings.Contains(body, "claude-sonnet") || strings.Contains(body, "gpt-4o") {
		t.Errorf("a tool name or model id a caller sent became a label:\n%s", body)
	}

	// Only label values from the fixed sets appear.
	allowed := map[string][]string{
		"tool":         {"write_to_file", "edit", "multi_edit", "replace_in_file", "apply_patch", "todo_write", "custom", "other"},
		"model_family": {"generic", "native-next-gen", "native-gpt-5", "other"},
	}
	for name, f := range families {
		if !strings.HasPrefix(name, "toolguard_") {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if vals, ok := allowed[l.GetName()]; ok && !slices.Contains(vals, l.GetValue()) {
					t.Errorf("%s has %s=%q, outside its fixed set", name, l.GetName(), l.GetValue())
				}
			}
		}
	}
}

// TestMetricsOffByDefault checks that a server started without
// MetricsListen exposes no metrics port.
func TestMetricsOffByDefault(t *testing.T) {
	_, cfg := servicetest.Start(t, service.Config{})
	if cfg.MetricsListen != "" {
		t.Fatalf("MetricsListen = %q with metrics off, want empty", cfg.MetricsListen)
	}
	if got := service.DefaultConfig().MetricsListen; got != "" {
		t.Fatalf("default MetricsListen = %q, want empty (off)", got)
	}
}
