package service

import (
	"context"
	"fmt"
	"strconv"
	"unicode/utf8"

	"google.golang.org/grpc"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/toolguard/toolguard/service/protoapi"
)

// A request that does not decode is the caller's mistake, but grpc-go turns
// any codec error into INTERNAL before an interceptor could say otherwise.
// So the codec hands requests over still encoded (wireMessage) and each
// service decodes its own (strictRegistrar): a refusal then comes from inside
// the interceptor chain, after auth and rate limits, logged like any other.

type requestDecoder struct {
	unmarshal proto.UnmarshalOptions
	// structLevels says whether the recursion limit derives from
	// maxJSONDepth (newRequestDecoder).
	maxJSONDepth int
	structLevels bool
}

// structPrefix bounds the message levels above a request's deepest Struct.
const structPrefix = 8

// newRequestDecoder returns the decoder of a server that admits JSON nested
// maxJSONDepth deep. A Struct level is at most three message levels, so the
// recursion limit is three per admitted level above the requests' own: it
// refuses only what MaxJSONDepth would refuse after decoding it all.
func newRequestDecoder(maxJSONDepth int) requestDecoder {
	limit := 3*maxJSONDepth + structPrefix
	d := requestDecoder{maxJSONDepth: maxJSONDepth, structLevels: maxJSONDepth > 0 && limit <= protowire.DefaultRecursionLimit}
	d.unmarshal.RecursionLimit = protowire.DefaultRecursionLimit
	if d.structLevels {
		d.unmarshal.RecursionLimit = limit
	}
	return d
}

// decode decodes w into m, or leaves m empty and says why and where.
func (d requestDecoder) decode(w *wireMessage, m any) *protoapi.FieldError {
	pm := messageOf(m)
	if pm == nil {
		return &protoapi.FieldError{Reason: "MALFORMED_REQUEST", Description: fmt.Sprintf("the server cannot decode a %T", m)}
	}
	if w.data.Len() >= aliasMinBytes {
		b := w.data.Materialize()
		w.free() // the frames, before the message takes memory of its own
		return d.decodeLarge(b, pm)
	}
	buf := w.data.MaterializeToBuffer(mem.DefaultBufferPool())
	defer buf.Free()
	return d.decodeBytes(buf.ReadOnlyData(), pm)
}

// decodeBytes decodes b into pm, or leaves pm empty and says why and where.
func (d requestDecoder) decodeBytes(b []byte, pm proto.Message) *protoapi.FieldError {
	err := d.unmarshal.Unmarshal(b, pm)
	if err == nil {
		return nil
	}
	proto.Reset(pm)
	return d.explain(b, pm.ProtoReflect().Descriptor(), err)
}

// recv receives and decodes m: the error is the transport's, the FieldError
// the caller's.
func (d requestDecoder) recv(recv func(any) error, m any) (*protoapi.FieldError, error) {
	refusal, _, err := d.recvSized(recv, m)
	return refusal, err
}

// recvSized is recv, saying the size of the message received.
func (d requestDecoder) recvSized(recv func(any) error, m any) (*protoapi.FieldError, int, error) {
	w := &wireMessage{}
	defer w.free()
	if err := recv(w); err != nil {
		return nil, 0, err
	}
	size := w.data.Len()
	return d.decode(w, m), size, nil
}

// explain says what in b stopped it decoding as md: protobuf's errors name
// neither the field nor the fault in a stable form, so the wire is walked
// again to find both.
func (d requestDecoder) explain(b []byte, md protoreflect.MessageDescriptor, err error) *protoapi.FieldError {
	f := wireWalk{limit: d.unmarshal.RecursionLimit}.message(b, md, wirePath{}, 1)
	switch {
	case f == nil:
		return &protoapi.FieldError{Reason: "MALFORMED_REQUEST", Description: "the request is not a valid protobuf message: " + err.Error()}
	case f.kind == faultUTF8:
		return &protoapi.FieldError{Field: f.at.field(), Reason: "INVALID_UTF8", Description: f.detail + " not valid UTF-8: protobuf strings must be UTF-8 text"}
	case f.kind == faultDepth && f.at.inStruct && d.structLevels:
		return protoapi.TooDeep(f.at.field(), "the schema", d.maxJSONDepth)
	case f.kind == faultDepth:
		return &protoapi.FieldError{Field: f.at.field(), Reason: "MESSAGE_TOO_DEEP",
			Description: fmt.Sprintf("messages nest more than %d levels deep", d.unmarshal.RecursionLimit)}
	case f.at.field() == "":
		return &protoapi.FieldError{Reason: "MALFORMED_REQUEST", Description: "the request is not a valid protobuf message"}
	default:
		return &protoapi.FieldError{Field: f.at.field(), Reason: "MALFORMED_REQUEST", Description: "the field's bytes are not valid protobuf"}
	}
}

