package service

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"slices"
	"unicode/utf8"

	"google.golang.org/grpc"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/service/protoapi"
)

// A ValidateToolCall answer converted to protobuf is a Verdict message, its
// lists' messages and the arguments' Struct (a map, a Value and a kind per
// parameter), made at every call to be encoded once and dropped. So the
// server's ValidateToolCall handler (validateHandler) answers with the
// guard's verdict itself, sized (verdictAnswer), and the codec writes it to
// the wire: the bytes protobuf-go writes for VerdictToProto's message, in
// the order of its fields, the Struct's entries in the map's order as
// protobuf-go's are (TestVerdictAnswerAsProto, FuzzVerdictAnswer). A
// verdict whose arguments are not flat (strings, numbers, booleans, nulls),
// that holds a string that is not UTF-8, or whose repairs were cut, is
// converted as before.

// The field numbers of the answer's messages.
var (
	fVerdictOK         = fieldNumber(&toolguardv1.Verdict{}, "ok")
	fToolName          = fieldNumber(&toolguardv1.Verdict{}, "tool_name")
	fArgumentsJSON     = fieldNumber(&toolguardv1.Verdict{}, "arguments_json")
	fRepairs           = fieldNumber(&toolguardv1.Verdict{}, "repairs")
	fViolations        = fieldNumber(&toolguardv1.Verdict{}, "violations")
	fFeedback          = fieldNumber(&toolguardv1.Verdict{}, "feedback")
	fMistakes          = fieldNumber(&toolguardv1.Verdict{}, "mistakes")
	fCallID            = fieldNumber(&toolguardv1.Verdict{}, "call_id")
	fForm              = fieldNumber(&toolguardv1.Verdict{}, "form")
	fViolationsOmitted = fieldNumber(&toolguardv1.Verdict{}, "violations_omitted")
	fElided            = fieldNumber(&toolguardv1.Verdict{}, "elided")

	fRepairCode, fRepairParam, fRepairDetail         = fieldNumber(&toolguardv1.Repair{}, "code"), fieldNumber(&toolguardv1.Repair{}, "param"), fieldNumber(&toolguardv1.Repair{}, "detail")
	fViolationCode, fViolationParam, fViolationMsg   = fieldNumber(&toolguardv1.Violation{}, "code"), fieldNumber(&toolguardv1.Violation{}, "param"), fieldNumber(&toolguardv1.Violation{}, "message")
	fElisionField, fElisionSize, fElisionSHA256      = fieldNumber(&toolguardv1.Elision{}, "field"), fieldNumber(&toolguardv1.Elision{}, "size"), fieldNumber(&toolguardv1.Elision{}, "sha256")
	fConsecutive, fLimit, fLimitReached, fNotCounted = fieldNumber(&toolguardv1.MistakeState{}, "consecutive"), fieldNumber(&toolguardv1.MistakeState{}, "limit"),
		fieldNumber(&toolguardv1.MistakeState{}, "limit_reached"), fieldNumber(&toolguardv1.MistakeState{}, "not_counted")
)

// verdictAnswer is a ValidateToolCall answer in the guard's form, which
// newVerdictAnswer found the codec can write, with its sizes.
type verdictAnswer struct {
	v      *guard.Verdict
	callID string
	// verdict is the Verdict message's size, args its Struct's (-1: none).
	verdict, args int
}

// newVerdictAnswer sizes v's answer; false when the codec does not write
// it and it must be converted (the package comment above).
func newVerdictAnswer(v *guard.Verdict, callID string) (*verdictAnswer, bool) {
	if v.RepairsOmitted > 0 {
		return nil, false // VerdictToProto words them into the last repair
	}
	a := &verdictAnswer{v: v, callID: callID, args: -1}
	n := 0
	if v.OK() {
		n += protowire.SizeTag(fVerdictOK) + 1
	}
	ok := true
	add := func(num protowire.Number, s string) {
		if s != "" {
			ok = ok && utf8.ValidString(s)
			n += protowire.SizeTag(num) + protowire.SizeBytes(len(s))
		}
	}
	add(fToolName, v.ToolName)
	if v.Args != nil {
		if a.args, ok = argsSize(v.Args); !ok {
			return nil, false
		}
		n += protowire.SizeTag(argumentsField) + protowire.SizeBytes(a.args)
	}
	if len(v.ArgumentsJSON) > 0 {
		ok = ok && utf8.Valid(v.ArgumentsJSON)
		n += protowire.SizeTag(fArgumentsJSON) + protowire.SizeBytes(len(v.ArgumentsJSON))
	}
	for _, r := range v.Repairs {
		m := n
		add(fRepairCode, r.Code)
		add(fRepairParam, r.Param)
		add(fRepairDetail, r.Detail)
		n = m + protowire.SizeTag(fRepairs) + protowire.SizeBytes(n-m)
	}
	for _, x := range v.Violations {
		m := n
		add(fViolationCode, x.Code)
		add(fViolationParam, x.Param)
		add(fViolationMsg, x.Message)
		n = m + protowire.SizeTag(fViolations) + protowire.SizeBytes(n-m)
	}
	add(fFeedback, v.Feedback)
	n += protowire.SizeTag(fMistakes) + protowire.SizeBytes(mistakesSize(v.Mistakes))
	add(fCallID, callID)
	if f := protoapi.FormToProto(v.Form); f != 0 {
		n += protowire.SizeTag(fForm) + protowire.SizeVarint(uint64(f))
	}
	if o := violationsOmitted(v.ViolationsOmitted); o > 0 {
		n += protowire.SizeTag(fViolationsOmitted) + protowire.SizeVarint(uint64(o))
	}
	for _, e := range v.Elided {
		m := n
		add(fElisionField, e.Field)
		if e.Size != 0 {
			n += protowire.SizeTag(fElisionSize) + protowire.SizeVarint(uint64(e.Size))
		}
		add(fElisionSHA256, e.SHA256)
		n = m + protowire.SizeTag(fElided) + protowire.SizeBytes(n-m)
	}
	if !ok || n > maxFlatEncoding-16 {
		return nil, false
	}
	a.verdict = n
	return a, true
}

