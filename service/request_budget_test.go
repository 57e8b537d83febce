package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
)

const (
	validateFullMethod = toolguardv1.ToolGuardService_ValidateToolCall_FullMethodName
	writeMethod        = toolguardv1.ToolGuardService_ExecuteWrite_FullMethodName
	editMethod         = toolguardv1.ToolGuardService_ExecuteEdit_FullMethodName
)

// TestUnaryMemoryCharge: a request draws its size times its RPC's factor,
// at most the whole budget.
func TestUnaryMemoryCharge(t *testing.T) {
	m := newUnaryMemory(100 << 20)
	for _, tt := range []struct {
		method string
		size   int
		want   int64
	}{
		{validateFullMethod, 1 << 20, 3 << 20},
		{writeMethod, 1 << 20, 7 << 20},
		{editMethod, 1 << 20, 8 << 20},
		{toolguardv1.ToolGuardService_ReadFiles_FullMethodName, 1 << 20, 3 << 20},
		{"/other.Service/Method", 1 << 20, 3 << 20},
		{writeMethod, 15 << 20, 100 << 20}, // 105 MiB of 100: it runs alone
		{writeMethod, 16 << 20, 100 << 20},
	} {
		if got := m.charge(tt.method, tt.size); got != tt.want {
			t.Errorf("charge(%s, %d) = %d, want %d", tt.method, tt.size, got, tt.want)
		}
	}
}

// hold draws n bytes as a request being handled would.
func (m *unaryMemory) hold(n int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.held += n
}

// TestUnaryMemoryAcquire: without waiting, charges are granted while they
// fit and refused whole with SERVER_MEMORY_BUSY past it; what is given
// back makes room.
func TestUnaryMemoryAcquire(t *testing.T) {
	m := newUnaryMemory(10 << 20)
	m.maxWait = 0
	steps := []struct {
		method  string
		size    int
		release int64 // given back before the step
		granted bool
		held    int64 // after the step
	}{
		{validateFullMethod, 2 << 20, 0, true, 6 << 20},
		{validateFullMethod, 2 << 20, 0, false, 6 << 20},
		{validateFullMethod, 1 << 20, 0, true, 9 << 20},
		{writeMethod, 256 << 10, 0, false, 9 << 20},
		{writeMethod, 2 << 20, 9 << 20, true, 10 << 20}, // all of it, on a quiet server
		{validateFullMethod, chargeMinBytes, 0, false, 10 << 20},
	}
	for i, s := range steps {
		m.release(s.release)
		n, err := m.acquire(context.Background(), s.method, s.size)
		if granted := err == nil; granted != s.granted || m.used() != s.held {
			t.Fatalf("step %d: granted %v (%v), held %d; want granted %v, held %d", i, granted, err, m.used(), s.granted, s.held)
		}
		var le *LimitError
		switch {
		case s.granted && n != m.charge(s.method, s.size):
			t.Errorf("step %d: charged %d, want %d", i, n, m.charge(s.method, s.size))
		case !s.granted && (!errors.As(err, &le) || le.Reason != "SERVER_MEMORY_BUSY" ||
			le.Metadata["request_bytes"] != strconv.Itoa(s.size) || le.Metadata["max_unary_memory_bytes"] != strconv.Itoa(10<<20) ||
			!strings.Contains(le.Message, "send it again shortly") || le.RetryAfter < time.Second/2 || le.RetryAfter >= 3*time.Second/2):
			t.Errorf("step %d: refusal %#v, want SERVER_MEMORY_BUSY with the sizes and a retry", i, err)
		}
	}
}

