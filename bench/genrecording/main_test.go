package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWrite: N lines, each a plain call or an exchange, with a model, a
// session and a time; every kind of call comes up.
func TestWrite(t *testing.T) {
	name := filepath.Join(t.TempDir(), "rec.jsonl")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := write(f, 400); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	f, err = os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	lines, exchanges, args := 0, 0, map[string]bool{}
	for sc.Scan() {
		var l struct {
			Tool      string          `json:"tool"`
			Arguments string          `json:"arguments"`
			Request   json.RawMessage `json:"request"`
			Session   string          `json:"session"`
			Time      string          `json:"time"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("line %d: %v", lines+1, err)
		}
		if l.Session == "" || l.Time == "" || (l.Tool == "") == (l.Request == nil) {
			t.Errorf("line %d: %s", lines+1, sc.Text())
		}
		if l.Request != nil {
			exchanges++
		} else {
			args[strings.Map(noDigits, l.Arguments)] = true
		}
		lines++
	}
	if lines != 400 || exchanges != 100 || len(args) != len(kinds) {
		t.Errorf("%d lines, %d exchanges, %d kinds of arguments", lines, exchanges, len(args))
	}
}

func noDigits(r rune) rune {
	if r >= '0' && r <= '9' {
		return -1
	}
	return r
}
