package service

import (
	"google.golang.org/grpc/encoding"
	protocodec "google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/protoadapt"
)

// wireCodec is the server's codec: grpc-go's proto codec, except that a
// wireMessage receives a request's bytes undecoded (see decode.go).
type wireCodec struct{ proto encoding.CodecV2 }

func newWireCodec() wireCodec { return wireCodec{proto: encoding.GetCodecV2(protocodec.Name)} }

func (c wireCodec) Marshal(v any) (mem.BufferSlice, error) { return c.proto.Marshal(v) }

func (c wireCodec) Unmarshal(data mem.BufferSlice, v any) error {
	if w, ok := v.(*wireMessage); ok {
		w.free() // a second message, which grpc-go refuses for a unary call
		data.Ref()
		w.data = data
		return nil
	}
	return c.proto.Unmarshal(data, v)
}

func (c wireCodec) Name() string { return protocodec.Name }

// messageOf returns v as a protobuf message, as grpc-go's codec takes it,
// or nil.
func messageOf(v any) proto.Message {
	switch v := v.(type) {
	case protoadapt.MessageV1:
		return protoadapt.MessageV2Of(v)
	case proto.Message:
		return v
	}
	return nil
}

// wireMessage is one received message, still encoded.
type wireMessage struct{ data mem.BufferSlice }

func (w *wireMessage) free() {
	w.data.Free()
	w.data = nil
}
