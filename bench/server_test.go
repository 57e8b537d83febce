package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap/zapcore"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	testgrpc "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/protobuf/proto"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/observe"
	"github.com/toolguard/toolguard/service"
)

// serverEnv makes the test binary a toolguard server (TestMain): the
// benchmark's server runs in a process of its own, as in production, so
// its CPU time is its own and the load generator's garbage is not its GC's.
const serverEnv = "TOOLGUARD_BENCH_SERVER"

// profileEnv names a file for the server process's CPU profile:
//
//	TOOLGUARD_BENCH_SERVER_CPUPROFILE=/tmp/server.pprof go test -bench ServerOverhead ./bench/
const profileEnv = "TOOLGUARD_BENCH_SERVER_CPUPROFILE"

func TestMain(m *testing.M) {
	if level := os.Getenv(serverEnv); level != "" {
		if err := serveForBench(level); err != nil {
			fmt.Fprintln(os.Stderr, "bench server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// serveForBench runs the production server, logging JSON at level to
// nowhere (encoding each line, not a terminal's cost), with the echo
// service beside ToolGuardService; it prints its address and serves until
// standard input closes.
func serveForBench(level string) error {
	log, err := observe.NewLoggerTo(zapcore.AddSync(io.Discard), "json", level)
	if err != nil {
		return err
	}
	workspace, err := os.MkdirTemp("", "toolguard-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(workspace)
	cfg := service.DefaultConfig()
	cfg.Workspace, cfg.LogLevel = workspace, level
	if w := os.Getenv("TOOLGUARD_STREAM_WORKERS"); w != "" {
		n, err := strconv.ParseUint(w, 10, 32)
		if err != nil {
			return err
		}
		cfg.StreamWorkers = uint32(n)
	}
	if err := sizesFromEnv(&cfg); err != nil {
		return err
	}
	if err := syntaxFromEnv(&cfg); err != nil {
		return err
	}
	if v := os.Getenv(unaryMemoryEnv); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("%s: %w", unaryMemoryEnv, err)
		}
		cfg.MaxUnaryMemoryBytes = n
	}
	srv, err := service.NewWithServices(cfg, log, func(r grpc.ServiceRegistrar) { testgrpc.RegisterTestServiceServer(r, echoService{}) })
	if err != nil {
		return err
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	if path := os.Getenv(profileEnv); path != "" {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if path := os.Getenv(memProfileEnv); path != "" {
		defer writeMemProfile(path)
	}
	fmt.Println(lis.Addr())
	ctx, cancel := context.WithCancel(context.Background())
	go answerCPUQueries(cancel)
	return srv.Serve(ctx, lis)
}

// answerCPUQueries prints the process's CPU time, user and system, in ns
// for each line read from standard input ("mem": its memory, memQuery),
// and cancels at its end.
func answerCPUQueries(cancel func()) {
	defer cancel()
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		switch in.Text() {
		case "mem":
			answerMemQuery()
			continue
		case "settle":
			answerSettleQuery()
			continue
		}
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			fmt.Fprintln(os.Stderr, "bench server: getrusage:", err)
			return
		}
		fmt.Println(ru.Utime.Nano() + ru.Stime.Nano())
	}
}

// echoService answers UnaryCall with a body of the requested size and does
// nothing else: the floor of any RPC carrying a ValidateToolCall's bytes
// through the same interceptors.
type echoService struct {
	testgrpc.UnimplementedTestServiceServer
}

func (echoService) UnaryCall(_ context.Context, r *testgrpc.SimpleRequest) (*testgrpc.SimpleResponse, error) {
	return &testgrpc.SimpleResponse{Payload: &testgrpc.Payload{Body: make([]byte, r.GetResponseSize())}}, nil
}

// benchServer is a server process started by startBenchServer.
type benchServer struct {
	conn   *grpc.ClientConn
	query  io.Writer
	answer *bufio.Reader
}

func startBenchServer(b *testing.B, level string) *benchServer {
	b.Helper()
	return startServerFrom(b, os.Args[0], level)
}

// startServerFrom starts the server of the test binary at path, with env
// added to its environment.
func startServerFrom(b *testing.B, path, level string, env ...string) *benchServer {
	b.Helper()
	cmd := exec.Command(path, "-test.run=^$")
	cmd.Env = append(append(os.Environ(), env...), serverEnv+"="+level)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = stdin.Close()
		if err := cmd.Wait(); err != nil {
			b.Errorf("bench server: %v", err)
		}
	})
	answer := bufio.NewReader(stdout)
	addr, err := answer.ReadString('\n')
	if err != nil {
		b.Fatalf("bench server address: %v", err)
	}
	conn, err := grpc.NewClient(strings.TrimSpace(addr), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = conn.Close() })
	return &benchServer{conn: conn, query: stdin, answer: answer}
}

