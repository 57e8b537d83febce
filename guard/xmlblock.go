package guard

import (
	"strings"

	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/repair/stream"
)

// qwenFunction opens a call in Qwen3-Coder's format, which the XML block
// reader of repair does not speak.
const qwenFunction = "<function="

// readBlock reads a whole XML block written in Qwen3-Coder's format with the
// stream parser, in one piece: a call validated at once gets the same
// reading, repairs included, as the same text streamed. Other blocks, and a
// block in which the parser finds no call, go to repair as they are.
// truncated reports a call that never closed.
func (g *Guard) readBlock(call repair.Call, extra []*repair.Tool) (repair.Call, bool) {
	if call.Form != repair.FormXML || !strings.Contains(call.Text, qwenFunction) {
		return call, false
	}
	var found *stream.Event
	p, err := stream.New(stream.QwenXML, stream.Options{Tools: g.toolTags(nil, extra), MaxJSONDepth: repair.MaxJSONDepth}, func(e stream.Event) {
		if e.Kind == stream.EventCallClosed && found == nil {
			found = &e
		}
	})
	if err != nil {
		return call, false
	}
	if p.Text(call.Text) != nil || p.End(false) != nil || found == nil {
		return call, false
	}
	read := found.Call
	if read.Name == "" {
		read.Name = call.Name
	}
	return read, found.Truncated
}
