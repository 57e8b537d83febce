// Command load drives a running toolguard server with a mix of every RPC
// from many concurrent callers and reports throughput, latency percentiles
// per RPC and errors. scripts/load.sh starts a server on loopback, runs
// this against it and reports the server's resident memory before and
// after.
//
//	go run ./bench/load -addr 127.0.0.1:7700 -calls 100000 -concurrency 50
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/resolver"
	"google.golang.org/grpc/resolver/manual"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:7700", "server `address` (loopback); several, comma-separated, are replicas called round-robin")
	calls := flag.Int("calls", 100_000, "total `number` of calls")
	concurrency := flag.Int("concurrency", 50, "concurrent callers")
	maxTime := flag.Duration("max-time", 10*time.Minute, "stop after this `duration` even if calls remain")
	token := flag.String("token", os.Getenv("TOOLGUARD_LOAD_TOKEN"), "bearer `token`, when the server requires one")
	flag.Parse()
	if err := run(*addr, *calls, *concurrency, *maxTime, *token); err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}

// rpc is one kind of call in the mix, with its share of the calls.
type rpc struct {
	name   string
	weight int
	call   func(ctx context.Context, c toolguardv1.ToolGuardServiceClient, caller, n int, s *sessionCount) error
}

// sessionCount follows one caller's session: its calls are sequential, so
// the consecutive mistakes each answer reports are known in advance, whichever
// replica answers. A difference means a count lost or doubled.
type sessionCount struct {
	want       uint32
	mismatches int
	firstDiff  string
}

// verdict checks a verdict's count and moves the expectation on: a usable
// call resets it, any other adds one.
func (s *sessionCount) verdict(what string, v *toolguardv1.Verdict) {
	if v.GetOk() {
		s.want = 0
	} else {
		s.want++
	}
	s.check(what, v.GetMistakes().GetConsecutive())
}

func (s *sessionCount) check(what string, got uint32) {
	if got != s.want {
		s.mismatches++
		if s.firstDiff == "" {
			s.firstDiff = fmt.Sprintf("%s reported %d consecutive mistakes, want %d", what, got, s.want)
		}
		s.want = got // one difference, not every call after it
	}
}

// mix is what agents do: mostly validation, then executions, session
// reads, streams, and the occasional tool listing and reset.
var mix = []rpc{
	{"ValidateToolCall/valid", 30, validate(`{"path": "src/a.py", "content": "print(1)\n"}`)},
	{"ValidateToolCall/repaired", 20, validate(`{'file_path': 'src/a.py', 'text': 'print(1)\n', }`)},
	{"ValidateToolCall/mistake", 10, validate(`{"file_path": "src/a.py"}`)},
	{"ExecuteWrite", 10, executeWrite},
	{"ExecuteEdit", 8, executeEdit},
	{"StreamToolCalls", 8, streamCall},
	{"GetSession", 8, getSession},
	{"ResetSession", 3, resetSession},
	{"ListTools", 3, listTools},
}

func session(caller int) string { return fmt.Sprintf("load-%d", caller) }

func validate(args string) func(context.Context, toolguardv1.ToolGuardServiceClient, int, int, *sessionCount) error {
	return func(ctx context.Context, c toolguardv1.ToolGuardServiceClient, caller, n int, s *sessionCount) error {
		resp, err := c.ValidateToolCall(ctx, &toolguardv1.ValidateToolCallRequest{
			Context: &toolguardv1.RequestContext{SessionId: session(caller), ModelId: "deepseek-chat"},
			Call:    &toolguardv1.ToolCall{Name: "Write", Arguments: &toolguardv1.ToolCall_ArgumentsText{ArgumentsText: args}},
		})
		if err == nil {
			s.verdict("ValidateToolCall", resp.GetVerdict())
		}
		return err
	}
}

// Each caller writes and edits its own file, so calls never race on one.
func callerFile(caller int) string { return fmt.Sprintf("load/caller-%d.txt", caller) }

func executeWrite(ctx context.Context, c toolguardv1.ToolGuardServiceClient, caller, n int, s *sessionCount) error {
	args, _ := json.Marshal(map[string]string{"path": callerFile(caller), "content": fmt.Sprintf("call %d\nline two\n", n)})
	resp, err := c.ExecuteWrite(ctx, &toolguardv1.ExecuteWriteRequest{
		Context: &toolguardv1.RequestContext{SessionId: session(caller)},
		Call:    &toolguardv1.ToolCall{Name: "write_to_file", Arguments: &toolguardv1.ToolCall_ArgumentsText{ArgumentsText: string(args)}},
	})
	if err != nil {
		return err
	}
	s.verdict("ExecuteWrite", resp.GetVerdict())
	if !resp.GetVerdict().GetOk() {
		return fmt.Errorf("write refused: %v", resp.GetVerdict().GetViolations())
	}
	return nil
}