// TestUnaryMemoryLink: the link charges a large request while its handler
// runs and gives it back however the handler ends; small requests and
// streams pass untouched; a refused request never reaches its handler.
func TestUnaryMemoryLink(t *testing.T) {
	m := newUnaryMemory(4 << 20)
	m.maxWait = 0
	link := unaryMemoryInterceptor(m)
	tests := []struct {
		name     string
		size     int
		held     int64 // before the call
		panics   bool
		wantHeld int64 // while the handler runs
		refused  bool
	}{
		{"small request", chargeMinBytes - 1, 0, false, 0, false},
		{"large request", 1 << 20, 0, false, 3 << 20, false},
		{"large request beside another", 256 << 10, 3 << 20, false, 3<<20 + 768<<10, false},
		{"handler panics", 1 << 20, 0, true, 3 << 20, false},
		{"over what is left", 1 << 20, 2 << 20, false, 0, true},
		{"small request on a full budget", 1 << 10, 4 << 20, false, 4 << 20, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m.hold(tt.held)
			defer m.release(tt.held)
			ran := false
			handler := func(ctx context.Context, req any) (any, error) {
				ran = true
				if got := m.used(); got != tt.wantHeld {
					t.Errorf("held %d while the handler runs, want %d", got, tt.wantHeld)
				}
				if tt.panics {
					panic("handler")
				}
				return req, ctx.Err()
			}
			var err error
			func() {
				ctx, done := withRequestSize(context.Background(), tt.size)
				defer done()
				defer func() { _ = recover() }()
				_, err = link.unary(ctx, "req", &grpc.UnaryServerInfo{FullMethod: validateFullMethod}, handler)
			}()
			if ran == tt.refused {
				t.Errorf("handler ran: %v, refused: %v", ran, tt.refused)
			}
			if tt.refused {
				checkMemoryBusy(t, err, 4<<20, tt.size)
			} else if err != nil {
				t.Errorf("error %v", err)
			}
			if got := m.used(); got != tt.held {
				t.Errorf("held %d after the call, want %d as before", got, tt.held)
			}
		})
	}
	streamed := false
	if err := link.stream(nil, nil, &grpc.StreamServerInfo{}, func(any, grpc.ServerStream) error { streamed = true; return nil }); err != nil || !streamed {
		t.Errorf("stream: %v, handler ran %v", err, streamed)
	}
}

// checkMemoryBusy wants err to be SERVER_MEMORY_BUSY for a request of size
// bytes on a budget of limit.
func checkMemoryBusy(t *testing.T, err error, limit, size int) {
	t.Helper()
	st := status.Convert(err)
	var info *errdetails.ErrorInfo
	var retry *errdetails.RetryInfo
	for _, d := range st.Details() {
		switch d := d.(type) {
		case *errdetails.ErrorInfo:
			info = d
		case *errdetails.RetryInfo:
			retry = d
		}
	}
	if d := retry.GetRetryDelay().AsDuration(); d < time.Second/2 || d >= 3*time.Second/2 {
		t.Errorf("refusal %v: retry delay %v, want about a second", err, retry)
	}
	if st.Code() != codes.ResourceExhausted || info == nil || info.GetReason() != "SERVER_MEMORY_BUSY" || info.GetDomain() != ErrorDomain ||
		info.GetMetadata()["max_unary_memory_bytes"] != strconv.Itoa(limit) || info.GetMetadata()["request_bytes"] != strconv.Itoa(size) ||
		!strings.Contains(st.Message(), "send it again shortly") {
		t.Errorf("refusal %v (%v), want RESOURCE_EXHAUSTED SERVER_MEMORY_BUSY with max_unary_memory_bytes %d and request_bytes %d", err, info, limit, size)
	}
}

// TestUnaryMemoryConfig: the budget must hold a request of the largest
// size, at the smallest factor.
func TestUnaryMemoryConfig(t *testing.T) {
	for _, tt := range []struct {
		budget int
		ok     bool
	}{
		{48 << 20, true},
		{48<<20 - 1, false},
		{0, false},
	} {
		cfg := testConfig(t)
		cfg.MaxRecvMsgBytes, cfg.MaxUnaryMemoryBytes = 16<<20, tt.budget
		err := cfg.Validate()
		if (err == nil) != tt.ok || err != nil && !strings.Contains(err.Error(), "max unary memory bytes") {
			t.Errorf("budget %d: %v, want ok %v", tt.budget, err, tt.ok)
		}
	}
}