// cpu returns the server process's CPU time so far, user and system.
func (s *benchServer) cpu(b *testing.B) time.Duration {
	if _, err := io.WriteString(s.query, "cpu\n"); err != nil {
		b.Fatalf("server CPU time: %v", err)
	}
	line, err := s.answer.ReadString('\n')
	if err != nil {
		b.Fatalf("server CPU time: %v", err)
	}
	ns, err := strconv.ParseInt(strings.TrimSpace(line), 10, 64)
	if err != nil {
		b.Fatalf("server CPU time %q: %v", line, err)
	}
	return time.Duration(ns)
}

// brokenWrite is a ~1 KB Write call as a model writes it in Python: single
// quotes, the file_path and text aliases, a trailing comma. Each session
// alternates two contents, so no call is flagged as repeated.
func brokenWrite(session, variant int) *toolguardv1.ValidateToolCallRequest {
	body := fmt.Sprintf("# variant %d\\n", variant) + strings.Repeat("def handler(event):\\n    return {\\'status\\': 200}\\n", 19)
	args := "{'file_path': 'src/handler.py', 'text': '" + body + "',}"
	return &toolguardv1.ValidateToolCallRequest{
		Context: &toolguardv1.RequestContext{SessionId: fmt.Sprintf("bench-%d", session), ModelId: "deepseek-chat"},
		Call:    &toolguardv1.ToolCall{Name: "Write", Arguments: &toolguardv1.ToolCall_ArgumentsText{ArgumentsText: args}},
	}
}

// overheadConcurrency is the concurrency of the published figures (ghz -c 50).
const overheadConcurrency = 50

// phaseStats is one phase: calls made at overheadConcurrency, their rate,
// latency percentiles, and the CPU per call of the server and of the
// callers (this process): the two share the machine's cores, so a side's
// rate follows their sum.
type phaseStats struct {
	perSec, p50, p99, cpuPerCall, clientCPUPerCall float64
}

// phase makes calls calls from overheadConcurrency goroutines.
func (s *benchServer) phase(b *testing.B, calls int, call func(i int) error) phaseStats {
	var next atomic.Int64
	lat := make([][]time.Duration, overheadConcurrency)
	errs := make([]error, overheadConcurrency)
	var wg sync.WaitGroup
	cpu0, client0, start := s.cpu(b), cpuTime(), time.Now()
	for w := range overheadConcurrency {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= calls {
					return
				}
				t := time.Now()
				if err := call(i); err != nil {
					errs[w] = err
					return
				}
				lat[w] = append(lat[w], time.Since(t))
			}
		})
	}
	wg.Wait()
	elapsed, client, cpu := time.Since(start), cpuTime()-client0, s.cpu(b)-cpu0
	for _, err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
	all := slices.Concat(lat...)
	slices.Sort(all)
	pct := func(p float64) float64 { return float64(all[int(p*float64(len(all)-1))]) / 1e3 }
	return phaseStats{
		perSec:           float64(calls) / elapsed.Seconds(),
		p50:              pct(0.50),
		p99:              pct(0.99),
		cpuPerCall:       float64(cpu) / 1e3 / float64(calls),
		clientCPUPerCall: float64(client) / 1e3 / float64(calls),
	}
}

