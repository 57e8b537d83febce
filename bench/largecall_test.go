package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/grpc"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/service"
)

// memProfileEnv names a file for the server process's allocation profile,
// written when it stops:
//
//	TOOLGUARD_BENCH_SERVER_MEMPROFILE=/tmp/mem.pprof go test -bench LargePythonDictServer ./bench/
const memProfileEnv = "TOOLGUARD_BENCH_SERVER_MEMPROFILE"

// beforeEnv names a test binary of this package built at an earlier commit
// (go test -c): BenchmarkLargePythonDictServer then runs its server beside
// this one's, alternating calls between them.
const beforeEnv = "TOOLGUARD_BENCH_BEFORE"

// sizeEnvs are the server's size bounds' environment twins a large call
// needs raised (--max-recv-msg-bytes; for a write of 16 MB,
// --max-file-bytes; for a streamed one, --max-call-bytes and
// --max-param-bytes): each is over 16 MB's default or at it.
var sizeEnvs = []struct {
	name string
	set  func(*service.Config, int)
}{
	{"TOOLGUARD_MAX_RECV_MSG_BYTES", func(c *service.Config, n int) { c.MaxRecvMsgBytes = n }},
	{"TOOLGUARD_MAX_FILE_BYTES", func(c *service.Config, n int) { c.MaxFileBytes = int64(n) }},
	{"TOOLGUARD_MAX_CALL_BYTES", func(c *service.Config, n int) { c.MaxCallBytes = n }},
	{"TOOLGUARD_MAX_PARAM_BYTES", func(c *service.Config, n int) { c.MaxParamBytes = n }},
}

// sizesFromEnv sets cfg's size bounds from their environment twins.
func sizesFromEnv(cfg *service.Config) error {
	for _, e := range sizeEnvs {
		v := os.Getenv(e.name)
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("%s: %w", e.name, err)
		}
		e.set(cfg, n)
	}
	return nil
}

// raiseSizes raises the bench servers' size bounds to 32 MiB.
func raiseSizes(b *testing.B) {
	for _, e := range sizeEnvs {
		b.Setenv(e.name, strconv.Itoa(32<<20))
	}
}

func writeMemProfile(path string) {
	f, err := os.Create(path)
	if err == nil {
		err = pprof.Lookup("allocs").WriteTo(f, 0)
		err = errors.Join(err, f.Close())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench server: memory profile:", err)
	}
}

// serverMem is what the server process says of its memory.
type serverMem struct {
	// totalAlloc is the bytes its heap allocated so far.
	totalAlloc uint64
	// hwm and rss are its peak and current resident set (/proc VmHWM,
	// VmRSS), in bytes.
	hwm, rss uint64
}

// answerMemQuery prints the process's serverMem on one line.
func answerMemQuery() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	hwm, rss := procStatus("VmHWM:"), procStatus("VmRSS:")
	fmt.Println(ms.TotalAlloc, hwm, rss)
}

// answerSettleQuery collects the heap, returns what it freed to the
// system and resets the peak resident set to the current one (VmHWM, by
// writing 5 to /proc/self/clear_refs), then answers as answerMemQuery:
// the peak after it is what happened since.
func answerSettleQuery() {
	runtime.GC()
	debug.FreeOSMemory()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		fmt.Fprintln(os.Stderr, "bench server: reset the peak resident set:", err)
	}
	answerMemQuery()
}