func executeEdit(ctx context.Context, c toolguardv1.ToolGuardServiceClient, caller, n int, s *sessionCount) error {
	// The file may not exist yet (no write so far for this caller): an
	// EDIT_NOT_FOUND verdict is an answer, not an error.
	args, _ := json.Marshal(map[string]string{"path": callerFile(caller), "old_text": "line two", "new_text": "line 2"})
	resp, err := c.ExecuteEdit(ctx, &toolguardv1.ExecuteEditRequest{
		Context: &toolguardv1.RequestContext{SessionId: session(caller)},
		Call:    &toolguardv1.ToolCall{Name: "edit", Arguments: &toolguardv1.ToolCall_ArgumentsText{ArgumentsText: string(args)}},
	})
	if err == nil {
		s.verdict("ExecuteEdit", resp.GetVerdict())
	}
	return err
}

func streamCall(ctx context.Context, c toolguardv1.ToolGuardServiceClient, caller, n int, s *sessionCount) error {
	st, err := c.StreamToolCalls(ctx)
	if err != nil {
		return err
	}
	// The content differs per call: the same call three times in a row in
	// one session would rightly be a REPEATED_CALL mistake.
	text := fmt.Sprintf("Writing it.\n<write_to_file>\n<path>load/stream-%d.txt</path>\n<content>\ncall %d %s\n</content>\n</write_to_file>\nDone.", caller, n, strings.Repeat("x", 200))
	frames := []*toolguardv1.StreamToolCallsRequest{{Frame: &toolguardv1.StreamToolCallsRequest_Start{Start: &toolguardv1.StreamStart{
		Context: &toolguardv1.RequestContext{SessionId: session(caller)}, Format: toolguardv1.StreamFormat_STREAM_FORMAT_XML_TAGS}}}}
	for i := 0; i < len(text); i += 24 {
		frames = append(frames, &toolguardv1.StreamToolCallsRequest{Frame: &toolguardv1.StreamToolCallsRequest_Delta{Delta: &toolguardv1.StreamDelta{Text: text[i:min(i+24, len(text))]}}})
	}
	frames = append(frames, &toolguardv1.StreamToolCallsRequest{Frame: &toolguardv1.StreamToolCallsRequest_End{End: &toolguardv1.StreamEnd{FinishReason: "stop"}}})
	for _, f := range frames {
		if err := st.Send(f); err != nil {
			return err
		}
	}
	if err := st.CloseSend(); err != nil {
		return err
	}
	complete := false
	for {
		ev, err := st.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if cc := ev.GetCallComplete(); cc != nil {
			complete = cc.GetVerdict().GetOk()
			s.verdict("StreamToolCalls", cc.GetVerdict())
		}
	}
	if !complete {
		return errors.New("stream: no usable call_complete")
	}
	return nil
}

func getSession(ctx context.Context, c toolguardv1.ToolGuardServiceClient, caller, n int, s *sessionCount) error {
	resp, err := c.GetSession(ctx, &toolguardv1.GetSessionRequest{SessionId: session(caller)})
	if err == nil {
		s.check("GetSession", resp.GetSession().GetMistakes().GetConsecutive())
	}
	return err
}

func resetSession(ctx context.Context, c toolguardv1.ToolGuardServiceClient, caller, n int, s *sessionCount) error {
	_, err := c.ResetSession(ctx, &toolguardv1.ResetSessionRequest{SessionId: session(caller)})
	if err == nil {
		s.want = 0
	}
	return err
}

func listTools(ctx context.Context, c toolguardv1.ToolGuardServiceClient, caller, n int, _ *sessionCount) error {
	_, err := c.ListTools(ctx, &toolguardv1.ListToolsRequest{ModelId: "gpt-5"})
	return err
}

// pick returns the rpc for call number n: a fixed interleaving of the mix.
func pick(n int) *rpc {
	total := 0
	for _, r := range mix {
		total += r.weight
	}
	k := (n * 7919) % total // a prime stride spreads the kinds evenly
	for i := range mix {
		if k < mix[i].weight {
			return &mix[i]
		}
		k -= mix[i].weight
	}
	return &mix[0]
}

type result struct {
	session   sessionCount
	latencies map[string][]time.Duration
	errors    map[string]int
	firstErr  map[string]error
}