// BenchmarkServerOverhead is a ghz-style load run in Go: 50 concurrent
// callers against a real server process on loopback, alternating in each
// round (one b.N iteration) between grpc.health.v1.Health/Check,
// ValidateToolCall on a ~1 KB broken call, and an echo RPC carrying the same
// bytes in and out through the same interceptors (the floor for any RPC of
// that size). It reports the medians over rounds of each side's calls/s,
// p99 and server CPU per call, and the ratios: validate_vs_health_rate
// (goal ≥ 0.70), validate_vs_health_p99 (≤ 1.3), validate_vs_health_cpu
// (≤ 1.5), and the same for echo, and validate_minus_echo_cpu-µs, the server
// CPU of ValidateToolCall's own work, and validate_vs_echo_cpu (≤ 1.5), the
// same as a ratio. Server CPU is the server process's
// user+system time over the phase divided by its calls; client-cpu is the
// same for this process, the callers: on a machine they share with the
// server, a side's rate follows the sum of the two.
//
//	go test -run '^$' -bench ServerOverhead -benchtime 5x ./bench/
func BenchmarkServerOverhead(b *testing.B) {
	for _, level := range []string{"error", "info"} {
		b.Run("log="+level, func(b *testing.B) { benchOverhead(b, level) })
	}
}

// overheadSide is one of the three calls of a round.
type overheadSide struct {
	name string
	call func(i int) error
}

// overheadSides returns a server's three sides: health, validate, echo.
func overheadSides(b *testing.B, s *benchServer) []overheadSide {
	ctx := context.Background()
	hc := healthpb.NewHealthClient(s.conn)
	tg := toolguardv1.NewToolGuardServiceClient(s.conn)
	echo := testgrpc.NewTestServiceClient(s.conn)

	reqs := make([]*toolguardv1.ValidateToolCallRequest, 2048)
	for i := range reqs {
		reqs[i] = brokenWrite(i/2, i%2)
	}
	first, err := tg.ValidateToolCall(ctx, reqs[0])
	if err != nil || !first.GetVerdict().GetOk() || len(first.GetVerdict().GetRepairs()) == 0 {
		b.Fatalf("the benchmark call is not a repaired, usable call: %v %v", first, err)
	}
	echoReq := &testgrpc.SimpleRequest{
		ResponseSize: int32(proto.Size(first)),
		Payload:      &testgrpc.Payload{Body: make([]byte, proto.Size(reqs[0]))},
	}
	var validated atomic.Uint64
	return []overheadSide{
		{"health", func(int) error {
			_, err := hc.Check(ctx, &healthpb.HealthCheckRequest{})
			return err
		}},
		{"validate", func(int) error {
			v, err := tg.ValidateToolCall(ctx, reqs[validated.Add(1)%uint64(len(reqs))])
			if err == nil && !v.GetVerdict().GetOk() {
				return fmt.Errorf("verdict not usable: %v", v.GetVerdict().GetViolations())
			}
			return err
		}},
		{"echo", func(int) error {
			_, err := echo.UnaryCall(ctx, echoReq)
			return err
		}},
	}
}

// overheadServer is a server under the benchmark, its sides and their
// rounds.
type overheadServer struct {
	name   string
	s      *benchServer
	sides  []overheadSide
	rounds [][]phaseStats
}

// benchOverhead runs the rounds. With TOOLGUARD_BENCH_BEFORE naming this
// package's test binary built at an earlier commit, that server runs
// beside this one, each round running both (the order reversed every
// round), and each figure is reported for both, prefixed before_ and
// after_, with after_vs_before_validate_vs_echo_cpu and
// after_minus_before_validate_minus_echo_cpu-µs, the medians of the
// rounds' differences (each round's figures are logged, with -v):
//
//	go test -c -o /tmp/before.test ./bench/   # at the earlier commit
//	TOOLGUARD_BENCH_BEFORE=/tmp/before.test go test -run '^$' -bench 'ServerOverhead/log=error' -benchtime 10x ./bench/
func benchOverhead(b *testing.B, level string) {
	servers := []*overheadServer{{name: "after", s: startBenchServer(b, level)}}
	if path := os.Getenv(beforeEnv); path != "" {
		servers = append([]*overheadServer{{name: "before", s: startServerFrom(b, path, level)}}, servers...)
	}
	const warmup, calls = 1000, 5000
	for _, sv := range servers {
		sv.sides = overheadSides(b, sv.s)
		sv.rounds = make([][]phaseStats, len(sv.sides))
		for _, side := range sv.sides {
			sv.s.phase(b, warmup, side.call)
		}
	}
	n := 0
	for b.Loop() {
		order := slices.Clone(servers)
		if n%2 == 1 {
			slices.Reverse(order)
		}
		for _, sv := range order {
			for i, side := range sv.sides {
				sv.rounds[i] = append(sv.rounds[i], sv.s.phase(b, calls, side.call))
			}
		}
		n++
	}
	for _, sv := range servers {
		prefix := ""
		if len(servers) > 1 {
			prefix = sv.name + "_"
		}
		reportOverhead(b, prefix, sv)
	}
	if len(servers) > 1 {
		before, after := servers[0].rounds, servers[1].rounds
		diff := func(f func(v, e phaseStats) float64) []float64 {
			out := make([]float64, len(after[1]))
			for r := range out {
				out[r] = f(after[1][r], after[2][r]) - f(before[1][r], before[2][r])
			}
			return out
		}
		for r := range after[1] {
			b.Logf("round %d: validate ÷ echo CPU before %.3f, after %.3f; validate ÷ health rate before %.3f, after %.3f; echo ÷ health rate before %.3f, after %.3f",
				r, before[1][r].cpuPerCall/before[2][r].cpuPerCall, after[1][r].cpuPerCall/after[2][r].cpuPerCall,
				before[1][r].perSec/before[0][r].perSec, after[1][r].perSec/after[0][r].perSec,
				before[2][r].perSec/before[0][r].perSec, after[2][r].perSec/after[0][r].perSec)
		}
		ident := func(x float64) float64 { return x }
		b.ReportMetric(median(diff(func(v, e phaseStats) float64 { return v.cpuPerCall / e.cpuPerCall }), ident), "after_minus_before_validate_vs_echo_cpu")
		b.ReportMetric(median(diff(func(v, e phaseStats) float64 { return v.cpuPerCall - e.cpuPerCall }), ident), "after_minus_before_validate_minus_echo_cpu-µs")
	}
}

