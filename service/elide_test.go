package service_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/toolguard/toolguard/edit"
	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/service"
)

// These tests change a file of exactly --max-file-bytes on a server whose
// send limit is half that: the answer must still arrive, with the content
// and the diff elided, because the change was made.

const (
	elideFileBytes = 2 << 20
	elideSendBytes = 1 << 20
)

// lines returns n bytes of 64-byte lines of c.
func lines(c byte, n int) string {
	line := strings.Repeat(string(c), 63) + "\n"
	return strings.Repeat(line, n/len(line)) + line[:n%len(line)]
}

func marker(s string) string {
	return "<elided " + itoa(len(s)) + " bytes sha256:" + sha(s) + ">"
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// wantElided checks the answer to a change: under the send limit, each
// value of elided out of the arguments (both forms) with its size and
// hash, the diff elided likewise.
func wantElided(t *testing.T, resp proto.Message, v *toolguardv1.Verdict, elided map[string]string, diff string, diffElided *toolguardv1.Elision) {
	t.Helper()
	if size := proto.Size(resp); size >= elideSendBytes {
		t.Errorf("response is %d bytes, the send limit %d", size, elideSendBytes)
	}
	if !v.GetOk() {
		t.Fatalf("verdict %v", v.GetViolations())
	}
	got := map[string]*toolguardv1.Elision{}
	for _, e := range v.GetElided() {
		got[e.GetField()] = e
	}
	for field, value := range elided {
		e := got[field]
		if e.GetSize() != uint64(len(value)) || e.GetSha256() != sha(value) {
			t.Errorf("elided %s = %v, want size %d sha256 %s", field, e, len(value), sha(value))
		}
		if s := argAt(v.GetArguments().AsMap(), field); s != marker(value) {
			t.Errorf("arguments %s = %.100q, want the marker", field, s)
		}
		if !strings.Contains(v.GetArgumentsJson(), marker(value)) {
			t.Errorf("arguments_json lacks the marker of %s", field)
		}
	}
	if len(got) != len(elided) {
		t.Errorf("elided %v, want %d entries", v.GetElided(), len(elided))
	}
	if diff != "" || diffElided.GetField() != "diff" || diffElided.GetSha256() == "" {
		t.Errorf("diff %d bytes, diff_elided %v", len(diff), diffElided)
	}
}

// argAt returns the string at a parameter path ("edits/0/new_text").
func argAt(v any, path string) string {
	for _, k := range strings.Split(path, "/") {
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			i := 0
			_ = json.Unmarshal([]byte(k), &i)
			v = x[i]
		}
	}
	s, _ := v.(string)
	return s
}

func TestExecuteAtMaxFileBytes(t *testing.T) {
	c, ws := startWorkspace(t, service.Config{Config: guard.Config{MaxFileBytes: elideFileBytes}, MaxSendMsgBytes: elideSendBytes})
	ctx := context.Background()
	old, updated := lines('a', elideFileBytes), lines('b', elideFileBytes)
	small := "x\n"
	grown := lines('c', elideFileBytes-1)
	tests := []struct {
		name   string
		edit   bool
		dryRun bool
		// from is the file before a write: old, "" (empty) or absent.
		from string
	}{
		{"write", false, false, "old"},
		{"write dry run", false, true, "old"},
		{"write created", false, false, "absent"},
		{"write into an empty file", false, false, ""},
		{"edit", true, false, "old"},
		{"edit dry run", true, true, "old"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(ws, strings.ReplaceAll(tc.name, " ", "_")+".txt")
			rel := filepath.Base(file)
			rc := &toolguardv1.RequestContext{SessionId: tc.name}
			var before, after string
			var resp proto.Message
			var v *toolguardv1.Verdict
			var diff string
			var diffElided *toolguardv1.Elision
			var elided map[string]string
			if !tc.edit {
				before, after = old, updated
				switch tc.from {
				case "absent":
					before = ""
				case "":
					before = ""
					writeFile(t, file, before)
				default:
					writeFile(t, file, before)
				}
				r, err := c.ExecuteWrite(ctx, &toolguardv1.ExecuteWriteRequest{Context: rc, DryRun: tc.dryRun,
					Call: jsonCall(t, "write_to_file", map[string]any{"path": rel, "content": after})})
				if err != nil {
					t.Fatalf("the write must be answered: %v", err)
				}
				resp, v, diff, diffElided = r, r.GetVerdict(), r.GetDiff(), r.GetDiffElided()
				elided = map[string]string{"content": after}
				if r.GetChange().GetSha256() != sha(after) || r.GetChange().GetSize() != elideFileBytes {
					t.Errorf("change %v", r.GetChange())
				}
			} else {
				// An edit whose new text makes the file exactly the limit.
				before, after = small, grown+"\n"
				writeFile(t, file, before)
				r, err := c.ExecuteEdit(ctx, &toolguardv1.ExecuteEditRequest{Context: rc, DryRun: tc.dryRun,
					Call: jsonCall(t, "multi_edit", map[string]any{"path": rel, "edits": []any{
						map[string]any{"old_text": "x", "new_text": grown}}})})
				if err != nil {
					t.Fatalf("the edit must be answered: %v", err)
				}
				resp, v, diff, diffElided = r, r.GetVerdict(), r.GetDiff(), r.GetDiffElided()
				elided = map[string]string{"edits/0/old_text": "x", "edits/0/new_text": grown}
				if r.GetApplied() == tc.dryRun || len(r.GetChanges()) != 1 || r.GetChanges()[0].GetSize() != elideFileBytes {
					t.Errorf("applied %v changes %v", r.GetApplied(), r.GetChanges())
				}
			}
			wantElided(t, resp, v, elided, diff, diffElided)
			from := rel
			if tc.from == "absent" {
				from = "" // a created file's diff is from /dev/null
			}
			wantDiff := edit.UnifiedDiff(from, rel, before, after)
			if diffElided.GetSize() != uint64(len(wantDiff)) || diffElided.GetSha256() != sha(wantDiff) {
				t.Errorf("diff_elided %v, want size %d sha256 %s", diffElided, len(wantDiff), sha(wantDiff))
			}
			want := after
			if tc.dryRun {
				want = before
			}
			if readFile(t, file) != want {
				t.Errorf("file on disk is not the %s one", map[bool]string{true: "old", false: "new"}[tc.dryRun])
			}
		})
	}
}

