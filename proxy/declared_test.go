package proxy

import "testing"

// TestDeclaredToolByAnySpelling: the proxy resolves a call's name by the
// request's tools in the order of docs/api.md ("Which tool a name stands
// for"), the one resolver the gRPC front end uses: write and WRITE are the
// declared Write, sent under its own name.
func TestDeclaredToolByAnySpelling(t *testing.T) {
	python := `{'path': 'a.txt', 'content': 'hi'}`
	for _, api := range []string{"openai", "anthropic"} {
		for _, name := range []string{"write", "WRITE", "Write"} {
			t.Run(api+"/"+name, func(t *testing.T) {
				in := synthStream(api, []synthCall{{index: 0, name: name, frags: []string{python}}}, "tool_calls")
				tp := newTestProxy(t, sseUpstream(in, nil), nil)
				_, body := tp.post(t, apiPath(api), requestBody(api, true, true), nil)
				calls, _ := clientCalls(t, api, body)
				if c := calls[0]; c == nil || c.Name != "Write" || c.Args != `{"content":"hi","path":"a.txt"}` {
					t.Errorf("the client got %+v, want Write with the repaired arguments", c)
				}
			})
		}
	}
}