// procStatus is a /proc/self/status field given in kB, in bytes (0 when
// unknown).
func procStatus(field string) uint64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	in := bufio.NewScanner(f)
	for in.Scan() {
		if rest, ok := strings.CutPrefix(in.Text(), field); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// mem asks the server process for its memory.
func (s *benchServer) mem(b *testing.B) serverMem { return s.memQuery(b, "mem") }

// settle has the server process collect its heap and reset its peak
// resident set (answerSettleQuery), and returns its memory after.
func (s *benchServer) settle(b *testing.B) serverMem { return s.memQuery(b, "settle") }

func (s *benchServer) memQuery(b *testing.B, query string) serverMem {
	if _, err := s.query.Write([]byte(query + "\n")); err != nil {
		b.Fatalf("server memory: %v", err)
	}
	line, err := s.answer.ReadString('\n')
	if err != nil {
		b.Fatalf("server memory: %v", err)
	}
	var m serverMem
	if _, err := fmt.Sscan(line, &m.totalAlloc, &m.hwm, &m.rss); err != nil {
		b.Fatalf("server memory %q: %v", line, err)
	}
	return m
}

// pythonDictWrite is about size bytes of a write call in Python syntax, as
// guard's BenchmarkValidateLargePythonDict validates it: single quotes,
// escaped quotes and newlines, a trailing comma.
func pythonDictWrite(size int) (args string, contentBytes int) {
	var content strings.Builder
	for i := 0; content.Len() < size; i++ {
		fmt.Fprintf(&content, `def f%d(event):\n    return {\'status\': 200, "body": \'é\'}\n`, i)
	}
	// The content decoded: each escape is one byte.
	decoded := strings.NewReplacer(`\n`, "\n", `\'`, "'").Replace(content.String())
	return `{'path': 'src/big.py', 'content': '` + content.String() + `',}`, len(decoded)
}

// BenchmarkLargePythonDictServer sends guard's BenchmarkValidateLargePythonDict
// call, 16 MB of write_to_file in Python syntax, to ValidateToolCall on a
// real server process on loopback (--max-recv-msg-bytes 32 MiB), and
// reports what the server allocated per call over the input's size
// (alloc_vs_input, goal ≤ 3), with the median's range, and its peak
// resident set over the run above its resident set before the first large
// call, over the input's size (peak_rss_growth_vs_input).
//
// With TOOLGUARD_BENCH_BEFORE naming this package's test binary built at
// an earlier commit, that server runs beside this one, calls alternating
// between them (the order reversed every round), and the same figures are
// reported for both, prefixed before_ and after_:
//
//	go test -c -o /tmp/before.test ./bench/   # at the earlier commit
//	TOOLGUARD_BENCH_BEFORE=/tmp/before.test go test -run '^$' -bench LargePythonDictServer -benchtime 6x ./bench/
func BenchmarkLargePythonDictServer(b *testing.B) {
	args, contentBytes := pythonDictWrite(16 << 20)
	req := &toolguardv1.ValidateToolCallRequest{
		Context: &toolguardv1.RequestContext{SessionId: "bench-large"},
		Call:    &toolguardv1.ToolCall{Name: "write_to_file", Arguments: &toolguardv1.ToolCall_ArgumentsText{ArgumentsText: args}},
	}
	runLargeCalls(b, len(args), func(conn *grpc.ClientConn, n int) error {
		req.Context.SessionId = fmt.Sprintf("bench-large-%d", n)
		resp, err := toolguardv1.NewToolGuardServiceClient(conn).ValidateToolCall(context.Background(), req)
		if err != nil {
			return err
		}
		return usableElided(resp.GetVerdict(), contentBytes)
	})
}

// runLargeCalls runs call, the n-th large call of inputBytes to a server,
// on this package's server process and, with TOOLGUARD_BENCH_BEFORE, on
// that binary's beside it, alternating between them with the order
// reversed every round, and reports per server what it allocated per call
// over inputBytes (alloc_vs_input: the median, _min, _max) and its peak
// resident set over the run above its resident set before the first large
// call, over inputBytes (peak_rss_growth_vs_input). The servers' size
// bounds are raised to 32 MiB.
func runLargeCalls(b *testing.B, inputBytes int, call func(conn *grpc.ClientConn, n int) error) {
	raiseSizes(b)
	type side struct {
		name   string
		s      *benchServer
		base   serverMem
		ratios []float64
	}
	sides := []*side{{name: "after", s: startBenchServer(b, "info")}}
	if path := os.Getenv(beforeEnv); path != "" {
		sides = append([]*side{{name: "before", s: startServerFrom(b, path, "info")}}, sides...)
	}
	ctx := context.Background()
	for _, sd := range sides {
		// A small call first: what any server holds before a large one.
		if _, err := toolguardv1.NewToolGuardServiceClient(sd.s.conn).ValidateToolCall(ctx, brokenWrite(0, 0)); err != nil {
			b.Fatal(err)
		}
		sd.base = sd.s.mem(b)
	}
	b.SetBytes(int64(inputBytes))
	n := 0
	for b.Loop() {
		order := inTurn(sides, n)
		for _, sd := range order {
			m0 := sd.s.mem(b)
			if err := call(sd.s.conn, n); err != nil {
				b.Fatalf("%s: %v", sd.name, err)
			}
			m1 := sd.s.mem(b)
			sd.ratios = append(sd.ratios, float64(m1.totalAlloc-m0.totalAlloc)/float64(inputBytes))
		}
		n++
	}
	ident := func(x float64) float64 { return x }
	for _, sd := range sides {
		prefix := ""
		if len(sides) > 1 {
			prefix = sd.name + "_"
		}
		end := sd.s.mem(b)
		b.ReportMetric(median(sd.ratios, ident), prefix+"alloc_vs_input")
		b.ReportMetric(slices.Min(sd.ratios), prefix+"alloc_vs_input_min")
		b.ReportMetric(slices.Max(sd.ratios), prefix+"alloc_vs_input_max")
		b.ReportMetric(float64(end.hwm-sd.base.rss)/float64(inputBytes), prefix+"peak_rss_growth_vs_input")
		b.ReportMetric(float64(sd.base.rss)/(1<<20), prefix+"rss_before-MB")
		b.ReportMetric(float64(end.hwm)/(1<<20), prefix+"peak_rss-MB")
	}
}

// usableElided says why v is not a repaired, usable call with its content,
// of contentBytes, elided (nil when it is).
func usableElided(v *toolguardv1.Verdict, contentBytes int) error {
	if !v.GetOk() || len(v.GetRepairs()) == 0 || !elidedContent(v, contentBytes) {
		return fmt.Errorf("not a repaired, usable call with its content elided: ok=%v repairs=%v elided=%v violations=%v",
			v.GetOk(), v.GetRepairs(), v.GetElided(), v.GetViolations())
	}
	return nil
}

// elidedContent says whether v lists the content, of n bytes, as left out.
func elidedContent(v *toolguardv1.Verdict, n int) bool {
	for _, e := range v.GetElided() {
		if e.GetField() == "content" && e.GetSize() == uint64(n) {
			return true
		}
	}
	return false
}

// inTurn is the order servers run side by side are called in a round:
// as given, then reversed every other round, so that neither always runs
// first on a machine whose load moves.
func inTurn[T any](sides []T, round int) []T {
	order := slices.Clone(sides)
	if round%2 == 1 {
		slices.Reverse(order)
	}
	return order
}