// A stream that executes calls as they complete answers them the same way.
func TestStreamExecuteAtMaxFileBytes(t *testing.T) {
	c, ws := startWorkspace(t, service.Config{Config: guard.Config{MaxFileBytes: elideFileBytes}, MaxSendMsgBytes: elideSendBytes})
	file := filepath.Join(ws, "big.txt")
	old, updated := lines('a', elideFileBytes), lines('b', elideFileBytes)
	writeFile(t, file, old)
	args, err := json.Marshal(map[string]any{"path": "big.txt", "content": updated})
	if err != nil {
		t.Fatal(err)
	}
	frames := slices.Concat(
		[]*toolguardv1.StreamToolCallsRequest{startFrame("s", toolguardv1.StreamFormat_STREAM_FORMAT_OPENAI, &toolguardv1.StreamOptions{ExecuteOnComplete: true})},
		argFrames(0, "call_1", "write_to_file", string(args), 256<<10),
		[]*toolguardv1.StreamToolCallsRequest{endFrame("tool_calls")})
	events, err := streamRun(t, c, frames)
	if err != nil {
		t.Fatalf("the stream must go on: %v", err)
	}
	var complete *toolguardv1.StreamToolCallsResponse
	for _, ev := range events {
		if ev.GetCallComplete() != nil {
			complete = ev
		}
	}
	ex := complete.GetCallComplete().GetExecution()
	if ex == nil || !ex.GetApplied() {
		t.Fatalf("call_complete %v", complete)
	}
	wantElided(t, complete, complete.GetCallComplete().GetVerdict(), map[string]string{"content": updated}, ex.GetDiff(), ex.GetDiffElided())
	if d := edit.UnifiedDiff("big.txt", "big.txt", old, updated); ex.GetDiffElided().GetSha256() != sha(d) {
		t.Errorf("diff_elided %v", ex.GetDiffElided())
	}
	if readFile(t, file) != updated {
		t.Error("file on disk is not the new one")
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestExecuteManyEditsFits: edits many enough that their elided values
// alone would not fit make the answer elide the whole list; more files
// than an answer can report are refused before anything is written.
func TestExecuteManyEditsFits(t *testing.T) {
	const send = 64 << 10
	c, ws := startWorkspace(t, service.Config{MaxSendMsgBytes: send})
	var content strings.Builder
	var edits []any
	for i := range 150 {
		fmt.Fprintf(&content, "line %d\n", i)
		edits = append(edits, map[string]any{"old_text": fmt.Sprintf("line %d\n", i), "new_text": fmt.Sprintf("LINE %d\n", i)})
	}
	writeFile(t, filepath.Join(ws, "many.txt"), content.String())
	var patch strings.Builder
	patch.WriteString("*** Begin Patch\n")
	for i := range 400 {
		fmt.Fprintf(&patch, "*** Add File: added/file-%04d.txt\n+x\n", i)
	}
	patch.WriteString("*** End Patch\n")
	tests := []struct {
		name     string
		call     *toolguardv1.ToolCall
		wantOK   bool
		elided   []string
		wantFile string // a file the call creates or changes
	}{
		{"150 edits", jsonCall(t, "multi_edit", map[string]any{"path": "many.txt", "edits": edits}), true, []string{"edits"}, "many.txt"},
		{"400 new files", jsonCall(t, "apply_patch", map[string]any{"patch": patch.String()}), false, []string{"patch"}, "added/file-0000.txt"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := c.ExecuteEdit(context.Background(), &toolguardv1.ExecuteEditRequest{Context: &toolguardv1.RequestContext{SessionId: tc.name}, Call: tc.call})
			if err != nil {
				t.Fatalf("the call must be answered: %v", err)
			}
			v := resp.GetVerdict()
			if size := proto.Size(resp); size >= send {
				t.Errorf("response is %d bytes, the send limit %d", size, send)
			}
			var got []string
			for _, e := range v.GetElided() {
				got = append(got, e.GetField())
			}
			if v.GetOk() != tc.wantOK || resp.GetApplied() != tc.wantOK || !slices.Equal(got, tc.elided) {
				t.Fatalf("ok %v applied %v elided %v violations %v", v.GetOk(), resp.GetApplied(), got, violationCodes(v))
			}
			_, statErr := os.Stat(filepath.Join(ws, tc.wantFile))
			if tc.wantOK {
				if !strings.Contains(readFile(t, filepath.Join(ws, tc.wantFile)), "LINE 149") || len(resp.GetEdits()) != 150 {
					t.Errorf("edits not applied or not reported: %d results", len(resp.GetEdits()))
				}
			} else if !slices.Contains(violationCodes(v), "RESPONSE_TOO_LARGE:") || !os.IsNotExist(statErr) || len(resp.GetChanges()) != 0 {
				t.Errorf("violations %v, file %v, %d changes", violationCodes(v), statErr, len(resp.GetChanges()))
			}
		})
	}
}
