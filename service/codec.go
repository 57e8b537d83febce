package service

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"go.uber.org/zap"
	"google.golang.org/grpc/encoding"
	protocodec "google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/protoadapt"
	"google.golang.org/protobuf/reflect/protoreflect"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/internal/logthrottle"
	"github.com/toolguard/toolguard/service/protoapi"
)

// wireCodec is grpc-go's proto codec, except that a wireMessage receives a
// request undecoded (decode.go), and a response holding a string that is not
// UTF-8 is still sent.
type wireCodec struct {
	proto   encoding.CodecV2
	notUTF8 *logthrottle.Warning
}

func newWireCodec(log *zap.Logger) wireCodec {
	return wireCodec{
		proto:   encoding.GetCodecV2(protocodec.Name),
		notUTF8: logthrottle.New(log, "response strings were not valid UTF-8: invalid bytes sent as U+FFFD"),
	}
}

// Marshal marshals as the proto codec does. A string that is not UTF-8
// comes from a file an edit quotes: the edit was made, so the answer must
// not fail; it goes with each invalid byte as U+FFFD.
func (c wireCodec) Marshal(v any) (mem.BufferSlice, error) {
	if a, ok := v.(*verdictAnswer); ok {
		if data, ok := a.marshal(); ok {
			// The answer is the verdict's last reader: the access line is
			// written, and the encoding copied its bytes.
			a.v.Release()
			return data, nil
		}
		pv, err := protoapi.VerdictToProto(a.v, a.callID)
		if err != nil {
			return nil, err
		}
		v = &toolguardv1.ValidateToolCallResponse{Verdict: pv}
	}
	if r, ok := v.(*toolguardv1.ValidateToolCallResponse); ok {
		if data, ok := marshalVerdict(r); ok {
			return data, nil
		}
	}
	data, err := c.proto.Marshal(v)
	if err == nil {
		return data, nil
	}
	m := messageOf(v)
	if m == nil {
		return nil, err
	}
	m = proto.Clone(m) // a response may be shared (ListTools caches them)
	var fixed []string
	toValidUTF8(m.ProtoReflect(), "", &fixed)
	if len(fixed) == 0 {
		return nil, err
	}
	data, err2 := c.proto.Marshal(m)
	if err2 != nil {
		return nil, errors.Join(err, err2)
	}
	c.notUTF8.Warn(zap.String("message", string(m.ProtoReflect().Descriptor().FullName())), zap.Strings("fields", fixed))
	return data, nil
}

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

const maxFixedFields = 8

// toValidUTF8 replaces the invalid bytes of every string in m with U+FFFD,
// adding the paths it changed to fixed.
func toValidUTF8(m protoreflect.Message, path string, fixed *[]string) {
	var fields []protoreflect.FieldDescriptor
	m.Range(func(fd protoreflect.FieldDescriptor, _ protoreflect.Value) bool {
		if fd.Kind() == protoreflect.StringKind || fd.Message() != nil {
			fields = append(fields, fd)
		}
		return true
	})
	// Changed after Range: it does not allow changes to other fields.
	for _, fd := range fields {
		p := string(fd.Name())
		if path != "" {
			p = path + "." + p
		}
		switch {
		case fd.IsMap():
			mapToValidUTF8(m.Mutable(fd).Map(), fd, p, fixed)
		case fd.IsList():
			l := m.Mutable(fd).List()
			for i := range l.Len() {
				pi := fmt.Sprintf("%s[%d]", p, i)
				if fd.Message() != nil {
					toValidUTF8(l.Get(i).Message(), pi, fixed)
				} else if s, ok := validString(l.Get(i).String()); !ok {
					l.Set(i, protoreflect.ValueOfString(s))
					noteFixed(fixed, pi)
				}
			}
		case fd.Message() != nil:
			toValidUTF8(m.Mutable(fd).Message(), p, fixed)
		default:
			if s, ok := validString(m.Get(fd).String()); !ok {
				m.Set(fd, protoreflect.ValueOfString(s))
				noteFixed(fixed, p)
			}
		}
	}
}

func mapToValidUTF8(mp protoreflect.Map, fd protoreflect.FieldDescriptor, path string, fixed *[]string) {
	var keys []protoreflect.MapKey
	mp.Range(func(k protoreflect.MapKey, _ protoreflect.Value) bool {
		keys = append(keys, k)
		return true
	})
	for _, k := range keys {
		p := path + "[" + fmt.Sprint(k.Interface()) + "]"
		switch {
		case fd.MapValue().Message() != nil:
			toValidUTF8(mp.Mutable(k).Message(), p, fixed)
		case fd.MapValue().Kind() == protoreflect.StringKind:
			if s, ok := validString(mp.Get(k).String()); !ok {
				mp.Set(k, protoreflect.ValueOfString(s))
				noteFixed(fixed, p)
			}
		}
		if fd.MapKey().Kind() != protoreflect.StringKind {
			continue
		}
		if s, ok := validString(k.String()); !ok {
			v := mp.Get(k)
			mp.Clear(k)
			mp.Set(protoreflect.ValueOfString(s).MapKey(), v)
			noteFixed(fixed, path)
		}
	}
}

func validString(s string) (string, bool) {
	if utf8.ValidString(s) {
		return s, true
	}
	return strings.ToValidUTF8(s, "\uFFFD"), false
}

func noteFixed(fixed *[]string, path string) {
	if len(*fixed) < maxFixedFields {
		*fixed = append(*fixed, strings.ToValidUTF8(path, "\uFFFD"))
	}
}
