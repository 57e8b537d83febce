package guard

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"path"
	"strings"

	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/workspace"
)

// DefaultMaxMediaBytes is Config.MaxMediaBytes when unset: a large photo.
const DefaultMaxMediaBytes = 5 << 20

// Media is the outcome of read_media_file: the file's bytes and MIME type
// when the verdict is usable.
type Media struct {
	*Verdict
	// Path is the workspace-relative path read.
	Path     string
	MIMEType string
	Data     []byte
	SHA256   string
}

// MediaRequest asks for one media file, in fields.
type MediaRequest struct {
	LookContext
	Path string
}

// ReadMedia reads a media file as the ReadMediaFile RPC asks: a call of
// read_media_file, counted in the session as the model's.
func (g *Guard) ReadMedia(ctx context.Context, req MediaRequest) (*Media, error) {
	call, err := req.call(MediaToolName, map[string]any{"path": req.Path})
	if err != nil {
		return nil, err
	}
	return g.MediaCall(ctx, call)
}

// MediaCall repairs and validates a read_media_file call (under any of its
// names) and reads the file, confined as every read, up to the media bound.
func (g *Guard) MediaCall(ctx context.Context, req ExecuteRequest) (*Media, error) {
	out := &Media{}
	v, err := g.lookFiles(ctx, req, MediaToolName, func(ws *workspace.Workspace, res *repair.Result) error {
		p, _ := res.Args["path"].(string)
		data, info, err := ws.ReadFile(p)
		switch {
		case workspace.IsCode(err, workspace.CodeConflict):
			return &FileChangedError{Path: p, Expected: "(as opened)", Actual: "(changed while being read)"}
		case err != nil && workspace.CodeOf(err) == "":
			return fmt.Errorf("read %s: %w", p, err)
		case err != nil:
			res.Violate(violationCode(err), "path", err.Error())
		case int64(len(data)) > g.maxMediaBytes():
			res.Violate(CodeFileTooLarge, "path", fmt.Sprintf("file %q is %d bytes; read_media_file returns files of up to %d bytes", p, len(data), g.maxMediaBytes()))
		default:
			out.Path, out.Data, out.SHA256, out.MIMEType = info.Path, data, info.SHA256, MediaType(info.Path, data)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out.Verdict = v
	if !v.OK() {
		*out = Media{Verdict: v}
	}
	return out, nil
}

// maxMediaBytes keeps a media answer within the server's bound and well
// inside the answer's budget.
func (g *Guard) maxMediaBytes() int64 {
	n := g.maxMedia
	if n <= 0 {
		n = DefaultMaxMediaBytes
	}
	if b := g.answerBudget(); b > 0 && int64(b/2) < n {
		n = int64(b / 2)
	}
	return n
}

// mediaByExt names the types content sniffing (net/http) misses or calls
// generic, by extension: SVG is XML, WebP and most audio need more than
// the sniffer's signatures.
var mediaByExt = map[string]string{
	".svg": "image/svg+xml", ".webp": "image/webp", ".avif": "image/avif", ".heic": "image/heic", ".heif": "image/heif",
	".tif": "image/tiff", ".tiff": "image/tiff", ".ico": "image/x-icon", ".bmp": "image/bmp",
	".mp3": "audio/mpeg", ".m4a": "audio/mp4", ".aac": "audio/aac", ".flac": "audio/flac", ".ogg": "audio/ogg",
	".oga": "audio/ogg", ".opus": "audio/opus", ".wav": "audio/wav", ".weba": "audio/webm", ".mid": "audio/midi", ".midi": "audio/midi",
	".mp4": "video/mp4", ".webm": "video/webm", ".mov": "video/quicktime", ".pdf": "application/pdf",
}

// MediaType is the MIME type of a file: its content sniffed, and where the
// sniffer says only "binary", "text" or "XML" (or "ogg"), the extension.
func MediaType(name string, data []byte) string {
	sniffed := http.DetectContentType(data)
	base, _, _ := strings.Cut(sniffed, ";")
	generic := base == "application/octet-stream" || base == "text/plain" || base == "text/xml" || base == "application/ogg"
	if !generic {
		return sniffed
	}
	if t, ok := mediaByExt[strings.ToLower(path.Ext(name))]; ok {
		return t
	}
	if (base == "text/plain" || base == "text/xml") && bytes.Contains(data[:min(len(data), 512)], []byte("<svg")) {
		return "image/svg+xml"
	}
	return sniffed
}