// reportOverhead reports a server's figures, each name after prefix.
func reportOverhead(b *testing.B, prefix string, sv *overheadServer) {
	rounds := sv.rounds
	report := func(side int, name string) {
		name = prefix + name
		med := func(f func(phaseStats) float64) float64 { return median(rounds[side], f) }
		b.ReportMetric(med(func(p phaseStats) float64 { return p.perSec }), name+"-calls/s")
		b.ReportMetric(med(func(p phaseStats) float64 { return p.p99 }), name+"-p99-µs")
		b.ReportMetric(med(func(p phaseStats) float64 { return p.cpuPerCall }), name+"-cpu-µs/call")
		b.ReportMetric(med(func(p phaseStats) float64 { return p.clientCPUPerCall }), name+"-client-cpu-µs/call")
		if side == 0 {
			return
		}
		ratio := func(f func(phaseStats) float64) float64 {
			return median(pairs(rounds[side], rounds[0]), func(p [2]phaseStats) float64 { return f(p[0]) / f(p[1]) })
		}
		b.ReportMetric(ratio(func(p phaseStats) float64 { return p.perSec }), name+"_vs_health_rate")
		b.ReportMetric(ratio(func(p phaseStats) float64 { return p.p99 }), name+"_vs_health_p99")
		b.ReportMetric(ratio(func(p phaseStats) float64 { return p.cpuPerCall }), name+"_vs_health_cpu")
	}
	for i, side := range sv.sides {
		report(i, side.name)
	}
	// What ValidateToolCall's own work costs the server beyond moving the
	// same bytes through the same chain: the part the ratios' goals leave.
	b.ReportMetric(median(pairs(rounds[1], rounds[2]), func(p [2]phaseStats) float64 { return p[0].cpuPerCall - p[1].cpuPerCall }), prefix+"validate_minus_echo_cpu-µs")
	// The same as a ratio: goal ≤ 1.5.
	b.ReportMetric(median(pairs(rounds[1], rounds[2]), func(p [2]phaseStats) float64 { return p[0].cpuPerCall / p[1].cpuPerCall }), prefix+"validate_vs_echo_cpu")
}

// pairs zips two rounds' stats, side by side.
func pairs(a, b []phaseStats) [][2]phaseStats {
	out := make([][2]phaseStats, len(a))
	for i := range a {
		out[i] = [2]phaseStats{a[i], b[i]}
	}
	return out
}

func median[T any](xs []T, f func(T) float64) float64 {
	vs := make([]float64, len(xs))
	for i, x := range xs {
		vs[i] = f(x)
	}
	slices.Sort(vs)
	if len(vs)%2 == 1 {
		return vs[len(vs)/2]
	}
	return (vs[len(vs)/2-1] + vs[len(vs)/2]) / 2
}
