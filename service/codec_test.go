package service

import (
	"testing"

	"google.golang.org/protobuf/proto"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
)

// TestCodecPassesRequestsUndecoded: a wireMessage receives the bytes as
// they came, anything else is decoded as by the proto codec.
func TestCodecPassesRequestsUndecoded(t *testing.T) {
	codec := newWireCodec()
	want := &toolguardv1.GetSessionRequest{SessionId: "s"}
	data, err := codec.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	w := &wireMessage{}
	if err := codec.Unmarshal(data, w); err != nil {
		t.Fatal(err)
	}
	var got toolguardv1.GetSessionRequest
	if fe := newRequestDecoder(64).decode(w, &got); fe != nil || !proto.Equal(&got, want) {
		t.Fatalf("decoded %v, %v; want %v", &got, fe, want)
	}
	w.free()
	got.Reset()
	if err := codec.Unmarshal(data, &got); err != nil || !proto.Equal(&got, want) {
		t.Fatalf("Unmarshal = %v, %v", &got, err)
	}
}