// TestUnaryMemoryServer sends many large writes and validations at once
// over gRPC. The calls the budget grants are held before their handlers
// until every call is decided, so the budget is at its fullest: the bytes
// held never pass it, the calls it could not grant are refused with the
// reason and sizes and did nothing, the others answer as usual with their
// files written exactly, and the budget is empty after.
func TestUnaryMemoryServer(t *testing.T) {
	const writes, validations = 8, 8
	const calls = writes + validations
	cfg := testConfig(t)
	cfg.MaxRecvMsgBytes, cfg.MaxUnaryMemoryBytes, cfg.MetricsListen = 1<<20, 6<<20, "127.0.0.1:0"
	cfg.memoryWait = -1 // refused at once: every call is decided while the granted ones are held
	var mu sync.Mutex
	decided, maxHeld, lastHeld, granted := 0, int64(0), int64(0), 0
	all := make(chan struct{})
	cfg.memoryDecided = func(d memoryDecision, held int64) {
		ok := d == memoryGranted
		mu.Lock()
		decided++
		maxHeld, lastHeld = max(maxHeld, held), held
		if ok {
			granted++
		}
		if decided == calls {
			close(all)
		}
		mu.Unlock()
		if ok {
			<-all
		}
	}
	ts := startTestServer(t, cfg)
	client := toolguardv1.NewToolGuardServiceClient(ts.conn)

	content := func(i int) string {
		return fmt.Sprintf("call %d\n", i) + strings.Repeat("a line of the file, long enough\n", 8<<10) // 256 KiB
	}
	write := func(i int) *toolguardv1.ExecuteWriteRequest {
		return &toolguardv1.ExecuteWriteRequest{
			Context: &toolguardv1.RequestContext{SessionId: fmt.Sprintf("w%d", i)},
			Call: &toolguardv1.ToolCall{Name: "write_to_file", Arguments: &toolguardv1.ToolCall_Params{Params: &toolguardv1.StringParams{
				Values: map[string]string{"path": fmt.Sprintf("big-%d.txt", i), "content": content(i)}}}},
		}
	}
	errs := make([]error, calls)
	answers := make([]proto.Message, calls)
	sizes := make([]int, calls)
	var wg sync.WaitGroup
	for i := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := testContext(t)
			if i < writes {
				req := write(i)
				sizes[i] = proto.Size(req)
				answers[i], errs[i] = client.ExecuteWrite(ctx, req)
				return
			}
			req := &toolguardv1.ValidateToolCallRequest{
				Context: &toolguardv1.RequestContext{SessionId: fmt.Sprintf("v%d", i)},
				Call: &toolguardv1.ToolCall{Name: "write_to_file", Arguments: &toolguardv1.ToolCall_ArgumentsText{
					ArgumentsText: jsonText(t, map[string]string{"path": "v.txt", "content": content(i)})}},
			}
			sizes[i] = proto.Size(req)
			answers[i], errs[i] = client.ValidateToolCall(ctx, req)
		}()
	}
	wg.Wait()

	mu.Lock()
	defer mu.Unlock()
	if maxHeld > int64(cfg.MaxUnaryMemoryBytes) || granted == 0 || granted == calls {
		t.Fatalf("%d of %d calls granted, %d bytes held at most; want some refused, never over %d", granted, calls, maxHeld, cfg.MaxUnaryMemoryBytes)
	}
	refused := 0
	for i, err := range errs {
		path := filepath.Join(cfg.Workspace, fmt.Sprintf("big-%d.txt", i))
		switch got, readErr := os.ReadFile(path); {
		case err != nil:
			refused++
			checkMemoryBusy(t, err, cfg.MaxUnaryMemoryBytes, sizes[i])
			if i < writes && !errors.Is(readErr, os.ErrNotExist) {
				t.Errorf("refused write %d: file %v, want none", i, readErr)
			}
		case i < writes:
			ch := answers[i].(*toolguardv1.ExecuteWriteResponse).GetChange()
			if ch.GetKind() != toolguardv1.FileChangeKind_FILE_CHANGE_KIND_CREATED || string(got) != content(i) {
				t.Errorf("write %d: change %v, %d bytes on disk (%v); want its %d bytes created", i, ch, len(got), readErr, len(content(i)))
			}
		case !answers[i].(*toolguardv1.ValidateToolCallResponse).GetVerdict().GetOk():
			t.Errorf("validation %d: %v", i, answers[i])
		}
	}
	t.Logf("%d calls granted, %d refused, at most %d bytes held", granted, refused, maxHeld)
	if refused != calls-granted {
		t.Errorf("%d calls refused, %d granted of %d", refused, granted, calls)
	}

	// Empty again: a write that costs the whole budget runs.
	big := write(calls)
	big.GetCall().GetParams().Values["content"] = strings.Repeat("x", cfg.MaxUnaryMemoryBytes/int(unaryMemoryFactors[writeMethod])+64<<10)
	mu.Unlock()
	_, err := client.ExecuteWrite(testContext(t), big)
	mu.Lock()
	if err != nil || lastHeld != int64(cfg.MaxUnaryMemoryBytes) {
		t.Fatalf("a write of the whole budget on a quiet server: %v, %d held, want %d", err, lastHeld, cfg.MaxUnaryMemoryBytes)
	}
	if held, limit := unaryMemoryGauges(t, ts); held != 0 || limit != cfg.MaxUnaryMemoryBytes {
		t.Errorf("gauges after the calls: %d held of %d, want 0 of %d", held, limit, cfg.MaxUnaryMemoryBytes)
	}
}