// violationsOmitted is the count as VerdictToProto gives it.
func violationsOmitted(n int) uint32 { return uint32(min(uint64(n), math.MaxUint32)) }

func mistakesSize(m guard.MistakeState) int {
	n := 0
	if m.Consecutive != 0 {
		n += protowire.SizeTag(fConsecutive) + protowire.SizeVarint(uint64(m.Consecutive))
	}
	if m.Limit != 0 {
		n += protowire.SizeTag(fLimit) + protowire.SizeVarint(uint64(m.Limit))
	}
	if m.LimitReached {
		n += protowire.SizeTag(fLimitReached) + 1
	}
	if m.NotCounted {
		n += protowire.SizeTag(fNotCounted) + 1
	}
	return n
}

// argValueSize is the encoded size of a parameter's Value, as protoapi's
// Struct converts it; false for a value that is not a scalar it converts
// (json.Number as float64), or a string that is not UTF-8.
func argValueSize(v any) (int, bool) {
	switch x := v.(type) {
	case nil:
		return protowire.SizeTag(valueNull) + 1, true
	case bool:
		return protowire.SizeTag(valueBool) + 1, true
	case string:
		return protowire.SizeTag(valueString) + protowire.SizeBytes(len(x)), utf8.ValidString(x)
	case json.Number:
		_, err := x.Float64()
		return protowire.SizeTag(valueNumber) + protowire.SizeFixed64(), err == nil
	}
	return 0, false
}

// argsSize is the encoded size of args as a Struct; false when it is not
// flat.
func argsSize(args map[string]any) (int, bool) {
	n := 0
	for k, v := range args {
		vs, ok := argValueSize(v)
		if !ok || !utf8.ValidString(k) {
			return 0, false
		}
		n += protowire.SizeTag(structFields) + protowire.SizeBytes(entrySize(k, vs))
	}
	return n, true
}

// marshal writes the answer; false if what it wrote is not the size
// newVerdictAnswer found, which would be a fault of this file.
func (a *verdictAnswer) marshal() (mem.BufferSlice, bool) {
	size := protowire.SizeTag(verdictField) + protowire.SizeBytes(a.verdict)
	w, b := newWireBuffer(size)
	b = protowire.AppendTag(b, verdictField, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(a.verdict))
	b = a.appendVerdict(b)
	if len(b) != size {
		w.drop()
		return nil, false
	}
	return w.done(b), true
}

