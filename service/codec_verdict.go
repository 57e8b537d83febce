package service

import (
	"math"
	"unicode/utf8"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
)

// A ValidateToolCall answer carries the call's arguments as a Struct, and
// protobuf-go encodes a Struct's map by reflection: a map iterator, a
// copy of every key, twice (once to size it, once to write it), at every
// call. marshalVerdict writes a flat Struct (one whose values are strings,
// numbers, booleans and nulls: the arguments of nearly every call) itself,
// and the rest of the answer with protobuf-go. A nested Struct, or any
// string that is not UTF-8, takes the usual path, which gives the same
// bytes to a reader (TestMarshalVerdictAsProto).

var (
	verdictField   = fieldNumber(&toolguardv1.ValidateToolCallResponse{}, "verdict")
	argumentsField = fieldNumber(&toolguardv1.Verdict{}, "arguments")
)

func fieldNumber(m proto.Message, name string) protowire.Number {
	return m.ProtoReflect().Descriptor().Fields().ByName(protoreflect.Name(name)).Number()
}

// The field numbers of google.protobuf.Struct, its map entries and Value.
const (
	structFields    protowire.Number = 1
	entryKey        protowire.Number = 1
	entryValue      protowire.Number = 2
	valueNull       protowire.Number = 1
	valueNumber     protowire.Number = 2
	valueString     protowire.Number = 3
	valueBool       protowire.Number = 4
	maxFlatEncoding                  = math.MaxInt32
)

// marshalVerdict encodes r as proto.Marshal does, for a reader; false when
// its arguments are not a flat Struct of valid strings, or the answer does
// not encode, and the caller must take the usual path. r is the handler's
// own answer, encoded once by the call's goroutine: its verdict and
// arguments are taken off while the rest is encoded, and put back.
func marshalVerdict(r *toolguardv1.ValidateToolCallResponse) (mem.BufferSlice, bool) {
	v := r.GetVerdict()
	args := v.GetArguments()
	if args == nil {
		return nil, false
	}
	argsSize, ok := flatStructSize(args)
	if !ok {
		return nil, false
	}
	r.Verdict, v.Arguments = nil, nil
	defer func() { r.Verdict, v.Arguments = v, args }()
	opts := proto.MarshalOptions{UseCachedSize: true}
	restSize := proto.Size(r)
	verdictSize := proto.Size(v) + protowire.SizeTag(argumentsField) + protowire.SizeBytes(argsSize)
	size := restSize + protowire.SizeTag(verdictField) + protowire.SizeBytes(verdictSize)
	if size > maxFlatEncoding {
		return nil, false
	}
	w, b := newWireBuffer(size)
	b, err := opts.MarshalAppend(b, r)
	if err == nil {
		b = protowire.AppendTag(b, verdictField, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(verdictSize))
		b, err = opts.MarshalAppend(b, v)
	}
	if err != nil || len(b)+protowire.SizeTag(argumentsField)+protowire.SizeBytes(argsSize) != size {
		w.drop()
		return nil, false
	}
	b = protowire.AppendTag(b, argumentsField, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(argsSize))
	b = appendFlatStruct(b, args)
	return w.done(b), true
}

// flatValueSize is the encoded size of v, a scalar Value; false for a
// Struct, a list, an unset kind or a string that is not UTF-8.
func flatValueSize(v *structpb.Value) (int, bool) {
	if s, ok := v.GetKind().(*structpb.Value_StringValue); ok && !utf8.ValidString(s.StringValue) {
		return 0, false
	}
	return scalarSize(v)
}

// scalarSize is flatValueSize without the check of a string's bytes,
// for a value flatValueSize accepted.
func scalarSize(v *structpb.Value) (int, bool) {
	switch k := v.GetKind().(type) {
	case *structpb.Value_NullValue:
		return protowire.SizeTag(valueNull) + protowire.SizeVarint(uint64(int64(k.NullValue))), true
	case *structpb.Value_NumberValue:
		return protowire.SizeTag(valueNumber) + protowire.SizeFixed64(), true
	case *structpb.Value_StringValue:
		return protowire.SizeTag(valueString) + protowire.SizeBytes(len(k.StringValue)), true
	case *structpb.Value_BoolValue:
		return protowire.SizeTag(valueBool) + protowire.SizeVarint(protowire.EncodeBool(k.BoolValue)), true
	}
	return 0, false
}

func entrySize(k string, valueSize int) int {
	return protowire.SizeTag(entryKey) + protowire.SizeBytes(len(k)) +
		protowire.SizeTag(entryValue) + protowire.SizeBytes(valueSize)
}

// flatStructSize is the encoded size of s; false when s is not flat.
func flatStructSize(s *structpb.Struct) (int, bool) {
	n := 0
	for k, v := range s.GetFields() {
		vs, ok := flatValueSize(v)
		if !ok || !utf8.ValidString(k) {
			return 0, false
		}
		n += protowire.SizeTag(structFields) + protowire.SizeBytes(entrySize(k, vs))
	}
	return n, true
}

// appendEntryHead appends a Struct's entry of key k up to its value's
// contents, vs bytes long.
func appendEntryHead(b []byte, k string, vs int) []byte {
	b = protowire.AppendTag(b, structFields, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(entrySize(k, vs)))
	b = protowire.AppendTag(b, entryKey, protowire.BytesType)
	b = protowire.AppendString(b, k)
	b = protowire.AppendTag(b, entryValue, protowire.BytesType)
	return protowire.AppendVarint(b, uint64(vs))
}

// appendFlatStruct appends s, which flatStructSize accepted.
func appendFlatStruct(b []byte, s *structpb.Struct) []byte {
	for k, v := range s.GetFields() {
		vs, _ := scalarSize(v)
		b = appendEntryHead(b, k, vs)
		switch x := v.GetKind().(type) {
		case *structpb.Value_NullValue:
			b = protowire.AppendTag(b, valueNull, protowire.VarintType)
			b = protowire.AppendVarint(b, uint64(int64(x.NullValue)))
		case *structpb.Value_NumberValue:
			b = protowire.AppendTag(b, valueNumber, protowire.Fixed64Type)
			b = protowire.AppendFixed64(b, math.Float64bits(x.NumberValue))
		case *structpb.Value_StringValue:
			b = protowire.AppendTag(b, valueString, protowire.BytesType)
			b = protowire.AppendString(b, x.StringValue)
		case *structpb.Value_BoolValue:
			b = protowire.AppendTag(b, valueBool, protowire.VarintType)
			b = protowire.AppendVarint(b, protowire.EncodeBool(x.BoolValue))
		}
	}
	return b
}
