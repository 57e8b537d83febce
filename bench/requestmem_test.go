package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"google.golang.org/protobuf/proto"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
)

// What one large unary call costs the server's memory, by kind of call:
// the figures the server's unary memory budget charges from
// (--max-unary-memory-bytes, docs/limits.md).
//
//	go test -run '^$' -bench LargeUnaryMemory -benchtime 5x ./bench/

// largeUnaryBytes is the size of each kind's request: --max-recv-msg-bytes.
const largeUnaryBytes = 16 << 20

// largeUnary is one kind of large unary call.
type largeUnary struct {
	name string
	// prepare, when set, readies the n-th call unmeasured (the file an edit
	// changes).
	prepare func(c toolguardv1.ToolGuardServiceClient, n int) error
	// request is the n-th call's request.
	request func(n int) proto.Message
	// call sends it and says why its answer is not the one expected.
	call func(c toolguardv1.ToolGuardServiceClient, req proto.Message) error
}

// codeContent is about size bytes of Python source, as a write's content.
func codeContent(size int) string {
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "def f%d(event):\n    return {'status': 200, \"body\": 'é'}\n", i)
	}
	return b.String()
}

func jsonArgs(args map[string]string) string {
	b, err := json.Marshal(args)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func bigPath(n int) string { return fmt.Sprintf("src/big-%d.py", n) }

// largeUnaries are the kinds: a write's 16 MB validated in each form of
// arguments, executed as JSON and as a Python dict, and an edit of an 8 MB
// file replacing all of it (old and new text, 8 MB each).
func largeUnaries() []largeUnary {
	content := codeContent(largeUnaryBytes - 4<<10)
	pyArgs, _ := pythonDictWrite(largeUnaryBytes - 4<<10)
	half := content[:strings.LastIndexByte(content[:len(content)/2], '\n')+1]
	validate := func(call func(n int) *toolguardv1.ToolCall) largeUnary {
		return largeUnary{
			request: func(n int) proto.Message {
				return &toolguardv1.ValidateToolCallRequest{Context: &toolguardv1.RequestContext{SessionId: fmt.Sprintf("large-%d", n)}, Call: call(n)}
			},
			call: func(c toolguardv1.ToolGuardServiceClient, req proto.Message) error {
				resp, err := c.ValidateToolCall(context.Background(), req.(*toolguardv1.ValidateToolCallRequest))
				if err == nil && !resp.GetVerdict().GetOk() {
					err = fmt.Errorf("verdict not ok: %v", resp.GetVerdict().GetViolations())
				}
				return err
			},
		}
	}
	text := func(args func(n int) string) func(n int) *toolguardv1.ToolCall {
		return func(n int) *toolguardv1.ToolCall {
			return &toolguardv1.ToolCall{Name: "write_to_file", Arguments: &toolguardv1.ToolCall_ArgumentsText{ArgumentsText: args(n)}}
		}
	}
	jsonWrite := func(n int) string { return jsonArgs(map[string]string{"path": bigPath(n), "content": content}) }
	pyWrite := func(n int) string { return largeWrite(pyArgs, n) }
	write := func(args func(n int) string) largeUnary {
		return largeUnary{
			request: func(n int) proto.Message {
				return &toolguardv1.ExecuteWriteRequest{Context: &toolguardv1.RequestContext{SessionId: fmt.Sprintf("large-%d", n)}, Call: text(args)(n)}
			},
			call: func(c toolguardv1.ToolGuardServiceClient, req proto.Message) error {
				resp, err := c.ExecuteWrite(context.Background(), req.(*toolguardv1.ExecuteWriteRequest))
				if err == nil && resp.GetChange().GetKind() != toolguardv1.FileChangeKind_FILE_CHANGE_KIND_CREATED {
					err = fmt.Errorf("not created: %v %v", resp.GetChange(), resp.GetVerdict().GetViolations())
				}
				return err
			},
		}
	}
	// over writes jsonWrite's content over a file of the same lines, each
	// changed: the answer's diff has every line twice.
	over := largeUnary{request: write(jsonWrite).request}
	over.prepare = func(c toolguardv1.ToolGuardServiceClient, n int) error {
		_, err := c.ExecuteWrite(context.Background(), &toolguardv1.ExecuteWriteRequest{
			Context: &toolguardv1.RequestContext{SessionId: fmt.Sprintf("large-%d", n)},
			Call: &toolguardv1.ToolCall{Name: "write_to_file", Arguments: &toolguardv1.ToolCall_ArgumentsText{
				ArgumentsText: jsonArgs(map[string]string{"path": bigPath(n), "content": strings.ReplaceAll(content, "200", "201")})}},
		})
		return err
	}
	over.call = func(c toolguardv1.ToolGuardServiceClient, req proto.Message) error {
		resp, err := c.ExecuteWrite(context.Background(), req.(*toolguardv1.ExecuteWriteRequest))
		if err == nil && resp.GetChange().GetKind() != toolguardv1.FileChangeKind_FILE_CHANGE_KIND_MODIFIED {
			err = fmt.Errorf("not modified: %v %v", resp.GetChange(), resp.GetVerdict().GetViolations())
		}
		return err
	}
	kinds := []largeUnary{
		validate(text(jsonWrite)),
		validate(text(pyWrite)),
		validate(func(n int) *toolguardv1.ToolCall {
			return &toolguardv1.ToolCall{Arguments: &toolguardv1.ToolCall_XmlBlock{
				XmlBlock: "<write_to_file><path>" + bigPath(n) + "</path><content>\n" + content + "</content></write_to_file>"}}
		}),
		validate(func(n int) *toolguardv1.ToolCall {
			return &toolguardv1.ToolCall{Name: "write_to_file", Arguments: &toolguardv1.ToolCall_Params{
				Params: &toolguardv1.StringParams{Values: map[string]string{"path": bigPath(n), "content": content}}}}
		}),
		write(jsonWrite),
		write(pyWrite),
		over,
		{
			prepare: func(c toolguardv1.ToolGuardServiceClient, n int) error {
				_, err := c.ExecuteWrite(context.Background(), &toolguardv1.ExecuteWriteRequest{
					Context: &toolguardv1.RequestContext{SessionId: fmt.Sprintf("large-%d", n)},
					Call: &toolguardv1.ToolCall{Name: "write_to_file", Arguments: &toolguardv1.ToolCall_ArgumentsText{
						ArgumentsText: jsonArgs(map[string]string{"path": bigPath(n), "content": half})}},
				})
				return err
			},
			request: func(n int) proto.Message {
				return &toolguardv1.ExecuteEditRequest{
					Context: &toolguardv1.RequestContext{SessionId: fmt.Sprintf("large-%d", n)},
					Call: &toolguardv1.ToolCall{Name: "edit", Arguments: &toolguardv1.ToolCall_ArgumentsText{
						ArgumentsText: jsonArgs(map[string]string{"path": bigPath(n), "old_text": half, "new_text": strings.ReplaceAll(half, "200", "201")})}},
				}
			},
			call: func(c toolguardv1.ToolGuardServiceClient, req proto.Message) error {
				resp, err := c.ExecuteEdit(context.Background(), req.(*toolguardv1.ExecuteEditRequest))
				if err == nil && (!resp.GetApplied() || len(resp.GetChanges()) != 1) {
					err = fmt.Errorf("not applied: %v %v", resp.GetEdits(), resp.GetVerdict().GetViolations())
				}
				return err
			},
		},
	}
	for i, name := range []string{"validate/json", "validate/python", "validate/xml", "validate/params", "write/json", "write/python", "write/json-over", "edit/json"} {
		kinds[i].name = name
	}
	return kinds
}

// BenchmarkLargeUnaryMemory sends each kind of large unary call to a
// server process of its own (--max-recv-msg-bytes and the file bounds
// raised to 32 MiB) and reports, per call over its request's size: the
// server's peak resident set above its settled one before the call
// (peak_rss_vs_request: the heap collected, freed memory returned and the
// peak reset before each call), with the median's range, and what it
// allocated (alloc_vs_request). Run with GOGC=25 too: the peak then stays
// closer to what the call holds live.
func BenchmarkLargeUnaryMemory(b *testing.B) {
	for _, k := range largeUnaries() {
		b.Run(k.name, func(b *testing.B) {
			raiseSizes(b)
			s := startBenchServer(b, "info")
			c := toolguardv1.NewToolGuardServiceClient(s.conn)
			if _, err := c.ValidateToolCall(context.Background(), brokenWrite(0, 0)); err != nil {
				b.Fatal(err)
			}
			var peaks, allocs []float64
			n := 0
			for b.Loop() {
				b.StopTimer()
				if k.prepare != nil {
					if err := k.prepare(c, n); err != nil {
						b.Fatal(err)
					}
				}
				req := k.request(n)
				size := float64(proto.Size(req))
				m0 := s.settle(b)
				b.StartTimer()
				if err := k.call(c, req); err != nil {
					b.Fatalf("%s: %v", k.name, err)
				}
				m1 := s.mem(b)
				peaks = append(peaks, float64(m1.hwm-m0.rss)/size)
				allocs = append(allocs, float64(m1.totalAlloc-m0.totalAlloc)/size)
				n++
			}
			ident := func(x float64) float64 { return x }
			b.ReportMetric(median(peaks, ident), "peak_rss_vs_request")
			b.ReportMetric(slices.Min(peaks), "peak_rss_vs_request_min")
			b.ReportMetric(slices.Max(peaks), "peak_rss_vs_request_max")
			b.ReportMetric(median(allocs, ident), "alloc_vs_request")
		})
	}
}

// unaryMemoryEnv is --max-unary-memory-bytes' environment twin, which a
// bench server reads.
const unaryMemoryEnv = "TOOLGUARD_MAX_UNARY_MEMORY_BYTES"

// concurrentLarge is how many large calls BenchmarkConcurrentLargeUnary
// sends at once, unless concurrentEnv says otherwise.
const concurrentLarge = 16

const concurrentEnv = "TOOLGUARD_BENCH_CONCURRENT"

// BenchmarkConcurrentLargeUnary sends concurrentLarge calls of 16 MB at
// once, validations and writes of new files, to two server processes side
// by side (--max-recv-msg-bytes and the file bounds raised to 32 MiB): one
// with the unary memory budget at its default, 96 MiB ("after"), and one
// without it ("before": the budget at 1 TiB, or with TOOLGUARD_BENCH_BEFORE
// that binary's server). A call refused with SERVER_MEMORY_BUSY is sent
// again after the delay its google.rpc.RetryInfo gives, as a client would. Rounds alternate
// between the servers, the order reversed every round; reported per
// server: its peak resident set above its settled one over the round
// (peak_rss_growth-MB, median), the round's time and, for after, the
// refusals per round; and after's over before's peak and time.
//
//	go test -run '^$' -bench ConcurrentLargeUnary -benchtime 3x ./bench/
//	TOOLGUARD_BENCH_CONCURRENT=30 go test -run '^$' -bench ConcurrentLargeUnary/validate -benchtime 2x ./bench/
func BenchmarkConcurrentLargeUnary(b *testing.B) {
	kinds := largeUnaries()
	for _, k := range []largeUnary{kinds[0], kinds[4]} {
		b.Run(k.name, func(b *testing.B) {
			raiseSizes(b)
			before := startServerFrom(b, os.Args[0], "info", unaryMemoryEnv+"=1099511627776")
			if path := os.Getenv(beforeEnv); path != "" {
				before = startServerFrom(b, path, "info")
			}
			type side struct {
				name              string
				s                 *benchServer
				peaks, secs, busy []float64
			}
			sides := []*side{{name: "before", s: before}, {name: "after", s: startBenchServer(b, "info")}}
			calls := concurrentLarge
			if v := os.Getenv(concurrentEnv); v != "" {
				var err error
				if calls, err = strconv.Atoi(v); err != nil {
					b.Fatalf("%s: %v", concurrentEnv, err)
				}
			}
			n := 0
			for b.Loop() {
				order := inTurn(sides, n)
				for _, sd := range order {
					c := toolguardv1.NewToolGuardServiceClient(sd.s.conn)
					m0 := sd.s.settle(b)
					start := time.Now()
					refused, err := concurrentCalls(c, k, n*calls, calls)
					if err != nil {
						b.Fatalf("%s: %v", sd.name, err)
					}
					sd.secs = append(sd.secs, time.Since(start).Seconds())
					m1 := sd.s.mem(b)
					sd.peaks = append(sd.peaks, float64(m1.hwm-m0.rss)/(1<<20))
					sd.busy = append(sd.busy, float64(refused))
				}
				n++
			}
			ident := func(x float64) float64 { return x }
			for _, sd := range sides {
				b.ReportMetric(median(sd.peaks, ident), sd.name+"_peak_rss_growth-MB")
				b.ReportMetric(slices.Max(sd.peaks), sd.name+"_peak_rss_growth_max-MB")
				b.ReportMetric(median(sd.secs, ident), sd.name+"_round-s")
				b.ReportMetric(median(sd.busy, ident), sd.name+"_refused/round")
			}
			b.ReportMetric(median(sides[1].peaks, ident)/median(sides[0].peaks, ident), "peak_after/before")
			b.ReportMetric(median(sides[1].secs, ident)/median(sides[0].secs, ident), "time_after/before")
		})
	}
}

// concurrentCalls sends calls calls of kind k at once, numbered from
// first, each sent again after a SERVER_MEMORY_BUSY refusal once its
// google.rpc.RetryInfo delay has passed, and returns the refusals.
func concurrentCalls(c toolguardv1.ToolGuardServiceClient, k largeUnary, first, calls int) (refused int, err error) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make([]error, calls)
	for i := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := k.request(first + i)
			for {
				err := k.call(c, req)
				delay, busy := memoryBusy(err)
				if !busy {
					errs[i] = err
					return
				}
				mu.Lock()
				refused++
				mu.Unlock()
				time.Sleep(delay)
			}
		}()
	}
	wg.Wait()
	return refused, errors.Join(errs...)
}

// memoryBusy says whether err is a SERVER_MEMORY_BUSY refusal, and when to
// send the call again.
func memoryBusy(err error) (retry time.Duration, busy bool) {
	st := status.Convert(err)
	for _, d := range st.Details() {
		switch d := d.(type) {
		case *errdetails.ErrorInfo:
			busy = st.Code() == codes.ResourceExhausted && d.GetReason() == "SERVER_MEMORY_BUSY"
		case *errdetails.RetryInfo:
			retry = d.GetRetryDelay().AsDuration()
		}
	}
	return retry, busy
}
