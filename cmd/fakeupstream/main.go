// Command fakeupstream is a fake OpenAI- and Anthropic-compatible model server
// for demos and tests of `toolguard proxy`. It replays the recorded-style
// fixtures of proxy/testdata: POST /v1/chat/completions answers with an
// openai/<scenario>, POST /v1/messages with an anthropic/<scenario>; a
// streamed request gets the scenario's response.sse, flushed event by event,
// a non-streamed one its response.json.
//
// The scenario is chosen per request by the X-Fake-Scenario header, else by
// --scenario, else by the request's "model" field (the fixture requests name
// their own scenario as model). See README.md.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/toolguard/toolguard/proxy/proxytest"
)

// apis maps each endpoint to the fixture directory of its wire shape.
var apis = map[string]string{
	"/v1/chat/completions": "openai",
	"/v1/messages":         "anthropic",
}

const maxRequestBody = 32 << 20

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stderr, nil))
}

type config struct {
	listen     string
	fixtures   string
	scenario   string
	delay      time.Duration
	split      bool
	abortAfter int
	seed       uint64
}

// run serves until ctx ends. ready, when set, is told the address once the
// listener is open. The exit status is 0 after a clean shutdown, 2 for a bad
// command line or missing fixtures, 1 when the server fails.
func run(ctx context.Context, args []string, stderr io.Writer, ready func(net.Addr)) int {
	fs := flag.NewFlagSet("fakeupstream", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	fs.StringVar(&c.listen, "listen", "127.0.0.1:8081", "address to listen on (loopback unless you mean otherwise)")
	fs.StringVar(&c.fixtures, "fixtures", "", "fixtures directory (default: proxy/testdata in the current directory or its nearest parent that has one)")
	fs.StringVar(&c.scenario, "scenario", "", "scenario to replay for every request without an X-Fake-Scenario header (default: the request's model field)")
	fs.DurationVar(&c.delay, "delay", 0, "pause between SSE events (per request: X-Fake-Delay)")
	fs.BoolVar(&c.split, "split", false, "write each SSE event in random pieces of 1 to 8 bytes, flushing each (per request: X-Fake-Split: true)")
	fs.IntVar(&c.abortAfter, "abort-after", 0, "drop the connection after this many SSE events, as a crashing upstream would; 0 never (per request: X-Fake-Abort-After)")
	fs.Uint64Var(&c.seed, "seed", 0, "seed of the --split piece sizes (default: random)")
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: fakeupstream [--listen ADDR] [--fixtures DIR] [--scenario NAME] [--delay 20ms] [--split]\n\n"+
			"Replays proxy/testdata fixtures as an OpenAI (POST /v1/chat/completions) and\n"+
			"Anthropic (POST /v1/messages) compatible model server.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "fakeupstream: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	logger := log.New(stderr, "fakeupstream: ", log.LstdFlags|log.Lmicroseconds)

	dir, err := findFixtures(c.fixtures)
	if err != nil {
		fmt.Fprintf(stderr, "fakeupstream: %v\n", err)
		return 2
	}
	scenarios, err := loadScenarios(dir)
	if err != nil {
		fmt.Fprintf(stderr, "fakeupstream: %v\n", err)
		return 2
	}
	if c.scenario != "" {
		found := false
		for api := range scenarios {
			if _, err := lookup(scenarios, api, c.scenario); err == nil {
				found = true
			}
		}
		if !found {
			fmt.Fprintf(stderr, "fakeupstream: --scenario %q: no such scenario in %s (have: %s)\n", c.scenario, dir, strings.Join(allNames(scenarios), ", "))
			return 2
		}
	}
	if c.seed == 0 {
		c.seed = rand.Uint64()
	}

	ln, err := net.Listen("tcp", c.listen)
	if err != nil {
		fmt.Fprintf(stderr, "fakeupstream: %v\n", err)
		return 1
	}
	if !isLoopback(ln.Addr()) {
		logger.Printf("warning: listening on %s, beyond loopback", ln.Addr())
	}
	h := &handler{cfg: c, scenarios: scenarios, log: logger}
	srv := &http.Server{Handler: h.routes(), ReadHeaderTimeout: 10 * time.Second, ErrorLog: logger}
	logger.Printf("listening on http://%s, %d scenarios from %s", ln.Addr(), len(allNames(scenarios)), dir)
	if ready != nil {
		ready(ln.Addr())
	}

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		logger.Printf("serve: %v", err)
		return 1
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		// Streams still running (a long --delay): cut them.
		_ = srv.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		logger.Printf("serve: %v", err)
	}
	logger.Printf("stopped")
	return 0
}

func isLoopback(a net.Addr) bool {
	ta, ok := a.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}

