package proxy

import (
	"bytes"
	"encoding/json"
	"testing"
)

// encoderString is what appendQuotedJSON must give: encoding/json's
// encoding of s, HTML left as it is.
func encoderString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

var quoteSeeds = []string{
	"", "plain", `a "quoted" \ back\slash`, "\b\f\n\r\t \x00\x01\x1f\x7f",
	"é 😀 \u2028 \u2029 \u2027 \u202a", "\xff\xfe bad \xc3 \xe2\x80", "</a> & <b>",
	`{'path': 'a.go', 'content': "x \" y \\ z\n"}`,
}

func TestQuotedJSON(t *testing.T) {
	for _, s := range quoteSeeds {
		want := encoderString(s)
		if got := jsonString(s); !bytes.Equal(got, want) {
			t.Errorf("jsonString(%q) = %s, encoding/json gives %s", s, got, want)
		}
		if got := appendQuotedJSON([]byte("x"), []byte(s)); !bytes.Equal(got, append([]byte("x"), want...)) {
			t.Errorf("appendQuotedJSON(x, %q) = %s, want x%s", s, got, want)
		}
	}
}

// FuzzQuotedJSON: a repaired call's arguments are quoted byte for byte as
// encoding/json quotes them, whatever the bytes.
func FuzzQuotedJSON(f *testing.F) {
	for _, s := range quoteSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, s []byte) {
		want := encoderString(string(s))
		if got := appendQuotedJSON(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("%q: quoted %s, encoding/json gives %s", s, got, want)
		}
		if got := jsonString(string(s)); !bytes.Equal(got, want) {
			t.Fatalf("%q: as a string quoted %s, encoding/json gives %s", s, got, want)
		}
	})
}