type faultKind int

const (
	faultWire faultKind = iota
	faultUTF8
	faultDepth
)

type wireFault struct {
	kind faultKind
	at   wirePath
	// detail says what is not UTF-8 ("the value is", "a key is").
	detail string
}

// wirePath is where the walk is, in proto field names. Inside a Struct it
// stays at the field that holds it: that is what the caller knows.
type wirePath struct {
	path     string
	inStruct bool
}

func (p wirePath) field() string { return p.path }

// child is the path of a field's value (index when repeated, key in a map).
func (p wirePath) child(fd protoreflect.FieldDescriptor, index int) wirePath {
	if p.inStruct {
		return p
	}
	path := string(fd.Name())
	if p.path != "" {
		path = p.path + "." + path
	}
	if fd.IsList() {
		path += "[" + strconv.Itoa(index) + "]"
	}
	return wirePath{path: path, inStruct: isStructType(fd.Message())}
}

func (p wirePath) key(k string) wirePath {
	if p.inStruct {
		return p
	}
	return wirePath{path: p.path + "[" + strconv.Quote(k) + "]"}
}

func isStructType(md protoreflect.MessageDescriptor) bool {
	if md == nil {
		return false
	}
	switch md.FullName() {
	case "google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue":
		return true
	}
	return false
}

// wireWalk walks encoded messages as protobuf decodes them, counting depth
// as protobuf does, and stops at the first fault.
type wireWalk struct{ limit int }

func (w wireWalk) message(b []byte, md protoreflect.MessageDescriptor, at wirePath, depth int) *wireFault {
	if depth > w.limit {
		return &wireFault{kind: faultDepth, at: at}
	}
	var seen map[protowire.Number]int // values of each repeated field so far
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return &wireFault{kind: faultWire, at: at}
		}
		b = b[n:]
		fd := md.Fields().ByNumber(num)
		if fd == nil || typ != protowire.BytesType || !lengthDelimited(fd) {
			// Unknown fields, scalars and wrong wire types hold no string
			// and no nesting.
			if n = protowire.ConsumeFieldValue(num, typ, b); n < 0 {
				return &wireFault{kind: faultWire, at: at}
			}
			b = b[n:]
			continue
		}
		v, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return &wireFault{kind: faultWire, at: at.child(fd, 0)}
		}
		b = b[n:]
		if seen == nil {
			seen = map[protowire.Number]int{}
		}
		here := at.child(fd, seen[num])
		seen[num]++
		var f *wireFault
		switch {
		case fd.IsMap():
			f = w.mapEntry(v, fd, here, depth+1)
		case fd.Kind() == protoreflect.MessageKind:
			f = w.message(v, fd.Message(), here, depth+1)
		case !utf8.Valid(v):
			f = &wireFault{kind: faultUTF8, at: here, detail: utf8Detail(here, "the value is")}
		}
		if f != nil {
			return f
		}
	}
	return nil
}

func (w wireWalk) mapEntry(b []byte, fd protoreflect.FieldDescriptor, at wirePath, depth int) *wireFault {
	if depth > w.limit {
		return &wireFault{kind: faultDepth, at: at}
	}
	keyFD, valueFD := fd.MapKey(), fd.MapValue()
	valueAt := at
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return &wireFault{kind: faultWire, at: at}
		}
		b = b[n:]
		var fdHere protoreflect.FieldDescriptor
		switch num {
		case keyFD.Number():
			fdHere = keyFD
		case valueFD.Number():
			fdHere = valueFD
		}
		if fdHere == nil || typ != protowire.BytesType || !lengthDelimited(fdHere) {
			if n = protowire.ConsumeFieldValue(num, typ, b); n < 0 {
				return &wireFault{kind: faultWire, at: at}
			}
			b = b[n:]
			continue
		}
		v, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return &wireFault{kind: faultWire, at: at}
		}
		b = b[n:]
		switch {
		case fdHere == keyFD && !utf8.Valid(v):
			return &wireFault{kind: faultUTF8, at: at, detail: utf8Detail(at, "a key is")}
		case fdHere == keyFD:
			valueAt = at.key(string(v))
		case fdHere.Kind() == protoreflect.MessageKind:
			if f := w.message(v, fdHere.Message(), valueAt, depth+1); f != nil {
				return f
			}
		case !utf8.Valid(v):
			return &wireFault{kind: faultUTF8, at: valueAt, detail: utf8Detail(valueAt, "the value is")}
		}
	}
	return nil
}

