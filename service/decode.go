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

// Request decoding. A request that does not decode (a string that is not
// UTF-8, nesting past the recursion limit, bytes that are no protobuf) is
// the caller's mistake, but grpc-go turns any error of the codec into
// INTERNAL, before an interceptor or handler could say otherwise. So the
// server's codec hands requests over still encoded (wireMessage), and every
// registered service's handlers decode them themselves (strictRegistrar):
// a unary request that does not decode is refused from inside the
// interceptor chain, after auth and rate limits, and logged like any other
// refusal; a stream frame that does not decode ends the stream the same way.

// requestDecoder decodes requests into their messages.
type requestDecoder struct {
	unmarshal proto.UnmarshalOptions
	// maxJSONDepth is the server's MaxJSONDepth; structLevels whether the
	// recursion limit was derived from it (see newRequestDecoder).
	maxJSONDepth int
	structLevels bool
}

// structPrefix bounds the message levels above a request's deepest Struct
// (a stream frame, its start, a tool definition).
const structPrefix = 8

// newRequestDecoder returns the decoder of a server that admits JSON
// nested maxJSONDepth deep. A level of a google.protobuf.Struct is at most
// three levels of messages (the Struct, its map entry, the Value), so the
// recursion limit is three per admitted level above the requests' own
// nesting: whatever it refuses, MaxJSONDepth would have refused too, only
// after decoding it all; protobuf's default when that is lower.
func newRequestDecoder(maxJSONDepth int) requestDecoder {
	limit := 3*maxJSONDepth + structPrefix
	d := requestDecoder{maxJSONDepth: maxJSONDepth, structLevels: maxJSONDepth > 0 && limit <= protowire.DefaultRecursionLimit}
	d.unmarshal.RecursionLimit = protowire.DefaultRecursionLimit
	if d.structLevels {
		d.unmarshal.RecursionLimit = limit
	}
	return d
}

// decode decodes w into m. A request that does not decode leaves m empty
// and returns the protoapi.FieldError saying why and where.
func (d requestDecoder) decode(w *wireMessage, m any) *protoapi.FieldError {
	pm := messageOf(m)
	if pm == nil {
		// Not a protobuf message: no registered service has one.
		return &protoapi.FieldError{Reason: "MALFORMED_REQUEST", Description: fmt.Sprintf("the server cannot decode a %T", m)}
	}
	buf := w.data.MaterializeToBuffer(mem.DefaultBufferPool())
	defer buf.Free()
	b := buf.ReadOnlyData()
	err := d.unmarshal.Unmarshal(b, pm)
	if err == nil {
		return nil
	}
	proto.Reset(pm)
	return d.explain(b, pm.ProtoReflect().Descriptor(), err)
}

// recv receives a message through recv and decodes it into m: the error is
// the transport's, the protoapi.FieldError the caller's.
func (d requestDecoder) recv(recv func(any) error, m any) (*protoapi.FieldError, error) {
	w := &wireMessage{}
	defer w.free()
	if err := recv(w); err != nil {
		return nil, err
	}
	return d.decode(w, m), nil
}

// explain says what in b stopped it decoding as md. protobuf's errors name
// neither the field nor, in a stable form, the fault, so the wire is walked
// again to find both; if the walk finds nothing, protobuf's error is all
// there is to say.
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

// Finding the fault.

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

// wirePath is where the walk is, in proto field names
// ("tools[0].param_aliases[1].param"). Inside a google.protobuf.Struct or
// Value it stays at the field that holds it: the field is what the caller
// knows, and a path into a deep Struct would be as deep.
type wirePath struct {
	path     string
	inStruct bool
}

func (p wirePath) field() string { return p.path }

// child is the path of a field's value: index is its position among the
// field's values when repeated, key its map key when a map value.
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

// wireWalk walks encoded messages as protobuf decodes them, field by field
// in wire order, counting depth as protobuf does (each message and each map
// entry a level), and stops at the first fault.
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
			// Unknown fields and scalars hold no string and no nesting;
			// neither does a field of the wrong wire type, which protobuf
			// keeps as unknown.
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

// mapEntry walks one entry of the map field fd.
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

// lengthDelimited reports whether fd's values are what the walk looks
// into: maps, messages and strings.
func lengthDelimited(fd protoreflect.FieldDescriptor) bool {
	return fd.IsMap() || fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.StringKind
}

// utf8Detail says what is not UTF-8: what, or inside a Struct, which the
// path does not enter, a string somewhere in it.
func utf8Detail(at wirePath, what string) string {
	if at.inStruct {
		return "a string in it is"
	}
	return what
}

// Serving decoded requests.

// strictRegistrar registers services whose handlers decode their requests
// with dec (see strictService). Reflection registers through it too, and
// GetServiceInfo is the server's.
type strictRegistrar struct {
	*grpc.Server
	dec requestDecoder
}

func (r strictRegistrar) RegisterService(sd *grpc.ServiceDesc, impl any) {
	r.Server.RegisterService(strictService(sd, r.dec), impl)
}

// strictService returns a copy of sd whose handlers receive requests
// through dec. A unary handler whose request does not decode never runs:
// its place at the end of the interceptor chain is taken by the refusal, so
// the call is authenticated, rate-limited and logged like any other. A
// stream handler's receive returns the refusal as its error.
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
		var refusal *protoapi.FieldError
		decode := func(m any) error {
			var err error
			refusal, err = dec.recv(recv, m)
			return err
		}
		// The generated handler decodes, then runs the chain around the
		// method; a refusal takes the method's place.
		refuse := func(ctx context.Context, req any, info *grpc.UnaryServerInfo, method grpc.UnaryHandler) (any, error) {
			if refusal != nil {
				method = func(context.Context, any) (any, error) { return nil, fieldStatus(refusal) }
			}
			if chain == nil {
				return method(ctx, req)
			}
			return chain(ctx, req, info, method)
		}
		return h(srv, ctx, decode, refuse)
	}
}

// decodingStream is a server stream whose received messages are decoded
// by dec.
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
