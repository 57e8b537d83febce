package observability

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/promql/parser"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/toolguard/toolguard/mcp"
	"github.com/toolguard/toolguard/proxy"
	"github.com/toolguard/toolguard/service"
)

// registered returns every metric the server and the proxy can export, as
// they register them, with the series names histograms add.
func registered(t *testing.T) map[string]bool {
	t.Helper()
	scfg := service.DefaultConfig()
	scfg.Listen, scfg.MetricsListen, scfg.Workspace = "127.0.0.1:0", "127.0.0.1:0", t.TempDir()
	srv, err := service.New(scfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	serve(t, srv.Serve)
	pcfg := proxy.DefaultConfig()
	pcfg.Listen, pcfg.MetricsListen, pcfg.Upstream = "127.0.0.1:0", "127.0.0.1:0", "http://127.0.0.1:9"
	px, err := proxy.NewServer(pcfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	serve(t, px.Serve)

	names := map[string]bool{}
	for _, n := range slices.Concat(srv.MetricNames(), px.MetricNames(), mcp.MetricNames()) {
		names[n] = true
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			names[n+suffix] = true
		}
	}
	if !names["toolguard_verdicts_total"] || !names["toolguard_proxy_calls_total"] || !names["grpc_server_handled_total"] {
		t.Fatalf("the registered metrics look incomplete: %v", names)
	}
	return names
}

// serve runs a front end on a loopback port until the test ends, so its
// cleanups (the metrics listener among them) run.
func serve(t *testing.T, run func(context.Context, net.Listener) error) {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, lis) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("stop: %v", err)
			}
		case <-time.After(2 * time.Minute):
			t.Error("front end did not stop")
		}
	})
}

var promql = parser.NewParser(parser.Options{})

// grafanaVars are the dashboard's variables as Grafana would expand them.
var grafanaVars = strings.NewReplacer("$__rate_interval", "5m", "$job", "toolguard")

// checkExpr parses a PromQL expression and returns the metric names it
// selects, or why it does not parse or names a metric nobody exports.
func checkExpr(expr string, known map[string]bool) ([]string, error) {
	e, err := promql.ParseExpr(grafanaVars.Replace(expr))
	if err != nil {
		return nil, fmt.Errorf("%q does not parse: %w", expr, err)
	}
	var names []string
	parser.Inspect(e, func(n parser.Node, _ []parser.Node) error {
		if vs, ok := n.(*parser.VectorSelector); ok {
			names = append(names, vs.Name)
		}
		return nil
	})
	if len(names) == 0 {
		return nil, fmt.Errorf("%q selects no metric", expr)
	}
	for _, name := range names {
		if !known[name] {
			return nil, fmt.Errorf("%q names %s, which neither the server nor the proxy exports", expr, name)
		}
	}
	return names, nil
}

type dashboard struct {
	Title      string  `json:"title"`
	UID        string  `json:"uid"`
	Panels     []panel `json:"panels"`
	Templating struct {
		List []struct {
			Name       string `json:"name"`
			Definition string `json:"definition"`
		} `json:"list"`
	} `json:"templating"`
}

type panel struct {
	Type        string                   `json:"type"`
	Title       string                   `json:"title"`
	Description string                   `json:"description"`
	GridPos     struct{ H, W, X, Y int } `json:"gridPos"`
	Targets     []struct {
		Expr string `json:"expr"`
	} `json:"targets"`
}

func loadDashboard(t *testing.T) dashboard {
	t.Helper()
	raw, err := os.ReadFile("dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	var d dashboard
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("dashboard.json: %v", err)
	}
	return d
}

// checkDashboard checks every panel's queries and returns the metrics the
// dashboard shows.
func checkDashboard(d dashboard, known map[string]bool) (map[string]bool, error) {
	shown := map[string]bool{}
	for _, p := range d.Panels {
		if p.Type == "row" {
			continue
		}
		if p.Title == "" || p.Description == "" || len(p.Targets) == 0 {
			return nil, fmt.Errorf("panel %q needs a title, a description and a query", p.Title)
		}
		for _, tg := range p.Targets {
			names, err := checkExpr(tg.Expr, known)
			if err != nil {
				return nil, fmt.Errorf("panel %q: %w", p.Title, err)
			}
			for _, n := range names {
				shown[n] = true
			}
		}
	}
	return shown, nil
}