// lengthDelimited reports whether the walk looks into fd's values.
func lengthDelimited(fd protoreflect.FieldDescriptor) bool {
	return fd.IsMap() || fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.StringKind
}

// utf8Detail says what is not UTF-8 (inside a Struct, some string in it).
func utf8Detail(at wirePath, what string) string {
	if at.inStruct {
		return "a string in it is"
	}
	return what
}

// strictRegistrar registers services whose handlers decode their requests
// with dec (strictService).
type strictRegistrar struct {
	*grpc.Server
	dec requestDecoder
}

func (r strictRegistrar) RegisterService(sd *grpc.ServiceDesc, impl any) {
	r.Server.RegisterService(strictService(answeredService(sd, impl), r.dec), impl)
}

// strictService returns sd with handlers that decode through dec. A unary
// request that does not decode is refused in the handler's place at the end
// of the chain, so it is authenticated, limited and logged; a stream's
// receive returns the refusal. A large unary request (chargeMinBytes and
// more) is decoded there too, once the chain let it in (decodeFirst).
func strictService(sd *grpc.ServiceDesc, dec requestDecoder) *grpc.ServiceDesc {
	out := *sd
	out.Methods = make([]grpc.MethodDesc, len(sd.Methods))
	for i, m := range sd.Methods {
		out.Methods[i] = grpc.MethodDesc{MethodName: m.MethodName, Handler: strictUnary(m.Handler, dec)}
	}
	out.Streams = make([]grpc.StreamDesc, len(sd.Streams))
	for i, s := range sd.Streams {
		h := s.Handler
		s.Handler = func(srv any, ss grpc.ServerStream) error { return h(srv, decodingStream{ServerStream: ss, dec: dec}) }
		out.Streams[i] = s
	}
	return &out
}

func strictUnary(h grpc.MethodHandler, dec requestDecoder) grpc.MethodHandler {
	return func(srv any, ctx context.Context, recv func(any) error, chain grpc.UnaryServerInterceptor) (any, error) {
		growStack()
		var got struct {
			refusal *protoapi.FieldError
			size    int
			// A large request is decoded inside the chain (decodeFirst).
			large *wireMessage
			msg   any
		}
		decode := func(m any) error {
			w := &wireMessage{}
			if err := recv(w); err != nil {
				w.free()
				return err
			}
			if got.size = w.data.Len(); got.size >= chargeMinBytes {
				got.large, got.msg = w, m
				return nil
			}
			got.refusal = dec.decode(w, m)
			w.free()
			return nil
		}
		// A refusal takes the method's place inside the chain.
		refuse := func(ctx context.Context, req any, info *grpc.UnaryServerInfo, method grpc.UnaryHandler) (any, error) {
			switch {
			case got.refusal != nil:
				method = func(context.Context, any) (any, error) { return nil, fieldStatus(got.refusal) }
			case got.large != nil:
				var done func()
				ctx, done = withRequestSize(ctx, got.size) // for the unary memory budget
				defer done()
				method = decodeFirst(method, dec, got.large, got.msg)
			}
			if chain == nil {
				return method(ctx, req)
			}
			return chain(ctx, req, info, method)
		}
		resp, err := h(srv, ctx, decode, refuse)
		if got.large != nil {
			got.large.free() // what decoding did not free, or a call refused before it
		}
		collectAfter(got.size)
		return resp, err
	}
}

// decodingStream decodes its received messages with dec.
type decodingStream struct {
	grpc.ServerStream
	dec requestDecoder
}

func (s decodingStream) RecvMsg(m any) error {
	refusal, err := s.dec.recv(s.ServerStream.RecvMsg, m)
	if err != nil {
		return err
	}
	if refusal != nil {
		return fieldStatus(refusal)
	}
	return nil
}