func appendString(b []byte, num protowire.Number, s string) []byte {
	if s == "" {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func appendBool(b []byte, num protowire.Number, v bool) []byte {
	if !v {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return append(b, 1)
}

func appendUint(b []byte, num protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

// appendVerdict appends the Verdict message's fields, in field order.
func (a *verdictAnswer) appendVerdict(b []byte) []byte {
	v := a.v
	b = appendBool(b, fVerdictOK, v.OK())
	b = appendString(b, fToolName, v.ToolName)
	if a.args >= 0 {
		b = protowire.AppendTag(b, argumentsField, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(a.args))
		b = appendArgs(b, v.Args)
	}
	if len(v.ArgumentsJSON) > 0 {
		b = protowire.AppendTag(b, fArgumentsJSON, protowire.BytesType)
		b = protowire.AppendBytes(b, v.ArgumentsJSON)
	}
	for _, r := range v.Repairs {
		b = appendTriple(b, fRepairs, fRepairCode, r.Code, fRepairParam, r.Param, fRepairDetail, r.Detail)
	}
	for _, x := range v.Violations {
		b = appendTriple(b, fViolations, fViolationCode, x.Code, fViolationParam, x.Param, fViolationMsg, x.Message)
	}
	b = appendString(b, fFeedback, v.Feedback)
	b = protowire.AppendTag(b, fMistakes, protowire.BytesType)
	m := v.Mistakes
	b = protowire.AppendVarint(b, uint64(mistakesSize(m)))
	b = appendUint(b, fConsecutive, uint64(m.Consecutive))
	b = appendUint(b, fLimit, uint64(m.Limit))
	b = appendBool(b, fLimitReached, m.LimitReached)
	b = appendBool(b, fNotCounted, m.NotCounted)
	b = appendString(b, fCallID, a.callID)
	b = appendUint(b, fForm, uint64(protoapi.FormToProto(v.Form)))
	b = appendUint(b, fViolationsOmitted, uint64(violationsOmitted(v.ViolationsOmitted)))
	for _, e := range v.Elided {
		n := stringSize(fElisionField, e.Field) + stringSize(fElisionSHA256, e.SHA256)
		if e.Size != 0 {
			n += protowire.SizeTag(fElisionSize) + protowire.SizeVarint(uint64(e.Size))
		}
		b = protowire.AppendTag(b, fElided, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(n))
		b = appendString(b, fElisionField, e.Field)
		b = appendUint(b, fElisionSize, uint64(e.Size))
		b = appendString(b, fElisionSHA256, e.SHA256)
	}
	return b
}

func stringSize(num protowire.Number, s string) int {
	if s == "" {
		return 0
	}
	return protowire.SizeTag(num) + protowire.SizeBytes(len(s))
}

// appendTriple appends a message of three string fields (a Repair, a
// Violation) as field num.
func appendTriple(b []byte, num, n1 protowire.Number, s1 string, n2 protowire.Number, s2 string, n3 protowire.Number, s3 string) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(stringSize(n1, s1)+stringSize(n2, s2)+stringSize(n3, s3)))
	b = appendString(b, n1, s1)
	b = appendString(b, n2, s2)
	return appendString(b, n3, s3)
}

// appendArgs appends args, which argsSize accepted, as a Struct's entries.
func appendArgs(b []byte, args map[string]any) []byte {
	for k, v := range args {
		vs, _ := argValueSize(v)
		b = appendEntryHead(b, k, vs)
		switch x := v.(type) {
		case nil:
			b = protowire.AppendTag(b, valueNull, protowire.VarintType)
			b = append(b, 0)
		case bool:
			b = protowire.AppendTag(b, valueBool, protowire.VarintType)
			b = protowire.AppendVarint(b, protowire.EncodeBool(x))
		case string:
			b = protowire.AppendTag(b, valueString, protowire.BytesType)
			b = protowire.AppendString(b, x)
		case json.Number:
			f, _ := x.Float64()
			b = protowire.AppendTag(b, valueNumber, protowire.Fixed64Type)
			b = protowire.AppendFixed64(b, math.Float64bits(f))
		}
	}
	return b
}

// validateAnswerer is a service whose ValidateToolCall answers may be
// verdictAnswers.
type validateAnswerer interface {
	validateAnswer(context.Context, *toolguardv1.ValidateToolCallRequest) (any, error)
}

// binaryLogEnv turns on grpc-go's binary log, which records the answers
// handlers return as protobuf messages, after they are sent.
const binaryLogEnv = "GRPC_BINARY_LOG_FILTER"

// answeredService returns sd with ValidateToolCall's handler answering by
// impl's validateAnswer when it has one; sd otherwise, and when the binary
// log is on: it would find no message to record.
func answeredService(sd *grpc.ServiceDesc, impl any) *grpc.ServiceDesc {
	s, ok := impl.(validateAnswerer)
	if !ok || sd.ServiceName != toolguardv1.ToolGuardService_ServiceDesc.ServiceName || os.Getenv(binaryLogEnv) != "" {
		return sd
	}
	out := *sd
	out.Methods = slices.Clone(sd.Methods)
	for i, m := range out.Methods {
		if m.MethodName == validateMethod {
			out.Methods[i].Handler = validateHandler(s, impl)
		}
	}
	return &out
}

const validateMethod = "ValidateToolCall"

// validateHandler is the generated ValidateToolCall handler, answering by
// s's validateAnswer. What the generated one makes at every call, the
// method's description for the interceptors and the handler they call,
// is made once: neither holds anything of a call.
func validateHandler(s validateAnswerer, impl any) grpc.MethodHandler {
	info := &grpc.UnaryServerInfo{Server: impl, FullMethod: toolguardv1.ToolGuardService_ValidateToolCall_FullMethodName}
	handler := func(ctx context.Context, req any) (any, error) {
		return s.validateAnswer(ctx, req.(*toolguardv1.ValidateToolCallRequest))
	}
	return func(_ any, ctx context.Context, dec func(any) error, interceptor grpc.UnaryServerInterceptor) (any, error) {
		in := new(toolguardv1.ValidateToolCallRequest)
		if err := dec(in); err != nil {
			return nil, err
		}
		if interceptor == nil {
			return s.validateAnswer(ctx, in)
		}
		return interceptor(ctx, in, info, handler)
	}
}