// findFixtures returns the fixtures directory: the one given, or
// proxy/testdata found from the current directory upwards.
func findFixtures(given string) (string, error) {
	if given != "" {
		if fi, err := os.Stat(given); err != nil || !fi.IsDir() {
			return "", fmt.Errorf("fixtures directory %q not found", given)
		}
		return given, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		p := filepath.Join(d, "proxy", "testdata")
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			return p, nil
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return "", fmt.Errorf("fixtures not found: no proxy/testdata in %s or any parent; run from the repository or pass --fixtures DIR", wd)
}

// scenarioSet holds the fixtures by API and short name, read into memory at
// start-up.
type scenarioSet map[string]map[string]*proxytest.Scenario

// loadScenarios reads the fixtures under dir (see proxytest.Load).
func loadScenarios(dir string) (scenarioSet, error) {
	all, err := proxytest.Load(dir)
	if err != nil {
		return nil, err
	}
	out := scenarioSet{}
	for _, api := range proxytest.APIs {
		out[api] = map[string]*proxytest.Scenario{}
	}
	for _, s := range all {
		out[s.API][s.Short] = s
	}
	return out, nil
}

func allNames(s scenarioSet) []string {
	var out []string
	for _, m := range s {
		for _, sc := range m {
			out = append(out, sc.Name)
		}
	}
	sort.Strings(out)
	return out
}

func namesOf(m map[string]*proxytest.Scenario) []string {
	var out []string
	for n := range m {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

var errWrongAPI = errors.New("wrong API")

// lookup resolves a scenario name for an API: "python_dict_todowrite" or
// "openai/python_dict_todowrite".
func lookup(s scenarioSet, api, name string) (*proxytest.Scenario, error) {
	if a, n, ok := strings.Cut(name, "/"); ok {
		if _, known := s[a]; known && a != api {
			return nil, errWrongAPI
		}
		if a == api {
			name = n
		}
	}
	if sc := s[api][name]; sc != nil {
		return sc, nil
	}
	return nil, os.ErrNotExist
}

type handler struct {
	cfg       config
	scenarios scenarioSet
	log       *log.Logger
	requests  atomic.Int64
}

func (h *handler) routes() http.Handler {
	mux := http.NewServeMux()
	for path, api := range apis {
		mux.HandleFunc("POST "+path, func(w http.ResponseWriter, r *http.Request) { h.serve(w, r, api) })
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		api := "openai"
		if strings.HasPrefix(r.URL.Path, "/v1/messages") {
			api = "anthropic"
		}
		if _, ok := apis[r.URL.Path]; ok {
			h.log.Printf("%s %s: method not allowed", r.Method, r.URL.Path)
			w.Header().Set("Allow", http.MethodPost)
			apiError(w, api, http.StatusMethodNotAllowed, "invalid_request_error", fmt.Sprintf("%s takes POST, not %s", r.URL.Path, r.Method))
			return
		}
		h.log.Printf("%s %s: no such endpoint", r.Method, r.URL.Path)
		apiError(w, api, http.StatusNotFound, "not_found_error", fmt.Sprintf("fakeupstream serves POST /v1/chat/completions and POST /v1/messages, not %s %s", r.Method, r.URL.Path))
	})
	return mux
}

// apiError writes an error in the API's own shape.
func apiError(w http.ResponseWriter, api string, status int, typ, msg string) {
	var body any
	if api == "anthropic" {
		body = map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}}
	} else {
		body = map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": nil}}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

func (h *handler) serve(w http.ResponseWriter, r *http.Request, api string) {
	n := h.requests.Add(1)
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRequestBody))
	if err != nil {
		h.log.Printf("#%d %s %s: reading the body: %v", n, r.Method, r.URL.Path, err)
		apiError(w, api, http.StatusBadRequest, "invalid_request_error", "cannot read the request body: "+err.Error())
		return
	}
	var req struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		h.log.Printf("#%d %s %s: body is not JSON: %v", n, r.Method, r.URL.Path, err)
		apiError(w, api, http.StatusBadRequest, "invalid_request_error", "the request body is not JSON: "+err.Error())
		return
	}

	name, from := r.Header.Get("X-Fake-Scenario"), "header"
	if name == "" {
		name, from = h.cfg.scenario, "flag"
	}
	if name == "" {
		name, from = req.Model, "model"
	}
	sc, err := lookup(h.scenarios, api, name)
	if err != nil {
		msg := fmt.Sprintf("fakeupstream: no %s scenario %q (from the %s); have: %s", api, name, from, strings.Join(namesOf(h.scenarios[api]), ", "))
		status, typ := http.StatusNotFound, "not_found_error"
		if errors.Is(err, errWrongAPI) {
			msg = fmt.Sprintf("fakeupstream: scenario %q (from the %s) is not a %s scenario; %s serves %s/<name>", name, from, api, r.URL.Path, api)
			status, typ = http.StatusBadRequest, "invalid_request_error"
		}
		h.log.Printf("#%d %s %s scenario=%q (%s) stream=%v: %s", n, r.Method, r.URL.Path, name, from, req.Stream, http.StatusText(status))
		apiError(w, api, status, typ, msg)
		return
	}

	opts, err := h.options(r)
	if err != nil {
		h.log.Printf("#%d %s %s scenario=%s: %v", n, r.Method, r.URL.Path, sc.Name, err)
		apiError(w, api, http.StatusBadRequest, "invalid_request_error", "fakeupstream: "+err.Error())
		return
	}
	w.Header().Set("X-Request-Id", fmt.Sprintf("fake-%d", n))
	w.Header().Set("X-Fake-Scenario", sc.Name)
	for k, v := range sc.Headers {
		w.Header().Set(k, v)
	}

	start := time.Now()
	switch {
	case sc.Status >= 400 || !req.Stream:
		if sc.JSON == nil {
			h.log.Printf("#%d %s %s scenario=%s (%s) stream=false: the scenario is streamed only", n, r.Method, r.URL.Path, sc.Name, from)
			apiError(w, api, http.StatusBadRequest, "invalid_request_error", fmt.Sprintf("fakeupstream: scenario %s has no non-streamed response; send \"stream\": true", sc.Name))
			return
		}
		h.log.Printf("#%d %s %s scenario=%s (%s) stream=%v status=%d bytes=%d", n, r.Method, r.URL.Path, sc.Name, from, req.Stream, sc.Status, len(sc.JSON))
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(sc.JSON)))
		w.WriteHeader(sc.Status)
		_, _ = w.Write(sc.JSON)
	default:
		if sc.SSE == nil {
			h.log.Printf("#%d %s %s scenario=%s (%s) stream=true: the scenario is non-streamed only", n, r.Method, r.URL.Path, sc.Name, from)
			apiError(w, api, http.StatusBadRequest, "invalid_request_error", fmt.Sprintf("fakeupstream: scenario %s has no streamed response; send \"stream\": false", sc.Name))
			return
		}
		events := proxytest.SplitEvents(sc.SSE)
		h.log.Printf("#%d %s %s scenario=%s (%s) stream=true events=%d delay=%s split=%v", n, r.Method, r.URL.Path, sc.Name, from, len(events), opts.delay, opts.split)
		sent, err := h.stream(w, r, events, opts, n)
		switch {
		case err != nil:
			h.log.Printf("#%d scenario=%s: stopped after %d of %d events: %v", n, sc.Name, sent, len(events), err)
		default:
			h.log.Printf("#%d scenario=%s: %d events in %s", n, sc.Name, sent, time.Since(start).Round(time.Millisecond))
		}
	}
}