func jsonText(t *testing.T, v map[string]string) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// unaryMemoryGauges scrapes the server's unary memory gauges.
func unaryMemoryGauges(t *testing.T, ts *testServer) (held, limit int) {
	t.Helper()
	resp, err := http.Get("http://" + ts.srv.MetricsAddr().String() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	gauge := func(name string) int {
		m := regexp.MustCompile(`(?m)^` + name + ` (\S+)$`).FindSubmatch(body)
		if m == nil {
			t.Fatalf("no %s in the metrics", name)
		}
		v, err := strconv.ParseFloat(string(m[1]), 64)
		if err != nil {
			t.Fatal(err)
		}
		return int(v)
	}
	return gauge("toolguard_unary_memory_bytes"), gauge("toolguard_unary_memory_max_bytes")
}

// BenchmarkUnaryMemoryLink is what the link costs a small call (no charge:
// one context lookup) and a large one (a charge drawn and given back),
// beside the bare handler, in a context as deep as a served call's.
func BenchmarkUnaryMemoryLink(b *testing.B) {
	link := unaryMemoryInterceptor(newUnaryMemory(96 << 20)).unary
	ctx := context.Background()
	for i := range 8 {
		ctx = context.WithValue(ctx, struct{ n int }{i}, i)
	}
	info := &grpc.UnaryServerInfo{FullMethod: validateFullMethod}
	handler := func(ctx context.Context, req any) (any, error) { return req, nil }
	b.Run("bare", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = handler(ctx, nil)
		}
	})
	for _, size := range []int{1 << 10, 1 << 20} {
		sized, done := withRequestSize(ctx, size)
		defer done()
		b.Run(fmt.Sprintf("request=%d", size), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := link(sized, nil, info, handler); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestUnaryMemoryWaits: a request the budget has no room for waits in
// line, first come first served (a small one does not pass a large one);
// it is refused at once when the requests waiting already hold their
// share, or its deadline has passed, and refused when its call ends or the
// longest wait passes; the ones in line are let in as room is given back.
func TestUnaryMemoryWaits(t *testing.T) {
	m := newUnaryMemory(10 << 20)
	m.maxWait = time.Hour
	events := make(chan memoryDecision, 16)
	m.decided = func(d memoryDecision, _ int64) { events <- d }
	next := func(want memoryDecision, what string) {
		t.Helper()
		if got := <-events; got != want {
			t.Fatalf("%s: decision %d, want %d", what, got, want)
		}
	}
	type result struct {
		n   int64
		err error
	}
	wait := func(ctx context.Context, size int) chan result {
		out := make(chan result, 1)
		go func() {
			n, err := m.acquire(ctx, validateFullMethod, size)
			out <- result{n, err}
		}()
		next(memoryWaiting, fmt.Sprintf("a request of %d bytes", size))
		return out
	}
	a, err := m.acquire(context.Background(), validateFullMethod, 3<<20) // 9 MiB of 10
	next(memoryGranted, "the first request")
	if err != nil {
		t.Fatal(err)
	}
	b := wait(context.Background(), 1<<20)                                                // needs 3 MiB: waits
	c := wait(context.Background(), chargeMinBytes)                                       // 48 KiB would fit, but b is first
	if _, err := m.acquire(context.Background(), validateFullMethod, 3<<20); err == nil { // 1 MiB + 16 KiB + 3 MiB waiting: over a third of 10 MiB
		t.Fatal("a request past the waiting share was granted")
	}
	next(memoryRefused, "a request past the waiting share")
	past, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	if _, err := m.acquire(past, validateFullMethod, chargeMinBytes); err == nil {
		t.Fatal("a request past its deadline was granted")
	}
	next(memoryRefused, "a request past its deadline")
	ctx, cancelE := context.WithCancel(context.Background())
	e := wait(ctx, 64<<10)
	cancelE()
	next(memoryRefused, "a request whose call ended while it waited")
	if r := <-e; r.err == nil {
		t.Fatal("a cancelled request was granted")
	}
	m.maxWait = time.Nanosecond
	if _, err := m.acquire(context.Background(), validateFullMethod, chargeMinBytes); err == nil {
		t.Fatal("a request was granted past the longest wait")
	}
	next(memoryWaiting, "a request with the shortest wait")
	next(memoryRefused, "a request with the shortest wait")

	m.release(a)
	next(memoryGranted, "the first in line")
	next(memoryGranted, "the second in line")
	rb, rc := <-b, <-c
	if rb.err != nil || rc.err != nil || m.used() != 3<<20+3*chargeMinBytes {
		t.Fatalf("in line after the release: %v, %v; %d held, want 3 MiB and 48 KiB", rb.err, rc.err, m.used())
	}
	m.release(rb.n)
	m.release(rc.n)
	if m.used() != 0 || len(m.queue) != 0 || m.waiting != 0 {
		t.Errorf("after every release: %d held, %d in line holding %d bytes", m.used(), len(m.queue), m.waiting)
	}
}

// TestUnaryMemoryServerWaits: over gRPC, a write the budget has no room for
// waits for the one being handled, then runs: both are done, and the
// budget is empty after.
func TestUnaryMemoryServerWaits(t *testing.T) {
	cfg := testConfig(t)
	cfg.MaxRecvMsgBytes, cfg.MaxUnaryMemoryBytes, cfg.MetricsListen = 1<<20, 3<<20, "127.0.0.1:0"
	cfg.memoryWait = time.Hour // bounded by the calls' own deadline
	granted, waiting, release := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var once sync.Once
	cfg.memoryDecided = func(d memoryDecision, _ int64) {
		switch d {
		case memoryGranted:
			once.Do(func() { // the first write holds the budget until the second waits
				close(granted)
				<-release
			})
		case memoryWaiting:
			close(waiting)
		}
	}
	ts := startTestServer(t, cfg)
	client := toolguardv1.NewToolGuardServiceClient(ts.conn)
	write := func(i, size int, done chan<- error) {
		_, err := client.ExecuteWrite(testContext(t), &toolguardv1.ExecuteWriteRequest{
			Context: &toolguardv1.RequestContext{SessionId: fmt.Sprintf("w%d", i)},
			Call: &toolguardv1.ToolCall{Name: "write_to_file", Arguments: &toolguardv1.ToolCall_Params{Params: &toolguardv1.StringParams{
				Values: map[string]string{"path": fmt.Sprintf("w-%d.txt", i), "content": strings.Repeat("w", size)}}}},
		})
		done <- err
	}
	first, second := make(chan error, 1), make(chan error, 1)
	sizes := []int{cfg.MaxUnaryMemoryBytes/int(unaryMemoryFactors[writeMethod]) + 64<<10, 100 << 10}
	go write(0, sizes[0], first) // charged the whole budget
	<-granted
	go write(1, sizes[1], second)
	<-waiting
	close(release)
	for i, done := range []chan error{first, second} {
		if err := <-done; err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
		got, err := os.ReadFile(filepath.Join(cfg.Workspace, fmt.Sprintf("w-%d.txt", i)))
		if err != nil || len(got) != sizes[i] {
			t.Errorf("write %d: %d bytes on disk (%v)", i, len(got), err)
		}
	}
	if held, _ := unaryMemoryGauges(t, ts); held != 0 {
		t.Errorf("%d bytes held after the calls, want 0", held)
	}
}