func run(addr string, calls, concurrency int, maxTime time.Duration, token string) error {
	// Several addresses are replicas of one service: the calls go round-robin.
	addrs := strings.Split(addr, ",")
	var resolved []resolver.Address
	for _, a := range addrs {
		if !strings.HasPrefix(a, "127.") && !strings.HasPrefix(a, "localhost:") && !strings.HasPrefix(a, "[::1]:") {
			return fmt.Errorf("address %s is not loopback: the load run only targets a local server", a)
		}
		resolved = append(resolved, resolver.Address{Addr: a})
	}
	r := manual.NewBuilderWithScheme("load")
	r.InitialState(resolver.State{Addresses: resolved})
	conn, err := grpc.NewClient(r.Scheme()+":///toolguard", grpc.WithResolvers(r),
		grpc.WithDefaultServiceConfig(`{"loadBalancingConfig": [{"round_robin": {}}]}`),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64<<20)))
	if err != nil {
		return err
	}
	defer func() { _ = conn.Close() }()
	client := toolguardv1.NewToolGuardServiceClient(conn)
	base := context.Background()
	if token != "" {
		base = metadata.AppendToOutgoingContext(base, "authorization", "Bearer "+token)
	}
	ctx, cancel := context.WithTimeout(base, maxTime)
	defer cancel()

	var next atomic.Int64
	results := make([]result, concurrency)
	var wg sync.WaitGroup
	start := time.Now()
	for w := range concurrency {
		results[w] = result{latencies: map[string][]time.Duration{}, errors: map[string]int{}, firstErr: map[string]error{}}
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := &results[w]
			// The session's count starts from zero, whatever an earlier run left.
			if _, err := client.ResetSession(ctx, &toolguardv1.ResetSessionRequest{SessionId: session(w)}); err != nil {
				r.errors["ResetSession/start"]++
				r.firstErr["ResetSession/start"] = err
			}
			for {
				n := int(next.Add(1)) - 1
				if n >= calls || ctx.Err() != nil {
					return
				}
				kind := pick(n)
				callCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
				t0 := time.Now()
				err := kind.call(callCtx, client, w, n, &r.session)
				d := time.Since(t0)
				cancel()
				r.latencies[kind.name] = append(r.latencies[kind.name], d)
				if err != nil {
					r.errors[kind.name]++
					if r.firstErr[kind.name] == nil {
						r.firstErr[kind.name] = err
					}
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)

	all := map[string][]time.Duration{}
	errs := map[string]int{}
	firstErr := map[string]error{}
	var every []time.Duration
	for _, r := range results {
		for k, v := range r.latencies {
			all[k] = append(all[k], v...)
			every = append(every, v...)
		}
		for k, v := range r.errors {
			errs[k] += v
			if firstErr[k] == nil {
				firstErr[k] = r.firstErr[k]
			}
		}
	}
	done := len(every)
	totalErrs := 0
	fmt.Printf("calls %d in %.2fs at concurrency %d: %.0f calls/s\n", done, elapsed.Seconds(), concurrency, float64(done)/elapsed.Seconds())
	fmt.Printf("%-28s %8s %9s %9s %9s %7s\n", "rpc", "calls", "p50", "p99", "max", "errors")
	names := make([]string, 0, len(all))
	for k := range all {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		p50, p99, mx := percentiles(all[k])
		fmt.Printf("%-28s %8d %9s %9s %9s %7d\n", k, len(all[k]), p50, p99, mx, errs[k])
		totalErrs += errs[k]
	}
	for k, v := range errs {
		if _, ok := all[k]; !ok {
			fmt.Printf("%-28s %8s %9s %9s %9s %7d\n", k, "", "", "", "", v)
			totalErrs += v
		}
	}
	p50, p99, mx := percentiles(every)
	fmt.Printf("%-28s %8d %9s %9s %9s %7d\n", "all", done, p50, p99, mx, totalErrs)
	for k, err := range firstErr {
		fmt.Printf("first error of %s: %v\n", k, err)
	}
	mismatches := 0
	for _, r := range results {
		if r.session.mismatches > 0 && mismatches == 0 {
			fmt.Printf("first session count difference: %s\n", r.session.firstDiff)
		}
		mismatches += r.session.mismatches
	}
	fmt.Printf("session counts: %d callers, %d differences from the expected count\n", concurrency, mismatches)
	if done < calls {
		return fmt.Errorf("only %d of %d calls ran within %s", done, calls, maxTime)
	}
	if totalErrs > 0 {
		return fmt.Errorf("%d errors", totalErrs)
	}
	if mismatches > 0 {
		return fmt.Errorf("%d session counts differ from the expected", mismatches)
	}
	return nil
}

func percentiles(ds []time.Duration) (p50, p99, mx time.Duration) {
	if len(ds) == 0 {
		return 0, 0, 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	at := func(q float64) time.Duration { return s[min(len(s)-1, int(q*float64(len(s))))].Round(time.Microsecond) }
	return at(0.50), at(0.99), s[len(s)-1].Round(time.Microsecond)
}
