package protoapi

import (
	"bytes"
	"encoding/json"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// JSON renders m as the offline commands print API messages: proto field
// names, every field shown; indented by two spaces for an answer, compact on
// one line for each event of a stream. protojson varies its whitespace from
// build to build on purpose, so its output is formatted again here: the same
// message prints the same bytes from every build, for scripts that diff or
// grep it.
func JSON(m proto.Message, multiline bool) ([]byte, error) {
	raw, err := protojson.MarshalOptions{UseProtoNames: true, EmitUnpopulated: true}.Marshal(m)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if multiline {
		err = json.Indent(&out, raw, "", "  ")
	} else {
		err = json.Compact(&out, raw)
	}
	return out.Bytes(), err
}