type streamOptions struct {
	delay      time.Duration
	split      bool
	abortAfter int
}

// options reads the per-request overrides of the command-line settings.
func (h *handler) options(r *http.Request) (streamOptions, error) {
	o := streamOptions{delay: h.cfg.delay, split: h.cfg.split, abortAfter: h.cfg.abortAfter}
	if v := r.Header.Get("X-Fake-Delay"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return o, fmt.Errorf("X-Fake-Delay: %q is not a duration such as 20ms", v)
		}
		o.delay = d
	}
	if v := r.Header.Get("X-Fake-Split"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return o, fmt.Errorf("X-Fake-Split: %q is not true or false", v)
		}
		o.split = b
	}
	if v := r.Header.Get("X-Fake-Abort-After"); v != "" {
		k, err := strconv.Atoi(v)
		if err != nil || k < 0 {
			return o, fmt.Errorf("X-Fake-Abort-After: %q is not a count of events", v)
		}
		o.abortAfter = k
	}
	return o, nil
}

// stream writes the events, flushing after each (after each piece with
// split), and returns how many went out.
func (h *handler) stream(w http.ResponseWriter, r *http.Request, events [][]byte, o streamOptions, n int64) (int, error) {
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	if err := rc.Flush(); err != nil {
		return 0, err
	}
	rng := rand.New(rand.NewPCG(h.cfg.seed, uint64(n)))
	ctx := r.Context()
	for i, ev := range events {
		if o.abortAfter > 0 && i == o.abortAfter {
			h.log.Printf("#%d: dropping the connection after %d events", n, i)
			// Ends the handler without finishing the response: the client
			// sees the connection close mid-body.
			panic(http.ErrAbortHandler)
		}
		if i > 0 && o.delay > 0 {
			t := time.NewTimer(o.delay)
			select {
			case <-ctx.Done():
				t.Stop()
				return i, fmt.Errorf("client gone: %w", context.Cause(ctx))
			case <-t.C:
			}
		}
		pieces := [][]byte{ev}
		if o.split {
			pieces = splitRandom(ev, rng)
		}
		for _, p := range pieces {
			if _, err := w.Write(p); err != nil {
				return i, fmt.Errorf("client gone: %w", err)
			}
			if err := rc.Flush(); err != nil {
				return i, fmt.Errorf("client gone: %w", err)
			}
		}
		if err := ctx.Err(); err != nil {
			return i + 1, fmt.Errorf("client gone: %w", err)
		}
	}
	return len(events), nil
}

// splitRandom cuts b into pieces of 1 to 8 bytes, with no regard for UTF-8
// or lines: what TCP may deliver.
func splitRandom(b []byte, rng *rand.Rand) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		k := min(1+rng.IntN(8), len(b))
		out = append(out, b[:k])
		b = b[k:]
	}
	return out
}
