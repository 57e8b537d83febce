package syntax

import (
	"context"
	"testing"
)

func TestDetect(t *testing.T) {
	tests := []struct {
		path, src, want string
	}{
		{"config.JSON", "{}", "json"},
		{"data.json", "", "json"},
		{"notes.txt", "{}", ""},
	}
	for _, tc := range tests {
		got, _ := Detect(tc.path, []byte(tc.src))
		if got != tc.want {
			t.Errorf("Detect(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
}

func TestShebang(t *testing.T) {
	tests := []struct{ src, want string }{
		{"#!/usr/bin/env python3\nprint(1)\n", "python3"},
		{"#!/usr/bin/env -S bash -e\n", "bash"},
		{"#!/bin/sh -e\n", "sh"},
		{"#! /usr/bin/node\n", "node"},
		{"print(1)\n", ""},
	}
	for _, tc := range tests {
		if got := shebang([]byte(tc.src)); got != tc.want {
			t.Errorf("shebang(%q) = %q, want %q", tc.src, got, tc.want)
		}
	}
}

func TestCheckJSON(t *testing.T) {
	tests := []struct {
		name, src string
		errs      int
		line, col int
	}{
		{"clean", `{"a": 1}`, 0, 0, 0},
		{"trailing comma", "{\n  \"a\": 1,\n}", 1, 3, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Check(context.Background(), "a.json", []byte(tc.src), DefaultLimits)
			if !r.Checked || r.Lang != "json" || len(r.Errors) != tc.errs {
				t.Fatalf("result %+v, want %d errors", r, tc.errs)
			}
			if tc.errs > 0 && (r.Errors[0].Line != tc.line || r.Errors[0].Column != tc.col) {
				t.Errorf("error at %d:%d, want %d:%d", r.Errors[0].Line, r.Errors[0].Column, tc.line, tc.col)
			}
		})
	}
	if r := Check(context.Background(), "big.json", make([]byte, 10), Limits{MaxBytes: 5}); r.Checked || r.Reason == "" {
		t.Errorf("a file over the bound: %+v, want not checked with a reason", r)
	}
}
