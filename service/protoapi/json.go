package protoapi

import (
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// JSON renders m as the offline commands print API messages: proto field
// names, every field shown; indented for an answer, on one line for each
// event of a stream.
func JSON(m proto.Message, multiline bool) ([]byte, error) {
	return protojson.MarshalOptions{UseProtoNames: true, EmitUnpopulated: true, Multiline: multiline}.Marshal(m)
}