func TestDashboard(t *testing.T) {
	known := registered(t)
	d := loadDashboard(t)
	if d.UID == "" || d.Title == "" {
		t.Errorf("the dashboard needs a uid and a title")
	}
	shown, err := checkDashboard(d, known)
	if err != nil {
		t.Fatal(err)
	}
	// What an operator must see: calls and verdicts, repairs, violations,
	// limit hits, latency, stream slots, the proxy, the store's outages.
	for _, want := range []string{"toolguard_verdicts_total", "toolguard_repairs_total", "toolguard_violations_total",
		"toolguard_mistake_limit_reached_total", "grpc_server_handling_seconds_bucket", "toolguard_streams_open",
		"toolguard_streams_max", "toolguard_proxy_calls_total", "toolguard_mistakes_not_counted_total",
		"toolguard_edit_outcomes_total", "toolguard_stream_calls_total", "grpc_server_handled_total",
		"toolguard_mcp_calls_total", "toolguard_mcp_call_duration_seconds_bucket"} {
		if !shown[want] {
			t.Errorf("no panel shows %s", want)
		}
	}
	for _, v := range d.Templating.List {
		if v.Definition == "" {
			continue
		}
		metric := strings.TrimSuffix(strings.TrimPrefix(v.Definition, "label_values("), ", job)")
		if !known[metric] {
			t.Errorf("variable %s reads %s, which nobody exports", v.Name, metric)
		}
	}
	// Panels may not overlap on Grafana's 24-column grid.
	cells := map[[2]int]string{}
	for _, p := range d.Panels {
		for x := p.GridPos.X; x < p.GridPos.X+p.GridPos.W; x++ {
			for y := p.GridPos.Y; y < p.GridPos.Y+p.GridPos.H; y++ {
				if other, ok := cells[[2]int{x, y}]; ok {
					t.Fatalf("panels %q and %q overlap at %d,%d", other, p.Title, x, y)
				}
				cells[[2]int{x, y}] = p.Title
			}
		}
		if p.GridPos.X+p.GridPos.W > 24 {
			t.Errorf("panel %q runs past the grid's 24 columns", p.Title)
		}
	}
}

func TestAlertRules(t *testing.T) {
	known := registered(t)
	groups, errs := rulefmt.ParseFile("alerts.yaml", false, model.UTF8Validation, promql, slog.New(slog.DiscardHandler))
	if len(errs) > 0 {
		t.Fatalf("alerts.yaml: %v", errs)
	}
	var alerts []string
	for _, g := range groups.Groups {
		for _, r := range g.Rules {
			if _, err := checkExpr(r.Expr, known); err != nil {
				t.Errorf("alert %s: %v", r.Alert, err)
			}
			if r.Annotations["summary"] == "" || r.Annotations["description"] == "" || r.Labels["severity"] == "" {
				t.Errorf("alert %s needs a summary, a description and a severity", r.Alert)
			}
			alerts = append(alerts, r.Alert)
		}
	}
	for _, want := range []string{"ToolguardServerErrors", "ToolguardMistakeLimitSpike", "ToolguardSessionStoreUnreachable",
		"ToolguardStreamSlotsNearCap", "ToolguardUnaryMemoryNearCap", "ToolguardConnectionsNearCap", "ToolguardHighLatency"} {
		if !slices.Contains(alerts, want) {
			t.Errorf("no alert %s", want)
		}
	}
}

// TestRenamedMetricFails shows the checks can fail: a metric renamed in the
// code (here: in the query) is caught in a panel and in an alert.
func TestRenamedMetricFails(t *testing.T) {
	known := registered(t)
	d := loadDashboard(t)
	for i, p := range d.Panels {
		if len(p.Targets) > 0 && strings.Contains(p.Targets[0].Expr, "toolguard_verdicts_total") {
			d.Panels[i].Targets[0].Expr = strings.ReplaceAll(p.Targets[0].Expr, "toolguard_verdicts_total", "toolguard_verdict_total")
			break
		}
	}
	if _, err := checkDashboard(d, known); err == nil || !strings.Contains(err.Error(), "toolguard_verdict_total") {
		t.Errorf("a renamed metric in the dashboard passed: %v", err)
	}
	if _, err := checkExpr(`rate(toolguard_streams_opened[5m]) > 0`, known); err == nil {
		t.Error("a renamed metric in an alert passed")
	}
	if _, err := checkExpr(`sum(rate(toolguard_verdicts_total[5m]) > `, known); err == nil {
		t.Error("a query that does not parse passed")
	}
}

func TestKustomization(t *testing.T) {
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), ".")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, r := range m.Resources() {
		got[r.GetKind()+"/"+r.GetName()] = true
		if r.GetName() == "toolguard-dashboard" && r.GetLabels()["grafana_dashboard"] != "1" {
			t.Errorf("the dashboard ConfigMap lacks the grafana_dashboard label")
		}
	}
	if !got["ConfigMap/toolguard-dashboard"] || !got["ConfigMap/toolguard-alert-rules"] {
		t.Errorf("rendered %v, want the dashboard and alert-rule ConfigMaps", got)
	}
}

// TestMetricsDocumented: every toolguard_ metric the server, the proxy and
// the MCP server can export is named in docs/ (a histogram by its base
// name), so a new metric cannot go undocumented.
func TestMetricsDocumented(t *testing.T) {
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil || len(pages) == 0 {
		t.Fatalf("docs pages: %v, %v", pages, err)
	}
	var docs strings.Builder
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		docs.Write(b)
	}
	names := registered(t)
	for n := range names {
		base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(n, "_bucket"), "_sum"), "_count")
		if !strings.HasPrefix(n, "toolguard_") || (base != n && names[base]) {
			continue
		}
		if !strings.Contains(docs.String(), n) {
			t.Errorf("no page of docs/ names the metric %s", n)
		}
	}
}
