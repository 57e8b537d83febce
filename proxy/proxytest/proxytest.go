// Package proxytest reads the proxy's fixtures (proxy/testdata, see its
// README) for the proxy's tests and the fake upstream (cmd/fakeupstream), and
// reads streams as a strict client does.
package proxytest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
)

// APIs are the wire shapes, as the fixture directories name them.
var APIs = []string{"openai", "anthropic"}

// Scenario is one fixture directory, <dir>/<api>/<short>/.
type Scenario struct {
	Name  string // "openai/python_dict_todowrite"
	API   string // "openai" or "anthropic"
	Short string // "python_dict_todowrite"
	// Request is request.json: the client's request.
	Request []byte
	// SSE is response.sse, JSON response.json (or an error's body); a
	// scenario has at least one.
	SSE, JSON []byte
	// Status and Headers are the answer's, from upstream.json.
	Status  int
	Headers map[string]string
	// Expect is expect.json, nil when absent (in a demo's scenario).
	Expect *Expectation
}

// Path is the endpoint the scenario's request is posted to.
func (s *Scenario) Path() string {
	if s.API == "anthropic" {
		return "/v1/messages"
	}
	return "/v1/chat/completions"
}

// Expectation is what the proxy must produce from a scenario.
type Expectation struct {
	Scenario       string `json:"scenario"`
	API            string `json:"api"`
	Stream         bool   `json:"stream"`
	Checks         string `json:"checks"`
	ByteIdentical  bool   `json:"byte_identical"`
	FinishReason   string `json:"finish_reason"`
	StopReason     string `json:"stop_reason"`
	UpstreamStatus int    `json:"upstream_status"`
	Calls          []struct {
		Index             int             `json:"index"`
		ID                string          `json:"id"`
		UpstreamName      string          `json:"upstream_name"`
		Name              string          `json:"name"`
		UpstreamArguments string          `json:"upstream_arguments"`
		Arguments         json.RawMessage `json:"arguments"`
		Unchanged         bool            `json:"unchanged"`
		Truncated         bool            `json:"truncated"`
		Note              string          `json:"note"`
	} `json:"calls"`
}

// Load reads every scenario under dir, sorted by name; expect.json is
// decoded strictly. No scenario at all is an error.
func Load(dir string) ([]*Scenario, error) {
	var out []*Scenario
	for _, api := range APIs {
		entries, err := os.ReadDir(filepath.Join(dir, api))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if !e.IsDir() {
				continue
			}
			s, err := load(filepath.Join(dir, api, e.Name()), api, e.Name())
			if err != nil {
				return nil, fmt.Errorf("scenario %s/%s: %w", api, e.Name(), err)
			}
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no scenarios in %s (expected openai/<name>/ and anthropic/<name>/ directories)", dir)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func load(dir, api, short string) (*Scenario, error) {
	s := &Scenario{Name: api + "/" + short, API: api, Short: short, Status: http.StatusOK}
	var err error
	if s.Request, err = os.ReadFile(filepath.Join(dir, "request.json")); err != nil {
		return nil, fmt.Errorf("no request.json: %w", err)
	}
	if s.SSE, err = readOptional(filepath.Join(dir, "response.sse")); err != nil {
		return nil, err
	}
	if s.JSON, err = readOptional(filepath.Join(dir, "response.json")); err != nil {
		return nil, err
	}
	if s.SSE == nil && s.JSON == nil {
		return nil, errors.New("neither response.sse nor response.json")
	}
	if up, err := readOptional(filepath.Join(dir, "upstream.json")); err != nil {
		return nil, err
	} else if up != nil {
		var meta struct {
			Status  int               `json:"status"`
			Headers map[string]string `json:"headers"`
		}
		if err := json.Unmarshal(up, &meta); err != nil {
			return nil, fmt.Errorf("upstream.json: %w", err)
		}
		if meta.Status != 0 {
			s.Status = meta.Status
		}
		s.Headers = meta.Headers
	}
	if s.Status >= 400 && s.JSON == nil {
		return nil, errors.New("an error status needs a response.json")
	}
	if raw, err := readOptional(filepath.Join(dir, "expect.json")); err != nil {
		return nil, err
	} else if raw != nil {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		s.Expect = new(Expectation)
		if err := dec.Decode(s.Expect); err != nil {
			return nil, fmt.Errorf("expect.json: %w", err)
		}
	}
	return s, nil
}

func readOptional(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return b, err
}

// SplitEvents cuts a whole SSE body after each blank line, keeping every
// byte; bytes after the last blank line form a last event. It reads line by
// line, as the format describes it, so that the proxy's own framing can be
// checked against it.
func SplitEvents(b []byte) [][]byte {
	var out [][]byte
	start, lineStart := 0, 0
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '\n' && c != '\r' {
			continue
		}
		end := i + 1
		if c == '\r' && end < len(b) && b[end] == '\n' {
			end++
		}
		blank := i == lineStart
		i = end - 1
		lineStart = end
		if blank {
			out = append(out, b[start:end])
			start = end
		}
	}
	if start < len(b) {
		out = append(out, b[start:])
	}
	return out
}
