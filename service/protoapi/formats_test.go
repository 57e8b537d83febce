package protoapi

import (
	"testing"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/repair/stream"
)

// TestStreamFormatsMatch: every stream format of the API has a parser, and
// every parser's format has a value in the API.
func TestStreamFormatsMatch(t *testing.T) {
	for v, name := range toolguardv1.StreamFormat_name {
		if v == int32(toolguardv1.StreamFormat_STREAM_FORMAT_UNSPECIFIED) {
			continue
		}
		if _, ok := streamFormats[toolguardv1.StreamFormat(v)]; !ok {
			t.Errorf("the API's %s has no parser", name)
		}
	}
	for _, f := range stream.Formats() {
		if _, ok := toolguardv1.StreamFormat_value[StreamFormatEnumName(f)]; !ok {
			t.Errorf("the parser's %s has no value in the API (want %s)", f, StreamFormatEnumName(f))
		}
	}
}
