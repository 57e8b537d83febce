package mcp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/mcp"
	"github.com/toolguard/toolguard/workspace/workspacetest"
)

// TestReadOnlyTools calls get_file_info, read_multiple_files and
// read_media_file over each transport: the answers, the refusals beside
// each path, the media as image content, nothing of a denied or outside file.
func TestReadOnlyTools(t *testing.T) {
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
	for name, connect := range transports {
		t.Run(name, func(t *testing.T) {
			s, dir := newServer(t, guard.Config{}, mcp.Options{})
			outside := t.TempDir()
			workspacetest.WriteFiles(t, dir, map[string]string{"a.py": "one\ntwo\nthree\n", "b.txt": "b\n", "dot.png": png, ".git/config": "[core]\n",
				"tone.mp3": "ID3\x03\x00", filepath.Join("..", filepath.Base(outside), "secret.txt"): "canary\n"})
			if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "out")); err != nil {
				t.Fatal(err)
			}
			cs := connect(t, s, newClient())
			for _, tool := range []string{"get_file_info", "read_multiple_files", "read_media_file"} {
				if tl := listed(t, cs, tool); tl == nil || tl.Annotations == nil || !tl.Annotations.ReadOnlyHint {
					t.Fatalf("%s is not listed read-only: %+v", tool, tl)
				}
			}

			res, sc := call(t, cs, "get_file_info", `{"paths":["a.py",".git/config","out","../x"]}`)
			txt := text(res)
			if res.IsError || !strings.Contains(txt, "lines: 3") || !strings.Contains(txt, "denied: by pattern \".git\"") ||
				!strings.Contains(txt, "type: symlink") || !strings.Contains(txt, "climbs above the workspace root") {
				t.Fatalf("info: %v %s", res.IsError, txt)
			}
			r, _ := sc["result"].(map[string]any)
			if info, _ := r["files"].([]any); len(info) != 4 || info[1].(map[string]any)["denied"] != true {
				t.Fatalf("info structured: %v", sc)
			}

			res, sc = call(t, cs, "read_multiple_files", `{"paths":["a.py","out","b.txt",".git/config"],"tail":1}`)
			txt = text(res)
			if res.IsError || !strings.Contains(txt, "a.py:\nthree\n") || !strings.Contains(txt, "b.txt:\nb\n") || !strings.Contains(txt, "out: Error - ") ||
				strings.Contains(txt, "canary") || strings.Contains(txt, "[core]") || consecutive(sc) != 0 {
				t.Fatalf("read files: %s", txt)
			}
			res, sc = call(t, cs, "read_multiple_files", `{"files":["out",".git/config"]}`)
			if !res.IsError || consecutive(sc) != 1 || strings.Contains(text(res), "canary") {
				t.Fatalf("none served: %v %s", res.IsError, text(res))
			}

			res, sc = call(t, cs, "read_media_file", `{"path":"dot.png"}`)
			img, ok := res.Content[0].(*sdk.ImageContent)
			if res.IsError || !ok || img.MIMEType != "image/png" || string(img.Data) != png || consecutive(sc) != 0 {
				t.Fatalf("media: %v %+v", res.IsError, res.Content)
			}
			res, _ = call(t, cs, "read_media_file", `{"path":"tone.mp3"}`)
			if a, ok := res.Content[0].(*sdk.AudioContent); res.IsError || !ok || a.MIMEType != "audio/mpeg" {
				t.Fatalf("audio: %+v", res.Content)
			}
			res, _ = call(t, cs, "read_media_file", `{"path":"out"}`)
			if !res.IsError || strings.Contains(text(res), "canary") {
				t.Fatalf("media through a link out: %s", text(res))
			}
		})
	}
}

func listed(t *testing.T, cs *sdk.ClientSession, name string) *sdk.Tool {
	t.Helper()
	lt, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range lt.Tools {
		if tl.Name == name {
			return tl
		}
	}
	return nil
}
