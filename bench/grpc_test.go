// Package bench holds toolguard's end-to-end benchmarks and the side-by-side
// comparisons against their baselines and peers. Each comparison runs both
// sides in one process, on one machine, in one run, and reports the ratio.
package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/service"
	"github.com/toolguard/toolguard/service/servicetest"
)

// kbWrite is a 1 KB write_to_file call as a model emits it, with the aliases
// the seed documents (Write, file_path, text) so every call is repaired.
func kbWrite(variant int) *toolguardv1.ValidateToolCallRequest {
	content := fmt.Sprintf("# variant %d\n", variant) + strings.Repeat("def handler(event):\n    return {\"status\": 200, \"body\": event}\n", 16)
	raw, _ := json.Marshal(map[string]string{"file_path": "src/handler.py", "text": content})
	return &toolguardv1.ValidateToolCallRequest{
		Context: &toolguardv1.RequestContext{SessionId: "bench", ModelId: "deepseek-chat"},
		Call:    &toolguardv1.ToolCall{Name: "Write", Arguments: &toolguardv1.ToolCall_ArgumentsText{ArgumentsText: string(raw)}},
	}
}

// startQuiet starts a server that logs only warnings, as a loaded production
// server would be configured; per-call info logs would measure zap, not us.
func startQuiet(b *testing.B) *grpc.ClientConn {
	b.Helper()
	conn, _ := servicetest.Start(b, service.Config{LogLevel: "warn"})
	return conn
}

// BenchmarkValidateVsHealth runs ValidateToolCall on a 1 KB call and
// grpc.health.v1.Health/Check, the near-empty baseline, against the same
// loopback server in the same run, and reports each one's time per call and
// ValidateToolCall's rate as a fraction of the health check's
// (validate_vs_health; 1.0 means as fast as a health check).
func BenchmarkValidateVsHealth(b *testing.B) {
	conn := startQuiet(b)
	tg := toolguardv1.NewToolGuardServiceClient(conn)
	hc := healthpb.NewHealthClient(conn)
	// Calls come from 1,024 sessions, each alternating between two
	// different writes, as agents do: one session repeating one call would
	// be flagged REPEATED_CALL and measure the feedback path instead.
	reqs := make([]*toolguardv1.ValidateToolCallRequest, 2048)
	for i := range reqs {
		reqs[i] = kbWrite(i % 2)
		reqs[i].Context.SessionId = fmt.Sprintf("bench-%d", i/2)
	}
	ctx := context.Background()
	var next atomic.Uint64
	validate := func() error {
		v, err := tg.ValidateToolCall(ctx, reqs[next.Add(1)%uint64(len(reqs))])
		if err == nil && !v.GetVerdict().GetOk() {
			return fmt.Errorf("verdict not ok: %v", v.GetVerdict().GetViolations())
		}
		return err
	}
	health := func() error { _, err := hc.Check(ctx, &healthpb.HealthCheckRequest{}); return err }

	for _, mode := range []struct {
		name        string
		concurrency int
	}{{"sequential", 1}, {"concurrent16", 16}} {
		b.Run(mode.name, func(b *testing.B) {
			pool := newCallerPool(mode.concurrency)
			defer pool.close()
			var healthNs, validateNs float64
			for b.Loop() {
				// Interleave short rounds so both sides see the same machine.
				healthNs += pool.round(b, health)
				validateNs += pool.round(b, validate)
			}
			n := float64(b.N * roundCalls)
			b.ReportMetric(healthNs/n, "health-ns/call")
			b.ReportMetric(validateNs/n, "validate-ns/call")
			b.ReportMetric(healthNs/validateNs, "validate_vs_health")
		})
	}
}

// roundCalls is the number of calls in one timed round.
const roundCalls = 64

// callerPool is a fixed set of client goroutines. They live for the whole
// benchmark, as an orchestrator's would, so neither side pays for fresh
// goroutine stacks growing on every round.
type callerPool struct {
	jobs chan func() error
	done chan error
	size int
}

func newCallerPool(size int) *callerPool {
	p := &callerPool{jobs: make(chan func() error), done: make(chan error), size: size}
	for range size {
		go func() {
			for call := range p.jobs {
				var err error
				for range roundCalls / size {
					if err = call(); err != nil {
						break
					}
				}
				p.done <- err
			}
		}()
	}
	return p
}

// round makes roundCalls calls spread over the pool and returns the elapsed
// wall time in ns.
func (p *callerPool) round(b *testing.B, call func() error) float64 {
	start := time.Now()
	for range p.size {
		p.jobs <- call
	}
	var first error
	for range p.size {
		if err := <-p.done; err != nil && first == nil {
			first = err
		}
	}
	elapsed := float64(time.Since(start).Nanoseconds())
	if first != nil {
		b.Fatal(first)
	}
	return elapsed
}

func (p *callerPool) close() { close(p.jobs) }
