package proxy

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// marshalString is encoding/json's quoting without HTML escaping, which
// appendJSONString must match byte for byte.
func marshalString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

var quoteSeeds = []string{
	"", "plain ascii text", `quote " and backslash \ inside`, "<b>&amp;</b>",
	"\x00\x01\x07\b\f\n\r\t\x1f\x7f", "é 中文 😀", "\u2028 and \u2029",
	"\xff\xfe invalid \xc3 cut", "\xe2\x80", strings.Repeat(`func f() { s := "</content> é \\ {}" } // line`+"\n", 40),
	"12345678\"12345678\\1234567\x1f", "exactly8", "seven77",
}

func TestAppendJSONString(t *testing.T) {
	for _, s := range quoteSeeds {
		want := marshalString(s)
		if got := jsonString(s); !bytes.Equal(got, want) {
			t.Errorf("%q: got %s, want %s", s, got, want)
		}
		if got := appendJSONString([]byte("x"), []byte(s)); !bytes.Equal(got, append([]byte("x"), want...)) {
			t.Errorf("%q as bytes: got %s, want x%s", s, got, want)
		}
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range quoteSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := jsonString(s), marshalString(s); !bytes.Equal(got, want) {
			t.Fatalf("%q: got %s, want %s", s, got, want)
		}
	})
}
